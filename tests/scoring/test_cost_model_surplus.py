"""Expert review F2: surplus GPUs are paid but add no useful work to the cost per effective
GPU-hour (rubric v2), in the exact TCO, the ranking's float figures, MIG slices and the score."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from scoring.api import score_candidates
from scoring.rubric import load_rubric, load_rubric_text, rubric_text
from scoring.tco import compute_tco, effective_price_ratio, pending_tcos
from scoring.types import Price

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")


def _cost(item, spec, rubric=V2):
    return compute_tco(item, spec, rubric).cost_per_effective_gpu_hour


def test_72_delivered_for_64_required_costs_more_per_effective_hour_than_an_exact_fit():
    spec = evaluation(required_total_gpus=64)
    exact = candidate(1, node_count=8)  # 8 x 8 = 64
    surplus = candidate(2, node_count=9)  # 9 x 8 = 72, same price per GPU
    exact_tco, surplus_tco = compute_tco(exact, spec, V2), compute_tco(surplus, spec, V2)
    assert surplus_tco.recommended_total > exact_tco.recommended_total
    # The buyer uses 64 GPUs either way: the 72-GPU total buys the same useful hours.
    assert surplus_tco.useful_gpu_equivalents == Decimal(64)
    assert surplus_tco.gpu_equivalents == Decimal(72)
    ratio = surplus_tco.recommended_total / exact_tco.recommended_total
    assert surplus_tco.cost_per_effective_gpu_hour == pytest.approx(
        exact_tco.cost_per_effective_gpu_hour * ratio, rel=Decimal("0.001")
    )
    assert surplus_tco.cost_per_effective_gpu_hour > exact_tco.cost_per_effective_gpu_hour


def test_more_surplus_at_the_same_price_never_scores_better_on_cost():
    spec = evaluation(required_total_gpus=16)
    costs = [_cost(candidate(n, node_count=n), spec) for n in range(2, 7)]
    assert costs == sorted(costs)
    assert len(set(costs)) == len(costs)
    ranking = score_candidates(
        [candidate(n, node_count=n) for n in range(2, 7)], spec, rubric_version="2"
    )
    cost = {r.candidate_id: r.score("cost") for r in ranking.results}
    assert [cost[n] for n in range(2, 7)] == sorted((cost[n] for n in range(2, 7)), reverse=True)
    assert cost[2] > cost[6]


def test_the_tco_says_what_it_assumed_in_english_and_chinese():
    tco = compute_tco(candidate(node_count=9), evaluation(required_total_gpus=64), V2)
    lines = {code: (english, chinese) for code, english, chinese in tco.assumptions()}
    assert {"collectives", "surplus_gpus"} <= set(lines)  # the collectives are always stated
    english, chinese = lines["surplus_gpus"]
    assert "64 GPUs required, not the 72 delivered" in english
    assert "8 surplus" in english
    assert "64" in chinese and "72" in chinese and "8" in chinese
    assert {item["code"] for item in tco.as_dict()["assumptions"]} == set(lines)
    assert tco.as_dict()["useful_gpu_equivalents"] == "64"
    exact = compute_tco(candidate(node_count=8), evaluation(required_total_gpus=64), V2)
    assert "surplus_gpus" not in {code for code, _, _ in exact.assumptions()}


def test_a_delivery_below_the_requirement_keeps_its_delivered_hours():
    # Knocked out on total GPUs; its cost per effective hour is not flattered either way.
    tco = compute_tco(candidate(node_count=1), evaluation(required_total_gpus=64), V2)
    assert tco.useful_gpu_equivalents == tco.gpu_equivalents == Decimal(8)
    assert "surplus_gpus" not in {code for code, _, _ in tco.assumptions()}


def test_rubric_v1_and_a_recorded_v2_text_without_the_setting_divide_by_delivered_hours():
    spec = evaluation(required_total_gpus=64)
    item = candidate(node_count=9)
    assert compute_tco(item, spec, load_rubric("1")).useful_gpu_equivalents == Decimal(72)
    recorded = load_rubric_text(rubric_text("2").replace('"effective_hours": "required",', ""))
    assert recorded.v2.effective_hours == "delivered"
    old, new = compute_tco(item, spec, recorded), compute_tco(item, spec, V2)
    assert old.useful_gpu_equivalents == Decimal(72)
    assert old.cost_per_effective_gpu_hour < new.cost_per_effective_gpu_hour


def test_mig_slices_beyond_the_requirement_are_surplus_in_full_gpu_equivalents():
    # 3g.40gb on an A100 80GB counts 3/7 of a GPU: 3 nodes x 8 GPUs x 2 slices = 48 slices
    # = 20.5714 equivalents for a 16-GPU need.
    mig = offering(
        delivery_form="mig",
        gpu_model="A100-SXM4-80GB",
        gpu_memory_gib=40,
        gpus_per_node=16,
        mig_profile="3g.40gb",
        prices=(Price("hourly", Decimal("6.00")),),
    )
    spec = evaluation(required_total_gpus=8, required_gpu_memory_gib=40)
    small, large = (
        candidate(1, offering=mig, node_count=2),
        candidate(2, offering=mig, node_count=3),
    )
    small_tco, large_tco = compute_tco(small, spec, V2), compute_tco(large, spec, V2)
    assert small_tco.gpu_equivalents > Decimal(8)
    assert small_tco.useful_gpu_equivalents == large_tco.useful_gpu_equivalents == Decimal(8)
    assert large_tco.cost_per_effective_gpu_hour > small_tco.cost_per_effective_gpu_hour


@pytest.mark.parametrize("nodes", [8, 9, 12, 16])
def test_the_float_figures_equal_the_exact_tco_with_surplus(nodes):
    spec = evaluation(required_total_gpus=64, budget_total=Decimal(9_000_000))
    pool = [
        candidate(i, node_count=nodes, quoted_prices=(Price("hourly", Decimal(10 + i)),))
        for i in range(1, 60)
    ]
    pending = pending_tcos(pool, spec, V2, floats=True)
    for item, got in zip(pool, pending, strict=True):
        tco = compute_tco(item, spec, V2)
        assert got.effective_price_ratio == effective_price_ratio(tco, item.offering.gpu_model, V2)
        assert got.resolve() == tco


def test_a_portfolio_workload_sized_above_its_gpus_pays_for_the_surplus():
    # Portfolios cost each workload as an evaluation of its own (required = the workload's
    # GPUs), so the same rule applies there: a candidate sized up to whole nodes is not
    # priced per effective hour as if every delivered GPU were used.
    spec = replace(evaluation(), required_total_gpus=12)
    tco = compute_tco(candidate(node_count=2), spec, V2)
    assert tco.useful_gpu_equivalents == Decimal(12)
    assert tco.surplus_gpu_equivalents == Decimal(4)
