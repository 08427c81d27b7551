"""Production error answers: a translated 500 page built on the base template that reads
nothing (no session, user or database), JSON under /api/ (a DRF view's unexpected error, a
URL outside the API's routes), and a stale-CSRF page that says nothing was saved and gives the
typed text back read-only, never sending it again."""

import html
import re

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from portal.models import DecisionRecord
from portal.views import errors

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
SERVER_ERROR = "Something went wrong on our side"
SERVER_ERROR_ZH = "服务器端出错了"
EXPIRED = "Nothing was saved: the page had expired"
EXPIRED_ZH = "未保存任何内容：页面已过期"


class Boom(RuntimeError):
    pass


def _explode(*args, **kwargs):
    raise Boom("a bug")


@pytest.fixture
def crashing_client(demo, monkeypatch):
    """The manager, on pages whose code fails: the dashboard's results and the API's me/."""
    from portal.api.views.catalogue import MeView
    from portal.views import dashboard

    monkeypatch.setattr(dashboard, "results_html", _explode)
    monkeypatch.setattr(MeView, "get", _explode)
    client = Client(raise_request_exception=False)
    assert client.login(username="manager", password="decide-gpus-2026")
    return client


def test_a_page_error_is_the_translated_500_page(crashing_client):
    response = crashing_client.get(reverse("evaluation-detail", args=[DEMO_EVALUATION]))
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")
    text = html.unescape(response.content.decode())
    assert SERVER_ERROR in text
    assert "Server Error (500)" not in text
    assert 'class="topbar"' in text and "portal/portal.css" in text  # the base template
    assert "a bug" not in text  # nothing of the error itself
    chinese = crashing_client.get(
        reverse("evaluation-detail", args=[DEMO_EVALUATION]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert chinese.status_code == 500
    assert SERVER_ERROR_ZH in html.unescape(chinese.content.decode())


def test_the_500_page_reads_nothing_from_the_database(
    rf: RequestFactory, django_assert_num_queries
):
    request = rf.get("/evaluations/1/")
    with django_assert_num_queries(0):
        response = errors.server_error(request)
    assert response.status_code == 500
    assert SERVER_ERROR in html.unescape(response.content.decode())


def test_an_api_error_is_json(crashing_client):
    response = crashing_client.get(reverse("api-me"))
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    detail = response.json()["detail"]
    assert "could not answer" in detail and "a bug" not in detail
    chinese = crashing_client.get(reverse("api-me"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert chinese.json()["detail"] != detail


def test_urls_under_api_outside_its_routes_answer_json(client, members):
    client.force_login(members["manager"])
    response = client.get("/api/nope/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}
    page = client.get("/nope/")
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")
    assert "This page does not exist" in page.content.decode()


def test_a_bad_request_is_json_under_api_and_a_translated_page_elsewhere(client):
    # A host not allowed: Django refuses the request as suspicious (400) before any view.
    response = client.get("/api/v1/me/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "The request could not be read."}
    page = client.get("/", HTTP_HOST="evil.example", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert page.status_code == 400
    assert "无法读取该请求" in page.content.decode()


@pytest.fixture
def manager_with_csrf(demo):
    client = Client(enforce_csrf_checks=True)
    assert client.login(username="manager", password="decide-gpus-2026")
    return client


RATIONALE = (
    'Best fabric & price <script>alert("x")</script>; '
    + "the longer reasoning the manager typed for twenty minutes. " * 40
)


def _stale_post(client, **headers):
    url = reverse("evaluation-decision", args=[DEMO_EVALUATION])
    data = {
        "candidate": "1",
        "rationale": RATIONALE,
        "csrfmiddlewaretoken": "stale" * 12 + "abcd",
    }
    return client.post(url, data, **headers)


def test_a_stale_csrf_token_gives_the_typed_text_back_read_only(manager_with_csrf):
    decisions = DecisionRecord.objects.count()
    response = _stale_post(
        manager_with_csrf, HTTP_REFERER="http://testserver/evaluations/1/decision/"
    )
    assert response.status_code == 403
    body = response.content.decode()
    assert EXPIRED in html.unescape(body)
    # The rationale, escaped, in a read-only text area that no form sends.
    area = re.search(
        r'<label for="(sent-\d+)">Rationale</label>\s*(<textarea[^>]*>)(.*?)</textarea>', body, re.S
    )
    assert area is not None
    assert "readonly" in area.group(2) and "name=" not in area.group(2)
    assert html.unescape(area.group(3)) == RATIONALE
    assert "<script>alert" not in body
    assert "&lt;script&gt;alert" in body
    # Nothing of the stale token, nothing sent again, and a link back to the form.
    assert "stalestale" not in body
    sent = body.split('class="sent-fields"', 1)[1]
    assert "<form" not in sent
    assert 'href="http://testserver/evaluations/1/decision/"' in body
    assert DecisionRecord.objects.count() == decisions


def test_the_stale_csrf_page_is_translated(manager_with_csrf):
    response = _stale_post(manager_with_csrf, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 403
    body = html.unescape(response.content.decode())
    assert EXPIRED_ZH in body
    # The fields are named as their form names them, in Chinese (not "rationale").
    labels = re.findall(r'<label for="sent-\d+">([^<]*)</label>', body)
    assert labels and not any(re.search(r"[a-z]{4,}", label) for label in labels), labels


def test_signed_out_the_page_says_so_and_links_the_sign_in(demo):
    client = Client(enforce_csrf_checks=True)
    decisions = DecisionRecord.objects.count()
    response = _stale_post(client)
    assert response.status_code == 403
    text = html.unescape(response.content.decode())
    assert "Your session ended" in text
    assert reverse("login") + "?next=" in text
    assert DecisionRecord.objects.count() == decisions


def test_a_password_is_never_shown_back(demo):
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        reverse("login"),
        {"username": "manager", "password": "decide-gpus-2026", "csrfmiddlewaretoken": "x" * 64},
    )
    assert response.status_code == 403
    body = response.content.decode()
    assert "decide-gpus-2026" not in body
    assert ">manager</textarea>" in body


def test_a_referer_from_elsewhere_is_not_linked(manager_with_csrf):
    response = _stale_post(manager_with_csrf, HTTP_REFERER="https://evil.example/form")
    body = response.content.decode()
    assert "evil.example" not in body
    assert f'href="{reverse("evaluation-decision", args=[DEMO_EVALUATION])}"' in body


def test_the_sent_fields_are_named_as_their_forms_name_them(db):
    """The expired page listed raw input names ("name", "item-3-claim"; found by a trust
    review): each is named as its form labels it, in the reader's language."""
    from django.utils import translation

    from portal.views.form_replay import field_label

    with translation.override("en"):
        assert field_label("item-3-claim") == "Checklist item 3: claim"
        assert field_label("w_network") == "Weight: Network"
        assert field_label("rationale") == "Rationale"
        assert field_label("candidate") == "Candidate"
        assert field_label("form-0-price_per_gpu") == field_label("price_per_gpu")
        assert field_label("no_such_field") == "No such field"
    with translation.override("zh-hans"):
        assert field_label("item-3-notes") == "检查项 3：备注"
        assert field_label("rationale") == "决策理由"
