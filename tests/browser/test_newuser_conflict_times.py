"""A questionnaire conflict and the page's own save state give their times in one zone, named:
"Draft saved at 19:28" (the browser's clock) stood above "changed this item at 06/12/2026 11:28"
(the portal's zone, unnamed) for two saves a minute apart."""

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from portal.models import Answer

pytestmark = pytest.mark.browser

QUESTIONNAIRE = "/evaluations/1/candidates/4/questionnaire/"


def test_the_conflict_and_the_save_state_name_the_same_zone(portal, browser):
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    # The other tab's browser runs on another clock than the portal's zone.
    elsewhere = browser.new_context(timezone_id="Asia/Shanghai", locale="en-US")
    other = elsewhere.new_page()
    other.context.add_cookies(page.context.cookies())
    other.goto(portal.url(QUESTIONNAIRE), wait_until="domcontentloaded")
    other.fill("[name='item-1-claim']", "Theirs: 64 MIG slices")
    expect(other.locator("#save-state")).to_contain_text("Draft saved", timeout=8_000)
    saved_at = other.locator("#save-state").inner_text()
    elsewhere.close()

    page.fill("[name='item-1-claim']", "Mine: 8x H100")
    conflict = page.locator("#entry-1 .conflict")
    expect(conflict).to_be_visible(timeout=8_000)
    message = conflict.locator("p").first.inner_text()
    stored = timezone.localtime(Answer.objects.get(candidate_id=4, item__number=1).updated_at)
    assert f"{stored:%Y-%m-%d %H:%M} {stored.tzname()}" in message, message
    # The other tab said the same clock time (its answer came a moment after the save), with
    # the zone.
    minutes = {f"{stored + dt.timedelta(minutes=m):%H:%M}" for m in (0, 1)}
    assert any(m in saved_at for m in minutes), (saved_at, minutes)
    # A 24-hour clock, as the conflict's, at every hour of the day: "01:36 PM" beside "13:36".
    assert "AM" not in saved_at and "PM" not in saved_at, saved_at
    assert stored.tzname() in saved_at, saved_at
