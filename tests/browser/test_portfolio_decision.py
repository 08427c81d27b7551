"""Procurement builds a two-workload evaluation; the manager records the proposed portfolio as
the decision and finds every assignment on the decision page and in the report (issue #16)."""

import pytest
from playwright.sync_api import expect

from portal.models import Evaluation, EvaluationStatus
from portal.services.portfolio import portfolio_propose
from portal.templatetags.portal_tags import billing_label, num

from .test_portfolio import _add_workload

pytestmark = pytest.mark.browser


def test_manager_records_a_two_workload_portfolio_and_reads_it_back(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto("/evaluations/1/portfolio/")
    _add_workload(portal, name="pre-training", profile="pretraining", gpus=64, duration_days=30)
    _add_workload(
        portal,
        name="notebooks",
        profile="development",
        gpus=8,
        duration_days=30,
        tolerates_preemption=True,
    )
    expect(page.locator("#record-portfolio")).to_have_count(0)  # managers decide
    evaluation = Evaluation.objects.get(pk=1)
    proposal = portfolio_propose(evaluation=evaluation).result.proposal
    assert proposal is not None, "the demo data no longer makes this test meaningful"
    portal.logout()

    portal.login("manager")
    portal.goto("/evaluations/1/portfolio/")
    form = page.locator("#record-portfolio")
    expect(form.locator("select")).to_have_count(2)
    form.locator("textarea[name=rationale]").fill("Hybrid: metal for training, cloud for notebooks")
    with portal.navigation():
        form.get_by_role("button", name="Record the portfolio decision").click()
    recorded = "The portfolio is recorded as the decision."
    expect(page.locator("ul.messages")).to_contain_text(recorded)
    evaluation.refresh_from_db()
    assert evaluation.status == EvaluationStatus.DECIDED

    for path in ("/evaluations/1/decision/", "/evaluations/1/report/"):
        portal.goto(path)
        section = page.locator("#portfolio-decision")
        expect(section).to_be_visible()
        expect(section.locator("tbody tr")).to_have_count(2)
        for line in proposal.lines:
            expect(section.locator("tbody")).to_contain_text(line.workload_id)
            expect(section.locator("tbody")).to_contain_text(billing_label(line.billing_model))
        expect(page.locator("#portfolio-decision-total")).to_have_text(num(proposal.total, 0))
    portal.assert_no_js_errors()
