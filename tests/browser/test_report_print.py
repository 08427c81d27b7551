"""The printed report: no Plotly toolbars, each chart as wide as the page, tables whole."""

import pytest

pytestmark = pytest.mark.browser

MEASURE = """() => {
  const main = document.querySelector('main').getBoundingClientRect().width;
  const charts = [...document.querySelectorAll('[data-chart].js-plotly-plot')].map((el) => ({
    card: el.closest('figure').getBoundingClientRect().width,
    svg: el.querySelector('.main-svg').getBoundingClientRect().width,
  }));
  const toolbars = [...document.querySelectorAll('.modebar, .modebar-container')]
    .filter((el) => getComputedStyle(el).display !== 'none').length;
  const scrollers = [...document.querySelectorAll('table.data')]
    .filter((el) => getComputedStyle(el).display !== 'table').length;
  return {main, charts, toolbars, scrollers};
}"""


def test_the_printed_report_has_full_width_charts_and_no_toolbars(portal):
    page = portal.page
    portal.login("manager")
    portal.goto("/evaluations/1/report/")
    portal.wait_for_charts(minimum=6)
    screen = page.evaluate(MEASURE)
    # On screen two charts share a row.
    assert min(c["card"] for c in screen["charts"]) < screen["main"] * 0.6

    page.emulate_media(media="print")
    page.wait_for_timeout(600)  # the charts redraw at their new width
    printed = page.evaluate(MEASURE)
    assert printed["toolbars"] == 0
    assert printed["scrollers"] == 0
    for chart in printed["charts"]:
        assert chart["card"] >= printed["main"] * 0.98, chart
        assert chart["svg"] >= printed["main"] * 0.95, chart
    page.pdf(path=str(portal_pdf_path(portal)))
    portal.assert_no_js_errors()


def portal_pdf_path(portal):
    from tests.browser.conftest import SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / "report-printed.pdf"
