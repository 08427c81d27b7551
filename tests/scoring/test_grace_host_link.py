"""A Grace superchip's GPU (GH200, GB200) reaches its host over NVLink-C2C, not PCIe: its
nvbandwidth host<->device copies are judged against NVLink-C2C (GPU expert review).

Before, every copy was judged against the PCIe x16 line rate of the GPU's generation: the real
one-GPU GH200 run read 6.02 of PCIe Gen5 (303.63 GB/s device to host of 50.4), and a GH200
whose C2C link had fallen to a quarter of its rate still read 2.4, capped at 1.0: "measured,
healthy". The real nvidia-smi -q of a GH200 shows why the PCIe figure says nothing there: its
GPU Link Info is a vestigial PCIe Gen4 x1."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from scoring.evidence import parse_bytes
from scoring.reference import (
    NVLINK_C2C_EFFICIENCY,
    NVLINK_C2C_GB200_EFFICIENCY,
    host_link,
    match_gpu,
)
from scoring.rubric import load_rubric
from scoring.tco import compute_tco
from scoring.types import MeasuredFacts, Price
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate
from scoring.verification.facts import host_device_fraction

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering

SAMPLES = Path(__file__).parent / "evidence" / "samples"
# nvbandwidth v0.6 on one NVIDIA GH200 480GB (superbench): the lower direction's mean copy,
# device to host, is 303.63 GB/s.
GH200_RUN = (
    SAMPLES / "nvbandwidth/superbench-v0.6-gh200-waived-lines-host-device-latency-ns-matrix.txt"
)
# nvidia-smi -q of a GH200 480GB: GPU C2C Mode Enabled, PCIe Gen4 x1.
GH200_Q = (
    SAMPLES
    / "nvidia_smi_query/nvsim-gh200-480gb-driver550-a-c2c-enabled-pcie-gen4-x1-passthrough.txt"
)
V2 = load_rubric("2")


def _ev(path: Path, node: str = "gh-01", upload: int = 3) -> NodeEvidence:
    result = parse_bytes(path.read_bytes())
    return NodeEvidence(node, upload, result.kind, result.metrics, path.name, None)


def _degraded(d2h: float, h2d: float) -> NodeEvidence:
    """The real GH200 run with its copies slowed to ``d2h`` / ``h2d`` GB/s (a C2C link that
    trained at a fraction of its rate), shaped as parsed."""
    run = _ev(GH200_RUN)
    metrics = {**run.metrics, "d2h_gbyte_s": d2h, "h2d_gbyte_s": h2d}
    return replace(run, metrics=metrics)


def test_the_superchips_reach_their_host_over_nvlink_c2c_and_pcie_cards_over_pcie() -> None:
    gh200, gb200 = match_gpu("NVIDIA GH200 480GB"), match_gpu("NVIDIA GB200")
    assert host_link(gh200).link == "nvlink_c2c"
    # 900 GB/s both directions: 450 per direction x the slower direction's share.
    assert host_link(gh200).expected_gbyte_s == pytest.approx(450 * NVLINK_C2C_EFFICIENCY)
    # One Grace's 900 GB/s is shared by the GB200 superchip's two GPUs, which reach more of
    # their share than a GH200 does of its link.
    assert host_link(gb200).expected_gbyte_s == pytest.approx(225 * NVLINK_C2C_GB200_EFFICIENCY)
    assert NVLINK_C2C_GB200_EFFICIENCY > NVLINK_C2C_EFFICIENCY
    assert "NVLink-C2C" in host_link(gh200).basis and "NVLink-C2C" in host_link(gh200).basis_zh
    for name, expected in (("NVIDIA L40S", 25.2), ("NVIDIA H100 80GB HBM3", 50.4)):
        link = host_link(match_gpu(name))
        assert (link.link, link.expected_gbyte_s) == ("pcie", expected)
    # GPU-to-GPU NVLink is another link: the H100 SXM's 900 GB/s is not a host link.
    assert match_gpu("NVIDIA H100 80GB HBM3").c2c_bidi_gbyte_s == 0


def test_a_healthy_gh200_copy_reads_about_one_of_nvlink_c2c() -> None:
    refs: dict[str, str] = {}
    # 303.63 / (450 x 0.65 = 292.5); it read 6.024 of PCIe Gen5's 50.4.
    assert host_device_fraction([_ev(GH200_RUN)], refs) == pytest.approx(1.038, abs=0.001)
    assert refs["host_device_fraction"].startswith("upload 3 · gh-01 · nvbandwidth")


def test_a_degraded_c2c_link_reads_as_what_it_is() -> None:
    # A quarter of the healthy copy: 0.41 of NVLink-C2C; it read 2.38 of PCIe (1.0 once capped).
    assert host_device_fraction([_degraded(120.0, 130.0)], {}) == pytest.approx(0.41, abs=0.001)


def _gb200(d2h: float, h2d: float) -> NodeEvidence:
    """The GH200 run's shape with a GB200's copies: one GPU of a GB200 tray measured alone."""
    run = _degraded(d2h, h2d)
    return replace(run, metrics={**run.metrics, "device_names": ["NVIDIA GB200"]})


def test_a_healthy_gb200_copy_reads_about_one_of_its_c2c_share() -> None:
    # Azure's published ND GB200 v6 nvbandwidth figures: 201 GB/s host to device, 193 device to
    # host: 193 / (225 x 0.85 = 191.25).
    assert host_device_fraction([_gb200(193.0, 201.0)], {}) == pytest.approx(1.009, abs=0.001)


def test_a_gb200_whose_copies_slowed_reads_as_what_it_is() -> None:
    # 120 GB/s, 62 % of the healthy 193: at GH200's share it read 120 / 146.25 = 0.821, above
    # the bare-metal assumption (0.75); at the GB200's own share it reads 0.627.
    assert host_device_fraction([_gb200(120.0, 130.0)], {}) == pytest.approx(0.627, abs=0.001)


def test_the_gpu_nvidia_smi_names_decides_the_link_when_the_run_lists_none() -> None:
    run = _degraded(120.0, 130.0)
    anonymous = replace(run, metrics={**run.metrics, "device_names": []})
    assert host_device_fraction([anonymous], {}) is None  # no GPU named: no reference
    evidence = [anonymous, _ev(GH200_Q)]
    assert host_device_fraction(evidence, {}) == pytest.approx(0.41, abs=0.001)


def test_the_real_gh200_q_shows_no_pcie_fault_for_its_x1_link() -> None:
    claims = Claims(
        gpu_model="NVIDIA GH200 480GB", gpus_per_node=1, gpu_memory_gib=96, gpu_form_factor="other"
    )
    report = verify_candidate(claims, [_ev(GH200_Q), _ev(GH200_RUN)])
    assert not [f for f in report.faults if f.kind == "pcie_link_narrow"]
    facts = measured_facts(report, [_ev(GH200_Q), _ev(GH200_RUN)])
    assert facts.host_device_fraction == pytest.approx(1.0)


def _one_gh200(fraction: float | None, model: str = "NVIDIA GH200 480GB", memory_gib: int = 96):
    o = offering(
        delivery_form="bare_metal",
        gpus_per_node=1,
        gpu_model=model,
        gpu_memory_gib=memory_gib,
        gpu_form_factor="other",
        nvlink_topology="none",
        prices=(Price("hourly", Decimal("25.00")),),
    )
    return candidate(
        offering=o, node_count=1, measured=MeasuredFacts(host_device_fraction=fraction)
    )


def test_a_one_gh200_candidate_with_a_degraded_link_is_not_measured_healthy() -> None:
    spec = evaluation(required_total_gpus=1, workload_profile="inference")
    slow = host_device_fraction([_degraded(120.0, 130.0)], {})
    healthy = host_device_fraction([_ev(GH200_RUN)], {})
    # Below the delivery form's assumed fraction the assumption stands (measuring never hurts);
    # the degraded link no longer passes as a measured 1.0.
    assert compute_tco(_one_gh200(slow), spec, V2).efficiency_basis == "assumed"
    assert compute_tco(_one_gh200(healthy), spec, V2).efficiency_basis == "measured"


def test_a_one_gb200_candidate_counts_its_copies_only_at_its_own_share() -> None:
    # Measuring never hurts: the degraded GB200 falls back to the assumption, the healthy one is
    # measured. At GH200's share the degraded one was measured healthy too.
    spec = evaluation(required_total_gpus=1, workload_profile="inference")
    slow = host_device_fraction([_gb200(120.0, 130.0)], {})
    healthy = host_device_fraction([_gb200(193.0, 201.0)], {})
    basis = [
        compute_tco(_one_gh200(f, "NVIDIA GB200", 186), spec, V2).efficiency_basis
        for f in (slow, healthy)
    ]
    assert basis == ["assumed", "measured"]
