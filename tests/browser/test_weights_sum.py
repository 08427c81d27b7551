"""Direct weights show their sum live and must make 100, or are scaled visibly; the saved AHP
comparisons come back; a viewer gets read-only controls."""

import pytest
from playwright.sync_api import expect

from portal.models import Evaluation

pytestmark = pytest.mark.browser

VALUES = {"stability": 30, "network": 30, "storage": 20, "security": 10, "cost": 20, "support": 10}


def test_the_sum_is_shown_and_must_make_100_or_be_scaled(portal):
    page = portal.page
    portal.login("manager")
    portal.goto("/evaluations/1/weights/")
    expect(page.locator("#weights-sum-value")).to_have_text("100.0")
    for dimension, value in VALUES.items():
        page.fill(f"#weights-form input.weight-number[name=w_{dimension}]", str(value))
    expect(page.locator("#weights-sum-value")).to_have_text("120.0")
    expect(page.locator("#weights-sum")).to_have_class("weights-sum bad")
    expect(page.locator("[data-share-for=w_stability]")).to_contain_text("25.0 percent")

    with portal.navigation():
        page.get_by_role("button", name="Save weights", exact=True).click()
    expect(page.locator("#weights-form .errors")).to_contain_text("add up to 120 %")
    expect(page.locator("#weights-sum-value")).to_have_text("120.0")  # the input is kept

    page.check("#id_scale")
    with portal.navigation():
        page.get_by_role("button", name="Save weights", exact=True).click()
    expect(page.locator("ul.messages")).to_contain_text("saved scaled to 100 %")
    expect(page.locator("#weights-sum-value")).to_have_text("100.0")
    expect(page.locator("#weights-form [name=w_stability]")).to_have_value("25.0")
    assert Evaluation.objects.get(pk=1).weight_stability == 25
    # The only console message is the browser's note of the refused (422) save.
    assert [e for e in portal.js_errors if "422" not in e] == []


def test_a_viewer_sees_read_only_comparisons(portal):
    page = portal.page
    portal.login("viewer")
    portal.goto("/evaluations/1/weights/")
    expect(page.locator("#weights-read-only")).to_be_visible()
    expect(page.locator("#ahp-form select")).to_have_count(0)
    expect(page.locator("#ahp-form button")).to_have_count(0)
    expect(page.get_by_role("button", name="Save weights")).to_have_count(0)
    portal.assert_no_js_errors()
