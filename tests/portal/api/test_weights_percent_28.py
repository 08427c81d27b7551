"""PUT .../weights/ takes percentages that make 100: each weight a finite number from 0 to 100,
the six summing to 100 within ±0.05 (the weights page's tolerance). Fractions of 1 (a client
sending 0.3 for 30 %), sums off 100, values outside 0..100 and non-numbers are a 400 whose
message names the problem, in English or Chinese, and nothing is stored; a decided evaluation
still answers 409 whatever is sent."""

from decimal import Decimal

import pytest
from django.urls import reverse

from portal.models import Evaluation, EvaluationStatus

pytestmark = pytest.mark.django_db

DIMS = ("stability", "network", "storage", "security", "cost", "support")
FRACTIONS = {
    "stability": 0.25,
    "network": 0.3,
    "storage": 0.1,
    "security": 0.05,
    "cost": 0.2,
    "support": 0.1,
}
PERCENT = {d: round(v * 100, 3) for d, v in FRACTIONS.items()}


def _url(world) -> str:
    return reverse("api-weights", kwargs={"evaluation_pk": world.evaluation.pk})


def _stored(world) -> dict:
    evaluation = Evaluation.objects.get(pk=world.evaluation.pk)
    return dict(evaluation.weights), evaluation.ahp_matrix


def _errors(response) -> str:
    body = response.json()
    return " ".join(str(m) for messages in body.values() for m in messages)


