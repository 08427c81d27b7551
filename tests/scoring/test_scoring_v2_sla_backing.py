"""Rubric v2: an availability SLA with no compensation on breach is a claim, even verified.

Checklist item 7 asks for "SLA commitments and compensation terms" (DESIGN §2): a commitment
nothing compensates is a promise the buyer cannot enforce. The availability rule names its
backing (``backed_by`` offering.sla_credit_pct): with a credit of 0 % (or none stated) the SLA
counts at most at the SLA item's claimed factor (70 %) in the stability score and in the TCO's
availability; with a credit it counts as the item's status says. Expert review s4_sla_credit:
99.99 % verified with 0 % credit earned 20/20 and outranked 99.9 % with a 25 % credit.
"""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.dimensions import clear_memo, score_dimensions_columns, score_dimensions_deferred
from scoring.ranking import evaluation_weights, rank, score_candidate
from scoring.rubric import load_rubric, parse_rubric, rubric_text
from scoring.tco import (
    TcoPlan,
    availability_for,
    compute_tco,
    effective_price_ratio,
    pending_tcos,
)
from scoring.tco.batch import _float_inputs
from scoring.types import RubricError
from tests.scoring.scoring_factories import candidate, candidates, evaluation, evaluations, offering

V1 = load_rubric("1")
V2 = load_rubric("2")
RULE = "stability.sla.availability"
# The expert's evaluation (s4_sla_credit.py): 16 GPUs, the factories' defaults otherwise.
SPEC = evaluation(required_total_gpus=16)


def _sla(pct, credit, status=None, candidate_id=1):
    answers = {} if status is None else {"sla": status}
    value = None if pct is None else Decimal(pct)
    made = offering(sla_availability_pct=value, sla_credit_pct=Decimal(credit))
    return candidate(candidate_id, offering=made, answers=answers)


def _row(result, rule_id=RULE):
    for dimension in result.dimensions:
        for contribution in dimension.contributions:
            if contribution.rule_id == rule_id:
                return contribution
    raise KeyError(rule_id)


def test_the_rubric_names_the_credit_as_the_slas_backing():
    rule = V2.rule(RULE)
    assert (rule.backed_by, rule.unbacked_at_most, rule.backed_from) == (
        "offering.sla_credit_pct",
        "claimed",
        Decimal(5),
    )
    assert "backed_by" in rule.source and "compensation" in rule.source
    assert V2.backing("offering.sla_availability_pct") == (
        "offering.sla_credit_pct",
        "claimed",
        Decimal(5),
    )
    # The least backing credit is the first step the credit rule pays for.
    assert V2.rule("stability.sla.credit").table.thresholds[0] == 5
    # Rubric v1 stays as it was.
    assert V1.rule(RULE).backed_by is None
    assert V1.backing("offering.sla_availability_pct") is None


def test_expert_case_a_verified_sla_without_credit_counts_as_a_claim():
    unbacked = score_candidate(_sla("99.99", 0, "verified"), SPEC, V2)
    credited = score_candidate(_sla("99.9", 25, "verified", 2), SPEC, V2)
    row = _row(unbacked)
    # The 99.99 % step is 20 points; at the claimed factor 0.7: 14.
    assert row.points == 14.0 and row.max_points == 20.0 and row.basis == "claimed"
    assert dict(row.inputs) == {
        "offering.sla_availability_pct": "99.99",
        "answer.sla": "verified",
        "offering.sla_credit_pct": "0",
        "unbacked.offering.sla_credit_pct": "claimed",
        "factor": 0.7,
    }
    # The 99.9 % step is 12 points, verified and backed by a 25 % credit: in full.
    assert _row(credited).points == 12.0
    assert dict(_row(credited).inputs) == {
        "offering.sla_availability_pct": "99.9",
        "answer.sla": "verified",
    }
    # TCO: the floor 0.95 plus 70 % of the gap to 0.9999 (0.0499 x 0.7 = 0.03493).
    assert (unbacked.tco.availability, unbacked.tco.availability_basis) == (
        Decimal("0.98493"),
        "unbacked",
    )
    assert (credited.tco.availability, credited.tco.availability_basis) == (
        Decimal("0.999"),
        "verified",
    )
    # The SLA backed by a credit now outranks the higher promise with none.
    assert credited.total > unbacked.total


def test_a_verified_sla_without_credit_scores_exactly_like_the_same_sla_claimed():
    verified = score_candidate(_sla("99.99", 0, "verified"), SPEC, V2)
    claimed = score_candidate(_sla("99.99", 0, "claimed"), SPEC, V2)
    assert _row(verified).points == _row(claimed).points == 14.0
    assert verified.tco.availability == claimed.tco.availability == Decimal("0.98493")
    # A claimed SLA is a claim already: the cap does not bind, so no line says it did.
    assert "unbacked.offering.sla_credit_pct" not in _row(claimed).inputs
    assert claimed.tco.availability_basis == "stated"
    # The stability score differs only where the item's status applies in its own right.
    assert verified.score("stability") >= claimed.score("stability")


