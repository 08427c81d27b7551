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
"""

from __future__ import annotations

import random
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from .evidence.perftest import bw_avg_each_way_gbit_s
from .reference import GpuNameFacts, gpu_name_differences, gpu_name_facts
from .types import CandidateInput

COVERED = "covered"
PENDING = "pending"
FAILED = "failed"
STATUSES = (COVERED, PENDING, FAILED)

MULTI_NODE_WORKLOADS = frozenset({"pretraining", "finetuning"})
DEFAULT_SHARED_PREFIXES = (
    "/shared",
    "/mnt/shared",
    "/lustre",
    "/gpfs",
    "/nfs",
    "/mnt/nfs",
    "/cpfs",
    "/weka",
    "/beegfs",
)
SEQUENTIAL_RW = frozenset({"read", "write", "rw", "readwrite"})
RANDOM_RW = frozenset({"randread", "randwrite", "randrw", "randtrim", "trimwrite"})

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


# -- matching evidence to runs ---------------------------------------------------------------


def _argv(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _nccl_collective(e: PocEvidence) -> str:
    collective = e.metrics.get("collective")
    if isinstance(collective, str) and collective:
        return collective
    tool = (_argv(e.command) or [""])[0].rsplit("/", 1)[-1]
    return tool[: -len("_perf")] if tool.endswith("_perf") else ""


def nodes_spanned(e: PocEvidence) -> int:
    """How many nodes an nccl-tests run spanned: the distinct hosts of its device list (one,
    the uploading node, when none is listed)."""
    hosts = e.metrics.get("hosts")
    if isinstance(hosts, list | tuple) and hosts:
        return len({str(h) for h in hosts})
    return 1


def _dcgm_level(e: PocEvidence) -> int | None:
    level = e.metrics.get("level")
    if isinstance(level, int) and not isinstance(level, bool):
        return level
    match = re.search(r"(?:-r|--run)[ =]+(\d)\b", e.command)
    return int(match.group(1)) if match else None


# Why a run's evidence fails it, as a stable code with its parts (stored with the coverage;
# pages word it in their reader's language from these) and the English wording of each.
NOTE_DCGM_FAIL = "dcgm_fail"
NOTE_DCGM_SKIP = "dcgm_skip"
NOTE_DCGM_INCOMPLETE = "dcgm_incomplete"
NOTE_NCCL_WRONG = "nccl_wrong"
NOTE_FIO_ERRORS = "fio_errors"
# An nccl-tests run whose device names state another GPU than the offering's (another model,
# memory size or form factor): it proves nothing about this candidate.
NOTE_FOREIGN_GPU = "foreign_gpu"
NOTES_EN = {
    NOTE_DCGM_FAIL: "dcgmi diag reported fail",
    NOTE_DCGM_SKIP: "dcgmi diag reported skip",
    NOTE_DCGM_INCOMPLETE: "dcgmi diag output ends before its result",
    NOTE_NCCL_WRONG: "nccl-tests reported {count} wrong results",
    NOTE_FIO_ERRORS: "fio jobs ended in an error ({jobs})",
    NOTE_FOREIGN_GPU: "ran on {gpu}, not the claimed {claimed}",
}
# A diag whose every hardware test was skipped checked nothing, and one whose output is cut
# before its result says nothing of the tests past the cut: either fails its run but proves
# nothing either way (see PocShortfall.reason "unproven").
DCGM_SKIPPED = NOTES_EN[NOTE_DCGM_SKIP]

SEQUENTIAL_MIN_BS = 128 * 1024  # a sequential run measures throughput: large blocks
RANDOM_MAX_BS = 64 * 1024  # a random run measures IOPS: small blocks


def _fio_modes(e: PocEvidence) -> set[str]:
    """ "sequential" and/or "random" from the jobs' rw and block size (bs_bytes; a job whose
    block size was not printed counts by its rw alone)."""
    modes: set[str] = set()
    jobs = e.metrics.get("jobs")
    rows = (
        [(j.get("rw"), j.get("bs_bytes")) for j in jobs if isinstance(j, Mapping)]
        if isinstance(jobs, list)
        else []
    )
    if not rows and isinstance(e.metrics.get("rw"), list):
        rows = [(rw, None) for rw in e.metrics["rw"]]
    for rw, bs in rows:
        if not isinstance(rw, str):
            continue
        size = bs if isinstance(bs, int) and not isinstance(bs, bool) else None
        if rw in SEQUENTIAL_RW and (size is None or size >= SEQUENTIAL_MIN_BS):
            modes.add("sequential")
        elif rw in RANDOM_RW and (size is None or size <= RANDOM_MAX_BS):
            modes.add("random")
    return modes


# The collector names its fio jobs for their target ("local-nvme-seq-read",
# "shared-fs-rand-write"...): the label says which plan run a job belongs to wherever the
# directory lies. fio reports the names back (JSON "jobname", text "name: (groupid=...)").
FIO_JOB_PREFIXES = {"local": "local-nvme-", "shared": "shared-fs-"}


def fio_job_target(e: PocEvidence) -> str:
    """ "local" or "shared" when every job of the file carries the collector's label for that
    target, else "" (unlabelled or mixed jobs)."""
    jobs = e.metrics.get("jobs")
    names = []
    if isinstance(jobs, list):
        names = [j.get("name") for j in jobs if isinstance(j, Mapping)]
    if not names and isinstance(e.metrics.get("jobnames"), list):
        names = list(e.metrics["jobnames"])
    if not names or not all(isinstance(n, str) for n in names):
        return ""
    for target, prefix in FIO_JOB_PREFIXES.items():
        if all(n.startswith(prefix) for n in names):
            return target
    return ""


def fio_target(e: PocEvidence, shared_prefixes: Sequence[str] = DEFAULT_SHARED_PREFIXES) -> str:
    """ "shared" or "local": the collector's job label when every job carries one; else
    "shared" when the fio command's file or directory lies under a shared-FS prefix (or the
    file is named for it), else "local"."""
    labelled = fio_job_target(e)
    if labelled:
        return labelled
    prefixes = [p.rstrip("/") for p in shared_prefixes if p and p.strip("/")]
    for arg in _argv(e.command):
        value = arg.split("=", 1)[1] if arg.startswith("--") and "=" in arg else arg
        for path in value.split(":"):
            if any(path == p or path.startswith(p + "/") for p in prefixes):
                return "shared"
    name = e.source.lower()
    if "shared" in name or "sharedfs" in name:
        return "shared"
    return "local"


def _perftest_peers(e: PocEvidence) -> set[str]:
    return {a for a in _argv(e.command)[1:] if not a.startswith("-")}


def _is_ib_write_bw(e: PocEvidence) -> bool:
    if e.kind != "perftest":
        return False
    test = e.metrics.get("test")
    tool = (_argv(e.command) or [""])[0].rsplit("/", 1)[-1]
    return test == "ib_write_bw" or tool == "ib_write_bw"


def _on_node(run: RequiredRun, e: PocEvidence) -> bool:
    return not run.node or e.node_name == run.node


def _matches(
    run: RequiredRun, e: PocEvidence, shared_prefixes: Sequence[str], node_count: int
) -> bool:
    kind = run.kind
    if kind == NCCL_ONE_NODE:
        return (
            e.kind == "nccl_tests"
            and _nccl_collective(e) == "all_reduce"
            and nodes_spanned(e) == 1
            and _on_node(run, e)
        )
    if kind in (NCCL_MULTI_ALL_REDUCE, NCCL_MULTI_ALLTOALL):
        wanted = "all_reduce" if kind == NCCL_MULTI_ALL_REDUCE else "alltoall"
        return (
            e.kind == "nccl_tests"
            and _nccl_collective(e) == wanted
            and nodes_spanned(e) >= min(run.min_nodes, node_count)
            and nodes_spanned(e) >= 2
        )
    if kind == IB_WRITE_BW:
        if not _is_ib_write_bw(e):
            return False
        if not run.peers:
            return True
        a, b = run.peers
        peers = _perftest_peers(e)
        return (e.node_name == a and b in peers) or (e.node_name == b and a in peers)
    if kind == DCGM_DIAG:
        level = _dcgm_level(e)
        return e.kind == "dcgm_diag" and level is not None and level >= 3 and _on_node(run, e)
    if kind in (FIO_LOCAL_SEQ, FIO_LOCAL_RAND, FIO_SHARED_SEQ, FIO_SHARED_RAND):
        if e.kind != "fio" or not _on_node(run, e):
            return False
        target = "shared" if kind in (FIO_SHARED_SEQ, FIO_SHARED_RAND) else "local"
        mode = "sequential" if kind in (FIO_LOCAL_SEQ, FIO_SHARED_SEQ) else "random"
        return fio_target(e, shared_prefixes) == target and mode in _fio_modes(e)
    if kind == NVIDIA_SMI_Q:
        if e.kind == "nvidia_smi_xml":
            return _on_node(run, e)
        argv = _argv(e.command)
        asked = "-q" in argv or "--query" in argv or not e.command
        return e.kind == "nvidia_smi_query" and asked and _on_node(run, e)
    if kind == INVENTORY:
        return e.kind == "nvidia_smi_list" and _on_node(run, e)
    return False


NoteArgs = tuple[tuple[str, str], ...]


def note_en(code: str, args: Mapping[str, str] | NoteArgs = ()) -> str:
    """A failure note's English words from its code and parts ("" for no code)."""
    return NOTES_EN[code].format(**dict(args)) if code else ""


