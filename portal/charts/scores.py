"""Score figures: the six-dimension radar and the weighted contributions behind each total."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from scoring.types import DIMENSIONS
from scoring.weights import normalise_weights

from .base import (
    DIMENSION_COLOURS,
    DIMENSION_GREYS,
    GREY,
    MUTED,
    FigureJson,
    Results,
    candidate_colour,
    colon,
    dimension_names,
    disqualified_label,
    empty_figure,
    figure,
    language,
    markup,
    note,
    results_of,
    unique_labels,
)


def _fill(colour: str, alpha: float = 0.12) -> str:
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def _full_name(result) -> str:
    return disqualified_label(result.label) if result.disqualified else result.label


def radar(
    results: Results,
    dimension_labels: Mapping[str, str] | Sequence[str] | None = None,
    *,
    lang: str | None = None,
) -> FigureJson:
    """One closed Scatterpolar per candidate over the six dimension scores (0..100).

    ``results`` is a scoring Ranking or a sequence of CandidateResult (the selected
    candidates, in the order to draw them); ``dimension_labels`` maps dimensions to labels
    (or lists six labels in DIMENSIONS order) and defaults to the translated dimension names.
    A disqualified candidate is drawn grey and dotted, its name marked "(disqualified)".
    """
    with language(lang):
        rows = results_of(results)
        if not rows:
            return empty_figure(_("Select at least one candidate to compare."))
        labels = dimension_names(dimension_labels)
        theta = [labels[d] for d in DIMENSIONS]
        traces = []
        for index, (result, label) in enumerate(zip(rows, unique_labels(rows), strict=True)):
            scores = [result.score(d) for d in DIMENSIONS]
            colour = GREY if result.disqualified else candidate_colour(result.candidate_id, index)
            traces.append(
                {
                    "type": "scatterpolar",
                    # Repeating the first point closes the polygon.
                    "r": [*scores, scores[0]],
                    "theta": [*theta, theta[0]],
                    "name": disqualified_label(label) if result.disqualified else label,
                    # The legend shows the short name, the hover the full one.
                    "text": [_full_name(result)] * (len(scores) + 1),
                    "mode": "lines+markers",
                    "fill": "toself",
                    "fillcolor": _fill(colour),
                    "line": {
                        "color": colour,
                        "width": 2,
                        "dash": "dot" if result.disqualified else "solid",
                    },
                    "marker": {"size": 6},
                    "hovertemplate": markup(
                        "%{{text}}<br>%{{theta}}{}%{{r:.1f}}<extra></extra>", colon()
                    ),
                }
            )
        return figure(
            traces,
            polar={
                "radialaxis": {
                    "range": [0, 100],
                    "tickvals": [0, 25, 50, 75, 100],
                    "gridcolor": "#d9dee5",
                    "angle": 90,
                    "tickfont": {"color": MUTED, "size": 11},
                },
                "angularaxis": {"direction": "clockwise", "gridcolor": "#d9dee5"},
            },
            height=460,
            margin={"l": 70, "r": 70, "t": 60, "b": 40},
        )


def contributions_bars(
    results: Results,
    weights: Mapping[str, Any],
    dimension_labels: Mapping[str, str] | Sequence[str] | None = None,
    *,
    lang: str | None = None,
) -> FigureJson:
    """Stacked horizontal bars: each dimension's weighted contribution (weight x score, weights
    normalised to sum 1) to each candidate's total, in the order given (ranking order, top
    first), with the total written at the end of the bar.

    Disqualified candidates are drawn in greys and labelled "(disqualified)". Raises
    scoring's WeightsError on malformed weights (negative, unknown dimension, all zero).
    """
    with language(lang):
        rows = results_of(results)
        if not rows:
            return empty_figure(_("No candidates to compare yet."))
        share = normalise_weights(weights)
        labels = dimension_names(dimension_labels)
        # Short names: the greys say "disqualified" (with the note below), the hover in words.
        names = unique_labels(rows)
        traces = []
        for dimension in DIMENSIONS:
            weight = share[dimension]
            traces.append(
                {
                    "type": "bar",
                    "orientation": "h",
                    "name": labels[dimension],
                    "y": names,
                    "x": [weight * r.score(dimension) for r in rows],
                    "customdata": [[r.score(dimension), weight * 100, _full_name(r)] for r in rows],
                    "marker": {
                        "color": [
                            DIMENSION_GREYS[dimension]
                            if r.disqualified
                            else DIMENSION_COLOURS[dimension]
                            for r in rows
                        ],
                        "line": {"color": "#ffffff", "width": 1},
                    },
                    "hovertemplate": markup(
                        "%{{customdata[2]}}<br>{}{}%{{customdata[0]:.1f}} × %{{customdata[1]:.1f}}"
                        " % = %{{x:.1f}}<extra></extra>",
                        labels[dimension],
                        colon(),
                    ),
                }
            )
        traces.append(
            {
                "type": "scatter",
                "name": _("Total"),
                "y": names,
                "x": [r.total for r in rows],
                "mode": "text",
                "text": [f"{r.total:.1f}" for r in rows],
                "textposition": "middle right",
                "cliponaxis": False,
                "textfont": {"color": [MUTED if r.disqualified else "#1d2430" for r in rows]},
                "showlegend": False,
                "hoverinfo": "skip",
            }
        )
        layout: dict[str, Any] = {}
        if any(r.disqualified for r in rows):
            layout["annotations"] = [
                note(_("Grey bars: disqualified candidates."), x=0, y=0, yshift=-60)
            ]
        return figure(
            traces,
            barmode="stack",
            height=170 + 46 * len(rows),
            xaxis={"title": {"text": _("Points of the total score")}, "range": [0, 112]},
            yaxis={"autorange": "reversed", "type": "category"},
            margin={"b": 80},
            **layout,
        )
