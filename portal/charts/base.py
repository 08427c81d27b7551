"""Shared pieces of the chart builders: the house template, palettes, labels, the escaping of
text for Plotly and JSON clean-up."""

from __future__ import annotations

import collections
import functools
import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

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
INK = "#1d2430"
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
        "font": {"family": FONT_FAMILY, "size": 13, "color": INK},
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


class Markup(str):
    """Text the chart code wrote with Plotly's markup on purpose (``<br>``, ``<b>``,
    ``<extra>``): ``figure`` keeps it as it is and escapes every other string. Build it with
    ``markup`` (which escapes what it inserts) or ``escape``, never from user text directly."""

    __slots__ = ()


def _escaped(text: str) -> str:
    # Plotly reads a subset of HTML in every text it draws (labels, ticks, hover, legend,
    # titles: <a href>, <span style>, <b>...), splitting tags first and then decoding the named
    # entities amp/lt/gt (and numeric ones, but not &quot;) in the text between them, so these
    # three are enough for a name to be shown as typed. Quotes cannot open a tag.
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def escape(text: Any) -> Markup:
    """``text`` as Plotly should show it literally; Markup is returned unchanged."""
    if isinstance(text, Markup):
        return text
    return Markup(_escaped(str(text)))


def colon() -> str:
    """What follows a label before its value in hover text: ": " in English, the full-width
    colon (no space) in Chinese."""
    return pgettext("after a label", ": ")


def markup(template: str, *args: Any, **kwargs: Any) -> Markup:
    """``template`` (the code's own markup) formatted with its text arguments escaped (see
    ``escape``; Markup arguments are kept, numbers are formatted as the template says)."""

    def safe(value: Any) -> Any:
        return escape(value) if isinstance(value, str) else value

    return Markup(
        template.format(*map(safe, args), **{key: safe(value) for key, value in kwargs.items()})
    )


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

    Every string is escaped for Plotly (see ``plain``) except Markup: a vendor's, offering's or
    candidate's name is shown as typed wherever a builder puts it, never read as markup.

    The builders write the figure JSON directly: plotly.graph_objects would validate and
    deep-copy every property on each request, which cost more than the rest of the page.
    """
    return plain({"data": data, "layout": {**layout, "template": TEMPLATE}})


def note(
    text: str,
    *,
    x: float,
    y: float,
    xanchor: str = "left",
    yanchor: str = "top",
    size: int = 12,
    color: str = MUTED,
    **placement: Any,
) -> dict[str, Any]:
    """A text annotation placed on the paper (the whole plot area, 0 to 1), without an arrow;
    ``placement`` adds Plotly's other keys (``yshift``, ``yref`` of an axis, ...)."""
    font = {"size": size} if color is None else {"color": color, "size": size}
    return {
        "text": text,
        "xref": "paper",
        "yref": "paper",
        "x": x,
        "y": y,
        "xanchor": xanchor,
        "yanchor": yanchor,
        "showarrow": False,
        "font": font,
        **placement,
    }


def empty_figure(message: str) -> FigureJson:
    """A figure with no data and ``message`` in its middle, instead of an error or a blank box."""
    return figure(
        [],
        xaxis={"visible": False},
        yaxis={"visible": False},
        height=260,
        annotations=[
            note(message, x=0.5, y=0.5, xanchor="auto", yanchor="auto", size=15),
        ],
    )


def plain(value: Any) -> Any:
    """``value`` with tuples, Decimals and array-likes turned into what json.dumps accepts,
    every string but Markup escaped so that Plotly shows it literally (dict keys, Plotly's
    attribute names, are left alone).

    Non-finite floats become None: JSON has no NaN and plotly draws None as a gap.
    """
    kind = type(value)
    # The types the builders produce, by identity first: this walks every value of every
    # figure on each request.
    if kind is str:
        return _escaped(value)
    if kind is Markup:
        return str(value)
    if kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is list:
        return [plain(item) for item in value]
    if kind is dict:
        return {key if type(key) is str else str(key): plain(item) for key, item in value.items()}
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, Markup):
        return str(value)
    if isinstance(value, str):
        return _escaped(str(value))
    if isinstance(value, bool | int):
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
    """``label`` marked "(disqualified)"; Markup stays Markup (the label escaped in it)."""
    if isinstance(label, Markup):
        return markup(_("{label} (disqualified)"), label=label)
    return _("{label} (disqualified)").format(label=label)


