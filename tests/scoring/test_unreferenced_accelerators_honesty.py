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

The TCO had the same gap: across nodes its collective efficiency took the assumed all-reduce
alone and never priced the declared fabric, so on two nodes for pre-training an Ascend kept
0.9524 on one 25 Gb/s Ethernet port per node where an unmeasured H20 got 0.0255 (and 0.9524
against 0.8013 on 8 x 400 Gb/s InfiniBand). Its declared fabric is now judged against a stand-in
reference, the most demanding of the table (800 Gb/s per GPU, no NVLink bound), which the TCO
states as an assumption: it never gets more than the NVIDIA twin declaring the same fabric.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring.collectives import collectives
from scoring.dimensions.engine import evaluate_rule
from scoring.dimensions.facts import FactContext
from scoring.ranking import rank, score_candidate
from scoring.reference import (
    OTHER_ACCELERATORS,
    form_factor_ruled_out,
    nvlink_topology_ruled_out,
)
from scoring.rubric import load_rubric
from scoring.tco import compute_tco, priced_form
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
    # The cost side: at the same prices its collectives never get more of the bandwidth, so
    # its efficiency is no higher and its cost per effective GPU-hour no lower (the cost
    # score divides that by each GPU's own reference price, a different figure per family).
    tcos = {r.candidate_id: r.tco for r in ranking.values()}
    if tcos[1] is None:
        return
    assert tcos[1].efficiency <= tcos[2].efficiency
    ours_hour, twin_hour = tcos[1].cost_per_effective_gpu_hour, tcos[2].cost_per_effective_gpu_hour
    if ours_hour is not None and twin_hour is not None:
        assert ours_hour >= twin_hour
    assert compute_tco(ours, spec, V2).efficiency == tcos[1].efficiency


# Two 8-card nodes for pre-training (16 GPUs), each fabric unanswered in the checklist.
PRETRAIN_TWO_NODES = evaluation(workload_profile="pretraining", required_total_gpus=16)
FABRICS = {
    "8 x 400 Gb/s InfiniBand": {
        "fabric": "infiniband",
        "fabric_rate_gbit_s": 400,
        "nics_per_node": 8,
    },
    "1 x 25 Gb/s Ethernet": {"fabric": "ethernet", "fabric_rate_gbit_s": 25, "nics_per_node": 1},
}


def _two_nodes(model: str, candidate_id: int = 1, answers=None, measured=None, **fabric):
    return candidate(
        candidate_id,
        node_count=2,
        answers=answers or {},
        measured=measured or MeasuredFacts(),
        offering=offering(gpu_model=model, gpu_memory_gib=64, **fabric),
    )


def _efficiency(item, spec=PRETRAIN_TWO_NODES):
    return collectives(item, spec, V2, priced_form(item, V2))


@pytest.mark.parametrize(
    ("fabric", "before", "twin_efficiency", "efficiency"),
    [
        ("8 x 400 Gb/s InfiniBand", 0.9524, 0.8013, 0.6075),
        ("1 x 25 Gb/s Ethernet", 0.9524, 0.0255, 0.0122),
    ],
)
@pytest.mark.parametrize("accelerator", ACCELERATORS)
def test_an_accelerators_declared_fabric_is_priced_no_better_than_an_h20s(
    accelerator, fabric, before, twin_efficiency, efficiency
):
    # Before: 0.9524 on either fabric (the assumed all-reduce alone, the fabric unpriced).
    ours = _two_nodes(accelerator, **FABRICS[fabric])
    twin = _two_nodes("NVIDIA H20", 2, **FABRICS[fabric])
    found, twin_found = _efficiency(ours), _efficiency(twin)
    assert (found.source, twin_found.source) == ("stand_in", "declared")
    assert round(twin_found.efficiency, 4) == twin_efficiency
    assert round(found.efficiency, 4) == efficiency < before
    assert found.efficiency <= twin_found.efficiency
    assert found.fabric.nics == FABRICS[fabric]["nics_per_node"]
    # The TCO prices the same: its cost per effective GPU-hour is at least the twin's.
    tco, twin_tco = (
        compute_tco(ours, PRETRAIN_TWO_NODES, V2),
        compute_tco(twin, PRETRAIN_TWO_NODES, V2),
    )
    assert tco.efficiency <= twin_tco.efficiency
    assert tco.cost_per_effective_gpu_hour >= twin_tco.cost_per_effective_gpu_hour
    assert tco.recommended_total == twin_tco.recommended_total


