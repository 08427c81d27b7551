"""Robustness figures: how often each candidate ranks first, and the weight changes that flip
the leader."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from scoring.robustness import Robustness
from scoring.types import DIMENSIONS

from .base import (
    CANDIDATE_COLOURS,
    GREY,
    INK,
    MUTED,
    FigureJson,
    Markup,
    colon,
    dimension_names,
    distinct_labels,
    empty_figure,
    figure,
    language,
    markup,
    note,
    two_line_label,
    wrapped,
)

NO_FLIP_COLOUR = "#eef1f5"
# Small changes (a fragile lead) in red, large ones in green; 0..100 percentage points.
FLIP_COLOURSCALE = [[0.0, "#d1495b"], [0.15, "#f0a35e"], [0.4, "#f7e3a1"], [1.0, "#d8f3df"]]
# The two stacked panels: bars on top, flips below, as shares of the height left by the gap.
ROW_HEIGHTS = (0.45, 0.55)
VERTICAL_SPACING = 0.2


def _panel_domains() -> tuple[list[float], list[float]]:
    """The y domains of the top and bottom panels (paper coordinates, 0 at the bottom)."""
    free = 1.0 - VERTICAL_SPACING
    top, bottom = (free * (h / float(sum(ROW_HEIGHTS))) for h in ROW_HEIGHTS)
    start = bottom + VERTICAL_SPACING
    return [min(start, 1.0), min(start + top, 1.0)], [0.0, bottom]


def _names(ids: Sequence[int], labels: Mapping[int, str]) -> tuple[dict[int, str], dict[int, str]]:
    """Full names (for the hover sentences) and short ones (for the axes), both unique."""
    full = {i: str(labels.get(i, f"#{i}")) for i in ids}
    counts = Counter(full.values())
    full = {i: f"{n} #{i}" if counts[n] > 1 else n for i, n in full.items()}
    short = dict(zip(ids, distinct_labels([(i, full[i]) for i in ids]), strict=True))
    return full, short


def _bar_names(ids: Sequence[int], full: Mapping[int, str]) -> dict[int, str]:
    """The names under the bars, on two lines so that they stand level."""
    named = [(i, full[i]) for i in ids]
    return dict(zip(ids, distinct_labels(named, 22, two_line_label), strict=True))


def _stability_bar(robustness: Robustness, ids: list[int], full: dict[int, str]) -> dict[str, Any]:
    shares = robustness.stability.first_share
    # A share's label sits inside a tall bar: outside, "100 %" rose above the axis range into
    # the panel title (the top panel of the two is short, printed or not).
    inside = [shares[i] >= 0.5 for i in ids]
    leader = [i == robustness.leader_id for i in ids]
    return {
        "type": "bar",
        "name": _("Ranked first"),
        "x": list(_bar_names(ids, full).values()),
        "customdata": [full[i] for i in ids],
        "y": [shares[i] * 100 for i in ids],
        "text": [f"{shares[i] * 100:.0f} %" for i in ids],
        "textposition": ["inside" if tall else "outside" for tall in inside],
        "insidetextanchor": "end",
        "insidetextfont": {"color": ["#ffffff" if lead else INK for lead in leader]},
        "cliponaxis": False,
        "marker": {"color": [CANDIDATE_COLOURS[0] if lead else GREY for lead in leader]},
        "hovertemplate": markup("%{{customdata}}{}%{{y:.1f}} %<extra></extra>", colon()),
        "showlegend": False,
    }


def _flip_cells(
    robustness: Robustness,
    full: dict[int, str],
    short: dict[int, str],
    dimensions: dict[str, str],
) -> tuple[list[str], list[list[Any]], list[list[str]], list[list[str]]]:
    """Rows (other candidates in ranking order), |change| in pp (None when no flip), cell
    texts and hover sentences."""
    leader = full[robustness.leader_id] if robustness.leader_id is not None else ""
    rows: list[int] = list(dict.fromkeys(f.other_id for f in robustness.flips))
    cell = {(f.other_id, f.dimension): f for f in robustness.flips}
    # Translated once, not once per cell (up to 6 cells per other candidate).
    # xgettext:no-python-format
    no_flip = _("No {dimension} weight within 0–100 % lets {other} overtake {leader}.")
    overtakes = _(
        "{other} overtakes {leader} when the {dimension} weight goes from "
        "{old} % to {new} % ({change} pp)."
    )
    z, text, hover = [], [], []
    for other in rows:
        z_row, text_row, hover_row = [], [], []
        for dimension in DIMENSIONS:
            flip = cell.get((other, dimension))
            words = {"other": full[other], "leader": leader, "dimension": dimensions[dimension]}
            if flip is None or flip.change_pp is None:
                z_row.append(None)
                text_row.append("")
                hover_row.append(no_flip.format(**words))
            else:
                z_row.append(abs(flip.change_pp))
                text_row.append(f"{flip.change_pp:+.1f}")
                hover_row.append(
                    overtakes.format(
                        old=f"{flip.weight_pct:.1f}",
                        new=f"{flip.new_weight_pct:.1f}",
                        change=f"{flip.change_pp:+.1f}",
                        **words,
                    )
                )
        z.append(z_row)
        text.append(text_row)
        hover.append(hover_row)
    return [short[i] for i in rows], z, text, hover


def robustness_bars(
    robustness: Robustness | None,
    labels: Mapping[int, str],
    dimension_labels: Mapping[str, str] | Sequence[str] | None = None,
    *,
    lang: str | None = None,
) -> FigureJson:
    """Two panels: bars of the share of seeded weight draws in which each candidate ranks
    first (the leader in colour), and a table-like heatmap of the weight change, in
    percentage points, of each dimension that would let each other qualified candidate
    overtake the leader (cells coloured by size: small = fragile; grey "—" = no weight
    within 0-100 % does it).

    ``robustness`` is scoring's Robustness; ``labels`` maps candidate ids to labels, in the
    order to draw the bars (ids it lacks follow, named "#id"). With fewer than two qualified
    candidates only the first panel is drawn.
    """
    with language(lang):
        if robustness is None or not robustness.stability.first_share:
            return empty_figure(_("No candidates to test yet."))
        if robustness.leader_id is None:
            return empty_figure(_("Every candidate is disqualified: there is no leader to test."))
        shares = robustness.stability.first_share
        ids = [i for i in labels if i in shares] + [i for i in shares if i not in labels]
        full, short = _names(ids, labels)
        stability = robustness.stability
        bars_title = _(
            "Share of {draws} weight draws (each weight ±{pct} %) in which each candidate "
            "ranks first"
        ).format(draws=stability.draws, pct=f"{stability.perturbation_pct:g}")
        bars_title = wrapped(bars_title)
        # The panel title names the share; a rotated axis title ran up into it in the short top
        # panel, so the ticks carry the unit instead.
        share_axis = {"ticksuffix": " %", "range": [0, 110]}
        if not robustness.flips:
            return figure(
                [_stability_bar(robustness, ids, full)],
                title={"text": bars_title, "font": {"size": 14}},
                height=360,
                xaxis={"tickangle": 0},
                yaxis=share_axis,
                margin={"t": 60},
            )

        dimensions = dimension_names(dimension_labels)
        rows, z, text, hover = _flip_cells(robustness, full, short, dimensions)
        columns = [dimensions[d] for d in DIMENSIONS]
        flips_title = wrapped(
            _(
                "Weight change (percentage points) that lets another candidate overtake {leader}"
            ).format(leader=short[robustness.leader_id])
        )
        # Two panels stacked as plotly's make_subplots(rows=2, cols=1) lays them out: the
        # bars on axes x/y, the flips on axes x2/y2, each panel's title above it.
        top, bottom = _panel_domains()
        no_flip = [
            (r, c) for r, row in enumerate(z) for c, value in enumerate(row) if value is None
        ]
        traces = [
            {**_stability_bar(robustness, ids, full), "xaxis": "x", "yaxis": "y"},
            # The grey layer under the cells where no weight flips the leader: a visible "—"
            # instead of a hole.
            {
                "type": "heatmap",
                "name": _("No flip"),
                "x": columns,
                "y": rows,
                "z": [[1 if value is None else None for value in row] for row in z],
                "colorscale": [[0, NO_FLIP_COLOUR], [1, NO_FLIP_COLOUR]],
                "showscale": False,
                "xgap": 2,
                "ygap": 2,
                "hoverinfo": "skip",
                "xaxis": "x2",
                "yaxis": "y2",
            },
            {
                "type": "heatmap",
                "name": _("Weight change"),
                "x": columns,
                "y": rows,
                "z": z,
                "zmin": 0,
                "zmax": 100,
                "colorscale": FLIP_COLOURSCALE,
                "text": text,
                "texttemplate": "%{text}",
                "customdata": hover,
                "hovertemplate": Markup("%{customdata}<extra></extra>"),
                "xgap": 2,
                "ygap": 2,
                "colorbar": {
                    "title": {"text": pgettext("percentage points, a colour scale's title", "pp")},
                    "len": 0.5,
                    "y": 0,
                    "yanchor": "bottom",
                    "thickness": 12,
                },
                "xaxis": "x2",
                "yaxis": "y2",
            },
            # The "—" of cells without a flip, drawn as text over the grey layer.
            {
                "type": "scatter",
                "name": _("No flip"),
                "x": [columns[c] for _r, c in no_flip],
                "y": [rows[r] for r, _c in no_flip],
                "text": [hover[r][c] for r, c in no_flip],
                "mode": "text",
                "texttemplate": "—",
                "textfont": {"color": MUTED},
                "hovertemplate": Markup("%{text}<extra></extra>"),
                "xaxis": "x2",
                "yaxis": "y2",
            },
        ]
        titles = [
            note(title, x=0.5, y=domain[1], xanchor="center", yanchor="bottom", size=14, color=None)
            for title, domain in ((bars_title, top), (flips_title, bottom))
        ]
        footnote = note(
            # xgettext:no-python-format
            _("Grey “—”: no weight within 0–100 % changes who leads."),
            x=0,
            y=-0.08,
        )
        return figure(
            traces,
            xaxis={"anchor": "y", "domain": [0.0, 1.0], "tickangle": 0},
            yaxis={"anchor": "x", "domain": top, **share_axis},
            xaxis2={"anchor": "y2", "domain": [0.0, 1.0], "type": "category", "side": "bottom"},
            yaxis2={
                "anchor": "x2",
                "domain": bottom,
                "autorange": "reversed",
                "type": "category",
            },
            annotations=[*titles, footnote],
            height=460 + 36 * len(rows),
            margin={"t": 60, "b": 70},
            showlegend=False,
        )
