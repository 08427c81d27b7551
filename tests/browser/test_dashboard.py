"""Every role logs in and reads the dashboard; the page speaks Chinese; the report prints."""

import pytest
from playwright.sync_api import expect

from portal import selectors
from portal.models import Evaluation

from .conftest import EVALUATION_NAME

pytestmark = pytest.mark.browser

ROLE_LABELS = {
    "procurement": "Procurement",
    "manager": "Manager",
    "engineer": "Engineer",
    "viewer": "Viewer",
}


def test_each_role_logs_in_and_sees_the_list_and_the_dashboard_with_charts(portal):
    page = portal.page
    evaluation = Evaluation.objects.get(name=EVALUATION_NAME)
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    disqualified = sum(1 for result in ranking.results if result.knockouts)
    assert 0 < disqualified < len(ranking.results), "the demo shows both kinds of candidate"
    for role, role_label in ROLE_LABELS.items():
        portal.login(role)

        # The login lands on the evaluation list, which shows the user's role in each one.
        assert page.url == portal.url("/")
        row = page.locator("table.data tbody tr", has_text=EVALUATION_NAME)
        expect(row).to_have_count(1)
        expect(row.locator("td").last).to_have_text(role_label)

        with portal.navigation():
            row.get_by_role("link", name=EVALUATION_NAME).click()
        assert page.url == portal.url(f"/evaluations/{evaluation.pk}/")
        expect(page.locator("h1")).to_contain_text(EVALUATION_NAME)
        expect(page.locator(".facts")).to_contain_text(role_label)

        # Ranking: a row per candidate, and under each disqualified one a row of its reasons;
        # verification matrix: a row per checklist item.
        expect(page.locator("table.ranking tbody tr:not(.knockout-row)")).to_have_count(6)
        reasons = page.locator("table.ranking tr.knockout-row")
        expect(reasons).to_have_count(disqualified)
        expect(reasons.first).to_contain_text("Disqualified")
        expect(page.locator("table.matrix tbody tr")).to_have_count(10)
        expect(page.locator("table.matrix thead th")).to_have_count(1 + 6)
        assert portal.wait_for_charts(minimum=6) == 6, role
        if role == "manager":
            # Long candidate names must not squeeze the plots: each keeps most of its card.
            for chart, share in plot_shares(page).items():
                assert share > 0.5, (chart, share)
        portal.assert_no_js_errors()
        portal.screenshot(role)

        portal.logout()
        assert page.url.startswith(portal.url("/accounts/login/"))


def plot_shares(page) -> dict[str, float]:
    """Width of each cartesian chart's plot area as a share of its chart element."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("[data-chart]")]
            .filter((el) => el._fullLayout && el._fullLayout.xaxis && !el._fullLayout.polar)
            .map((el) => [el.dataset.chart, el._fullLayout.xaxis._length / el.clientWidth]))"""
    )


def test_switching_to_chinese_translates_the_dashboard_and_keeps_the_charts(portal):
    page = portal.page
    portal.login("viewer")
    portal.goto("/evaluations/1/")
    expect(page.locator("#ranking-title")).to_have_text("Ranking")

    with portal.navigation():
        page.select_option("select#language-select", "zh-hans")

    # The switcher sends the user back to the same page, now in Chinese.
    assert page.url == portal.url("/evaluations/1/")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.locator("select#language-select")).to_have_value("zh-hans")
    expect(page.locator("header.topbar nav")).to_contain_text("评估")
    expect(page.locator(".facts")).to_contain_text("工作负载")
    expect(page.locator("#ranking-title")).to_have_text("排名")
    assert portal.wait_for_charts(minimum=6) == 6
    # The figures are built in the page's language too: the radar's axes name the dimensions.
    expect(page.locator("[data-chart='fig-radar'] .main-svg").first).to_contain_text("稳定性")
    portal.assert_no_js_errors()
    portal.screenshot("dashboard")

    # The choice sticks for the next page.
    portal.goto("/")
    expect(page.locator("h1")).to_have_text("我的评估")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")


def test_the_report_draws_its_charts_and_offers_a_print_button(portal):
    page = portal.page
    portal.login("viewer")
    portal.goto("/evaluations/1/report/")
    expect(page.locator("article.report h1")).to_have_text(EVALUATION_NAME)
    expect(page.locator("table.ranking tbody tr:not(.knockout-row)")).to_have_count(6)
    assert portal.wait_for_charts(minimum=6) == 6

    print_button = page.get_by_role("button", name="Print")
    expect(print_button).to_be_visible()
    expect(print_button).to_have_attribute("onclick", "window.print()")
    portal.assert_no_js_errors()

    # Printed, the button and the top bar disappear and the charts stay.
    page.emulate_media(media="print")
    expect(print_button).to_be_hidden()
    expect(page.locator("header.topbar")).to_be_hidden()
    expect(page.locator("[data-chart='fig-radar']")).to_be_visible()
    page.emulate_media(media="screen")
