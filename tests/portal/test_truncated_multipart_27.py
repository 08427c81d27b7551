"""A multipart form post cut short before its closing boundary is a 400 with a translated
message and saves nothing (Django's parser took such a body as complete and kept whatever
arrived of the last field); a complete post is saved as before, and the API is not affected."""

import html

import pytest
from django.test.client import encode_multipart
from django.urls import reverse

from portal.models import Answer

from .conftest import PASSWORDS
from .test_userday_questionnaire import _page_data

pytestmark = pytest.mark.django_db

CANDIDATE = 3
BOUNDARY = "----portal-test-boundary-27"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"
INCOMPLETE = "The form arrived incomplete"
INCOMPLETE_ZH = "表单到达时不完整"
NOTE = "Quoted by the vendor on 2026-11-30, reference Q-7781, valid 60 days."


@pytest.fixture
def procurement(client, demo):
    assert client.login(username="procurement", password=PASSWORDS["procurement"])
    return client


def _url() -> str:
    return reverse("candidate-questionnaire", args=[1, CANDIDATE])


def _body(client) -> bytes:
    """The page's form as the browser sends it, with a new note typed on item 10 (last)."""
    data = _page_data(client, CANDIDATE)
    data.pop("item-10-notes", None)
    data["item-10-notes"] = NOTE
    return encode_multipart(BOUNDARY, data)


def _stored():
    answers = Answer.objects.filter(candidate_id=CANDIDATE)
    return sorted(answers.values_list("pk", "claim", "value", "notes", "updated_at"))


def _cut(body: bytes) -> dict[str, bytes]:
    closing = f"--{BOUNDARY}--".encode()
    end = body.rindex(closing)
    return {
        "no closing boundary": body[:end],
        "cut inside the last field": body[: body.rindex(NOTE.encode()) + 20],
        "closing boundary cut short": body[: end + len(closing) - 2],
        "cut after the last part's headers": body[: body.rindex(b'name="item-10-notes"') + 25],
    }


@pytest.mark.parametrize(
    "variant",
    [
        "no closing boundary",
        "cut inside the last field",
        "closing boundary cut short",
        "cut after the last part's headers",
    ],
)
def test_a_post_cut_before_its_closing_boundary_is_a_400_and_saves_nothing(procurement, variant):
    body = _cut(_body(procurement))[variant]
    before = _stored()
    response = procurement.generic("POST", _url(), body, content_type=CONTENT_TYPE)
    assert response.status_code == 400, (variant, response.status_code)
    assert response["Content-Type"].startswith("text/html")
    assert INCOMPLETE in html.unescape(response.content.decode())
    assert _stored() == before
    assert not Answer.objects.filter(candidate_id=CANDIDATE, notes=NOTE).exists()


def test_the_message_is_translated_and_json_for_the_autosave(procurement):
    body = _cut(_body(procurement))["no closing boundary"]
    chinese = procurement.generic(
        "POST", _url(), body, content_type=CONTENT_TYPE, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert chinese.status_code == 400
    assert INCOMPLETE_ZH in html.unescape(chinese.content.decode())
    script = procurement.generic(
        "POST", _url(), body, content_type=CONTENT_TYPE, HTTP_ACCEPT="application/json"
    )
    assert script.status_code == 400
    assert script.json()["code"] == "incomplete_body"
    assert not Answer.objects.filter(candidate_id=CANDIDATE, notes=NOTE).exists()


def test_a_complete_post_is_saved(procurement):
    body = _body(procurement)
    response = procurement.generic("POST", _url(), body, content_type=CONTENT_TYPE)
    assert response.status_code == 302, response.content[:300]
    assert Answer.objects.get(candidate_id=CANDIDATE, item__number=10).notes == NOTE


def test_line_breaks_after_the_closing_boundary_are_fine(procurement):
    body = _body(procurement) + b"\r\n\r\n"
    response = procurement.generic("POST", _url(), body, content_type=CONTENT_TYPE)
    assert response.status_code == 302


def test_the_ordinary_test_client_post_still_works(procurement):
    data = {**_page_data(procurement, CANDIDATE), "item-10-notes": NOTE}
    assert procurement.post(_url(), data).status_code == 302
    assert Answer.objects.get(candidate_id=CANDIDATE, item__number=10).notes == NOTE