def test_an_accelerators_fabric_now_counts_and_more_of_it_never_costs_more():
    # Priced against the stand-in, a larger or verified fabric raises the efficiency, as it
    # does for an NVIDIA part; it used to make no difference at all.
    figures = [
        _efficiency(
            _two_nodes("Huawei Ascend 910B", fabric="roce", fabric_rate_gbit_s=200, nics_per_node=n)
        ).efficiency
        for n in (0, 1, 2, 4, 8)
    ]
    assert figures == sorted(figures) and figures[0] < figures[-1]
    claimed = _two_nodes(
        "Huawei Ascend 910B", answers={"fabric": "claimed"}, **FABRICS["8 x 400 Gb/s InfiniBand"]
    )
    verified = replace(claimed, answers={"fabric": "verified"})
    contradicted = replace(claimed, answers={"fabric": "contradicted"})
    values = [_efficiency(item).efficiency for item in (contradicted, claimed, verified)]
    assert values == sorted(values) and values[0] < values[2]
    # Verified, 8 x 400 Gb/s is half the stand-in's 800 Gb/s per GPU.
    assert _efficiency(verified).fabric.counted == pytest.approx(0.5)


def test_a_stored_all_reduce_fraction_is_not_read_by_the_tco_either():
    # As in the network dimension: an HCCL run has no expectation to be divided by, so a
    # fraction stored for an Ascend (on one node or across nodes) changes nothing.
    fabric = FABRICS["8 x 400 Gb/s InfiniBand"]
    bare = _two_nodes("Huawei Ascend 910B", **fabric)
    runs = replace(bare, measured=MeasuredFacts(busbw_fraction=1.0))
    for spec in (
        PRETRAIN_TWO_NODES,
        evaluation(workload_profile="pretraining", required_total_gpus=8),
    ):
        found, with_run = _efficiency(bare, spec), _efficiency(runs, spec)
        assert (with_run.efficiency, with_run.basis) == (found.efficiency, "assumed")
    # An H20 measured healthy earns what the Ascend cannot.
    healthy = replace(_two_nodes("NVIDIA H20", 2, **fabric), measured=runs.measured)
    assert _efficiency(healthy).efficiency > _efficiency(bare).efficiency


def test_an_ascend_and_an_h20_on_the_same_offer_rank_by_cost_as_their_fabric_allows():
    # The same prices, nodes and fabric; the H20's TCO is cheaper per effective GPU-hour once
    # the Ascend's fabric is priced (before, the Ascend's 0.9524 beat the H20's 0.8013).
    fabric = FABRICS["8 x 400 Gb/s InfiniBand"]
    pair = [_two_nodes("Huawei Ascend 910B", 1, **fabric), _two_nodes("NVIDIA H20", 2, **fabric)]
    ranking = {r.candidate_id: r for r in rank(pair, PRETRAIN_TWO_NODES, V2).results}
    ascend, h20 = ranking[1].tco, ranking[2].tco
    assert (str(ascend.efficiency), str(h20.efficiency)) == ("0.6075", "0.8013")
    assert ascend.cost_per_effective_gpu_hour > h20.cost_per_effective_gpu_hour
    # Removing the H20 changes nothing of the Ascend's.
    alone = rank(pair[:1], PRETRAIN_TWO_NODES, V2).results[0]
    assert alone.scores == ranking[1].scores and alone.tco.efficiency == ascend.efficiency


def test_the_float_tco_columns_price_a_stand_in_fabric_as_the_exact_tco():
    # From 48 candidates the ranking reads its TCO figures from float columns
    # (tco.batch._efficiency_caps); they must equal the exact TCO's, bit for bit.
    group = []
    for model in (*ACCELERATORS, "NVIDIA H20", "NVIDIA L40S"):
        for fabric, rate, nics in (
            ("infiniband", 400, 8),
            ("roce", 200, 4),
            ("ethernet", 25, 1),
            ("none", 0, 0),
        ):
            for answers in ({}, {"fabric": "verified"}):
                for fraction in (None, 0.9):
                    group.append(
                        _two_nodes(
                            model,
                            len(group) + 1,
                            answers=answers,
                            measured=MeasuredFacts(
                                busbw_fraction=fraction, ib_rails_min=nics // 2 or None
                            ),
                            fabric=fabric,
                            fabric_rate_gbit_s=rate,
                            nics_per_node=nics,
                        )
                    )
    assert len(group) >= 64
    for spec in (
        PRETRAIN_TWO_NODES,
        evaluation(workload_profile="finetuning", required_total_gpus=64),
    ):
        ranking = rank(group, spec, V2)
        for result in ranking.results:
            item = group[result.candidate_id - 1]
            exact = compute_tco(item, spec, V2)
            assert result.tco.efficiency == exact.efficiency, item.label
            assert result.tco.cost_per_effective_gpu_hour == exact.cost_per_effective_gpu_hour
            assert result.scores == score_candidate(item, spec, V2).scores
