"""PUT .../answers/<item>/ holds a typed item's claim to the questionnaire's rule: a number item
takes a finite number of 0 or more with at most 2 decimals, as its value or as a claim that
reads as one. Text such as "1e309" or "NaN" (which the questionnaire's number input refuses) was
stored through the API as a claim and scored as claimed; JSON's NaN as a value passed the size
check. Each is now a 400 naming the rule, and nothing is stored."""

import json

import pytest
from django.urls import reverse

from portal.models import Answer

pytestmark = pytest.mark.django_db


def _cost(world) -> str:
    return reverse(
        "api-answer-detail",
        kwargs={
            "evaluation_pk": world.evaluation.pk,
            "candidate_pk": world.candidate.pk,
            "item": "monthly_cost",
        },
    )


def _stored(world):
    return list(
        Answer.objects.filter(candidate=world.candidate, item__key="monthly_cost").values_list(
            "claim", "value"
        )
    )


@pytest.mark.parametrize("claim", ["1e309", "NaN", "-5", "cheap", "12.345"])
def test_a_number_item_refuses_a_claim_that_is_not_its_number(api, world, claim):
    api.as_(world.users["procurement"])
    before = _stored(world)
    response = api.put(_cost(world), {"claim": claim}, format="json")
    assert response.status_code == 400, response.content
    messages = response.json()["claim"]
    assert "send it as value" in messages[0]
    assert len(messages) >= 2  # the number input's own reason follows
    assert _stored(world) == before


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-1", "0.001"])
def test_a_number_value_must_be_finite_and_what_the_questionnaire_takes(api, world, value):
    api.as_(world.users["procurement"])
    before = _stored(world)
    # Raw JSON: NaN and Infinity are what a client's JSON library may send for floats.
    response = api.put(_cost(world), data=f'{{"value": {value}}}', content_type="application/json")
    assert response.status_code == 400, response.content
    # NaN and Infinity are refused by the strict JSON parser, the others by the value's rule.
    body = response.json()
    assert "value" in body or "not valid JSON" in body.get("detail", "")
    assert _stored(world) == before


def test_numbers_as_claims_or_values_and_words_beside_a_value_are_kept(api, world):
    api.as_(world.users["procurement"])
    assert api.put(_cost(world), {"claim": "120000.50"}, format="json").status_code == 200
    saved = api.put(
        _cost(world), {"claim": "about 120k a month, all in", "value": 120000}, format="json"
    )
    assert saved.status_code == 200, saved.content
    assert json.loads(saved.content)["value"] == 120000
    assert _stored(world) == [("about 120k a month, all in", 120000)]


def test_the_refusal_is_in_chinese_for_a_chinese_client(api, world):
    api.as_(world.users["procurement"])
    response = api.put(
        _cost(world), {"claim": "1e309"}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 400
    message = response.json()["claim"][0]
    assert "value" in message and "数字" in message and "send it" not in message
