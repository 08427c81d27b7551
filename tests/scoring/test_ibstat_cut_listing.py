"""An ibstat listing cut short shows the node's ports up to the cut, not how many it has (GPU
expert review, scenario 8 x H20 for a China region).

The real ibstat of an H20 node in deepseek-ai/DeepEP#303 ends inside its third ConnectX-7
(state shown, rate and link layer not). Against a claim of four 400 Gb/s rails it contradicted
the claim ("shows only 2 of the 4 claimed ... ports; faulty: .") and set the rails the network
rules and the cost model count to 2. Now the item is unverifiable, names the cut, and the cut
node's rails are not counted; a complete listing with too few rails still contradicts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from scoring.evidence import parse_bytes
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate

CUT = Path(__file__).parent / (
    "evidence/samples/ibstat/"
    "deepep-issue303-h20-ibstat-cx7-mt4129-ndr400-ib-hash-prompt-cut-in-third-port.txt"
)


def _ibstat() -> NodeEvidence:
    result = parse_bytes(CUT.read_bytes())
    return NodeEvidence("h20-01", 1, result.kind, result.metrics, CUT.name, None)


def _claims(nics: int) -> Claims:
    return Claims(
        gpu_model="NVIDIA H20",
        gpus_per_node=8,
        gpu_memory_gib=96,
        gpu_form_factor="sxm",
        nvlink_topology="full_mesh",
        fabric="infiniband",
        fabric_rate_gbit_s=400,
        nics_per_node=nics,
        node_count=2,
    )


def test_a_listing_cut_inside_a_port_cannot_contradict_the_rail_count() -> None:
    evidence = [_ibstat()]
    report = verify_candidate(_claims(4), evidence)
    item = report.items["fabric"]
    assert item.status == "unverifiable"
    assert "the listing ends inside mlx5_2" in item.explanation_en
    assert "faulty: ." not in item.explanation_en
    assert "输出在 mlx5_2 处中断" in item.explanation_zh
    assert item.details["nodes"]["h20-01"]["listing_cut_at"] == "mlx5_2"
    # Two rails seen before the cut are not the node's rails: nothing measured is counted.
    assert measured_facts(report, evidence).ib_rails_min is None


def test_the_ports_shown_before_the_cut_still_meet_a_smaller_claim() -> None:
    assert verify_candidate(_claims(2), [_ibstat()]).items["fabric"].status == "verified"


def test_a_complete_listing_with_too_few_rails_still_contradicts() -> None:
    ev = _ibstat()
    whole = replace(ev, metrics={**ev.metrics, "ports": ev.metrics["ports"][:2]})
    evidence = [whole]
    report = verify_candidate(_claims(4), evidence)
    item = report.items["fabric"]
    assert item.status == "contradicted"
    assert "shows only 2 of the 4 claimed 400 Gb/s ports" in item.explanation_en
    assert "the others are not listed" in item.explanation_en
    assert measured_facts(report, evidence).ib_rails_min == 2
