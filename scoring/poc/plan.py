"""Run kinds and statuses, the plan's and coverage's records, and which runs a plan requires."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

COVERED = "covered"
PENDING = "pending"
FAILED = "failed"
STATUSES = (COVERED, PENDING, FAILED)

MULTI_NODE_WORKLOADS = frozenset({"pretraining", "finetuning"})


# Run kinds (stable keys: stored in reports and used as translation lookups by the portal).
NCCL_ONE_NODE = "nccl_all_reduce_one_node"
NCCL_MULTI_ALL_REDUCE = "nccl_all_reduce_multi_node"
NCCL_MULTI_ALLTOALL = "nccl_alltoall_multi_node"
IB_WRITE_BW = "ib_write_bw_pair"
DCGM_DIAG = "dcgm_diag_r3"
FIO_LOCAL_SEQ = "fio_local_sequential"
FIO_LOCAL_RAND = "fio_local_random"
FIO_SHARED_SEQ = "fio_shared_sequential"
FIO_SHARED_RAND = "fio_shared_random"
NVIDIA_SMI_Q = "nvidia_smi_q"
INVENTORY = "inventory"

RUN_LABELS = {
    NCCL_ONE_NODE: "one-node all_reduce (nccl-tests)",
    NCCL_MULTI_ALL_REDUCE: "multi-node all_reduce (nccl-tests)",
    NCCL_MULTI_ALLTOALL: "multi-node alltoall (nccl-tests)",
    IB_WRITE_BW: "ib_write_bw between two nodes",
    DCGM_DIAG: "dcgmi diag -r 3",
    FIO_LOCAL_SEQ: "fio sequential, local NVMe",
    FIO_LOCAL_RAND: "fio random, local NVMe",
    FIO_SHARED_SEQ: "fio sequential, shared file system",
    FIO_SHARED_RAND: "fio random, shared file system",
    NVIDIA_SMI_Q: "nvidia-smi -q",
    INVENTORY: "inventory (nvidia-smi -L)",
}


@dataclass(frozen=True)
class PlanSpec:
    """What the plan is derived from: the evaluation, the candidate and the plan's settings."""

    workload_profile: str
    required_total_gpus: int
    gpus_per_node: int
    node_count: int
    all_nodes_max: int = 2  # the multi-node collectives span min(node_count, this), at least 2
    sample_size: int = 4


@dataclass(frozen=True)
class RequiredRun:
    """One run the candidate must show. ``node`` is set for runs every sampled node repeats;
    ``peers`` for a pairwise run; ``min_nodes`` for the multi-node collectives."""

    key: str
    kind: str
    node: str = ""
    peers: tuple[str, ...] = ()
    min_nodes: int = 1

    @property
    def label(self) -> str:
        return RUN_LABELS[self.kind]


@dataclass(frozen=True)
class PocEvidence:
    """One parsed file of one upload, as coverage reads it (``command`` from the manifest)."""

    node_name: str
    upload_id: int | str | None
    kind: str
    metrics: Mapping[str, Any]
    source: str = ""
    command: str = ""


@dataclass(frozen=True)
class RunCoverage:
    run: RequiredRun
    status: str
    evidence: tuple[PocEvidence, ...] = ()
    note: str = ""
    note_code: str = ""  # NOTES_EN's key of a failure note, with its parts
    note_args: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.run.key,
            "kind": self.run.kind,
            "label": self.run.label,
            "node": self.run.node,
            "peers": list(self.run.peers),
            "min_nodes": self.run.min_nodes,
            "status": self.status,
            "note": self.note,
            "note_code": self.note_code,
            "note_args": dict(self.note_args),
            "evidence": [
                {"upload_id": e.upload_id, "node": e.node_name, "file": e.source}
                for e in self.evidence
            ],
        }


@dataclass(frozen=True)
class Coverage:
    runs: tuple[RunCoverage, ...]
    deadline_passed: bool
    fleet: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def count(self, status: str) -> int:
        return sum(1 for r in self.runs if r.status == status)

    @property
    def complete(self) -> bool:
        return all(r.status == COVERED for r in self.runs)

    def as_dict(self) -> dict[str, Any]:
        return {
            "required": len(self.runs),
            "covered": self.count(COVERED),
            "pending": self.count(PENDING),
            "failed": self.count(FAILED),
            "deadline_passed": self.deadline_passed,
            "complete": self.complete,
            "runs": [r.as_dict() for r in self.runs],
            "fleet": {k: dict(v) for k, v in self.fleet.items()},
        }


