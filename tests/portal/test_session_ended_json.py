"""A page's fetch asking for JSON whose session ended, or whose CSRF token is stale, gets a JSON
401/403 with a message the script shows (the input stays on the page), never the login page;
ordinary page requests keep their redirect, and a stale token's form post gets the page that
gives the typed text back (tests/portal/test_error_pages_27.py)."""

import pytest
from django.test import Client
from django.urls import reverse

from portal.models import Answer

from .conftest import PASSWORDS
from .test_userday_questionnaire import _page_data

pytestmark = pytest.mark.django_db

URL = reverse("candidate-questionnaire", args=[1, 4])


def test_an_expired_session_gets_a_json_401_and_nothing_is_saved(client, demo):
    assert client.login(username="procurement", password=PASSWORDS["procurement"])
    data = {**_page_data(client, 4), "item-10-claim": "14", "autosave": "1"}
    client.logout()
    response = client.post(URL, data, HTTP_ACCEPT="application/json")
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "session_ended"
    assert body["detail"] == "Your session ended: sign in in another tab, then press Save again."
    assert not Answer.objects.filter(candidate_id=4, item__number=10).exclude(claim="").exists()
    # In Chinese too.
    response = client.post(
        URL, data, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.json()["detail"].startswith("你的登录已失效")


def test_a_page_request_without_a_session_gets_html_not_json(client, demo):
    # A form post is the "nothing was saved" page (a 401 giving back what it sent, user review
    # 8), not the script's JSON; a page asked for goes to the login page.
    response = client.post(URL, {"autosave": "1", "item-4-claim": "4x 3.84 TB NVMe"})
    assert response.status_code == 401 and response["Content-Type"].startswith("text/html")
    assert "4x 3.84 TB NVMe" in response.content.decode()
    assert client.get(URL, HTTP_ACCEPT="text/html").status_code == 302


def _csrf_client(demo) -> Client:
    client = Client(enforce_csrf_checks=True)
    assert client.login(username="procurement", password=PASSWORDS["procurement"])
    return client


def test_a_stale_csrf_token_gets_a_json_403(demo):
    client = _csrf_client(demo)
    data = {**_page_data(client, 4), "item-10-claim": "14", "autosave": "1"}
    data["csrfmiddlewaretoken"] = "x" * 64
    response = client.post(URL, data, HTTP_ACCEPT="application/json")
    assert response.status_code == 403
    assert response.json()["code"] == "csrf_failed"
    assert "press Save again" in response.json()["detail"]
    # The page's own form post gets the stale-token page (HTML).
    response = client.post(URL, data)
    assert response.status_code == 403 and response["Content-Type"].startswith("text/html")


def test_signed_out_with_a_stale_token_is_told_the_session_ended(demo):
    client = Client(enforce_csrf_checks=True)
    response = client.post(URL, {"autosave": "1"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 401 and response.json()["code"] == "session_ended"


def test_the_token_read_from_the_cookie_after_a_new_sign_in_is_accepted(demo):
    client = _csrf_client(demo)
    data = {**_page_data(client, 4), "item-10-claim": "14", "autosave": "1"}
    client.logout()
    assert client.login(username="procurement", password=PASSWORDS["procurement"])
    client.get(URL)  # the page sets the (rotated) cookie
    token = client.cookies["csrftoken"].value
    data.pop("csrfmiddlewaretoken", None)
    response = client.post(URL, data, HTTP_ACCEPT="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200, response.content[:300]
    assert Answer.objects.get(candidate_id=4, item__number=10).claim == "14"
