"""Reads that decide visibility: every query for evaluation data goes through the user here."""

from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from .models import (
    Answer,
    Candidate,
    Evaluation,
    Membership,
    Score,
    VerificationStatus,
)


def evaluation_list(*, user) -> QuerySet[Evaluation]:
    """Evaluations the user is a member of, with the user's role and the candidate count."""
    if not user.is_authenticated:
        return Evaluation.objects.none()
    return (
        Evaluation.objects.filter(memberships__user=user)
        .annotate(candidate_count=Count("candidates", distinct=True))
        .prefetch_related(
            Prefetch(
                "memberships",
                queryset=Membership.objects.filter(user=user),
                to_attr="my_memberships",
            )
        )
        .order_by("-created_at", "name")
    )


def membership_get(*, user, evaluation: Evaluation) -> Membership | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(user=user, evaluation=evaluation).first()


def evaluation_get(*, user, pk: int) -> tuple[Evaluation, Membership]:
    """The evaluation and the user's membership; 404 for non-members (no existence leak)."""
    if not user.is_authenticated:
        raise Http404
    membership = (
        Membership.objects.select_related("evaluation").filter(user=user, evaluation_id=pk).first()
    )
    if membership is None:
        raise Http404
    return membership.evaluation, membership


def candidate_list(*, user, evaluation: Evaluation) -> QuerySet[Candidate]:
    """The evaluation's candidates with offering, vendor and scores in a fixed number of queries."""
    if membership_get(user=user, evaluation=evaluation) is None:
        return Candidate.objects.none()
    return (
        Candidate.objects.filter(evaluation=evaluation)
        .select_related("offering", "offering__vendor", "offering_version")
        .prefetch_related(
            "offering__prices",
            Prefetch("scores", queryset=Score.objects.order_by("dimension")),
        )
        .annotate(
            answered_count=Count(
                "answers",
                filter=~Q(answers__status=VerificationStatus.UNANSWERED),
                distinct=True,
            ),
            upload_count=Count("uploads", distinct=True),
        )
    )


def candidates_for_scoring(*, evaluation: Evaluation) -> list[Candidate]:
    """Everything scoring reads for an evaluation's candidates, in a fixed number of queries.

    Each candidate comes with its pinned offering version's offering and vendor (as unsaved
    rows: never save them), its evaluation (the one given),
    ``answer_statuses``: {checklist item key: status} in checklist order, and
    ``list_prices``: its pinned version's (billing model, price per GPU) pairs in
    billing-model order. Answers are read as columns rather than as model rows (with their
    items): at 50 candidates those rows cost more than the scoring itself.
    """
    candidates = list(evaluation.candidates.select_related("offering_version").order_by("pk"))
    # Each candidate is scored on the version of its offering it pinned, never on the live
    # catalogue row: a catalogue edit changes no evaluation until it adopts the new version.
    for candidate in candidates:
        candidate.use_pinned_offering()
    statuses: dict[int, dict[str, str]] = {c.pk: {} for c in candidates}
    for candidate_id, key, status in (
        Answer.objects.filter(candidate__evaluation=evaluation)
        .order_by("candidate_id", "item__number")
        .values_list("candidate_id", "item__key", "status")
    ):
        # A candidate added between the two queries is not in this snapshot: skip its answers.
        if candidate_id in statuses:
            statuses[candidate_id][key] = status
    for candidate in candidates:
        candidate.answer_statuses = statuses[candidate.pk]
    return candidates


def evaluation_ranking(*, evaluation: Evaluation, weights=None):
    """The live ranking of an evaluation (optionally with what-if weights) and its candidates
    (as ``candidates_for_scoring`` gives them, by id).

    Computed from the stored facts on every call, so it can never be stale; the Score rows are
    the persisted record of the same computation.
    """
    from scoring.api import score_candidates

    from .adapters import candidate_input, evaluation_spec

    candidates = {c.pk: c for c in candidates_for_scoring(evaluation=evaluation)}
    ranking = score_candidates(
        [
            candidate_input(c, answers=c.answer_statuses, prices=c.list_prices)
            for c in candidates.values()
        ],
        evaluation_spec(evaluation, weights=weights),
        rubric_version=evaluation.rubric_version,
    )
    return ranking, candidates
