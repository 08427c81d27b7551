"""The manager tries other weights: the ranking changes in place; saving records them."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from portal import selectors
from portal.models import Evaluation

pytestmark = pytest.mark.browser

DIMENSIONS = ("stability", "network", "storage", "security", "cost", "support")
NAMES = "table.ranking tbody tr:not(.knockout-row) td:nth-child(2) a"


def _order(evaluation, weights=None) -> list[str]:
    """The ranking's candidate names, top to bottom (disqualified ones below the others)."""
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation, weights=weights)
    names = []
    for result in ranking.results:
        offering = candidates[result.candidate_id].offering
        names.append(f"{offering.vendor.name} · {offering.name}")
    return names


def _expect_order(page, names: list[str]) -> None:
    expect(page.locator(NAMES)).to_have_text(names)


def test_manager_changes_weights_and_the_ranking_changes_in_place(portal):
    page = portal.page
    evaluation = Evaluation.objects.get(pk=1)
    cost_only = {d: Decimal(100 if d == "cost" else 0) for d in DIMENSIONS}
    saved_order, cost_order = _order(evaluation), _order(evaluation, cost_only)
    assert saved_order != cost_order, "the demo data no longer makes this test meaningful"

    portal.login("manager")
    portal.goto("/evaluations/1/weights/")
    portal.wait_for_charts(minimum=6)
    _expect_order(page, saved_order)
    page.evaluate("window.__notReloaded = true")

    cost_header = page.locator("table.ranking thead th", has_text="Cost").first
    for dimension in DIMENSIONS:
        number = page.locator(f"#weights-form input.weight-number[name=w_{dimension}]")
        number.fill(str(cost_only[dimension]))
    # The slider beside each number follows it.
    expect(page.locator("#weights-form input[type=range]").nth(4)).to_have_value("100")

    # htmx asks for the what-if ranking and swaps it into #results.
    expect(cost_header).to_contain_text("100 %")
    _expect_order(page, cost_order)
    assert page.evaluate("window.__notReloaded") is True
    assert page.url == portal.url("/evaluations/1/weights/")
    assert portal.wait_for_charts(minimum=6) == 6
    # What-if only: nothing saved yet.
    evaluation.refresh_from_db()
    assert evaluation.weight_cost != Decimal(100) or evaluation.weight_stability != 0

    with portal.navigation():
        page.get_by_role("button", name="Save weights", exact=True).click()
    expect(page.locator("ul.messages")).to_contain_text("Weights saved.")
    _expect_order(page, cost_order)
    expect(page.locator("#weights-form [name=w_cost]")).to_have_value("100.0")
    evaluation.refresh_from_db()
    # Stored in percent, as typed.
    assert evaluation.weights == cost_only
    portal.assert_no_js_errors()
