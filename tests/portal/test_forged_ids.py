"""Ids an attacker forges (too long for a row, not a number) get the uniform 404, never a 500."""

import pytest
from django.urls import Resolver404, resolve, reverse

from portal.models import Membership


@pytest.mark.parametrize(
    "path",
    [
        "/evaluations/99999999999999999999999/",
        "/evaluations/1/candidates/99999999999999999999999/",
        "/evaluations/1/uploads/99999999999999999999999/download/",
        "/offerings/99999999999999999999999/",
    ],
)
def test_an_id_longer_than_a_row_id_matches_no_route(path):
    with pytest.raises(Resolver404):
        resolve(path)


def test_an_id_of_a_row_still_resolves():
    assert resolve("/evaluations/123456789012345678/").kwargs["pk"] == 123456789012345678
    assert reverse("evaluation-detail", args=[42]) == "/evaluations/42/"


def test_an_overlong_evaluation_id_is_a_404_page(client, members, evaluation):
    client.force_login(members["viewer"])
    response = client.get("/evaluations/99999999999999999999999/")
    assert response.status_code == 404


def test_an_overlong_api_id_is_the_apis_404(client, members, evaluation):
    client.force_login(members["viewer"])
    response = client.get("/api/v1/evidence/99999999999999999999999/")
    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("forged", ["abc", "1 OR 1=1", "9" * 40, "-1", ""])
@pytest.mark.parametrize("action", ["role", "remove"])
def test_a_forged_member_id_is_a_404_and_changes_nothing(
    client, members, evaluation, forged, action
):
    client.force_login(members["procurement"])
    before = list(Membership.objects.order_by("pk").values_list("pk", "role"))
    response = client.post(
        reverse("evaluation-members", args=[evaluation.pk]),
        {"action": action, "member": forged, "role": "viewer"},
    )
    assert response.status_code == 404
    assert list(Membership.objects.order_by("pk").values_list("pk", "role")) == before