# dcgmi diag's overall verdict (scoring.evidence.dcgm) when it is no pass
_DCGM_NOT_PASSED = {
    "fail": NOTE_DCGM_FAIL,
    "skip": NOTE_DCGM_SKIP,
    "incomplete": NOTE_DCGM_INCOMPLETE,
}


@dataclass(frozen=True)
class ClaimedGpu:
    """The offering's GPU as its runs are compared with (``claimed_gpu_facts``), and its name."""

    facts: GpuNameFacts
    name: str


def foreign_gpu(e: PocEvidence, claimed: ClaimedGpu | None) -> str | None:
    """The device name of an nccl-tests run stating another GPU than ``claimed`` (only what
    both state is compared), or None."""
    if claimed is None or e.kind != "nccl_tests":
        return None
    names = e.metrics.get("gpu_names")
    for name in dict.fromkeys(names if isinstance(names, list) else ()):
        if isinstance(name, str) and gpu_name_differences(claimed.facts, gpu_name_facts(name)):
            return name
    return None


def _failure(run: RequiredRun, e: PocEvidence) -> tuple[str, NoteArgs] | None:
    """Why evidence that matches a run still fails it, as (note code, parts); None when it
    passes: the tool itself reported the failure (a diag that failed or checked nothing,
    collectives with wrong results, fio jobs that ended in an error)."""
    if run.kind == DCGM_DIAG and e.metrics.get("overall") in _DCGM_NOT_PASSED:
        return _DCGM_NOT_PASSED[e.metrics["overall"]], ()
    if e.kind == "nccl_tests":
        # Both figures cover every table of the file; an old table whose "error" column holds a
        # deviation says FAILED with its count in "Out of bounds values" only.
        wrong = _number(e.metrics.get("wrong_total")) or 0.0
        if wrong <= 0 and e.metrics.get("out_of_bounds_ok") is False:
            wrong = _number(e.metrics.get("out_of_bounds")) or 0.0
        if wrong > 0:
            return NOTE_NCCL_WRONG, (("count", f"{wrong:g}"),)
    if e.kind == "fio":
        errors = e.metrics.get("errors")
        if isinstance(errors, list) and errors:
            names = (
                ", ".join(str(x.get("job")) for x in errors[:3] if isinstance(x, Mapping)) or "?"
            )
            return NOTE_FIO_ERRORS, (("jobs", names),)
    return None


