"""NVLink domains larger than one node (GB200 NVL72, GH200 NVL32).

An all_reduce across the 18 trays of a GB200 NVL72 rack runs over the NVSwitch trays at
NVLink's bandwidth (846.82 GB/s busbw on 72 GPUs in CoreWeave's published run), far above
what the trays' InfiniBand could carry (4 x 400 Gb/s per tray, a 190 GB/s bound): judged
against the fabric it was set aside as implausible, so the rack could never be verified. An
offering now declares its NVLink domain (offering.nvlink_domain_gpus; 0 = the node), and a
run whose GPUs fit in one domain is expected and capped by NVLink. Where the candidate spans
several domains, a run on a few nodes is judged against NVLink only when faster than the
fabric can carry, and then verifies NVLink, not the fabric between domains; a run across
domains is capped by one domain's NVLink and judged against the fabric it crossed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from scoring import api
from scoring.evidence import parse_bytes
from scoring.reference import (
    expected_busbw_gbyte_s,
    match_gpu,
    nvlink_domain_problem,
    nvlink_domain_size,
    run_in_nvlink_domain,
)
from scoring.types import ScoringInputError
from scoring.verification import (
    Claims,
    NodeEvidence,
    VerificationInputError,
    measured_facts,
    verify_candidate,
)
from scoring.verification.network import ALLTOALL, verify_collective

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering

# Real outputs (tests/scoring/evidence/samples/PROVENANCE.tsv): nccl-tests all_reduce_perf on
# one GB200 NVL72 rack (72 ranks, 18 trays of 4 GPUs), swept to 8 GiB, 846.82 GB/s peak
# busbw; and on two racks (144 ranks), to 16 GiB, 820.36 GB/s. Their authors cut the device
# list to its last rank.
SAMPLES = Path(__file__).parent / "evidence" / "samples" / "nccl_tests"
SAMPLE = SAMPLES / "coreweave-pr43-gb200-nvl72-72rank-rank71-only-graphics-device.txt"
TWO_RACKS = SAMPLES / "coreweave-gb200-nvl72-two-racks-144-ranks.txt"
GB200 = match_gpu("NVIDIA GB200 186GB")


def _run(peak: float | None = None, sample: Path = SAMPLE) -> list[NodeEvidence]:
    result = parse_bytes(sample.read_bytes())
    metrics = dict(result.metrics)
    if peak is not None:
        metrics["peak_busbw_gbyte_s"] = peak
    return [NodeEvidence("slurm-gb200-207-171", 9, result.kind, metrics, sample.name, None)]


def _claims(domain: int | None, nodes: int = 18, **changes) -> Claims:
    # A GB200 NVL72 compute tray: 4 GPUs, one ConnectX-7 400 Gb/s InfiniBand rail per GPU.
    base = Claims(
        gpu_model="NVIDIA GB200 186GB",
        gpus_per_node=4,
        gpu_memory_gib=186,
        gpu_form_factor="other",
        nvlink_topology="full_mesh",
        fabric="infiniband",
        fabric_rate_gbit_s=400,
        nics_per_node=4,
        node_count=nodes,
        nvlink_domain_gpus=domain,
    )
    return replace(base, **changes)


def test_the_sample_is_a_whole_rack_run_at_nvlink_speed():
    (run,) = _run()
    assert run.kind == "nccl_tests"
    assert run.metrics["ranks"] == 72  # "Rank 71" alone: at least 72 ranks
    assert run.metrics["hosts"] == ["slurm-gb200-207-171"]
    assert run.metrics["peak_busbw_gbyte_s"] == 846.82
    assert run.metrics["gpu_names"] == ["NVIDIA Graphics Device"]


# --- the expected bus bandwidth ----------------------------------------------------------------


def test_a_run_inside_one_domain_is_expected_at_nvlink_not_the_fabric():
    args = (GB200, 4, 2, "full_mesh", "infiniband", 400, 4)
    fabric = expected_busbw_gbyte_s(*args)
    domain = expected_busbw_gbyte_s(*args, 72)
    # 4 x 400 Gb/s = 200 GB/s per tray x 0.95; NVLink5 900 GB/s per direction x 0.8.
    assert (fabric.bound, fabric.value_gbyte_s) == ("inter_node", 190.0)
    assert (domain.bound, domain.value_gbyte_s) == ("nvlink_domain", 720.0)
    assert "72-GPU NVLink domain" in domain.basis and "NVLink 域" in domain.basis_zh
    # The whole rack (18 trays) still fits; 19 trays do not, nor does a domain left at 0.
    assert expected_busbw_gbyte_s(GB200, 4, 18, "full_mesh", "infiniband", 400, 4, 72).bound == (
        "nvlink_domain"
    )
    assert expected_busbw_gbyte_s(GB200, 4, 19, "full_mesh", "infiniband", 400, 4, 72).bound == (
        "inter_node"
    )
    assert expected_busbw_gbyte_s(*args, 0) == fabric


def test_a_domain_needs_no_fabric_to_bound_a_run_inside_it():
    assert expected_busbw_gbyte_s(GB200, 4, 2, "full_mesh", "none", 0, 0) is None
    inside = expected_busbw_gbyte_s(GB200, 4, 2, "full_mesh", "none", 0, 0, 72)
    assert inside.value_gbyte_s == 720.0


def test_domain_helpers():
    assert nvlink_domain_size(0, 4) == nvlink_domain_size(None, 4) == 4
    assert nvlink_domain_size(72, 4) == 72
    assert run_in_nvlink_domain(4, 2, 72) and run_in_nvlink_domain(4, 18, 72)
    assert not run_in_nvlink_domain(4, 19, 72)
    assert not run_in_nvlink_domain(4, 1, 72)  # one node: inside the node, as always
    assert not run_in_nvlink_domain(8, 2, 0)
    # GH200 NVL32: one superchip per node, 32 nodes in one domain.
    assert run_in_nvlink_domain(1, 32, 32) and not run_in_nvlink_domain(1, 33, 32)


# --- verification ------------------------------------------------------------------------------


def test_a_whole_rack_run_verifies_a_declared_72_gpu_domain():
    report = verify_candidate(_claims(72, 18), _run())
    item = report.busbw
    assert item.status == "verified", item.explanation_en
    assert report.busbw_fraction == pytest.approx(846.82 / 720, abs=0.001)
    assert report.expected_busbw.bound == "nvlink_domain"
    assert item.details["implausible_runs"] == []
    assert item.details["via_nvlink_domain"] is True
    assert "one 72-GPU NVLink domain" in item.explanation_en
    assert "NVLink 域" in item.explanation_zh
    facts = measured_facts(report, _run())
    assert facts.busbw_fraction == 1.0  # above the ring's bound (NVLink SHARP): counts as 1.0
    assert facts.expected_busbw_gbyte_s == 720.0


def test_the_same_run_is_still_set_aside_without_a_declared_domain():
    for domain in (None, 0, 4):
        report = verify_candidate(_claims(domain), _run())
        item = report.busbw
        assert item.status == "unverifiable"
        assert report.busbw_fraction is None
        (aside,) = item.details["implausible_runs"]
        assert "846.82 GB/s on 18 node(s) is above the" in aside


def test_a_slow_run_inside_a_domain_the_whole_candidate_shares_refutes_it():
    # Every node of an 18-tray candidate is in the domain: a run at the fabric's speed shows
    # the trays are not joined by NVLink as declared.
    report = verify_candidate(_claims(72, 18), _run(peak=180.0))
    assert report.busbw.status == "contradicted"
    assert report.busbw_fraction == pytest.approx(0.25)


def test_two_racks_a_fabric_speed_run_is_judged_against_the_fabric():
    # 36 trays span two NVL72 racks: two of them may sit in different racks, so a run at
    # the fabric's speed is judged against the fabric, never taken for a slow NVLink domain.
    report = verify_candidate(_claims(72, 36), _run(peak=182.0))
    assert report.busbw.status == "verified", report.busbw.explanation_en
    assert report.expected_busbw.bound == "inter_node"
    assert report.busbw.details["via_nvlink_domain"] is False


def test_two_racks_an_nvlink_speed_run_verifies_nvlink_not_the_fabric_between_them():
    report = verify_candidate(_claims(72, 36), _run())
    item = report.busbw
    assert item.status == "unverifiable"
    assert item.details["implausible_runs"] == []
    assert item.details["covers_interconnect"] is False
    assert report.busbw_fraction is None
    assert "fabric between the NVLink domains" in item.explanation_en
    assert "NVLink 域之间的网络未被核实" in item.explanation_zh


def test_the_domain_ceiling_still_sets_aside_what_nvlink_cannot_reach():
    # NVLink5 900 GB/s per direction x 1.1 (NVLink SHARP) x 1.1 margin = 1089 GB/s.
    report = verify_candidate(_claims(72), _run(peak=1200.0))
    assert report.busbw.status == "unverifiable"
    (aside,) = report.busbw.details["implausible_runs"]
    assert "1,089" in aside or "1089" in aside


def test_an_alltoall_inside_a_domain_is_bounded_by_nvlink():
    (run,) = _run()
    metrics = {**run.metrics, "collective": "alltoall", "peak_busbw_gbyte_s": 700.0}
    evidence = [replace(run, metrics=metrics)]
    inside = verify_collective(_claims(72), evidence, ALLTOALL)
    outside = verify_collective(_claims(0), evidence, ALLTOALL)
    assert inside.item.status == "verified"
    assert inside.expected.bound == "nvlink_domain"
    assert outside.item.status == "unverifiable"
    assert outside.item.details["implausible_runs"]


def test_the_verified_rack_scores_its_measured_all_reduce():
    report = verify_candidate(_claims(72, 18), _run())
    gb200 = offering(
        gpu_model="NVIDIA GB200 186GB",
        gpu_memory_gib=186,
        gpu_form_factor="other",
        gpus_per_node=4,
        nics_per_node=4,
        nvlink_domain_gpus=72,
    )
    node = candidate(node_count=18, offering=gb200, measured=measured_facts(report, _run()))
    result = api.score_candidate(node, evaluation(required_total_gpus=64), rubric_version="2")
    busbw = next(
        c
        for d in result.dimensions
        for c in d.contributions
        if c.rule_id == "network.measured.busbw_fraction"
    )
    assert busbw.basis == "measured"
    assert busbw.points == busbw.max_points


# --- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize("domain", [2, 6, 70])
def test_a_domain_that_splits_a_node_is_refused(domain):
    en, zh = nvlink_domain_problem(domain, 4)
    assert f"({domain} GPUs)" in en and "multiple of the 4 GPUs per node" in en
    assert "整数倍" in zh
    with pytest.raises(ScoringInputError, match="multiple of the 4 GPUs per node"):
        offering(gpus_per_node=4, nvlink_domain_gpus=domain)
    with pytest.raises(VerificationInputError, match="multiple of the 4 GPUs per node"):
        _claims(domain)


def test_a_domain_across_nodes_needs_nvlink():
    with pytest.raises(ScoringInputError, match="needs an NVLink topology"):
        offering(gpus_per_node=4, nvlink_domain_gpus=8, nvlink_topology="none")
    # The node itself needs nothing more.
    assert offering(gpus_per_node=4, nvlink_domain_gpus=4, nvlink_topology="none")


def test_no_domain_is_the_node():
    assert offering(nvlink_domain_gpus=None).nvlink_domain_gpus == 0
    assert _claims(None).nvlink_domain_gpus == 0
    assert nvlink_domain_problem(None, 8) is None and nvlink_domain_problem(0, 8) is None


def test_two_racks_real_run_shows_nvlink_not_the_fabric_between_the_racks():
    """CoreWeave's two-rack run (144 ranks, 820.36 GB/s): NCCL reduces inside each rack over
    NVLink and sends each GPU's 1/72 share over the InfiniBand between them, so the run goes
    as fast as one rack whatever the fabric's rate. With declared 72-GPU domains it is
    plausible, judged against one domain's NVLink, and verifies no fabric."""
    run = _run(sample=TWO_RACKS)
    assert run[0].metrics["ranks"] == 144 and run[0].metrics["devices_listed"] == 1
    report = verify_candidate(_claims(72, 36), run)
    item = report.busbw
    assert item.details["implausible_runs"] == []
    assert item.details["tested_nodes"] == 36
    assert item.details["covers_interconnect"] is False
    assert item.details["via_nvlink_domain"] is True
    assert report.expected_busbw.bound == "nvlink_domain"
    assert item.details["expected_gbyte_s"] == 720.0
    assert item.status == "unverifiable"  # the fabric claim stands unproven
    assert report.busbw_fraction is None
    assert "1/72 share over the fabric" in item.explanation_en
    assert "ib_write_bw between two domains" in item.explanation_en
    assert "1/72 的数据经网络传输" in item.explanation_zh
    # A cross-rack run at the fabric's own speed (NVLink across trays off) is judged against
    # the fabric it crossed.
    slow = verify_candidate(_claims(72, 36), _run(peak=182.0, sample=TWO_RACKS)).busbw
    assert slow.status == "verified" and slow.details["covers_interconnect"] is True
    # Without the declared domains the fast run is above what 4 x 400 Gb/s per tray carries.
    plain = verify_candidate(_claims(0, 36), run).busbw
    assert plain.details["implausible_runs"], plain.explanation_en


def test_a_cut_device_list_counts_the_nodes_its_ranks_fill():
    """A log that lists some ranks only ("Rank 71" alone) names some hosts only: the run's
    nodes are those its ranks fill at the declared GPUs per node, not the hosts named."""
    (run,) = _run()
    full = replace(run, metrics={**run.metrics, "devices_listed": 72})
    assert verify_candidate(_claims(72, 18), [full]).busbw.status == "unverifiable"
    assert verify_candidate(_claims(72, 18), [run]).busbw.status == "verified"
