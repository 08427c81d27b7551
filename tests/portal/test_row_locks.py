"""The row locks writers share (portal.services.locks), on real PostgreSQL with two
connections: a candidate's writers never wait for another candidate of the same evaluation or
vendor, while a decision and a candidate's writer are ordered (the decision waits for the
writer, or the writer sees the decision)."""

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import transaction

from portal.models import Candidate, EvaluationStatus, OfferingPrice
from portal.services.errors import EvaluationDecided
from portal.services.evaluations import decision_record
from portal.services.locks import candidate_lock, candidate_lock_open

from .conftest import in_thread, small_offering

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_candidates_of_one_evaluation_and_vendor_lock_side_by_side(
    evaluation, candidate, vendor
):
    """Candidate's default ordering joins its evaluation, offering and vendor: a lock taken
    through it locked those rows too, so every import of an evaluation waited for the
    others. The lock names the candidate's row only."""
    other = Candidate.objects.create(
        evaluation=evaluation, offering=small_offering(vendor), node_count=4
    )
    with transaction.atomic():
        assert candidate_lock(candidate.pk) == evaluation.status
        thread, outcome = in_thread(lambda: candidate_lock(other.pk))
        thread.join(timeout=10)
        assert not thread.is_alive(), "the other candidate waited for this one's lock"
    assert outcome == {"result": evaluation.status}


def test_the_same_candidate_is_locked_by_one_writer_at_a_time(candidate, evaluation):
    with transaction.atomic():
        candidate_lock(candidate.pk)
        thread, outcome = in_thread(lambda: candidate_lock(candidate.pk))
        thread.join(timeout=1.0)
        assert thread.is_alive(), "two writers held the same candidate"
    thread.join(timeout=10)
    assert outcome == {"result": evaluation.status} != {"result": EvaluationStatus.DECIDED}


def test_a_decision_waits_for_a_candidate_s_writer_and_then_refuses_the_next(
    evaluation, candidate, offering, members
):
    call_command("loaddata", "checklist", verbosity=0)
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    with transaction.atomic():
        candidate_lock_open(candidate.pk)
        decider, decided = in_thread(
            lambda: decision_record(
                evaluation=evaluation, candidate=candidate, rationale="Best.", by=members["manager"]
            )
        )
        decider.join(timeout=1.0)
        assert decider.is_alive(), "the decision did not wait for the candidate's writer"
    decider.join(timeout=30)
    assert "error" not in decided, decided
    with pytest.raises(EvaluationDecided), transaction.atomic():
        candidate_lock_open(candidate.pk)


def test_a_missing_candidate_is_said_so(candidate):
    with pytest.raises(Candidate.DoesNotExist), transaction.atomic():
        candidate_lock(candidate.pk + 1000)
