"""The questionnaire's autosave keeps what passes: a claim typed wrong in one item is marked,
the items typed beside it are saved (a colleague sees them, another browser too), and once
the wrong one is corrected it is saved as well, without a conflict over the items already
saved."""

import pytest
from playwright.sync_api import expect

from portal.models import Answer

pytestmark = pytest.mark.browser

QUESTIONNAIRE = "/evaluations/1/candidates/4/questionnaire/"


def _claim(number: int) -> str:
    answer = Answer.objects.filter(candidate_id=4, item__number=number).first()
    return answer.claim if answer else ""


def test_a_wrong_figure_in_one_item_does_not_hold_back_the_others(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    page.fill("[name='item-3-claim']", "IB NDR 400, 8 rails, 1:1")
    page.fill("[name='item-9-claim']", "7,500 per GPU-month")
    state = page.locator("#save-state")
    expect(state).to_contain_text("Saved, except the marked fields", timeout=8_000)
    expect(page.locator("#entry-9 .field-error")).to_be_visible()
    assert _claim(3) == "IB NDR 400, 8 rails, 1:1"
    assert _claim(9) != "7,500 per GPU-month"
    portal.screenshot("partial")

    page.fill("[name='item-9-claim']", "7500")
    expect(state).to_contain_text("Draft saved", timeout=8_000)
    expect(page.locator("#entry-9 .field-error")).to_have_count(0)
    expect(page.locator(".conflict")).to_have_count(0)
    assert (_claim(3), _claim(9)) == ("IB NDR 400, 8 rails, 1:1", "7500")
    # Nothing is left waiting in the browser's copy.
    kept = "() => Object.keys(localStorage).filter((k) => k.startsWith('portal.questionnaire.'))"
    assert page.evaluate(kept) == []
    assert [e for e in portal.js_errors if "422" not in e] == []
