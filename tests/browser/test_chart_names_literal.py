"""A vendor name written as markup is drawn literally in the charts of the dashboard and the
report: no link, no styled span (Plotly reads a subset of HTML in every text it draws)."""

import pytest
from django.contrib.auth import get_user_model

from portal.models import Evaluation
from portal.services.catalogue import candidate_offering_adopt, vendor_save

from .conftest import EVALUATION_NAME

pytestmark = pytest.mark.browser

HOSTILE = '<a href="https://e.ex/p">Z</a><span style="font-size:40px">X</span>'

CHART_TEXT = """() => {
  const charts = [...document.querySelectorAll('[data-chart].js-plotly-plot')];
  return {
    links: charts.reduce((n, el) => n + el.querySelectorAll('a').length, 0),
    styled: charts.reduce(
      (n, el) => n + [...el.querySelectorAll('tspan[style]')]
        .filter((t) => t.getAttribute('style').includes('font-size:40px')).length, 0),
    texts: charts.map((el) => [...el.querySelectorAll('text')].map((t) => t.textContent)).flat(),
  };
}"""


def test_a_vendor_name_with_markup_is_drawn_as_typed(portal):
    evaluation = Evaluation.objects.get(name=EVALUATION_NAME)
    vendor = evaluation.candidates.order_by("pk").first().offering.vendor
    vendor.name = HOSTILE
    procurement = get_user_model().objects.get(username="procurement")
    vendor_save(vendor=vendor, by=procurement)
    # Candidates keep the offering version they pinned until procurement adopts the new one.
    for candidate in evaluation.candidates.filter(offering__vendor=vendor):
        candidate_offering_adopt(candidate=candidate, by=procurement)

    portal.login("manager")
    for path in (f"/evaluations/{evaluation.pk}/", f"/evaluations/{evaluation.pk}/report/"):
        portal.goto(path)
        portal.wait_for_charts(minimum=5)
        found = portal.page.evaluate(CHART_TEXT)
        assert found["links"] == 0, path
        assert found["styled"] == 0, path
        # Axes and legends show the name shortened, as typed: its tags are text.
        assert any(t.startswith('<a href="https://e.ex') for t in found["texts"]), (
            path,
            [t for t in found["texts"] if "e.ex" in t or "href" in t or "Z" in t],
        )
        portal.assert_no_js_errors()
