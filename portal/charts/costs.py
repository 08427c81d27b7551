"""Cost figures: TCO components per billing model, and value for money with its Pareto front."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from scoring.tco import COMPONENTS_V2

from .base import (
    CANDIDATE_COLOURS,
    GREY,
    MUTED,
    FigureJson,
    Results,
    disqualified_label,
    distinct_labels,
    empty_figure,
    figure,
    language,
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
Point = tuple[str, Any, float, bool]


def _disqualified() -> str:
    return _("(disqualified)")


def _billing_names() -> dict[str, str]:
    return {
        "hourly": _("Hourly"),
        "spot": _("Spot"),
        "monthly": _("Monthly"),
        "yearly": _("Yearly"),
    }


def _component_names() -> dict[str, str]:
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


def tco_bars(results: Results, *, lang: str | None = None) -> FigureJson:
    """Stacked bars of the TCO components (gpu, storage, egress, support, licence, setup) for
    every candidate and billing model it has a price for (``Tco.models``), grouped by
    candidate on a two-level axis, with each bar's total on top (the cheapest model in bold).

    ``results`` is a Ranking or a sequence of CandidateResult; candidates without a TCO are
    left out. Amounts are in the candidates' currency, named in the axis title.
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
        billing = _billing_names()
        outer, inner, bars, full = [], [], [], []
        for result, label in rows:
            for model in result.tco.models:
                outer.append(f"{label}<br>{_disqualified()}" if result.disqualified else label)
                inner.append(billing.get(model.billing_model, model.billing_model))
                bars.append((result.tco, model))
                full.append(
                    disqualified_label(result.label) if result.disqualified else result.label
                )
        currencies = list(dict.fromkeys(tco.currency for tco, _model in bars))
        currency = " / ".join(currencies)
        x = [outer, inner]
        names = _component_names()
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
                    "marker": {"color": COMPONENT_COLOURS[component]},
                    "hovertemplate": (
                        f"%{{customdata[1]}}<br>{name}: %{{y:,.2f}} %{{customdata[0]}}"
                        "<extra></extra>"
                    ),
                }
            )
        cheapest = _("cheapest")
        v2 = "commitment" in present
        zh = (get_language() or "").startswith("zh")
        recommended = _("recommended")

        def _text(tco, model) -> str:
            text = f"{model.total:,.0f}"
            if model.billing_model == tco.cheapest:
                text = f"<b>{text}</b>"
            if v2 and model.billing_model == tco.recommended:
                text = f"{text} ✓"
            return text

        def _note(tco, model) -> str:
            notes = [cheapest] if model.billing_model == tco.cheapest else []
            if v2 and model.billing_model == tco.recommended:
                reason = tco.recommended_reason[1 if zh else 0]
                notes.append(f"{recommended}: {reason}")
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
                "textfont": {"color": "#1d2430", "size": 11},
                "customdata": [[model.currency, _note(tco, model)] for tco, model in bars],
                "hovertemplate": (
                    f"{_('Total')}: %{{y:,.2f}} %{{customdata[0]}} %{{customdata[1]}}"
                    "<extra></extra>"
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
        if missing:
            _not_shown(layout, missing)
        return figure(traces, **layout)


def _not_shown(layout: dict[str, Any], labels: list[str]) -> None:
    """A note under the plot naming the candidates left out for want of a price."""
    layout.setdefault("annotations", []).append(
        {
            "text": _("Not shown (no price): {labels}").format(labels=", ".join(labels)),
            "xref": "paper",
            "yref": "paper",
            "x": 0,
            "y": 0,
            "yshift": -80,
            "xanchor": "left",
            "yanchor": "top",
            "showarrow": False,
            "font": {"color": MUTED, "size": 12},
        }
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
        hover = "%{customdata}<br>%{x:,.2f} · %{y:.1f}<extra></extra>"
        short = distinct_labels(list(enumerate(p[0] for p in shown)))
        highest = max(number(p[1]) or 0.0 for p in shown) or 1.0

        def place(point: Point) -> str:
            # Names lean inwards at the edges, so that they stay inside the chart.
            share = (number(point[1]) or 0.0) / highest
            return "top right" if share < 0.3 else "top left" if share > 0.7 else "top center"

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
                    "marker": {"size": 10, "color": CANDIDATE_COLOURS[0], "opacity": 0.75},
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
            "xaxis": {"title": {"text": title}, "rangemode": "tozero"},
            "yaxis": {"title": {"text": _("Total score (0–100)")}, "range": [0, 105]},
        }
        if missing:
            _not_shown(layout, missing)
        return figure(traces, **layout)
