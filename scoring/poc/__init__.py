"""The POC test plan (issue #13, section 4): required runs, coverage, fleet sampling.

Pure functions, no Django. The portal stores a plan per evaluation (deadline, seed, how many
nodes the all-nodes runs span, how many nodes are sampled) and calls these functions with the
candidate's parsed evidence.

- :func:`required_runs` lists what a candidate must run, from the evaluation's scale and
  workload and the candidate's node count.
- :func:`sample_nodes` picks which of the candidate's nodes must report (golden-node guard): a
  pure function of the recorded seed and the node names, so the choice can be recomputed.
- :func:`coverage` says, per required run, which upload and node satisfied it. A run still
  missing after the deadline is ``failed``, never neutral; a run whose tool reported a failure
  (``dcgmi diag`` overall "fail") is ``failed`` too.
- :func:`fleet_summary` summarises a figure across nodes as p5 and median, never the best node.

``plan``: run kinds, statuses and the required runs; ``matching``: which evidence satisfies
a run; ``notes``: why a run's evidence fails it; ``covering``: the coverage; ``fleet``: fleet
figures; ``shortfall``: PocShortfall; ``findings``: what shortfalls do to a candidate.
"""

from .covering import ClaimedGpu, coverage, coverage_at, foreign_gpu
from .findings import (
    REF_SEPARATOR,
    candidate_with_poc,
    explained_contribution,
    item_findings,
    shortfalls,
    status_with_poc,
)
from .fleet import fleet_figures, fleet_summary, percentile
from .matching import (
    DEFAULT_SHARED_PREFIXES,
    FIO_JOB_PREFIXES,
    RANDOM_MAX_BS,
    RANDOM_RW,
    SEQUENTIAL_MIN_BS,
    SEQUENTIAL_RW,
    fio_job_target,
    fio_target,
    nodes_spanned,
    suggested_command,
)
from .notes import (
    DCGM_SKIPPED,
    NOTE_DCGM_FAIL,
    NOTE_DCGM_INCOMPLETE,
    NOTE_DCGM_SKIP,
    NOTE_FIO_ERRORS,
    NOTE_FOREIGN_GPU,
    NOTE_NCCL_WRONG,
    NOTES_EN,
    NoteArgs,
    note_en,
)
from .plan import (
    COVERED,
    DCGM_DIAG,
    FAILED,
    FIO_LOCAL_RAND,
    FIO_LOCAL_SEQ,
    FIO_SHARED_RAND,
    FIO_SHARED_SEQ,
    IB_WRITE_BW,
    INVENTORY,
    MULTI_NODE_WORKLOADS,
    NCCL_MULTI_ALL_REDUCE,
    NCCL_MULTI_ALLTOALL,
    NCCL_ONE_NODE,
    NVIDIA_SMI_Q,
    PENDING,
    RUN_LABELS,
    STATUSES,
    Coverage,
    PlanSpec,
    PocEvidence,
    RequiredRun,
    RunCoverage,
    evidence_from_report,
    is_multi_node,
    multi_node_span,
    required_runs,
    sample_nodes,
)
from .shortfall import (
    FABRIC_PROOF_RUNS,
    ITEM_CONTRADICTED,
    ITEM_UNVERIFIABLE,
    MISSING,
    REASONS,
    RUN_FAILED,
    RUN_ITEMS,
    RUN_LABELS_ZH,
    UNPROVEN,
    PocInputError,
    PocShortfall,
    note_parts,
    parse_explanations,
)

__all__ = [
    "COVERED",
    "DCGM_DIAG",
    "DCGM_SKIPPED",
    "DEFAULT_SHARED_PREFIXES",
    "FABRIC_PROOF_RUNS",
    "FAILED",
    "FIO_JOB_PREFIXES",
    "FIO_LOCAL_RAND",
    "FIO_LOCAL_SEQ",
    "FIO_SHARED_RAND",
    "FIO_SHARED_SEQ",
    "IB_WRITE_BW",
    "INVENTORY",
    "ITEM_CONTRADICTED",
    "ITEM_UNVERIFIABLE",
    "MISSING",
    "MULTI_NODE_WORKLOADS",
    "NCCL_MULTI_ALLTOALL",
    "NCCL_MULTI_ALL_REDUCE",
    "NCCL_ONE_NODE",
    "NOTES_EN",
    "NOTE_DCGM_FAIL",
    "NOTE_DCGM_INCOMPLETE",
    "NOTE_DCGM_SKIP",
    "NOTE_FIO_ERRORS",
    "NOTE_FOREIGN_GPU",
    "NOTE_NCCL_WRONG",
    "NVIDIA_SMI_Q",
    "PENDING",
    "RANDOM_MAX_BS",
    "RANDOM_RW",
    "REASONS",
    "REF_SEPARATOR",
    "RUN_FAILED",
    "RUN_ITEMS",
    "RUN_LABELS",
    "RUN_LABELS_ZH",
    "SEQUENTIAL_MIN_BS",
    "SEQUENTIAL_RW",
    "STATUSES",
    "UNPROVEN",
    "ClaimedGpu",
    "Coverage",
    "NoteArgs",
    "PlanSpec",
    "PocEvidence",
    "PocInputError",
    "PocShortfall",
    "RequiredRun",
    "RunCoverage",
    "candidate_with_poc",
    "coverage",
    "coverage_at",
    "evidence_from_report",
    "explained_contribution",
    "fio_job_target",
    "fio_target",
    "fleet_figures",
    "fleet_summary",
    "foreign_gpu",
    "is_multi_node",
    "item_findings",
    "multi_node_span",
    "nodes_spanned",
    "note_en",
    "note_parts",
    "parse_explanations",
    "percentile",
    "required_runs",
    "sample_nodes",
    "shortfalls",
    "status_with_poc",
    "suggested_command",
]