def coverage(
    runs: Sequence[RequiredRun],
    evidence: Iterable[PocEvidence],
    *,
    deadline: datetime | None,
    now: datetime,
    shared_prefixes: Sequence[str] = DEFAULT_SHARED_PREFIXES,
    node_count: int = 2,
    sampled: Sequence[str] = (),
    claimed_gpu: ClaimedGpu | None = None,
) -> Coverage:
    """Which required runs the evidence satisfies, and by which upload and node.

    A run with matching evidence is ``covered`` (``failed`` when every match reported a
    failure); one without is ``pending`` until the deadline and ``failed`` after it. A run
    made on another GPU than ``claimed_gpu`` is no evidence of this candidate: it is set aside
    (the run stays pending or missing, its note naming the GPU it ran on) and never counts in
    the fleet figures. With a sample, the fleet figures come from the sampled nodes only (the
    vendor cannot add a golden node to lift them).
    """
    evidence = list(evidence)
    passed_deadline = deadline is not None and now >= deadline
    result = []
    for run in runs:
        found = [e for e in evidence if _matches(run, e, shared_prefixes, node_count)]
        matches = tuple(e for e in found if foreign_gpu(e, claimed_gpu) is None)
        aside: tuple[str, NoteArgs] = ("", ())
        if len(matches) < len(found) and claimed_gpu is not None:
            other = next(g for e in found if (g := foreign_gpu(e, claimed_gpu)) is not None)
            aside = (NOTE_FOREIGN_GPU, (("gpu", other), ("claimed", claimed_gpu.name)))
        good = tuple(e for e in matches if _failure(run, e) is None)
        if good:
            result.append(RunCoverage(run, COVERED, good))
        elif matches:
            code, args = _failure(run, matches[0]) or ("", ())
            result.append(RunCoverage(run, FAILED, matches, note_en(code, args), code, args))
        elif passed_deadline:
            code, args = aside  # the note code still says what was set aside
            result.append(RunCoverage(run, FAILED, (), "missing at the deadline", code, args))
        else:
            code, args = aside
            result.append(RunCoverage(run, PENDING, (), note_en(code, args), code, args))
    own = [e for e in evidence if foreign_gpu(e, claimed_gpu) is None]
    fleet = fleet_figures(own, nodes=sampled)
    return Coverage(tuple(result), passed_deadline, fleet)


# -- fleet summaries -------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    if len(ordered) == 1:
        return float(ordered[0])
    pos = (len(ordered) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (pos - low))


