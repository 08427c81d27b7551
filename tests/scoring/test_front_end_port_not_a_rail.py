"""The slowest compute rail the network rule and the cost model read (MeasuredFacts.
ib_rate_gbit_s_min) is taken from the ports the fabric check took for rails, and of more such
ports than the claimed NICs, from the fastest (GPU expert review).

The real 8 x ConnectX-7 NDR ibstat of an H100 node (gpud) has a BlueField-3 bond at 200 beside
its rails. On InfiniBand the bond's Ethernet layer keeps it out. On a RoCE node, where the
rails are Ethernet too (the same output with its link layers read as Ethernet), the fabric
item left the bond out ("another card model ... a front-end or storage network") and said
"400 Gb/s per GPU", while the slowest-rail figure read the bond's 200: the network dimension
scored 64.85 instead of 67.88 and the explanation contradicted the score."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence.registry import parse_text
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate

SAMPLE = Path(__file__).parent / "evidence/samples/ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt"


def _facts(link_layer: str, fabric: str, claimed_rate: int):
    text = SAMPLE.read_text().replace("Link layer: InfiniBand", f"Link layer: {link_layer}")
    result = parse_text(text)
    evidence = [
        NodeEvidence(node, i, result.kind, result.metrics, "ibstat.txt", None)
        for i, node in enumerate(("gpu-01", "gpu-02"), start=1)
    ]
    claims = Claims(
        gpu_model="NVIDIA H100 80GB HBM3",
        gpus_per_node=8,
        gpu_memory_gib=80,
        gpu_form_factor="sxm",
        nvlink_topology="full_mesh",
        fabric=fabric,
        fabric_rate_gbit_s=claimed_rate,
        nics_per_node=8,
        node_count=2,
    )
    report = verify_candidate(claims, evidence)
    return report, measured_facts(report, evidence)


@pytest.mark.parametrize("claimed_rate", [400, 200])
@pytest.mark.parametrize(
    ("link_layer", "fabric"), [("InfiniBand", "infiniband"), ("Ethernet", "roce")]
)
def test_the_slowest_rail_is_a_rail_not_the_front_end_bond(link_layer, fabric, claimed_rate):
    report, facts = _facts(link_layer, fabric, claimed_rate)
    assert report.items["fabric"].status == "verified"
    # Eight ConnectX-7 rails Active at 400: the BlueField-3 bond at 200 is no rail.
    assert facts.ib_rate_gbit_s_min == 400.0
    assert facts.ib_rails_min == 8
    if claimed_rate == 400:
        assert "400 Gb/s per GPU" in report.items["fabric"].explanation_en
