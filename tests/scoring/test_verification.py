"""Claim verification against realistic parsed metrics.

Most tests build metrics dicts by hand with the figures of the real samples (the file each
comes from is named above it), shaped as the parsers in scoring/evidence return them, so that
each verifier is tested on its own. The last section runs the same samples, copied into
tests/scoring/evidence/samples (provenance in its PROVENANCE.tsv), through the real parsers.
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.evidence import parse_bytes
from scoring.verification import (
    ITEM_KEYS,
    Claims,
    NodeEvidence,
    Signal,
    VerificationInputError,
    combine_signals,
    measured_facts,
    verify_candidate,
)

CJK = re.compile(r"[\u4e00-\u9fff]")

# --- metrics from the real samples -------------------------------------------------------------

# ibstat/gpud-h100-roce-cx7-some-down-polling.txt: 8 x ConnectX-7 (MT4129) 400G RoCE, two of
# them Down at rate 40, plus 4 x ConnectX-6 Dx (MT4125) 100G Ethernet.
_GPUD_PORTS = [
    ("mlx5_0", "MT4129", "Active", "LinkUp", 400),
    ("mlx5_1", "MT4125", "Active", "LinkUp", 100),
    ("mlx5_10", "MT4129", "Active", "LinkUp", 400),
    ("mlx5_11", "MT4129", "Down", "Polling", 40),
    ("mlx5_2", "MT4125", "Active", "LinkUp", 100),
    ("mlx5_3", "MT4129", "Active", "LinkUp", 400),
    ("mlx5_4", "MT4129", "Active", "LinkUp", 400),
    ("mlx5_5", "MT4129", "Down", "Disabled", 40),
    ("mlx5_6", "MT4129", "Active", "LinkUp", 400),
    ("mlx5_7", "MT4125", "Active", "LinkUp", 100),
    ("mlx5_8", "MT4125", "Active", "LinkUp", 100),
    ("mlx5_9", "MT4129", "Active", "LinkUp", 400),
]
IBSTAT_GPUD = {
    "ports": [
        {
            "ca": ca,
            "port": 1,
            "state": state,
            "physical_state": phys,
            "rate_gbit_s": float(rate),
            "link_layer": "Ethernet",
            "ca_type": ca_type,
        }
        for ca, ca_type, state, phys, rate in _GPUD_PORTS
    ]
}
# ibstat/hpc-login-cx6-mt4123-hdr100.txt: one ConnectX-6 port, HDR100 InfiniBand, Active.
IBSTAT_HDR100 = {
    "ports": [
        {
            "ca": "mlx5_0",
            "port": 1,
            "state": "Active",
            "physical_state": "LinkUp",
            "rate_gbit_s": 100.0,
            "link_layer": "InfiniBand",
            "ca_type": "MT4123",
        }
    ]
}
# lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt
LSPCI_BARE_METAL = {
    "nvidia_gpu_count": 8,
    "gpu_models": ["H100 SXM5 80GB"],
    "virtual": False,
    "virtual_signals": [],
    "physical_signals": ["ASPEED BMC VGA", "NVSwitch bridge"],
    "nvswitch_count": 4,
}
# lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt
LSPCI_VM = {
    "nvidia_gpu_count": 4,
    "gpu_models": ["H100 SXM5 80GB"],
    "virtual": True,
    "virtual_signals": ["virtio device 1af4:1050 (Virtio 1.0 GPU)"],
    "physical_signals": [],
}
# cpuinfo_virt/lscpu-kvm-vm-xeon4114-nested-vtx.txt
LSCPU_KVM = {"logical_cpus": 2, "hypervisor": True, "hypervisor_vendor": "KVM", "sockets": 2}
# cpuinfo_virt/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt (first host)
DMI_DGX = {
    "products": ["DGXA100 920-23687-2531-001"],
    "manufacturers": ["NVIDIA"],
    "virtual": False,
}
DMI_POWEREDGE = {
    "products": ["PowerEdge T-XE8545"],
    "manufacturers": ["Dell Inc."],
    "virtual": False,
}
# nvidia_smi/autodl-2x2080ti-driver550-container.txt
SMI_2080TI = {
    "driver_version": "550.90.07",
    "cuda_version": "12.4",
    "gpu_count": 2,
    "gpu_names": ["NVIDIA GeForce RTX 2080 Ti"],
    "memory_total_mib": [11264, 11264],
}
# nvidia_smi_q/mlengineering-a100-q-ecc-remapped-rows-xid63.txt
SMI_Q_A100_REMAP = {
    "gpu_count": 8,
    "driver_version": "510.73.08",
    "product_names": ["NVIDIA A100-SXM4-80GB"],
    "ecc_volatile_uncorrected": 0,
    "ecc_aggregate_uncorrected": 0,
    "remapped_rows_pending": True,
    "remapped_rows_failure": False,
}
# topo/a100-8gpu-baremetal-4nic-nic-legend.txt (NV12 everywhere)
TOPO_A100_NV12 = {"gpu_count": 8, "nic_count": 4, "nvlink_pairs": 28, "full_nvlink_mesh": True}
# topo/issue37-dgx1-v100-nv1-nv2.txt (hybrid cube mesh: 16 NV pairs, SYS elsewhere)
TOPO_DGX1 = {"gpu_count": 8, "nic_count": 0, "nvlink_pairs": 16, "full_nvlink_mesh": False}
# topo/autodl-2x2080ti-pix-container.txt
TOPO_2080TI = {"gpu_count": 2, "nic_count": 0, "nvlink_pairs": 0, "full_nvlink_mesh": False}
# nvlink/mlengineering-h100-nvlink-e-and-status.txt: 18 links at 26.562 GB/s
NVLINK_H100 = {"gpu_count": 1, "links_per_gpu": 18, "link_gbyte_s": 26.562}
# nccl_allreduce/oci-a100-1node-ubuntu-nccl2265.txt
NCCL_A100_1NODE = {
    "collective": "all_reduce",
    "ranks": 8,
    "peak_busbw_gbyte_s": 232.2,
    "avg_busbw_gbyte_s": 232.167,
    "wrong_total": 0,
    "out_of_bounds_ok": True,
    "hosts": ["inst-lscuv-ao-ub24"],
    "gpu_names": ["NVIDIA A100-SXM4-40GB"],
}
# nccl_allreduce/oci-h100-2node-roce-nccl2215.txt (peak: in-place 464.79 at 16 GiB)
NCCL_H100_2NODE = {
    "collective": "all_reduce",
    "ranks": 16,
    "peak_busbw_gbyte_s": 464.79,
    "wrong_total": 0,
    "hosts": ["inst-xxxxx-h100-ol89", "inst-yyyyy-h100-ol89"],
}
# nccl_allreduce/h100-2node-4gpu-each-g4.txt: 2 hosts x 4 GPUs
NCCL_H100_2X4 = {
    "collective": "all_reduce",
    "ranks": 8,
    "peak_busbw_gbyte_s": 235.51,
    "wrong_total": 0,
    "hosts": ["alpha-test-16way-node-001", "alpha-test-16way-node-002"],
}
# nccl_allreduce/autodl-2x2080ti-pcie-container.txt
NCCL_2080TI = {
    "collective": "all_reduce",
    "ranks": 2,
    "peak_busbw_gbyte_s": 4.0,
    "wrong_total": 0,
    "hosts": ["autodl-container-xxxxx"],
}
# nccl_allreduce/issue37-dgx1-v100-allgather-oldformat-FAILED.txt
NCCL_DGX1_ALLGATHER_FAILED = {
    "collective": "all_gather",
    "ranks": None,
    "peak_busbw_gbyte_s": 129.05,
    "wrong_total": 2,
    "out_of_bounds": 2,
    "out_of_bounds_ok": False,
}
# perftest/roce100g-ib_write_bw-bidir-cpufreq-warning.txt
PERFTEST_100G = {"bw_avg_gbit_s": 98.02, "bw_peak_gbit_s": None}
# dcgmi/memtest-r4-rtx2060-persistence-FAIL.txt
DCGM_FAIL = {"overall": "fail", "failed_tests": ["Persistence Mode"]}


def ev(kind: str, metrics: dict[str, Any], node: str = "gpu-01", upload: int = 1) -> NodeEvidence:
    return NodeEvidence(node, upload, kind, metrics, f"{kind}.txt", 1)


def claims(**overrides: Any) -> Claims:
    base: dict[str, Any] = {
        "gpu_model": "H100 SXM5 80GB",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "gpu_form_factor": "sxm",
        "nvlink_topology": "full_mesh",
        "fabric": "roce",
        "fabric_rate_gbit_s": 400,
        "nics_per_node": 8,
        "node_count": 2,
        "logical_cpus_per_node": 224,
    }
    base.update(overrides)
    return Claims(**base)


def h100_smi(count: int = 8, mib: int = 81559) -> dict[str, Any]:
    return {
        "gpu_count": count,
        "gpu_names": ["NVIDIA H100 80GB HBM3"],
        "memory_total_mib": [mib] * count,
        "driver_version": "535.104.05",
    }


# --- the report's shape -------------------------------------------------------------------------


def test_no_evidence_verifies_nothing() -> None:
    report = verify_candidate(claims(), [])
    assert list(report.items) == list(ITEM_KEYS)
    assert {item.status for item in report.items.values()} == {"unverifiable"}
    assert report.busbw.status == "unverifiable"
    assert report.busbw_fraction is None
    assert report.expected_busbw is None
    assert report.bare_metal.verdict == "uncertain"
    assert report.bare_metal.confidence == 0
    assert report.faults == ()


def test_every_explanation_is_a_sentence_in_both_languages() -> None:
    evidence = [
        ev("nvidia_smi", h100_smi()),
        ev("nvidia_smi_topo", TOPO_A100_NV12 | {"gpu_count": 8}),
        ev("ibstat", IBSTAT_GPUD),
        ev("fio", {"read_bw_mbyte_s": 6800.0, "write_bw_mbyte_s": 4000.0}),
        ev("nccl_tests", NCCL_H100_2NODE),
        ev("lspci", LSPCI_BARE_METAL),
    ]
    report = verify_candidate(claims(nvme_read_gbyte_s=Decimal("7.0")), evidence)
    checks = [*report.items.values(), report.busbw]
    for item in checks:
        assert item.explanation_en.endswith((".", ")")), item
        assert CJK.search(item.explanation_zh), item
        assert not CJK.search(item.explanation_en), item
    for fault in report.faults:
        assert CJK.search(fault.explanation_zh)
    assert CJK.search(report.bare_metal.explanation_zh)


# --- item 1: gpu_match --------------------------------------------------------------------------


def test_gpu_match_verified_with_the_exact_sentence() -> None:
    report = verify_candidate(claims(gpu_model="H100 80GB"), [ev("nvidia_smi", h100_smi())])
    item = report.items["gpu_match"]
    assert item.status == "verified"
    assert item.explanation_en == (
        "Measured 8 × NVIDIA H100 80GB HBM3 (81559 MiB) on node gpu-01 matches the claim "
        "8 × H100 80GB (tolerance 5 %)."
    )
    assert "相符" in item.explanation_zh and "81559 MiB" in item.explanation_zh
    assert item.evidence_ref == "gpu-01: nvidia_smi.txt line 1 (upload 1)"
    assert item.details["nodes"]["gpu-01"]["memory_gib"] == 79.65


def test_gpu_match_verified_on_the_2080ti_container() -> None:
    c = claims(
        gpu_model="RTX 2080 Ti",
        gpus_per_node=2,
        gpu_memory_gib=11,
        gpu_form_factor="pcie",
        nvlink_topology="none",
    )
    item = verify_candidate(c, [ev("nvidia_smi", SMI_2080TI)]).items["gpu_match"]
    assert item.status == "verified"
    assert "11264 MiB" in item.explanation_en


def test_gpu_match_from_lspci_alone_reads_memory_from_the_model_name() -> None:
    item = verify_candidate(claims(), [ev("lspci", LSPCI_BARE_METAL)]).items["gpu_match"]
    assert item.status == "verified"
    assert "80 GB in the model name" in item.explanation_en


def test_gpu_match_contradicted_by_a_vm_slice_with_fewer_gpus() -> None:
    item = verify_candidate(claims(), [ev("lspci", LSPCI_VM)]).items["gpu_match"]
    assert item.status == "contradicted"
    assert "only 4 GPU(s) are visible, fewer than the 8 claimed" in item.explanation_en
    assert "仅可见 4 块 GPU" in item.explanation_zh


def test_gpu_match_contradicted_by_smaller_memory() -> None:
    # the OCI A100 node is an A100-SXM4-40GB; claimed as the 80 GB part
    smi = {"gpu_count": 8, "gpu_names": ["NVIDIA A100-SXM4-40GB"], "memory_total_mib": [40960]}
    c = claims(gpu_model="A100-SXM4-80GB", gpu_memory_gib=80)
    item = verify_candidate(c, [ev("nvidia_smi", smi)]).items["gpu_match"]
    assert item.status == "contradicted"
    assert "40 GiB (40960 MiB), below the claimed 80 GiB less 5 %" in item.explanation_en


def test_gpu_match_contradicted_by_another_model_or_form_factor() -> None:
    a100 = verify_candidate(claims(), [ev("nvidia_smi_query", SMI_Q_A100_REMAP)])
    assert a100.items["gpu_match"].status == "contradicted"
    assert "not the claimed H100 SXM5 80GB" in a100.items["gpu_match"].explanation_en
    pcie = {"gpu_count": 8, "gpu_names": ["NVIDIA H100 PCIe"], "memory_total_mib": [81559]}
    item = verify_candidate(claims(), [ev("nvidia_smi", pcie)]).items["gpu_match"]
    assert item.status == "contradicted"
    assert "is the PCIe version, not SXM as claimed" in item.explanation_en


def test_gpu_match_unverifiable_when_only_the_count_is_known() -> None:
    item = verify_candidate(claims(), [ev("nvidia_smi_topo", TOPO_A100_NV12)]).items["gpu_match"]
    assert item.status == "unverifiable"
    assert "the GPU model is not shown" in item.explanation_en


def test_gpu_match_one_bad_node_contradicts_the_fleet() -> None:
    evidence = [
        ev("nvidia_smi", h100_smi(), node="gpu-01"),
        ev("nvidia_smi", h100_smi(count=7), node="gpu-02"),
    ]
    item = verify_candidate(claims(), evidence).items["gpu_match"]
    assert item.status == "contradicted"
    assert item.explanation_en.startswith("On node gpu-02")
    assert item.details["nodes"]["gpu-01"]["status"] == "verified"


# --- item 2: nvlink_topology --------------------------------------------------------------------


def test_nvlink_full_mesh_verified_by_topo_and_link_status() -> None:
    evidence = [ev("nvidia_smi_topo", TOPO_A100_NV12), ev("nvidia_smi_nvlink", NVLINK_H100)]
    item = verify_candidate(claims(), evidence).items["nvlink_topology"]
    assert item.status == "verified"
    assert "all-to-all NVLink mesh between 8 GPUs" in item.explanation_en


def test_nvlink_hybrid_cube_mesh_contradicts_a_full_mesh_claim() -> None:
    c = claims(gpu_model="V100-SXM2-32GB", gpu_memory_gib=32)
    item = verify_candidate(c, [ev("nvidia_smi_topo", TOPO_DGX1)]).items["nvlink_topology"]
    assert item.status == "contradicted"
    assert "grouped NVLink (not all-to-all) between 8 GPUs" in item.explanation_en
    grouped = verify_candidate(
        claims(gpu_model="V100-SXM2-32GB", gpu_memory_gib=32, nvlink_topology="grouped"),
        [ev("nvidia_smi_topo", TOPO_DGX1)],
    )
    assert grouped.items["nvlink_topology"].status == "verified"


def test_nvlink_pcie_only_node() -> None:
    c = claims(gpu_model="RTX 2080 Ti", gpus_per_node=2, gpu_memory_gib=11)
    item = verify_candidate(c, [ev("nvidia_smi_topo", TOPO_2080TI)]).items["nvlink_topology"]
    assert item.status == "contradicted"
    none_claim = verify_candidate(
        claims(gpu_model="RTX 2080 Ti", gpus_per_node=2, gpu_memory_gib=11, nvlink_topology="none"),
        [ev("nvidia_smi_topo", TOPO_2080TI)],
    )
    assert none_claim.items["nvlink_topology"].status == "verified"


def test_nvlink_missing_links_contradict_even_with_a_full_mesh_topo() -> None:
    evidence = [
        ev("nvidia_smi_topo", TOPO_A100_NV12),
        ev("nvidia_smi_nvlink", NVLINK_H100 | {"links_per_gpu": 16}),
    ]
    item = verify_candidate(claims(), evidence).items["nvlink_topology"]
    assert item.status == "contradicted"
    assert "only 16 of the 18 NVLink links" in item.explanation_en
    assert "so the claimed all-to-all NVLink mesh is not complete" in item.explanation_en


def test_nvlink_partial_view_is_unverifiable() -> None:
    four = {"gpu_count": 4, "nvlink_pairs": 6, "full_nvlink_mesh": True}
    item = verify_candidate(claims(), [ev("nvidia_smi_topo", four)]).items["nvlink_topology"]
    assert item.status == "unverifiable"
    assert "only 4 of the 8 claimed GPUs are visible" in item.explanation_en


def test_nvlink_status_alone_cannot_show_the_mesh() -> None:
    item = verify_candidate(claims(), [ev("nvidia_smi_nvlink", NVLINK_H100)]).items[
        "nvlink_topology"
    ]
    assert item.status == "unverifiable"


# --- item 3: fabric -----------------------------------------------------------------------------


def test_two_down_cx7_rails_are_a_fault_not_a_misstated_claim() -> None:
    # The eight 400G rails are there, two are down: a fault for repair, charged by the rules
    # that read the rails and rate measured (expert review: one port down on one node of a
    # fleet scored the vendor as if it had lied).
    report = verify_candidate(claims(), [ev("ibstat", IBSTAT_GPUD)])
    item = report.items["fabric"]
    assert item.status == "verified"
    assert "8 400 Gb/s-capable RoCE rail port(s) of the claim" in item.explanation_en
    assert "6 Active at full rate" in item.explanation_en
    assert "A hardware fault, not a misstated claim" in item.explanation_en
    assert "硬件故障而非虚假声明" in item.explanation_zh
    assert item.details["nodes"]["gpu-01"]["active_rail_ports"] == 6
    assert "mlx5_11 (ConnectX-7) Down/Polling at rate 40" in item.explanation_en
    assert "mlx5_5 (ConnectX-7) Down/Disabled at rate 40" in item.explanation_en
    # the 100G ConnectX-6 Dx management ports are not rails
    assert "mlx5_1" not in item.details["nodes"]["gpu-01"]["rail_ports"]
    down = [f for f in report.faults if f.kind == "port_down"]
    assert [f.details["ca"] for f in down] == ["mlx5_11", "mlx5_5"]


def test_fabric_verified_when_enough_ports_are_up_but_faults_still_reported() -> None:
    report = verify_candidate(claims(nics_per_node=6), [ev("ibstat", IBSTAT_GPUD)])
    assert report.items["fabric"].status == "verified"
    assert "Faulty extra ports" in report.items["fabric"].explanation_en
    assert len([f for f in report.faults if f.kind == "port_down"]) == 2


def test_fabric_infiniband_claim_on_roce_ports_is_contradicted() -> None:
    item = verify_candidate(claims(fabric="infiniband"), [ev("ibstat", IBSTAT_GPUD)]).items[
        "fabric"
    ]
    assert item.status == "contradicted"
    assert "no InfiniBand port able to run 400 Gb/s" in item.explanation_en


def test_fabric_hdr100_port() -> None:
    ok = claims(fabric="infiniband", fabric_rate_gbit_s=100, nics_per_node=1)
    assert verify_candidate(ok, [ev("ibstat", IBSTAT_HDR100)]).items["fabric"].status == (
        "verified"
    )
    # a ConnectX-6 can run HDR 200; at 100 it is a 200G card at rate 100
    hdr = claims(fabric="infiniband", fabric_rate_gbit_s=200, nics_per_node=1)
    report = verify_candidate(hdr, [ev("ibstat", IBSTAT_HDR100)])
    # The card is built for 200 and negotiated 100: a fault, scored at the rate measured.
    assert report.items["fabric"].status == "verified"
    assert [f.kind for f in report.faults] == ["port_rate_low"]
    assert measured_facts(report, [ev("ibstat", IBSTAT_HDR100)]).ib_rate_gbit_s_min == 100.0


def test_a_400g_card_at_rate_100_is_a_fault() -> None:
    slow = {
        "ports": [
            dict(p, rate_gbit_s=100.0) if p["ca"] == "mlx5_0" else p for p in IBSTAT_GPUD["ports"]
        ]
    }
    report = verify_candidate(claims(nics_per_node=5), [ev("ibstat", slow)])
    low = [f for f in report.faults if f.kind == "port_rate_low"]
    assert len(low) == 1
    assert low[0].details["ca"] == "mlx5_0"
    assert "below the claimed 400 Gb/s" in low[0].explanation_en
    assert report.items["fabric"].status == "verified"  # 5 good ports were enough


def test_fabric_from_perftest_alone() -> None:
    fits = claims(fabric="roce", fabric_rate_gbit_s=100, nics_per_node=1)
    item = verify_candidate(fits, [ev("perftest", PERFTEST_100G)]).items["fabric"]
    assert item.status == "unverifiable"
    assert "98.02 Gb/s, which fits one 100 Gb/s port" in item.explanation_en
    slow = verify_candidate(claims(), [ev("perftest", PERFTEST_100G)]).items["fabric"]
    assert slow.status == "contradicted"


def test_fabric_none_claimed_is_unverifiable() -> None:
    c = claims(fabric="none", fabric_rate_gbit_s=0, nics_per_node=0)
    report = verify_candidate(c, [ev("ibstat", IBSTAT_GPUD)])
    assert report.items["fabric"].status == "unverifiable"
    assert not [f for f in report.faults if f.kind.startswith("port")]


def test_fabric_without_evidence_is_unverifiable() -> None:
    item = verify_candidate(claims(), [ev("nvidia_smi", h100_smi())]).items["fabric"]
    assert item.status == "unverifiable"
    assert "No ibstat" in item.explanation_en


# --- items 4 and 5: storage ---------------------------------------------------------------------


def test_local_nvme_verified_at_80_percent() -> None:
    c = claims(nvme_read_gbyte_s=Decimal("7.0"), nvme_write_gbyte_s=Decimal("5.0"))
    fio = {"read_bw_mbyte_s": 6800.0, "write_bw_mbyte_s": 4000.0, "read_iops": 51.9}
    fio["disks"] = ["nvme0n1"]  # the device fio drove ("Disk stats" / disk_util)
    # Headline figures alone do not record direct I/O, so they verify nothing (expert review:
    # fio's default is buffered, the page cache); the jobs fio's JSON lists with direct=1 do.
    headline = verify_candidate(c, [ev("fio", fio)]).items["local_nvme"]
    assert headline.status == "unverifiable"
    assert "direct I/O is not recorded" in headline.explanation_en
    job = {"bs_bytes": 1 << 20, "iodepth": 32, "numjobs": 4, "direct": True}
    fio["jobs"] = [
        {**job, "rw": "read", "read_bw_mbyte_s": 6800.0, "write_bw_mbyte_s": 0.0},
        {**job, "rw": "write", "read_bw_mbyte_s": 0.0, "write_bw_mbyte_s": 4000.0},
    ]
    item = verify_candidate(c, [ev("fio", fio)]).items["local_nvme"]
    assert item.status == "verified"
    assert "read 6.8 GB/s against 7 GB/s claimed; write 4 GB/s against 5 GB/s" in (
        item.explanation_en
    )
    assert "capacity is not measured" in item.explanation_en


def test_local_nvme_contradicted_below_80_percent() -> None:
    c = claims(nvme_read_gbyte_s=Decimal("10"))
    fio = {"read_bw_mbyte_s": 6800.0, "disks": ["nvme0n1"]}
    item = verify_candidate(c, [ev("fio", fio)]).items["local_nvme"]
    assert item.status == "contradicted"
    assert item.details["nodes"]["gpu-01"]["read_fraction"] == 0.68
    # A headline-only figure records none of the run's settings: taken as fit, and said so.
    assert "direct I/O is not recorded" in item.explanation_en


def test_local_nvme_takes_each_directions_best_run() -> None:
    c = claims(nvme_read_gbyte_s=7, nvme_write_gbyte_s=5)
    job = {"bs_bytes": 1 << 20, "iodepth": 32, "numjobs": 1, "direct": True}
    read = {**job, "rw": "read", "read_bw_mbyte_s": 6800.0, "write_bw_mbyte_s": 0.0}
    write = {**job, "rw": "write", "read_bw_mbyte_s": 0.0, "write_bw_mbyte_s": 4100.0}
    evidence = [
        ev("fio", {"read_bw_mbyte_s": 6800.0, "jobs": [read], "disks": ["nvme0n1"]}),
        ev("fio", {"write_bw_mbyte_s": 4100.0, "jobs": [write], "disks": ["md0"]}, upload=2),
        ev("fio", {"read_bw_mbyte_s": 120.0, "write_bw_mbyte_s": 90.0}, upload=3),  # 4k random
    ]
    assert verify_candidate(c, evidence).items["local_nvme"].status == "verified"


def test_local_nvme_missing_direction_is_unverifiable() -> None:
    c = claims(nvme_read_gbyte_s=7, nvme_write_gbyte_s=5)
    item = verify_candidate(c, [ev("fio", {"read_bw_mbyte_s": 6800.0})]).items["local_nvme"]
    assert item.status == "unverifiable"
    assert "fio did not measure writes" in item.explanation_en


def test_local_nvme_needs_a_claim_and_a_measurement() -> None:
    assert verify_candidate(claims(), [ev("fio", {"read_bw_mbyte_s": 6800.0})]).items[
        "local_nvme"
    ].status == ("unverifiable")
    assert verify_candidate(claims(nvme_read_gbyte_s=7), []).items["local_nvme"].status == (
        "unverifiable"
    )


def test_distributed_storage_is_never_verified() -> None:
    c = claims(distributed_fs="Lustre", distributed_fs_bandwidth_gbyte_s=Decimal("20"))
    item = verify_candidate(c, [ev("fio", {"read_bw_mbyte_s": 25000.0})]).items[
        "distributed_storage"
    ]
    assert item.status == "unverifiable"
    assert "Lustre" in item.explanation_en
    assert item.details["fio_nodes"] == ["gpu-01"]


# --- bus bandwidth ------------------------------------------------------------------------------


def test_busbw_8x_a100_single_node() -> None:
    c = claims(gpu_model="A100-SXM4-40GB", gpu_memory_gib=40, node_count=1)
    report = verify_candidate(c, [ev("nccl_tests", NCCL_A100_1NODE)])
    assert report.expected_busbw is not None
    assert report.expected_busbw.value_gbyte_s == 240.0
    assert report.busbw_fraction == pytest.approx(0.9675, abs=0.001)
    assert report.busbw.status == "verified"
    assert "232.2 GB/s peak busbw on 8 GPUs (1 node(s))" in report.busbw.explanation_en
    assert "96.7 % of the 240 GB/s expected" in report.busbw.explanation_en


def test_busbw_2x8_h100_roce() -> None:
    c = claims(fabric_rate_gbit_s=200, nics_per_node=16)
    report = verify_candidate(c, [ev("nccl_tests", NCCL_H100_2NODE)])
    # Above the ring's bound (360 GB/s inside the node): the tree's gain on two nodes.
    assert report.busbw_fraction == pytest.approx(464.79 / 360.0, abs=0.001)
    assert report.busbw.status == "verified"
    assert report.busbw.details["tested_nodes"] == 2


def test_busbw_between_the_bands_is_unverifiable_with_the_fraction() -> None:
    c = claims(
        gpu_model="RTX 2080 Ti",
        gpus_per_node=2,
        gpu_memory_gib=11,
        nvlink_topology="none",
        node_count=1,
    )
    report = verify_candidate(c, [ev("nccl_tests", NCCL_2080TI)])
    assert report.busbw_fraction == pytest.approx(0.635, abs=0.001)
    assert report.busbw.status == "unverifiable"
    assert report.busbw.details["fraction"] == report.busbw_fraction


def test_busbw_far_below_expected_contradicts() -> None:
    c = claims(gpu_model="A100-SXM4-40GB", gpu_memory_gib=40, node_count=1)
    slow = NCCL_A100_1NODE | {"peak_busbw_gbyte_s": 100.0}
    report = verify_candidate(c, [ev("nccl_tests", slow)])
    assert report.busbw.status == "contradicted"
    assert report.busbw_fraction == pytest.approx(0.417, abs=0.001)


def test_busbw_ignores_runs_not_at_the_declared_gpus_per_node() -> None:
    # 2 nodes x 4 GPUs, or 1 GH200 per node, against 8 / 4 GPUs per node claimed
    report = verify_candidate(claims(), [ev("nccl_tests", NCCL_H100_2X4)])
    assert report.busbw_fraction is None
    assert report.busbw.status == "unverifiable"
    assert "8 ranks on 2 node(s), not 8 per node" in report.busbw.explanation_en


def test_busbw_ignores_wrong_results_and_other_collectives() -> None:
    c = claims(gpu_model="V100-SXM2-32GB", gpu_memory_gib=32, nvlink_topology="grouped")
    report = verify_candidate(c, [ev("nccl_tests", NCCL_DGX1_ALLGATHER_FAILED)])
    assert report.busbw_fraction is None
    assert "collective all_gather" in report.busbw.explanation_en
    wrong = [f for f in report.faults if f.kind == "nccl_wrong_results"]
    assert len(wrong) == 1 and wrong[0].details["wrong_total"] == 2
    bad_allreduce = NCCL_A100_1NODE | {"wrong_total": 3}
    c2 = claims(gpu_model="A100-SXM4-40GB", gpu_memory_gib=40)
    assert verify_candidate(c2, [ev("nccl_tests", bad_allreduce)]).busbw_fraction is None


def test_busbw_judges_the_run_on_the_most_nodes() -> None:
    c = claims(fabric_rate_gbit_s=200, nics_per_node=16)
    one_node = NCCL_A100_1NODE | {"peak_busbw_gbyte_s": 480.0, "gpu_names": []}
    evidence = [ev("nccl_tests", one_node, upload=1), ev("nccl_tests", NCCL_H100_2NODE, upload=2)]
    report = verify_candidate(c, evidence)
    assert report.busbw.details["tested_nodes"] == 2
    assert report.busbw.evidence_ref == "gpu-01: nccl_tests.txt line 1 (upload 2)"


def test_busbw_unknown_gpu_model_gives_no_fraction() -> None:
    c = claims(gpu_model="Instinct MI300X", gpu_memory_gib=192, node_count=1)
    # A run whose device list names no GPU: measured, but nothing to compare it with.
    report = verify_candidate(c, [ev("nccl_tests", NCCL_A100_1NODE | {"gpu_names": []})])
    assert report.busbw_fraction is None
    assert "not in the reference table" in report.busbw.explanation_en
    # The same run naming its A100s is another model's run: set aside, not judged.
    report = verify_candidate(c, [ev("nccl_tests", NCCL_A100_1NODE)])
    assert report.busbw_fraction is None
    assert report.busbw.details["foreign_runs"] == [
        "gpu-01: nccl_tests.txt line 1 (upload 1): ran on NVIDIA A100-SXM4-40GB, not the claimed "
        "Instinct MI300X (model A100, not MI300X; 40 GB, not 192 GB), on host(s) "
        "inst-lscuv-ao-ub24, not node gpu-01"
    ]


# --- faults -------------------------------------------------------------------------------------


def test_health_faults_from_remapped_rows_and_dcgm() -> None:
    evidence = [ev("nvidia_smi_query", SMI_Q_A100_REMAP), ev("dcgm_diag", DCGM_FAIL)]
    report = verify_candidate(claims(), evidence)
    kinds = sorted(f.kind for f in report.faults)
    assert kinds == ["dcgm_fail", "remapped_rows_pending"]
    dcgm = next(f for f in report.faults if f.kind == "dcgm_fail")
    assert "Persistence Mode" in dcgm.explanation_en
    ecc = verify_candidate(
        claims(), [ev("nvidia_smi_query", SMI_Q_A100_REMAP | {"ecc_volatile_uncorrected": [0, 2]})]
    )
    assert "ecc_uncorrected" in {f.kind for f in ecc.faults}


def test_dcgm_warning_is_a_warning() -> None:
    report = verify_candidate(
        claims(), [ev("dcgm_diag", {"overall": "warn", "warned_tests": ["GPU Memory"]})]
    )
    assert [(f.kind, f.severity) for f in report.faults] == [("dcgm_warn", "warning")]


# --- bare metal ---------------------------------------------------------------------------------


def test_clear_vm_is_virtualised() -> None:
    evidence = [ev("cpu_info", LSCPU_KVM), ev("lspci", LSPCI_VM)]
    verdict = verify_candidate(claims(), evidence).bare_metal
    assert verdict.verdict == "virtualised"
    assert verdict.confidence > 0.95
    names = {s.name for s in verdict.signals}
    assert names == {"cpu_hypervisor_flag", "lspci_devices", "cpu_count"}
    assert all(s.points_to == "virtual" for s in verdict.signals)
    assert "KVM" in verdict.explanation_en and "虚拟化" in verdict.explanation_zh


def test_clear_bare_metal_host() -> None:
    evidence = [
        ev("dmi", DMI_DGX),
        ev("lspci", LSPCI_BARE_METAL),
        ev("cpu_info", {"logical_cpus": 224, "hypervisor": False, "hypervisor_vendor": None}),
        ev("virt", {"virt": "none", "virtual": False, "container": False}),
        ev("nvidia_smi_query", {"gpu_count": 8, "virtualization_mode": "None", "mig_mode": []}),
    ]
    verdict = verify_candidate(claims(), evidence).bare_metal
    assert verdict.verdict == "bare_metal"
    assert verdict.confidence > 0.85
    assert verdict.virtual_score == 0
    assert "DGXA100" in verdict.explanation_en


def test_mixed_signals_are_uncertain() -> None:
    evidence = [
        ev("dmi", DMI_DGX),
        ev("lspci", LSPCI_BARE_METAL),
        ev("virt", {"virt": "kvm", "virtual": True, "container": False}),
    ]
    verdict = verify_candidate(claims(), evidence).bare_metal
    assert verdict.verdict == "uncertain"
    assert 0 < verdict.confidence < 0.6
    assert {s.points_to for s in verdict.signals} == {"bare_metal", "virtual"}


def test_a_single_weak_signal_is_uncertain() -> None:
    for evidence in (
        [ev("dmi", DMI_POWEREDGE)],
        [ev("lspci", LSPCI_BARE_METAL)],
        [ev("nvidia_smi_query", {"mig_mode": ["Enabled"]})],
        [ev("cpu_info", {"logical_cpus": 64, "hypervisor": False})],
    ):
        assert verify_candidate(claims(), evidence).bare_metal.verdict == "uncertain"


def test_hidden_hypervisor_flag_does_not_save_a_virtio_vm() -> None:
    evidence = [ev("cpu_info", {"logical_cpus": 224, "hypervisor": False}), ev("lspci", LSPCI_VM)]
    assert verify_candidate(claims(), evidence).bare_metal.verdict == "virtualised"


@pytest.mark.parametrize(
    ("kind", "metrics", "signal"),
    [
        ("nvidia_smi", {"gpu_names": ["GRID A100-40C"], "gpu_count": 1}, "nvidia_vgpu"),
        ("nvidia_smi", {"gpu_names": ["NVIDIA A100"], "vgpu": True}, "nvidia_vgpu"),
        ("nvidia_smi_query", {"virtualization_mode": ["Pass-Through"]}, "gpu_virtualization_mode"),
        ("nvidia_smi_query", {"virtualization_mode": "VGPU"}, "gpu_virtualization_mode"),
        ("dmi", {"products": ["KVM"], "virtual": True}, "dmi_product"),
    ],
)
def test_strong_virtual_signals(kind: str, metrics: dict[str, Any], signal: str) -> None:
    verdict = verify_candidate(claims(), [ev(kind, metrics)]).bare_metal
    assert verdict.verdict == "virtualised"
    assert verdict.signals[0].name == signal


def test_a_container_alone_is_no_virtual_signal() -> None:
    # The collector run in Docker (review 3): no hypervisor, so no verdict either way.
    metrics = {"virt": "docker", "virtual": None, "container": True}
    verdict = verify_candidate(claims(), [ev("virt", metrics)]).bare_metal
    assert (verdict.verdict, verdict.virtual_score) == ("uncertain", 0.0)


def _virt_metrics(text: str) -> dict[str, Any]:
    return dict(parse_bytes(text.encode(), "virt").metrics)


# The dev machine's real systemd-detect-virt outputs (samples/virt/devmachine-*): "docker" from
# the plain command and "kvm" from --vm, a container in a KVM guest; pasted as one file.
_DOCKER_THEN_VM = "$ systemd-detect-virt\ndocker\n$ systemd-detect-virt --vm\nkvm\n"
_VM_THEN_DOCKER = "$ systemd-detect-virt --vm\nkvm\n$ systemd-detect-virt\ndocker\n"


@pytest.mark.parametrize("text", [_DOCKER_THEN_VM, _VM_THEN_DOCKER])
def test_a_container_inside_a_vm_is_still_a_vm(text: str) -> None:
    verdict = verify_candidate(claims(), [ev("virt", _virt_metrics(text))]).bare_metal
    assert verdict.verdict == "virtualised"
    assert verdict.virtual_score == 0.9
    by_name = {s.name: s for s in verdict.signals}
    assert set(by_name) == {"container", "systemd_detect_virt"}
    assert by_name["container"].points_to == "context"
    vm = by_name["systemd_detect_virt"]
    assert (vm.points_to, vm.weight) == ("virtual", 0.9)
    assert "'kvm' under the container" in vm.explanation_en
    assert "容器之下的虚拟化类型 'kvm'" in vm.explanation_zh
    assert "'kvm'" in verdict.explanation_en and "'kvm'" in verdict.explanation_zh


def test_a_vm_under_a_container_outweighs_physical_looking_dmi() -> None:
    # A hypervisor can pass the host's DMI and PCI devices through; the VM still counts.
    evidence = [
        ev("dmi", DMI_DGX),
        ev("lspci", LSPCI_BARE_METAL),
        ev("virt", _virt_metrics(_DOCKER_THEN_VM)),
    ]
    alone = verify_candidate(claims(), evidence[:2]).bare_metal
    verdict = verify_candidate(claims(), evidence).bare_metal
    assert verdict.verdict != "bare_metal"
    assert verdict.bare_metal_score < alone.bare_metal_score
    assert verdict.virtual_score > 0


def test_a_vm_under_a_container_without_its_word_still_counts() -> None:
    # Metrics stored by a parser before "vm_virt" existed: the VM is known, not its name.
    metrics = {"virt": "docker", "virtual": True, "container": True}
    verdict = verify_candidate(claims(), [ev("virt", metrics)]).bare_metal
    assert verdict.verdict == "virtualised"
    vm = next(s for s in verdict.signals if s.name == "systemd_detect_virt")
    assert "a hypervisor under the container" in vm.explanation_en
    assert "容器之下存在虚拟机监控程序" in vm.explanation_zh


def test_a_container_alone_keeps_its_single_context_signal() -> None:
    # The dev machine's real plain run: "docker", nothing about a VM (unchanged behaviour).
    verdict = verify_candidate(claims(), [ev("virt", _virt_metrics("docker\n"))]).bare_metal
    assert [(s.name, s.points_to, s.weight) for s in verdict.signals] == [
        ("container", "context", 0.0)
    ]
    assert (verdict.verdict, verdict.virtual_score) == ("uncertain", 0.0)
    assert verdict.explanation_en.startswith("Uncertain: the collector ran in a container")


def test_contradicting_plain_runs_name_the_hypervisor_not_the_container() -> None:
    metrics = _virt_metrics("$ systemd-detect-virt\ndocker\n$ systemd-detect-virt\nkvm\n")
    verdict = verify_candidate(claims(), [ev("virt", metrics)]).bare_metal
    (signal,) = verdict.signals
    assert (
        signal.explanation_en == "systemd-detect-virt on node gpu-01 reports the hypervisor 'kvm'."
    )


def test_a_signal_repeated_on_many_nodes_counts_once() -> None:
    one = verify_candidate(claims(), [ev("dmi", DMI_POWEREDGE)]).bare_metal
    many = verify_candidate(
        claims(), [ev("dmi", DMI_POWEREDGE, node=f"gpu-{i:02}") for i in range(16)]
    ).bare_metal
    assert many.bare_metal_score == one.bare_metal_score
    assert many.verdict == "uncertain"
    assert len(many.signals) == 16


_signal = st.builds(
    Signal,
    name=st.sampled_from(["a", "b", "c", "d", "e"]),
    points_to=st.sampled_from(["bare_metal", "virtual"]),
    weight=st.floats(0, 1),
    evidence_ref=st.none(),
    explanation_en=st.just("x."),
    explanation_zh=st.just("x。"),
    node_name=st.sampled_from(["n1", "n2"]),
)


@given(st.lists(_signal, max_size=8), _signal)
def test_adding_a_virtual_signal_never_raises_bare_metal_confidence(signals, extra) -> None:
    extra = Signal(extra.name, "virtual", extra.weight, None, "v.", "v。", extra.node_name)
    before = combine_signals(signals)
    after = combine_signals([*signals, extra])
    assert after.bare_metal_score <= before.bare_metal_score
    assert after.virtual_score >= before.virtual_score
    if after.verdict == "bare_metal":
        assert before.verdict == "bare_metal"
        assert after.confidence <= before.confidence
    assert 0 <= after.confidence <= 1


_VIRTUAL_EVIDENCE = [
    ("virt", {"virt": "kvm", "virtual": True, "container": False}),
    ("dmi", {"products": ["Standard PC (Q35 + ICH9, 2009)"], "virtual": True}),
    ("lspci", LSPCI_VM),
    ("cpu_info", {"hypervisor": True, "hypervisor_vendor": "KVM"}),
    ("nvidia_smi_query", {"virtualization_mode": "Pass-Through"}),
]
_ANY_EVIDENCE = [
    ("dmi", DMI_DGX),
    ("dmi", DMI_POWEREDGE),
    ("lspci", LSPCI_BARE_METAL),
    ("virt", {"virt": "none", "virtual": False, "container": False}),
    ("cpu_info", {"logical_cpus": 224, "hypervisor": False}),
    ("nvidia_smi_query", {"virtualization_mode": "None"}),
    *_VIRTUAL_EVIDENCE,
]


@given(
    st.lists(st.tuples(st.sampled_from(_ANY_EVIDENCE), st.sampled_from(["a", "b"])), max_size=6),
    st.sampled_from(_VIRTUAL_EVIDENCE),
    st.sampled_from(["a", "b", "c"]),
)
def test_adding_virtual_evidence_never_raises_bare_metal_score(base, extra, node) -> None:
    evidence = [ev(kind, m, node=n, upload=i) for i, ((kind, m), n) in enumerate(base)]
    before = verify_candidate(claims(), evidence).bare_metal
    after = verify_candidate(claims(), [*evidence, ev(extra[0], extra[1], node=node)]).bare_metal
    assert after.bare_metal_score <= before.bare_metal_score


@given(st.permutations(list(range(7))))
def test_the_report_does_not_depend_on_evidence_order(order) -> None:
    evidence = [
        ev("nvidia_smi", h100_smi(), node="a"),
        ev("nvidia_smi", h100_smi(count=4), node="b"),
        ev("ibstat", IBSTAT_GPUD, node="a"),
        ev("lspci", LSPCI_VM, node="b"),
        ev("dmi", DMI_DGX, node="a"),
        ev("nccl_tests", NCCL_H100_2NODE, node="a"),
        ev("nccl_tests", NCCL_H100_2NODE | {"peak_busbw_gbyte_s": 300.0}, node="b"),
    ]
    baseline = verify_candidate(claims(), evidence)
    shuffled = verify_candidate(claims(), [evidence[i] for i in order])
    assert shuffled == baseline


@given(st.sampled_from(["nvidia_smi", "lspci", "ibstat", "fio", "nccl_tests", "dcgm_diag"]))
def test_evidence_of_one_kind_never_verifies_unrelated_items(kind: str) -> None:
    related = {
        "nvidia_smi": {"gpu_match"},
        "lspci": {"gpu_match"},
        "ibstat": {"fabric"},
        "fio": {"local_nvme"},
        "nccl_tests": set(),
        "dcgm_diag": set(),
    }[kind]
    metrics = {
        "nvidia_smi": h100_smi(),
        "lspci": LSPCI_BARE_METAL,
        "ibstat": IBSTAT_GPUD,
        "fio": {"read_bw_mbyte_s": 9000.0},
        "nccl_tests": NCCL_H100_2NODE,
        "dcgm_diag": {"overall": "pass", "failed_tests": []},
    }[kind]
    report = verify_candidate(claims(nvme_read_gbyte_s=7, nics_per_node=6), [ev(kind, metrics)])
    for key, item in report.items.items():
        if key not in related:
            assert item.status != "verified", key


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"gpus_per_node": 0}, "gpus_per_node must be at least 1, got 0"),
        ({"node_count": 0}, "node_count must be at least 1, got 0"),
        ({"fabric": "omnipath"}, "fabric must be one of infiniband, roce, ethernet, none"),
        ({"nvlink_topology": "ring"}, "nvlink_topology must be one of full_mesh"),
        ({"gpu_form_factor": "oam"}, "gpu_form_factor must be one of sxm, pcie, other"),
        ({"fabric_rate_gbit_s": -1}, "cannot be negative"),
    ],
)
def test_bad_claims_are_refused_with_a_clear_message(overrides, message) -> None:
    with pytest.raises(VerificationInputError, match=re.escape(message)):
        claims(**overrides)


def test_bad_evidence_is_refused_with_a_clear_message() -> None:
    broken = NodeEvidence("gpu-01", 7, "ibstat", None, "ibstat.txt", None)  # type: ignore[arg-type]
    with pytest.raises(VerificationInputError, match=r"evidence item 0 \(gpu-01: ibstat.txt"):
        verify_candidate(claims(), [broken])
    with pytest.raises(VerificationInputError, match="evidence item 0 is a dict"):
        verify_candidate(claims(), [{"kind": "ibstat"}])  # type: ignore[list-item]


def test_garbled_metrics_are_ignored_not_trusted() -> None:
    evidence = [
        ev("nvidia_smi", {"gpu_count": "eight", "gpu_names": [None, 3], "memory_total_mib": "?"}),
        ev("ibstat", {"ports": ["mlx5_0", None, {"ca": "mlx5_1", "state": None}]}),
        ev("fio", {"read_bw_mbyte_s": float("nan")}),
        ev("nccl_tests", {"collective": "all_reduce", "ranks": True, "peak_busbw_gbyte_s": "x"}),
        ev("cpu_info", {"logical_cpus": -0.5, "hypervisor": "maybe"}),
        ev("unknown_kind", {"anything": 1}),
    ]
    report = verify_candidate(claims(nvme_read_gbyte_s=7), evidence)
    assert "verified" not in {item.status for item in report.items.values()}
    assert report.busbw_fraction is None


# --- end to end: the real samples through the real parsers --------------------------------------
# The files live in tests/scoring/evidence/samples (provenance in its PROVENANCE.tsv). These
# tests pin the metric names verification reads to the ones the parsers produce.

SAMPLES = Path(__file__).parent / "evidence" / "samples"


def parsed(rel: str, node: str = "gpu-01", upload: int = 1) -> NodeEvidence:
    result = parse_bytes((SAMPLES / rel).read_bytes())
    return NodeEvidence(node, upload, result.kind, result.metrics, rel, None)


def test_real_hgx_h100_bare_metal_host() -> None:
    evidence = [
        parsed("lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt"),
        parsed("dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt"),
        parsed("cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt"),
        parsed("nvidia_smi_topo/talos-dgx-h100-12nic-2numa-truncated.txt"),
        parsed("nvidia_smi_nvlink/mlengineering-h100-nvlink-e-and-status.txt"),
        parsed("ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt"),
    ]
    c = claims(fabric="infiniband", logical_cpus_per_node=None)
    report = verify_candidate(c, evidence)
    statuses = {key: item.status for key, item in report.items.items()}
    assert statuses["gpu_match"] == "verified"
    assert statuses["nvlink_topology"] == "verified"
    assert statuses["fabric"] == "verified"
    assert report.bare_metal.verdict == "bare_metal"
    assert report.bare_metal.confidence == pytest.approx(0.79, abs=0.01)
    assert report.faults == ()


def test_real_kvm_guest_is_virtualised() -> None:
    evidence = [
        parsed("lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt"),
        parsed("cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt"),
        parsed("virt/devmachine-echoed-command-kvm.txt"),
        parsed("dmi/insights-kvm-rhev-dmidecode3.0.txt"),
    ]
    report = verify_candidate(claims(), evidence)
    assert report.bare_metal.verdict == "virtualised"
    assert report.bare_metal.confidence > 0.99
    assert report.items["gpu_match"].status == "contradicted"


@pytest.mark.parametrize(
    ("rel", "signal"),
    [
        ("nvidia_smi/arbutus-grid-v100d-8c-vgpu-driver550.txt", "nvidia_vgpu"),
        ("nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt", "gpu_virtualization_mode"),
    ],
)
def test_real_vgpu_and_passthrough_outputs(rel: str, signal: str) -> None:
    verdict = verify_candidate(claims(), [parsed(rel)]).bare_metal
    assert verdict.verdict == "virtualised"
    assert verdict.signals[0].name == signal


def test_real_h100_pcie_bridge_inactive_links_are_by_design() -> None:
    # Each H100 PCIe lists 18 links; its NVLink bridges use 12, the other 6 show <inactive>.
    c = claims(gpu_model="H100 PCIe", gpus_per_node=2, gpu_form_factor="pcie")
    evidence = [parsed("nvidia_smi_nvlink/hpe-dl380a-2x-h100pcie-bridge-R-and-s-inactive.txt")]
    item = verify_candidate(c, evidence).items["nvlink_topology"]
    assert item.status == "unverifiable"


def test_real_roce_node_with_down_ports_and_real_busbw() -> None:
    evidence = [
        parsed("ibstat/gpud-h100-roce-cx7-some-down-polling.txt"),
        parsed("nccl_tests/oci-h100-2node-roce-nccl2215.txt", upload=2),
    ]
    report = verify_candidate(claims(fabric_rate_gbit_s=400, nics_per_node=8), evidence)
    assert report.items["fabric"].status == "verified"  # two rails down: a fault
    assert sorted(f.details["ca"] for f in report.faults) == ["mlx5_11", "mlx5_5"]
    assert measured_facts(report, evidence).ib_rails_min == 6
    # 2 x 8 H100 at 464.79 GB/s against the ring's 360 (bounded inside the node)
    assert report.busbw_fraction == pytest.approx(1.291, abs=0.001)


def test_real_health_faults() -> None:
    evidence = [
        parsed("nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt"),
        parsed("dcgm_diag/mlengineering-r2-r3-fail-snippets.txt"),
        parsed("nccl_tests/issue37-dgx1-v100-allgather-oldformat-FAILED.txt"),
    ]
    kinds = sorted(f.kind for f in verify_candidate(claims(), evidence).faults)
    assert kinds == ["dcgm_fail", "nccl_wrong_results", "remapped_rows_pending"]


# --- PCIe link width ----------------------------------------------------------------------------

L40S_Q = "nvidia_smi_query/thamada-l40s-driver550-q-ada-full.txt"


def _l40s_at_x8() -> NodeEvidence:
    """thamada-l40s-driver550-q-ada-full.txt with its "Link Width / Current : 16x" changed to
    8x (the same variant the parser test reads): a bare-metal GPU whose link trained at x8."""
    text = (SAMPLES / L40S_Q).read_text(encoding="utf-8")
    narrow = text.replace(
        "Max                       : 16x\n                Current                   : 16x",
        "Max                       : 16x\n                Current                   : 8x",
    )
    assert narrow != text
    result = parse_bytes(narrow.encode())
    return NodeEvidence("gpu-01", 1, result.kind, result.metrics, L40S_Q, None)


def test_a_gpu_link_trained_at_x8_is_a_warning_naming_the_gpu_and_its_line() -> None:
    report = verify_candidate(claims(), [_l40s_at_x8()])
    (fault,) = [f for f in report.faults if f.kind == "pcie_link_narrow"]
    assert fault.severity == "warning"
    assert fault.evidence_ref == f"gpu-01: {L40S_Q} line 75 (upload 1)"
    assert fault.explanation_en.startswith(
        "nvidia-smi on node gpu-01 shows GPU 0 (00000000:A1:00.0) with its PCIe link at x8 of "
        "x16: the link trained narrower than the GPU and the system allow"
    )
    assert "halves host-to-device bandwidth" in fault.explanation_en
    assert "VM" not in fault.explanation_en
    assert "GPU 0（00000000:A1:00.0）的 PCIe 链路为 x8（最大 x16）" in fault.explanation_zh
    assert "主机到设备带宽" in fault.explanation_zh and "减半" in fault.explanation_zh
    assert fault.details == {
        "gpu_index": 0,
        "bus_id": "00000000:A1:00.0",
        "width_current": 8,
        "width_max": 16,
        "virtualized": False,
    }


def test_a_gpu_at_full_width_at_gen1_idle_raises_nothing() -> None:
    # The L40S reads "PCIe Generation Current : 1" of Max 4 at idle: the speed is not judged.
    assert verify_candidate(claims(), [parsed(L40S_Q)]).faults == ()


def test_a_narrow_link_in_a_passthrough_vm_says_it_may_not_be_physical() -> None:
    report = verify_candidate(
        claims(), [parsed("nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt")]
    )
    (fault,) = [f for f in report.faults if f.kind == "pcie_link_narrow"]
    assert "x8 of x16" in fault.explanation_en
    assert "The node is a VM (virtualization mode Pass-Through)" in fault.explanation_en
    assert "该节点为虚拟机（虚拟化模式 Pass-Through）" in fault.explanation_zh
    assert fault.details["virtualized"] is True
    assert fault.evidence_ref.endswith("line 72 (upload 1)")


def test_a_laptop_gpu_at_x8_is_not_a_server_fault() -> None:
    rel = (
        "nvidia_smi_query/"
        "kr-isaac-notes-rtx5080-laptop-blackwell-q-driver580-unrepairable-na-remapped-na.txt"
    )
    faults = verify_candidate(claims(), [parsed(rel)]).faults
    assert not [f for f in faults if f.kind == "pcie_link_narrow"]


def test_lspci_vv_narrow_links_and_one_fault_per_gpu_across_tools() -> None:
    text = (
        "01:00.0 VGA compatible controller: NVIDIA Corporation TU106 [GeForce RTX 2060 Rev. A]"
        " (rev a1)\n"
        "\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <1us\n"
        "\t\tLnkSta:\tSpeed 8GT/s (ok), Width x8 (downgraded)\n"
    )  # from tests/scoring/evidence/test_lspci.py RTX2060_X8_VV (a public note's output)
    result = parse_bytes(text.encode())
    lspci_ev = NodeEvidence("gpu-01", 2, result.kind, result.metrics, "lspci-vv.txt", None)
    (fault,) = verify_candidate(claims(), [lspci_ev]).faults
    assert fault.explanation_en.startswith(
        "lspci -vv on node gpu-01 shows the GPU at 01:00.0 with its PCIe link at x8 of x16"
    )
    assert fault.evidence_ref == "gpu-01: lspci-vv.txt line 3 (upload 2)"
    # The same bus in nvidia-smi -q of the node: one fault, not two.
    smi = _l40s_at_x8()
    smi_same_bus = replace(
        smi,
        metrics={
            **smi.metrics,
            "gpus": [{**smi.metrics["gpus"][0], "bus_id": "00000000:01:00.0"}],
        },
    )
    faults = verify_candidate(claims(), [lspci_ev, smi_same_bus]).faults
    assert [f.kind for f in faults] == ["pcie_link_narrow"]


GTX1070_XML = "nvidia_smi_xml/markdown-gtx1070-driver418-v10-fenced.xml.txt"


def _xml_at(width: str, rel: str = GTX1070_XML) -> NodeEvidence:
    """An nvidia-smi -q -x sample with its <current_link_width> changed to ``width``, as the
    driver prints a GPU whose link trained narrower."""
    text = (SAMPLES / rel).read_text(encoding="utf-8")
    narrow = text.replace(
        "<current_link_width>16x</current_link_width>",
        f"<current_link_width>{width}</current_link_width>",
    )
    assert narrow != text
    result = parse_bytes(narrow.encode())
    return NodeEvidence("gpu-01", 3, result.kind, result.metrics, rel, None)


def test_a_narrow_link_in_nvidia_smi_xml_is_the_same_warning_as_in_q() -> None:
    (fault,) = verify_candidate(claims(), [_xml_at("8x")]).faults
    assert (fault.kind, fault.severity) == ("pcie_link_narrow", "warning")
    assert fault.evidence_ref == f"gpu-01: {GTX1070_XML} line 61 (upload 3)"
    # attached_gpus 1 and one <gpu>: the position is the index.
    assert fault.explanation_en.startswith(
        "nvidia-smi on node gpu-01 shows GPU 0 (00000000:01:00.0) with its PCIe link at x8 of x16"
    )
    assert "GPU 0（00000000:01:00.0）的 PCIe 链路为 x8（最大 x16）" in fault.explanation_zh
    assert fault.details == {
        "gpu_index": 0,
        "bus_id": "00000000:01:00.0",
        "width_current": 8,
        "width_max": 16,
        "virtualized": False,
    }
    quarter = verify_candidate(claims(), [_xml_at("4x")]).faults[0]
    assert "cuts to a quarter host-to-device bandwidth" in quarter.explanation_en


def test_nvidia_smi_xml_at_full_width_or_without_a_link_raises_no_link_fault() -> None:
    # The GTX 1070 reads Gen1 of Gen3 at x16 (idle), the A100 x16 of x16, the GRID vGPU N/A.
    for rel in (
        GTX1070_XML,
        "nvidia_smi_xml/telegraf-a100-sxm4-80gb-mig-driver535-v12.xml.txt",
        "nvidia_smi_xml/telegraf-grid-p4-1q-vgpu-windows-wddm-driver513-v11.xml.txt",
    ):
        faults = verify_candidate(claims(), [parsed(rel)]).faults
        assert not [f for f in faults if f.kind == "pcie_link_narrow"], rel


def test_a_partial_xml_names_the_gpu_by_its_bus_not_a_guessed_index() -> None:
    # The A100 report says attached_gpus 4 but holds one <gpu>: its position is no index.
    rel = "nvidia_smi_xml/telegraf-a100-sxm4-80gb-mig-driver535-v12.xml.txt"
    (fault,) = verify_candidate(claims(), [_xml_at("8x", rel)]).faults
    assert fault.details["gpu_index"] is None
    assert "shows the GPU at 00000000:01:00.0 with its PCIe link at x8 of x16" in (
        fault.explanation_en
    )
    assert fault.evidence_ref.endswith("line 201 (upload 3)")


def test_the_same_narrow_gpu_in_xml_and_lspci_is_one_fault() -> None:
    text = (
        "01:00.0 VGA compatible controller: NVIDIA Corporation GP104 [GeForce GTX 1070]"
        " (rev a1)\n"
        "\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <1us\n"
        "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x8 (downgraded)\n"
    )
    result = parse_bytes(text.encode())
    lspci_ev = NodeEvidence("gpu-01", 2, result.kind, result.metrics, "lspci-vv.txt", None)
    faults = verify_candidate(claims(), [lspci_ev, _xml_at("8x")]).faults
    assert [f.kind for f in faults] == ["pcie_link_narrow"]


TESLA_M10_XML = (
    "nvidia_smi_xml/nagios-check-tesla-m10-host-vgpu-driver390-x8-of-x16-cut-in-gpu1.xml.txt"
)


def _m10(gpu0: str = "8x", gpu1: str = "8x", multi: str = "Yes") -> NodeEvidence:
    """The real Tesla M10 report (cut after GPU 1's <pci>) with GPU 1's block closed, so that
    both GPUs of the board are read, and the current widths set to ``gpu0`` / ``gpu1``."""
    text = (SAMPLES / TESLA_M10_XML).read_text(encoding="utf-8")
    head, tail = text.split('<gpu id="00000000:1B:00.0">')
    width = "<current_link_width>8x</current_link_width>"
    text = (
        head.replace(width, f"<current_link_width>{gpu0}</current_link_width>")
        + '<gpu id="00000000:1B:00.0">'
        + tail.replace(width, f"<current_link_width>{gpu1}</current_link_width>")
        + "\t</gpu>\n</nvidia_smi_log>\n"
    ).replace("<multigpu_board>Yes</multigpu_board>", f"<multigpu_board>{multi}</multigpu_board>")
    result = parse_bytes(text.encode())
    assert result.metrics["gpu_count"] == 2
    return NodeEvidence("gpu-01", 4, result.kind, result.metrics, TESLA_M10_XML, None)


def test_the_gpus_of_a_multi_gpu_board_are_judged_against_each_other() -> None:
    def narrow(ev: NodeEvidence) -> list:
        return [f for f in verify_candidate(claims(), [ev]).faults if f.kind == "pcie_link_narrow"]

    # The real report: GPU 0 of a Tesla M10 at x8 of x16, its board's other GPUs not complete.
    assert narrow(parsed(TESLA_M10_XML)) == []
    # Both GPUs of the board at x8 of x16: the board's wiring behind its PCIe switch.
    assert narrow(_m10()) == []
    # GPU 0 at x4 where the other GPU of its board trained at x8: a link that trained narrower.
    (fault,) = narrow(_m10(gpu0="4x"))
    assert fault.details["bus_id"] == "00000000:1A:00.0"
    assert (fault.details["width_current"], fault.details["width_max"]) == (4, 8)
    assert "with its PCIe link at x4 of x8" in fault.explanation_en
    assert "halves host-to-device bandwidth" in fault.explanation_en
    assert fault.evidence_ref.endswith("line 53 (upload 4)")
    # The same widths on GPUs that are not on a multi-GPU board: each GPU at x8 of its x16.
    assert [f.details["bus_id"] for f in narrow(_m10(multi="No"))] == [
        "00000000:1A:00.0",
        "00000000:1B:00.0",
    ]


def test_a_multi_gpu_board_read_from_q_without_its_other_gpus_is_not_judged() -> None:
    ev = _l40s_at_x8()
    (gpu,) = ev.metrics["gpus"]
    assert gpu["multigpu_board"] is False
    multi = replace(ev, metrics={**ev.metrics, "gpus": [{**gpu, "multigpu_board": True}]})
    assert [f.kind for f in verify_candidate(claims(), [ev]).faults] == ["pcie_link_narrow"]
    assert not [f for f in verify_candidate(claims(), [multi]).faults]