def fleet_summary(per_node: Mapping[str, float]) -> dict[str, Any]:
    """A figure across nodes: count, p5 and median (never the best node; the worst is shown
    to make a golden node visible)."""
    values = [float(v) for v in per_node.values()]
    if not values:
        return {"nodes": 0, "p5": None, "median": None, "worst": None}
    return {
        "nodes": len(values),
        "p5": percentile(values, 5),
        "median": percentile(values, 50),
        "worst": min(values),
    }


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def fleet_figures(
    evidence: Iterable[PocEvidence], nodes: Sequence[str] = ()
) -> dict[str, dict[str, Any]]:
    """Per-node figures summarised across nodes: one-node all_reduce peak bus bandwidth
    (GB/s), ib_write_bw average one way (Gbit/s), local fio read (MB/s). A node with several files
    keeps its best file (repeats of one run), the fleet keeps p5 and median. With ``nodes``
    (the sample) only those nodes count."""
    only = set(nodes)
    per: dict[str, dict[str, float]] = {"nccl_busbw_gbyte_s": {}, "ib_write_bw_gbit_s": {}}
    per["fio_read_bw_mbyte_s"] = {}
    for e in evidence:
        if only and e.node_name not in only:
            continue
        if e.kind == "nccl_tests" and _nccl_collective(e) == "all_reduce":
            if nodes_spanned(e) == 1:
                key, value = "nccl_busbw_gbyte_s", _number(e.metrics.get("peak_busbw_gbyte_s"))
            else:
                continue
        elif _is_ib_write_bw(e):
            # One direction, as a port's rate: a bidirectional (-b) run reports both summed.
            key, value = "ib_write_bw_gbit_s", bw_avg_each_way_gbit_s(e.metrics)
        elif e.kind == "fio" and fio_target(e) == "local":
            key, value = "fio_read_bw_mbyte_s", _number(e.metrics.get("read_bw_mbyte_s"))
        else:
            continue
        if value is None:
            continue
        node = e.node_name
        per[key][node] = max(value, per[key].get(node, value))
    return {key: fleet_summary(values) for key, values in per.items() if values}


def coverage_at(stored: Mapping[str, Any], *, deadline: datetime | None, now: datetime) -> dict:
    """A coverage stored earlier (:meth:`Coverage.as_dict`) as it stands at ``now``: once the
    deadline has passed, every run still pending is failed. Lets pages show coverage without
    re-reading the uploads."""
    passed = deadline is not None and now >= deadline
    runs = []
    for run in stored.get("runs") or ():
        run = dict(run)
        if passed and run.get("status") == PENDING:
            run["status"] = FAILED
            run["note"] = "missing at the deadline"
        runs.append(run)
    counts = {s: sum(1 for r in runs if r.get("status") == s) for s in STATUSES}
    return {
        **dict(stored),
        "runs": runs,
        "required": len(runs),
        "covered": counts[COVERED],
        "pending": counts[PENDING],
        "failed": counts[FAILED],
        "deadline_passed": passed,
        "complete": bool(runs) and counts[COVERED] == len(runs),
    }


def suggested_command(run: RequiredRun, *, shared_path: str = "/shared", gpus: int = 8) -> str:
    """A command line that produces evidence satisfying ``run`` (shown on the plan page; run it
    through the collector or keep the command with the output so that the portal can read the
    target path and the peer)."""
    gpus = max(gpus, 1)
    shared = (shared_path or "/shared").rstrip("/") or "/shared"
    fio = (
        "fio --output-format=json --size=4G --runtime=60 --time_based --ioengine=libaio --direct=1"
    )
    kind = run.kind
    if kind == NCCL_ONE_NODE:
        return f"all_reduce_perf -b 8 -e 8G -f 2 -g {gpus}"
    if kind in (NCCL_MULTI_ALL_REDUCE, NCCL_MULTI_ALLTOALL):
        binary = "all_reduce_perf" if kind == NCCL_MULTI_ALL_REDUCE else "alltoall_perf"
        ranks = run.min_nodes * gpus
        return f"mpirun -np {ranks} -N {gpus} --hostfile hosts {binary} -b 8 -e 8G -f 2 -g 1"
    if kind == IB_WRITE_BW:
        server = run.peers[1] if run.peers else "<server>"
        return f"ib_write_bw -d mlx5_0 --report_gbits -a {server}"
    if kind == DCGM_DIAG:
        return "dcgmi diag -r 3"
    if kind in (FIO_LOCAL_SEQ, FIO_SHARED_SEQ, FIO_LOCAL_RAND, FIO_SHARED_RAND):
        target = "shared" if kind in (FIO_SHARED_SEQ, FIO_SHARED_RAND) else "local"
        where = shared if target == "shared" else "/local_nvme"
        prefix = FIO_JOB_PREFIXES[target]  # the collector's label: matched wherever the path
        if kind in (FIO_LOCAL_SEQ, FIO_SHARED_SEQ):
            job = f"--name={prefix}seq-read --rw=read --bs=1M --iodepth=16"
        else:
            job = f"--name={prefix}rand-read --rw=randread --bs=4k --iodepth=64"
        return f"{fio} --filename={where}/gpu-poc-fio.tmp {job}"
    if kind == NVIDIA_SMI_Q:
        return "nvidia-smi -q"
    if kind == INVENTORY:
        return "nvidia-smi -L"
    return ""


