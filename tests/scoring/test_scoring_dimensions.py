"""Dimension scores: 0..100, explained by contributions; measured beats claimed; claim status."""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.dimensions import FactContext, evaluate_rule, score_dimensions
from scoring.rubric import load_rubric
from scoring.tco import compute_tco
from scoring.types import DIMENSIONS, ITEM_STATUSES, MeasuredFacts

try:
    from scoring_factories import candidate, candidates, evaluation, evaluations, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, candidates, evaluation, evaluations, offering

RUBRIC = load_rubric()


def _scores(cand, spec=None):
    spec = spec or evaluation()
    tco = compute_tco(cand, spec, RUBRIC) if cand.effective_prices() else None
    return {d.dimension: d for d in score_dimensions(cand, spec, RUBRIC, tco)}


def _contribution(cand, rule_id, spec=None):
    dimension = rule_id.split(".")[0]
    for item in _scores(cand, spec)[dimension].contributions:
        if item.rule_id == rule_id:
            return item
    raise AssertionError(rule_id)


def test_six_dimensions_in_order_with_one_contribution_per_rule():
    cand = candidate()
    tco = compute_tco(cand, evaluation(), RUBRIC)
    dimensions = score_dimensions(cand, evaluation(), RUBRIC, tco)
    assert [d.dimension for d in dimensions] == list(DIMENSIONS)
    for dimension in dimensions:
        rule_ids = [rule.id for rule in RUBRIC.by_dimension[dimension.dimension]]
        assert [c.rule_id for c in dimension.contributions] == rule_ids


def test_score_is_explained_by_its_contributions():
    for dimension in _scores(candidate()).values():
        earned = sum(c.points for c in dimension.contributions)
        possible = sum(c.max_points for c in dimension.contributions)
        expected = min(100.0, max(0.0, 100 * earned / possible))
        assert math.isclose(dimension.score, round(expected, 2))


def test_claim_factor_by_status_verified_claimed_unanswered_contradicted():
    # Availability 99.9 % earns 12 of 20 points; the SLA item's status scales it.
    points = {}
    for status in ITEM_STATUSES:
        item = _contribution(candidate(answers={"sla": status}), "stability.sla.availability")
        points[status] = item.points
        assert item.inputs["answer.sla"] == status
        assert item.basis == "claimed"
    assert points == {
        "verified": 12.0,
        "claimed": 8.4,
        "unverifiable": 6.0,
        "unanswered": 6.0,
        "contradicted": -6.0,
    }


def test_contradicted_scores_below_unverified_below_verified_for_the_same_fact():
    scores = {
        status: _scores(candidate(answers={"fabric": status}))["network"].score
        for status in ("contradicted", "unanswered", "claimed", "verified")
    }
    assert scores["contradicted"] < scores["unanswered"] < scores["claimed"] < scores["verified"]


def test_measured_value_replaces_the_claim():
    claimed = _contribution(candidate(answers={"fabric": "claimed"}), "network.fabric.port_rate")
    assert claimed.inputs == {
        "offering.fabric_rate_gbit_s": 400,
        "answer.fabric": "claimed",
        "factor": 0.7,
    }
    measured = candidate(
        answers={"fabric": "contradicted"},
        measured=MeasuredFacts(
            ib_rate_gbit_s_min=200.0,
            evidence_refs={"ib_rate_gbit_s_min": "upload 4 · ibstat line 12"},
        ),
    )
    item = _contribution(measured, "network.fabric.port_rate")
    assert item.basis == "measured"
    assert item.inputs == {"measured.ib_rate_gbit_s_min": 200.0}
    assert item.points == 10.0  # HDR 200 Gb/s, at full weight: measured beats claimed
    assert item.evidence_ref == "upload 4 · ibstat line 12"


def test_missing_measurement_counts_zero_of_its_points():
    item = _contribution(candidate(), "stability.measured.xid_errors")
    assert (item.basis, item.points, item.max_points) == ("missing", 0.0, 8.0)
    assert dict(item.inputs) == {"measured.xid_errors": None}


def test_budget_rule_is_excluded_without_a_budget():
    item = _contribution(candidate(), "cost.tco.budget_share")
    assert (item.basis, item.max_points) == ("excluded", 0.0)


def test_budget_share_uses_the_cheapest_total():
    spec = evaluation(budget_total=Decimal("1188295.88"))  # twice the cheapest 594147.94
    item = _contribution(candidate(), "cost.tco.budget_share", spec)
    assert item.inputs == {"derived.budget_ratio": 0.5}
    assert item.points == 40.0


def test_effective_price_ratio_against_the_reference_price():
    # 19.3601 per effective GPU-hour ÷ H100 reference 20.00 = 0.968 → 35 + (0.032/0.5) x 25
    item = _contribution(candidate(), "cost.tco.effective_gpu_hour")
    assert item.inputs == {"derived.effective_price_ratio": 0.968}
    assert item.points == pytest.approx(36.6)


