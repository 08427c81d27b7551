"""Admin forms validate with clear messages next to the field."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from portal.models import Evaluation, Offering

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456789")
    client.force_login(admin)
    return client


def _offering_post(vendor, **overrides):
    data = {
        "vendor": vendor.pk,
        "name": "Broken offering",
        "delivery_form": "bare_metal",
        "gpu_model": "H100",
        "gpu_form_factor": "sxm",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "nvlink_topology": "full_mesh",
        "fabric": "infiniband",
        "fabric_rate_gbit_s": 400,
        "nics_per_node": 8,
        "oversubscription_ratio": "1",
        "nvme_capacity_tib": "10",
        "provisioning_time_min": 15,
        "network_isolation": "none",
        "data_wipe_policy": "none",
        "currency": "CNY",
        "spot_preemption_risk_pct": "0",
        "min_commitment_days": 0,
        "early_termination_fee": "0",
        "storage_cost_month": "0",
        "network_egress_cost_month": "0",
        "support_cost_month": "0",
        "licence_cost_gpu_month": "0",
        "setup_fee": "0",
        "setup_days": 0,
        "sla_availability_pct": "99.9",
        "sla_response_time_min": 30,
        "sla_credit_pct": "0",
        "support_tier": "ticket_queue",
        "poc_window_days": 0,
        "prices-TOTAL_FORMS": 1,
        "prices-INITIAL_FORMS": 0,
        "prices-0-billing_model": "hourly",
        "prices-0-price_per_gpu": "10",
    }
    data.update(overrides)
    return data


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"gpus_per_node": 0}, "gpus_per_node", "greater than or equal to 1"),
        ({"delivery_form": "mainframe"}, "delivery_form", "Select a valid choice"),
        ({"prices-0-price_per_gpu": "-5"}, "price_per_gpu", "greater than or equal to 0"),
        ({"setup_fee": "-1"}, "setup_fee", "greater than or equal to 0"),
    ],
)
def test_offering_admin_refuses_bad_input_next_to_the_field(
    admin_client, vendor, overrides, field, message
):
    response = admin_client.post(
        reverse("admin:portal_offering_add"), _offering_post(vendor, **overrides)
    )
    assert response.status_code == 200
    assert not Offering.objects.filter(name="Broken offering").exists()
    html = response.content.decode()
    assert message in html
    # The message sits in the row of its field.
    assert f"field-{field}" in html.split(message)[0][-2000:]


def test_offering_admin_accepts_a_valid_offering(admin_client, vendor):
    response = admin_client.post(reverse("admin:portal_offering_add"), _offering_post(vendor))
    assert response.status_code == 302
    offering = Offering.objects.get(name="Broken offering")
    assert offering.prices.get().price_per_gpu == 10


def test_evaluation_admin_refuses_all_zero_weights(admin_client):
    # Evaluations are created in the portal (with their procurement member); the admin corrects.
    evaluation = Evaluation.objects.create(
        name="Zero weights", workload_profile="pretraining", required_total_gpus=8, duration_days=30
    )
    data = {
        "name": "Zero weights",
        "workload_profile": "pretraining",
        "status": "draft",
        "required_total_gpus": 8,
        "required_gpu_memory_gib": 80,
        "duration_days": 30,
        "expected_idle_days": 0,
        "budget_currency": "CNY",
        "required_mlps_level": 0,
        **{
            f"weight_{d}": "0"
            for d in ("stability", "network", "storage", "security", "cost", "support")
        },
        "memberships-TOTAL_FORMS": 0,
        "memberships-INITIAL_FORMS": 0,
        "candidates-TOTAL_FORMS": 0,
        "candidates-INITIAL_FORMS": 0,
    }
    response = admin_client.post(
        reverse("admin:portal_evaluation_change", args=[evaluation.pk]), data
    )
    assert response.status_code == 200
    assert "At least one weight must be positive" in response.content.decode()
    evaluation.refresh_from_db()
    assert evaluation.weight_cost > 0


WEIGHTS = ("stability", "network", "storage", "security", "cost", "support")


def _evaluation_post(client, evaluation, **weights):
    """The admin's change form for ``evaluation`` as it loads, with ``weights`` changed."""
    url = reverse("admin:portal_evaluation_change", args=[evaluation.pk])
    form = client.get(url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    data = {name: "" if value is None else value for name, value in data.items()}
    data.update({f"weight_{d}": str(w) for d, w in weights.items()})
    for inline in ("memberships", "candidates"):
        data.update({f"{inline}-TOTAL_FORMS": 0, f"{inline}-INITIAL_FORMS": 0})
    return data


@pytest.fixture
def weighted_evaluation(db):
    from portal.services.evaluations import evaluation_create

    creator = get_user_model().objects.create_user("creator", password="pw-123456789")
    return evaluation_create(
        fields={
            "name": "Weighted",
            "workload_profile": "pretraining",
            "required_total_gpus": 8,
            "duration_days": 30,
        },
        by=creator,
    )


def test_evaluation_admin_refuses_weights_that_do_not_make_100(admin_client, weighted_evaluation):
    """Security review: the admin saved 90 and five zeros (evaluation_update never checked the
    sum every other writer of weights is held to)."""
    evaluation = weighted_evaluation
    before = evaluation.weights
    data = _evaluation_post(admin_client, evaluation, stability=90, **{d: 0 for d in WEIGHTS[1:]})
    response = admin_client.post(
        reverse("admin:portal_evaluation_change", args=[evaluation.pk]), data
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert errors == [
        "Weights are percentages and must sum to 100 (within ±0.05); these sum to 90."
    ]
    assert "must sum to 100" in response.content.decode()
    evaluation.refresh_from_db()
    assert evaluation.weights == before


def test_evaluation_admin_saves_weights_that_make_100_as_direct_weights(
    admin_client, weighted_evaluation
):
    evaluation = weighted_evaluation
    Evaluation.objects.filter(pk=evaluation.pk).update(ahp_matrix=[[1] * 6] * 6)
    weights = {"stability": 50, **{d: 10 for d in WEIGHTS[1:]}}
    response = admin_client.post(
        reverse("admin:portal_evaluation_change", args=[evaluation.pk]),
        _evaluation_post(admin_client, evaluation, **weights),
    )
    assert response.status_code == 302
    evaluation.refresh_from_db()
    assert {d: int(w) for d, w in evaluation.weights.items()} == weights
    # Direct weights: the AHP matrix they no longer come from is dropped, as on the weights page.
    assert evaluation.ahp_matrix is None


def test_evaluation_update_holds_written_weights_to_the_sum_rule(weighted_evaluation):
    from django.core.exceptions import ValidationError

    from portal.services.evaluations import evaluation_update

    evaluation = weighted_evaluation
    before = evaluation.weights
    evaluation.weight_stability = 90
    for d in WEIGHTS[1:]:
        setattr(evaluation, f"weight_{d}", 0)
    with pytest.raises(ValidationError) as refused:
        evaluation_update(
            evaluation=evaluation,
            by=evaluation.created_by,
            fields=[f"weight_{d}" for d in WEIGHTS],
        )
    assert "must sum to 100" in refused.value.message_dict["weights"][0]
    assert Evaluation.objects.get(pk=evaluation.pk).weights == before