# -- what failed or missing runs do to the scores and the must-haves --------------------------
#
# A required run that failed (its tool reported the failure) contradicts the claim it would have
# verified; one still missing at the deadline leaves that claim unverifiable, which the rubric
# scores below a plain claim (never neutral). Before the deadline a missing run is pending and
# changes nothing: the POC is still running.

# The checklist item each run's evidence speaks to.
RUN_ITEMS = {
    NCCL_ONE_NODE: "nvlink_topology",
    NCCL_MULTI_ALL_REDUCE: "fabric",
    NCCL_MULTI_ALLTOALL: "fabric",
    IB_WRITE_BW: "fabric",
    DCGM_DIAG: "gpu_match",
    FIO_LOCAL_SEQ: "local_nvme",
    FIO_LOCAL_RAND: "local_nvme",
    FIO_SHARED_SEQ: "distributed_storage",
    FIO_SHARED_RAND: "distributed_storage",
    NVIDIA_SMI_Q: "gpu_match",
    INVENTORY: "gpu_match",
}
RUN_LABELS_ZH = {
    NCCL_ONE_NODE: "单节点 all_reduce（nccl-tests）",
    NCCL_MULTI_ALL_REDUCE: "多节点 all_reduce（nccl-tests）",
    NCCL_MULTI_ALLTOALL: "多节点 alltoall（nccl-tests）",
    IB_WRITE_BW: "两节点间 ib_write_bw",
    DCGM_DIAG: "dcgmi diag -r 3",
    FIO_LOCAL_SEQ: "fio 顺序读写，本地 NVMe",
    FIO_LOCAL_RAND: "fio 随机读写，本地 NVMe",
    FIO_SHARED_SEQ: "fio 顺序读写，共享文件系统",
    FIO_SHARED_RAND: "fio 随机读写，共享文件系统",
    NVIDIA_SMI_Q: "nvidia-smi -q",
    INVENTORY: "清单（nvidia-smi -L）",
}
MISSING = "missing"
RUN_FAILED = "failed"
UNPROVEN = "unproven"  # it ran, but checked nothing (a diag with every hardware test skipped)
REASONS = (MISSING, RUN_FAILED, UNPROVEN)
ITEM_CONTRADICTED = "contradicted"
ITEM_UNVERIFIABLE = "unverifiable"
# Runs a multi-node plan makes mandatory: without them nothing shows the fabric carries the
# workload across nodes. Only multi-node plans list them.
FABRIC_PROOF_RUNS = frozenset({NCCL_MULTI_ALL_REDUCE, NCCL_MULTI_ALLTOALL})


class PocInputError(ValueError):
    """A stored coverage or shortfall that cannot be read as given."""


