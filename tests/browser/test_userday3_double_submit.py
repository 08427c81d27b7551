"""A double click on a form's button posts it once: "Create evaluation" pressed twice 50 ms apart
created two evaluations, "Create token" two tokens. After the back button the form posts
again (the guard is the page's, not the form's for ever)."""

import pytest
from playwright.sync_api import expect

from portal.models import Evaluation, UploadToken

pytestmark = pytest.mark.browser

TWICE = """(delay) => {
  const button = document.querySelector('main form button[type=submit]');
  button.click();
  setTimeout(() => button.click(), delay);
}"""


def test_a_double_click_on_create_evaluation_creates_one(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto("/evaluations/new/")
    page.fill("#id_name", "Clicked twice")
    page.select_option("#id_workload_profile", "finetuning")
    page.fill("#id_required_total_gpus", "8")
    page.fill("#id_duration_days", "10")
    with portal.navigation():
        page.evaluate(TWICE, 50)
    expect(page.locator("h1")).to_contain_text("Clicked twice")
    page.wait_for_timeout(500)
    assert Evaluation.objects.filter(name="Clicked twice").count() == 1


def test_a_double_click_on_create_token_makes_one_and_back_allows_another(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto("/evaluations/1/candidates/1/tokens/")
    before = UploadToken.objects.filter(candidate_id=1).count()
    with portal.navigation():
        page.evaluate(
            """() => {
              const button = document.querySelector('main form.page-form button[type=submit]');
              button.click();
              setTimeout(() => button.click(), 50);
            }"""
        )
    expect(page.locator("#raw-token")).to_be_visible()
    page.wait_for_timeout(500)
    assert UploadToken.objects.filter(candidate_id=1).count() == before + 1

    # A form shown again by the back button posts again when pressed again.
    portal.goto("/evaluations/1/candidates/1/")
    page.go_back(wait_until="domcontentloaded")
    with portal.navigation():
        page.locator("main form.page-form button[type=submit]").click()
    page.wait_for_timeout(300)
    assert UploadToken.objects.filter(candidate_id=1).count() == before + 2
