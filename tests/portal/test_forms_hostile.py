"""The forms people type a lot into (weights, requirements, portfolio, reviews, questionnaire)
and their API twins: a copy loaded before someone else's save never overwrites it silently (the
form is refused with the input kept and what is stored now named), and hostile input (NUL bytes,
oversized text, wrong types, huge numbers, duplicate JSON keys) is a clear 4xx with nothing
written."""

import html
import json
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from portal.models import Answer, Evaluation, Workload
from portal.services.evaluations import evaluation_weights_set

from .test_portfolio import hybrid  # noqa: F401  (the two-workload fixture)
from .test_procurement_pages import evaluation_data

pytestmark = pytest.mark.django_db

STALE = "Someone saved this form after you opened it"
DIMENSIONS = ("stability", "network", "storage", "security", "cost", "support")


def _version(response, name: str = "loaded_version") -> str:
    match = re.search(rf'name="{name}" value="([^"]+)"', response.content.decode())
    assert match, f"no {name} on the page"
    return match.group(1)


@pytest.fixture
def procurement(client, members):
    client.force_login(members["procurement"])
    return client


# Weights


def _weights_post(evaluation, **overrides):
    data = {f"w_{d}": "20" if d in ("stability", "network") else "15" for d in DIMENSIONS}
    data.update({"direct": "1", **overrides})
    return data


def test_weights_saved_by_someone_else_meanwhile_are_not_overwritten(
    procurement, evaluation, members
):
    url = reverse("evaluation-weights", args=[evaluation.pk])
    loaded = _version(procurement.get(url))
    evaluation_weights_set(
        evaluation=evaluation,
        weights={d: Decimal(50 if d == "security" else 10) for d in DIMENSIONS},
        by=members["manager"],
    )
    theirs = dict(Evaluation.objects.get(pk=evaluation.pk).weights)
    response = procurement.post(url, _weights_post(evaluation, loaded_version=loaded, w_cost="15"))
    assert response.status_code == 422
    page = html.unescape(response.content.decode())
    assert STALE in page and "Stored now:" in page
    assert Evaluation.objects.get(pk=evaluation.pk).weights == theirs
    # The typed weights are still on the page as typed, and the form now carries the stored
    # version.
    assert 'name="w_stability" id="id_w_stability" value="20"' in page
    again = _version(response)
    assert again != loaded
    response = procurement.post(url, _weights_post(evaluation, loaded_version=again))
    assert response.status_code == 302
    assert Evaluation.objects.get(pk=evaluation.pk).weights != theirs


@pytest.mark.parametrize(
    "value", ["abc", "1e400", "NaN", "Infinity", "-1", "9" * 400, "1\x00", "", "1" * 20]
)
def test_hostile_weights_are_a_form_error_and_nothing_is_saved(procurement, evaluation, value):
    url = reverse("evaluation-weights", args=[evaluation.pk])
    before = dict(evaluation.weights)
    response = procurement.post(url, _weights_post(evaluation, w_cost=value))
    assert response.status_code == 422
    assert 'class="field-error"' in response.content.decode()
    assert Evaluation.objects.get(pk=evaluation.pk).weights == before


@pytest.mark.parametrize("value", ["1,5", "abc", "1e400"])
def test_a_refused_weight_is_shown_back_as_typed(procurement, evaluation, value):
    """The weight the field could not read stays in its box (it came back empty: the page
    formatted the refused text as a number), in a text box the browser never empties."""
    url = reverse("evaluation-weights", args=[evaluation.pk])
    response = procurement.post(url, _weights_post(evaluation, w_network=value))
    assert response.status_code == 422
    html = response.content.decode()
    box = re.search(
        r'<input type="text" inputmode="decimal" class="weight-number" name="w_network"[^>]*>', html
    )
    assert box and f'value="{value}"' in box.group(0)
    # The weights the field read are shown back too, as numbers.
    assert re.search(r'name="w_stability"[^>]*value="20(\.0)?"', html)


@pytest.mark.parametrize(
    "body",
    [
        b'{"stability": 1, "network": 1, "storage": 1, "security": 1, "cost": 1, "support": 1,'
        b' "cost": 90}',
        b'{"stability": 1e400, "network": 1, "storage": 1, "security": 1, "cost": 1, "support": 1}',
        b'{"stability": "x", "network": 1, "storage": 1, "security": 1, "cost": 1, "support": 1}',
        b'{"stability": [1], "network": 1, "storage": 1, "security": 1, "cost": 1, "support": 1}',
        b'{"stability": 1' + b"0" * 5000 + b', "network": 1}',
        b'{"stability": "1\\u0000", "network": 1, "storage": 1, "security": 1, "cost": 1,'
        b' "support": 1}',
    ],
    ids=["duplicate-key", "1e400", "string", "list", "5000-digit", "nul"],
)
def test_hostile_weights_through_the_api_are_a_400(procurement, evaluation, body):
    before = dict(evaluation.weights)
    response = procurement.put(
        f"/api/v1/evaluations/{evaluation.pk}/weights/", data=body, content_type="application/json"
    )
    assert response.status_code == 400, response.content[:300]
    assert response.json()
    assert Evaluation.objects.get(pk=evaluation.pk).weights == before


