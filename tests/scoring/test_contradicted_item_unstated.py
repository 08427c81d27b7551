"""Under a contradicted checklist item, a term the vendor left unstated costs what a stated one
costs (rubric v2's ``contradicted_scales``: the factor of each rule's maximum, "whatever was
claimed under it"), so stating a better term never lowers a score (GPU expert review).

Before, an unstated term read as "missing" (0 points) while any stated one cost -50 % of the
rule's maximum: on a bench-style 8 x H800 candidate (bench/scoring.py make_candidate, seed 1,
the 34th) with item 7 (SLA) contradicted, stating a 2-hour hardware replacement lowered
stability from 8.41 to 3.98 and the total from 42.222 to 41.1145 (now both read 3.98 and
41.1145); stating the oversubscription or cross-rack latency under a contradicted item 3, or
the distributed-FS bandwidth under item 5, did the same."""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring.dimensions.facts import FactContext
from scoring.dimensions.runners import reference
from scoring.ranking import rank, score_candidate
from scoring.rubric import load_rubric
from tests.scoring.scoring_factories import candidate, evaluation, offering

V1 = load_rubric("1")
V2 = load_rubric("2")

# (offering field, the better value stated, checklist item answered, dimension, rule); the
# fabric's switch terms are judged under item 3's status (the derived item fabric_topology).
CASES = [
    ("hardware_replacement_hours", 2, "sla", "stability", "stability.sla.hardware_replacement"),
    ("sla_availability_pct", Decimal("99.99"), "sla", "stability", "stability.sla.availability"),
    ("sla_response_time_min", 5, "sla", "support", "support.response.fault_response"),
    ("support_tier", "dedicated_team", "sla", "support", "support.team.tier"),
    (
        "oversubscription_ratio",
        Decimal(1),
        "fabric",
        "network",
        "network.fabric.oversubscription",
    ),
    (
        "cross_rack_latency_us",
        Decimal(1),
        "fabric",
        "network",
        "network.fabric.cross_rack_latency",
    ),
    (
        "distributed_fs_bandwidth_gbyte_s",
        Decimal(80),
        "distributed_storage",
        "storage",
        "storage.dfs.bandwidth",
    ),
    ("nvme_read_gbyte_s", Decimal(12), "local_nvme", "storage", "storage.nvme.read_bandwidth"),
]


def _pair(field: str, better, item: str):
    answers = {item: "contradicted"}
    unstated = candidate(offering=offering(**{field: None}), answers=answers)
    stated = candidate(2, offering=offering(**{field: better}), answers=answers)
    return unstated, stated


def _dimension(result, name: str):
    return next(d for d in result.dimensions if d.dimension == name)


@pytest.mark.parametrize(("field", "better", "item", "dimension", "rule_id"), CASES)
def test_stating_a_better_term_under_a_contradicted_item_never_lowers_a_score(
    field, better, item, dimension, rule_id
):
    unstated, stated = _pair(field, better, item)
    spec = evaluation()
    before, after = score_candidate(unstated, spec, V2), score_candidate(stated, spec, V2)
    for b, a in zip(before.dimensions, after.dimensions, strict=True):
        assert a.score >= b.score, (a.dimension, b.score, a.score)
    assert after.total >= before.total


@pytest.mark.parametrize(("field", "better", "item", "dimension", "rule_id"), CASES)
def test_the_unstated_term_shows_the_contradiction_it_costs(
    field, better, item, dimension, rule_id
):
    unstated, _stated = _pair(field, better, item)
    result = score_candidate(unstated, evaluation(), V2)
    found = next(c for c in _dimension(result, dimension).contributions if c.rule_id == rule_id)
    rule = next(r for r in V2.rules if r.id == rule_id)
    assert found.basis == "missing"
    assert all(found.inputs[name] is None for name in rule.inputs)
    assert found.inputs[f"answer.{rule.claim_item}"] == "contradicted"
    assert found.inputs["contradicted.max_points"] == rule.max_points
    assert found.points == pytest.approx(-0.5 * rule.max_points)
    # The same contribution the rule's definition gives (runners.reference).
    ctx = FactContext(unstated, evaluation(), V2, result.tco)
    assert reference(rule, V2.status_factors, ctx) == found


@pytest.mark.parametrize(("field", "better", "item", "dimension", "rule_id"), CASES)
def test_the_ranking_kernel_agrees(field, better, item, dimension, rule_id):
    unstated, stated = _pair(field, better, item)
    eager = score_candidate(unstated, evaluation(), V2)
    ranked = rank([unstated, stated], evaluation(), V2, explain=False).results
    by_id = {r.candidate_id: r for r in ranked}
    assert by_id[unstated.candidate_id].scores == eager.scores
    found = next(
        c
        for c in _dimension(by_id[unstated.candidate_id], dimension).contributions
        if c.rule_id == rule_id
    )
    assert found == next(
        c for c in _dimension(eager, dimension).contributions if c.rule_id == rule_id
    )


def test_an_unstated_term_under_an_unanswered_item_is_still_missing():
    c = candidate(offering=offering(hardware_replacement_hours=None), answers={"sla": "claimed"})
    result = score_candidate(c, evaluation(), V2)
    found = next(
        x
        for x in _dimension(result, "stability").contributions
        if x.rule_id == "stability.sla.hardware_replacement"
    )
    assert (found.basis, found.points) == ("missing", 0.0)


def test_rubric_v1_keeps_its_recorded_semantics():
    # v1 scales the claimed value's points (contradicted_scales "points"): an unstated term
    # stays "missing" there, so decisions recorded under v1 score as they did.
    c = candidate(
        offering=offering(hardware_replacement_hours=None), answers={"sla": "contradicted"}
    )
    result = score_candidate(c, evaluation(), V1)
    found = next(
        x
        for x in _dimension(result, "stability").contributions
        if x.rule_id == "stability.sla.hardware_replacement"
    )
    assert (found.basis, found.points) == ("missing", 0.0)
