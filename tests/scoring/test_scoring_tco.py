"""TCO per billing model, cheapest model, break-even and cost per effective GPU-hour."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.api import compute_tco as api_compute_tco
from scoring.rubric import load_rubric
from scoring.tco import COMPONENTS, compute_tco
from scoring.types import CurrencyMismatchError, Money, Price, TcoError

try:
    from scoring_factories import candidate, evaluation, offering, offerings
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering, offerings

RUBRIC = load_rubric()


def test_hourly_and_monthly_breakdown_by_hand():
    # 2 nodes x 8 GPUs, 90 days of which 10 idle, hourly 20.00, monthly 12000.00 per GPU,
    # storage 3000.00 and support 1000.00 per month, one setup day.
    tco = compute_tco(candidate(), evaluation(), RUBRIC)
    hourly = tco.model("hourly")
    # gpu: 20 x 16 GPUs x 80 used days x 24 h; a month is 365/12 days, so 90 days are
    # 2.9589… months: storage 3000 x 2.9589… = 8876.71, support 2958.90; setup 20 x 24 x 16.
    assert dict(hourly.components) == {
        "gpu": Decimal("614400.00"),
        "storage": Decimal("8876.71"),
        "egress": Decimal("0.00"),
        "support": Decimal("2958.90"),
        "licence": Decimal("0.00"),
        "setup": Decimal("7680.00"),
    }
    assert hourly.total == Decimal("633915.61")
    assert hourly.billed_units == Decimal("1920.0000")
    monthly = tco.model("monthly")
    # three whole months are billed (90 days > 2 months); setup = 12000 x 12/365 x 16 GPUs.
    assert monthly.billed_units == Decimal(3)
    assert monthly.component("gpu") == Decimal("576000.00")
    assert monthly.component("setup") == Decimal("6312.33")
    assert monthly.total == Decimal("594147.94")
    assert tco.cheapest == "monthly"
    assert tco.total == Money(Decimal("594147.94"), "CNY")
    # monthly GPU cost 576000 ÷ hourly cost per used day (20 x 24 x 16 = 7680) = 75 days.
    assert tco.break_even_used_days == Decimal("75.00")


def test_cost_per_effective_gpu_hour_uses_availability_and_scale_rule_efficiency():
    tco = compute_tco(candidate(), evaluation(), RUBRIC)
    # 594147.94 ÷ (16 GPUs x 80 days x 24 h = 30720 GPU-hours x 0.999 x efficiency 1.0)
    assert tco.gpu_hours == Decimal(30720)
    assert tco.availability == Decimal("0.999")
    assert (tco.efficiency, tco.efficiency_basis) == (Decimal("1.0000"), "scale_rule")
    assert tco.cost_per_effective_gpu_hour == Decimal("19.3601")


def test_measured_busbw_fraction_is_the_efficiency():
    from scoring.types import MeasuredFacts

    tco = compute_tco(candidate(measured=MeasuredFacts(busbw_fraction=0.85)), evaluation(), RUBRIC)
    assert (tco.efficiency, tco.efficiency_basis) == (Decimal("0.8500"), "measured")
    assert tco.cost_per_effective_gpu_hour == Decimal("22.7766")


def test_measured_fraction_above_one_is_capped():
    from scoring.types import MeasuredFacts

    tco = compute_tco(candidate(measured=MeasuredFacts(busbw_fraction=1.12)), evaluation(), RUBRIC)
    assert tco.efficiency == Decimal("1.0000")


def test_virtualised_form_at_sixteen_gpus_loses_the_fabric_control_share():
    # 16 GPUs sit in the 16-64 band: 15 % (midpoint of 10-20 %) beats the 3.8 % overhead.
    tco = compute_tco(candidate(offering=offering(delivery_form="vgpu")), evaluation(), RUBRIC)
    assert tco.efficiency == Decimal("0.8500")


def test_virtualised_single_node_pays_only_the_virtualisation_overhead():
    # 8 GPUs: 2 % + 4.5 % x log10(8) / 3 = 3.3546 % overhead.
    tco = compute_tco(
        candidate(offering=offering(delivery_form="container"), node_count=1),
        evaluation(required_total_gpus=8),
        RUBRIC,
    )
    assert tco.efficiency == Decimal("0.9665")


def test_spot_hours_grow_with_preemption_risk():
    spot_offering = offering(
        prices=(Price("spot", Decimal("10.00")),), spot_preemption_risk_pct=Decimal(20)
    )
    tco = compute_tco(candidate(offering=spot_offering), evaluation(), RUBRIC)
    spot = tco.model("spot")
    # 1920 used hours ÷ (1 - 0.20) = 2400 hours x 10.00 x 16 GPUs
    assert spot.billed_units == Decimal("2400.0000")
    assert spot.component("gpu") == Decimal("384000.00")
    # one setup day at the spot day rate: 10 x 24 x 16 ÷ 0.8
    assert spot.component("setup") == Decimal("4800.00")


def test_yearly_billing_commits_to_whole_years():
    yearly_offering = offering(prices=(Price("yearly", Decimal("100000.00")),), setup_days=0)
    tco = compute_tco(candidate(offering=yearly_offering), evaluation(), RUBRIC)
    assert tco.model("yearly").billed_units == Decimal(1)
    assert tco.model("yearly").component("gpu") == Decimal("1600000.00")
    # the monthly figure spreads the 90-day total over 90 x 12 / 365 months:
    # (1600000 + 8876.71 + 2958.90) x 365 / 1080 = 544740.738…
    assert tco.model("yearly").monthly == Decimal("544740.74")


def test_licence_and_egress_are_prorated_over_the_duration():
    vgpu = offering(
        delivery_form="vgpu",
        licence_cost_gpu_month=Decimal("100.00"),
        network_egress_cost_month=Decimal("365.00"),
    )
    tco = compute_tco(candidate(offering=vgpu), evaluation(duration_days=365), RUBRIC)
    hourly = tco.model("hourly")
    assert hourly.component("licence") == Decimal("19200.00")  # 100 x 16 GPUs x 12 months
    assert hourly.component("egress") == Decimal("4380.00")  # 365 x 12 months


def test_quoted_prices_override_list_prices_model_by_model():
    quoted = candidate(quoted_prices=(Price("hourly", Decimal("15.00")),))
    tco = compute_tco(quoted, evaluation(), RUBRIC)
    assert tco.model("hourly").price_per_gpu == Decimal("15.00")
    assert tco.model("monthly").price_per_gpu == Decimal("12000.00")


def test_tie_between_models_goes_to_the_earlier_billing_model():
    # hourly: 1 x 24 x 8 x 365 = 70080; yearly: 70080 per GPU-year for 8 GPUs… equal totals
    tied = offering(
        gpus_per_node=1,
        prices=(Price("yearly", Decimal("8760.00")), Price("hourly", Decimal("1.00"))),
        storage_cost_month=Decimal(0),
        support_cost_month=Decimal(0),
        setup_days=0,
    )
    tco = compute_tco(
        candidate(offering=tied, node_count=1),
        evaluation(duration_days=365, expected_idle_days=0, required_total_gpus=1),
        RUBRIC,
    )
    assert tco.model("hourly").total == tco.model("yearly").total == Decimal("8760.00")
    assert tco.cheapest == "hourly"


def test_no_price_raises_tco_error_naming_the_candidate():
    with pytest.raises(TcoError, match="'candidate 1' has no price"):
        compute_tco(candidate(offering=offering(prices=())), evaluation(), RUBRIC)


def test_all_idle_gives_no_effective_cost():
    tco = compute_tco(candidate(), evaluation(expected_idle_days=90), RUBRIC)
    assert tco.used_days == 0
    assert tco.cost_per_effective_gpu_hour is None
    assert tco.model("hourly").component("gpu") == Decimal("0.00")


def test_money_refuses_to_add_currencies():
    with pytest.raises(CurrencyMismatchError, match="cannot add USD to CNY"):
        Money(Decimal(1), "CNY") + Money(Decimal(1), "USD")


def test_api_compute_tco_for_a_scripting_user():
    tco = api_compute_tco(offering(), evaluation(), node_count=2)
    assert tco.cheapest_total == Decimal("594147.94")
    as_dict = tco.as_dict()
    assert as_dict["total"] == "594147.94"
    assert as_dict["models"][1]["components"]["gpu"] == "576000.00"


@settings(max_examples=150, deadline=None)
@given(
    offering=offerings,
    node_count=st.integers(1, 16),
    duration=st.integers(1, 800),
    idle_share=st.floats(0, 1),
)
def test_total_is_exactly_the_sum_of_its_parts(offering, node_count, duration, idle_share):
    spec = evaluation(duration_days=duration, expected_idle_days=int(duration * idle_share))
    tco = compute_tco(candidate(offering=offering, node_count=node_count), spec, RUBRIC)
    for model in tco.models:
        assert [name for name, _ in model.components] == list(COMPONENTS)
        assert sum(amount for _, amount in model.components) == model.total
        for _, amount in model.components:
            assert amount == amount.quantize(Decimal("0.01"))
            assert amount >= 0
    assert tco.cheapest_total == min(m.total for m in tco.models)