def test_percentages_that_make_100_are_stored(api, world):
    api.as_(world.users["procurement"])
    response = api.put(_url(world), PERCENT, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["weights"]["network"] == "30.000"
    assert Evaluation.objects.get(pk=world.evaluation.pk).weight_network == Decimal("30")


@pytest.mark.parametrize(
    "weights",
    [
        # Rounded thirds and AHP-like sixths: within the tolerance of ±0.05.
        {**dict.fromkeys(DIMS, 0), "stability": 33.33, "network": 33.33, "cost": 33.33},
        dict.fromkeys(DIMS, "16.667"),
        {**dict.fromkeys(DIMS, 0), "cost": 100},
        {**PERCENT, "support": 10.05},
    ],
    ids=["thirds-99.99", "sixths-100.002", "one-at-100", "100.05"],
)
def test_sums_within_the_tolerance_are_accepted(api, world, weights):
    api.as_(world.users["procurement"])
    response = api.put(_url(world), weights, format="json")
    assert response.status_code == 200, response.content


def test_fractions_summing_to_1_are_refused_as_fractions(api, world):
    api.as_(world.users["procurement"])
    before = _stored(world)
    response = api.put(_url(world), FRACTIONS, format="json")
    assert response.status_code == 400, response.content
    message = response.json()["non_field_errors"][0]
    assert message == (
        "Weights are percentages and must sum to 100; these sum to 1. Did you send fractions? "
        "Multiply each by 100 (0.25 is 25)."
    )
    assert _stored(world) == before


def test_the_fraction_message_is_translated(api, world):
    api.as_(world.users["procurement"])
    response = api.put(_url(world), FRACTIONS, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 400
    message = response.json()["non_field_errors"][0]
    assert "百分比" in message and "1" in message and "Weights are" not in message


@pytest.mark.parametrize(
    ("weights", "total"),
    [
        (dict.fromkeys(DIMS, 1), "6"),
        ({**PERCENT, "cost": 30}, "110"),
        ({**PERCENT, "support": 9.9}, "99.9"),
        ({**PERCENT, "support": 10.06}, "100.06"),
    ],
)
def test_a_sum_off_100_is_refused_naming_the_sum(api, world, weights, total):
    api.as_(world.users["procurement"])
    before = _stored(world)
    response = api.put(_url(world), weights, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["non_field_errors"] == [
        f"Weights are percentages and must sum to 100 (within ±0.05); these sum to {total}."
    ]
    assert _stored(world) == before


def test_a_sum_off_100_is_refused_in_chinese(api, world):
    api.as_(world.users["procurement"])
    body = dict.fromkeys(DIMS, 1)
    response = api.put(_url(world), body, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 400
    message = response.json()["non_field_errors"][0]
    assert "100" in message and "6" in message and "±0.05" in message
    assert "Weights are" not in message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (150, "A weight is a percentage from 0 to 100; not above 100."),
        (-5, "A weight is a percentage from 0 to 100; not below 0."),
        ("NaN", "A weight is a percentage: a number from 0 to 100."),
        ("Infinity", "A weight is a percentage: a number from 0 to 100."),
        ("thirty", "A weight is a percentage: a number from 0 to 100."),
    ],
)
def test_each_weight_is_a_finite_number_from_0_to_100(api, world, value, expected):
    api.as_(world.users["procurement"])
    before = _stored(world)
    response = api.put(_url(world), {**PERCENT, "network": value}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["network"] == [expected]
    assert _stored(world) == before


def test_all_zero_still_says_so(api, world):
    api.as_(world.users["procurement"])
    response = api.put(_url(world), dict.fromkeys(DIMS, 0), format="json")
    assert response.status_code == 400
    assert "At least one weight must be positive" in response.json()["non_field_errors"][0]


@pytest.mark.parametrize("body", [PERCENT, FRACTIONS, dict.fromkeys(DIMS, 1), {}])
def test_a_decided_evaluation_answers_409_whatever_is_sent(api, world, body):
    Evaluation.objects.filter(pk=world.evaluation.pk).update(status=EvaluationStatus.DECIDED)
    api.as_(world.users["procurement"])
    before = _stored(world)
    response = api.put(_url(world), body, format="json")
    assert response.status_code == 409, response.content
    assert "decided" in response.json()["detail"]
    matrix = [[1.0] * 6 for _ in range(6)]
    assert api.post(_url(world), {"matrix": matrix}, format="json").status_code == 409
    assert _stored(world) == before


def test_the_schema_documents_the_rule(api, world):
    api.as_(world.users["procurement"])
    schema = api.get("/api/schema/?format=json").json()
    weights = schema["components"]["schemas"]["Weights"]
    assert "must sum to 100" in weights["description"] and "0.05" in weights["description"]
    field = weights["properties"]["stability"]
    assert "Fractions of 1" in field["description"]
    assert field.get("maximum") == 100 or "100" in str(field)
    put = schema["paths"]["/api/v1/evaluations/{evaluation_pk}/weights/"]["put"]
    assert "fractions of 1" in put["description"]


@pytest.mark.parametrize(
    ("weights", "named"),
    [(FRACTIONS, "Did you send fractions"), ({**PERCENT, "cost": 30}, "these sum to 110")],
    ids=["fractions", "sum-110"],
)
def test_the_service_itself_refuses_weights_that_do_not_make_100(world, weights, named):
    """The rule is the service's, not only the API's: any writer (a command, a script, a
    future form) gets the same refusal, and nothing is stored."""
    from django.core.exceptions import ValidationError

    from portal.services.evaluations import evaluation_weights_set

    before = _stored(world)
    with pytest.raises(ValidationError) as refused:
        evaluation_weights_set(
            evaluation=world.evaluation, weights=weights, by=world.users["procurement"]
        )
    assert named in " ".join(refused.value.message_dict["weights"])
    assert _stored(world) == before


@pytest.mark.parametrize(
    ("role", "status"), [("manager", 200), ("procurement", 200), ("engineer", 403), ("viewer", 403)]
)
def test_the_api_lets_the_same_roles_weigh_as_the_weights_page(api, world, role, status):
    """The weights page lets procurement and the manager save; the API's PUT refused the
    manager with a 403 (found by a trust review). One rule now (permissions.CAN_WEIGH)."""
    from portal.views.weights import CAN_WEIGH

    api.as_(world.users[role])
    response = api.put(_url(world), PERCENT, format="json")
    assert response.status_code == status, response.content
    assert (status == 200) == any(r.value == role for r in CAN_WEIGH)
