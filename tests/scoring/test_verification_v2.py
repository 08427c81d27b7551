"""Verification v2: runs matched to the claim, the worst node, fio jobs of their own kind, and
the measured facts scoring reads (scoring.verification.facts), all without a database.

Metrics are shaped as the parsers return them, with the figures of the real samples in
tests/scoring/evidence/samples (named above each); the last tests parse the samples themselves.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.evidence import parse_bytes
from scoring.types import MeasuredFacts
from scoring.verification import (
    Claims,
    NodeEvidence,
    VerificationReport,
    best_busbw_curve,
    evidence_from_report,
    measured_facts,
    measured_from_summary,
    verification_summary,
    verify_candidate,
)

CJK = re.compile(r"[\u4e00-\u9fff]")
SAMPLES = Path(__file__).parent / "evidence" / "samples"

# nccl_tests/oci-h100-2node-roce-nccl2215.txt (peak: in-place 464.79 at 16 GiB)
NCCL_H100_2NODE = {
    "collective": "all_reduce",
    "ranks": 16,
    "peak_busbw_gbyte_s": 464.79,
    "wrong_total": 0,
    "hosts": ["inst-xxxxx-h100-ol89", "inst-yyyyy-h100-ol89"],
    "gpu_names": ["NVIDIA H100 80GB HBM3"],
    "curve": [
        {"size_bytes": 1048576, "busbw_gbyte_s": 60.1},
        {"size_bytes": 17179869184, "busbw_gbyte_s": 464.79},
    ],
}
# An 8 x H100 one-node all_reduce (NVLS on NVSwitch; NVIDIA/nccl-tests#212 reports ~480).
NCCL_H100_1NODE = {
    "collective": "all_reduce",
    "ranks": 8,
    "peak_busbw_gbyte_s": 470.0,
    "wrong_total": 0,
    "hosts": ["gpu-01"],
    "gpu_names": ["NVIDIA H100 80GB HBM3"],
    "curve": [{"size_bytes": 8589934592, "busbw_gbyte_s": 470.0}],
}
# nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt
NCCL_A100_1NODE = {
    "collective": "all_reduce",
    "ranks": 8,
    "peak_busbw_gbyte_s": 232.2,
    "wrong_total": 0,
    "out_of_bounds_ok": True,
    "hosts": ["inst-lscuv-ao-ub24"],
    "gpu_names": ["NVIDIA A100-SXM4-40GB"],
}
# topo/a100-8gpu-baremetal-4nic-nic-legend.txt (NV12 everywhere) and the DGX-1 hybrid cube mesh
TOPO_FULL = {"gpu_count": 8, "nic_count": 4, "nvlink_pairs": 28, "full_nvlink_mesh": True}
TOPO_DGX1 = {"gpu_count": 8, "nic_count": 0, "nvlink_pairs": 16, "full_nvlink_mesh": False}
# nvlink/mlengineering-h100-nvlink-e-and-status.txt: 18 links at 26.562 GB/s
NVLINK_H100 = {"gpu_count": 1, "links_per_gpu": 18, "link_gbyte_s": 26.562}


def ev(kind: str, metrics: dict[str, Any], node: str = "gpu-01", upload: int = 1) -> NodeEvidence:
    return NodeEvidence(node, upload, kind, metrics, f"{kind}.txt", 1)


def parsed(rel: str, node: str = "gpu-01", upload: int = 1) -> NodeEvidence:
    result = parse_bytes((SAMPLES / rel).read_bytes())
    return NodeEvidence(node, upload, result.kind, result.metrics, rel, None)


def claims(**overrides: Any) -> Claims:
    base: dict[str, Any] = {
        "gpu_model": "H100 SXM5 80GB",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "gpu_form_factor": "sxm",
        "nvlink_topology": "full_mesh",
        "fabric": "roce",
        "fabric_rate_gbit_s": 200,
        "nics_per_node": 16,
        "node_count": 2,
    }
    base.update(overrides)
    return Claims(**base)


def facts_of(c: Claims, evidence: list[NodeEvidence]) -> tuple[VerificationReport, MeasuredFacts]:
    report = verify_candidate(c, evidence)
    return report, measured_facts(report, evidence)


def bilingual(text_en: str, text_zh: str) -> None:
    assert not CJK.search(text_en), text_en
    assert CJK.search(text_zh), text_zh


# --- fabric proof needs a multi-node run ---------------------------------------------------------


def test_a_one_node_run_verifies_nvlink_only_on_a_multi_node_candidate() -> None:
    report, measured = facts_of(claims(), [ev("nccl_tests", NCCL_H100_1NODE)])
    busbw = report.busbw
    # 470 against the ring's 360 inside the node: NVLink is fine, the fabric is not shown.
    assert busbw.details["fraction"] == pytest.approx(470 / 360, abs=0.001)
    assert busbw.status == "unverifiable"
    assert "which confirms NVLink inside one node only" in busbw.explanation_en
    assert "a run spanning at least two nodes is needed" in busbw.explanation_en
    assert "declared interconnect" not in busbw.explanation_en
    assert busbw.details["scope"] == "one_node" and not busbw.details["covers_interconnect"]
    bilingual(busbw.explanation_en, busbw.explanation_zh)
    assert report.busbw_fraction is None
    assert measured.busbw_fraction is None
    assert measured.peak_busbw_gbyte_s is None and measured.busbw_nodes is None
    assert measured.nvlink_busbw_fraction == 1.0  # capped


def test_a_one_node_run_still_contradicts_a_slow_nvlink() -> None:
    slow = NCCL_H100_1NODE | {"peak_busbw_gbyte_s": 150.0}
    report = verify_candidate(claims(), [ev("nccl_tests", slow)])
    assert report.busbw.status == "contradicted"
    assert "which contradicts NVLink inside one node only" in report.busbw.explanation_en


def test_a_one_node_run_confirms_a_one_node_candidate() -> None:
    report, measured = facts_of(claims(node_count=1), [ev("nccl_tests", NCCL_H100_1NODE)])
    assert report.busbw.status == "verified"
    assert "which confirms the declared interconnect" in report.busbw.explanation_en
    assert measured.busbw_fraction == 1.0  # 470 over the ring's 360, capped
    assert measured.nvlink_busbw_fraction == measured.busbw_fraction
    assert measured.busbw_nodes == 1


def test_a_two_node_run_verifies_the_fabric_of_a_two_node_candidate() -> None:
    evidence = [ev("nccl_tests", NCCL_H100_1NODE), ev("nccl_tests", NCCL_H100_2NODE, upload=2)]
    report, measured = facts_of(claims(), evidence)
    assert report.busbw.status == "verified"
    assert report.busbw.details["scope"] == "multi_node"
    assert "which confirms the declared interconnect" in report.busbw.explanation_en
    assert report.busbw_fraction == pytest.approx(464.79 / 360.0, abs=0.001)
    assert measured.busbw_fraction == 1.0  # capped
    assert measured.busbw_nodes == 2
    assert measured.nvlink_busbw_fraction == 1.0


def test_ranks_beyond_one_node_count_as_a_multi_node_run_without_host_names() -> None:
    run = NCCL_H100_2NODE | {"hosts": []}
    report = verify_candidate(claims(), [ev("nccl_tests", run)])
    assert report.busbw.details["tested_nodes"] == 2
    assert report.busbw_fraction is not None


# --- foreign and implausible runs ----------------------------------------------------------------


def test_a_four_node_run_filed_for_a_two_node_candidate_is_foreign() -> None:
    # The case: 4 nodes, 32 GPUs, once graded at 298 % of expected.
    big = NCCL_H100_2NODE | {
        "ranks": 32,
        "peak_busbw_gbyte_s": 1400.0,
        "hosts": ["n1", "n2", "n3", "n4"],
    }
    report, measured = facts_of(claims(), [ev("nccl_tests", big)])
    assert report.busbw_fraction is None and measured.busbw_fraction is None
    assert report.busbw.status == "unverifiable"
    assert report.busbw.details["foreign_runs"] == [
        "gpu-01: nccl_tests.txt line 1 (upload 1): 32 ranks on 4 node(s), larger than the "
        "candidate's 2 node(s) × 8 GPUs, on host(s) n1, n2, n3, n4, not node gpu-01"
    ]
    bilingual(report.busbw.explanation_en, report.busbw.explanation_zh)
    # Without host names the rank count alone shows it.
    no_hosts = big | {"hosts": []}
    assert verify_candidate(claims(), [ev("nccl_tests", no_hosts)]).busbw.details["foreign_runs"]


def test_a_foreign_run_is_set_aside_beside_a_usable_one_and_named() -> None:
    big = NCCL_H100_2NODE | {"ranks": 32, "peak_busbw_gbyte_s": 1400.0, "hosts": list("abcd")}
    evidence = [ev("nccl_tests", big, upload=1), ev("nccl_tests", NCCL_H100_2NODE, upload=2)]
    report = verify_candidate(claims(), evidence)
    assert report.busbw.details["tested_nodes"] == 2
    assert report.busbw_fraction == pytest.approx(1.291, abs=0.001)
    assert "Foreign runs set aside" in report.busbw.explanation_en
    assert "不属于该候选" in report.busbw.explanation_zh


def test_a_run_on_another_gpu_model_is_foreign() -> None:
    report = verify_candidate(claims(node_count=1), [ev("nccl_tests", NCCL_A100_1NODE)])
    assert report.busbw_fraction is None
    assert (
        "ran on NVIDIA A100-SXM4-40GB, not the claimed H100 SXM5 80GB"
        in (report.busbw.details["foreign_runs"][0])
    )


def test_a_run_above_the_physical_ceiling_is_implausible_never_a_bonus() -> None:
    # 2 x 8 H100 declared on one 100 GbE port per node: the network carries at most
    # 12.5 GB/s x 1.875 per node; 464.79 GB/s cannot have run on it.
    c = claims(fabric="ethernet", fabric_rate_gbit_s=100, nics_per_node=1)
    report, measured = facts_of(c, [ev("nccl_tests", NCCL_H100_2NODE)])
    assert report.busbw_fraction is None and measured.busbw_fraction is None
    assert report.busbw.status == "unverifiable"
    (reason,) = report.busbw.details["implausible_runs"]
    assert "464.79 GB/s on 2 node(s) is above the 25.8 GB/s" in reason
    assert "physically reach" in reason
    bilingual(report.busbw.explanation_en, report.busbw.explanation_zh)
    # No chart of a run that was not used.
    assert best_busbw_curve([ev("nccl_tests", NCCL_H100_2NODE)], report) == []


def test_nvls_above_the_nominal_expectation_stays_plausible_and_is_capped() -> None:
    run = NCCL_H100_1NODE | {"peak_busbw_gbyte_s": 485.0}  # 1.08 x the NVLink line rate
    report, measured = facts_of(claims(node_count=1), [ev("nccl_tests", run)])
    assert report.busbw.details["implausible_runs"] == []
    assert report.busbw_fraction == pytest.approx(485.0 / 360.0, abs=0.001)
    assert measured.busbw_fraction == 1.0
    assert measured.nvlink_busbw_fraction == 1.0


@given(
    peaks=st.lists(st.floats(0.01, 3000.0), min_size=2, max_size=2),
    nodes=st.sampled_from((1, 2)),
    collective=st.sampled_from(("all_reduce", "alltoall", "all_gather")),
)
def test_a_faster_run_never_scores_lower_and_no_run_scores_above_one(
    peaks: list[float], nodes: int, collective: str
) -> None:
    low, high = sorted(peaks)
    field = {
        "all_reduce": "busbw_fraction",
        "alltoall": "alltoall_busbw_fraction",
        "all_gather": "allgather_busbw_fraction",
    }[collective]
    base = NCCL_H100_2NODE if nodes == 2 else NCCL_H100_1NODE
    c = claims(node_count=nodes)
    ceiling = None
    got = []
    for peak in (low, high):
        run = base | {"collective": collective, "peak_busbw_gbyte_s": peak}
        report, measured = facts_of(c, [ev("nccl_tests", run)])
        value = getattr(measured, field)
        check = report.busbw if collective == "all_reduce" else report.collectives[collective]
        if check.details["implausible_runs"]:
            ceiling = peak
            assert value is None  # set aside, never a bonus
        else:
            assert value is not None and 0 <= value <= 1.0
        got.append(value)
    if ceiling is None:
        assert got[0] <= got[1]


def test_measured_fractions_are_capped_at_one() -> None:
    facts = MeasuredFacts(busbw_fraction=2.98, alltoall_busbw_fraction=1.2)
    assert (facts.busbw_fraction, facts.alltoall_busbw_fraction) == (1.0, 1.0)
    # A summary stored before v2 (the 298 % case) reads back capped.
    assert measured_from_summary({"measured": {"busbw_fraction": 2.98}}).busbw_fraction == 1.0


# --- alltoall and all_gather -------------------------------------------------------------------


def test_alltoall_on_one_node_feeds_the_network_facts() -> None:
    # nccl_tests/nccl-issue2169-h100-alltoall-v2.17.8-truncated.txt: 4 x H100, 337.99 GB/s
    c = claims(gpus_per_node=4, node_count=1)
    evidence = [parsed("nccl_tests/nccl-issue2169-h100-alltoall-v2.17.8-truncated.txt")]
    report, measured = facts_of(c, evidence)
    check = report.collectives["alltoall"]
    assert check.item_key == "alltoall_busbw"
    assert check.details["expected_gbyte_s"] == 360.0  # 450 GB/s NVLink x 0.8
    assert check.status == "verified"
    bilingual(check.explanation_en, check.explanation_zh)
    assert measured.alltoall_busbw_gbyte_s == 337.99
    assert measured.alltoall_busbw_fraction == pytest.approx(0.939, abs=0.001)
    assert measured.ref("alltoall_busbw_fraction")
    assert measured.allgather_busbw_fraction is None
    assert "all_gather" not in report.collectives
    # all_reduce is still judged apart, and says the alltoall run is not its kind.
    assert "collective alltoall" in report.busbw.explanation_en


def test_multi_node_alltoall_and_all_gather_are_bounded_by_the_network() -> None:
    # 2 x 8 GPUs, 16 x 200 Gb/s = 400 GB/s per node, RoCE (x 0.95)
    alltoall = NCCL_H100_2NODE | {"collective": "alltoall", "peak_busbw_gbyte_s": 80.0}
    gather = NCCL_H100_2NODE | {"collective": "all_gather", "peak_busbw_gbyte_s": 300.0}
    report, measured = facts_of(
        claims(), [ev("nccl_tests", alltoall), ev("nccl_tests", gather, upload=2)]
    )
    a2a = report.collectives["alltoall"].details
    # busbw <= B (N-1) / (g (N-g)) = 400 x 15 / 64 = 93.75, x 0.95
    assert a2a["expected_gbyte_s"] == 89.06
    assert measured.alltoall_busbw_fraction == pytest.approx(80 / 89.06, abs=0.001)
    ag = report.collectives["all_gather"].details
    # intra 450 x 0.8 = 360 beats the network's ring, 400 x 0.95 = 380
    assert ag["expected_gbyte_s"] == 360.0
    assert measured.allgather_busbw_fraction == pytest.approx(300 / 360, abs=0.001)


def test_a_one_node_alltoall_is_not_the_clusters_figure() -> None:
    one = NCCL_H100_1NODE | {"collective": "alltoall", "peak_busbw_gbyte_s": 330.0}
    report, measured = facts_of(claims(), [ev("nccl_tests", one)])
    assert report.collectives["alltoall"].status == "unverifiable"
    assert measured.alltoall_busbw_fraction is None


def test_higher_measured_alltoall_never_lowers_the_fraction() -> None:
    fractions = []
    for peak in (20.0, 40.0, 60.0, 80.0, 89.0, 95.0):
        run = NCCL_H100_2NODE | {"collective": "alltoall", "peak_busbw_gbyte_s": peak}
        fractions.append(facts_of(claims(), [ev("nccl_tests", run)])[1].alltoall_busbw_fraction)
    assert fractions == sorted(fractions)
    assert fractions[-1] == 1.0


# --- the worst node ------------------------------------------------------------------------------


def test_nvlink_is_read_from_the_worst_node_and_the_node_is_named() -> None:
    evidence = [
        ev("nvidia_smi_topo", TOPO_FULL, node="gpu-01"),
        ev("nvidia_smi_topo", TOPO_DGX1, node="gpu-02", upload=2),
    ]
    report, measured = facts_of(claims(), evidence)
    item = report.items["nvlink_topology"]
    assert item.status == "contradicted"
    assert item.details["worst_node"] == "gpu-02"
    assert "gpu-02" in item.explanation_en and "gpu-02" in item.explanation_zh
    # Scoring reads the same verdict: the grouped node, not the best one's full mesh.
    assert measured.nvlink_topology == "grouped"


def test_links_down_under_a_full_mesh_topo_degrade_the_measured_topology() -> None:
    evidence = [
        ev("nvidia_smi_topo", TOPO_FULL, node="gpu-01"),
        ev("nvidia_smi_nvlink", NVLINK_H100, node="gpu-01"),
        ev("nvidia_smi_topo", TOPO_FULL, node="gpu-02", upload=2),
        ev("nvidia_smi_nvlink", NVLINK_H100 | {"links_per_gpu": 14}, node="gpu-02", upload=2),
    ]
    report, measured = facts_of(claims(), evidence)
    item = report.items["nvlink_topology"]
    assert item.status == "contradicted"
    assert item.details["worst_node"] == "gpu-02"
    assert item.details["nodes"]["gpu-01"]["effective_topology"] == "full_mesh"
    assert measured.nvlink_topology == "grouped"
    # Healthy on both nodes: the full mesh stands.
    healthy = [e for e in evidence if e.metrics.get("links_per_gpu") != 14]
    healthy.append(ev("nvidia_smi_nvlink", NVLINK_H100, node="gpu-02", upload=2))
    assert facts_of(claims(), healthy)[1].nvlink_topology == "full_mesh"


def test_gpu_count_is_judged_on_the_worst_node() -> None:
    smi = {"gpu_count": 8, "gpu_names": ["NVIDIA H100 80GB HBM3"], "memory_total_mib": [81559]}
    evidence = [
        ev("nvidia_smi", smi, node="gpu-01"),
        ev("nvidia_smi", smi | {"gpu_count": 7}, node="gpu-02", upload=2),
    ]
    item = verify_candidate(claims(), evidence).items["gpu_match"]
    assert item.status == "contradicted"
    assert item.details["worst_node"] == "gpu-02"
    assert item.explanation_en.startswith("On node gpu-02 only 7 GPU(s) are visible")


def test_management_ports_down_are_not_fabric_ports_down() -> None:
    def port(ca: str, ca_type: str, state: str, rate: float) -> dict[str, Any]:
        return {
            "ca": ca,
            "port": 1,
            "state": state,
            "physical_state": "LinkUp" if state == "Active" else "Disabled",
            "rate_gbit_s": rate,
            "link_layer": "Ethernet",
            "ca_type": ca_type,
        }

    rails = [port(f"mlx5_{i}", "MT4129", "Active", 400.0) for i in range(7)]
    rails.append(port("mlx5_7", "MT4129", "Down", 40.0))
    mgmt = [port("mlx5_8", "MT4125", "Down", 10.0)]
    c = claims(fabric_rate_gbit_s=400, nics_per_node=8)
    report, measured = facts_of(c, [ev("ibstat", {"ports": rails + mgmt})])
    assert report.items["fabric"].status == "verified"  # a rail down is a fault
    assert measured.ib_ports_down == 1  # the rail, not the management NIC
    assert measured.ib_rails_min == 7
    assert measured.ib_rate_gbit_s_min == 400.0
    # A 400G rail that came up at 100 Gb/s is the fabric's slowest port, as the check says.
    rails[7] = port("mlx5_7", "MT4129", "Active", 100.0)
    report, measured = facts_of(c, [ev("ibstat", {"ports": rails + mgmt})])
    assert [f.kind for f in report.faults] == ["port_rate_low"]
    assert measured.ib_rate_gbit_s_min == 100.0
    assert measured.ib_ports_down == 0  # the management NIC is still down, and not counted


# --- storage: fio jobs of their own kind -------------------------------------------------------


def test_a_random_small_block_job_never_contradicts_a_bandwidth_claim() -> None:
    # fio/fio333-3jobs-randwrite-nogroup-json.txt: randwrite 4 KiB, iodepth 1, 1.07 GB/s
    c = claims(nvme_write_gbyte_s=Decimal("5"))
    evidence = [parsed("fio/fio333-3jobs-randwrite-nogroup-json.txt")]
    report, measured = facts_of(c, evidence)
    item = report.items["local_nvme"]
    assert item.status == "unverifiable"
    assert "no sequential large-block write job ran (only randwrite 4 KiB, iodepth 1" in (
        item.explanation_en
    )
    bilingual(item.explanation_en, item.explanation_zh)
    assert measured.nvme_write_mbyte_s is None
    jobs = item.details["nodes"]["gpu-01"]["jobs"]
    assert jobs[0]["kind"] == {"read": "other", "write": "iops"}


def test_a_sequential_large_block_job_checks_the_bandwidth_claim() -> None:
    # fio/fio333-seqwrite-json.txt: write 1 MiB, 10.22 GB/s (psync, iodepth 1, a 16 MiB
    # buffered file for 2 s on vda): it measured the page cache, not a drive, so it neither
    # verifies a claim it meets nor refutes one it misses (expert review of stop 33).
    evidence = [parsed("fio/fio333-seqwrite-json.txt")]
    for claimed in ("10", "14"):
        report, measured = facts_of(claims(nvme_write_gbyte_s=Decimal(claimed)), evidence)
        assert report.items["local_nvme"].status == "unverifiable"
        assert measured.nvme_write_mbyte_s is None
    # The same job run with direct I/O on a 4 GiB file checks the claim it meets (its one
    # I/O in flight and 2 s can only understate the drive).
    text = (SAMPLES / "fio/fio333-seqwrite-json.txt").read_text()
    assert '"size" : "16M",' in text
    fit = text.replace('"size" : "16M",', '"size" : "4G",\n    "direct" : "1",')
    result = parse_bytes(fit.encode())
    evidence = [NodeEvidence("gpu-01", 1, result.kind, result.metrics, "fio.json", None)]
    report, measured = facts_of(claims(nvme_write_gbyte_s=Decimal("10")), evidence)
    assert report.items["local_nvme"].status == "verified"
    assert measured.nvme_write_mbyte_s == 10220.603


def test_sequential_small_block_and_mixed_jobs_are_mismatched() -> None:
    seq_4k = {
        "read_bw_mbyte_s": 900.0,
        "jobs": [
            {
                "name": "s",
                "rw": "read",
                "bs_bytes": 4096,
                "iodepth": 1,
                "numjobs": 1,
                "read_bw_mbyte_s": 900.0,
                "write_bw_mbyte_s": 0.0,
            }
        ],
    }
    item = verify_candidate(claims(nvme_read_gbyte_s=7), [ev("fio", seq_4k)]).items["local_nvme"]
    assert item.status == "unverifiable"
    # fio/fio333-randrw-normal.txt: a mixed 4 KiB job (headline-only older parse: rw named)
    mixed = {"read_bw_mbyte_s": 39.6, "write_bw_mbyte_s": 16.8, "rw": ["randrw"]}
    item = verify_candidate(claims(nvme_read_gbyte_s=7), [ev("fio", mixed)]).items["local_nvme"]
    assert item.status == "unverifiable"


def test_two_stonewalled_groups_check_each_direction_with_its_own_job() -> None:
    # The published run (buffered, a 16 MiB file) made direct on a 4 GiB file: each
    # direction's claim is met by its own group's job.
    text = (SAMPLES / "fio/fio333-two-groups-stonewall-json-echoed.txt").read_text()
    assert '"size" : "16M",' in text
    fit = text.replace('"size" : "16M",', '"size" : "4G",\n    "direct" : "1",')
    result = parse_bytes(fit.encode())
    evidence = [NodeEvidence("gpu-01", 1, result.kind, result.metrics, "fio.json", None)]
    c = claims(nvme_read_gbyte_s=Decimal("1.2"), nvme_write_gbyte_s=Decimal("6"))
    report, measured = facts_of(c, evidence)
    assert report.items["local_nvme"].status == "verified"
    assert (measured.nvme_read_mbyte_s, measured.nvme_write_mbyte_s) == (1326.883, 6985.528)


def _random_job(rw: str, iops: float, iodepth: int, numjobs: int) -> dict[str, Any]:
    direction = "write" if "write" in rw else "read"
    other = "read" if direction == "write" else "write"
    return {
        "name": "rand",
        "groupid": 0,
        "rw": rw,
        "bs_bytes": 4096,
        "iodepth": iodepth,
        "numjobs": numjobs,
        "direct": True,  # fio's JSON records it; a text report does not
        f"{direction}_iops": iops,
        f"{direction}_bw_mbyte_s": round(iops * 4096 / 1e6, 3),
        f"{other}_iops": 0.0,
        f"{other}_bw_mbyte_s": 0.0,
    }


def test_random_deep_queue_jobs_check_iops_claims() -> None:
    c = claims(nvme_read_iops=1_000_000)
    deep = {"jobs": [_random_job("randread", 900_000.0, iodepth=64, numjobs=4)]}
    deep["disks"] = ["nvme0n1"]
    item = verify_candidate(c, [ev("fio", deep)]).items["local_nvme"]
    assert item.status == "verified"
    assert "random read 900000 IOPS against 1000000 IOPS claimed" in item.explanation_en
    slow = {"jobs": [_random_job("randread", 500_000.0, iodepth=64, numjobs=4)]}
    slow["disks"] = ["nvme0n1"]
    assert verify_candidate(c, [ev("fio", slow)]).items["local_nvme"].status == "contradicted"


def test_a_queue_depth_one_job_or_a_sequential_job_cannot_judge_iops() -> None:
    c = claims(nvme_read_iops=1_000_000)
    shallow = {"jobs": [_random_job("randread", 14_000.0, iodepth=1, numjobs=1)]}
    item = verify_candidate(c, [ev("fio", shallow)]).items["local_nvme"]
    assert item.status == "unverifiable"
    assert "no random small-block read job with at least 32 I/Os in flight ran" in (
        item.explanation_en
    )
    bilingual(item.explanation_en, item.explanation_zh)
    # fio/fio333-seqread-normal.txt: 1 MiB sequential reads say nothing about IOPS
    evidence = [parsed("fio/fio333-seqread-normal.txt")]
    assert verify_candidate(c, evidence).items["local_nvme"].status == "unverifiable"


# --- dead rules: Xid from the kernel log ---------------------------------------------------------


def test_kernel_log_xid_maps_to_measured_facts() -> None:
    evidence = [
        ev("kernel_log", {"xid_count": 3, "sxid_count": 1, "xid_codes": [79, 48, 79]}),
        ev("kernel_log", {"xid_count": 0, "sxid_count": 0, "xid_codes": []}, node="gpu-02"),
    ]
    report, measured = facts_of(claims(), evidence)
    assert (measured.xid_errors, measured.sxid_errors) == (3, 1)
    assert measured.ref("xid_errors") == "upload 1 · gpu-01 · kernel_log kernel_log.txt"
    (fault,) = [f for f in report.faults if f.kind == "xid_errors"]
    assert fault.node_name == "gpu-01" and fault.details["xid_codes"] == [48, 79]
    assert "3 GPU Xid and 1 NVSwitch SXid event(s) (codes 48, 79)" in fault.explanation_en
    bilingual(fault.explanation_en, fault.explanation_zh)


def test_a_clean_kernel_log_earns_zero_xid_and_no_log_leaves_it_unknown() -> None:
    metrics = {"xid_count": 0, "sxid_count": 0, "xid_codes": [], "nvidia_driver_lines": 4}
    clean = [ev("kernel_log", metrics)]
    assert facts_of(claims(), clean)[1].xid_errors == 0
    assert facts_of(claims(), [])[1].xid_errors is None
    # A clean log without a line of the NVIDIA driver, on a node that shows no GPU otherwise
    # (a container or jump host), is silent about GPUs: no figure, not "no Xid".
    silent = [ev("kernel_log", {**metrics, "nvidia_driver_lines": 0})]
    assert facts_of(claims(), silent)[1].xid_errors is None
    # Codes alone count one event each; garbage is not trusted.
    assert facts_of(claims(), [ev("kernel_log", {"xid_codes": [13, 31]})])[1].xid_errors == 2
    assert facts_of(claims(), [ev("kernel_log", {"xid_count": "many"})])[1].xid_errors is None


# --- the stored summary -------------------------------------------------------------------------


def test_evidence_from_report_keeps_the_parsed_files_only() -> None:
    report = [
        {"ok": True, "kind": "fio", "metrics": {"read_bw_mbyte_s": 1.0}, "file": "a.txt"},
        {"ok": False, "kind": "fio", "error": "unreadable", "file": "b.txt"},
        {"ok": True, "kind": "ibstat", "metrics": None, "file": "c.txt"},
        "garbage",
    ]
    evidence = evidence_from_report(report, node_name="gpu-07", upload_id=4)
    assert [(e.kind, e.source, e.node_name, e.upload_id) for e in evidence] == [
        ("fio", "a.txt", "gpu-07", 4),
        ("ibstat", "c.txt", "gpu-07", 4),
    ]
    assert evidence[1].metrics == {}


def test_the_summary_round_trips_through_json() -> None:
    evidence = [
        ev("nccl_tests", NCCL_H100_2NODE),
        ev("nvidia_smi_topo", TOPO_FULL),
        ev("kernel_log", {"xid_count": 2, "sxid_count": 0, "xid_codes": [79, 79]}),
        ev("dcgm_diag", {"overall": "fail", "failed_tests": ["Memory"]}),
        parsed("fio/fio333-seqwrite-json.txt", upload=2),
    ]
    report, measured = facts_of(claims(nvme_write_gbyte_s=10), evidence)
    summary = json.loads(json.dumps(verification_summary(report, measured, evidence)))
    assert measured_from_summary(summary) == measured
    assert summary["busbw_curve"][-1] == {"size_bytes": 17179869184, "busbw_gbyte_s": 464.79}
    assert summary["busbw"]["details"]["scope"] == "multi_node"
    # Keys from another version are ignored rather than refused.
    summary["measured"]["from_the_future"] = 1
    assert measured_from_summary(summary) == measured
    assert measured_from_summary({}) == MeasuredFacts()


# --- expectations follow the measured fabric, never a slower claim ----------------------------


def _ibstat(rate: float, ports: int) -> dict[str, Any]:
    return {
        "ports": [
            {"ca": f"mlx5_{i}", "port": 1, "state": "Active", "rate_gbit_s": rate}
            for i in range(ports)
        ]
    }


def test_claiming_a_slower_fabric_than_ibstat_shows_earns_nothing() -> None:
    run = NCCL_H100_2NODE | {"peak_busbw_gbyte_s": 300.0}
    evidence = [
        ev("nccl_tests", run),
        ev("ibstat", _ibstat(400, 8), node="n1", upload=2),
        ev("ibstat", _ibstat(400, 8), node="n2", upload=3),
    ]
    honest = facts_of(claims(fabric_rate_gbit_s=400, nics_per_node=8), evidence)[1]
    modest = facts_of(claims(fabric_rate_gbit_s=200, nics_per_node=8), evidence)[1]
    assert modest.busbw_fraction == pytest.approx(honest.busbw_fraction)
    assert honest.busbw_fraction < 1.0
    # A fabric measured slower than claimed keeps the claim's expectation (the fabric check
    # reports the slow ports); it never lowers the bar.
    slow = [ev("nccl_tests", run), ev("ibstat", _ibstat(100, 8), node="n1", upload=2)]
    assert facts_of(claims(fabric_rate_gbit_s=400, nics_per_node=8), slow)[1].busbw_fraction == (
        pytest.approx(honest.busbw_fraction)
    )


def test_an_expectation_raised_by_ibstat_says_so_in_both_languages() -> None:
    # A manager reading "8 x 400 Gb/s" against an offering that claims 200 must be told why,
    # or a must-have missed against a better fabric than claimed looks like an error.
    run = NCCL_H100_2NODE | {"peak_busbw_gbyte_s": 300.0}
    evidence = [
        ev("nccl_tests", run),
        ev("ibstat", _ibstat(400, 8), node="n1", upload=2),
        ev("ibstat", _ibstat(400, 8), node="n2", upload=3),
    ]
    modest = verify_candidate(claims(fabric_rate_gbit_s=200, nics_per_node=8), evidence)
    item = modest.busbw
    assert item.details["fabric_from_ibstat"] is True
    assert (
        "ibstat showed 8 × 400 Gb/s per node on every node, more than the claimed "
        "8 × 200 Gb/s" in item.explanation_en
    )
    assert "ibstat 显示每个节点均为每节点 8 × 400 Gb/s，高于声明的 8 × 200 Gb/s" in (
        item.explanation_zh
    )
    honest = verify_candidate(claims(fabric_rate_gbit_s=400, nics_per_node=8), evidence)
    assert honest.busbw.details["fabric_from_ibstat"] is False
    assert "ibstat showed" not in honest.busbw.explanation_en
    assert "ibstat 显示" not in honest.busbw.explanation_zh


def _per_gpu(*active: int, inactive: tuple[int, ...] = ()) -> dict[str, Any]:
    return {
        str(i): {"active_links": n, "all_links_inactive": i in inactive}
        for i, n in enumerate(active)
    }


def test_one_gpu_with_links_down_contradicts_a_full_mesh_though_the_best_gpu_has_all() -> None:
    # links_per_gpu is the best GPU's count: one GPU with six links down must not hide behind it.
    degraded = NVLINK_H100 | {"gpu_count": 4, "gpus": _per_gpu(18, 18, 12, 18)}
    evidence = [
        ev("nvidia_smi_topo", TOPO_FULL, node="gpu-01"),
        ev("nvidia_smi_nvlink", degraded, node="gpu-01"),
    ]
    report, measured = facts_of(claims(), evidence)
    item = report.items["nvlink_topology"]
    assert item.status == "contradicted"
    assert "GPU 2 has only 12 of the 18 NVLink links" in item.explanation_en
    assert "GPU 2 仅 12 条 NVLink 激活" in item.explanation_zh
    assert measured.nvlink_topology == "grouped"
    healthy = NVLINK_H100 | {"gpu_count": 4, "gpus": _per_gpu(18, 18, 18, 18)}
    evidence[1] = ev("nvidia_smi_nvlink", healthy, node="gpu-01")
    assert facts_of(claims(), evidence)[1].nvlink_topology == "full_mesh"


def test_an_unbridged_gpu_is_left_to_the_topology_matrix_under_nvlink_pairs() -> None:
    pairs = claims(nvlink_topology="grouped")
    unbridged = NVLINK_H100 | {"gpu_count": 3, "gpus": _per_gpu(18, 18, 0, inactive=(2,))}
    item = verify_candidate(pairs, [ev("nvidia_smi_nvlink", unbridged)]).items["nvlink_topology"]
    assert item.status != "contradicted"
    # A partly connected GPU is a degraded bridge under pairs too.
    partial = NVLINK_H100 | {"gpu_count": 3, "gpus": _per_gpu(18, 18, 4)}
    item = verify_candidate(pairs, [ev("nvidia_smi_nvlink", partial)]).items["nvlink_topology"]
    assert item.status == "contradicted"
    assert "GPU 2 has only 4 of the 18 NVLink links" in item.explanation_en
