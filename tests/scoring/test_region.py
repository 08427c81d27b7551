"""Regions (issue #16 §3): residency knockout, egress tiers, far-region batch, latency scoring."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.portfolio import (
    Candidate,
    DataFlow,
    Option,
    PortfolioProblem,
    Workload,
    is_self_managed,
    solve,
)
from scoring.region import (
    LOSS_CAP,
    EgressRates,
    Region,
    RegionError,
    RttMeasurement,
    egress_rate_cny_gib,
    is_far,
    latency_score,
    placement,
    residency_knockout,
)
from scoring.rubric import load_rubric
from tests.scoring.scoring_factories import candidate, offering

SHANGHAI_A = Region("CN", "Shanghai", "a")
SHANGHAI_B = Region("CN", "Shanghai", "b")
GUIZHOU = Region("CN", "Guizhou", "gy1")
HONG_KONG = Region("HK", "Hong Kong")
SINGAPORE = Region("SG")
RATES = EgressRates(Decimal("0.30"), Decimal("0.80"))


def test_region_key_and_bad_country():
    assert SHANGHAI_A.key == "CN-Shanghai-a"
    with pytest.raises(RegionError):
        Region("China")


def test_mainland_residency_knocks_out_hong_kong_and_singapore_but_not_guizhou():
    assert residency_knockout("mainland_china", GUIZHOU) is None
    en, zh = residency_knockout("mainland_china", HONG_KONG)
    assert "HK-Hong Kong is outside" in en and "不在中国大陆" in zh
    assert residency_knockout("mainland_china", SINGAPORE)
    assert residency_knockout("mainland_china", None)  # unknown region cannot prove residency
    assert residency_knockout("none", SINGAPORE) is None
    with pytest.raises(RegionError):
        residency_knockout("eu", GUIZHOU)


def test_egress_tiers():
    assert egress_rate_cny_gib(SHANGHAI_A, SHANGHAI_B, RATES) == 0
    assert egress_rate_cny_gib(SHANGHAI_A, GUIZHOU, RATES) == Decimal("0.30")
    assert egress_rate_cny_gib(SHANGHAI_A, HONG_KONG, RATES) == Decimal("0.80")


def test_far_regions():
    assert not is_far(SHANGHAI_A, SHANGHAI_B)
    assert is_far(SHANGHAI_A, GUIZHOU)
    assert not is_far(None, GUIZHOU)


def test_batch_accepts_a_far_region_inference_does_not():
    batch = placement(residency="none", home=SHANGHAI_A, region=GUIZHOU, accepts_far_region=True)
    assert batch.eligible and batch.far
    serve = placement(residency="none", home=SHANGHAI_A, region=GUIZHOU, accepts_far_region=False)
    assert not serve.eligible and "does not accept a farther region" in serve.knockout_en
    # residency is checked first, even for a workload that accepts far regions
    abroad = placement(
        residency="mainland_china", home=SHANGHAI_A, region=SINGAPORE, accepts_far_region=True
    )
    assert not abroad.eligible and "mainland China" in abroad.knockout_en


def test_measured_rtt_wins_over_the_claim_and_the_worst_named_endpoint_decides():
    measured = (
        RttMeasurement("users-sh", 4.0, 3.5, 6.0, 0.0),
        RttMeasurement("data-bj", 28.0, 27.0, 31.0, 0.0),
        RttMeasurement("elsewhere", 200.0, 190.0, 210.0, 0.0),
    )
    score = latency_score(
        target_ms=10, measurements=measured, endpoints=("users-sh", "data-bj"), claimed_ms=2
    )
    assert score.basis == "measured"
    assert score.rtt_ms == 28.0
    # 100 at 10 ms, 0 at 30 ms: 28 ms is 10 %
    assert score.score == 10.0
    assert "data-bj" in score.en and "实测" in score.zh


def test_claim_is_scored_and_marked_claimed_when_nothing_is_measured():
    score = latency_score(target_ms=10, claimed_ms=15)
    assert score.basis == "claimed" and score.score == 75.0
    assert "not measured" in score.en and "未实测" in score.zh
    unknown = latency_score(target_ms=10)
    assert unknown.basis == "unknown" and unknown.score == 0


def test_packet_loss_caps_the_latency_score():
    lossy = latency_score(target_ms=10, measurements=(RttMeasurement("u", 5, 4, 9, 3.0),))
    assert lossy.score == LOSS_CAP and "loss" in lossy.en


def test_bad_target_rtt():
    with pytest.raises(RegionError):
        latency_score(target_ms=0)


@given(st.floats(1, 100), st.floats(0, 1000), st.floats(0, 1000))
def test_latency_score_is_monotone_in_rtt(target, a, b):
    low, high = sorted((a, b))
    slow = latency_score(target_ms=target, claimed_ms=high).score
    fast = latency_score(target_ms=target, claimed_ms=low).score
    assert 0 <= slow <= fast <= 100


def test_self_managed_is_the_tco_rule_a_managed_option_counts_once_verified():
    # One definition (scoring.tco.is_self_managed): rubric v2 believes a vendor-managed option
    # only once checklist item 9 (the all-in monthly cost) is verified; rubric v1 at face value.
    v1, v2 = load_rubric("1"), load_rubric("2")
    bare, managed = offering(vendor_managed=False), offering(vendor_managed=True)
    assert is_self_managed(candidate(offering=bare), v2)
    assert is_self_managed(candidate(offering=managed), v2)
    assert not is_self_managed(
        candidate(offering=managed, answers={"monthly_cost": "verified"}), v2
    )
    assert not is_self_managed(candidate(offering=managed), v1)
    assert not is_self_managed(candidate(offering=offering(delivery_form="vgpu")), v2)


def test_region_egress_rates_enter_the_portfolio_cost():
    """The source documents: offline batch can run in a cheaper, farther region, but the data
    it reads must cross regions; the saving holds only when the price gap beats the egress."""
    workloads = (
        Workload("serve", 8, 30),
        Workload("batch", 32, 30, "batch", accepts_far_region=True),
    )
    candidates = (
        Candidate("sh", "A", SHANGHAI_A.key),
        Candidate("gz", "A", GUIZHOU.key),
    )
    options = (
        Option("serve", "sh", 80, (("hourly", Decimal(100000)),)),
        Option("batch", "sh", 80, (("hourly", Decimal(400000)),)),
        Option("batch", "gz", 80, (("hourly", Decimal(300000)),)),
    )
    rate = egress_rate_cny_gib(SHANGHAI_A, GUIZHOU, RATES)

    def solve_with(gib_month):
        return solve(
            PortfolioProblem(
                workloads,
                candidates,
                options,
                flows=(DataFlow("serve", "batch", Decimal(gib_month)),),
                region_rates=((SHANGHAI_A.key, GUIZHOU.key, rate),),
            )
        )

    cheap_data = solve_with(10_000)  # 10,000 GiB x ~0.99 month x 0.30 = ~2,959
    assert cheap_data.proposal.line("batch").candidate_id == "gz"
    assert cheap_data.proposal.egress_cny == Decimal("2958.90")
    heavy_data = solve_with(400_000)  # ~118,000 of egress exceeds the 100,000 price gap
    assert heavy_data.proposal.line("batch").candidate_id == "sh"
    assert heavy_data.proposal.egress_cny == 0


def test_latency_blend_weights_the_latency_score():
    from scoring.region import LATENCY_WEIGHT, with_latency

    perfect = latency_score(target_ms=10, claimed_ms=5)
    unknown = latency_score(target_ms=10)
    assert with_latency(80.0, perfect) == 80.0 * (1 - LATENCY_WEIGHT) + 100 * LATENCY_WEIGHT
    assert with_latency(80.0, unknown) == 80.0 * (1 - LATENCY_WEIGHT)


def test_burst_hours_of_the_issue_inference_profile():
    """Issue #16 §1: 16 GPUs of inference with peaks to 48 for 8 hours on weekdays."""
    from scoring.portfolio import burst_gpu_hours

    # 32 extra GPUs x 8 h x 5 days a week, over 14 days (two weeks)
    hours = burst_gpu_hours(
        gpus=16, peak_gpus=48, peak_hours_per_day=8, peak_days_per_week=5, days=14
    )
    assert hours == 32 * 8 * 5 * 2
    assert (
        burst_gpu_hours(gpus=16, peak_gpus=0, peak_hours_per_day=8, peak_days_per_week=5, days=14)
        == 0
    )
