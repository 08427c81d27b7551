"""Plotly figures for the evaluation pages, built from scoring results (never from queries).

Each builder returns a Plotly figure (``{"data": [...], "layout": {...}}``) as plain JSON
types, ready for ``json_script`` and static/portal/charts.js. Labels are in the active
language, or in ``lang`` ("en", "zh-hans") when given. Empty input gives a figure with an
explanatory note.
"""

from .base import FigureJson, empty_figure
from .costs import pareto_front, tco_bars, value_for_money
from .evidence import busbw_curves
from .robustness import robustness_bars
from .scores import contributions_bars, radar

__all__ = [
    "FigureJson",
    "busbw_curves",
    "contributions_bars",
    "empty_figure",
    "pareto_front",
    "radar",
    "robustness_bars",
    "tco_bars",
    "value_for_money",
]
