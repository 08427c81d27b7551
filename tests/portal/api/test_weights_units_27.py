"""Evaluation weights in one unit, percent, whoever wrote them (the demo, a new evaluation, the
weights page, the AHP), the migration that converts weights stored as shares of 1, and the
AHP bounds said as Saaty's scale writes them ("1/9", not 0.1111111101111111)."""

import importlib
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.db import connection
from django.urls import reverse

from portal.api.ranking import evaluation_ranking_data
from portal.models import Candidate, DecisionRecord, Evaluation
from portal.services.evaluations import decision_record

pytestmark = pytest.mark.django_db

DIMS = ("stability", "network", "storage", "security", "cost", "support")
PRETRAINING_PCT = {
    "stability": "25.000",
    "network": "30.000",
    "storage": "10.000",
    "security": "5.000",
    "cost": "20.000",
    "support": "10.000",
}
migration = importlib.import_module("portal.migrations.0034_evaluation_weights_percent")


@pytest.fixture
def procurement(demo):
    return get_user_model().objects.get(username="procurement")


def _detail(pk: int) -> str:
    return reverse("api-evaluation-detail", kwargs={"evaluation_pk": pk})


def _weights_url(pk: int) -> str:
    return reverse("api-weights", kwargs={"evaluation_pk": pk})


def _order(evaluation: Evaluation) -> list[tuple[int, int, float]]:
    ranking = evaluation_ranking_data(evaluation, use_cache=False)
    return [(r["position"], r["candidate"], r["total"]) for r in ranking["results"]]


def _set(pk: int, weights: dict[str, str]) -> None:
    Evaluation.objects.filter(pk=pk).update(
        **{f"weight_{d}": Decimal(w) for d, w in weights.items()}
    )


def _migrate() -> None:
    migration.weights_to_percent(django_apps, SimpleNamespace(connection=connection))


def test_the_demo_and_a_new_evaluation_give_weights_in_the_same_unit(api, procurement):
    api.as_(procurement)
    demo = api.get(_detail(1)).json()["weights"]
    created = api.post(
        reverse("api-evaluation-list"),
        {
            "name": "Pre-train again",
            "workload_profile": "pretraining",
            "required_total_gpus": 64,
            "duration_days": 30,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    new = api.get(_detail(created.json()["id"])).json()["weights"]
    assert demo == new == PRETRAINING_PCT
    for pk in (1, created.json()["id"]):
        body = api.get(_weights_url(pk)).json()
        assert body["weights"] == PRETRAINING_PCT
        assert body["normalised_pct"]["stability"] == 25.0


def test_every_demo_evaluation_is_stored_in_percent(demo):
    for evaluation in Evaluation.objects.all():
        assert sum(evaluation.weights.values()) == Decimal(100), evaluation.pk


def test_weights_from_an_ahp_matrix_are_stored_in_percent(api, procurement):
    api.as_(procurement)
    matrix = [[1.0] * 6 for _ in range(6)]
    response = api.post(_weights_url(2), {"matrix": matrix}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["weights"] == dict.fromkeys(DIMS, "16.667")
    assert api.get(_detail(2)).json()["weights"] == dict.fromkeys(DIMS, "16.667")


def test_the_schema_says_the_unit_of_the_weights(api, procurement):
    api.as_(procurement)
    schemas = api.get("/api/schema/?format=json").json()["components"]["schemas"]
    unit = "percent; normalised to sum 100 when scored"
    assert schemas["Evaluation"]["properties"]["weights"]["description"] == unit
    assert schemas["WeightsOut"]["properties"]["weights"]["description"] == unit
    # What a PUT takes is stricter than what is stored: percentages that make 100.
    sent = schemas["Weights"]["properties"]["cost"]["description"]
    assert sent.startswith("percent, 0 to 100; the six must sum to 100"), sent


def test_the_migration_converts_shares_of_1_and_keeps_the_ranking(demo):
    evaluation = Evaluation.objects.get(pk=1)
    _set(1, {"stability": "0.250", "network": "0.300", "storage": "0.100"})
    _set(1, {"security": "0.050", "cost": "0.200", "support": "0.100"})
    # Shares of 1 as the weights page stored them when they did not quite make 1 (3 decimals).
    _set(16, dict.fromkeys(DIMS, "0.167"))
    before = {pk: _order(Evaluation.objects.get(pk=pk)) for pk in (1, 16)}
    assert before[1], "the demo ranks candidates"
    history = Evaluation.history.count()
    updated_at = Evaluation.objects.get(pk=1).updated_at

    _migrate()

    assert {d: str(w) for d, w in Evaluation.objects.get(pk=1).weights.items()} == PRETRAINING_PCT
    assert Evaluation.objects.get(pk=16).weights == dict.fromkeys(DIMS, Decimal("16.700"))
    assert {pk: _order(Evaluation.objects.get(pk=pk)) for pk in (1, 16)} == before
    # Nothing else written: no history row, the row's updated_at as it was.
    assert Evaluation.history.count() == history
    assert Evaluation.objects.get(pk=1).updated_at == updated_at == evaluation.updated_at


@pytest.mark.parametrize(
    "weights",
    [
        PRETRAINING_PCT,  # percent already
        dict.fromkeys(DIMS, "1.000"),  # the model's default: sums to 6
        {**dict.fromkeys(DIMS, "0.000"), "cost": "1.000", "support": "0.500"},  # sums to 1.5
        {**dict.fromkeys(DIMS, "0.000"), "cost": "0.980"},  # 0.98: outside 1 ± 0.01
    ],
)
def test_the_migration_leaves_weights_that_are_not_shares_of_1(demo, weights):
    _set(1, weights)
    _migrate()
    assert {d: str(w) for d, w in Evaluation.objects.get(pk=1).weights.items()} == weights


def test_a_recorded_decision_keeps_its_snapshot_through_the_migration(demo, procurement):
    manager = get_user_model().objects.get(username="manager")
    _set(1, {d: str(Decimal(w) / 100) for d, w in PRETRAINING_PCT.items()})
    evaluation = Evaluation.objects.get(pk=1)
    record = decision_record(
        evaluation=evaluation,
        candidate=Candidate.objects.filter(evaluation=evaluation).order_by("pk").first(),
        rationale="Recorded while weights were shares of 1.",
        by=manager,
    )
    snapshot = DecisionRecord.objects.get(pk=record.pk).snapshot
    assert snapshot["weights"]["network"] == "0.300"

    _migrate()

    assert DecisionRecord.objects.get(pk=record.pk).snapshot == snapshot
    assert Evaluation.objects.get(pk=1).weight_network == Decimal("30.000")


def test_an_ahp_value_below_the_scale_is_refused_in_its_own_terms(api, procurement):
    api.as_(procurement)
    matrix = [[1.0] * 6 for _ in range(6)]
    matrix[0][1], matrix[1][0] = 0.1, 10.0
    response = api.post(_weights_url(2), {"matrix": matrix}, format="json")
    assert response.status_code == 400
    text = response.content.decode()
    assert "Ensure this value is at least 1/9." in text
    assert "Ensure this value is at most 9." in text
    assert "0.111" not in text


def test_the_ahp_bounds_are_translated(api, procurement):
    api.as_(procurement)
    matrix = [[1.0] * 6 for _ in range(6)]
    matrix[0][1], matrix[1][0] = 0.1, 10.0
    response = api.post(
        _weights_url(2), {"matrix": matrix}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 400
    text = response.json()
    flat = str(text)
    assert "1/9" in flat and "Ensure this value" not in flat and "0.111" not in flat
