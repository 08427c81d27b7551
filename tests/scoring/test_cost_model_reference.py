"""Expert review F5: a GPU the rubric has no reference GPU-hour price for is compared with the
rubric's "*" fallback, and the TCO says so (English and Chinese) instead of pricing it silently
like another class."""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring.rubric import load_rubric
from scoring.tco import compute_tco

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering


@pytest.mark.parametrize(
    ("version", "gpu"),
    [
        ("1", "NVIDIA A10"),
        ("1", "NVIDIA L20"),
        ("1", "NVIDIA B200 SXM 180GB"),
        ("2", "NVIDIA A10"),
        ("2", "NVIDIA L20"),
    ],
)
def test_a_gpu_without_its_own_reference_price_is_said_to_be_assumed(version, gpu):
    rubric = load_rubric(version)
    assert rubric.reference_gpu_hour_pattern(gpu, "CNY") == "*"
    item = candidate(offering=offering(gpu_model=gpu))
    tco = compute_tco(item, evaluation(), rubric)
    assert tco.reference_fallback == (gpu, Decimal("10.00"))
    lines = {code: (en, zh) for code, en, zh in tco.assumptions()}
    en, zh = lines["reference_fallback"]
    assert en == (
        f"no reference price for {gpu}: the rubric's fallback of 10.00 CNY per GPU-hour is assumed"
    )
    assert gpu in zh and "10.00" in zh and "参考价格" in zh
    assert {"code": "reference_fallback", "en": en, "zh": zh} in tco.as_dict()["assumptions"]


@pytest.mark.parametrize(
    ("gpu", "pattern"),
    [
        ("NVIDIA H100 SXM5 80GB", "h100"),
        ("A100-SXM4-80GB", "a100"),
        ("NVIDIA L40S", "l40s"),
        ("NVIDIA H20", "h20"),
        ("NVIDIA H200 141GB", "h200"),
        ("NVIDIA B200 SXM 180GB", "b200"),
        ("NVIDIA GB200 186GB", "gb200"),
        ("NVIDIA B300 288GB", "b300"),
    ],
)
def test_a_listed_gpu_is_compared_with_its_own_price_and_no_assumption_is_added(gpu, pattern):
    rubric = load_rubric("2")
    assert rubric.reference_gpu_hour_pattern(gpu, "CNY") == pattern
    tco = compute_tco(candidate(offering=offering(gpu_model=gpu)), evaluation(), rubric)
    assert tco.reference_fallback is None
    assert all(code != "reference_fallback" for code, _, _ in tco.assumptions())


def test_the_fallback_line_follows_the_offering_currency():
    rubric = load_rubric("2")
    item = candidate(offering=offering(gpu_model="NVIDIA A10", currency="USD"))
    tco = compute_tco(item, evaluation(budget_currency="USD"), rubric)
    assert tco.reference_fallback == ("NVIDIA A10", Decimal("1.50"))
    assert (
        "1.50 USD per GPU-hour"
        in dict((c, en) for c, en, _ in tco.assumptions())["reference_fallback"]
    )


@pytest.mark.parametrize(
    "gpu", ["NVIDIA B200 SXM 180GB", "NVIDIA GB200 186GB", "NVIDIA B300 288GB"]
)
def test_blackwell_is_compared_with_twice_the_h100_figure_not_the_catch_all(gpu):
    # Expert review: B200 fell to the "*" figure (10 CNY, half an H100), so a market-rate B200
    # quote (twice an H100's, as public rate cards price it) scored as five times too dear.
    rubric = load_rubric("2")
    h100 = rubric.reference_gpu_hour_price("NVIDIA H100 SXM5 80GB", "CNY")
    assert rubric.reference_gpu_hour_price(gpu, "CNY") == 2 * h100
    usd_h100 = rubric.reference_gpu_hour_price("NVIDIA H100 SXM5 80GB", "USD")
    assert rubric.reference_gpu_hour_price(gpu, "USD") == 2 * usd_h100
