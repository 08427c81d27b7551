"""Procurement describes two workloads on the portfolio page and sees the proposal beside the
best single-vendor choice (issue #16)."""

import pytest
from playwright.sync_api import expect

from portal.models import Evaluation, Workload
from portal.services.portfolio import portfolio_propose
from portal.templatetags.portal_tags import billing_label, num

pytestmark = pytest.mark.browser


def _add_workload(portal, **values) -> None:
    page = portal.page
    for name, value in values.items():
        field = page.locator(f"#workload-form [name=w-{name}]")
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(str(value))
    with portal.navigation():
        page.get_by_role("button", name="Add workload", exact=True).click()
    expect(page.locator("ul.messages")).to_contain_text("Workload added.")


def test_procurement_builds_a_two_workload_evaluation_and_views_the_proposal(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto("/evaluations/1/")
    with portal.navigation():
        page.get_by_role("link", name="Portfolio", exact=True).click()
    expect(page.locator("h1")).to_have_text("Portfolio")
    expect(page.locator("#proposal")).to_have_count(0)  # no workloads: single-workload as today

    _add_workload(portal, name="pre-training", profile="pretraining", gpus=64, duration_days=30)
    _add_workload(
        portal,
        name="notebooks",
        profile="development",
        gpus=8,
        duration_days=30,
        tolerates_preemption=True,
    )
    evaluation = Evaluation.objects.get(pk=1)
    assert list(Workload.objects.filter(evaluation=evaluation).values_list("name", flat=True)) == [
        "pre-training",
        "notebooks",
    ]
    expect(page.locator("#workloads tbody tr")).to_have_count(2)

    result = portfolio_propose(evaluation=evaluation).result
    assert result.proposal is not None, "the demo data no longer makes this test meaningful"
    expect(page.locator("#comparison tbody tr").first).to_contain_text("pre-training")
    expect(page.locator("#proposal-total")).to_have_text(num(result.proposal.total, 0))
    if result.single is not None:
        expect(page.locator("#single-total")).to_have_text(num(result.single.total, 0))
        expect(page.locator("#saving")).to_contain_text(num(result.saving_cny, 0))
    for line in result.proposal.lines:
        expect(page.locator("#comparison tbody")).to_contain_text(billing_label(line.billing_model))
    portal.assert_no_js_errors()
