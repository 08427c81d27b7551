"""Expert review F3: network rules that cannot concern the buyer (no traffic between nodes for a
need that fits in one node; no traffic between GPUs for a 1-GPU need) are not applicable and
leave the network maximum, with the condition read as the explanation; the per-candidate
engine, the rule's definition and the numpy kernel agree."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoring.api import score_candidates
from scoring.dimensions.engine import evaluate_rule
from scoring.dimensions.facts import FactContext
from scoring.rubric import load_rubric, load_rubric_text, rubric_text

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
FABRIC_RULES = {
    "network.fabric.type",
    "network.fabric.gbit_s_per_gpu",
    "network.fabric.rails",
    "network.fabric.oversubscription",
    "network.fabric.cross_rack_latency",
    "network.measured.ib_ports_down",
}
GPU_RULES = {
    "network.gpu.form_factor",
    "network.nvlink.topology",
    "network.measured.busbw_fraction",
    "network.measured.alltoall_fraction",
    "network.measured.allgather_fraction",
    "network.control.nccl_tuning",
}


def _network(result):
    return next(d for d in result.dimensions if d.dimension == "network")


def _rank(pool, spec, rubric=None):
    if rubric is None:
        return score_candidates(pool, spec, rubric_version="2")
    return score_candidates(pool, spec, rubric=rubric)


def test_a_one_node_need_leaves_the_fabric_rules_out_of_the_maximum():
    spec = evaluation(workload_profile="inference", required_total_gpus=8)
    # Two offerings equal but for the fabric: on one 8-GPU node, the fabric does not matter.
    ib = candidate(1, node_count=1)
    bare = candidate(
        2,
        node_count=1,
        offering=offering(
            fabric="none", fabric_rate_gbit_s=0, nics_per_node=0, cross_rack_latency_us=None
        ),
    )
    ranking = _rank([ib, bare], spec)
    for result in ranking.results:
        network = _network(result)
        by_rule = {c.rule_id: c for c in network.contributions}
        for rule_id in FABRIC_RULES:
            contribution = by_rule[rule_id]
            assert contribution.basis == "not_applicable"
            assert contribution.points == 0 and contribution.max_points == 0
            assert dict(contribution.inputs) == {"derived.inter_node_traffic": False}
        for rule_id in GPU_RULES - {"network.measured.alltoall_fraction"}:
            assert by_rule[rule_id].basis != "not_applicable"
    scores = {r.candidate_id: r.score("network") for r in ranking.results}
    assert scores[1] == scores[2]
    # The same need on 4-GPU nodes crosses nodes: the fabric counts again.
    four = replace(ib, offering=offering(gpus_per_node=4), node_count=2)
    (result,) = _rank([four], spec).results
    assert all(
        c.basis != "not_applicable" and c.max_points > 0
        for c in _network(result).contributions
        if c.rule_id in FABRIC_RULES
    )


def test_a_one_gpu_need_is_not_dragged_by_rules_that_need_several_gpus():
    spec = evaluation(workload_profile="inference", required_total_gpus=1)
    single = candidate(1, node_count=1, offering=offering(gpus_per_node=1, fabric="none"))
    (result,) = _rank([single], spec).results
    network = _network(result)
    by_rule = {c.rule_id: c for c in network.contributions}
    for rule_id in GPU_RULES:
        assert by_rule[rule_id].basis == "not_applicable"
        assert by_rule[rule_id].max_points == 0
        assert dict(by_rule[rule_id].inputs) == {"derived.gpu_to_gpu_traffic": False}
    counted = [c for c in network.contributions if c.max_points > 0]
    assert [c.rule_id for c in counted] == ["network.scale.delivery_efficiency"]
    expected = round(100 * counted[0].points / counted[0].max_points, 2)
    assert network.score == expected
    # Before the review the 1-GPU candidate could not reach 40 on network: every rule it
    # cannot have (busbw unmeasurable, no fabric) counted in the maximum.
    recorded = load_rubric_text(
        rubric_text("2")
        .replace(',\n        "derived.nvlink_reference": [\n          true\n        ]', "")
        .replace('"derived.inter_node_traffic": [\n          true\n        ]', '"x": 1')
        .replace('"derived.gpu_to_gpu_traffic": [\n          true\n        ]', '"x": 1')
        .replace('"applies_if": {\n        "x": 1\n      },\n', "")
    )
    assert not any(rule.applies_if for rule in recorded.rules)
    (old,) = _rank([single], spec, recorded).results
    assert old.score("network") < 40 < network.score


@pytest.mark.parametrize("required", [1, 4, 8, 9, 16])
def test_engine_reference_and_kernel_agree(required):
    spec = evaluation(workload_profile="finetuning", required_total_gpus=required)
    pool = [
        candidate(i, node_count=1 + i % 3, offering=offering(gpus_per_node=(1, 4, 8)[i % 3]))
        for i in range(70)
    ]
    kernel = {r.candidate_id: r.score("network") for r in _rank(pool, spec).results}
    engine = {r.candidate_id: r.score("network") for r in _rank(pool[:10], spec).results}
    for candidate_id, score in engine.items():
        assert kernel[candidate_id] == score
    for item in pool[:6]:
        ctx = FactContext(item, spec, V2, None)
        for rule in V2.by_dimension["network"]:
            assert evaluate_rule(rule, ctx) == evaluate_rule(rule, ctx, general=True)


def test_mig_slices_count_by_their_fraction_for_the_node_shape():
    # 14 slices of 3g.40gb per node are 6 full-GPU equivalents: an 8-GPU need crosses nodes.
    mig = offering(
        delivery_form="mig",
        gpu_model="A100-SXM4-80GB",
        gpu_memory_gib=40,
        gpus_per_node=14,
        mig_profile="3g.40gb",
    )
    spec = evaluation(workload_profile="inference", required_total_gpus=8)
    ctx = FactContext(candidate(offering=mig, node_count=2), spec, V2, None)
    rule = V2.rule("network.fabric.type")
    assert evaluate_rule(rule, ctx).basis != "not_applicable"
    small = evaluation(workload_profile="inference", required_total_gpus=6)
    ctx = FactContext(candidate(offering=mig, node_count=1), small, V2, None)
    assert evaluate_rule(rule, ctx).basis == "not_applicable"
