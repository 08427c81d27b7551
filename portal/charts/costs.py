"""Cost figures: TCO components per billing model, and value for money with its Pareto front."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from scoring.tco import COMPONENTS_V2

from .base import (
    GREY,
    MUTED,
    FigureJson,
    Markup,
    Results,
    candidate_colour,
    colon,
    disqualified_label,
    distinct_labels,
    empty_figure,
    figure,
    language,
    markup,
    note,
    number,
    results_of,
    two_line_label,
    unique_labels,
)

COMPONENT_COLOURS = {
    "gpu": "#1f5fbf",
    "storage": "#e9a23b",
    "egress": "#2a9d8f",
    "support": "#5b8c2a",
    "licence": "#8e5bd0",
    "setup": "#9aa3ae",
    "commitment": "#c0392b",
    "operations": "#6d4c41",
}

# A point of the value-for-money chart: (label, cost per effective GPU-hour, total score 0..100,
# disqualified). The cost is None when the candidate has no price.
# (label, cost, score, disqualified[, candidate id])
Point = tuple

# The plot area the label placement assumes (px): a half-width chart card on a narrow desktop
# (1024 px; a wider screen only spreads the points further apart). Labels keep LABEL_GAP px
# from each other, so fonts a little wider than CHAR_WIDTH still do not touch.
PLOT_WIDTH, PLOT_HEIGHT, LABEL_HEIGHT, CHAR_WIDTH, LABEL_GAP = 440.0, 340.0, 15.0, 7.0, 4.0
_OFFSETS = (
    # textposition: (left, bottom) of the label box relative to the point, in label widths
    # and pixels: (dx in widths, dx px, dy in heights, dy px)
    ("top center", -0.5, 0, 0, 7),
    ("bottom center", -0.5, 0, -1, -7),
    ("top right", 0, 4, 0, 5),
    ("top left", -1, -4, 0, 5),
    ("middle right", 0, 9, -0.5, 0),
    ("middle left", -1, -9, -0.5, 0),
    ("bottom right", 0, 4, -1, -5),
    ("bottom left", -1, -4, -1, -5),
)


def _box(position, x: float, y: float, width: float) -> tuple[float, float, float, float]:
    for name, dxw, dxp, dyh, dyp in _OFFSETS:
        if name == position:
            left = x + dxw * width + dxp
            bottom = y + dyh * LABEL_HEIGHT + dyp
            return left, bottom, left + width, bottom + LABEL_HEIGHT
    raise KeyError(position)


def _overlap(a, b) -> float:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


def x_axis_end(highest_cost: float) -> float:
    """The end of the cost axis: the chart draws it to where the label placement assumes."""
    return (highest_cost or 1.0) * 1.05


def label_positions(points: list[tuple[float, float, str]], highest_cost: float) -> list[str]:
    """A textposition per (cost, score, label) point such that the labels overlap neither each
    other nor the markers, nor leave the plot, where that is possible (greedy: the highest
    scores first; each label takes the first free position, else the least crowded one).
    Positions are worked out in pixels on the plot area the chart usually has."""
    from .base import _columns

    x_max = x_axis_end(highest_cost)
    pixels = [(c / x_max * PLOT_WIDTH, s / 105.0 * PLOT_HEIGHT) for c, s, _l in points]
    markers = [(x - 6, y - 6, x + 6, y + 6) for x, y in pixels]
    boxes: list[tuple[float, float, float, float]] = []
    result = [""] * len(points)
    order = sorted(range(len(points)), key=lambda i: (-points[i][1], points[i][0]))
    for i in order:
        x, y = pixels[i]
        width = sum(_columns(ch) for ch in points[i][2]) * CHAR_WIDTH
        best, best_cost = "top center", None
        for name, *_rest in _OFFSETS:
            box = _box(name, x, y, width)
            outside = max(0.0, -box[0]) + max(0.0, box[2] - PLOT_WIDTH * 1.02)
            outside += max(0.0, box[3] - PLOT_HEIGHT * 1.02) + max(0.0, -box[1])
            padded = (
                box[0] - LABEL_GAP,
                box[1] - LABEL_GAP,
                box[2] + LABEL_GAP,
                box[3] + LABEL_GAP,
            )
            crowd = sum(_overlap(padded, b) for b in boxes)
            crowd += sum(_overlap(box, m) for j, m in enumerate(markers) if j != i)
            cost = crowd + outside * LABEL_HEIGHT
            if best_cost is None or cost < best_cost:
                best, best_cost = name, cost
            if cost == 0:
                break
        boxes.append(_box(best, x, y, width))
        result[i] = best
    return result


def _disqualified() -> str:
    return _("(disqualified)")


def billing_names() -> dict[str, str]:
    """The billing models' short names in the active language (the TCO chart and the
    dashboard's cost table use the same words; the choice labels carry units)."""
    return {
        "hourly": _("Hourly"),
        "spot": _("Spot"),
        "monthly": _("Monthly"),
        "yearly": _("Yearly"),
    }


