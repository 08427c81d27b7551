"""What the POC's shortfalls do to a candidate: its item statuses, references, must-haves."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..types import CandidateInput
from .notes import NOTE_DCGM_INCOMPLETE, NOTE_DCGM_SKIP
from .plan import DCGM_DIAG, FAILED, RUN_LABELS, Coverage
from .shortfall import (
    ITEM_CONTRADICTED,
    ITEM_UNVERIFIABLE,
    MISSING,
    RUN_FAILED,
    UNPROVEN,
    PocInputError,
    PocShortfall,
)


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