def results_of(results: Results | None) -> list[CandidateResult]:
    """The CandidateResults of a scoring Ranking or of a sequence of results."""
    return list(getattr(results, "results", results) or ())


# Candidate names run long ("Vendor (供应商) · 8x H100 bare metal, NDR fat-tree"): on an axis or
# in a legend a full name squeezes the plot to nothing, so charts show a shortened name and
# the full one on hover.
LABEL_COLUMNS = 30


def _columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


_ASIDE = re.compile(r"\s*[(（][^()（）]*[)）]")


def _fits(label: str, columns: int) -> bool:
    return sum(map(_columns, label)) <= columns


@functools.lru_cache(maxsize=4096)
def short_label(label: str, columns: int = LABEL_COLUMNS) -> str:
    """``label`` within ``columns`` display columns (a CJK character takes two); unchanged
    when it fits. Otherwise asides in brackets go first (a vendor's second name: "Hanhai
    Compute (瀚海算力) · HGX H100" keeps the offering in view), then the end is cut at a word
    boundary when one is near, with "…"."""
    if _fits(label, columns):
        return label
    label = _ASIDE.sub("", label).strip() or label
    if _fits(label, columns):
        return label
    kept, used = [], 0
    for char in label:
        used += _columns(char)
        if used > columns - 1:  # one column for the ellipsis
            break
        kept.append(char)
    text = "".join(kept)
    space = text.rfind(" ")
    if space >= len(text) * 2 // 3:
        text = text[:space]
    return text.rstrip(" ·,;:-(") + "…"


def wrapped(text: str, columns: int = 64) -> Markup:
    """``text`` broken with "<br>" into lines of at most ``columns`` display columns, at spaces
    where there are any (Chinese breaks between characters): plotly never wraps a title, and a
    long one ran off the edge of a printed page."""
    lines: list[str] = []
    line = ""
    for word in re.findall(r"\S+\s*|\s+", text):
        pieces = [word] if _fits(word.rstrip(), columns) else list(word)
        for piece in pieces:
            if line and not _fits((line + piece).rstrip(), columns):
                lines.append(line.rstrip())
                line = piece.lstrip()
            else:
                line += piece
    if line.strip():
        lines.append(line.rstrip())
    return Markup("<br>".join(map(escape, lines)))


def two_line_label(label: str, columns: int = 22) -> str | Markup:
    """A label on two lines under a group of bars: vendor and offering ("Vendor · Offering"
    split at its first " · "), each shortened to ``columns``; one line without a " · "."""
    head, sep, tail = label.partition(" · ")
    if not sep:
        return short_label(label, columns)
    return markup("{}<br>{}", short_label(head, columns), short_label(tail, columns))


def unique_labels(
    results: Sequence[CandidateResult],
    columns: int = LABEL_COLUMNS,
    shorten: Callable[[str, int], str] = short_label,
) -> list[str]:
    """Candidate labels shortened for a chart (see short_label), with "#id" added where two
    would read the same (a category axis would otherwise merge their bars)."""
    return distinct_labels([(r.candidate_id, r.label) for r in results], columns, shorten)


def distinct_labels(
    named: Sequence[tuple[int, str]],
    columns: int = LABEL_COLUMNS,
    shorten: Callable[[str, int], str] = short_label,
) -> list[str]:
    """Short labels of (id, full label) pairs, "#id" added to those that would collide."""
    shown = [shorten(label, columns) for _id, label in named]
    counts = collections.Counter(shown)
    return [
        (markup("{} #{}", label, pk) if isinstance(label, Markup) else f"{label} #{pk}")
        if counts[label] > 1
        else label
        for (pk, _full), label in zip(named, shown, strict=True)
    ]


def candidate_colour(candidate_id: int | None, fallback: int = 0) -> str:
    """A candidate's colour, the same on every chart and page whatever its rank: chosen by its
    id (the fallback index when there is no id)."""
    index = fallback if candidate_id is None else candidate_id
    return CANDIDATE_COLOURS[index % len(CANDIDATE_COLOURS)]
