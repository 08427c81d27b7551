"""Procurement fills the questionnaire in one go: all ten items, an attachment, one "Save all";
the count follows the inputs, drafts are autosaved, leaving with unsaved input asks first, and a
negative number is refused next to its field with nothing saved."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from portal.models import Answer, AnswerAttachment, VerificationStatus

pytestmark = pytest.mark.browser

# Demo candidate 4 (MIG slices) has answered 9 of the 10 items: item 10 (POC window) is open.
QUESTIONNAIRE = "/evaluations/1/candidates/4/questionnaire/"


def _answer(number: int) -> Answer:
    return Answer.objects.get(candidate_id=4, item__number=number)


def test_procurement_fills_all_ten_items_and_an_attachment_in_one_go(portal, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    progress = page.locator("#progress")
    expect(progress).to_have_text("9/10 answered")
    # Legacy free text in the typed items is shown, not blanked.
    expect(page.locator("[name='item-9-claim']")).to_have_value(_answer(9).claim)
    expect(page.locator("[name='item-2-claim'] option:checked")).to_contain_text("As stored:")

    # Item 10 first: the count follows the input before anything is saved.
    page.fill("[name='item-10-claim']", "14")
    expect(progress).to_have_text("10/10 answered")
    page.fill("[name='item-10-claim']", "")
    expect(progress).to_have_text("9/10 answered")

    texts = {1: "MIG 3g.40gb, 64 slices", 3: "25 GbE", 4: "0.5 TiB", 5: "NFS", 6: "None."}
    for number, text in texts.items():
        page.fill(f"[name='item-{number}-claim']", text)
    page.select_option("[name='item-2-claim']", "none")
    page.select_option("[name='item-8-claim']", "none")
    page.fill("[name='item-9-claim']", "150000")
    page.fill("[name='item-10-claim']", "14")
    page.fill("[name='item-7-claim']", "99.5 %, best effort")
    page.fill("[name='item-7-notes']", "SLA attached.")
    page.set_input_files(
        "[name='item-7-attachment']",
        files=[{"name": "sla.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.7 SLA"}],
    )
    expect(progress).to_have_text("10/10 answered")

    # Leaving now asks first (the attachment is not saved yet, whatever the autosave did).
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.type), d.dismiss()))
    page.evaluate("window.__stay = true")
    page.locator("nav.tabs a", has_text="Scores and evidence").click()
    page.wait_for_timeout(500)
    assert dialogs == ["beforeunload"]
    assert page.evaluate("window.__stay") is True

    with (
        page.expect_response(
            lambda r: r.request.method == "POST" and "autosave" not in (r.request.post_data or "")
        ) as posted,
        portal.navigation(),
    ):
        page.get_by_role("button", name="Save all").click()
    assert posted.value.status == 200
    expect(page.locator(".messages")).to_contain_text("All answers saved.")
    expect(progress).to_have_text("10/10 answered")
    expect(page.locator("#entry-7 .attachments")).to_contain_text("sla.pdf")
    expect(page.locator("[name='item-2-claim']")).to_have_value("none")
    expect(page.locator("[name='item-10-claim']")).to_have_value("14")

    assert _answer(1).claim == texts[1]
    assert _answer(2).value == "none" and _answer(8).value == "none"
    assert Decimal(_answer(9).value) == 150000 and Decimal(_answer(10).value) == 14
    assert _answer(10).status == VerificationStatus.CLAIMED
    attachment = AnswerAttachment.objects.get(answer__candidate_id=4)
    assert attachment.answer.item.number == 7 and attachment.original_name == "sla.pdf"

    # Saved: leaving no longer asks.
    with portal.navigation():
        page.locator("nav.tabs a", has_text="Scores and evidence").click()
    assert dialogs == ["beforeunload"]
    portal.assert_no_js_errors()


def test_a_draft_is_autosaved_a_moment_after_typing(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.fill("[name='item-10-notes']", "Two nodes for two weeks.")
    assert posted.value.status == 200
    expect(page.locator("#save-state")).to_contain_text("Draft saved")
    assert _answer(10).notes == "Two nodes for two weeks."
    # The item 9 claim (legacy free text) was not touched by the autosave.
    assert _answer(9).value is None and _answer(9).claim.startswith("Approx.")
    portal.assert_no_js_errors()


def test_a_negative_number_shows_a_message_at_the_field_and_saves_nothing(portal):
    """Numbers are typed in text boxes (inputmode decimal): the browser sends what was typed
    and the server's field refuses it, by the field, with the text kept; nothing is saved."""
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    before = _answer(10)

    field = page.locator("[name='item-10-claim']")
    assert field.get_attribute("type") == "text"
    assert field.get_attribute("inputmode") == "decimal"
    field.fill("-5")
    page.get_by_role("button", name="Save all").click()
    error = page.locator("#entry-10 .field-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("greater than or equal to 0")
    claim_paragraph = page.locator("#entry-10 p.field:has([name='item-10-claim'])")
    expect(claim_paragraph.locator(".field-error")).to_have_count(1)
    # What was typed is still in the box.
    expect(page.locator("[name='item-10-claim']")).to_have_value("-5")

    after = _answer(10)
    assert (after.claim, after.value, after.status) == (before.claim, before.value, before.status)
    assert after.history.count() == before.history.count()
    # The only console messages are the browser's notes of the refusals (422) themselves.
    assert [e for e in portal.js_errors if "422" not in e] == []


def test_a_contradicted_item_is_counted_apart_until_its_answer_changes(portal):
    """Item 7 (SLA) contradicted by an engineer's document review: not answered, whatever its
    claim says, while typing; changed and autosaved, the review no longer applies, and the badge
    and the count say so."""
    from django.contrib.auth import get_user_model

    from portal.services.reviews import answer_review

    engineer = get_user_model().objects.get(username="engineer")
    answer_review(answer=_answer(7), verdict="contradicted", note="No credits.", by=engineer)
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    progress = page.locator("#progress")
    pending = (
        "8/10 answered · 1 contradicted by the evidence or a review: take it up with the vendor"
    )
    expect(progress).to_have_text(pending)
    expect(page.locator("#entry-7 .answer-status")).to_have_text("Contradicted")
    # Typing into an open item counts it; the contradicted one stays apart.
    page.fill("[name='item-10-claim']", "14")
    expect(progress).to_have_text(pending.replace("8/10", "9/10"))
    page.fill("[name='item-10-claim']", "")
    expect(progress).to_have_text(pending)

    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.fill("[name='item-7-claim']", "99.9 %, 10 % credit per hour down")
    assert posted.value.status == 200
    expect(page.locator("#entry-7 .answer-status")).to_have_text("Claimed")
    expect(progress).to_have_text("9/10 answered")
    assert _answer(7).status == VerificationStatus.CLAIMED
    portal.assert_no_js_errors()
