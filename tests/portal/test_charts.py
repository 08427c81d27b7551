"""Chart builders: traces and values read from real scoring results, Pareto front, JSON, i18n."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import translation
from django.utils.html import json_script

from portal import charts
from scoring.api import Price, robustness, score_candidates
from scoring.evidence import nccl
from scoring.tco import COMPONENTS
from scoring.types import DIMENSIONS
from tests.scoring.scoring_factories import candidate, evaluation, offering

NCCL_SAMPLES = Path(__file__).parents[1] / "scoring" / "evidence" / "samples" / "nccl_tests"


@pytest.fixture(scope="module")
def ranking():
    """Beta (hourly only, cheaper) leads Alpha; Delta has no price; Gamma fails GPU memory."""
    return score_candidates(
        [
            candidate(1, label="Alpha"),
            candidate(
                2,
                label="Beta",
                offering=offering(
                    prices=(Price("hourly", Decimal("15.00")),),
                    fabric="roce",
                    fabric_rate_gbit_s=200,
                    storage_cost_month=Decimal(0),
                ),
            ),
            candidate(3, label="Gamma", offering=offering(gpu_memory_gib=40)),
            candidate(4, label="Delta", offering=offering(prices=(), support_tier="ticket_queue")),
        ],
        evaluation(),
    )


@pytest.fixture(scope="module")
def by_label(ranking):
    return {r.label: r for r in ranking.results}


def _annotation_texts(figure):
    return [a["text"] for a in figure["layout"].get("annotations", [])]


def _trace(figure, name):
    (found,) = [t for t in figure["data"] if t.get("name") == name]
    return found


def test_the_scenario_is_what_the_tests_assume(ranking, by_label):
    assert [r.label for r in ranking.results] == ["Beta", "Alpha", "Delta", "Gamma"]
    assert by_label["Gamma"].disqualified
    assert by_label["Delta"].tco is None
    assert [m.billing_model for m in by_label["Alpha"].tco.models] == ["hourly", "monthly"]


# --- radar -----------------------------------------------------------------------------------


def test_radar_draws_one_closed_polygon_per_candidate(ranking):
    figure = charts.radar(ranking.results, lang="en")
    assert [t["type"] for t in figure["data"]] == ["scatterpolar"] * 4
    assert [t["name"] for t in figure["data"]] == [
        "Beta",
        "Alpha",
        "Delta",
        "Gamma (disqualified)",
    ]
    for trace, result in zip(figure["data"], ranking.results, strict=True):
        scores = [result.score(d) for d in DIMENSIONS]
        assert trace["r"] == [*scores, scores[0]]
        assert trace["theta"] == [
            "Stability",
            "Network",
            "Storage",
            "Security",
            "Cost",
            "Support",
            "Stability",
        ]
    assert figure["layout"]["polar"]["radialaxis"]["range"] == [0, 100]


def test_radar_greys_and_dots_a_disqualified_candidate(by_label):
    figure = charts.radar([by_label["Alpha"], by_label["Gamma"]], lang="en")
    alpha, gamma = figure["data"]
    assert alpha["line"]["dash"] == "solid"
    assert gamma["line"]["dash"] == "dot"
    assert gamma["line"]["color"] != alpha["line"]["color"]


def test_radar_takes_dimension_labels_as_a_mapping_or_a_list(by_label):
    labels = {d: d.upper() for d in DIMENSIONS}
    from_map = charts.radar([by_label["Alpha"]], labels)
    from_list = charts.radar([by_label["Alpha"]], [d.upper() for d in DIMENSIONS])
    assert from_map["data"][0]["theta"][:6] == [d.upper() for d in DIMENSIONS]
    assert from_list["data"] == from_map["data"]


def test_radar_in_chinese_uses_the_translated_dimension_names(by_label):
    figure = charts.radar([by_label["Alpha"]], lang="zh-hans")
    assert figure["data"][0]["theta"][0] == "稳定性"
    assert translation.get_language() != "zh-hans"  # the override does not leak


def test_radar_follows_the_active_language_without_lang(by_label):
    with translation.override("zh-hans"):
        figure = charts.radar([by_label["Alpha"]])
    assert figure["data"][0]["theta"][4] == "成本"


# --- contributions ---------------------------------------------------------------------------


def test_contributions_stack_weight_times_score_up_to_the_total(ranking):
    figure = charts.contributions_bars(ranking, ranking.weights, lang="en")
    bars = [t for t in figure["data"] if t["type"] == "bar"]
    assert [t["name"] for t in bars] == [
        "Stability",
        "Network",
        "Storage",
        "Security",
        "Cost",
        "Support",
    ]
    assert figure["layout"]["barmode"] == "stack"
    assert all(t["orientation"] == "h" for t in bars)
    for index, result in enumerate(ranking.results):
        parts = [t["x"][index] for t in bars]
        for part, dimension in zip(parts, DIMENSIONS, strict=True):
            assert part == pytest.approx(ranking.weights[dimension] * result.score(dimension))
        assert sum(parts) == pytest.approx(result.total, abs=1e-3)
    total = _trace(figure, "Total")
    assert total["x"] == [r.total for r in ranking.results]
    assert total["text"][0] == f"{ranking.results[0].total:.1f}"


def test_contributions_keep_ranking_order_and_grey_the_disqualified(ranking):
    figure = charts.contributions_bars(ranking.results, ranking.weights, lang="en")
    stability = figure["data"][0]
    # The grey bars and a note under the chart say it; the hover says it in words.
    assert stability["y"] == ["Beta", "Alpha", "Delta", "Gamma"]
    assert stability["customdata"][3][2] == "Gamma (disqualified)"
    assert "Grey bars: disqualified candidates." in _annotation_texts(figure)
    assert figure["layout"]["yaxis"]["autorange"] == "reversed"
    colours = stability["marker"]["color"]
    assert colours[0] == colours[1] == colours[2] == charts.base.DIMENSION_COLOURS["stability"]
    assert colours[3] == charts.base.DIMENSION_GREYS["stability"]


def test_contributions_accept_percent_weights(ranking):
    percent = {d: Decimal(str(round(w * 100, 6))) for d, w in ranking.weights.items()}
    by_fraction = charts.contributions_bars(ranking, ranking.weights)
    by_percent = charts.contributions_bars(ranking, percent)
    for a, b in zip(by_fraction["data"][:6], by_percent["data"][:6], strict=True):
        assert a["x"] == pytest.approx(b["x"])


def test_contributions_label_duplicate_names_apart(by_label):
    alpha = by_label["Alpha"]
    twin = replace(alpha, candidate_id=9)
    figure = charts.contributions_bars([alpha, twin], {"cost": 1})
    assert figure["data"][0]["y"] == ["Alpha #1", "Alpha #9"]


# --- TCO -------------------------------------------------------------------------------------


def test_tco_stacks_every_component_per_candidate_and_billing_model(ranking, by_label):
    figure = charts.tco_bars(ranking, lang="en")
    bars = [t for t in figure["data"] if t["type"] == "bar"]
    assert [t["name"] for t in bars] == ["GPU", "Storage", "Egress", "Support", "Licence", "Setup"]
    assert len(bars) == len(COMPONENTS)
    outer, inner = bars[0]["x"]
    gamma = "Gamma<br>(disqualified)"
    assert outer == ["Beta", "Alpha", "Alpha", gamma, gamma]
    assert inner == ["Hourly", "Hourly", "Monthly", "Hourly", "Monthly"]
    alpha_monthly = by_label["Alpha"].tco.model("monthly")
    for trace, component in zip(bars, COMPONENTS, strict=True):
        assert trace["y"][2] == float(alpha_monthly.component(component))
    assert figure["layout"]["yaxis"]["title"]["text"] == "Total cost over the evaluation (CNY)"
    assert figure["layout"]["xaxis"]["type"] == "multicategory"


def test_tco_writes_totals_with_the_cheapest_model_in_bold(ranking, by_label):
    figure = charts.tco_bars(ranking, lang="en")
    total = _trace(figure, "Total")
    alpha = by_label["Alpha"].tco
    assert total["y"][1:3] == [
        float(alpha.model("hourly").total),
        float(alpha.model("monthly").total),
    ]
    assert alpha.cheapest == "monthly"
    assert total["text"][2] == f"<b>{alpha.model('monthly').total:,.0f}</b>"
    assert not total["text"][1].startswith("<b>")


def test_tco_names_the_candidates_it_leaves_out_for_want_of_a_price(ranking):
    figure = charts.tco_bars(ranking, lang="en")
    assert "Not shown (no price): Delta" in _annotation_texts(figure)


# --- bus bandwidth ---------------------------------------------------------------------------


def test_busbw_curves_from_the_nccl_parser_output():
    curve = nccl.parse((NCCL_SAMPLES / "oci-a100-1node-ubuntu-nccl2265.txt").read_text()).metrics[
        "curve"
    ]
    usable = [p for p in curve if p["busbw_gbyte_s"] is not None and p["size_bytes"] > 0]
    figure = charts.busbw_curves({"A100 node": curve, "copy": curve[:3]}, lang="en")
    assert [t["name"] for t in figure["data"]] == ["A100 node", "copy"]
    trace = figure["data"][0]
    assert trace["x"] == sorted(float(p["size_bytes"]) for p in usable)
    by_size = {p["size_bytes"]: p["busbw_gbyte_s"] for p in usable}
    assert trace["y"] == [by_size[int(x)] for x in trace["x"]]
    assert figure["layout"]["xaxis"]["type"] == "log"
    assert figure["layout"]["xaxis"]["title"]["text"] == "Message size"
    assert figure["layout"]["xaxis"]["ticktext"][-1].endswith(("KiB", "MiB", "GiB"))
    assert figure["layout"]["yaxis"]["title"]["text"] == "Bus bandwidth (GB/s)"


def test_busbw_curves_drop_unreadable_rows_and_sort_by_size():
    curve = [
        {"size_bytes": 1024, "busbw_gbyte_s": 2.0},
        {"size_bytes": 8, "busbw_gbyte_s": 0.1},
        {"size_bytes": 0, "busbw_gbyte_s": 0.0},  # a log axis cannot show size 0
        {"size_bytes": 64, "busbw_gbyte_s": None},  # an N/A cell
    ]
    figure = charts.busbw_curves({"x": curve, "only N/A": [{"size_bytes": 8}]})
    assert [t["name"] for t in figure["data"]] == ["x"]
    assert figure["data"][0]["x"] == [8.0, 1024.0]
    assert figure["data"][0]["y"] == [0.1, 2.0]
    assert figure["data"][0]["customdata"] == ["8 B", "1 KiB"]


# --- Pareto front and value for money --------------------------------------------------------


def test_pareto_front_keeps_only_points_nobody_beats_on_cost_and_score():
    points = [
        ("cheap", Decimal("10"), 40.0, False),
        ("dominated", Decimal("12"), 35.0, False),  # costs more, scores less than "cheap"
        ("mid", Decimal("15"), 60.0, False),
        ("same cost worse", Decimal("15"), 55.0, False),
        ("top", Decimal("30"), 80.0, False),
        ("pricey equal", Decimal("31"), 80.0, False),  # same score as "top", dearer
    ]
    assert [p[0] for p in charts.pareto_front(points)] == ["cheap", "mid", "top"]


def test_pareto_front_keeps_ties_and_ignores_disqualified_and_unpriced_points():
    points = [
        ("b", 10.0, 50.0, False),
        ("a", 10.0, 50.0, False),
        ("disqualified bargain", 1.0, 99.0, True),
        ("no price", None, 99.0, False),
        ("worse", 11, 49.0, False),
    ]
    assert [p[0] for p in charts.pareto_front(points)] == ["a", "b"]


def test_pareto_front_of_nothing_is_empty():
    assert charts.pareto_front([]) == []
    assert charts.pareto_front([("x", 1, 1.0, True)]) == []


def test_pareto_front_returns_the_input_tuples():
    point = ("only", Decimal("3.5"), 70.0, False)
    assert charts.pareto_front([point]) == [point]


def _points(ranking):
    return [
        (r.label, r.tco and r.tco.cost_per_effective_gpu_hour, r.total, r.disqualified)
        for r in ranking.results
    ]


def test_value_for_money_marks_the_front_and_greys_the_disqualified(ranking, by_label):
    figure = charts.value_for_money(_points(ranking), currency="CNY", lang="en")
    assert [t["name"] for t in figure["data"]] == ["Candidates", "Disqualified", "Pareto front"]
    candidates, disqualified, front = figure["data"]
    assert candidates["text"] == ["Beta", "Alpha"]
    assert candidates["x"] == [
        float(by_label["Beta"].tco.cost_per_effective_gpu_hour),
        float(by_label["Alpha"].tco.cost_per_effective_gpu_hour),
    ]
    assert candidates["y"] == [by_label["Beta"].total, by_label["Alpha"].total]
    # On the chart the grey cross and its legend mark it; the hover says it in words.
    assert disqualified["text"] == ["Gamma"]
    assert disqualified["customdata"] == ["Gamma (disqualified)"]
    assert disqualified["marker"]["color"] == charts.base.GREY
    # Beta is both cheaper and better than Alpha: the front is Beta alone.
    assert front["customdata"] == ["Beta"]
    assert "lines" in front["mode"]
    assert figure["layout"]["xaxis"]["title"]["text"] == "Cost per effective GPU-hour (CNY)"
    assert "Not shown (no price): Delta" in _annotation_texts(figure)


def test_value_for_money_front_runs_through_every_front_point_in_cost_order():
    points = [
        ("top", 30.0, 80.0, False),
        ("cheap", 10.0, 40.0, False),
        ("dominated", 12.0, 35.0, False),
        ("mid", 15.0, 60.0, False),
    ]
    front = _trace(charts.value_for_money(points), "Pareto front")
    assert front["customdata"] == ["cheap", "mid", "top"]
    assert front["x"] == [10.0, 15.0, 30.0]
    assert front["y"] == [40.0, 60.0, 80.0]


# --- robustness ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def robust(ranking):
    return robustness(ranking, draws=200, seed=1)


def test_robustness_bars_show_each_candidates_share_of_first_places(ranking, robust):
    labels = {r.candidate_id: r.label for r in ranking.results}
    figure = charts.robustness_bars(robust, labels, lang="en")
    bars = figure["data"][0]
    assert bars["type"] == "bar"
    assert bars["x"] == ["Beta", "Alpha", "Delta", "Gamma"]
    shares = robust.stability.first_share
    assert bars["y"] == [shares[r.candidate_id] * 100 for r in ranking.results]
    assert bars["marker"]["color"][0] != bars["marker"]["color"][1]  # the leader stands out
    titles = _annotation_texts(figure)
    assert any("200 weight draws" in t and "±20 %" in t for t in titles)
    assert any("overtake Beta" in t for t in titles)


def test_robustness_heatmap_holds_the_flip_thresholds_and_blanks_impossible_flips(ranking, robust):
    labels = {r.candidate_id: r.label for r in ranking.results}
    figure = charts.robustness_bars(robust, labels, lang="en")
    heatmap = _trace(figure, "Weight change")
    assert heatmap["type"] == "heatmap"
    assert heatmap["y"] == ["Alpha", "Delta"]  # Gamma is disqualified: it can never lead
    assert heatmap["x"] == ["Stability", "Network", "Storage", "Security", "Cost", "Support"]
    flips = {(f.other_id, f.dimension): f for f in robust.flips}
    for row, other in zip(heatmap["z"], (1, 4), strict=True):
        for value, dimension in zip(row, DIMENSIONS, strict=True):
            change = flips[(other, dimension)].change_pp
            assert value == (None if change is None else abs(change))
    delta_cost = flips[(4, "cost")]
    assert delta_cost.change_pp is None
    assert heatmap["z"][1][4] is None
    assert "No Cost weight within 0–100 % lets Delta overtake Beta." in heatmap["customdata"][1][4]
    alpha_network = flips[(1, "network")]
    assert heatmap["text"][0][1] == f"{alpha_network.change_pp:+.1f}"
    no_flip = [t for t in figure["data"] if t.get("name") == "No flip" and t["type"] == "scatter"]
    impossible = sum(f.change_pp is None for f in robust.flips)
    assert len(no_flip[0]["x"]) == impossible == 2


def test_robustness_with_one_qualified_candidate_draws_only_the_bars(by_label):
    alone = robustness([by_label["Alpha"], by_label["Gamma"]], {"cost": 1}, draws=10)
    figure = charts.robustness_bars(alone, {1: "Alpha", 3: "Gamma"})
    assert [t["type"] for t in figure["data"]] == ["bar"]
    assert figure["data"][0]["y"] == [100.0, 0.0]
    # "100 %" sits inside its bar (outside, it rose into the title); "0 %" above the axis.
    assert figure["data"][0]["textposition"] == ["inside", "outside"]
    assert figure["layout"]["yaxis"]["range"] == [0, 110]


def test_long_chart_titles_wrap_within_their_columns():
    title = "Weight change (percentage points) that lets another candidate overtake Hanhai Compute"
    lines = charts.base.wrapped(title, 40).split("<br>")
    assert len(lines) == 3 and " ".join(lines) == title
    assert all(len(line) <= 40 for line in lines)
    # Chinese breaks between characters, each counting two columns.
    chinese = charts.base.wrapped("使其他候选方案超过瀚海算力所需的权重变化（百分点）", 20)
    assert [len(line) for line in chinese.split("<br>")] == [10, 10, 5]
    assert charts.base.wrapped("Short title") == "Short title"


def test_robustness_labels_missing_ids_by_number(ranking, robust):
    figure = charts.robustness_bars(robust, {2: "Beta"})
    assert figure["data"][0]["x"] == ["Beta", "#1", "#3", "#4"]


def test_robustness_with_every_candidate_disqualified_explains_itself(by_label):
    none_qualified = robustness([by_label["Gamma"]], {"cost": 1}, draws=10)
    figure = charts.robustness_bars(none_qualified, {3: "Gamma"}, lang="en")
    assert figure["data"] == []
    assert _annotation_texts(figure) == [
        "Every candidate is disqualified: there is no leader to test."
    ]


# --- every figure: JSON, empty input ---------------------------------------------------------


def _all_figures(ranking, robust):
    labels = {r.candidate_id: r.label for r in ranking.results}
    curve = [{"size_bytes": 2**n, "busbw_gbyte_s": n * 1.5} for n in range(3, 30)]
    return {
        "radar": charts.radar(ranking),
        "contributions": charts.contributions_bars(ranking, ranking.weights),
        "tco": charts.tco_bars(ranking),
        "busbw": charts.busbw_curves({"a": curve}),
        "value": charts.value_for_money(_points(ranking), currency="CNY"),
        "robustness": charts.robustness_bars(robust, labels),
    }


def _walk(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)
    else:
        yield value


def test_every_figure_is_plain_json_for_json_script(ranking, robust):
    for name, figure in _all_figures(ranking, robust).items():
        assert set(figure) == {"data", "layout"}, name
        assert figure["data"], name
        text = json.dumps(figure, allow_nan=False)  # no default=: plain types only
        assert json.loads(text) == figure, name
        assert json.dumps(figure, cls=DjangoJSONEncoder) == text
        assert all(isinstance(v, str | int | float | bool | type(None)) for v in _walk(figure))
        assert f'id="fig-{name}"' in json_script(figure, f"fig-{name}")


def test_figures_embed_the_small_house_template_not_plotlys_default(ranking, robust):
    for name, figure in _all_figures(ranking, robust).items():
        assert figure["layout"]["template"]["layout"]["font"]["family"].startswith("system-ui")
        assert len(json.dumps(figure["layout"]["template"])) < 1500, name


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: charts.radar([]), "Select at least one candidate to compare."),
        (lambda: charts.contributions_bars([], {"cost": 1}), "No candidates to compare yet."),
        (lambda: charts.tco_bars([]), "No prices yet: enter a price to see the cost picture."),
        (lambda: charts.busbw_curves({}), "No nccl-tests results uploaded yet."),
        (
            lambda: charts.value_for_money([]),
            "No cost per effective GPU-hour yet: enter prices to compare value for money.",
        ),
        (
            lambda: charts.value_for_money([("x", None, 50.0, False)]),
            "No cost per effective GPU-hour yet: enter prices to compare value for money.",
        ),
        (
            lambda: charts.robustness_bars(robustness([], {"cost": 1}, draws=1), {}),
            "No candidates to test yet.",
        ),
    ],
)
def test_empty_input_gives_a_figure_that_says_why(build, message):
    with translation.override("en"):
        figure = build()
    assert figure["data"] == []
    assert _annotation_texts(figure) == [message]
    assert figure["layout"]["xaxis"]["visible"] is False
    json.dumps(figure, allow_nan=False)


def test_tco_without_any_price_is_an_empty_figure(by_label):
    figure = charts.tco_bars([by_label["Delta"]], lang="en")
    assert figure["data"] == []
    assert _annotation_texts(figure) == ["No prices yet: enter a price to see the cost picture."]


def test_plain_turns_decimals_tuples_and_non_finite_numbers_into_json():
    assert charts.base.plain(
        {"a": (Decimal("1.5"), float("nan")), 2: {float("inf")}, "b": [True, None, "x"]}
    ) == {"a": [1.5, None], "2": [None], "b": [True, None, "x"]}


def test_every_figure_passes_plotlys_own_validation(ranking, robust):
    import plotly.graph_objects as go

    for name, figure in _all_figures(ranking, robust).items():
        try:
            go.Figure(figure)  # raises ValueError on an unknown attribute or a bad value
        except ValueError as exc:  # pragma: no cover - the message names the bad property
            pytest.fail(f"{name}: {exc}")


# --- long names ------------------------------------------------------------------------------

LONG = "Huaxia Secure Cloud (华夏政务云) · H800 bare metal, MLPS 3 + Xinchuang zone"


def test_short_labels_fit_their_columns_counting_cjk_as_two():
    from portal.charts.base import _columns, short_label

    # The vendor's second name in brackets goes first, then the end is cut.
    assert short_label(LONG) == "Huaxia Secure Cloud · H800…"
    assert short_label("Hanhai Compute (瀚海算力) · HGX H100") == "Hanhai Compute · HGX H100"
    assert short_label("Alpha (α)") == "Alpha (α)"
    cjk = short_label("瀚海算力 HGX H100 八卡裸金属服务器，NDR 胖树网络")
    assert cjk.endswith("…") and sum(map(_columns, cjk)) <= 30
    assert short_label("Alpha") == "Alpha"
    # Cut at a word boundary near the end, never in the middle of a word.
    assert (
        short_label("Skyline Cloud · vGPU cloud instance, L40S-48Q")
        == "Skyline Cloud · vGPU cloud…"
    )


def test_long_names_are_short_on_axes_and_legends_and_full_on_hover(by_label):
    from dataclasses import replace

    from portal.charts.base import short_label

    alpha = replace(by_label["Alpha"], label=LONG)
    twin = replace(by_label["Beta"], label=LONG + " (second rack)")
    radar = charts.radar([alpha, twin], lang="en")
    names = [t["name"] for t in radar["data"]]
    # Both shorten to the same text: the ids tell them apart.
    assert names == [
        f"{short_label(LONG)} #{alpha.candidate_id}",
        f"{short_label(LONG)} #{twin.candidate_id}",
    ]
    assert radar["data"][0]["text"][0] == LONG
    bars = charts.contributions_bars([alpha], {d: 1 for d in DIMENSIONS}, lang="en")
    assert bars["data"][0]["y"] == [short_label(LONG)]
    assert bars["data"][0]["customdata"][0][2] == LONG
    tco = charts.tco_bars([alpha], lang="en")
    # Under the bars: vendor and offering on two lines.
    assert tco["data"][0]["x"][0][0] == "Huaxia Secure Cloud<br>H800 bare metal…"
    assert tco["data"][0]["customdata"][0][1] == LONG


def test_busbw_ticks_cover_a_narrow_sweep_too():
    curve = [{"size_bytes": 2**n, "busbw_gbyte_s": 400.0 + n} for n in range(30, 34)]
    figure = charts.busbw_curves({"node": curve}, lang="en")
    assert figure["layout"]["xaxis"]["ticktext"] == ["1 GiB", "2 GiB", "4 GiB", "8 GiB"]
    wide = [{"size_bytes": 2**n, "busbw_gbyte_s": 1.0 + n} for n in range(3, 34)]
    ticks = charts.busbw_curves({"node": wide}, lang="en")["layout"]["xaxis"]["ticktext"]
    assert ticks == ["32 B", "1 KiB", "32 KiB", "1 MiB", "32 MiB", "1 GiB"]