def component_names() -> dict[str, str]:
    """The names of the TCO components, by key, in the current language."""
    return {
        "gpu": _("GPU"),
        "storage": _("Storage"),
        "egress": _("Egress"),
        "support": _("Support"),
        "licence": _("Licence"),
        "setup": _("Setup"),
        "commitment": _("Minimum commitment"),
        "operations": _("Operations staff"),
    }


# The shortest evaluation each billing model makes sense for (days): shorter evaluations pay
# for a whole month or year they do not use, so those bars are drawn faint.
MODEL_MIN_DAYS = {"hourly": 0, "spot": 0, "monthly": 28, "yearly": 365}


def tco_bars(
    results: Results,
    *,
    lang: str | None = None,
    budget: float | None = None,
    duration_days: int | None = None,
) -> FigureJson:
    """Stacked bars of the TCO components (gpu, storage, egress, support, licence, setup) for
    every candidate and billing model it has a price for (``Tco.models``), grouped by
    candidate on a two-level axis, with each bar's total on top (the cheapest model in bold).

    ``results`` is a Ranking or a sequence of CandidateResult; candidates without a TCO are
    left out. Amounts are in the candidates' currency, named in the axis title. ``budget``
    draws a horizontal budget line; with ``duration_days`` the billing models that do not fit
    the duration (a yearly term for a 30-day evaluation) are drawn faint and may run off the
    top of the axis, which is scaled to the relevant bars.
    """
    with language(lang):
        everyone = results_of(results)
        # On two lines (vendor, offering) under each candidate's group of bars.
        rows = [
            (result, label)
            for result, label in zip(
                everyone, unique_labels(everyone, 22, two_line_label), strict=True
            )
            if result.tco is not None
        ]
        if not rows:
            return empty_figure(_("No prices yet: enter a price to see the cost picture."))
        missing = [r.label for r in everyone if r.tco is None]
        billing = billing_names()
        outer, inner, bars, full = [], [], [], []
        for result, label in rows:
            for model in result.tco.models:
                outer.append(
                    markup("{}<br>{}", label, _disqualified()) if result.disqualified else label
                )
                inner.append(billing.get(model.billing_model, model.billing_model))
                bars.append((result.tco, model))
                full.append(
                    disqualified_label(result.label) if result.disqualified else result.label
                )
        relevant = [
            duration_days is None or duration_days >= MODEL_MIN_DAYS.get(model.billing_model, 0)
            for _tco, model in bars
        ]
        currencies = list(dict.fromkeys(tco.currency for tco, _model in bars))
        currency = " / ".join(currencies)
        x = [outer, inner]
        names = component_names()
        traces = []
        # Rubric v2 adds the commitment and operations components: shown when present.
        present = [c for c in COMPONENTS_V2 if any(c in dict(m.components) for _tco, m in bars)]
        for component in present:
            name = names[component]
            traces.append(
                {
                    "type": "bar",
                    "name": name,
                    "x": x,
                    "y": [number(dict(m.components).get(component, 0)) for _tco, m in bars],
                    "customdata": [
                        [model.currency, who] for (_tco, model), who in zip(bars, full, strict=True)
                    ],
                    "marker": {
                        "color": COMPONENT_COLOURS[component],
                        "opacity": [1.0 if ok else 0.3 for ok in relevant],
                    },
                    "hovertemplate": markup(
                        "%{{customdata[1]}}<br>{}{}%{{y:,.2f}} %{{customdata[0]}}<extra></extra>",
                        name,
                        colon(),
                    ),
                }
            )
        cheapest = _("cheapest")
        v2 = "commitment" in present
        zh = (get_language() or "").startswith("zh")
        recommended = _("recommended")

        def _text(tco, model) -> Markup:
            text = markup("{:,.0f}", model.total)
            if model.billing_model == tco.cheapest:
                text = markup("<b>{}</b>", text)
            if v2 and model.billing_model == tco.recommended:
                text = markup("{} ✓", text)
            return text

        def _note(tco, model) -> str:
            notes = [cheapest] if model.billing_model == tco.cheapest else []
            if v2 and model.billing_model == tco.recommended:
                reason = tco.recommended_reason[1 if zh else 0]
                notes.append(f"{recommended}{colon()}{reason}")
            return " · ".join(notes)

        traces.append(
            {
                "type": "scatter",
                "name": _("Total"),
                "x": x,
                "y": [number(model.total) for _tco, model in bars],
                "mode": "text",
                "text": [_text(tco, model) for tco, model in bars],
                "textposition": "top center",
                "cliponaxis": True,
                "textfont": {"color": "#1d2430", "size": 11},
                "customdata": [[model.currency, _note(tco, model)] for tco, model in bars],
                "hovertemplate": markup(
                    "{}{}%{{y:,.2f}} %{{customdata[0]}} %{{customdata[1]}}<extra></extra>",
                    _("Total"),
                    colon(),
                ),
                "showlegend": False,
            }
        )
        layout = {
            "barmode": "stack",
            "height": 520,
            "xaxis": {"type": "multicategory", "tickfont": {"size": 12}},
            "yaxis": {
                "title": {
                    "text": _("Total cost over the evaluation ({currency})").format(
                        currency=currency
                    )
                },
                "tickformat": ",.0f",
                "rangemode": "tozero",
            },
        }
        _scale_to_relevant(layout, bars, relevant, budget)
        if budget:
            layout["shapes"] = [
                {
                    "type": "line",
                    "xref": "paper",
                    "x0": 0,
                    "x1": 1,
                    "y0": budget,
                    "y1": budget,
                    "line": {"color": "#d1495b", "width": 2, "dash": "dash"},
                }
            ]
            layout.setdefault("annotations", []).append(
                note(
                    _("Budget {amount:,.0f}").format(amount=budget),
                    x=1,
                    y=budget,
                    yref="y",
                    xanchor="right",
                    yanchor="bottom",
                    color="#d1495b",
                )
            )
        if missing:
            _not_shown(layout, missing)
        return figure(traces, **layout)


