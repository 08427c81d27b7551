"""Rubric v2 in the single-candidate ranking (issue #16 §3-4 via the brief): the mainland-China
residency knockout on the structured region, and operations-staff TCO for self-managed bare
metal when the buyer has no or a small team. Rubric v1 is unchanged by both."""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring.api import score_candidate
from scoring.rubric import load_rubric
from scoring.tco import compute_tco
from scoring.types import ScoringInputError
from tests.scoring.scoring_factories import candidate, evaluation, offering

V1, V2 = load_rubric("1"), load_rubric("2")
RATE = Decimal("30000")


def _codes(result):
    return [k.code for k in result.knockouts]


@pytest.mark.parametrize(
    ("country", "province", "out"),
    [("CN", "Beijing", False), ("HK", "", True), ("SG", "", True), ("", "", True)],
)
def test_mainland_china_residency_knocks_out_regions_outside_it(country, province, out):
    spec = evaluation(data_residency="mainland_china")
    c = candidate(offering=offering(region_country=country, region_province=province))
    result = score_candidate(c, spec, rubric_version="2")
    assert ("data_residency" in _codes(result)) is out
    if out:
        knockout = next(k for k in result.knockouts if k.code == "data_residency")
        assert "mainland China" in knockout.reason_en
        assert "中国大陆" in knockout.reason_zh
        assert knockout.evidence_ref.startswith("offering: region")
    # no requirement, or rubric v1 (replay): never a residency knockout
    assert "data_residency" not in _codes(score_candidate(c, evaluation(), rubric_version="2"))
    assert "data_residency" not in _codes(score_candidate(c, spec, rubric_version="1"))


def test_bad_residency_or_capacity_is_a_typed_error():
    with pytest.raises(ScoringInputError):
        evaluation(data_residency="moon")
    with pytest.raises(ScoringInputError):
        evaluation(ops_capacity="huge")


@pytest.mark.parametrize(
    ("capacity", "fte"), [("none", Decimal(1)), ("small_team", Decimal("0.5"))]
)
def test_self_managed_bare_metal_adds_ops_staff_for_small_or_no_teams(capacity, fte):
    spec = evaluation(ops_capacity=capacity, ops_staff_cost_month=RATE, duration_days=73)
    base = compute_tco(candidate(), evaluation(duration_days=73, expected_idle_days=10), V2)
    with_ops = compute_tco(candidate(), spec, V2)
    months = Decimal(73 * 12) / Decimal(365)  # 2.4
    expected = (fte * RATE * months).quantize(Decimal("0.01"))
    for plain, costed in zip(base.models, with_ops.models, strict=True):
        assert costed.component("operations") == expected
        assert costed.total == plain.total + expected
    assert with_ops.recommended_total == base.recommended_total + expected


def test_no_ops_cost_for_platform_teams_managed_offerings_or_v1():
    small = evaluation(ops_capacity="none", ops_staff_cost_month=RATE)
    cases = [
        (candidate(), evaluation(ops_capacity="platform_team", ops_staff_cost_month=RATE), V2),
        # a managed option counts once the cost statement that prices it is verified
        (
            candidate(offering=offering(vendor_managed=True), answers={"monthly_cost": "verified"}),
            small,
            V2,
        ),
        (candidate(offering=offering(delivery_form="passthrough_vm")), small, V2),
        (candidate(), evaluation(ops_capacity="none"), V2),  # no rate stated
    ]
    for c, spec, rubric in cases:
        assert all(m.component("operations") == 0 for m in compute_tco(c, spec, rubric).models)
    # v1 replay: the same inputs give v1's six components and v1's totals
    v1 = compute_tco(candidate(), small, V1)
    assert "operations" not in dict(v1.best.components)
    assert v1.cheapest_total == compute_tco(candidate(), evaluation(), V1).cheapest_total


def test_another_currencys_ops_cost_is_converted_at_the_references_rate():
    # Expert review: left out before, so a USD quote dodged the staff a CNY quote pays.
    small = evaluation(ops_capacity="none", ops_staff_cost_month=RATE)
    home = compute_tco(candidate(), small, V2).best.component("operations")
    usd = compute_tco(candidate(offering=offering(currency="USD")), small, V2)
    gpu = offering().gpu_model
    rate = V2.reference_gpu_hour_price(gpu, "USD") / V2.reference_gpu_hour_price(gpu, "CNY")
    assert home > 0
    assert all(
        m.component("operations") == (home * rate).quantize(Decimal("0.01")) for m in usd.models
    )


def test_ops_cost_can_change_the_single_candidate_ranking():
    from scoring.api import score_candidates

    metal = candidate(1)
    managed = candidate(
        2, offering=offering(vendor_managed=True), answers={"monthly_cost": "verified"}
    )
    spec = evaluation(ops_capacity="none", ops_staff_cost_month=Decimal("500000"))
    ranked = score_candidates([metal, managed], spec, rubric_version="2")
    by_id = {r.candidate_id: r for r in ranked.results}
    assert by_id[1].tco.recommended_total > by_id[2].tco.recommended_total
    assert by_id[1].score("cost") < by_id[2].score("cost")


def test_rubric_v2_names_the_sources():
    assert V2.v2.sources["operations"] and V2.v2.sources["residency"]
    assert dict(V2.v2.ops_fte) == {
        "none": Decimal(1),
        "small_team": Decimal("0.5"),
        "platform_team": Decimal(0),
    }
