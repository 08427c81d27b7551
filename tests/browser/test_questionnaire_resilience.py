"""An hour of typing is never lost: a save after the session ended says so (and keeps the
input in the browser, offered back on the next visit, with a discard button); signing in again
in another tab is enough to save (the CSRF token comes from the cookie); an item another tab
changed meanwhile is refused with both sides shown until the user picks one."""

import pytest
from playwright.sync_api import expect

from portal.models import Answer

from .conftest import PASSWORDS

pytestmark = pytest.mark.browser

QUESTIONNAIRE = "/evaluations/1/candidates/4/questionnaire/"  # demo: item 10 unanswered
DRAFT_KEYS = "() => Object.keys(localStorage).filter((k) => k.startsWith('portal.questionnaire.'))"


def _claim(number: int) -> str:
    answer = Answer.objects.filter(candidate_id=4, item__number=number).first()
    return answer.claim if answer else ""


def _sign_in(page, base_url: str) -> None:
    page.goto(base_url + "/accounts/login/", wait_until="domcontentloaded")
    page.fill("#id_username", "procurement")
    page.fill("#id_password", PASSWORDS["procurement"])
    with page.expect_navigation(wait_until="domcontentloaded"):
        page.click("main button[type=submit]")


def test_a_save_after_the_session_ended_keeps_the_input_until_signed_in_again(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    page.context.clear_cookies(name="sessionid")  # the session expires
    page.fill("[name='item-10-claim']", "14")
    page.fill("[name='item-5-notes']", "Lustre quote pending.")
    expect(page.locator("#save-state")).to_have_text(
        "Your session ended: sign in in another tab, then press Save again.", timeout=8_000
    )
    assert page.evaluate(DRAFT_KEYS) != []
    assert _claim(10) == ""

    # Another tab signs in (a new CSRF token) and opens the page: the kept input is offered.
    other = page.context.new_page()
    _sign_in(other, portal.base_url)
    other.goto(portal.url(QUESTIONNAIRE), wait_until="domcontentloaded")
    expect(other.locator("#restored-notice")).to_be_visible()
    expect(other.locator("[name='item-10-claim']")).to_have_value("14")
    expect(other.locator("[name='item-5-notes']")).to_have_value("Lustre quote pending.")
    other.get_by_role("button", name="Discard it").click()
    expect(other.locator("[name='item-10-claim']")).to_have_value("")
    expect(other.locator("#restored-notice")).to_have_count(0)
    other.close()

    # The first tab still holds the input; Save again now works with the rotated token.
    with portal.navigation():
        page.get_by_role("button", name="Save all").click()
    expect(page.locator(".messages")).to_contain_text("All answers saved.")
    expect(page.locator("[name='item-10-claim']")).to_have_value("14")
    assert _claim(10) == "14"
    assert page.evaluate(DRAFT_KEYS) == []
    expect(page.locator("#restored-notice")).to_have_count(0)
    # The one console error is Chromium logging the refused save's 401 itself.
    assert [e for e in portal.js_errors if "status of 401" not in e] == []


def test_an_item_changed_in_another_tab_is_not_overwritten_and_the_user_picks(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    other = page.context.new_page()
    other.goto(portal.url(QUESTIONNAIRE), wait_until="domcontentloaded")

    other.fill("[name='item-1-claim']", "Theirs: 64 MIG slices")
    expect(other.locator("#save-state")).to_contain_text("Draft saved", timeout=8_000)
    other.close()

    page.fill("[name='item-1-claim']", "Mine: 8x H100")
    page.fill("[name='item-10-claim']", "14")
    conflict = page.locator("#entry-1 .conflict")
    expect(conflict).to_be_visible(timeout=8_000)
    expect(conflict.locator(".theirs-claim")).to_have_text("Theirs: 64 MIG slices")
    expect(page.locator("#save-state")).to_contain_text("someone else changed")
    expect(page.locator("[name='item-1-claim']")).to_have_value("Mine: 8x H100")
    assert _claim(1) == "Theirs: 64 MIG slices" and _claim(10) == "14"

    conflict.get_by_role("button", name="Keep mine").click()
    expect(page.locator("#save-state")).to_contain_text("Draft saved", timeout=8_000)
    expect(conflict).to_have_count(0)
    assert _claim(1) == "Mine: 8x H100"
    assert page.evaluate(DRAFT_KEYS) == []
    # The one console error is Chromium logging the refused item's 409 itself.
    assert [e for e in portal.js_errors if "status of 409" not in e] == []