@dataclass(frozen=True)
class PocShortfall:
    """One required run that failed (``reason`` "failed": its evidence reported a failure),
    ran without checking anything ("unproven") or was still missing at the deadline
    ("missing"). Only "failed" contradicts; the other two leave the claim unverifiable.

    The structure pages word in their reader's language (:meth:`as_dict`): the run's kind and
    key (node or node pair), the reason, the failure note as a code with its parts
    (``note_code``, ``note_args``; ``note`` holds its English words) and the evidence that
    failed (node, file, upload; ``evidence_ref`` is the same as one English line)."""

    run_key: str
    kind: str
    reason: str
    note: str = ""
    evidence_ref: str = ""
    note_code: str = ""
    note_args: tuple[tuple[str, str], ...] = ()
    evidence_node: str = ""
    evidence_file: str = ""
    evidence_upload: str = ""

    def __post_init__(self) -> None:
        if self.kind not in RUN_LABELS:
            raise PocInputError(f"unknown POC run kind {self.kind!r}")
        if self.reason not in REASONS:
            raise PocInputError(f"a shortfall is one of {', '.join(REASONS)}, not {self.reason!r}")
        if self.note_code and self.note_code not in NOTES_EN:
            raise PocInputError(f"unknown POC note code {self.note_code!r}")
        args = tuple((str(k), str(v)) for k, v in dict(self.note_args).items())
        object.__setattr__(self, "note_args", args)
        if self.note and not self.note_code:
            # A note given as words only (a coverage stored before the codes): its code.
            parts = note_parts(self.note)
            if parts is not None:
                object.__setattr__(self, "note_code", parts[0])
                object.__setattr__(self, "note_args", tuple(parts[1].items()))
        elif self.note_code and not self.note:
            try:
                object.__setattr__(self, "note", note_en(self.note_code, args))
            except KeyError as missing:
                raise PocInputError(f"POC note {self.note_code!r} lacks {missing}") from None

    @property
    def item_key(self) -> str:
        """The checklist item the shortfall speaks to, "" for none: a failed health diag
        says nothing against the claimed GPU model, count or memory (the must-have
        ``poc_health_failed`` and the measured failed-test count carry it)."""
        if self.kind == DCGM_DIAG and self.reason == RUN_FAILED:
            return ""
        return RUN_ITEMS[self.kind]

    @property
    def item_status(self) -> str:
        """What the shortfall makes of the claim the run would have verified."""
        return ITEM_CONTRADICTED if self.reason == RUN_FAILED else ITEM_UNVERIFIABLE

    @property
    def where(self) -> str:
        """The node ("gpu03") or pair ("gpu03~gpu07") the run was required on, or ""."""
        return self.run_key.split("@", 1)[1] if "@" in self.run_key else ""

    def as_dict(self) -> dict[str, Any]:
        """The shortfall as stored with answers, scores and knockouts (JSON-safe): what a page
        words in its reader's language (:meth:`from_dict` reads it back)."""
        where = self.where
        peers = where.split("~") if "~" in where else []
        upload: int | str | None = self.evidence_upload or None
        if self.evidence_upload.isdigit():
            upload = int(self.evidence_upload)
        evidence = None
        if self.evidence_node or self.evidence_file or upload is not None:
            evidence = {"node": self.evidence_node, "file": self.evidence_file, "upload_id": upload}
        return {
            "run_key": self.run_key,
            "kind": self.kind,
            "node": "" if peers else where,
            "peers": peers,
            "reason": self.reason,
            "note": self.note,
            "note_code": self.note_code,
            "note_args": dict(self.note_args),
            "evidence": evidence,
            "evidence_ref": self.evidence_ref,
        }

    @classmethod
    def from_dict(cls, data: Any) -> PocShortfall:
        """A shortfall from :meth:`as_dict`; PocInputError when it cannot be read."""
        if not isinstance(data, Mapping):
            raise PocInputError(f"a stored shortfall is a mapping, not {type(data).__name__}")
        texts = {}
        for name in ("run_key", "kind", "reason", "note", "note_code", "evidence_ref"):
            value = data.get(name) or ""
            if not isinstance(value, str):
                raise PocInputError(f"a stored shortfall's {name} is text, not {value!r}")
            texts[name] = value
        args = data.get("note_args") or {}
        evidence = data.get("evidence") or {}
        if not isinstance(args, Mapping) or not isinstance(evidence, Mapping):
            raise PocInputError("a stored shortfall's note_args and evidence are mappings")
        upload = evidence.get("upload_id")
        return cls(
            note_args=tuple(args.items()),
            evidence_node=str(evidence.get("node") or ""),
            evidence_file=str(evidence.get("file") or ""),
            evidence_upload="" if upload is None else str(upload),
            **texts,
        )

    @property
    def explanation_en(self) -> str:
        where = self.where.replace("~", " and ")
        run = f"POC run {RUN_LABELS[self.kind]}" + (f" on {where}" if where else "")
        if self.reason == MISSING:
            return f"{run}: missing at the deadline"
        if self.reason == UNPROVEN:
            return f"{run}: checked nothing ({self.note or 'every test was skipped'})"
        return f"{run}: failed ({self.note or 'the tool reported a failure'})"

    @property
    def explanation_zh(self) -> str:
        where = self.where.replace("~", " 与 ")
        run = f"POC 测试 {RUN_LABELS_ZH[self.kind]}" + (f"（{where}）" if where else "")
        note = self.note
        if self.note_code:
            note = _NOTES_ZH[self.note_code].format(**dict(self.note_args))
        if self.reason == MISSING:
            return f"{run}：截止时仍未提交"
        if self.reason == UNPROVEN:
            return f"{run}：未实际检测任何项目（{note or '所有测试均被跳过'}）"
        return f"{run}：失败（{note or '工具报告失败'}）"


_NOTES_ZH = {
    NOTE_DCGM_FAIL: "dcgmi diag 报告失败",
    NOTE_DCGM_SKIP: "dcgmi diag 报告全部跳过",
    NOTE_DCGM_INCOMPLETE: "dcgmi diag 输出在结果之前中断",
    NOTE_NCCL_WRONG: "nccl-tests 报告 {count} 个错误结果",
    NOTE_FIO_ERRORS: "fio 作业以错误结束（{jobs}）",
    NOTE_FOREIGN_GPU: "运行于 {gpu}，并非声明的 {claimed}",
}
_DEFAULT_NOTES = {
    UNPROVEN: "every test was skipped",
    RUN_FAILED: "the tool reported a failure",
}


