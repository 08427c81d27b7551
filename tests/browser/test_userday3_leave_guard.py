"""Leaving a form with typed input asks first: the language switcher (or a link) on a half
filled "New evaluation" page dropped everything typed without a word. A page whose form the
server gave back with errors holds unsaved input too; an untouched page and a posted form leave
without a question."""

import pytest

from portal.models import Evaluation

pytestmark = pytest.mark.browser


def _dialogs(page) -> list[str]:
    seen: list[str] = []

    def answer(dialog):
        seen.append(dialog.type)
        dialog.dismiss()  # stay on the page

    page.on("dialog", answer)
    return seen


def test_switching_language_on_a_half_filled_form_asks_first(portal):
    page = portal.page
    portal.login("procurement")
    portal.goto("/evaluations/new/")
    seen = _dialogs(page)
    page.fill("#id_name", "Half typed")
    page.select_option("#language-select", "zh-hans")
    page.wait_for_timeout(800)
    assert seen == ["beforeunload"]
    assert page.url.endswith("/evaluations/new/")
    assert page.input_value("#id_name") == "Half typed"

    # Posting the form leaves without a question.
    page.select_option("#id_workload_profile", "finetuning")
    page.fill("#id_required_total_gpus", "8")
    page.fill("#id_duration_days", "10")
    with portal.navigation():
        page.click("main form button[type=submit]")
    assert seen == ["beforeunload"]
    assert Evaluation.objects.filter(name="Half typed").count() == 1


def test_a_form_given_back_with_errors_asks_before_leaving_and_an_untouched_one_does_not(
    portal,
):
    page = portal.page
    portal.login("procurement")
    seen = _dialogs(page)
    portal.goto("/offerings/1/edit/")
    with portal.navigation():
        page.locator("header.topbar a", has_text="Vendors").click()
    assert seen == []

    portal.goto("/evaluations/new/")
    page.fill("#id_name", "Given back")
    page.select_option("#id_workload_profile", "finetuning")
    page.fill("#id_required_total_gpus", "8 GPUs")  # refused by the server: 422
    page.fill("#id_duration_days", "10")
    with portal.navigation():
        page.click("main form button[type=submit]")
    assert page.locator(".form-errors").is_visible()
    page.locator("header.topbar a", has_text="Vendors").click()
    page.wait_for_timeout(800)
    assert seen == ["beforeunload"]
    assert page.input_value("#id_name") == "Given back"


def test_a_failed_sign_in_leaves_without_a_question(page, live_server, demo):
    """Nothing of a sign-in is kept to lose (the password is never given back)."""
    seen = _dialogs(page)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", "procurement")
    page.fill("#id_password", "wrong")
    with page.expect_navigation():
        page.click("main button[type=submit]")
    page.fill("#id_username", "manager")  # typed, then the user goes elsewhere
    page.goto(live_server.url + "/healthz/")
    assert seen == []
