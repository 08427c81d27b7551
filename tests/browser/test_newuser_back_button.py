"""The back button after "Create evaluation" brings the filled page back; pressing the button
again answers with the evaluation the first press created, instead of a second, identical one
that no page can delete. Changed on purpose and pressed, it is a new evaluation."""

import pytest
from playwright.sync_api import expect

from portal.models import Evaluation

pytestmark = pytest.mark.browser


def _fill(page, name: str) -> None:
    page.fill("#id_name", name)
    page.select_option("#id_workload_profile", "inference")
    page.fill("#id_required_total_gpus", "8")
    page.fill("#id_duration_days", "10")


def test_back_and_create_again_shows_the_evaluation_already_created(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto("/evaluations/new/")
    _fill(page, "Created before going back")
    with portal.navigation():
        page.locator("main form button[type=submit]").click()
    expect(page.locator("h1")).to_contain_text("Created before going back")
    first = Evaluation.objects.get(name="Created before going back")

    page.go_back(wait_until="domcontentloaded")
    expect(page.locator("#id_name")).to_have_value("Created before going back")
    with portal.navigation():
        page.locator("main form button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("Nothing new was created.")
    assert page.url.endswith(f"/evaluations/{first.pk}/")
    assert Evaluation.objects.filter(name="Created before going back").count() == 1
    portal.screenshot("sent-again")

    # Back again, the name changed on purpose: a second evaluation, with the new name.
    page.go_back(wait_until="domcontentloaded")
    page.fill("#id_name", "A second one, on purpose")
    with portal.navigation():
        page.locator("main form button[type=submit]").click()
    expect(page.locator("h1")).to_contain_text("A second one, on purpose")
    assert Evaluation.objects.filter(name="A second one, on purpose").count() == 1
    portal.assert_no_js_errors()
