"""A new evaluation shows its next steps (candidates, questionnaire, upload tokens, POC plan),
each ticked off as it is done, and its empty charts say why they are empty."""

import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from portal.models import Answer, Candidate, ChecklistItem, VerificationStatus
from portal.services.tokens import upload_token_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def checklist(db):
    call_command("loaddata", "checklist", verbosity=0)


def _steps(html: str) -> dict[str, str]:
    found = re.findall(r'<li class="step (done|todo)" data-step="(\w+)"', html)
    return {key: state for state, key in found}


def _page(client, evaluation) -> str:
    return client.get(reverse("evaluation-detail", args=[evaluation.pk])).content.decode()


def test_a_new_evaluation_shows_its_next_steps_and_why_charts_are_empty(
    client, evaluation, members, checklist
):
    client.force_login(members["procurement"])
    html = _page(client, evaluation)
    assert "Next steps" in html
    assert _steps(html) == {
        "candidates": "todo",
        "questionnaire": "todo",
        "tokens": "todo",
        "poc": "todo",
    }
    assert reverse("candidate-add", args=[evaluation.pk]) in html
    empty = set(re.findall(r'data-empty-for="(\w+)"', html))
    assert empty == {"radar", "contributions", "tco", "busbw", "value", "robustness"}
    assert "no candidates to score yet" in html


def test_steps_are_ticked_off_as_the_work_is_done(client, evaluation, members, offering, checklist):
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    client.force_login(members["procurement"])
    html = _page(client, evaluation)
    assert _steps(html)["candidates"] == "done" and _steps(html)["questionnaire"] == "todo"
    assert "1 candidate added." in html
    assert "0 of 1 candidate has answered all 10 items." in html
    assert reverse("candidate-questionnaire", args=[evaluation.pk, candidate.pk]) in html

    for item in ChecklistItem.objects.all():
        Answer.objects.create(
            candidate=candidate, item=item, claim="yes", status=VerificationStatus.CLAIMED
        )
    upload_token_create(candidate=candidate, created_by=members["procurement"])
    steps = _steps(_page(client, evaluation))
    assert steps == {"candidates": "done", "questionnaire": "done", "tokens": "done", "poc": "todo"}


def test_links_in_the_steps_follow_the_role(client, evaluation, members, offering, checklist):
    Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    client.force_login(members["viewer"])
    html = _page(client, evaluation)
    assert "Next steps" in html
    section = html.split('class="card next-steps', 1)[1].split("</section>", 1)[0]
    assert "/evidence/" not in section and "/tokens/" not in section and "/add" not in section
    client.force_login(members["engineer"])
    section = _page(client, evaluation).split('class="card next-steps', 1)[1]
    assert "/evidence/" in section.split("</section>", 1)[0]


def test_the_demo_evaluation_shows_no_empty_chart_notes(client, demo):
    assert client.login(username="viewer", password="view-gpus-2026")
    html = client.get("/evaluations/1/").content.decode()
    assert "data-empty-for" not in html