@pytest.mark.parametrize(
    ("status", "points", "availability", "basis"),
    [
        # Below the claimed factor the cap changes nothing: 20 x 0.5 and 95 % + 0.0499 x 0.5.
        (None, 10.0, Decimal("0.974950"), "stated"),
        ("unverifiable", 10.0, Decimal("0.974950"), "stated"),
        # A contradicted SLA keeps the contradicted factor (20 x -0.5) and the floor.
        ("contradicted", -10.0, Decimal("0.95"), "contradicted"),
    ],
)
def test_the_cap_never_raises_a_lower_status(status, points, availability, basis):
    result = score_candidate(_sla("99.99", 0, status), SPEC, V2)
    assert _row(result).points == points
    assert (result.tco.availability, result.tco.availability_basis) == (availability, basis)
    assert "unbacked.offering.sla_credit_pct" not in _row(result).inputs


def test_a_token_credit_backs_nothing_and_the_first_paid_step_backs_the_sla():
    # Expert review F7: 99.99 % with a 0.01 % credit outranked 99.9 % with 25 %.
    token = score_candidate(_sla("99.99", "0.01", "verified"), SPEC, V2)
    below = score_candidate(_sla("99.99", "4.99", "verified"), SPEC, V2)
    first = score_candidate(_sla("99.99", "5", "verified"), SPEC, V2)
    blank = score_candidate(_sla("99.99", "0", "verified"), SPEC, V2)
    assert _row(token).points == _row(below).points == _row(blank).points < 20.0
    assert token.tco.availability_basis == below.tco.availability_basis == "unbacked"
    assert token.tco.availability == blank.tco.availability
    assert _row(first).points == 20.0
    assert (first.tco.availability, first.tco.availability_basis) == (
        Decimal("0.9999"),
        "verified",
    )
    credited = score_candidate(_sla("99.9", "25", "verified", 2), SPEC, V2)
    assert credited.total > token.total


def test_without_an_sla_there_is_nothing_to_cap():
    blank = score_candidate(_sla(None, 0, "verified"), SPEC, V2)
    assert _row(blank).basis == "missing" and _row(blank).points == 0.0
    assert blank.tco.availability_basis == "unanswered"


def test_rubric_v1_ignores_the_credit():
    result = score_candidate(_sla("99.99", 0, "verified"), SPEC, V1)
    assert _row(result).points == V1.rule(RULE).max_points
    assert result.tco.availability == Decimal("0.9999")


# A contradicted SLA item is left out of the credit properties: every claim under it counts
# at the contradicted factor (-50 %), so a larger contradicted credit costs more, as a larger
# contradicted availability does (a refuted claim never helps, and a bigger one hurts more).
HONEST = (None, "claimed", "verified", "unverifiable", "unanswered")


def test_adding_a_credit_never_lowers_a_total_in_the_expert_grid():
    for pct in ("99", "99.5", "99.9", "99.95", "99.99"):
        for status in HONEST:
            totals = [
                score_candidate(_sla(pct, credit, status), SPEC, V2).total
                for credit in (0, 5, 10, 25)
            ]
            assert totals == sorted(totals), (pct, status, totals)


def test_the_exact_and_the_float_tco_read_the_same_availability():
    grid = [
        (pct, credit, status)
        for pct in ("99.9", "99.99", "90", None)
        for credit in ("0", "0.00", "5", "25")
        for status in (None, "claimed", "verified", "contradicted")
    ]
    pool = [_sla(pct, credit, status, i) for i, (pct, credit, status) in enumerate(grid, 1)]
    plan = TcoPlan(SPEC)
    prices = [c.effective_prices() for c in pool]
    taken, values = _float_inputs(pool, prices, SPEC, V2, plan)
    assert taken == list(range(len(pool)))
    # The float path's availability column (_settle reads it at index 13) is the exact one.
    exact = [compute_tco(c, SPEC, V2, plan) for c in pool]
    assert values[13].tolist() == [float(t.availability) for t in exact]
    assert [availability_for(c, V2) for c in pool] == [
        (t.availability, t.availability_basis) for t in exact
    ]
    # And the figures a ranking reads agree whichever path computed them.
    for floats in (True, False):
        pending = pending_tcos(pool, SPEC, V2, floats=floats)
        for c, fast, tco in zip(pool, pending, exact, strict=True):
            wanted = effective_price_ratio(tco, c.offering.gpu_model, V2)
            assert repr(fast.effective_price_ratio) == repr(wanted)