# -- reading rows stored before the structure --------------------------------------------------
#
# For old rows only: answers and scores stored before the shortfalls were kept as structure
# hold the English words alone (the explanation, the failure note). These read them back into
# their parts; everything written since carries the parts and never goes through here.

_NOTE_PATTERNS = (
    (NOTE_DCGM_FAIL, re.compile(r"^dcgmi diag reported fail$")),
    (NOTE_DCGM_SKIP, re.compile(r"^dcgmi diag reported skip$")),
    (NOTE_DCGM_INCOMPLETE, re.compile(r"^dcgmi diag output ends before its result$")),
    (NOTE_NCCL_WRONG, re.compile(r"^nccl-tests reported (?P<count>[\d.e+]+) wrong results$")),
    (NOTE_FIO_ERRORS, re.compile(r"^fio jobs ended in an error \((?P<jobs>.*)\)$")),
    (NOTE_FOREIGN_GPU, re.compile(r"^ran on (?P<gpu>.+), not the claimed (?P<claimed>.+)$")),
)


def note_parts(note: str) -> tuple[str, dict[str, str]] | None:
    """An English failure note (old rows only) as (code, parts), e.g. ("nccl_wrong",
    {"count": "3"}); None for a note this module did not write."""
    for code, pattern in _NOTE_PATTERNS:
        match = pattern.match(note or "")
        if match:
            return code, match.groupdict()
    return None


_RUN_KINDS_BY_LABEL = {label: kind for kind, label in RUN_LABELS.items()}
_EXPLANATION = re.compile(
    r"^POC run (?P<label>.+?)(?: on (?P<where>[^:]+?))?: "
    r"(?:(?P<missing>missing at the deadline)|(?P<state>checked nothing|failed) \((?P<note>.*)\))$"
)


def parse_explanations(text: str) -> tuple[PocShortfall, ...] | None:
    """For old rows only: the shortfalls a stored English explanation
    (:attr:`PocShortfall.explanation_en`, several joined by "; ") names, as structured parts
    (kind, node or pair, reason, note) for a page to word in its reader's language; None when
    ``text`` is not such an explanation. The evidence reference is not part of the
    explanation (""). Rows written since carry :meth:`PocShortfall.as_dict` instead."""
    found = []
    for part in re.split(r"; (?=POC run )", text or ""):
        match = _EXPLANATION.match(part)
        if match is None:
            return None
        kind = _RUN_KINDS_BY_LABEL.get(match["label"])
        if kind is None:
            return None
        where = (match["where"] or "").replace(" and ", "~")
        if match["missing"]:
            reason, note = MISSING, ""
        else:
            reason = UNPROVEN if match["state"] == "checked nothing" else RUN_FAILED
            note = match["note"]
            if note == _DEFAULT_NOTES[reason]:
                note = ""
        found.append(
            PocShortfall(
                run_key=f"{kind}@{where}" if where else kind, kind=kind, reason=reason, note=note
            )
        )
    return tuple(found) or None


def shortfalls(stored: Mapping[str, Any] | Coverage | None) -> tuple[PocShortfall, ...]:
    """The failed runs of a coverage (:class:`Coverage` or its stored :meth:`~Coverage.as_dict`,
    as :func:`coverage_at` gives it at a time): failed with evidence = the run failed (or, for
    a diag that skipped every test, proved nothing); failed without = missing at the deadline.
    Pending and covered runs give none."""
    if stored is None:
        return ()
    if isinstance(stored, Coverage):
        stored = stored.as_dict()
    if not isinstance(stored, Mapping):
        raise PocInputError(f"a stored coverage is a mapping, not {type(stored).__name__}")
    found = []
    for run in stored.get("runs") or ():
        if not isinstance(run, Mapping) or run.get("status") != FAILED:
            continue
        kind = run.get("kind")
        if kind not in RUN_LABELS:
            continue  # a run kind from another version of the plan: nothing to say about it
        evidence = [e for e in run.get("evidence") or () if isinstance(e, Mapping)]
        if not evidence:
            found.append(PocShortfall(str(run.get("key") or kind), kind, MISSING))
            continue
        first = evidence[0]
        node, file = str(first.get("node") or "?"), str(first.get("file") or kind)
        upload = "" if first.get("upload_id") is None else str(first["upload_id"])
        ref = f"{node}: {file}" + (f" (upload {upload})" if upload else "")
        args = run.get("note_args")
        shortfall = PocShortfall(
            run_key=str(run.get("key") or kind),
            kind=kind,
            reason=RUN_FAILED,
            note=str(run.get("note") or ""),
            evidence_ref=ref,
            note_code=str(run.get("note_code") or ""),
            note_args=tuple(args.items()) if isinstance(args, Mapping) else (),
            evidence_node=node,
            evidence_file=file,
            evidence_upload=upload,
        )
        if kind == DCGM_DIAG and shortfall.note_code in (NOTE_DCGM_SKIP, NOTE_DCGM_INCOMPLETE):
            shortfall = replace(shortfall, reason=UNPROVEN)
        found.append(shortfall)
    return tuple(found)


