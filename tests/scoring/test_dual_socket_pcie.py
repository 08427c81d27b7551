"""A dual-socket PCIe server (8 x L40S, no NVLink) is judged at the rate its all-reduce ring can
reach: the ring crosses the two CPU sockets, and NCCL stages those hops through host memory
(GPU expert review).

Before, every PCIe ring was expected at the P2P rate (PCIe x16 x 0.8: 25.2 GB/s for an L40S),
so a healthy 2-socket 8 x L40S box at 10.9 GB/s read 43 % and contradicted the vendor's claim.
nvidia-smi topo -m says where the GPUs sit: SYS between two GPUs crosses the sockets' SMP
interconnect. Where no topology was uploaded the sockets are unknown, and a run that a
2-socket node would reach is not called a contradiction."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import parse_bytes, registry
from scoring.reference import SPANS_SOCKETS_FACTOR, expected_busbw_gbyte_s, match_gpu
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate
from scoring.verification.network.bounds import gpus_span_sockets

SAMPLES = Path(__file__).parent / "evidence" / "samples"
HEADER = (
    "\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\t"
    "CPU Affinity\tNUMA Affinity\tGPU NUMA ID"
)
# Constructed in the layout of the real 8 x L20 (Ada, PCIe) matrix of NVIDIA/nccl#1817: two
# GPUs per PCIe switch (PIX), two switches per socket (NODE), the sockets joined by UPI (SYS),
# one ConnectX per socket on a GPU pair's switch.
DUAL_SOCKET_8X_L40S = "\n".join(
    [
        "$ nvidia-smi topo -m",
        HEADER,
        "GPU0\t X \tPIX\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\tPIX\tSYS\t0-31,64-95\t0\t\tN/A",
        "GPU1\tPIX\t X \tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\tPIX\tSYS\t0-31,64-95\t0\t\tN/A",
        "GPU2\tNODE\tNODE\t X \tPIX\tSYS\tSYS\tSYS\tSYS\tNODE\tSYS\t0-31,64-95\t0\t\tN/A",
        "GPU3\tNODE\tNODE\tPIX\t X \tSYS\tSYS\tSYS\tSYS\tNODE\tSYS\t0-31,64-95\t0\t\tN/A",
        "GPU4\tSYS\tSYS\tSYS\tSYS\t X \tPIX\tNODE\tNODE\tSYS\tPIX\t32-63,96-127\t1\t\tN/A",
        "GPU5\tSYS\tSYS\tSYS\tSYS\tPIX\t X \tNODE\tNODE\tSYS\tPIX\t32-63,96-127\t1\t\tN/A",
        "GPU6\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\t X \tPIX\tSYS\tNODE\t32-63,96-127\t1\t\tN/A",
        "GPU7\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\tPIX\t X \tSYS\tNODE\t32-63,96-127\t1\t\tN/A",
        "NIC0\tPIX\tPIX\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t X \tSYS",
        "NIC1\tSYS\tSYS\tSYS\tSYS\tPIX\tPIX\tNODE\tNODE\tSYS\t X ",
        "",
        "NIC Legend:",
        "",
        "  NIC0: mlx5_0",
        "  NIC1: mlx5_1",
        "",
    ]
)
# The same eight cards behind one socket's two cascaded switches (PIX / PXB only): P2P all round.
ONE_SOCKET_8X_L40S = "\n".join(
    [
        "$ nvidia-smi topo -m",
        "\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\t"
        "CPU Affinity\tNUMA Affinity\tGPU NUMA ID",
        *(
            f"GPU{i}\t"
            + "\t".join(
                " X " if j == i else ("PIX" if i // 4 == j // 4 else "PXB") for j in range(8)
            )
            + "\t0-63\t0\t\tN/A"
            for i in range(8)
        ),
        "",
    ]
)
WARPEM_4X_L40S = SAMPLES / (
    "nvidia_smi_topo/warpem-issue106-4x-l40s-no-nvlink-2-nic-legend-masked-prompt-mail-reply-tail.txt"
)
HGX_H100 = SAMPLES / "nvidia_smi_topo/hgx-h100-nv18-10nic-tabs-spaced-x-nic-rows-cut.txt"


def _topo(text: str, node: str = "l40s-01") -> NodeEvidence:
    metrics = registry.parse_text(text, "nvidia_smi_topo").metrics
    return NodeEvidence(node, 1, "nvidia_smi_topo", metrics, "topo.txt", None)


def _file(path: Path, node: str = "l40s-01") -> NodeEvidence:
    result = parse_bytes(path.read_bytes())
    return NodeEvidence(node, 1, result.kind, result.metrics, path.name, None)


def _run(peak: float, gpus: int = 8, node: str = "l40s-01") -> NodeEvidence:
    """A one-node nccl-tests all_reduce of ``gpus`` L40S swept to 8 GiB, shaped as parsed."""
    metrics = {
        "collective": "all_reduce",
        "ranks": gpus,
        "peak_busbw_gbyte_s": peak,
        "wrong_total": 0,
        "hosts": [node],
        "gpu_names": ["NVIDIA L40S"],
        "curve": [
            {"size_bytes": 2**20, "busbw_gbyte_s": round(peak / 4, 2)},
            {"size_bytes": 2**33, "busbw_gbyte_s": peak},
        ],
    }
    return NodeEvidence(node, 2, "nccl_tests", metrics, "all_reduce.txt", 1)


def _claims(gpus: int = 8) -> Claims:
    return Claims(
        gpu_model="NVIDIA L40S",
        gpus_per_node=gpus,
        gpu_memory_gib=48,
        gpu_form_factor="pcie",
        nvlink_topology="none",
        fabric="roce",
        fabric_rate_gbit_s=200,
        nics_per_node=2,
        node_count=1,
    )


def test_the_topology_tells_a_dual_socket_node_from_a_one_socket_one() -> None:
    assert gpus_span_sockets([_topo(DUAL_SOCKET_8X_L40S)])
    assert gpus_span_sockets([_file(WARPEM_4X_L40S)])  # real 4 x L40S: pairs on two sockets
    assert not gpus_span_sockets([_topo(ONE_SOCKET_8X_L40S)])
    # NVLinked GPUs show NV18, whatever sockets they sit on: their ring is NVLink's.
    assert not gpus_span_sockets([_file(HGX_H100)])
    assert not gpus_span_sockets([])


def test_the_staged_expectation_halves_a_pcie_ring_and_leaves_nvlink_alone() -> None:
    l40s, h100 = match_gpu("NVIDIA L40S"), match_gpu("NVIDIA H100 80GB HBM3")
    direct = expected_busbw_gbyte_s(l40s, 8, 1, "none", "none", 0, 0)
    staged = expected_busbw_gbyte_s(l40s, 8, 1, "none", "none", 0, 0, gpus_span_sockets=True)
    assert direct.value_gbyte_s == 25.2
    assert staged.value_gbyte_s == pytest.approx(25.2 * SPANS_SOCKETS_FACTOR)
    assert "two CPU sockets" in staged.basis and "CPU 插槽" in staged.basis_zh
    nvlink = expected_busbw_gbyte_s(h100, 8, 1, "full_mesh", "none", 0, 0, gpus_span_sockets=True)
    assert nvlink.value_gbyte_s == 360.0


def test_a_healthy_dual_socket_8x_l40s_run_verifies_instead_of_contradicting() -> None:
    evidence = [_topo(DUAL_SOCKET_8X_L40S), _run(10.9)]
    report = verify_candidate(_claims(), evidence)
    # Before: 10.9 of 25.2 = 43 %, "which contradicts the declared interconnect".
    assert report.busbw.status == "verified"
    assert report.busbw_fraction == pytest.approx(10.9 / 12.6, abs=0.001)
    assert "two CPU sockets" in report.busbw.explanation_en
    assert measured_facts(report, evidence).busbw_fraction == pytest.approx(0.865, abs=0.001)


def test_the_real_4x_l40s_topology_sets_the_staged_expectation() -> None:
    report = verify_candidate(_claims(4), [_file(WARPEM_4X_L40S), _run(11.5, gpus=4)])
    assert report.busbw.status == "verified"
    assert report.expected_busbw.value_gbyte_s == pytest.approx(12.6)


def test_a_one_socket_node_keeps_the_p2p_expectation() -> None:
    # All eight behind one socket's switches reach each other by P2P: 10.9 GB/s is too slow.
    report = verify_candidate(_claims(), [_topo(ONE_SOCKET_8X_L40S), _run(10.9)])
    assert report.busbw.status == "contradicted"
    assert report.expected_busbw.value_gbyte_s == 25.2


def test_without_a_topology_a_run_two_sockets_would_reach_is_no_contradiction() -> None:
    report = verify_candidate(_claims(), [_run(10.9)])
    assert report.busbw.status == "unverifiable"
    assert "no nvidia-smi topo -m" in report.busbw.explanation_en
    assert "未上传 nvidia-smi topo -m" in report.busbw.explanation_zh
    # Below even the staged rate it is one.
    assert verify_candidate(_claims(), [_run(5.0)]).busbw.status == "contradicted"
