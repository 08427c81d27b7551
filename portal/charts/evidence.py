"""Evidence figures: measured nccl-tests bus bandwidth against message size."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from ..metric_labels import size_label
from .base import FigureJson, colon, empty_figure, figure, language, number, short_label


def _points(curve: Sequence[Mapping[str, Any]]) -> list[tuple[float, float]]:
    """(size, busbw) pairs a log axis can show, sorted by size; rows without a bus bandwidth
    (N/A cells) or with a zero size are dropped."""
    points = {}
    for row in curve or ():
        size, busbw = number(row.get("size_bytes")), number(row.get("busbw_gbyte_s"))
        if size is not None and busbw is not None and size > 0:
            points[size] = busbw
    return sorted(points.items())


def busbw_curves(
    curves: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    lang: str | None = None,
    colours: Mapping[str, str] | None = None,
) -> FigureJson:
    """Lines of bus bandwidth (GB/s, 10^9 bytes) against message size (bytes, log axis), one
    per candidate.

    ``curves`` maps a candidate label to the nccl-tests parser's ``metrics["curve"]`` rows
    (``size_bytes``, ``busbw_gbyte_s``, other keys ignored). Rows sharing a size keep the
    last one; a candidate without a usable row is left out. ``colours`` maps a label to its
    candidate's colour (``candidate_colour``), so a line keeps the colour of the candidate.
    """
    with language(lang):
        series = {label: _points(curve) for label, curve in (curves or {}).items()}
        series = {label: points for label, points in series.items() if points}
        if not series:
            return empty_figure(_("No nccl-tests results uploaded yet."))
        sizes = [size for points in series.values() for size, _busbw in points]
        low, high = math.floor(math.log2(min(sizes))), math.ceil(math.log2(max(sizes)))
        # About six ticks at powers of two, whatever the span of sizes.
        step = max(1, math.ceil((high - low) / 6))
        ticks = [2.0**n for n in range(low, high + 1) if n % step == 0] or [min(sizes)]
        traces = [
            {
                "type": "scatter",
                "name": short_label(label),
                "x": [size for size, _busbw in points],
                "y": [busbw for _size, busbw in points],
                "customdata": [size_label(size) for size, _busbw in points],
                "mode": "lines+markers",
                "marker": {"size": 5},
                "hovertemplate": f"%{{customdata}}{colon()}%{{y:.1f}} GB/s",
                **({"line": {"color": colours[label]}} if colours and label in colours else {}),
            }
            for label, points in series.items()
        ]
        return figure(
            traces,
            height=440,
            xaxis={
                "type": "log",
                # The ticks name their unit (1 MiB, 16 GiB): "bytes" in the title contradicted them.
                "title": {"text": _("Message size")},
                "tickvals": ticks,
                "ticktext": [size_label(t) for t in ticks],
            },
            yaxis={"title": {"text": _("Bus bandwidth (GB/s)")}, "rangemode": "tozero"},
            hovermode="x unified",
        )
