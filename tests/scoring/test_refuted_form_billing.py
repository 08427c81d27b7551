"""A refuted delivery-form claim never lowers the bill (cost-model review, stop 30).

The TCO priced a refuted claim with the form the evidence shows, hourly release included: a
bare-metal claim (hourly capacity not released on idle days: every day is paid) on nodes that
show a passthrough VM became releasable by the hour, so over 90 days with 40 idle its hourly
total fell from above the monthly one to 403,515.61 and its cost score doubled (9.58 to
20.30): refuting the claim paid off. Hourly release is a term of the vendor's contract,
written for the form it sold; the efficiency and the spot risk still follow the form shown.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.tco import TcoPlan, compute_tco, releasable_hourly, spot_risk_pct
from scoring.types import MeasuredFacts

try:
    from scoring_factories import candidate, candidates, evaluation, evaluations, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, candidates, evaluation, evaluations, offering

V2 = load_rubric("2")
SPEC = evaluation(required_total_gpus=16, duration_days=90, expected_idle_days=40)


def _refuted(seen: str) -> MeasuredFacts:
    return MeasuredFacts(
        bare_metal_verdict="virtualised", bare_metal_confidence=0.95, delivery_form_seen=seen
    )


def _tco(c):
    return compute_tco(c, SPEC, V2, TcoPlan(SPEC))


def test_a_refuted_bare_metal_claim_still_pays_every_hourly_day():
    claimed = candidate(offering=offering(delivery_form="bare_metal"), node_count=2)
    refuted = replace(claimed, measured=_refuted("passthrough_vm"))
    assert not releasable_hourly(claimed, V2) and not releasable_hourly(refuted, V2)
    honest, caught = _tco(claimed), _tco(refuted)
    hourly = {m.billing_model: m for m in honest.models}["hourly"]
    caught_hourly = {m.billing_model: m for m in caught.models}["hourly"]
    assert caught_hourly.total == hourly.total  # 90 paid days, idle ones included
    assert caught.recommended_total >= honest.recommended_total
    before = score_candidate(claimed, SPEC, V2)
    after = score_candidate(refuted, SPEC, V2)
    assert after.score("cost") <= before.score("cost")
    assert after.total < before.total


def test_the_form_shown_still_sets_the_efficiency_and_the_spot_risk():
    claimed = candidate(offering=offering(delivery_form="bare_metal"), node_count=2)
    refuted = replace(claimed, measured=_refuted("vgpu"))
    caught, honest = _tco(refuted), _tco(claimed)
    assert caught.efficiency < honest.efficiency
    # vGPU capacity is preempted more than bare metal: the refuted claim's spot risk is vGPU's.
    assert spot_risk_pct(refuted, V2) == V2.v2.form("vgpu").spot_preemption_risk_pct
    assert spot_risk_pct(refuted, V2) > spot_risk_pct(claimed, V2)


@settings(max_examples=60, deadline=None)
@given(
    base=candidates(candidate_id=1),
    spec=evaluations,
    seen=st.sampled_from(("passthrough_vm", "vgpu", "virtualised")),
)
def test_refuting_a_form_never_lowers_the_recommended_total(base, spec, seen):
    honest = replace(base, measured=MeasuredFacts())
    refuted = replace(base, measured=_refuted(seen))
    if not honest.effective_prices():
        return
    plan = TcoPlan(spec)
    before = compute_tco(honest, spec, V2, plan)
    after = compute_tco(refuted, spec, V2, plan)
    if before.recommended_total is None or after.recommended_total is None:
        return
    # The same bill or a dearer one, for every billing model as for the recommended one.
    assert after.recommended_total >= before.recommended_total
    totals = {m.billing_model: m.total for m in before.models}
    for model in after.models:
        if model.billing_model in totals:
            assert model.total >= totals[model.billing_model], model.billing_model
