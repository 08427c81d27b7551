"""The isolation rules count a delivery form by its check, as the scale rule does.

Expert review (p6): an unverified bare-metal claim scored 10/10 on stability's isolation and
12/12 on security's, exactly like bare metal the verdict verified; only the scale rule applied
the claim factor. A passthrough claim the driver itself reported stayed "claimed".
"""

from __future__ import annotations

import pytest

from scoring.ranking import rank, score_candidate
from scoring.rubric import load_rubric
from scoring.types import MeasuredFacts
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
ISOLATION = {"stability.isolation.delivery_form": 10, "security.isolation.delivery_form": 12}
FORM_POINTS = {
    "stability.isolation.delivery_form": {"passthrough_vm": 8, "vgpu": 4, "container": 1},
    "security.isolation.delivery_form": {"passthrough_vm": 10, "vgpu": 5, "container": 2},
}


def _rows(result):
    return {c.rule_id: c for d in result.dimensions for c in d.contributions}


def _score(form="bare_metal", measured=None):
    c = candidate(offering=offering(delivery_form=form), measured=measured or MeasuredFacts())
    return _rows(score_candidate(c, evaluation(), V2))


@pytest.mark.parametrize("rule_id", sorted(ISOLATION))
def test_an_unverified_bare_metal_claim_counts_at_the_claim_factor(rule_id):
    row = _score()[rule_id]
    assert row.basis == "claimed"
    assert row.inputs["answer.delivery_form"] == "claimed"
    assert row.points == pytest.approx(ISOLATION[rule_id] * V2.status_factors["claimed"])


@pytest.mark.parametrize("rule_id", sorted(ISOLATION))
def test_verified_bare_metal_counts_in_full(rule_id):
    measured = MeasuredFacts(bare_metal_verdict="bare_metal", bare_metal_confidence=0.95)
    row = _score(measured=measured)[rule_id]
    assert row.basis == "measured"
    assert row.points == ISOLATION[rule_id]


@pytest.mark.parametrize("rule_id", sorted(ISOLATION))
def test_a_refuted_bare_metal_claim_counts_the_form_shown_at_the_contradicted_factor(rule_id):
    measured = MeasuredFacts(
        bare_metal_verdict="virtualised", bare_metal_confidence=0.95, delivery_form_seen="vgpu"
    )
    row = _score(measured=measured)[rule_id]
    assert row.inputs["derived.delivery_form"] == "vgpu"
    assert row.inputs["answer.delivery_form"] == "contradicted"
    # The refuted item costs the contradicted factor of the rule's maximum (the bare-metal
    # points), whichever form the node showed (rubric v2's contradicted_scales: max_points).
    assert row.max_points == ISOLATION[rule_id]
    assert row.points == ISOLATION[rule_id] * V2.status_factors["contradicted"]
    assert row.inputs["contradicted.max_points"] == ISOLATION[rule_id]


@pytest.mark.parametrize("rule_id", sorted(ISOLATION))
def test_a_better_form_caught_under_a_refuted_claim_never_scores_lower(rule_id):
    # Monotone (expert review of stop 33): with the claim refuted, a node showing better
    # isolation (passthrough) used to cost more than one showing a container, as the
    # negative factor scaled the form's own points.
    points = []
    for seen in ("container", "vgpu", "passthrough_vm"):
        measured = MeasuredFacts(
            bare_metal_verdict="virtualised", bare_metal_confidence=0.95, delivery_form_seen=seen
        )
        result = score_candidate(
            candidate(offering=offering(delivery_form="bare_metal"), measured=measured),
            evaluation(),
            V2,
        )
        points.append((_rows(result)[rule_id].points, result.total))
    assert points == sorted(points)


@pytest.mark.parametrize("form", ["passthrough_vm", "vgpu"])
def test_a_node_showing_the_very_form_claimed_verifies_it(form):
    rows = _score(form, MeasuredFacts(delivery_form_seen=form))
    for rule_id, points in FORM_POINTS.items():
        assert rows[rule_id].basis == "measured"
        assert rows[rule_id].points == points[form]
    assert rows["network.scale.delivery_efficiency"].basis == "measured"
    # The same with a virtualised verdict below the rubric's confidence.
    unsure = MeasuredFacts(
        bare_metal_verdict="virtualised", bare_metal_confidence=0.65, delivery_form_seen=form
    )
    unsure_rows = _score(form, unsure)
    for rule_id in FORM_POINTS:
        assert unsure_rows[rule_id].points == rows[rule_id].points
    assert V2.delivery_form_check(form, "virtualised", 0.65, form) == (form, "verified")


def test_bare_metal_seen_without_a_confident_verdict_stays_a_claim():
    # Bare metal is only ever seen through the verdict: its confidence threshold decides.
    assert V2.delivery_form_check("bare_metal", None, None, "bare_metal") == (
        "bare_metal",
        "claimed",
    )
    assert V2.delivery_form_check("bare_metal", "bare_metal", 0.65, "bare_metal") == (
        "bare_metal",
        "claimed",
    )


def test_the_kernel_and_the_per_candidate_engine_agree_on_forms_seen_without_a_verdict():
    spec = evaluation()
    pool = [
        candidate(
            i,
            offering=offering(delivery_form=form),
            measured=MeasuredFacts(delivery_form_seen=seen),
        )
        for i, (form, seen) in enumerate(
            [
                (f, s)
                for f in ("bare_metal", "passthrough_vm", "vgpu", "container")
                for s in (None, "bare_metal", "passthrough_vm", "vgpu", "virtualised")
            ]
            * 4,
            start=1,
        )
    ]
    batch = {r.candidate_id: r for r in rank(pool, spec, V2, explain=False).results}
    for c in pool:
        alone = score_candidate(c, spec, V2)
        assert batch[c.candidate_id].scores == alone.scores
        assert batch[c.candidate_id].total == alone.total


def test_a_refuted_passthrough_claim_scores_below_the_vgpu_the_driver_reports_honestly():
    honest = _score("vgpu", MeasuredFacts(delivery_form_seen="vgpu"))
    liar = _score(
        "passthrough_vm",
        MeasuredFacts(
            bare_metal_verdict="virtualised", bare_metal_confidence=0.95, delivery_form_seen="vgpu"
        ),
    )
    for rule_id in FORM_POINTS:
        assert liar[rule_id].points < honest[rule_id].points
