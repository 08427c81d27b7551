"""Scores: verify claims against measurements and recompute a candidate's stored scores."""

from django.db import transaction
from django.utils import timezone

from scoring.api import score_candidate
from scoring.verification import verify_candidate

from .. import adapters
from ..models import (
    Answer,
    Candidate,
    Evaluation,
    EvidenceUpload,
    Score,
    UploadStatus,
    VerificationStatus,
)

RUBRIC_VERSION = "1"
EVIDENCE_STATUSES = {VerificationStatus.VERIFIED, VerificationStatus.CONTRADICTED}


def _answer_status(answer: Answer, verdict) -> tuple[str, str, str]:
    """The answer's status after verification: evidence decides where it can speak."""
    if verdict is not None and verdict.status in EVIDENCE_STATUSES:
        return verdict.status, verdict.explanation_en, verdict.evidence_ref or ""
    # Evidence is silent (or gone): fall back to what the questionnaire says.
    status = VerificationStatus.CLAIMED if answer.claim.strip() else VerificationStatus.UNANSWERED
    note = verdict.explanation_en if verdict is not None else ""
    return status, note, ""


def _verify(candidate: Candidate) -> None:
    uploads = EvidenceUpload.objects.filter(candidate=candidate, status=UploadStatus.DONE)
    evidence = adapters.node_evidence(uploads)
    report = verify_candidate(adapters.claims(candidate), evidence)
    measured = adapters.measured_facts(report, evidence)
    candidate.verification = adapters.verification_summary(report, measured, evidence)
    for answer in candidate.answers.all():
        status, note, ref = _answer_status(answer, report.items.get(answer.item.key))
        if (answer.status, answer.verification_note, answer.evidence_ref) != (status, note, ref):
            answer.status, answer.verification_note, answer.evidence_ref = status, note, ref
            answer.save(update_fields=["status", "verification_note", "evidence_ref"])


def _store_scores(candidate: Candidate) -> None:
    result = score_candidate(
        adapters.candidate_input(candidate),
        adapters.evaluation_spec(candidate.evaluation),
        rubric_version=RUBRIC_VERSION,
    )
    for dimension in result.dimensions:
        Score.objects.update_or_create(
            candidate=candidate,
            dimension=dimension.dimension,
            defaults={
                "value": dimension.score,
                "contributions": [c.as_dict() for c in dimension.contributions],
                "rubric_version": RUBRIC_VERSION,
            },
        )
    candidate.knockouts = [k.as_dict() for k in result.knockouts]
    candidate.scored_at = timezone.now()
    candidate.save(update_fields=["verification", "knockouts", "scored_at"])


def _locked(candidate_id: int) -> Candidate:
    # Locked first so that two imports finishing together rescore one after the other.
    # No key update: rows referencing the candidate may still be inserted meanwhile.
    return (
        Candidate.objects.select_for_update(no_key=True, of=("self",))
        .select_related(*adapters.CANDIDATE_SELECT)
        .prefetch_related(*adapters.CANDIDATE_PREFETCH)
        .get(pk=candidate_id)
    )


@transaction.atomic
def candidate_refresh(*, candidate_id: int) -> Candidate:
    """Re-verify one candidate against all its evidence and store its six scores."""
    candidate = _locked(candidate_id)
    _verify(candidate)
    _store_scores(candidate)
    return candidate


@transaction.atomic
def candidate_rescore(*, candidate_id: int) -> Candidate:
    """Store fresh scores after answers, prices or requirements changed (evidence unchanged)."""
    candidate = _locked(candidate_id)
    _store_scores(candidate)
    return candidate


def evaluation_rescore(*, evaluation: Evaluation, verify: bool = False) -> int:
    """Rescore every candidate of an evaluation; returns how many."""
    ids = list(evaluation.candidates.values_list("pk", flat=True))
    for candidate_id in ids:
        if verify:
            candidate_refresh(candidate_id=candidate_id)
        else:
            candidate_rescore(candidate_id=candidate_id)
    return len(ids)
