"""The coverage of a plan: per required run covered, pending or failed, and by which file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..reference import GpuNameFacts, gpu_name_differences, gpu_name_facts
from .fleet import _number, fleet_figures
from .matching import DEFAULT_SHARED_PREFIXES, _matches
from .notes import (
    NOTE_DCGM_FAIL,
    NOTE_DCGM_INCOMPLETE,
    NOTE_DCGM_SKIP,
    NOTE_FIO_ERRORS,
    NOTE_FOREIGN_GPU,
    NOTE_NCCL_WRONG,
    NoteArgs,
    note_en,
)
from .plan import (
    COVERED,
    DCGM_DIAG,
    FAILED,
    PENDING,
    STATUSES,
    Coverage,
    PocEvidence,
    RequiredRun,
    RunCoverage,
)

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
