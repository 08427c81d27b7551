"""Pages answer only the methods they serve: a page GET and HEAD, a form page also POST, an
action POST alone; DELETE, PUT, PATCH or TRACE is a 405 with an Allow header and touches
nothing. A GET of the logout address is a page with the sign-out button (a POST with the CSRF
token), not an empty 405."""

import pytest
from django.test import Client
from django.urls import reverse

from portal.models import Candidate, Evaluation, Offering, Vendor

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
ODD_METHODS = ["delete", "put", "patch", "trace"]

# (url name, kwargs, the methods it serves)
SAFE = {"GET", "HEAD"}
FORM = {"GET", "HEAD", "POST"}
PAGES = [
    ("evaluation-list", {}, SAFE),
    ("evaluation-detail", {"pk": 1}, SAFE),
    ("evaluation-results", {"pk": 1}, SAFE),
    ("evaluation-report", {"pk": 1}, SAFE),
    ("evaluation-export", {"pk": 1, "fmt": "csv"}, SAFE),
    ("evaluation-history", {"pk": 1}, SAFE),
    ("candidate-detail", {"pk": 1, "candidate_pk": 1}, SAFE),
    ("candidate-uploads", {"pk": 1, "candidate_pk": 1}, SAFE),
    ("candidate-evidence", {"pk": 1, "candidate_pk": 1}, FORM),
    ("vendor-list", {}, SAFE),
    ("offering-list", {}, SAFE),
    ("evaluation-weights", {"pk": 1}, FORM),
    ("evaluation-decision", {"pk": 1}, FORM),
    ("evaluation-portfolio", {"pk": 1}, FORM),
    ("evaluation-poc", {"pk": 1}, FORM),
    ("evaluation-edit", {"pk": 1}, FORM),
    ("evaluation-members", {"pk": 1}, FORM),
    ("evaluation-create", {}, FORM),
    ("candidate-questionnaire", {"pk": 1, "candidate_pk": 1}, FORM),
    ("candidate-review", {"pk": 1, "candidate_pk": 1}, FORM),
    ("candidate-add", {"pk": 1}, FORM),
    ("candidate-edit", {"pk": 1, "candidate_pk": 1}, FORM),
    ("candidate-remove", {"pk": 1, "candidate_pk": 1}, FORM),
    ("upload-token-list", {"pk": 1, "candidate_pk": 1}, FORM),
    ("vendor-create", {}, FORM),
    ("offering-create", {}, FORM),
    ("notification-settings", {}, FORM),
    ("evaluation-report-pdf", {"pk": 1}, {"POST"}),
]


@pytest.fixture
def procurement(demo):
    client = Client()
    assert client.login(username="procurement", password="procure-gpus-2026")
    return client


def _state():
    return (
        Evaluation.objects.count(),
        Candidate.objects.count(),
        Vendor.objects.count(),
        Offering.objects.count(),
        tuple(Evaluation.objects.get(pk=DEMO_EVALUATION).weights.items()),
    )


@pytest.mark.parametrize("method", ODD_METHODS)
@pytest.mark.parametrize(("name", "kwargs", "allowed"), PAGES, ids=[p[0] for p in PAGES])
def test_a_method_a_page_does_not_serve_is_a_405_with_allow(
    procurement, name, kwargs, allowed, method
):
    url = reverse(name, kwargs=kwargs)
    before = _state()
    response = getattr(procurement, method)(url)
    assert response.status_code == 405, (name, method, response.status_code)
    assert set(response["Allow"].replace(" ", "").split(",")) == allowed
    assert _state() == before


@pytest.mark.parametrize(("name", "kwargs", "allowed"), PAGES, ids=[p[0] for p in PAGES])
def test_the_methods_a_page_serves_still_answer(procurement, name, kwargs, allowed):
    url = reverse(name, kwargs=kwargs)
    if "GET" in allowed:
        assert procurement.get(url).status_code == 200, name
        assert procurement.head(url).status_code == 200, name
    else:
        assert procurement.get(url).status_code == 405
        assert procurement.get(url)["Allow"] == "POST"


def test_a_get_of_the_logout_address_is_a_page_with_the_sign_out_button(procurement):
    url = reverse("logout")
    response = procurement.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Log out?" in body
    form = body.split('<section class="card narrow"', 1)[1].split("</form>", 1)[0]
    assert 'method="post"' in form and f'action="{url}"' in form
    assert 'name="csrfmiddlewaretoken"' in form
    # Still signed in: the GET signed no one out.
    assert procurement.get(reverse("evaluation-list")).status_code == 200
    chinese = procurement.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "确定退出登录？" in chinese


def test_the_logout_post_signs_out_and_odd_methods_are_405(procurement):
    url = reverse("logout")
    deleted = procurement.delete(url)
    assert deleted.status_code == 405
    assert "GET" in deleted["Allow"] and "POST" in deleted["Allow"]
    assert procurement.get(reverse("evaluation-list")).status_code == 200
    assert procurement.post(url).status_code == 302
    assert procurement.get(reverse("evaluation-list")).status_code == 302  # to the login


def test_signed_out_the_logout_page_links_the_login(client):
    response = client.get(reverse("logout"))
    assert response.status_code == 200
    assert "You are signed out" in response.content.decode()
    assert reverse("login") in response.content.decode()


def test_the_readiness_probe_answers_get_and_head_only(client):
    assert client.delete(reverse("readyz")).status_code == 405
    assert client.post(reverse("readyz")).status_code == 405
    assert client.get(reverse("readyz"), {"require": "database"}).status_code == 200