def _scale_to_relevant(layout, bars, relevant, budget) -> None:
    """When faint (irrelevant) bars dwarf the rest, the axis is scaled to the relevant bars
    and the budget; the faint ones run off the top with their total still written."""
    totals = [float(model.total) for _tco, model in bars]
    wanted = [t for t, ok in zip(totals, relevant, strict=True) if ok]
    if not wanted or all(relevant):
        return
    top = max([*wanted, float(budget or 0)]) * 1.2
    if max(totals) > top:
        layout["yaxis"]["range"] = [0, top]
        layout["yaxis"].pop("rangemode", None)
        layout.setdefault("annotations", []).append(
            note(
                _("Faint bars: billing terms longer than the evaluation (cut off)"),
                x=1,
                y=0,
                yshift=-80,
                xanchor="right",
                size=11,
            )
        )
        layout["margin"] = {**layout.get("margin", {}), "b": 110}


def _not_shown(layout: dict[str, Any], labels: list[str]) -> None:
    """A note under the plot naming the candidates left out for want of a price."""
    layout.setdefault("annotations", []).append(
        note(
            _("Not shown (no price): {labels}").format(labels=", ".join(labels)),
            x=0,
            y=0,
            yshift=-80,
        )
    )
    layout["margin"] = {**layout.get("margin", {}), "b": 110}


def pareto_front(points: Iterable[Point]) -> list[Point]:
    """The qualified points with a cost that no other such point beats on both counts: none
    has a cost as low and a score as high with at least one strictly better. Lower cost and
    higher score are better; disqualified points and points without a cost never count.

    Returned sorted by cost ascending (then score descending, then label), so drawing them in
    order traces the front; equal points are all kept.
    """
    usable = [(p, number(p[1]), p[2]) for p in points if not p[3] and number(p[1]) is not None]
    front = [
        point
        for point, cost, score in usable
        if not any(
            other_cost <= cost
            and other_score >= score
            and (other_cost, other_score) != (cost, score)
            for _other, other_cost, other_score in usable
        )
    ]
    return sorted(front, key=lambda p: (number(p[1]), -p[2], p[0]))


