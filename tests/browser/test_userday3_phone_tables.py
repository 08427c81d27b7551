"""Phones: a wide table scrolls in its own box, so its columns keep a readable width. On a
390 px screen the ranking's "Delivery form" column and its headers were 28 px wide: Chinese
(which breaks between any two characters) and English (``overflow-wrap: anywhere``) stood
one character per line."""

import pytest

pytestmark = pytest.mark.browser

PAGES = ["/", "/evaluations/1/", "/evaluations/1/candidates/1/", "/offerings/", "/vendors/"]
CRUSHED = """() => [...document.querySelectorAll('main td, main th')]
  .filter((cell) => cell.innerText.trim().length > 2)
  .filter((cell) => {
    const box = cell.getBoundingClientRect();
    const em = parseFloat(getComputedStyle(cell).fontSize);
    return box.width > 0 && box.width < 3.5 * em;
  })
  .slice(0, 5)
  .map((cell) => cell.innerText.trim().slice(0, 16) + ' '
    + Math.round(cell.getBoundingClientRect().width))"""


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_table_columns_keep_a_readable_width_on_a_phone(portal, language):
    page = portal.page
    page.set_viewport_size({"width": 390, "height": 844})
    portal.login("procurement")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": portal.base_url}]
    )
    crushed = {}
    for path in PAGES:
        portal.goto(path)
        page.wait_for_timeout(100)
        if found := page.evaluate(CRUSHED):
            crushed[path] = found
    if crushed:
        portal.screenshot(f"phone-tables-{language}")
    assert crushed == {}
