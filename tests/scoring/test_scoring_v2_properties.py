"""Invariants of rubric v2 (issue #10 §6), as hypothesis properties over generated inputs."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.ranking import rank, score_candidate
from scoring.rubric import load_rubric
from scoring.types import DELIVERY_FORMS, WORKLOAD_PROFILES, MeasuredFacts, Price
from tests.scoring.scoring_factories import candidate_lists, candidates, evaluations

RUBRIC = load_rubric("2")
RULE_IDS = {rule.id for rule in RUBRIC.rules}
PROPERTY = settings(max_examples=120, deadline=None)


def _scores(c, spec):
    return score_candidate(c, spec, RUBRIC)


@PROPERTY
@given(c=candidates(candidate_id=1), spec=evaluations, factor=st.sampled_from(("0.5", "0.9")))
def test_a_lower_price_never_lowers_the_cost_score(c, spec, factor):
    cheaper_prices = tuple(
        Price(p.billing_model, (p.price_per_gpu * Decimal(factor)).quantize(Decimal("0.01")))
        for p in c.offering.prices
    )
    cheaper = replace(c, offering=replace(c.offering, prices=cheaper_prices))
    assert _scores(cheaper, spec).scores["cost"] >= _scores(c, spec).scores["cost"]


@PROPERTY
@given(
    c=candidates(candidate_id=1),
    spec=evaluations,
    low=st.floats(0, 1.3, allow_nan=False),
    high=st.floats(0, 1.3, allow_nan=False),
)
def test_a_higher_measured_bandwidth_never_lowers_the_network_score(c, spec, low, high):
    low, high = min(low, high), max(low, high)
    worse = replace(c, measured=replace(c.measured, busbw_fraction=low))
    better = replace(c, measured=replace(c.measured, busbw_fraction=high))
    assert _scores(better, spec).scores["network"] >= _scores(worse, spec).scores["network"]


@PROPERTY
@given(
    form=st.sampled_from(DELIVERY_FORMS),
    workload=st.sampled_from(WORKLOAD_PROFILES),
    small=st.integers(1, 5000),
    extra=st.integers(0, 5000),
)
def test_more_gpus_never_shrink_the_virtualisation_penalty(form, workload, small, extra):
    scale = RUBRIC.scale
    assert scale.loss_pct(form, small + extra, workload) >= scale.loss_pct(form, small, workload)
    assert scale.efficiency(form, small + extra, workload) <= scale.efficiency(
        form, small, workload
    )


@PROPERTY
@given(c=candidates(candidate_id=1), spec=evaluations, above=st.floats(0, 0.3))
def test_measuring_at_or_above_the_assumed_value_never_lowers_the_total(c, spec, above):
    unmeasured = replace(c, measured=replace(c.measured, busbw_fraction=None))
    form, _ = RUBRIC.observed_delivery_form(
        c.offering.delivery_form, c.measured.bare_metal_verdict, c.measured.bare_metal_confidence
    )
    assumed = RUBRIC.v2.form(form).assumed_busbw_fraction
    measured = replace(c, measured=replace(c.measured, busbw_fraction=assumed + above))
    before, after = _scores(unmeasured, spec), _scores(measured, spec)
    assert after.total >= before.total
    for dimension in before.scores:
        assert after.scores[dimension] >= before.scores[dimension]
    assert len(after.knockouts) <= len(before.knockouts)


@settings(max_examples=60, deadline=None)
@given(group=candidate_lists(min_size=2, max_size=5), spec=evaluations)
def test_adding_or_removing_a_candidate_never_changes_another_score(group, spec):
    together = rank(group, spec, RUBRIC)
    for c in group:
        alone = rank([c], spec, RUBRIC).results[0]
        with_others = together.result(c.candidate_id)
        assert alone.scores == with_others.scores
        assert alone.total == with_others.total
        assert alone.knockouts == with_others.knockouts


@PROPERTY
@given(group=candidate_lists(min_size=1, max_size=3), spec=evaluations)
def test_every_contribution_cites_a_rule_that_exists(group, spec):
    for result in rank(group, spec, RUBRIC).results:
        for dimension in result.dimensions:
            for contribution in dimension.contributions:
                assert contribution.rule_id in RULE_IDS
                assert RUBRIC.rule(contribution.rule_id).source.strip()


@PROPERTY
@given(c=candidates(candidate_id=1), spec=evaluations)
def test_measured_efficiency_above_one_is_never_a_bonus(c, spec):
    one = replace(c, measured=replace(c.measured, busbw_fraction=1.0))
    over = replace(c, measured=replace(c.measured, busbw_fraction=1.3))
    assert _scores(over, spec).scores["cost"] == _scores(one, spec).scores["cost"]


def test_unmeasured_efficiency_is_shown_as_assumed():
    from tests.scoring.scoring_factories import candidate, evaluation

    c = candidate(measured=MeasuredFacts())
    tco = score_candidate(c, evaluation(), RUBRIC).tco
    assert tco.efficiency_basis == "assumed"
    # Bare metal's assumed 75 % of the expected all-reduce, on a fabric whose claim (item 3)
    # is unanswered, slows pre-training's 15 % of step time in collectives (collectives.py).
    found = tco.collectives
    assert (found.health, found.comm_share, found.source) == (0.75, 0.15, "declared")
    assert tco.efficiency == Decimal(repr(found.efficiency)).quantize(Decimal("0.0001")) < 1


def test_properties_are_not_vacuous():
    # The v1 rubric breaks the scale property (the cliff at 128 GPUs the issue reports).
    v1 = load_rubric("1").scale
    assert v1.efficiency("vgpu", 128) > v1.efficiency("vgpu", 120)
