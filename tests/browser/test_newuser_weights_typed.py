"""The weights page reads a weight as the server does, and keeps what was typed: the live sum
read "30,5" as 30 (parseFloat) where the server refuses it, and a refused save gave the fields
back rounded to one decimal ("30.125" came back "30.1"), with nothing asked on leaving the page
after it."""

import pytest
from playwright.sync_api import expect

from portal.models import Evaluation

pytestmark = pytest.mark.browser

WEIGHTS = "/evaluations/1/weights/"
SUM = "#weights-sum-value"


def _field(page, dimension: str):
    return page.locator(f"#weights-form input.weight-number[name=w_{dimension}]")


def _fill(page, values: dict[str, str]) -> None:
    for dimension, value in values.items():
        _field(page, dimension).fill(value)


def _dialogs(page) -> list[str]:
    seen: list[str] = []

    def answer(dialog):
        seen.append(dialog.type)
        dialog.dismiss()  # stay on the page

    page.on("dialog", answer)
    return seen


# 100 when the first reads 30.5; parseFloat counted "30,5" as 30 and showed 99.5.
COMMA = {
    "stability": "30,5",
    "network": "30",
    "storage": "10",
    "security": "10",
    "cost": "10",
    "support": "9.5",
}


def test_a_decimal_comma_is_not_counted_and_the_server_says_what_to_type(portal):
    page = portal.page
    portal.login("manager")
    portal.goto(WEIGHTS)
    _fill(page, COMMA)
    expect(page.locator(SUM)).to_have_text("—")
    expect(page.locator("#weights-sum")).to_have_class("weights-sum bad")
    expect(_field(page, "stability")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-share-for=w_stability]")).to_contain_text("not a number")
    expect(page.locator("#weights-sum-hint")).to_contain_text("for example 30.5")

    with portal.navigation():
        page.get_by_role("button", name="Save weights", exact=True).click()
    error = page.locator("#weights-form .field-error")
    expect(error).to_have_text("Use a point as the decimal separator, for example 30.5.")
    expect(_field(page, "stability")).to_have_value("30,5")
    expect(page.locator(SUM)).to_have_text("—")
    # The server's word stands beside the field, not the page's as well.
    expect(page.locator("[data-share-for=w_stability]")).to_have_text("")

    _field(page, "stability").fill("30.5")
    expect(page.locator(SUM)).to_have_text("100.0")
    expect(_field(page, "stability")).not_to_have_attribute("aria-invalid", "true")
    expect(error).to_be_hidden()  # what it said no longer applies
    with portal.navigation():
        page.get_by_role("button", name="Save weights", exact=True).click()
    expect(page.locator("ul.messages")).to_contain_text("Weights saved.")
    assert str(Evaluation.objects.get(pk=1).weight_stability) == "30.500"


@pytest.mark.parametrize(
    ("typed", "plain"),
    [("３０.５", "30.5"), ("30，5", "30.5"), ("３０，５", "30.5")],
)
def test_full_width_digits_and_comma_on_a_chinese_page(portal, typed, plain):
    page = portal.page
    page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": portal.base_url}]
    )
    portal.login("manager")
    portal.goto(WEIGHTS)
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    _fill(page, {**COMMA, "stability": typed})
    expect(page.locator(SUM)).to_have_text("—")
    expect(page.locator("[data-share-for=w_stability]")).to_contain_text(
        "不是 0 至 100 之间、最多三位小数的数字"
    )

    with portal.navigation():
        page.get_by_role("button", name="保存权重", exact=True).click()
    expect(page.locator("#weights-form .field-error")).to_have_text(
        f"请用半角数字 0-9 输入，例如 {plain}。"
    )
    expect(_field(page, "stability")).to_have_value(typed)
    assert str(Evaluation.objects.get(pk=1).weight_stability) != "30.500"


