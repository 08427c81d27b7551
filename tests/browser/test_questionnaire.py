"""Procurement answers questionnaire items in place; a negative number is refused."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from portal.models import Answer, VerificationStatus

pytestmark = pytest.mark.browser

# Demo candidate 4 (MIG slices) has answered 9 of the 10 items: item 10 (POC window) is open.
QUESTIONNAIRE = "/evaluations/1/candidates/4/questionnaire/"


def _answer(number: int) -> Answer:
    return Answer.objects.get(candidate_id=4, item__number=number)


def test_procurement_saves_a_number_and_a_choice_answer_in_place(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    expect(page.locator("#progress")).to_have_text("9/10 answered")
    page.evaluate("window.__notReloaded = true")

    entry = page.locator("form#entry-10")
    expect(entry.locator("h2 .cell")).to_have_text("Unanswered")
    entry.locator("[name='item-10-claim']").fill("14")
    entry.locator("[name='item-10-notes']").fill("Two nodes for two weeks.")
    with page.expect_response(lambda r: r.url.endswith("/questionnaire/10/")) as posted:
        entry.get_by_role("button", name="Save draft").click()
    assert posted.value.status == 200
    entry = page.locator("form#entry-10")  # htmx swapped the whole form
    expect(entry.locator(".saved")).to_have_text("Saved · 10/10 answered")
    expect(entry.locator("h2 .cell")).to_have_text("Claimed")
    expect(entry.locator("[name='item-10-claim']")).to_have_value("14")

    answer = _answer(10)
    assert answer.status == VerificationStatus.CLAIMED
    assert Decimal(answer.value) == 14
    assert answer.notes == "Two nodes for two weeks."

    entry = page.locator("form#entry-2")
    entry.locator("[name='item-2-claim']").select_option("none")
    with page.expect_response(lambda r: r.url.endswith("/questionnaire/2/")) as posted:
        entry.get_by_role("button", name="Save draft").click()
    assert posted.value.status == 200
    expect(page.locator("form#entry-2 .saved")).to_contain_text("Saved")
    expect(page.locator("form#entry-2 [name='item-2-claim']")).to_have_value("none")
    assert _answer(2).value == "none"

    # Saved in place, without a reload; a fresh page shows the new progress.
    assert page.evaluate("window.__notReloaded") is True
    portal.goto(QUESTIONNAIRE)
    expect(page.locator("#progress")).to_have_text("10/10 answered")
    expect(page.locator("[name='item-10-claim']")).to_have_value("14")
    portal.assert_no_js_errors()


def test_a_negative_number_shows_a_message_at_the_field_and_saves_nothing(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    before = _answer(10)
    posts = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.url))

    entry = page.locator("form#entry-10")
    field = entry.locator("[name='item-10-claim']")
    field.fill("-5")

    # The browser's own check stops the draft before it is sent.
    entry.get_by_role("button", name="Save draft").click()
    assert field.evaluate("el => el.validity.rangeUnderflow") is True
    assert field.evaluate("el => el.validationMessage")
    page.wait_for_timeout(300)
    assert posts == []

    # Without that check (an old browser, a script), the server refuses it and says why, next
    # to the field.
    entry.evaluate("form => { form.noValidate = true; }")
    with page.expect_response(lambda r: r.url.endswith("/questionnaire/10/")) as posted:
        entry.get_by_role("button", name="Save draft").click()
    assert posted.value.status == 422
    error = page.locator("form#entry-10 .field-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("greater than or equal to 0")
    # The message sits in the claim field's paragraph.
    claim_paragraph = page.locator("form#entry-10 p.field:has([name='item-10-claim'])")
    expect(claim_paragraph.locator(".field-error")).to_have_count(1)
    expect(page.locator("form#entry-10 .saved")).to_have_count(0)

    after = _answer(10)
    assert (after.claim, after.value, after.status) == (before.claim, before.value, before.status)
    assert after.history.count() == before.history.count()
