"""Hostile input through the pages (security test, stop 30): the decided refusals of the
answer autosave and the POC plan page, a budget of nothing, numbers written with other digits
than 0-9, and what an anonymous /readyz/ reveals."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from portal.models import Answer, Candidate, Evaluation, PocPlan
from portal.services.evaluations import decision_record

from .test_procurement_pages import evaluation_data

pytestmark = pytest.mark.django_db

NOTICE = "This evaluation is decided; it can no longer be changed."
DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def procurement(client, members):
    client.force_login(members["procurement"])
    return client


@pytest.fixture
def decided(client, demo):
    decision_record(
        evaluation=Evaluation.objects.get(pk=1),
        candidate=Candidate.objects.get(pk=1),
        rationale="Chosen.",
        by=get_user_model().objects.get(username="manager"),
    )
    assert client.login(username="procurement", password="procure-gpus-2026")
    return client


def test_the_answer_autosave_of_a_decided_evaluation_is_a_409(decided):
    before = list(Answer.objects.filter(candidate_id=1).values_list("claim", "notes"))
    response = decided.post(
        reverse("answer-update", args=[1, 1, 1]),
        {"item-1-claim": "typed after the decision", "item-1-status": "claimed"},
    )
    assert response.status_code == 409, response.content[:500]
    assert NOTICE in response.content.decode()
    assert list(Answer.objects.filter(candidate_id=1).values_list("claim", "notes")) == before


def test_a_poc_plan_saved_on_a_decided_evaluation_is_a_409(decided):
    plans = list(PocPlan.objects.values_list("pk", "updated_at"))
    response = decided.post(
        reverse("evaluation-poc", args=[1]),
        {"deadline": "2027-01-31T12:00", "all_nodes_max": "2", "sample_size": "4"},
    )
    assert response.status_code == 409, response.content[:500]
    assert response.content.decode().count(NOTICE) == 1
    assert list(PocPlan.objects.values_list("pk", "updated_at")) == plans


@pytest.mark.parametrize("value", ["0", "0.00", "-0"])
def test_a_budget_of_nothing_is_refused_on_the_page(procurement, evaluation, value):
    url = reverse("evaluation-edit", args=[evaluation.pk])
    before = Evaluation.objects.filter(pk=evaluation.pk).values().get()
    response = procurement.post(url, evaluation_data(status="open", budget_total=value))
    assert response.status_code == 422
    assert (
        "Enter a budget above zero, or leave it empty for no budget." in response.content.decode()
    )
    assert Evaluation.objects.filter(pk=evaluation.pk).values().get() == before
    empty = procurement.post(url, evaluation_data(status="open", budget_total=""))
    assert empty.status_code == 302
    assert Evaluation.objects.get(pk=evaluation.pk).budget_total is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("required_total_gpus", "1_000"),
        ("required_total_gpus", "１２"),
        ("required_gpu_memory_gib", "٨٠"),
        ("budget_total", "9_000"),
        ("budget_total", "９000"),
        ("min_busbw_fraction", "٠.5"),
    ],
)
def test_numbers_in_other_digits_are_refused_on_the_page(procurement, evaluation, field, value):
    url = reverse("evaluation-edit", args=[evaluation.pk])
    before = Evaluation.objects.filter(pk=evaluation.pk).values().get()
    response = procurement.post(url, evaluation_data(status="open", **{field: value}))
    assert response.status_code == 422
    html = response.content.decode()
    assert re.search(rf'name="{field}"[^>]*value="{re.escape(value)}"', html)
    assert Evaluation.objects.filter(pk=evaluation.pk).values().get() == before


def test_ascii_numbers_with_spaces_are_still_read(procurement, evaluation):
    url = reverse("evaluation-edit", args=[evaluation.pk])
    data = evaluation_data(status="open", required_total_gpus=" 24 ", budget_total="1200.50")
    data["duration_days"] = "+30"
    assert procurement.post(url, data).status_code == 302
    saved = Evaluation.objects.get(pk=evaluation.pk)
    assert (saved.required_total_gpus, saved.duration_days) == (24, 30)
    # ... and full-width digits are not.
    data["required_total_gpus"] = "１２"
    assert procurement.post(url, data).status_code == 422


def test_an_anonymous_readyz_names_the_failed_dependency_without_its_address(
    client, settings, make_user
):
    settings.CELERY_BROKER_URL = DEAD_REDIS
    response = client.get("/readyz/?require=database,redis")
    assert response.status_code == 503
    body = response.json()
    assert body["redis"]["ok"] is False
    assert body["redis"]["error"] == "unavailable"
    assert "127.0.0.1" not in response.content.decode()
    # Staff still read why.
    client.force_login(make_user("ops", is_staff=True))
    body = client.get("/readyz/?require=database,redis").json()
    assert "Error" in body["redis"]["error"] or "refused" in body["redis"]["error"]
