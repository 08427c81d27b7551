"""Helpers shared by the page views: membership-checked lookups that answer 404 or 403."""

from django.shortcuts import get_object_or_404

from .. import selectors
from ..models import Candidate, Evaluation, Membership
from ..permissions import CAN_VIEW, require_role


def member_evaluation(request, pk: int, allowed=CAN_VIEW) -> tuple[Evaluation, Membership]:
    """The evaluation if the user is a member (else 404) with an allowed role (else 403)."""
    evaluation, membership = selectors.evaluation_get(user=request.user, pk=pk)
    require_role(membership, allowed)
    return evaluation, membership


def member_candidate(
    request, pk: int, candidate_pk: int, allowed=CAN_VIEW
) -> tuple[Evaluation, Membership, Candidate]:
    evaluation, membership = member_evaluation(request, pk, allowed)
    candidate = get_object_or_404(
        Candidate.objects.select_related("offering", "offering__vendor"),
        pk=candidate_pk,
        evaluation=evaluation,
    )
    return evaluation, membership, candidate
