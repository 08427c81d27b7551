"""A hardware fault on a few nodes of a fleet is a fault, not a misstated claim (expert review).

One port down of 128, or one GPU fallen off the bus on one node of sixteen, used to contradict
checklist items 3 and 1 for the whole candidate: the fabric's share in the cost fell to a
single Ethernet port, every fabric rule took the contradicted factor, and a missing GPU
knocked the candidate out. Uploading the evidence then scored far below never uploading it.
Now the fault is charged where it is measured (the rails and rate ibstat shows, Xid errors in
stability) and the claim stays verified; a node without the claimed hardware, or a shortfall
beyond the tolerance, still contradicts it.
"""

from __future__ import annotations

from scoring import api
from scoring.verification import NodeEvidence, measured_facts, verify_candidate

try:
    from scoring_factories import candidate, evaluation, fleet_claims
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, fleet_claims

H100 = "NVIDIA H100 80GB HBM3"


def _port(index: int, state: str = "Active", rate: float = 400.0) -> dict:
    return {
        "ca": f"mlx5_{index}",
        "port": 1,
        "state": state,
        "physical_state": "LinkUp" if state == "Active" else "Polling",
        "rate_gbit_s": rate if state == "Active" else 10.0,
        "link_layer": "InfiniBand",
        "ca_type": "MT4129",
    }


def _ibstat(node: str, down: int = 0) -> NodeEvidence:
    ports = [_port(i, "Down" if i < down else "Active") for i in range(8)]
    return NodeEvidence(node, 1, "ibstat", {"ports": ports}, "ibstat.txt")


def _gpus(node: str, count: int = 8, name: str = H100) -> NodeEvidence:
    metrics = {
        "gpu_count": count,
        "product_names": [name] * count,
        "memory_total_mib": [81559] * count,
    }
    return NodeEvidence(node, 1, "nvidia_smi_query", metrics, "nvidia-smi.csv")


NODES = [f"n{i:02d}" for i in range(16)]


def _scored(evidence: list[NodeEvidence]):
    report = verify_candidate(fleet_claims(16), evidence)
    answers = {
        key: report.items[key].status
        for key in ("gpu_match", "fabric")
        if report.items[key].status in ("verified", "contradicted")
    }
    result = api.score_candidate(
        candidate(node_count=16, answers=answers, measured=measured_facts(report, evidence)),
        evaluation(required_total_gpus=120),
        rubric_version="2",
    )
    return report, result


def test_one_port_down_in_a_fleet_is_a_fault_charged_once_not_a_refuted_fabric():
    _all_up, all_up_result = _scored([_ibstat(n) for n in NODES])
    one_down, one_down_result = _scored([_ibstat(n, down=1 if n == "n05" else 0) for n in NODES])
    _silent, silent_result = _scored([])
    assert one_down.items["fabric"].status == "verified"
    assert [f.kind for f in one_down.faults] == ["port_down"]
    assert one_down_result.tco.collectives.fabric.nics == 7  # the worst node's rails count
    # A little below the fleet with every port up, and above not uploading ibstat at all.
    assert silent_result.total < one_down_result.total < all_up_result.total
    assert all_up_result.total - one_down_result.total < 3.0


def test_a_node_without_the_claimed_rails_still_refutes_the_fabric():
    # Only four 400G-capable cards on one node where eight were claimed: not a fault.
    short = NodeEvidence("n05", 1, "ibstat", {"ports": [_port(i) for i in range(4)]}, "i.txt")
    report = verify_candidate(fleet_claims(16), [_ibstat(n) for n in NODES if n != "n05"] + [short])
    assert report.items["fabric"].status == "contradicted"


def test_a_gpu_missing_on_one_node_of_sixteen_is_a_fault_and_no_knockout():
    evidence = [_gpus(n, 7 if n == "n05" else 8) for n in NODES]
    report, result = _scored(evidence)
    item = report.items["gpu_match"]
    assert item.status == "verified"
    assert item.details["nodes"]["n05"]["gpu_fault"] is True
    assert "n05 shows 7 of the 8 GPUs claimed" in item.explanation_en
    assert "127 of 128 GPUs are seen" in item.explanation_en
    assert "待维修的硬件故障" in item.explanation_zh
    assert not result.knockouts


def test_gpus_missing_beyond_the_tolerance_refute_the_count():
    # Two nodes of two: one lacking a GPU is half the fleet.
    pair = verify_candidate(fleet_claims(2), [_gpus("a", 8), _gpus("b", 7)])
    assert pair.items["gpu_match"].status == "contradicted"
    # Five nodes of sixteen lack a GPU: more than a quarter.
    many = verify_candidate(fleet_claims(16), [_gpus(n, 7 if n < "n05" else 8) for n in NODES])
    assert many.items["gpu_match"].status == "contradicted"
    # One node of sixteen showing none of its GPUs: 120 of 128 seen, under 95 %.
    none = verify_candidate(fleet_claims(16), [_gpus(n, 0 if n == "n00" else 8) for n in NODES])
    assert none.items["gpu_match"].status == "contradicted"
    # Two nodes of sixteen lacking two GPUs each: 124 of 128 (96.9 %), an eighth of the nodes.
    two = verify_candidate(fleet_claims(16), [_gpus(n, 6 if n < "n02" else 8) for n in NODES])
    assert two.items["gpu_match"].status == "verified"


def test_another_board_on_one_node_is_never_a_fault():
    evidence = [_gpus(n, 8, "NVIDIA A100-SXM4-80GB" if n == "n05" else H100) for n in NODES]
    assert verify_candidate(fleet_claims(16), evidence).items["gpu_match"].status == "contradicted"