def test_both_engines_agree_on_backed_and_unbacked_slas():
    # 64 candidates or more take the numpy kernel; compare it with the per-candidate engine.
    grid = [
        (pct, credit, status)
        for pct in (None, "98", "99.9", "99.99")
        for credit in ("0", "0.00", "0.01", "4.99", "5", "25")
        for status in (None, "claimed", "verified", "unverifiable", "contradicted")
    ]
    pool = [_sla(pct, credit, status, i) for i, (pct, credit, status) in enumerate(grid, 1)]
    assert len(pool) >= 64
    tcos = pending_tcos(pool, SPEC, V2)
    clear_memo(V2)
    eager, eager_columns = score_dimensions_columns(pool, SPEC, V2, tcos)
    clear_memo(V2)
    deferred, arrays = score_dimensions_deferred(pool, SPEC, V2, tcos)
    for column, array in zip(eager_columns, arrays, strict=True):
        assert [repr(x) for x in column] == [repr(x) for x in array.tolist()]
    for old_row, new_row in zip(eager, deferred, strict=True):
        assert tuple(new_row) == tuple(old_row)
    # And each contribution is the rule applied straight from its definition.
    from scoring.dimensions.engine import evaluate_rule
    from scoring.dimensions.facts import FactContext

    rule = V2.rule(RULE)
    for c, tco, row in zip(pool, tcos, eager, strict=True):
        ctx = FactContext(c, SPEC, V2, tco)
        stability = next(d for d in row if d.dimension == "stability")
        found = next(x for x in stability.contributions if x.rule_id == RULE)
        assert evaluate_rule(rule, ctx, general=True) == found


@settings(max_examples=60, deadline=None)
@given(
    c=candidates(candidate_id=1),
    spec=evaluations,
    credit=st.sampled_from((Decimal("0.01"), Decimal(5), Decimal(25), Decimal(100))),
    status=st.sampled_from(HONEST),
)
def test_adding_a_credit_never_lowers_a_total(c, spec, credit, status):
    weights = evaluation_weights(spec, V2)
    answers = {key: value for key, value in c.answers.items() if key != "sla"}
    if status is not None:
        answers["sla"] = status
    c = replace(c, answers=answers)
    without = replace(c, offering=replace(c.offering, sla_credit_pct=Decimal(0)))
    with_credit = replace(c, offering=replace(c.offering, sla_credit_pct=credit))
    low = score_candidate(without, spec, V2, weights)
    high = score_candidate(with_credit, spec, V2, weights)
    assert high.total >= low.total
    if low.tco is not None and low.tco.cost_per_effective_gpu_hour is not None:
        assert high.tco.cost_per_effective_gpu_hour <= low.tco.cost_per_effective_gpu_hour


@settings(max_examples=60, deadline=None)
@given(
    c=candidates(candidate_id=1),
    spec=evaluations,
    credit=st.sampled_from((Decimal(0), Decimal(10), Decimal(25))),
    low_pct=st.sampled_from(("95", "99", "99.5", "99.9", "99.95")),
    raise_by=st.sampled_from(("0", "0.04", "0.5", "0.99")),
)
def test_a_higher_verified_availability_with_the_same_credit_never_lowers_a_total(
    c, spec, credit, low_pct, raise_by
):
    weights = evaluation_weights(spec, V2)
    answers = {**c.answers, "sla": "verified"}

    def at(pct):
        made = replace(c.offering, sla_availability_pct=Decimal(pct), sla_credit_pct=credit)
        return score_candidate(replace(c, offering=made, answers=answers), spec, V2, weights)

    high_pct = min(Decimal(low_pct) + Decimal(raise_by), Decimal(100))
    assert at(high_pct).total >= at(low_pct).total


def test_a_ranking_puts_the_credited_sla_first():
    pool = [_sla("99.99", 0, "verified", 1), _sla("99.9", 25, "verified", 2)]
    ranking = rank(pool, SPEC, V2)
    assert [r.candidate_id for r in ranking.results] == [2, 1]


def test_the_loader_checks_backed_by():
    data = json.loads(rubric_text("2"))
    rule = next(r for r in data["rules"] if r["id"] == RULE)
    for change, message in (
        ({"backed_by": "offering.nope"}, "backed_by"),
        ({"backed_by": "measured.busbw_fraction"}, "backed_by"),
        ({"unbacked_at_most": "sometimes"}, "unbacked_at_most"),
        ({"claim_item": None}, "claim_item"),
    ):
        broken = json.loads(json.dumps(data))
        target = next(r for r in broken["rules"] if r["id"] == RULE)
        target.update(change)
        if change.get("claim_item", "") is None:
            del target["claim_item"]
        with pytest.raises(RubricError, match=message):
            parse_rubric(broken)
    without = json.loads(json.dumps(data))
    target = next(r for r in without["rules"] if r["id"] == RULE)
    del target["backed_by"]
    with pytest.raises(RubricError, match="unbacked_at_most and backed_from need backed_by"):
        parse_rubric(without)
    for bad in (0, -1, "five"):
        broken = json.loads(json.dumps(data))
        next(r for r in broken["rules"] if r["id"] == RULE)["backed_from"] = bad
        with pytest.raises(RubricError, match="backed_from"):
            parse_rubric(broken)
    assert rule["unbacked_at_most"] == "claimed"
