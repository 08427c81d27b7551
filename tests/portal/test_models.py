"""Database constraints and model validation of the data model's invariants."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from portal.models import (
    Answer,
    Candidate,
    ChecklistItem,
    DecisionRecord,
    Evaluation,
    Membership,
    OfferingPrice,
    Score,
)

pytestmark = pytest.mark.django_db


def _violates(callable_):
    with pytest.raises(IntegrityError), transaction.atomic():
        callable_()


def test_negative_weight_is_refused_by_the_database(evaluation):
    evaluation.weight_cost = Decimal("-1")
    _violates(evaluation.save)


def test_all_zero_weights_are_refused_by_the_database(evaluation):
    for dimension in evaluation.weights:
        setattr(evaluation, f"weight_{dimension}", Decimal("0"))
    _violates(evaluation.save)


def test_all_zero_weights_give_a_message_next_to_the_field(evaluation):
    for dimension in evaluation.weights:
        setattr(evaluation, f"weight_{dimension}", Decimal("0"))
    with pytest.raises(ValidationError) as excinfo:
        evaluation.full_clean()
    assert "At least one weight must be positive" in str(excinfo.value.message_dict)


def test_idle_days_cannot_exceed_the_duration(evaluation):
    evaluation.expected_idle_days = 31
    with pytest.raises(ValidationError) as excinfo:
        evaluation.full_clean()
    assert "expected_idle_days" in excinfo.value.message_dict
    _violates(evaluation.save)


def test_one_candidate_per_offering_and_evaluation(evaluation, offering):
    Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    _violates(
        lambda: Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=1)
    )


def test_one_answer_per_candidate_and_item(demo, evaluation, offering):
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    item = ChecklistItem.objects.get(number=1)
    Answer.objects.create(candidate=candidate, item=item, claim="8 x H100")
    _violates(lambda: Answer.objects.create(candidate=candidate, item=item, claim="again"))


def test_one_role_per_member(evaluation, make_user):
    user = make_user("pat")
    Membership.objects.create(evaluation=evaluation, user=user, role="viewer")
    _violates(lambda: Membership.objects.create(evaluation=evaluation, user=user, role="manager"))


def test_unknown_role_is_refused(evaluation, make_user):
    user = make_user("pat")
    _violates(lambda: Membership.objects.create(evaluation=evaluation, user=user, role="admin"))


def test_gpu_count_of_zero_is_refused(offering):
    offering.gpus_per_node = 0
    with pytest.raises(ValidationError) as excinfo:
        offering.full_clean()
    assert "gpus_per_node" in excinfo.value.message_dict
    _violates(offering.save)


def test_unknown_delivery_form_is_refused(offering):
    offering.delivery_form = "mainframe"
    with pytest.raises(ValidationError) as excinfo:
        offering.full_clean()
    assert "delivery_form" in excinfo.value.message_dict
    _violates(offering.save)


def test_negative_price_is_refused(offering):
    price = OfferingPrice(offering=offering, billing_model="hourly", price_per_gpu=Decimal("-2"))
    with pytest.raises(ValidationError) as excinfo:
        price.full_clean()
    assert "price_per_gpu" in excinfo.value.message_dict
    _violates(price.save)


def test_one_price_per_billing_model(offering):
    OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=1)
    _violates(
        lambda: OfferingPrice.objects.create(
            offering=offering, billing_model="hourly", price_per_gpu=2
        )
    )


def test_a_quote_needs_both_billing_model_and_price(evaluation, offering):
    candidate = Candidate(
        evaluation=evaluation, offering=offering, node_count=2, quoted_billing_model="monthly"
    )
    with pytest.raises(ValidationError):
        candidate.full_clean()
    _violates(candidate.save)


def test_score_must_be_between_0_and_100(evaluation, offering):
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    _violates(
        lambda: Score.objects.create(
            candidate=candidate, dimension="cost", value=101, rubric_version="1"
        )
    )


def test_a_recorded_decision_can_be_neither_changed_nor_deleted(evaluation, offering, make_user):
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    decision = DecisionRecord.objects.create(
        evaluation=evaluation, candidate=candidate, decided_by=make_user("m"), rationale="Best."
    )
    decision.rationale = "Changed my mind."
    with pytest.raises(ValidationError):
        decision.save()
    with pytest.raises(ValidationError):
        decision.delete()
    assert DecisionRecord.objects.get().rationale == "Best."


def test_weights_are_recorded_in_the_history(evaluation):
    evaluation.weight_cost = Decimal("3")
    evaluation.save()
    history = list(Evaluation.history.filter(id=evaluation.pk).order_by("history_date"))
    assert [h.weight_cost for h in history] == [Decimal("1"), Decimal("3")]
