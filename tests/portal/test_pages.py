"""The first pages: who may see an evaluation, and what they see."""

import pytest
from django.urls import reverse

from portal.models import Candidate

pytestmark = pytest.mark.django_db


def test_anonymous_users_are_sent_to_login(client, evaluation):
    for url in (reverse("evaluation-list"), reverse("evaluation-detail", args=[evaluation.pk])):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_the_list_shows_only_the_users_evaluations(client, members, evaluation):
    client.force_login(members["viewer"])
    response = client.get(reverse("evaluation-list"))
    assert evaluation.name in response.text
    client.force_login(members["outsider"])
    response = client.get(reverse("evaluation-list"))
    assert evaluation.name not in response.text
    assert "not a member of any evaluation" in response.text


def test_a_non_member_gets_404_for_an_evaluation(client, members, evaluation):
    client.force_login(members["outsider"])
    response = client.get(reverse("evaluation-detail", args=[evaluation.pk]))
    assert response.status_code == 404


@pytest.mark.parametrize("role", ["procurement", "manager", "engineer", "viewer"])
def test_every_role_sees_the_candidates(client, members, evaluation, offering, role):
    Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    client.force_login(members[role])
    response = client.get(reverse("evaluation-detail", args=[evaluation.pk]))
    assert response.status_code == 200
    assert offering.name in response.text
    assert "0/0" in response.text or "/10" in response.text


def test_login_page_logs_a_demo_user_in(client, demo):
    response = client.post(
        reverse("login"), {"username": "manager", "password": "decide-gpus-2026"}, follow=True
    )
    assert response.status_code == 200
    assert "Pre-train on 64 GPUs for 30 days" in response.text


def test_login_with_a_wrong_password_explains_itself(client, demo):
    response = client.post(reverse("login"), {"username": "manager", "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.text


def test_the_page_speaks_chinese(client, members, evaluation):
    client.force_login(members["viewer"])
    response = client.get(reverse("evaluation-list"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    assert "评估" in response.text


def test_health_endpoint_answers(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