def test_a_duplicate_json_key_is_named_in_the_error(procurement, evaluation):
    response = procurement.patch(
        f"/api/v1/evaluations/{evaluation.pk}/",
        data=b'{"name": "A", "name": "B"}',
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "duplicate key 'name'" in response.json()["detail"]
    assert Evaluation.objects.get(pk=evaluation.pk).name == evaluation.name


# Requirements


def test_requirements_edited_meanwhile_are_not_overwritten(procurement, evaluation, client):
    url = reverse("evaluation-edit", args=[evaluation.pk])
    loaded = _version(procurement.get(url))
    Evaluation.objects.filter(pk=evaluation.pk).update(required_total_gpus=64)
    data = evaluation_data(name="Mine", required_total_gpus="8", status="open")
    response = procurement.post(url, {**data, "loaded_version": loaded})
    assert response.status_code == 422
    page = html.unescape(response.content.decode())
    assert STALE in page and 'value="Mine"' in page
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert (stored.name, stored.required_total_gpus) == (evaluation.name, 64)
    response = procurement.post(url, {**data, "loaded_version": _version(response)})
    assert response.status_code == 302
    assert Evaluation.objects.get(pk=evaluation.pk).required_total_gpus == 8


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "GPU\x00s"),
        ("name", "x" * 1000),
        ("description", "y" * 20_001),
        ("required_total_gpus", "9" * 30),
        ("required_total_gpus", "eight"),
        ("budget_total", "1e400"),
        ("min_busbw_fraction", "NaN"),
        ("workload_profile", "<script>"),
    ],
)
def test_hostile_requirements_are_refused_and_nothing_is_written(
    procurement, evaluation, field, value
):
    url = reverse("evaluation-edit", args=[evaluation.pk])
    before = Evaluation.objects.filter(pk=evaluation.pk).values().get()
    data = evaluation_data(status="open", **{"name": "Changed", field: value})
    response = procurement.post(url, data)
    assert response.status_code == 422
    assert 'class="errorlist"' in response.content.decode()
    assert Evaluation.objects.filter(pk=evaluation.pk).values().get() == before


# Portfolio


def _settings_data(response) -> dict:
    page = response.content.decode()
    data = {"action": "settings"}
    for name, value in re.findall(r'<input[^>]*name="(s-[^"]+)"[^>]*value="([^"]*)"', page):
        data[name] = html.unescape(value)
    for name, body in re.findall(r'<select[^>]*name="(s-[^"]+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', body)
        data[name] = chosen.group(1) if chosen else ""
    return data


def test_portfolio_settings_saved_meanwhile_are_not_overwritten(procurement, evaluation):
    url = reverse("evaluation-portfolio", args=[evaluation.pk])
    data = _settings_data(procurement.get(url))
    Evaluation.objects.filter(pk=evaluation.pk).update(prefer_fewer_vendors_pct=7)
    response = procurement.post(url, {**data, "s-prefer_fewer_vendors_pct": "3"})
    assert response.status_code == 422
    assert STALE in html.unescape(response.content.decode())
    assert Evaluation.objects.get(pk=evaluation.pk).prefer_fewer_vendors_pct == 7


def test_a_workload_named_by_garbage_is_a_404_not_a_500(procurement, evaluation):
    url = reverse("evaluation-portfolio", args=[evaluation.pk])
    for value in ("abc", "", "9" * 40, "-1"):
        response = procurement.post(url, {"action": "delete-workload", "workload": value})
        assert response.status_code == 404


def test_a_portfolio_with_no_candidate_shows_no_totals_instead_of_failing(
    client, members, evaluation
):
    Workload.objects.create(
        evaluation=evaluation, name="pretrain", profile="pretraining", gpus=8, duration_days=30
    )
    client.force_login(members["manager"])
    assert client.get(reverse("evaluation-portfolio", args=[evaluation.pk])).status_code == 200


@pytest.mark.parametrize("rationale", ["Because\x00", "z" * 20_001, "  "])
def test_a_refused_portfolio_rationale_is_shown_again(
    client,
    members,
    evaluation,
    hybrid,  # noqa: F811
    rationale,
):
    client.force_login(members["manager"])
    url = reverse("evaluation-portfolio", args=[evaluation.pk])
    response = client.post(url, {"action": "record-portfolio", "rationale": rationale})
    assert response.status_code == 422
    page = response.content.decode()
    assert 'id="record-portfolio"' in page and 'role="alert"' in page
    if rationale.strip() and "\x00" not in rationale:
        assert f">{rationale}</textarea>" in page
    assert Evaluation.objects.get(pk=evaluation.pk).status != "decided"


# Questionnaire and its API twin (demo candidate 4)


