"""Procurement opens a new evaluation in the browser, then gives a colleague access."""

import pytest
from playwright.sync_api import expect

from portal.models import Evaluation, Membership, Role

pytestmark = pytest.mark.browser

NAME = "Inference on 4 L40S for 20 days"


def test_procurement_opens_an_evaluation_and_adds_a_member(portal):
    page = portal.page
    portal.login("procurement")
    with portal.navigation():
        page.get_by_role("link", name="New evaluation").click()
    page.fill("input[name=name]", NAME)
    page.select_option("select[name=workload_profile]", "inference")
    page.fill("input[name=required_total_gpus]", "4")
    page.fill("input[name=required_gpu_memory_gib]", "48")
    page.fill("input[name=duration_days]", "20")
    page.fill("input[name=expected_idle_days]", "2")
    with portal.navigation():
        page.get_by_role("button", name="Create evaluation").click()

    evaluation = Evaluation.objects.get(name=NAME)
    assert page.url == portal.url(f"/evaluations/{evaluation.pk}/")
    expect(page.locator("h1")).to_contain_text(NAME)
    expect(page.locator("ul.messages")).to_contain_text("created")

    with portal.navigation():
        page.get_by_role("link", name="Members").click()
    page.fill("input[name=add-username]", "engineer")
    page.select_option("select[name=add-role]", "engineer")
    with portal.navigation():
        page.get_by_role("button", name="Add member").click()
    expect(page.locator("table.members tbody tr")).to_have_count(2)
    expect(page.locator("ul.messages")).to_contain_text("engineer is now a member")
    member = Membership.objects.get(evaluation=evaluation, user__username="engineer")
    assert member.role == Role.ENGINEER
    portal.assert_no_js_errors()
    portal.screenshot()
