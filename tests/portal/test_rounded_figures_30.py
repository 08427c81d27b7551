"""Figures round the same on every page (a manager's walk, stop 30): the candidate page and
the report printed "Cost score: 20.96 CNY per effective GPU-hour" under a table row of 20.97
(Django's number_format cuts digits off rather than rounding), and the cost score's
assumptions ran together as one clause after another, without capitals or full stops."""

from decimal import Decimal

import pytest
from django.utils import translation

from portal import exports
from portal.exports import rounded_number


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (20.969, 2, "20.97"),
        (Decimal("20.9690"), 2, "20.97"),
        (1234567.891, 2, "1,234,567.89"),
        (0.98436, 4, "0.9844"),  # availability reads to four places
        (2.675, 2, "2.67"),  # the binary value is below the half: as f"{2.675:.2f}"
        (Decimal("0.125"), 2, "0.12"),  # half to even, as the TCO rounds cents
        (-0.004, 2, "0.00"),  # no negative zero
    ],
)
def test_figures_round_rather_than_cut(value, digits, shown):
    assert rounded_number(value, digits) == shown
    if isinstance(value, float) and value >= 0:
        assert rounded_number(value, digits).replace(",", "") == f"{value:.{digits}f}"


def test_each_assumption_reads_as_a_sentence():
    """A real TCO whose cost per effective GPU-hour assumed things (an unverified SLA, the
    collectives of a 2-node job): each assumption is a sentence of its own."""
    from scoring.rubric import load_rubric
    from scoring.tco import compute_tco
    from tests.scoring.scoring_factories import candidate, evaluation

    rubric = load_rubric("2")
    tco = compute_tco(candidate(node_count=2), evaluation(required_total_gpus=16), rubric)
    assert tco.cost_per_effective_gpu_hour is not None
    with translation.override("en"):
        note = exports.reference_price_note(tco, "NVIDIA H100 SXM5 80GB", rubric)
        lines = [line for _code, line, _zh in tco.assumptions()]
    assert len(lines) >= 2
    cost = rounded_number(tco.cost_per_effective_gpu_hour, 2)
    assert f"Cost score: {cost} CNY per effective GPU-hour" in note
    for line in lines:
        assert exports._sentence(line) in note
        assert exports._sentence(line)[0].isupper() and note.endswith((".", "。"))
    with translation.override("zh-hans"):
        chinese = exports.reference_price_note(tco, "NVIDIA H100 SXM5 80GB", rubric)
    assert all(exports._sentence(zh) in chinese for _code, _en, zh in tco.assumptions())
    assert exports._sentence("仅为声明") == "仅为声明。"
    assert exports._sentence("已核实。") == "已核实。"
