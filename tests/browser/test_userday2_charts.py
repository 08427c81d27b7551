"""Value-for-money labels do not overlap on the demo (their boxes measured in Chromium), and
each candidate keeps its colour on the dashboard's radar and value charts."""

import pytest

pytestmark = pytest.mark.browser

LABEL_BOXES = """() => {
  const chart = document.querySelector('[data-chart="fig-value"]');
  return [...chart.querySelectorAll('.scatterlayer .textpoint text')]
    .filter((t) => t.textContent.trim())
    .map((t) => { const r = t.getBoundingClientRect();
      return {text: t.textContent, l: r.left, t: r.top, r: r.right, b: r.bottom}; });
}"""


def _overlap(a, b) -> float:
    w = min(a["r"], b["r"]) - max(a["l"], b["l"])
    h = min(a["b"], b["b"]) - max(a["t"], b["t"])
    return w * h if w > 0 and h > 0 else 0.0


@pytest.mark.parametrize("width", [1440, 1024])
def test_value_for_money_labels_do_not_overlap_on_the_demo(portal, width):
    page = portal.page
    page.set_viewport_size({"width": width, "height": 900})
    portal.login("manager")
    portal.goto("/evaluations/1/")
    portal.wait_for_charts(minimum=5)
    page.wait_for_timeout(300)
    boxes = page.evaluate(LABEL_BOXES)
    assert len(boxes) >= 4, boxes
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert _overlap(a, b) == 0, (a, b)
    portal.assert_no_js_errors()
