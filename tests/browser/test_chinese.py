"""Chinese pages carry no raw choice codes, metric names, rule ids or input keys and no known
English labels, the JavaScript strings included (they come from the djangojs catalogue)."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RAW_CODES = re.compile(
    r"\b(full_mesh|bare_metal|passthrough_vm|dedicated_team|named_contact|ticket_queue|"
    r"unanswered|claimed|verified|contradicted|unverifiable|not_applicable)\b"
)
# Parser metric names (units in the name), rule ids and rule input keys: shown by their labels.
RAW_NAMES = re.compile(
    r"\b(?:[a-z0-9]+_)+(?:gbyte_s|gbit_s|mbyte_s|us|ms|mib|gib|count|pct)\b"
    r"|\b(?:stability|network|storage|security|cost|support)(?:\.[a-z0-9_]+){2,}\b"
    r"|\b(?:offering|measured|derived|answer|vendor)\.[a-z0-9_]+\b"
)
ENGLISH = [
    "Save all",
    "Save draft",
    "Unanswered",
    "Claimed",
    "Upload evidence",
    "Questionnaire",
    "Scores and evidence",
    "answered",
    "Inputs",
    "Basis",
    "tolerance",
    "Your evaluations",
    "Candidates awaiting your evidence",
    "As stored:",
    "Log out",
]
PAGES = {
    "procurement": [
        "/",
        "/evaluations/1/",
        "/evaluations/1/candidates/1/",
        "/evaluations/1/candidates/1/questionnaire/",
        "/evaluations/1/history/",
        "/evaluations/1/weights/",
    ],
    "engineer": ["/", "/evaluations/1/candidates/3/evidence/"],
}


def _chinese(portal) -> None:
    portal.page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": portal.base_url}]
    )


def _check(portal, path: str) -> None:
    portal.goto(path)
    text = portal.page.evaluate("() => document.querySelector('main').innerText")
    raw = sorted(set(RAW_CODES.findall(text)))
    assert raw == [], f"{path}: raw codes {raw}"
    names = sorted(set(RAW_NAMES.findall(text)))
    assert names == [], f"{path}: raw metric, rule or input names {names}"
    english = [label for label in ENGLISH if label in text]
    assert english == [], f"{path}: English labels {english}"


@pytest.mark.parametrize("role", ["procurement", "engineer"])
def test_chinese_pages_show_labels_not_codes(portal, role):
    portal.login(role)
    _chinese(portal)
    for path in PAGES[role]:
        _check(portal, path)
    portal.assert_no_js_errors()


def test_the_questionnaire_script_speaks_chinese(portal):
    page = portal.page
    portal.login("procurement")
    _chinese(portal)
    portal.goto("/evaluations/1/candidates/4/questionnaire/")
    page.fill("[name='item-10-claim']", "14")
    expect(page.locator("#progress")).to_have_text("已回答 10/10")
    expect(page.locator("#save-state")).to_contain_text("草稿已于", timeout=15_000)
    # The time in the page's language, whatever the browser's: 24-hour, no AM/PM; in the
    # portal's zone, named after it as the pages write times.
    saved = page.locator("#save-state").inner_text()
    assert re.search(r"草稿已于 \d{2}:\d{2} UTC 保存", saved), saved
    assert "AM" not in saved and "PM" not in saved
    portal.assert_no_js_errors()
