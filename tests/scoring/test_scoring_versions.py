"""Rubric versions in the portal: each evaluation records its version, scores and decisions use
it, a decision replays exactly, and moving v1 → v2 is an explicit, audited action."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from portal import adapters, selectors
from portal.models import Evaluation, EvaluationStatus, Offering, OfferingPrice, Score
from portal.services.evaluations import candidate_add, decision_record
from portal.services.rubric import evaluation_rubric_upgrade
from scoring.api import score_candidates
from tests.portal.conftest import evaluation, make_user, offering, vendor  # noqa: F401


@pytest.fixture
def v1_evaluation(evaluation):  # noqa: F811
    # As the migration leaves an evaluation that existed before rubric v2.
    evaluation.rubric_version = "1"
    evaluation.save()
    return evaluation


@pytest.fixture
def priced(offering):  # noqa: F811
    # Spot is cheapest: v1 prices the 30-day pre-training on it, v2 never recommends it.
    OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=20)
    OfferingPrice.objects.create(offering=offering, billing_model="spot", price_per_gpu=8)
    return offering


@pytest.fixture
def user(make_user):  # noqa: F811
    return make_user("lead")


def _total(chosen, version):
    ranking, _ = selectors.evaluation_ranking(evaluation=chosen)
    assert ranking.rubric_version == version
    return ranking.results[0]


def test_new_evaluations_use_the_current_rubric(evaluation):  # noqa: F811
    assert evaluation.rubric_version == "2"


def test_scores_are_stored_with_the_evaluations_rubric(v1_evaluation, priced, user):
    candidate = candidate_add(evaluation=v1_evaluation, offering=priced, node_count=2, by=user)
    stored = Score.objects.filter(candidate=candidate).values_list("rubric_version", flat=True)
    assert set(stored) == {"1"}
    assert _total(v1_evaluation, "1").tco.recommended == "spot"


def test_a_decision_replays_exactly_with_its_rubric_version(v1_evaluation, priced, user):
    candidate = candidate_add(evaluation=v1_evaluation, offering=priced, node_count=2, by=user)
    record = decision_record(
        evaluation=v1_evaluation, candidate=candidate, rationale="best value", by=user
    )
    assert record.snapshot["rubric_version"] == "1"
    candidate.refresh_from_db()
    replay = score_candidates(
        [adapters.candidate_input(candidate)],
        adapters.evaluation_spec(Evaluation.objects.get(pk=v1_evaluation.pk)),
        rubric_version=record.snapshot["rubric_version"],
    )
    row = record.snapshot["ranking"][0]
    assert replay.results[0].total == row["total"]
    assert replay.results[0].scores == row["scores"]
    v2 = score_candidates(
        [adapters.candidate_input(candidate)],
        adapters.evaluation_spec(v1_evaluation),
        rubric_version="2",
    )
    assert v2.results[0].total != row["total"]  # the version matters, so recording it does


def test_upgrade_moves_to_v2_rescores_and_is_audited(v1_evaluation, priced, user):
    candidate = candidate_add(evaluation=v1_evaluation, offering=priced, node_count=2, by=user)
    before = _total(v1_evaluation, "1").total
    evaluation_rubric_upgrade(evaluation=v1_evaluation, by=user)
    v1_evaluation.refresh_from_db()
    assert v1_evaluation.rubric_version == "2"
    after = _total(v1_evaluation, "2")
    assert after.total != before
    assert after.tco.recommended == "hourly"  # 30-day pre-training: spot not recommended
    stored = Score.objects.filter(candidate=candidate).values_list("rubric_version", flat=True)
    assert set(stored) == {"2"}
    latest = v1_evaluation.history.latest()
    assert latest.history_user == user
    assert latest.history_change_reason == "rubric v1 → v2"
    assert latest.prev_record.rubric_version == "1"


def test_upgrade_refuses_a_decided_evaluation_and_moving_backwards(v1_evaluation, user):
    with pytest.raises(ValidationError, match="Unknown rubric version"):
        evaluation_rubric_upgrade(evaluation=v1_evaluation, by=user, to_version="9")
    evaluation_rubric_upgrade(evaluation=v1_evaluation, by=user)
    with pytest.raises(ValidationError, match="only moves forward"):
        evaluation_rubric_upgrade(evaluation=v1_evaluation, by=user, to_version="1")
    with pytest.raises(ValidationError, match="only moves forward"):
        evaluation_rubric_upgrade(evaluation=v1_evaluation, by=user)
    decided = Evaluation.objects.create(
        name="decided",
        workload_profile="inference",
        required_total_gpus=8,
        duration_days=30,
        status=EvaluationStatus.DECIDED,
        rubric_version="1",
    )
    with pytest.raises(ValidationError, match="decided"):
        evaluation_rubric_upgrade(evaluation=decided, by=user)
    decided.refresh_from_db()
    assert decided.rubric_version == "1"


def test_the_command_moves_open_evaluations_only(v1_evaluation, user):
    decided = Evaluation.objects.create(
        name="decided",
        workload_profile="inference",
        required_total_gpus=8,
        duration_days=30,
        status=EvaluationStatus.DECIDED,
        rubric_version="1",
    )
    out = io.StringIO()
    call_command("evaluation_rubric_upgrade", "--by", "lead", stdout=out)
    assert "moved 1 evaluation(s) to rubric v2" in out.getvalue()
    v1_evaluation.refresh_from_db()
    decided.refresh_from_db()
    assert (v1_evaluation.rubric_version, decided.rubric_version) == ("2", "1")
    with pytest.raises(CommandError, match="no user"):
        call_command("evaluation_rubric_upgrade", "--by", "nobody", stdout=io.StringIO())


def test_a_mig_profile_is_validated_on_the_offering(vendor):  # noqa: F811
    mig = Offering(
        vendor=vendor,
        name="MIG",
        delivery_form="mig",
        gpu_model="Tesla V100-SXM2-32GB",
        gpu_form_factor="sxm",
        gpus_per_node=7,
        gpu_memory_gib=16,
        nvlink_topology="none",
        fabric="none",
        mig_profile="3g.16gb",
    )
    with pytest.raises(ValidationError, match="Ampere"):
        mig.full_clean()
    mig.gpu_model = "NVIDIA A100-SXM4-80GB"
    mig.mig_profile = "free text"
    with pytest.raises(ValidationError, match=r"3g\.40gb"):
        mig.full_clean()
    mig.mig_profile = "3g.40gb"
    mig.full_clean()
    assert mig.mig_profile == "3g.40gb"
    mig.delivery_form = "vgpu"
    with pytest.raises(ValidationError, match="MIG instance"):
        mig.full_clean()


def test_an_offering_without_sla_is_unanswered_not_99(offering):  # noqa: F811
    assert Offering._meta.get_field("sla_availability_pct").default is None or (
        Offering._meta.get_field("sla_availability_pct").null
    )
    fresh = Offering.objects.create(
        vendor=offering.vendor,
        name="no SLA",
        delivery_form="bare_metal",
        gpu_model="NVIDIA H100",
        gpu_form_factor="sxm",
        gpus_per_node=8,
        gpu_memory_gib=80,
        nvlink_topology="full_mesh",
        fabric="infiniband",
    )
    facts = adapters.offering_facts(fresh, prices=[("hourly", Decimal(20))])
    assert facts.sla_availability_pct is None
    assert facts.sla_response_time_min is None
    assert facts.spot_preemption_risk_pct is None