def test_the_live_sum_counts_only_what_the_server_accepts(portal):
    page = portal.page
    portal.login("manager")
    portal.goto(WEIGHTS)
    base = {"network": "30", "storage": "10", "security": "10", "cost": "10", "support": "10"}
    for typed, shown in (
        ("30abc", "—"),  # parseFloat: 30
        ("1e1", "80.0"),  # the server reads an exponent
        ("30.", "100.0"),
        (".5", "70.5"),
        ("30.1234", "—"),  # more than three decimals: refused
        ("30.1230", "—"),  # as typed: four decimals, as the server counts them
        ("150", "—"),
        ("-5", "—"),
        ("", "—"),  # a blank weight is refused on saving
    ):
        _fill(page, {**base, "stability": typed})
        expect(page.locator(SUM), f"{typed!r}").to_have_text(shown)
    # The server's tolerance, to the thousandth: 99.95 and 100.05 make 100, 100.051 does not.
    # The sum rounds half up, as the server's (a float sum showed 10.05 + 90 as 100.0).
    for typed, shown, bad in (
        ("29.95", "100.0", False),
        ("30.05", "100.1", False),  # 100.05
        ("30.051", "100.1", True),
        ("30.25", "100.3", True),
    ):
        _fill(page, {**base, "stability": typed})
        expect(page.locator(SUM), f"{typed!r}").to_have_text(shown)
        sum_class = "weights-sum bad" if bad else "weights-sum"
        expect(page.locator("#weights-sum"), f"{typed!r}").to_have_class(sum_class)
    # A float sum of three 33.35 is 100.05000000000001: off by the float, not by the server.
    _fill(page, {**dict.fromkeys(base, "0"), "stability": "33.35", "network": "33.35"})
    _field(page, "storage").fill("33.35")
    expect(page.locator(SUM)).to_have_text("100.1")
    expect(page.locator("#weights-sum")).to_have_class("weights-sum")


def test_refused_weights_come_back_as_typed_and_leaving_asks_first(portal):
    page = portal.page
    portal.login("manager")
    seen = _dialogs(page)
    portal.goto(WEIGHTS)
    typed = {
        "stability": "30.125",
        "network": "30",
        "storage": "20",
        "security": "10",
        "cost": "20",
        "support": "10.25",
    }
    _fill(page, typed)
    expect(page.locator(SUM)).to_have_text("120.4")
    with portal.navigation():
        page.get_by_role("button", name="Save weights", exact=True).click()
    expect(page.locator("#weights-form .errors")).to_contain_text("add up to 120.375 %")
    for dimension, value in typed.items():
        expect(_field(page, dimension)).to_have_value(value)
    expect(page.locator(SUM)).to_have_text("120.4")
    assert seen == []

    # Refused, so not saved: leaving asks first.
    page.locator("nav.crumbs a").first.click()
    page.wait_for_timeout(800)
    assert seen == ["beforeunload"]
    assert page.url.endswith(WEIGHTS)
    expect(_field(page, "stability")).to_have_value("30.125")

    # Saved scaled: leaving no longer asks.
    page.check("#id_scale")
    with portal.navigation():
        page.get_by_role("button", name="Save weights", exact=True).click()
    expect(page.locator("ul.messages")).to_contain_text("saved scaled to 100 %")
    with portal.navigation():
        page.locator("nav.crumbs a").first.click()
    assert seen == ["beforeunload"]


def test_typed_weights_not_saved_ask_before_leaving_and_an_untouched_page_does_not(portal):
    page = portal.page
    portal.login("manager")
    seen = _dialogs(page)
    portal.goto(WEIGHTS)
    with portal.navigation():
        page.locator("nav.crumbs a").first.click()
    assert seen == []

    portal.goto(WEIGHTS)
    _field(page, "cost").fill("35")
    # A preset link is a way off the page too.
    page.locator("p.presets a").first.click()
    page.wait_for_timeout(800)
    assert seen == ["beforeunload"]
    expect(_field(page, "cost")).to_have_value("35")


def test_a_viewer_trying_weights_leaves_without_a_question(portal):
    """Nothing a viewer types can be saved: the sliders are a what-if only."""
    page = portal.page
    portal.login("viewer")
    seen = _dialogs(page)
    portal.goto(WEIGHTS)
    _field(page, "cost").fill("35")
    with portal.navigation():
        page.locator("nav.crumbs a").first.click()
    assert seen == []
