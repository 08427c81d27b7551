"""A long text pasted into a text area is never cut short by the browser: the areas carry no
``maxlength`` (pasting 12,000 characters into a questionnaire note kept 10,000 and the autosave
said "Draft saved"); the server refuses a text past its limit, saying how long it is, and
nothing is saved."""

import json
import re

import pytest
from django.urls import reverse

from portal.models import Answer

pytestmark = pytest.mark.django_db

PAGES = [
    ("procurement", "/evaluations/new/"),
    ("procurement", "/evaluations/1/edit/"),
    ("procurement", "/evaluations/1/candidates/1/questionnaire/"),
    ("procurement", "/evaluations/1/candidates/1/review/"),
    ("manager", "/evaluations/2/decision/"),
]


@pytest.mark.parametrize(("role", "path"), PAGES)
def test_no_text_area_lets_the_browser_cut_a_paste(as_role, role, path):
    html = as_role(role).get(path).content.decode()
    areas = re.findall(r"<textarea[^>]*>", html)
    assert areas
    assert [a for a in areas if "maxlength" in a] == []


def test_a_note_past_the_limit_is_refused_saying_how_long_it_is(as_role):
    client = as_role("procurement")
    before = Answer.objects.get(candidate_id=1, item__number=5).notes
    response = client.post(
        reverse("candidate-questionnaire", args=[1, 1]),
        {"item-5-notes": "y" * 12_000, "autosave": "1"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 422
    errors = json.loads(response.content)["errors"]["item-5-notes"]
    assert errors == ["Ensure this value has at most 10000 characters (it has 12000)."]
    assert Answer.objects.get(candidate_id=1, item__number=5).notes == before
