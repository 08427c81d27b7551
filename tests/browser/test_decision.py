"""The manager records the decision once; afterwards the record is shown and never a form."""

import pytest
from playwright.sync_api import expect

from portal.models import DecisionRecord, Evaluation, EvaluationStatus

pytestmark = pytest.mark.browser

RATIONALE = "Best measured bus bandwidth and full control over the nodes."


def test_manager_records_a_decision_and_the_evaluation_is_decided(portal):
    page = portal.page
    portal.login("manager")
    portal.goto("/evaluations/1/")
    expect(page.locator("h1 .badge")).to_have_text("Open")

    with portal.navigation():
        page.get_by_role("link", name="Decision", exact=True).click()
    choice = page.locator("select[name=candidate] option").first
    chosen_id = int(choice.get_attribute("value"))
    page.select_option("select[name=candidate]", str(chosen_id))
    page.fill("textarea[name=rationale]", RATIONALE)
    with portal.navigation():
        page.get_by_role("button", name="Record the decision").click()

    expect(page.locator("ul.messages")).to_contain_text("The decision is recorded.")
    record = page.locator("section.decision-record")
    expect(record).to_be_visible()
    expect(record.locator("h2")).to_contain_text("Chosen:")
    expect(record.locator(".rationale")).to_have_text(RATIONALE)
    expect(record).to_contain_text("Morgan Manager")
    expect(page.locator("select[name=candidate]")).to_have_count(0)
    expect(page.get_by_role("button", name="Record the decision")).to_have_count(0)

    decision = DecisionRecord.objects.get(evaluation_id=1)
    assert decision.rationale == RATIONALE
    assert decision.candidate_id == chosen_id
    expect(record.locator("h2")).to_have_text(f"Chosen: {decision.candidate}")
    assert Evaluation.objects.get(pk=1).status == EvaluationStatus.DECIDED

    # The dashboard says so and links to the record; opening it again offers no form.
    portal.goto("/evaluations/1/")
    expect(page.locator("h1 .badge")).to_have_text("Decided")
    with portal.navigation():
        page.get_by_role("link", name="Decision record").click()
    expect(page.locator("section.decision-record .rationale")).to_have_text(RATIONALE)
    # Only the reopen form (a new round, with a reason) remains; no decision form.
    expect(page.locator("main form:not(.reopen)")).to_have_count(0)
    portal.assert_no_js_errors()
    portal.screenshot("record")

    # In Chinese too.
    portal.goto("/evaluations/1/")
    with portal.navigation():
        page.select_option("select#language-select", "zh-hans")
    expect(page.locator("h1 .badge")).to_have_text("已决策")