@pytest.fixture
def demo_procurement(client, demo):
    assert client.login(username="procurement", password="procure-gpus-2026")
    return client


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("item-1-claim", "NUL\x00"),
        ("item-1-notes", "n" * 10_001),
        ("item-9-claim", "1e400"),
        ("item-9-claim", "9" * 40),
        ("item-9-claim", "NaN"),
        ("item-2-claim", "not-a-choice"),
        ("item-1-version", "v" * 65),
    ],
)
def test_hostile_questionnaire_input_is_a_422_and_nothing_of_it_is_written(
    demo_procurement, name, value
):
    """Refused by its field, nothing of the hostile item written; the autosave still keeps the
    draft of the item typed beside it (item 10), and "Save all" keeps nothing."""
    from .test_userday_questionnaire import _page_data

    url = reverse("candidate-questionnaire", args=[1, 4])
    data = _page_data(demo_procurement, 4)
    hostile_item = int(name.split("-")[1])
    before = list(Answer.objects.filter(candidate_id=4).values())
    before_hostile = list(Answer.objects.filter(candidate_id=4, item__number=hostile_item).values())
    data.update({"item-10-claim": "14", name: value})
    response = demo_procurement.post(url, data, HTTP_ACCEPT="application/json")  # Save all
    assert response.status_code == 422
    assert list(response.json()["errors"]) == [name]
    assert list(Answer.objects.filter(candidate_id=4).values()) == before

    response = demo_procurement.post(url, {**data, "autosave": "1"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 422
    assert list(response.json()["errors"]) == [name]
    after = list(Answer.objects.filter(candidate_id=4, item__number=hostile_item).values())
    assert after == before_hostile
    assert Answer.objects.get(candidate_id=4, item__number=10).claim == "14"


@pytest.mark.parametrize(
    "body",
    [
        b'{"claim": "a", "claim": "b"}',
        b'{"value": 1e400}',
        b'{"value": "14"}',
        b'{"claim": "x\\u0000"}',
        b'{"claim": ' + json.dumps("c" * 10_001).encode() + b"}",
        b'{"claim": {"text": "x"}}',
        b'{"notes": true}',
        b'{"version": "' + b"v" * 65 + b'"}',
    ],
    ids=[
        "duplicate-key",
        "1e400",
        "string-number",
        "nul",
        "oversized",
        "object-claim",
        "boolean-notes",
        "version",
    ],
)
def test_hostile_answers_through_the_api_are_a_400(demo_procurement, body):
    before = list(Answer.objects.filter(candidate_id=4).values())
    response = demo_procurement.put(
        "/api/v1/evaluations/1/candidates/4/answers/9/", data=body, content_type="application/json"
    )
    assert response.status_code == 400, response.content[:300]
    assert list(Answer.objects.filter(candidate_id=4).values()) == before


def test_an_api_put_over_an_answer_changed_since_it_was_read_is_a_409(demo_procurement):
    url = "/api/v1/evaluations/1/candidates/4/answers/1/"
    read = demo_procurement.get(url).json()
    Answer.objects.filter(candidate_id=4, item__number=1).update(claim="Changed meanwhile")
    response = demo_procurement.put(
        url, {"claim": "Mine", "version": read["version"]}, content_type="application/json"
    )
    assert response.status_code == 409
    body = response.json()
    assert "changed since you read it" in body["detail"]
    assert Answer.objects.get(candidate_id=4, item__number=1).claim == "Changed meanwhile"
    assert body["version"] == demo_procurement.get(url).json()["version"] != read["version"]
    response = demo_procurement.put(
        url, {"claim": "Mine", "version": body["version"]}, content_type="application/json"
    )
    assert response.status_code == 200
    assert response.json()["claim"] == "Mine" and response.json()["version"] != body["version"]


def test_a_review_of_a_claim_changed_since_the_page_loaded_is_refused(client, demo):
    from portal.models import AnswerReview

    assert client.login(username="engineer", password="measure-gpus-2026")
    url = reverse("candidate-review", args=[1, 1])
    page = client.get(url).content.decode()
    answer = Answer.objects.get(candidate_id=1, item__key="compliance")
    form = page.split(f'name="item" value="{answer.item.number}"', 1)[1].split("</form>", 1)[0]
    field = f"review-{answer.item.number}-"
    loaded = re.search(rf'name="{field}loaded_version" value="([^"]+)"', form).group(1)
    Answer.objects.filter(pk=answer.pk).update(claim="MLPS level 2 only")
    data = {
        "item": answer.item.number,
        field + "verdict": "verified",
        field + "note": "Certificate p.1",
        field + "loaded_version": loaded,
    }
    response = client.post(url, data)
    text = html.unescape(response.content.decode())
    assert response.status_code != 302 and STALE in text and "MLPS level 2 only" in text
    assert "Certificate p.1" in text  # the note typed is still there
    assert not AnswerReview.objects.filter(answer=answer).exists()
