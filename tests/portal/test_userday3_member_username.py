"""Adding a member by username as people type it: "Newcomer", or the name typed in full-width
mode, finds the one active user "newcomer" (it said no active user had the name); between two
users whose names differ only in case nothing is guessed."""

import pytest
from django.urls import reverse

from portal.models import Membership

pytestmark = pytest.mark.django_db


def _add(client, evaluation, typed: str):
    url = reverse("evaluation-members", args=[evaluation.pk])
    return client.post(url, {"action": "add", "add-username": typed, "add-role": "engineer"})


@pytest.mark.parametrize("typed", ["Newcomer", " NEWCOMER ", "ｎｅｗｃｏｍｅｒ"])
def test_the_one_user_of_that_name_is_found_whatever_its_case_or_width(
    client, members, evaluation, make_user, typed
):
    newcomer = make_user("newcomer")
    client.force_login(members["procurement"])
    response = _add(client, evaluation, typed)
    assert response.status_code == 302
    assert Membership.objects.get(evaluation=evaluation, user=newcomer).role == "engineer"


def test_two_users_differing_only_in_case_are_not_guessed_between(
    client, members, evaluation, make_user
):
    make_user("Lee")
    make_user("lee")
    client.force_login(members["procurement"])
    response = _add(client, evaluation, "LEE")
    assert response.status_code == 422
    assert "No active user has this username." in response.text
    assert _add(client, evaluation, "Lee").status_code == 302  # the exact name still works
