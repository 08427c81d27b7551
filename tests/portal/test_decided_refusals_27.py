"""A member whose role may save weights or review answers is told that the evaluation is
decided (409, the message every decided refusal gives), with the input as typed on the page;
a role that may not is still a 403. Nothing is written either way."""

import html

import pytest
from django.urls import reverse

from portal import selectors
from portal.models import Answer, AnswerReview, Evaluation
from portal.services.evaluations import decision_record
from portal.views.reviews import review_prefix

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
DECIDED = "This evaluation is decided; it can no longer be changed."
ROLE_REFUSAL = "does not allow"
TYPED = {"w_cost": "41.5", "w_stability": "11.5", "w_network": "12", "w_storage": "10"}
TYPED |= {"w_security": "12.5", "w_support": "12.5"}


@pytest.fixture
def decided(demo):
    from django.contrib.auth import get_user_model

    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    chosen = candidates[ranking.qualified[0].candidate_id]
    manager = get_user_model().objects.get(username="manager")
    decision_record(evaluation=evaluation, candidate=chosen, rationale="Best.", by=manager)
    evaluation.refresh_from_db()
    return evaluation


@pytest.fixture
def as_user(client):
    def login(username: str):
        assert client.login(username=username, password=PASSWORDS[username])
        return client

    return login


def _weights(evaluation_id: int = DEMO_EVALUATION):
    evaluation = Evaluation.objects.get(pk=evaluation_id)
    return evaluation.weights, evaluation.ahp_matrix


def test_procurement_saving_weights_of_a_decided_evaluation_is_told_it_is_decided(decided, as_user):
    before = _weights()
    client = as_user("procurement")
    response = client.post(reverse("evaluation-weights", args=[DEMO_EVALUATION]), TYPED)
    assert response.status_code == 409
    text = html.unescape(response.content.decode())
    assert DECIDED in text
    assert ROLE_REFUSAL not in text and "ask a procurement member" not in text
    # The typed percentages are on the page again.
    for name, value in TYPED.items():
        assert f'name="{name}"' in text
        assert f'value="{value}"' in text, name
    assert _weights() == before


def test_the_ahp_form_of_a_decided_evaluation_says_so_too(decided, as_user):
    before = _weights()
    client = as_user("manager")
    data = {"ahp": "1", "stability__network": "7", "cost__support": "1/5"}
    response = client.post(reverse("evaluation-weights", args=[DEMO_EVALUATION]), data)
    assert response.status_code == 409
    text = html.unescape(response.content.decode())
    assert DECIDED in text
    assert ">7</output>" in text and ">1/5</output>" in text
    assert _weights() == before


def test_a_decision_recorded_after_the_page_was_read_is_the_same_refusal(
    demo, as_user, monkeypatch
):
    """The service reads the evaluation under its lock: a decision recorded since the view read
    it is refused by the service, and answered as above. The decision is recorded for real,
    through its service, between the view's read and the weights service's."""
    from django.contrib.auth import get_user_model

    from portal.views import weights as weights_view

    save_weights = weights_view.evaluation_weights_set

    def decided_meanwhile(**kwargs):
        evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
        ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
        decision_record(
            evaluation=evaluation,
            candidate=candidates[ranking.qualified[0].candidate_id],
            rationale="Recorded meanwhile.",
            by=get_user_model().objects.get(username="manager"),
        )
        return save_weights(**kwargs)

    monkeypatch.setattr(weights_view, "evaluation_weights_set", decided_meanwhile)
    before = _weights()
    client = as_user("procurement")
    typed = {**TYPED, "w_cost": "40", "w_stability": "13"}
    response = client.post(reverse("evaluation-weights", args=[DEMO_EVALUATION]), typed)
    assert response.status_code == 409
    text = html.unescape(response.content.decode())
    assert DECIDED in text and 'value="40"' in text
    assert "Save weights" not in text
    assert _weights() == before


def test_a_viewer_is_still_refused_by_role(decided, as_user):
    before = _weights()
    client = as_user("viewer")
    response = client.post(reverse("evaluation-weights", args=[DEMO_EVALUATION]), TYPED)
    assert response.status_code == 403
    assert _weights() == before


def _document_answer():
    return (
        Answer.objects.filter(
            candidate__evaluation_id=DEMO_EVALUATION, item__key__in=("compliance", "sla")
        )
        .exclude(claim="")
        .select_related("item")
        .first()
    )


def test_reviewing_an_answer_of_a_decided_evaluation_is_told_it_is_decided(decided, as_user):
    answer = _document_answer()
    reviews = AnswerReview.objects.count()
    client = as_user("procurement")
    url = reverse("candidate-review", args=[DEMO_EVALUATION, answer.candidate_id])
    note = "Certificate <b>p.1</b>, clause 4"
    number = answer.item.number
    data = {
        "item": number,
        f"{review_prefix(number)}-verdict": "contradicted",
        f"{review_prefix(number)}-note": note,
    }
    response = client.post(url, data)
    assert response.status_code == 409
    body = response.content.decode()
    assert DECIDED in html.unescape(body)
    assert ROLE_REFUSAL not in body
    # The note as typed, escaped, and the verdict chosen.
    assert "Certificate &lt;b&gt;p.1&lt;/b&gt;, clause 4" in body
    assert "<b>p.1</b>" not in body
    assert 'value="contradicted"' in body and "checked" in body
    assert "Record the review" not in body
    assert AnswerReview.objects.count() == reviews


def test_a_viewer_reviewing_is_still_refused_by_role(decided, as_user):
    answer = _document_answer()
    reviews = AnswerReview.objects.count()
    client = as_user("viewer")
    url = reverse("candidate-review", args=[DEMO_EVALUATION, answer.candidate_id])
    data = {"item": answer.item.number, "verdict": "verified", "note": "ok"}
    assert client.post(url, data).status_code == 403
    assert AnswerReview.objects.count() == reviews