def item_findings(found: Iterable[PocShortfall]) -> dict[str, dict[str, Any]]:
    """Per checklist item the shortfalls touch: the status they give it ("contradicted" when a
    run failed, else "unverifiable"), the bilingual explanation naming every run, the
    reference of the first failed run's evidence, the shortfalls themselves as structure
    (:meth:`PocShortfall.as_dict`) and the evidence reference scoring records for the item
    ahead of any earlier one (``reference``)."""
    by_item: dict[str, list[PocShortfall]] = {}
    for s in found:
        if s.item_key:
            by_item.setdefault(s.item_key, []).append(s)
    result = {}
    for item, items in by_item.items():
        failed = [s for s in items if s.reason == RUN_FAILED]
        explanation = "; ".join(s.explanation_en for s in items)
        ref = next((s.evidence_ref for s in failed if s.evidence_ref), "")
        result[item] = {
            "status": ITEM_CONTRADICTED if failed else ITEM_UNVERIFIABLE,
            "explanation_en": explanation,
            "explanation_zh": "；".join(s.explanation_zh for s in items),
            "evidence_ref": ref,
            "shortfalls": [s.as_dict() for s in items],
            "reference": explanation + (f" [{ref}]" if ref else ""),
        }
    return result


REF_SEPARATOR = " | "


def explained_contribution(
    contribution: Mapping[str, Any], findings: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """A contribution's stored form (``Contribution.as_dict()``) with the POC's shortfalls as
    structure when its evidence reference is the one :func:`candidate_with_poc` recorded for
    an item (``findings`` from :func:`item_findings`): ``poc`` lists them, and
    ``evidence_ref_other`` keeps the reference the item had before ("" for none), so a page
    words the POC part in its reader's language and shows the rest as it is."""
    shown = dict(contribution)
    ref = shown.get("evidence_ref") or ""
    for finding in findings.values():
        head = finding["reference"]
        if ref == head or ref.startswith(head + REF_SEPARATOR):
            shown["poc"] = list(finding["shortfalls"])
            shown["evidence_ref_other"] = ref[len(head) + len(REF_SEPARATOR) :]
            break
    return shown


# Checklist statuses from worst to best as the rubrics score them (rubric v2's
# stability.gpu.match gives unverifiable 2 points, unanswered 0; the claim factors put them
# level): a POC finding can only move a status down this order.
_STATUS_ORDER = (ITEM_CONTRADICTED, "unanswered", ITEM_UNVERIFIABLE, "claimed", "verified")


def status_with_poc(current: str, finding: Mapping[str, str] | None) -> str:
    """A checklist status after the POC's findings: a failed run contradicts the claim, a
    missing one leaves it at most unverifiable (a contradiction from elsewhere stays). A
    shortfall never raises a status: an item nobody answered stays unanswered when its run is
    missing (issue #10 review 3: "unverifiable" scores above "unanswered", so a missing run
    had raised the GPU-match points of a candidate that never answered)."""
    if finding is None or current not in _STATUS_ORDER:
        return current if finding is None or current == ITEM_CONTRADICTED else finding["status"]
    return min(current, finding["status"], key=_STATUS_ORDER.index)


def candidate_with_poc(candidate: CandidateInput, found: Sequence[PocShortfall]) -> CandidateInput:
    """``candidate`` (a scoring CandidateInput) with the POC's shortfalls applied: the statuses
    of the items they touch (:func:`status_with_poc`), the explanation naming the runs as those
    items' evidence reference (shown on every rule that reads the item) and the shortfalls
    themselves, for the must-haves (``knockouts``)."""
    found = tuple(found)
    if not found:
        return candidate
    for s in found:
        if not isinstance(s, PocShortfall):
            raise PocInputError(f"shortfalls are PocShortfall, not {type(s).__name__}")
    findings = item_findings(found)
    answers = dict(candidate.answers)
    refs = dict(candidate.measured.evidence_refs)
    for item, finding in findings.items():
        answers[item] = status_with_poc(answers.get(item, "unanswered"), finding)
        ref = finding["reference"]
        refs[item] = ref + (f"{REF_SEPARATOR}{refs[item]}" if refs.get(item) else "")
    measured = replace(candidate.measured, evidence_refs=refs)
    return replace(candidate, answers=answers, measured=measured, poc_shortfalls=found)
