"""Scores: verify claims against measurements and recompute a candidate's stored scores."""

from django.db import transaction
from django.utils import timezone

from scoring.api import score_candidate
from scoring.verification import verify_candidate

from .. import adapters
from ..models import (
    Answer,
    AnswerReview,
    Candidate,
    Evaluation,
    EvaluationStatus,
    EvidenceOrigin,
    EvidenceUpload,
    Score,
    UploadStatus,
    VerificationStatus,
)

EVIDENCE_STATUSES = {VerificationStatus.VERIFIED, VerificationStatus.CONTRADICTED}


def _answer_status(answer: Answer, verdict, review=None) -> tuple[str, str, str]:
    """The answer's status after verification: evidence decides where it can speak, then a
    second member's review of the documents (while the answer still says what was reviewed)."""
    if verdict is not None and verdict.status in EVIDENCE_STATUSES:
        return verdict.status, verdict.explanation_en, verdict.evidence_ref or ""
    if review is not None and review.applies_to(answer):
        return review.verdict, review.note, f"review:{review.pk}"
    # Evidence is silent (or gone): fall back to what the questionnaire says.
    status = VerificationStatus.CLAIMED if answer.claim.strip() else VerificationStatus.UNANSWERED
    note = verdict.explanation_en if verdict is not None else ""
    return status, note, ""


def usable_uploads(candidate: Candidate, now=None) -> list[EvidenceUpload]:
    """The evidence verification and scoring may use: imported, of a checked origin (never
    "unverified origin") and no older than the evaluation allows."""
    uploads = (
        EvidenceUpload.objects.filter(candidate=candidate, status=UploadStatus.DONE)
        .exclude(origin=EvidenceOrigin.UNVERIFIED)
        .only("pk", "status", "node_name", "report", "measured_at", "created_at", "origin")
        .order_by("pk")
    )
    now = now or timezone.now()
    return [u for u in uploads if not u.stale_for(candidate.evaluation, now)]


def _verify(candidate: Candidate) -> None:
    evidence = adapters.node_evidence(usable_uploads(candidate))
    report = verify_candidate(adapters.claims(candidate), evidence)
    measured = adapters.measured_facts(report, evidence)
    candidate.verification = adapters.verification_summary(report, measured, evidence)
    reviews = {r.answer_id: r for r in AnswerReview.objects.filter(answer__candidate=candidate)}
    for answer in candidate.answers.all():
        status, note, ref = _answer_status(
            answer, report.items.get(answer.item.key), reviews.get(answer.pk)
        )
        if (answer.status, answer.verification_note, answer.evidence_ref) != (status, note, ref):
            answer.status, answer.verification_note, answer.evidence_ref = status, note, ref
            # Derived from evidence, not a person's edit: kept out of the audit trail, which
            # records what people changed (the uploads themselves are kept and listed).
            Answer.objects.filter(pk=answer.pk).update(
                status=status, verification_note=note, evidence_ref=ref
            )


def _store_scores(candidate: Candidate) -> None:
    result = score_candidate(
        adapters.candidate_input(candidate, prices=candidate.list_prices),
        adapters.evaluation_spec(candidate.evaluation),
        rubric_version=candidate.evaluation.rubric_version,
    )
    # One upsert for the six rows instead of a SELECT and an UPDATE each.
    Score.objects.bulk_create(
        [
            Score(
                candidate=candidate,
                dimension=dimension.dimension,
                value=dimension.score,
                contributions=[c.as_dict() for c in dimension.contributions],
                rubric_version=candidate.evaluation.rubric_version,
            )
            for dimension in result.dimensions
        ],
        update_conflicts=True,
        unique_fields=["candidate", "dimension"],
        update_fields=["value", "contributions", "rubric_version", "computed_at"],
    )
    candidate.knockouts = [k.as_dict() for k in result.knockouts]
    candidate.scored_at = timezone.now()
    candidate.save(update_fields=["verification", "knockouts", "scored_at"])


def _frozen(candidate: Candidate) -> bool:
    """A decided evaluation keeps the scores it was decided on: nothing rescored until reopened."""
    return candidate.evaluation.status == EvaluationStatus.DECIDED


def _lock(candidate_id: int) -> None:
    """Lock the candidate's row until the transaction ends, so that two imports finishing
    together rescore one after the other. No key update: rows referencing the candidate may
    still be inserted meanwhile."""
    locked = (
        Candidate.objects.select_for_update(no_key=True)
        .filter(pk=candidate_id)
        .values_list("pk", flat=True)
    )
    if not list(locked):
        raise Candidate.DoesNotExist(f"candidate {candidate_id} does not exist")


def _load(candidate_id: int) -> Candidate:
    candidate = (
        Candidate.objects.select_related(*adapters.CANDIDATE_SELECT, "offering_version")
        .prefetch_related(*adapters.CANDIDATE_PREFETCH)
        .get(pk=candidate_id)
    )
    # Scored on the pinned version of its offering, never on the live catalogue row.
    candidate.use_pinned_offering()
    return candidate


def _locked(candidate_id: int) -> Candidate:
    _lock(candidate_id)
    return _load(candidate_id)


PENDING_STATUSES = (UploadStatus.QUEUED, UploadStatus.PROCESSING)


# No savepoint: inside an import's transaction it would cost two statements, and an error
# here fails that whole transaction anyway.
@transaction.atomic(savepoint=False)
def candidate_refresh(*, candidate_id: int, unless_pending: bool = False) -> Candidate | None:
    """Re-verify one candidate against all its evidence and store its six scores.

    With ``unless_pending`` (an import finishing) nothing is done while another upload of the
    candidate is queued or processing: the last import to finish refreshes. The check is a
    statement of its own run after the candidate's lock is granted, so under READ COMMITTED
    it sees everything committed before: of two imports finishing together the second sees
    the first as done and refreshes. Returns None when skipped.
    """
    _lock(candidate_id)
    if (
        unless_pending
        and EvidenceUpload.objects.filter(
            candidate_id=candidate_id, status__in=PENDING_STATUSES
        ).exists()
    ):
        return None
    candidate = _load(candidate_id)
    if _frozen(candidate):
        return candidate
    _verify(candidate)
    _store_scores(candidate)
    return candidate


@transaction.atomic
def candidate_rescore(*, candidate_id: int) -> Candidate:
    """Store fresh scores after answers, prices or requirements changed (evidence unchanged)."""
    candidate = _locked(candidate_id)
    if not _frozen(candidate):
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
