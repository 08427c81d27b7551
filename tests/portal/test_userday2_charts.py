"""Charts: a candidate's colour follows its id (not its rank); the TCO chart draws the budget
line and fades billing terms longer than the evaluation; value-for-money labels are placed
apart."""

import pytest

from portal import charts, selectors
from portal.charts.base import candidate_colour
from portal.charts.costs import PLOT_HEIGHT, PLOT_WIDTH, _box, _overlap, label_positions
from portal.models import Evaluation

pytestmark = pytest.mark.django_db


def _results():
    ranking, _c = selectors.evaluation_ranking(evaluation=Evaluation.objects.get(pk=1))
    return list(ranking.results)


def test_the_radar_colour_follows_the_candidate_not_the_rank(demo):
    results = [r for r in _results() if not r.disqualified]
    forward = charts.radar(results)["data"]
    backward = charts.radar(list(reversed(results)))["data"]
    colour = {t["name"]: t["line"]["color"] for t in forward}
    assert colour == {t["name"]: t["line"]["color"] for t in backward}
    assert colour[forward[0]["name"]] == candidate_colour(results[0].candidate_id)


def test_value_markers_are_coloured_by_candidate(demo):
    results = _results()
    points = [
        (r.label, float(r.tco.cost_per_effective_gpu_hour), r.total, r.disqualified, r.candidate_id)
        for r in results
        if r.tco and r.tco.cost_per_effective_gpu_hour
    ]
    trace = charts.value_for_money(points)["data"][0]
    qualified = [p for p in points if not p[3]]
    assert trace["marker"]["color"] == [candidate_colour(p[4]) for p in qualified]


def test_the_tco_chart_has_a_budget_line_and_fades_yearly_terms_on_30_days(demo):
    results = _results()
    figure = charts.tco_bars(results, budget=1_500_000, duration_days=30)
    line = figure["layout"]["shapes"][0]
    assert line["y0"] == line["y1"] == 1_500_000
    assert any("1,500,000" in a["text"] for a in figure["layout"]["annotations"])
    bars = figure["data"][0]
    inner = bars["x"][1]
    opacity = bars["marker"]["opacity"]
    faint = {name for name, o in zip(inner, opacity, strict=True) if o < 1}
    kept = {name for name, o in zip(inner, opacity, strict=True) if o == 1}
    assert faint == {"Yearly"} and "Monthly" in kept
    # The axis is scaled to the relevant bars: the yearly ones (~9 M) run off the top.
    top = figure["layout"]["yaxis"]["range"][1]
    totals = figure["data"][-1]["y"]
    assert top < max(totals)
    assert top >= max(t for t, o in zip(totals, opacity, strict=True) if o == 1)
    # A year-long evaluation: nothing faint, no cut.
    figure = charts.tco_bars(results, duration_days=400)
    assert set(figure["data"][0]["marker"]["opacity"]) == {1.0}
    assert "range" not in figure["layout"]["yaxis"]


def test_label_positions_keep_crowded_labels_apart():
    points = [(10.0, 80.0, "Vendor A"), (10.5, 80.5, "Vendor B"), (11.0, 79.5, "Vendor C")]
    points += [(30.0, 60.0, "Vendor D"), (30.2, 61.0, "Vendor E")]
    positions = label_positions(points, 30.2)
    x_max = 30.2 * 1.05
    boxes = [
        _box(pos, c / x_max * PLOT_WIDTH, s / 105 * PLOT_HEIGHT, len(label) * 7.0)
        for pos, (c, s, label) in zip(positions, points, strict=True)
    ]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert _overlap(a, b) == 0
    assert len(set(positions)) > 1


def test_busbw_lines_take_the_candidates_colour():
    curve = [{"size_bytes": 1 << 20, "busbw_gbyte_s": 100.0}]
    figure = charts.busbw_curves({"A": curve, "B": curve}, colours={"B": "#123456"})
    by_name = {t["name"]: t for t in figure["data"]}
    assert by_name["B"]["line"]["color"] == "#123456"
    assert "line" not in by_name["A"]
