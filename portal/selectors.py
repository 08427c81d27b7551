"""Reads that decide visibility: every query for evaluation data goes through the user here."""

from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from .models import Candidate, Evaluation, Membership, Score, VerificationStatus


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
        .select_related("offering", "offering__vendor")
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


def candidates_for_scoring(*, evaluation: Evaluation) -> QuerySet[Candidate]:
    """Everything scoring reads for an evaluation's candidates, in a fixed number of queries."""
    from .adapters import CANDIDATE_PREFETCH, CANDIDATE_SELECT

    return (
        Candidate.objects.filter(evaluation=evaluation)
        .select_related(*CANDIDATE_SELECT)
        .prefetch_related(*CANDIDATE_PREFETCH)
        .order_by("pk")
    )


def evaluation_ranking(*, evaluation: Evaluation, weights=None):
    """The live ranking of an evaluation (optionally with what-if weights) and its candidates.

    Computed from the stored facts on every call, so it can never be stale; the Score rows are
    the persisted record of the same computation.
    """
    from scoring.api import score_candidates

    from .adapters import candidate_input, evaluation_spec

    candidates = {c.pk: c for c in candidates_for_scoring(evaluation=evaluation)}
    ranking = score_candidates(
        [candidate_input(c) for c in candidates.values()],
        evaluation_spec(evaluation, weights=weights),
    )
    return ranking, candidates
