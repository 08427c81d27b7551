"""Chart figures show user-typed names literally: Plotly reads markup in every text it draws."""

from __future__ import annotations

import html
import re

import pytest

from portal import charts
from scoring.api import robustness, score_candidates
from tests.scoring.scoring_factories import candidate, evaluation, offering

# What a catalogue editor could type as a vendor name (security review): drawn as a live
# <a xlink:href> and a 40 px span before names were escaped.
HOSTILE = '<a href="https://e.ex/p">Z</a><span style="font-size:40px">X</span>'

# Plotly's own tag splitting (svg_text_utils.js: SPLIT_TAGS, ONE_TAG) and the tags the chart
# code writes on purpose.
SPLIT_TAGS = re.compile(r"(<[^<>]*>)")
ONE_TAG = re.compile(r"<(/?)([^ >]*)(\s+(.*))?>", re.IGNORECASE)
OUR_TAGS = {"br", "b", "extra"}
ENTITIES = {"amp": "&", "lt": "<", "gt": ">"}


def shown(text: str) -> str:
    """The text Plotly draws for ``text``: tags dropped (<br> as a newline), then the entities
    it decodes between them."""
    out = []
    for piece in SPLIT_TAGS.split(text):
        tag = ONE_TAG.fullmatch(piece)
        if tag and tag.group(2).lower() == "br":
            out.append("\n")
        elif not tag:
            out.append(re.sub(r"&(amp|lt|gt);", lambda m: ENTITIES[m.group(1)], piece))
    return "".join(out)


def tags(text: str) -> set[str]:
    return {m.group(2).lower() for m in ONE_TAG.finditer(text)}


def strings(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


@pytest.fixture(scope="module")
def hostile_ranking():
    # Short enough that no chart shortens it, so every chart shows it whole; the second one
    # is disqualified (its own label and markup paths) and the third has no price (a note).
    return score_candidates(
        [
            candidate(1, label=f"{HOSTILE} · AT&T"),
            candidate(2, label="Beta <b>", offering=offering(gpu_memory_gib=40)),
            candidate(3, label="Delta <i>x</i>", offering=offering(prices=())),
        ],
        evaluation(),
    )


def _figures(ranking):
    labels = {r.candidate_id: r.label for r in ranking.results}
    curve = [{"size_bytes": 2**n, "busbw_gbyte_s": n * 1.5} for n in range(3, 30)]
    points = [
        (r.label, r.tco and r.tco.cost_per_effective_gpu_hour, r.total, r.disqualified)
        for r in ranking.results
    ]
    return {
        "radar": charts.radar(ranking, lang="en"),
        "contributions": charts.contributions_bars(ranking, ranking.weights, lang="en"),
        "tco": charts.tco_bars(ranking, lang="en"),
        "busbw": charts.busbw_curves({HOSTILE: curve}, lang="en"),
        "value": charts.value_for_money(points, currency="CNY", lang="en"),
        "robustness": charts.robustness_bars(
            robustness(ranking, draws=50, seed=1), labels, lang="en"
        ),
    }


def test_no_figure_carries_markup_from_a_name(hostile_ranking):
    for name, figure in _figures(hostile_ranking).items():
        for text in strings(figure):
            assert tags(text) <= OUR_TAGS, (name, text)


def test_every_figure_shows_the_name_as_typed(hostile_ranking):
    for name, figure in _figures(hostile_ranking).items():
        drawn = "\n".join(shown(text) for text in strings(figure))
        # Axes and legends show the name shortened, the hover in full (busbw has no hover name).
        assert '<a href="https://e.ex' in drawn, name
        if name != "busbw":
            assert f"{HOSTILE} · AT&T" in drawn, name
        assert "&lt;" not in drawn and "&amp;" not in drawn, name  # escaped once, not twice


def test_names_are_escaped_in_labels_hover_legend_and_notes(hostile_ranking):
    figures = _figures(hostile_ranking)
    escaped = html.escape(HOSTILE, quote=False)
    radar = figures["radar"]["data"][0]
    assert radar["name"] == '&lt;a href="https://e.ex/p"&gt;Z&lt;/a…'  # legend: shortened
    assert radar["text"][0] == f"{escaped} · AT&amp;T"  # hover: in full
    tco = figures["tco"]
    # Vendor and offering on two lines: our <br> kept, the name around it escaped.
    assert tco["data"][0]["x"][0][0] == '&lt;a href="https://e.ex…<br>AT&amp;T'
    assert tco["data"][0]["customdata"][0][1] == f"{escaped} · AT&amp;T"
    assert "Delta &lt;i&gt;x&lt;/i&gt;" in tco["layout"]["annotations"][-1]["text"]
    assert figures["busbw"]["data"][0]["name"].startswith("&lt;a href=")


def test_our_own_markup_keeps_working(hostile_ranking):
    figures = _figures(hostile_ranking)
    tco = figures["tco"]
    totals = tco["data"][-1]["text"]
    assert any(t.startswith("<b>") and t.endswith("</b>") for t in totals)
    assert all(t["hovertemplate"].endswith("<extra></extra>") for t in tco["data"])
    robust = figures["robustness"]["layout"]["annotations"]
    assert any("<br>" in note["text"] for note in robust)
    # A disqualified candidate's label under the TCO bars: two lines, the name escaped.
    assert "Beta &lt;b&gt;<br>(disqualified)" in [x for x in tco["data"][0]["x"][0]]


def test_markup_escapes_what_it_inserts_and_keeps_markup():
    from portal.charts.base import Markup, escape, markup, wrapped

    assert markup("{}<br>{}", "a<b", Markup("<b>c</b>")) == "a&lt;b<br><b>c</b>"
    assert markup("{:,.0f}", 12345.6) == "12,346"
    assert escape("R&D <x>") == "R&amp;D &lt;x&gt;"
    assert wrapped("<a href=x> " * 10, columns=20).count("&lt;a") == 10
    assert charts.base.plain({"t": ["<i>", Markup("<br>")]}) == {"t": ["&lt;i&gt;", "<br>"]}
