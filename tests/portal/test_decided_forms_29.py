"""On a decided evaluation the form pages of procurement say so before anything is typed, and a
submission is refused with the 409 every decided refusal answers (the README's rule), the input
kept and the refusal said once: the requirements, the questionnaire, removing a candidate and
creating an upload token answered 422 ("Please correct the errors below") or printed the
refusal twice (found by a trust review)."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from portal.models import Answer, Candidate, Evaluation, UploadToken
from portal.services.evaluations import decision_record

from .test_userday_questionnaire import _page_data

pytestmark = pytest.mark.django_db

NOTICE = "This evaluation is decided; it can no longer be changed."


@pytest.fixture
def procurement(client, demo):
    decision_record(
        evaluation=Evaluation.objects.get(pk=1),
        candidate=Candidate.objects.get(pk=1),
        rationale="Chosen.",
        by=get_user_model().objects.get(username="manager"),
    )
    assert client.login(username="procurement", password="procure-gpus-2026")
    return client


@pytest.mark.parametrize(
    "url",
    [
        reverse("evaluation-edit", args=[1]),
        reverse("candidate-remove", args=[1, 2]),
        reverse("upload-token-list", args=[1, 1]),
    ],
    ids=["requirements", "remove", "tokens"],
)
def test_the_form_pages_say_the_evaluation_is_decided(procurement, url):
    page = procurement.get(url).content.decode()
    assert page.count(NOTICE) == 1


def test_a_requirements_save_is_a_409_with_the_input_kept(procurement):
    url = reverse("evaluation-edit", args=[1])
    page = procurement.get(url).content.decode()
    data = {
        name: value
        for name, value in re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', page)
    }
    data["name"] = "Typed after the decision"
    response = procurement.post(url, data)
    assert response.status_code == 409
    html = response.content.decode()
    assert html.count(NOTICE) == 1
    assert 'value="Typed after the decision"' in html
    assert Evaluation.objects.get(pk=1).name != "Typed after the decision"


def test_the_questionnaire_of_a_decided_evaluation_says_why_it_is_read_only(procurement):
    page = procurement.get(reverse("candidate-questionnaire", args=[1, 1])).content.decode()
    assert "Read only: this evaluation is decided." in page
    assert "only procurement members can edit" not in page


def test_a_questionnaire_save_is_a_409(procurement):
    before = list(Answer.objects.filter(candidate_id=1).values_list("claim", "notes"))
    data = _page_data(procurement)
    data["item-1-notes"] = "typed after the decision"
    response = procurement.post(reverse("candidate-questionnaire", args=[1, 1]), data)
    assert response.status_code == 409
    assert "typed after the decision" in response.content.decode()
    assert list(Answer.objects.filter(candidate_id=1).values_list("claim", "notes")) == before


def test_removing_a_candidate_and_creating_a_token_are_409s(procurement):
    tokens = UploadToken.objects.count()
    removed = procurement.post(reverse("candidate-remove", args=[1, 2]))
    assert removed.status_code == 409
    assert removed.content.decode().count(NOTICE) == 1
    assert Candidate.objects.filter(pk=2).exists()
    created = procurement.post(
        reverse("upload-token-list", args=[1, 1]),
        {"label": "late", "expires_in_days": "7", "node_name": ""},
    )
    assert created.status_code == 409
    assert UploadToken.objects.count() == tokens


def test_the_portfolio_of_a_decided_evaluation_says_so_and_answers_409(procurement):
    url = reverse("evaluation-portfolio", args=[1])
    assert procurement.get(url).content.decode().count(NOTICE) == 1
    response = procurement.post(url, {"action": "add-workload", "w-name": "late"})
    assert response.status_code == 409
    assert response.content.decode().count(NOTICE) == 1


def test_a_portfolio_post_with_no_known_action_is_a_400_that_says_so(client, demo):
    assert client.login(username="procurement", password="procure-gpus-2026")
    response = client.post(reverse("evaluation-portfolio", args=[1]), {"action": "nope"})
    assert response.status_code == 400
    assert "Nothing was done: the form sent no known action." in response.content.decode()
