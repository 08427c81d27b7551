"""Phones: every page fits a 390 px wide screen without horizontal scrolling (wide tables
scroll inside their own box), in English and in Chinese."""

import pytest

pytestmark = pytest.mark.browser

PAGES = {
    "procurement": [
        "/",
        "/evaluations/1/",
        "/evaluations/1/weights/",
        "/evaluations/1/decision/",
        "/evaluations/1/report/",
        "/evaluations/1/history/",
        "/evaluations/1/members/",
        "/evaluations/1/edit/",
        "/evaluations/1/candidates/1/",
        "/evaluations/1/candidates/1/questionnaire/",
        "/evaluations/1/candidates/1/evidence/",
        "/evaluations/1/candidates/1/tokens/",
        "/evaluations/1/candidates/add/",
        "/evaluations/new/",
        "/vendors/",
        "/offerings/",
        "/offerings/1/",
        "/offerings/1/edit/",
    ],
    "engineer": ["/", "/evaluations/1/candidates/3/evidence/"],
}
OVERFLOW = """() => {
  const root = document.documentElement;
  const wide = [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1)
    .filter((el) => !el.closest('.table-scroll, .chart, .js-plotly-plot, pre'))
    .slice(0, 5)
    .map((el) => el.tagName + '.' + el.className + ' '
      + Math.round(el.getBoundingClientRect().right));
  return {scroll: root.scrollWidth, client: root.clientWidth, wide};
}"""


def _fits(portal, path: str) -> dict | None:
    portal.goto(path)
    portal.page.wait_for_timeout(150)
    measured = portal.page.evaluate(OVERFLOW)
    return None if measured["scroll"] <= measured["client"] else {path: measured}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("role", ["procurement", "engineer"])
def test_every_page_fits_a_phone(portal, role, language):
    page = portal.page
    page.set_viewport_size({"width": 390, "height": 844})
    portal.login(role)
    if language != "en":
        page.context.add_cookies(
            [{"name": "django_language", "value": language, "url": portal.base_url}]
        )
    too_wide = [m for path in PAGES[role] if (m := _fits(portal, path))]
    if too_wide:
        portal.screenshot(f"{role}-{language}-too-wide")
    assert too_wide == [], "\n".join(map(str, too_wide))


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_new_upload_token_and_its_collector_options_fit_a_phone(portal, language):
    """The panel shown once after creating a token: the command scrolls in its own box, the
    option list wraps."""
    page = portal.page
    page.set_viewport_size({"width": 390, "height": 844})
    portal.login("procurement")
    if language != "en":
        page.context.add_cookies(
            [{"name": "django_language", "value": language, "url": portal.base_url}]
        )
    portal.goto("/evaluations/1/candidates/1/tokens/")
    with portal.navigation():
        page.locator("main form.page-form button[type=submit]").click()
    page.wait_for_timeout(150)
    assert page.locator("#collector-command").inner_text().startswith("export GPU_PORTAL_TOKEN=")
    assert page.locator("ul.collector-options li").count() == 5
    measured = page.evaluate(OVERFLOW)
    if measured["scroll"] > measured["client"]:
        portal.screenshot(f"new-token-{language}-too-wide")
    assert measured["scroll"] <= measured["client"], measured
