"""Hostile input through the API (security test, stop 30): an id beyond a bigint in a list
filter, unknown fields in the POC plan, a budget of nothing, non-ASCII digits and booleans
where a number is expected, and an edited portfolio assignment that leaves a workload out."""

import pytest
from django.urls import reverse

from portal.models import Evaluation, PocPlan

from ..test_portfolio import hybrid  # noqa: F401  (the two-workload fixture)

pytestmark = pytest.mark.django_db

HUGE_ID = "99999999999999999999999"


def _ev(world, name):
    return reverse(name, kwargs={"evaluation_pk": world.evaluation.pk})


@pytest.mark.parametrize(
    ("name", "param", "value"),
    [
        ("api-upload-list", "candidate", HUGE_ID),
        ("api-upload-list", "candidate", str(2**63)),
        ("api-measurement-list", "upload", str(2**63)),
        ("api-measurement-list", "candidate", HUGE_ID),
        ("api-score-list", "candidate", HUGE_ID),
        ("api-upload-token-list", "candidate", HUGE_ID),
        ("api-candidate-list", "vendor", HUGE_ID),
        ("api-upload-list", "candidate", "-" + HUGE_ID),
    ],
)
def test_an_id_filter_beyond_a_bigint_is_a_400_naming_the_field(api, world, name, param, value):
    response = api.as_(world.users["procurement"]).get(_ev(world, name), {param: value})
    assert response.status_code == 400, response.content
    assert list(response.json()) == [param]
    assert "id" in response.json()[param][0]
    # An id in range that matches nothing is still an empty list.
    in_range = api.as_(world.users["procurement"]).get(_ev(world, name), {param: str(2**63 - 1)})
    assert in_range.status_code == 200 and in_range.json()["results"] == []


def test_an_offering_filter_by_a_huge_vendor_id_is_a_400(api, world):
    response = api.as_(world.users["procurement"]).get(
        reverse("api-offering-list"), {"vendor": HUGE_ID}
    )
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["vendor"]


def _plan_body(**extra):
    return {"deadline": "2027-01-31T12:00:00Z", **extra}


@pytest.mark.parametrize(
    "body",
    [
        _plan_body(candidates=[{"candidate": 7, "node_names": ["a"]}]),
        _plan_body(sample_sise=3),
    ],
    ids=["candidates", "typo"],
)
def test_the_poc_plan_refuses_unknown_fields(api, world, body):
    response = api.as_(world.users["procurement"]).put(
        _ev(world, "api-poc-plan"), body, format="json"
    )
    assert response.status_code == 400, response.content
    unknown = next(key for key in body if key != "deadline")
    assert "Unknown field" in response.json()[unknown][0]
    assert not PocPlan.objects.exists()


@pytest.mark.parametrize("value", [0, "0", "0.00"])
def test_a_budget_of_nothing_is_refused_through_the_api(api, world, value):
    url = _ev(world, "api-evaluation-detail")
    before = Evaluation.objects.get(pk=world.evaluation.pk).budget_total
    response = api.as_(world.users["procurement"]).patch(
        url, {"budget_total": value}, format="json"
    )
    assert response.status_code == 400, response.content
    assert "budget_total" in response.json()
    assert Evaluation.objects.get(pk=world.evaluation.pk).budget_total == before
    assert "above zero" in response.json()["budget_total"][0]


def test_a_json_number_too_small_for_a_float_is_refused(api, world):
    url = _ev(world, "api-evaluation-detail")
    response = api.as_(world.users["procurement"]).generic(
        "PATCH", url, '{"budget_total": 1e-400}', content_type="application/json"
    )
    assert response.status_code == 400, response.content
    client = api.as_(world.users["procurement"])
    # A positive budget and no budget are still accepted.
    assert client.patch(url, {"budget_total": "0.01"}, format="json").status_code == 200
    assert client.patch(url, {"budget_total": None}, format="json").status_code == 200


@pytest.mark.parametrize("value", ["1_000", "１２", "٣"])
def test_an_integer_field_accepts_only_ascii_digits(api, world, value):
    url = _ev(world, "api-evaluation-detail")
    response = api.as_(world.users["procurement"]).patch(
        url, {"duration_days": value}, format="json"
    )
    assert response.status_code == 400, response.content
    assert "duration_days" in response.json()
    # ASCII digits as text, spaces around them, are still read.
    accepted = api.as_(world.users["procurement"]).patch(
        url, {"duration_days": " 45 ", "budget_total": "1200.5"}, format="json"
    )
    assert accepted.status_code == 200, accepted.content
    assert Evaluation.objects.get(pk=world.evaluation.pk).duration_days == 45


@pytest.mark.parametrize("value", ["1_000", "９00000", "٣"])
def test_a_decimal_field_accepts_only_ascii_digits(api, world, value):
    url = _ev(world, "api-evaluation-detail")
    response = api.as_(world.users["procurement"]).patch(
        url, {"budget_total": value}, format="json"
    )
    assert response.status_code == 400, response.content
    assert "budget_total" in response.json()


def test_the_ahp_matrix_refuses_a_boolean(api, world):
    matrix = [[1] * 6 for _ in range(6)]
    matrix[0][1] = True
    response = api.as_(world.users["procurement"]).post(
        _ev(world, "api-weights"), {"matrix": matrix}, format="json"
    )
    assert response.status_code == 400, response.content
    assert "matrix" in response.json()
    assert "not true or false" in str(response.json())


def test_an_assignment_that_leaves_a_workload_out_names_it(api, evaluation, hybrid, members):  # noqa: F811
    url = reverse("api-portfolio-decision", kwargs={"evaluation_pk": evaluation.pk})
    client = api.as_(members["manager"])
    body = {"rationale": "r", "assignment": [{"workload": "pretrain", "candidate": 1}]}
    body["assignment"][0]["candidate"] = hybrid["metal"].pk
    refused = client.post(url, body, format="json")
    assert refused.status_code == 400
    message = refused.json()["assignment"][0]
    assert "“inference”" in message and "unknown -" not in message, message
    zh = client.post(url, body, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    message_zh = zh.json()["assignment"][0]
    assert "“inference”" in message_zh and "未知 -" not in message_zh, message_zh
