"""Shared pieces of the chart builders: the house template, palettes, labels and JSON clean-up."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from portal.models.choices import Dimension
from scoring.ranking import Ranking
from scoring.types import DIMENSIONS, CandidateResult

FigureJson = dict[str, Any]
# What the score figures take: a whole ranking, or the chosen results in drawing order.
Results = Ranking | Sequence[CandidateResult]

FONT_FAMILY = (
    'system-ui, -apple-system, "Segoe UI", "PingFang SC", "Microsoft YaHei", '
    '"Noto Sans CJK SC", sans-serif'
)
MUTED = "#5b6676"
GRID = "#e3e8ef"
GREY = "#b0b7c1"

# One colour per dimension, and a lighter grey per dimension for disqualified candidates, so a
# disqualified bar still shows its parts but never reads as a competing option.
DIMENSION_COLOURS = {
    "stability": "#1f5fbf",
    "network": "#2a9d8f",
    "storage": "#e9a23b",
    "security": "#8e5bd0",
    "cost": "#d1495b",
    "support": "#5b8c2a",
}
DIMENSION_GREYS = {
    "stability": "#8f98a4",
    "network": "#a3abb5",
    "storage": "#b7bec7",
    "security": "#9aa2ad",
    "cost": "#adb4be",
    "support": "#c3c9d0",
}
CANDIDATE_COLOURS = (
    "#1f5fbf",
    "#d1495b",
    "#2a9d8f",
    "#e9a23b",
    "#8e5bd0",
    "#5b8c2a",
    "#c2571a",
    "#3a7ca5",
    "#a23b72",
    "#6b705c",
)

# A small explicit template: without one, plotly.js would fall back to plotly's ~7 kB default.
TEMPLATE = {
    "layout": {
        "font": {"family": FONT_FAMILY, "size": 13, "color": "#1d2430"},
        "colorway": list(CANDIDATE_COLOURS),
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "hoverlabel": {"font": {"family": FONT_FAMILY}},
        "xaxis": {"gridcolor": GRID, "zerolinecolor": GRID, "automargin": True},
        "yaxis": {"gridcolor": GRID, "zerolinecolor": GRID, "automargin": True},
        "legend": {
            "orientation": "h",
            "yanchor": "bottom",
            "y": 1.02,
            "x": 0,
            "traceorder": "normal",
        },
    }
}


@contextmanager
def language(lang: str | None) -> Iterator[None]:
    """Build a figure in ``lang`` ("en", "zh-hans"), or in the active language when None."""
    if lang:
        with translation.override(lang):
            yield
    else:
        yield


def figure(data: list[dict[str, Any]], **layout: Any) -> FigureJson:
    """A Plotly figure from trace dicts (each with its ``type``) and layout attributes, as
    plain JSON types (lists, dicts, str, float, int, bool, None), with the house template.

    The builders write the figure JSON directly: plotly.graph_objects would validate and
    deep-copy every property on each request, which cost more than the rest of the page.
    """
    return plain({"data": data, "layout": {**layout, "template": TEMPLATE}})


def empty_figure(message: str) -> FigureJson:
    """A figure with no data and ``message`` in its middle, instead of an error or a blank box."""
    return figure(
        [],
        xaxis={"visible": False},
        yaxis={"visible": False},
        height=260,
        annotations=[
            {
                "text": message,
                "xref": "paper",
                "yref": "paper",
                "x": 0.5,
                "y": 0.5,
                "showarrow": False,
                "font": {"size": 15, "color": MUTED},
            }
        ],
    )


def plain(value: Any) -> Any:
    """``value`` with tuples, Decimals and array-likes turned into what json.dumps accepts.

    Non-finite floats become None: JSON has no NaN and plotly draws None as a gap.
    """
    kind = type(value)
    # The types the builders produce, by identity first: this walks every value of every
    # figure on each request.
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is list:
        return [plain(item) for item in value]
    if kind is dict:
        return {key if type(key) is str else str(key): plain(item) for key, item in value.items()}
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return plain(float(value))
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return plain(value.tolist())
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(item) for item in value]
    return str(value)


def number(value: Any) -> float | None:
    """A Decimal/int/float as a float, None when absent or not finite."""
    if value is None or isinstance(value, bool):
        return None
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return result if math.isfinite(result) else None


def dimension_names(labels: Mapping[str, str] | Sequence[str] | None = None) -> dict[str, str]:
    """Dimension -> label in the active language; ``labels`` (a mapping, or six labels in
    DIMENSIONS order) override the defaults."""
    result = {value: str(label) for value, label in Dimension.choices}
    if labels is None:
        return result
    if isinstance(labels, Mapping):
        result.update({d: str(labels[d]) for d in DIMENSIONS if d in labels})
    else:
        result.update({d: str(label) for d, label in zip(DIMENSIONS, labels, strict=False)})
    return result


def disqualified_label(label: str) -> str:
    return _("{label} (disqualified)").format(label=label)


def results_of(results: Results | None) -> list[CandidateResult]:
    """The CandidateResults of a scoring Ranking or of a sequence of results."""
    return list(getattr(results, "results", results) or ())


def unique_labels(results: Sequence[CandidateResult]) -> list[str]:
    """Candidate labels, with "#id" added to labels that appear twice (a category axis would
    otherwise merge their bars)."""
    labels = [r.label for r in results]
    counts = {label: labels.count(label) for label in labels}
    return [f"{r.label} #{r.candidate_id}" if counts[r.label] > 1 else r.label for r in results]