def value_for_money(
    points: Iterable[Point], *, currency: str | None = None, lang: str | None = None
) -> FigureJson:
    """Scatter of cost per effective GPU-hour (x) against total score (y) for each
    (label, cost, score, disqualified) point, with the Pareto front (see pareto_front) drawn
    as a line through highlighted markers. Disqualified candidates are grey crosses; those
    without a cost are named in a note under the chart. ``currency`` goes in the axis title.
    """
    with language(lang):
        points = list(points)
        shown = [p for p in points if number(p[1]) is not None]
        if not shown:
            return empty_figure(
                _("No cost per effective GPU-hour yet: enter prices to compare value for money.")
            )
        missing = [p[0] for p in points if number(p[1]) is None]
        title = (
            _("Cost per effective GPU-hour ({currency})").format(currency=currency)
            if currency
            else _("Cost per effective GPU-hour")
        )
        # Points carry a short name; the hover gives the full one.
        hover = Markup("%{customdata}<br>%{x:,.2f} · %{y:.1f}<extra></extra>")
        short = distinct_labels(list(enumerate(p[0] for p in shown)))
        highest = max(number(p[1]) or 0.0 for p in shown) or 1.0

        placed = label_positions(
            [(number(p[1]) or 0.0, p[2], short[i]) for i, p in enumerate(shown)], highest
        )
        positions = {id(p): placed[i] for i, p in enumerate(shown)}

        def place(point: Point) -> str:
            return positions[id(point)]

        qualified = [(p, short[i]) for i, p in enumerate(shown) if not p[3]]
        disqualified = [(p, short[i]) for i, p in enumerate(shown) if p[3]]
        traces = []
        if qualified:
            traces.append(
                {
                    "type": "scatter",
                    "name": _("Candidates"),
                    "x": [number(p[1]) for p, _short in qualified],
                    "y": [p[2] for p, _short in qualified],
                    "text": [label for _p, label in qualified],
                    "customdata": [p[0] for p, _short in qualified],
                    "mode": "markers+text",
                    "cliponaxis": False,
                    "textposition": [place(p) for p, _short in qualified],
                    # Each candidate in its own colour (by id), as on every other chart.
                    "marker": {
                        "size": 10,
                        "color": [
                            candidate_colour(p[4] if len(p) > 4 else None, i)
                            for i, (p, _short) in enumerate(qualified)
                        ],
                        "opacity": 0.85,
                    },
                    "hovertemplate": hover,
                }
            )
        if disqualified:
            traces.append(
                {
                    "type": "scatter",
                    "name": _("Disqualified"),
                    "x": [number(p[1]) for p, _short in disqualified],
                    "y": [p[2] for p, _short in disqualified],
                    "text": [label for _p, label in disqualified],
                    "customdata": [disqualified_label(p[0]) for p, _short in disqualified],
                    "mode": "markers+text",
                    "cliponaxis": False,
                    "textposition": [place(p) for p, _short in disqualified],
                    "textfont": {"color": MUTED},
                    "marker": {"size": 10, "color": GREY, "symbol": "x"},
                    "hovertemplate": hover,
                }
            )
        front = pareto_front(shown)
        if front:
            traces.append(
                {
                    "type": "scatter",
                    "name": _("Pareto front"),
                    "x": [number(p[1]) for p in front],
                    "y": [p[2] for p in front],
                    "customdata": [p[0] for p in front],
                    "mode": "lines+markers",
                    "line": {"color": "#d1495b", "width": 2, "dash": "dash", "shape": "hv"},
                    "marker": {
                        "size": 15,
                        "color": "rgba(0,0,0,0)",
                        "line": {"color": "#d1495b", "width": 2.5},
                    },
                    "hovertemplate": hover,
                }
            )
        layout = {
            "height": 460,
            "xaxis": {"title": {"text": title}, "range": [0, x_axis_end(highest)]},
            "yaxis": {"title": {"text": _("Total score (0–100)")}, "range": [0, 105]},
        }
        if missing:
            _not_shown(layout, missing)
        return figure(traces, **layout)