def test_condition_not_met_gives_zero_with_the_reason():
    cand = candidate(offering=offering(fabric="none", nics_per_node=0))
    item = _contribution(cand, "network.fabric.oversubscription")
    assert item.basis == "not_applicable"
    assert item.points == 0.0 and item.max_points == 8.0
    assert item.inputs["offering.fabric"] == "none"


def test_decimal_facts_are_shown_exactly_even_when_memoised():
    first = _contribution(
        candidate(offering=offering(nvme_capacity_tib=Decimal("7.68"))), "storage.nvme.capacity"
    )
    second = _contribution(
        candidate(offering=offering(nvme_capacity_tib=Decimal("7.680"))), "storage.nvme.capacity"
    )
    assert first.inputs["offering.nvme_capacity_tib"] == "7.68"
    assert second.inputs["offering.nvme_capacity_tib"] == "7.680"


def test_measured_virtualisation_changes_the_scale_rule_basis():
    cand = candidate(
        measured=MeasuredFacts(
            bare_metal_verdict="virtualised",
            bare_metal_confidence=0.9,
            evidence_refs={"bare_metal_verdict": "upload 7 · lspci line 4"},
        )
    )
    item = _contribution(cand, "network.scale.delivery_efficiency")
    assert item.basis == "measured"
    assert item.inputs == {"derived.scale_efficiency": 0.85}
    assert item.evidence_ref == "upload 7 · lspci line 4"
    unsure = candidate(
        measured=MeasuredFacts(bare_metal_verdict="virtualised", bare_metal_confidence=0.4)
    )
    assert _contribution(unsure, "network.scale.delivery_efficiency").basis == "claimed"


def test_labels_in_both_languages_reach_the_contributions():
    item = _contribution(candidate(), "security.compliance.mlps")
    assert (item.label_en, item.label_zh) == ("MLPS level", "等保级别")
    as_dict = item.as_dict()
    assert as_dict["inputs"] == {
        "vendor.mlps_level": 3,
        "answer.compliance": "unanswered",
        "factor": 0.5,
    }


@settings(max_examples=120, deadline=None)
@given(cand=candidates(), spec=evaluations)
def test_scores_stay_within_0_and_100(cand, spec):
    for dimension in _scores(cand, spec).values():
        assert 0.0 <= dimension.score <= 100.0


# (field, a worse value, a better value); "better" per the rubric's direction.
MEASURED_ORDER = {
    "busbw_fraction": st.floats(0, 1.3),
    "nvme_read_mbyte_s": st.floats(0, 20000),
    "nvme_write_mbyte_s": st.floats(0, 20000),
    "ib_rate_gbit_s_min": st.floats(0, 800),
}
MEASURED_LOWER_IS_BETTER = {
    "ecc_uncorrected": st.integers(0, 10),
    "remapped_rows_pending": st.integers(0, 10),
    "remapped_rows_failure": st.integers(0, 10),
    "xid_errors": st.integers(0, 10),
    "ib_ports_down": st.integers(0, 10),
}


@st.composite
def better_measurement(draw):
    name = draw(st.sampled_from(sorted(MEASURED_ORDER) + sorted(MEASURED_LOWER_IS_BETTER)))
    if name in MEASURED_ORDER:
        a, b = sorted(draw(st.lists(MEASURED_ORDER[name], min_size=2, max_size=2)))
        return name, a, b
    a, b = sorted(draw(st.lists(MEASURED_LOWER_IS_BETTER[name], min_size=2, max_size=2)))
    return name, b, a


@settings(max_examples=150, deadline=None)
@given(cand=candidates(), spec=evaluations, change=better_measurement())
def test_a_better_measured_value_never_lowers_any_dimension(cand, spec, change):
    name, worse, better = change
    worse_cand = replace(cand, measured=replace(cand.measured, **{name: worse}))
    better_cand = replace(cand, measured=replace(cand.measured, **{name: better}))
    worse_scores, better_scores = _scores(worse_cand, spec), _scores(better_cand, spec)
    for dimension in DIMENSIONS:
        assert better_scores[dimension].score >= worse_scores[dimension].score, (name, dimension)


@settings(max_examples=60, deadline=None)
@given(cand=candidates(), spec=evaluations)
def test_column_and_general_runners_agree(cand, spec):
    tco = compute_tco(cand, spec, RUBRIC) if cand.effective_prices() else None
    ctx = FactContext(cand, spec, RUBRIC, tco)
    for rule in RUBRIC.rules:
        fast = evaluate_rule(rule, ctx)
        general = evaluate_rule(rule, ctx, general=True)
        assert fast.as_dict() == general.as_dict(), rule.id