def is_multi_node(spec: PlanSpec) -> bool:
    """Multi-node when the candidate has several nodes and the workload spans them: training,
    or more GPUs required than one node holds."""
    if spec.node_count < 2:
        return False
    return spec.workload_profile in MULTI_NODE_WORKLOADS or spec.required_total_gpus > max(
        spec.gpus_per_node, 1
    )


def multi_node_span(spec: PlanSpec) -> int:
    """How many nodes the multi-node collectives must span: every node up to ``all_nodes_max``,
    at least 2 (never more than the candidate has)."""
    return max(2, min(spec.node_count, max(spec.all_nodes_max, 2)))


def sample_nodes(seed: int | str, node_names: Iterable[str], count: int) -> list[str]:
    """Which nodes must report: ``count`` of the distinct names, chosen at random from the seed.
    Pure: the same seed and names (in any order) give the same sample, in name order."""
    names = sorted({n.strip() for n in node_names if n and n.strip()})
    if count >= len(names):
        return names
    # Reproducible from the recorded seed by design: not a secret.
    rng = random.Random(f"{seed}|{len(names)}|" + "\n".join(names))  # noqa: S311
    return sorted(rng.sample(names, max(count, 0)))


def _pairs(nodes: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs covering every sampled node: a ring (a-b, b-c, ..., z-a), one pair for two."""
    if len(nodes) < 2:
        return []
    if len(nodes) == 2:
        return [(nodes[0], nodes[1])]
    return [(nodes[i], nodes[(i + 1) % len(nodes)]) for i in range(len(nodes))]


def required_runs(spec: PlanSpec, sampled: Sequence[str] = ()) -> list[RequiredRun]:
    """The runs the candidate must show. Per-node runs repeat on every sampled node; without
    a sample (no node names known) they are required once, from any node."""
    nodes = list(sampled) or [""]
    runs: list[RequiredRun] = []
    for node in nodes:
        suffix = f"@{node}" if node else ""
        runs.append(RequiredRun(NCCL_ONE_NODE + suffix, NCCL_ONE_NODE, node=node))
    multi = is_multi_node(spec)
    if multi:
        span = multi_node_span(spec)
        runs.append(RequiredRun(NCCL_MULTI_ALL_REDUCE, NCCL_MULTI_ALL_REDUCE, min_nodes=span))
        runs.append(RequiredRun(NCCL_MULTI_ALLTOALL, NCCL_MULTI_ALLTOALL, min_nodes=span))
        pairs = _pairs([n for n in nodes if n])
        if pairs:
            for a, b in pairs:
                runs.append(RequiredRun(f"{IB_WRITE_BW}@{a}~{b}", IB_WRITE_BW, peers=(a, b)))
        else:
            runs.append(RequiredRun(IB_WRITE_BW, IB_WRITE_BW))
    for kind in (DCGM_DIAG, FIO_LOCAL_SEQ, FIO_LOCAL_RAND, NVIDIA_SMI_Q, INVENTORY):
        for node in nodes:
            suffix = f"@{node}" if node else ""
            runs.append(RequiredRun(kind + suffix, kind, node=node))
    runs.append(RequiredRun(FIO_SHARED_SEQ, FIO_SHARED_SEQ))
    runs.append(RequiredRun(FIO_SHARED_RAND, FIO_SHARED_RAND))
    return runs


def evidence_from_report(
    report: Iterable[Mapping[str, Any]], *, node_name: str, upload_id: int | str | None
) -> list[PocEvidence]:
    """The parsed files of one upload's report (failed or missing files left out)."""
    found = []
    for item in report:
        if not isinstance(item, Mapping) or not item.get("ok") or not item.get("kind"):
            continue
        metrics = item.get("metrics")
        found.append(
            PocEvidence(
                node_name=node_name,
                upload_id=upload_id,
                kind=str(item["kind"]),
                metrics=metrics if isinstance(metrics, Mapping) else {},
                source=str(item.get("file") or ""),
                command=str(item.get("command") or ""),
            )
        )
    return found
