"""A POC on some of a fleet's nodes is said to be an extrapolation (expert review).

A two-node nccl-tests all_reduce on a 16-node offer verifies the declared interconnect per node,
but it never crossed the switch tiers and oversubscription the whole fleet's traffic crosses:
the verification says on how many of the nodes it ran, and when the expected value is bounded
inside the node, that the run shows only the traffic that rate needs. The TCO, whose efficiency
divides the cost per effective GPU-hour, lists the extrapolation among its assumptions.
"""

from __future__ import annotations

from scoring.rubric import load_rubric
from scoring.tco import compute_tco
from scoring.types import MeasuredFacts
from scoring.verification import verify_candidate
from tests.scoring.scoring_factories import candidate, evaluation
from tests.scoring.test_verification import NCCL_H100_2NODE, claims, ev

RUBRIC = load_rubric("2")


def test_a_two_node_run_on_a_sixteen_node_offer_says_it_is_two_of_sixteen():
    report = verify_candidate(
        claims(fabric_rate_gbit_s=200, nics_per_node=16, node_count=16),
        [ev("nccl_tests", NCCL_H100_2NODE)],
    )
    item = report.busbw
    assert item.status == "verified"  # the declared interconnect per node is confirmed
    assert item.details["tested_nodes"] == 2 and item.details["covers_all_nodes"] is False
    assert "Tested on 2 of the candidate's 16 nodes" in item.explanation_en
    assert "assumed to perform as measured" in item.explanation_en
    assert "16 个节点中的 2 个" in item.explanation_zh


def test_a_run_on_every_node_claims_no_extrapolation():
    report = verify_candidate(
        claims(fabric_rate_gbit_s=200, nics_per_node=16, node_count=2),
        [ev("nccl_tests", NCCL_H100_2NODE)],
    )
    assert report.busbw.details["covers_all_nodes"] is True
    assert "Tested on" not in report.busbw.explanation_en


def test_an_nvlink_bound_expectation_says_the_fabric_rate_was_not_shown():
    # 8 x 400 Gb/s per node: the two-node all_reduce is bounded by NVLink inside the node.
    report = verify_candidate(claims(node_count=16), [ev("nccl_tests", NCCL_H100_2NODE)])
    assert report.expected_busbw.bound == "intra_node"
    assert "not the fabric's full rate" in report.busbw.explanation_en
    assert "而非网络的满速率" in report.busbw.explanation_zh


def _measured(nodes: int, tested: int | None):
    facts = MeasuredFacts(busbw_fraction=0.97, busbw_nodes=tested)
    return candidate(node_count=nodes, measured=facts)


def test_the_tco_says_a_measured_efficiency_is_extrapolated_to_the_fleet():
    spec = evaluation(required_total_gpus=128)
    tco = compute_tco(_measured(16, 2), spec, RUBRIC)
    assert tco.efficiency_basis == "measured" and tco.efficiency_scope == (2, 16)
    lines = {code: (en, zh) for code, en, zh in tco.assumptions()}
    en, zh = lines["efficiency_partial"]
    assert "on 2 of the 16 nodes" in en and "assumed to hold for all 16" in en
    assert "16 个节点中 2 个节点" in zh
    assert {"code": "efficiency_partial", "en": en, "zh": zh} in tco.as_dict()["assumptions"]


def test_no_extrapolation_is_said_for_a_whole_fleet_run_or_without_a_measurement():
    spec = evaluation(required_total_gpus=128)
    for item in (_measured(16, 16), _measured(16, None), candidate(node_count=16)):
        tco = compute_tco(item, spec, RUBRIC)
        assert tco.efficiency_scope is None
        assert "efficiency_partial" not in {code for code, _, _ in tco.assumptions()}
    # Rubric v1 keeps its figures and says nothing new.
    assert compute_tco(_measured(16, 2), spec, load_rubric("1")).efficiency_scope is None


def test_the_extrapolation_moves_no_figure():
    spec = evaluation(required_total_gpus=128)
    partial, whole = (
        compute_tco(_measured(16, 2), spec, RUBRIC),
        compute_tco(_measured(16, 16), spec, RUBRIC),
    )
    assert partial.cost_per_effective_gpu_hour == whole.cost_per_effective_gpu_hour
