"""An accelerator the portal cannot check never scores above one it simply has not checked yet
(honesty review of the accelerator treatment).

Huawei Ascend and AMD Instinct parts have none of NVIDIA's reference figures (no nccl-tests
expectation, no NVLink figures). Their network rules that need those figures used to be left
out of the maximum ("not applicable"), so an Ascend was judged on fewer, easier rules: on one
8-card node for inference it scored 63.33 on network against 26.06 for the same offering with
an H20 or H100 that had not been measured yet. Being unmeasurable paid.

Now such a part is scored no better than an unmeasured candidate declaring the same: the
collective bus-bandwidth rules count as missing (0 of their maximum, rubric key
measurable_if) whatever was uploaded, and the interconnect rules score the declared topology
and form factor at the claim factor, at most "claimed" until a document review (no node output
shows HCCS or Infinity Fabric); each evidence line says that no reference exists for the part.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring.dimensions.engine import evaluate_rule
from scoring.dimensions.facts import FactContext
from scoring.ranking import rank, score_candidate
from scoring.reference import (
    OTHER_ACCELERATORS,
    form_factor_ruled_out,
    nvlink_topology_ruled_out,
)
from scoring.rubric import load_rubric
from scoring.types import MeasuredFacts
from tests.scoring.scoring_factories import (
    answer_maps,
    candidate,
    evaluation,
    evaluations,
    measured_facts,
    offering,
    offerings,
)

V2 = load_rubric("2")
COLLECTIVE_RULES = (
    "network.measured.busbw_fraction",
    "network.measured.alltoall_fraction",
    "network.measured.allgather_fraction",
)
INTERCONNECT_RULES = ("network.gpu.form_factor", "network.nvlink.topology")
ACCELERATORS = tuple(acc.display_name for acc in OTHER_ACCELERATORS)
# NVIDIA GPUs of every form factor the offerings declare (an SXM board, PCIe cards with and
# without NVLink bridges, the superchips): the twin of an offering is one whose datasheet
# allows what it declares.
NVIDIA_TWINS = (
    "NVIDIA H100 SXM5 80GB",
    "NVIDIA H20",
    "NVIDIA H100 PCIe 80GB",
    "NVIDIA L40S",
    "NVIDIA GH200 144GB HBM3e",
    "NVIDIA GB200 186GB",
)
# What only a reference makes measurable: an NVIDIA twin without it is "not measured yet".
UNMEASURED = {
    "busbw_fraction": None,
    "alltoall_busbw_fraction": None,
    "allgather_busbw_fraction": None,
    "nvlink_topology": None,
}
INFERENCE = evaluation(workload_profile="inference", required_total_gpus=8)


def _network(result):
    (network,) = [d for d in result.dimensions if d.dimension == "network"]
    return network


def _rules(result):
    return {c.rule_id: c for c in _network(result).contributions}


def _one_node(model: str, candidate_id: int = 1, **changes):
    return candidate(
        candidate_id,
        node_count=1,
        offering=offering(gpu_model=model, gpu_memory_gib=64, **changes),
    )


@pytest.mark.parametrize("accelerator", ACCELERATORS)
@pytest.mark.parametrize("nvidia", ["NVIDIA H20", "NVIDIA H100 SXM5 80GB"])
def test_the_same_offering_scores_the_same_as_an_unmeasured_nvidia_one(accelerator, nvidia):
    # One 8-card node for inference: 63.33 for the accelerator before (its rules that need a
    # reference left out), 26.06 for the NVIDIA part not measured yet; now both 26.06.
    ours = score_candidate(_one_node(accelerator), INFERENCE, V2)
    twin = score_candidate(_one_node(nvidia, 2), INFERENCE, V2)
    assert ours.score("network") == twin.score("network") == 26.06
    rules, twin_rules = _rules(ours), _rules(twin)
    assert [c.max_points for c in rules.values()] == [c.max_points for c in twin_rules.values()]
    for rule_id in COLLECTIVE_RULES:
        found = rules[rule_id]
        assert (found.basis, found.points, found.max_points) == (
            "missing",
            0.0,
            twin_rules[rule_id].max_points,
        )
        assert dict(found.inputs)["derived.nvlink_reference"] is False
        assert found.evidence_ref == (
            f"no nccl-tests reference for {accelerator}: its collective bus bandwidth has no "
            "expected value to be judged against, so the rule counts as unmeasured"
        )
    for rule_id in INTERCONNECT_RULES:
        found = rules[rule_id]
        assert found.points == twin_rules[rule_id].points
        assert found.evidence_ref.startswith(f"no NVLink reference for {accelerator}: ")


def test_an_uploaded_collective_run_changes_nothing_for_an_ascend():
    # An HCCL figure has no expectation to be divided by; were a fraction ever stored for an
    # Ascend (a run on the wrong nodes), it is not read: measuring neither helps nor hurts.
    bare = _one_node("Huawei Ascend 910B")
    runs = replace(
        bare,
        measured=MeasuredFacts(
            busbw_fraction=0.97, alltoall_busbw_fraction=0.9, allgather_busbw_fraction=0.9
        ),
    )
    scores = [score_candidate(c, INFERENCE, V2).score("network") for c in (bare, runs)]
    assert scores[0] == scores[1]
    healthy_h20 = replace(_one_node("NVIDIA H20", 2), measured=runs.measured)
    assert score_candidate(healthy_h20, INFERENCE, V2).score("network") > scores[0]


def test_node_outputs_never_verify_an_ascends_interconnect_but_a_review_does():
    answers = {"nvlink_topology": "verified", "gpu_match": "verified"}
    shown = MeasuredFacts(nvlink_topology="full_mesh")
    ascend = replace(
        _one_node("Huawei Ascend 910B", nvlink_topology="grouped"), answers=answers, measured=shown
    )
    rules = _rules(score_candidate(ascend, INFERENCE, V2))
    topology = rules["network.nvlink.topology"]
    # The declared "grouped" as a claim: nvidia-smi topo -m shows no HCCS mesh.
    assert topology.inputs["derived.nvlink_topology"] == "grouped"
    assert topology.inputs["answer.nvlink_topology_datasheet"] == "claimed"
    reviewed = replace(ascend, reviews={"nvlink_topology": "verified", "gpu_match": "verified"})
    rules = _rules(score_candidate(reviewed, INFERENCE, V2))
    for rule_id in INTERCONNECT_RULES:
        assert next(v for k, v in rules[rule_id].inputs.items() if k.startswith("answer.")) == (
            "verified"
        )
    # A contradiction carries over as it is.
    refuted = replace(ascend, answers={"nvlink_topology": "contradicted"})
    rules = _rules(score_candidate(refuted, INFERENCE, V2))
    assert rules["network.nvlink.topology"].points < 0


def test_the_engine_the_runners_and_the_kernel_agree():
    spec = evaluation(required_total_gpus=16)
    pool = [
        _one_node(ACCELERATORS[i % len(ACCELERATORS)] if i % 2 else NVIDIA_TWINS[i % 3], i)
        for i in range(1, 70)
    ]
    kernel = {r.candidate_id: r.score("network") for r in rank(pool, spec, V2).results}
    for item in pool[:10]:
        assert score_candidate(item, spec, V2).score("network") == kernel[item.candidate_id]
        ctx = FactContext(item, spec, V2, None)
        for rule in V2.by_dimension["network"]:
            assert evaluate_rule(rule, ctx) == evaluate_rule(rule, ctx, general=True)


def _twin_allowed(model: str, item) -> bool:
    o = item.offering
    return (
        form_factor_ruled_out(model, o.gpu_form_factor) is None
        and nvlink_topology_ruled_out(
            model, o.gpus_per_node, o.nvlink_topology, o.gpu_form_factor, o.gpu_memory_gib
        )
        is None
    )


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    accelerator=st.sampled_from(ACCELERATORS),
    nvidia=st.sampled_from(NVIDIA_TWINS),
    declared=offerings,
    answers=answer_maps,
    measured=measured_facts,
    spec=evaluations,
    nodes=st.integers(1, 16),
)
def test_an_accelerator_never_outscores_its_unmeasured_nvidia_twin_on_network(
    accelerator, nvidia, declared, answers, measured, spec, nodes
):
    """Every accelerator family without a reference, any declared offering, any answers and
    anything measured: its network score is at most that of the same offering with an NVIDIA
    GPU whose datasheet allows the declaration, measured alike except for what only a
    reference makes measurable (collective fractions, NVLink topology)."""
    base = candidate(1, node_count=nodes, answers=answers, offering=declared, measured=measured)
    twin = replace(
        base,
        candidate_id=2,
        offering=replace(declared, gpu_model=nvidia),
        measured=replace(measured, **UNMEASURED),
    )
    assume(_twin_allowed(nvidia, twin))
    ours = replace(base, offering=replace(declared, gpu_model=accelerator))
    ranking = {r.candidate_id: r for r in rank([ours, twin], spec, V2).results}
    assert ranking[1].score("network") <= ranking[2].score("network")
    # Alone, each scores as in the ranking (adding a candidate changes no other's score).
    assert score_candidate(ours, spec, V2).score("network") == ranking[1].score("network")
