"""Keyset pages refuse a forged cursor position as they refuse a garbage cursor: a JSON 404
"Invalid cursor", never a 500 from the query (``p=abc`` and ``p=1e5`` reached the database as
the primary key to start from)."""

import base64

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from portal.services.tokens import upload_token_create

pytestmark = pytest.mark.django_db

LISTS = ["api-upload-list", "api-measurement-list", "api-score-list", "api-upload-token-list"]
FORGED = [
    "p=abc",
    "p=1e5",
    "p=",
    "p=-1",
    "p=1.5",
    "p=%20 1",
    "p=99999999999999999999",
    "p=9223372036854775808",
    "o=1&p=abc",
    "r=1&p=0x10",
]


@pytest.fixture
def procurement_api(members):
    client = APIClient()
    client.force_login(members["procurement"])
    return client


def _cursor(querystring: str) -> str:
    return base64.b64encode(querystring.encode()).decode()


@pytest.mark.parametrize("name", LISTS)
@pytest.mark.parametrize("querystring", FORGED)
def test_a_forged_cursor_position_is_an_invalid_cursor(
    procurement_api, evaluation, name, querystring
):
    url = reverse(name, args=[evaluation.pk])
    response = procurement_api.get(url, {"cursor": _cursor(querystring)})
    assert response.status_code == 404, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"detail": "Invalid cursor"}


@pytest.mark.parametrize("name", LISTS)
def test_a_garbage_cursor_answers_the_same(procurement_api, evaluation, name):
    response = procurement_api.get(reverse(name, args=[evaluation.pk]), {"cursor": "%%%not-base64"})
    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid cursor"}


def test_the_cursors_the_api_hands_out_still_work(procurement_api, evaluation, candidate, members):
    for _ in range(3):
        upload_token_create(candidate=candidate, created_by=members["procurement"])
    url = reverse("api-upload-token-list", args=[evaluation.pk])
    first = procurement_api.get(url, {"page_size": 2}).json()
    assert len(first["results"]) == 2
    second = procurement_api.get(first["next"])
    assert second.status_code == 200
    assert len(second.json()["results"]) == 1
    back = procurement_api.get(second.json()["previous"]).json()
    assert [t["id"] for t in back["results"]] == [t["id"] for t in first["results"]]
    # A well-formed position past every row is an empty page, not an error.
    empty = procurement_api.get(url, {"cursor": _cursor("p=1")})
    assert empty.status_code == 200
    assert empty.json()["results"] == []
