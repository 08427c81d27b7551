"""A GPU name without a form-factor word ("NVIDIA H100 80GB") is read as the declared form
factor's card, not silently as the family's first row (the SXM board), and the expected
all-reduce names the card it was computed for (GPU expert review).

Before, 8 x "NVIDIA H100 80GB" declared PCIe with a full NVLink mesh was judged against the
SXM5's NVLink (360 GB/s expected): the real 8 x H100 SXM run (GCP A3, 479.9 GB/s, NVLink
SHARP) verified the PCIe claim at 133 %, a real PCIe node would have read about 0.13 and been
contradicted, and the datasheet check let a full mesh of eight bridged PCIe cards stand."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence.registry import parse_bytes
from scoring.ranking import score_candidate
from scoring.reference import (
    expected_busbw_gbyte_s,
    match_declared_gpu,
    nvlink_topology_ruled_out,
)
from scoring.rubric import load_rubric
from scoring.verification import Claims, NodeEvidence, verify_candidate
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
H100_SXM_RUN = "gcp-a3-gke-8xh100-one-process-g8-nccl2.22.3-no-banner.txt"
SAMPLES = Path(__file__).parent / "evidence" / "samples" / "nccl_tests"


@pytest.mark.parametrize(
    ("name", "form", "memory", "key"),
    [
        ("NVIDIA H100 80GB", "pcie", 80, "H100-PCIE-80GB"),
        ("NVIDIA H100 80GB", "sxm", 80, "H100-SXM5-80GB"),
        ("NVIDIA H100", "pcie", 94, "H100-NVL-94GB"),
        ("NVIDIA A100", "pcie", 40, "A100-PCIE-40GB"),
        ("NVIDIA H200", "pcie", 141, "H200-NVL-141GB"),
        ("NVIDIA A800 80GB", "pcie", 80, "A800-PCIE-80GB"),
        # The name's own form-factor word wins over the field.
        ("NVIDIA H100 SXM5 80GB", "pcie", 80, "H100-SXM5-80GB"),
        ("NVIDIA H100 PCIe", "sxm", 80, "H100-PCIE-80GB"),
        # A family made in one form factor only keeps its row (the datasheet check flags it).
        ("NVIDIA L40S", "sxm", 48, "L40S"),
        ("NVIDIA H20", "pcie", 96, "H20-96GB"),
        ("NVIDIA H100 80GB", "other", 80, "H100-SXM5-80GB"),
    ],
)
def test_the_declared_form_factor_picks_the_row_where_the_name_is_silent(name, form, memory, key):
    assert match_declared_gpu(name, form, memory).key == key


def _busbw(form: str):
    result = parse_bytes((SAMPLES / H100_SXM_RUN).read_bytes())
    evidence = [NodeEvidence("n1", 1, result.kind, result.metrics, H100_SXM_RUN, None)]
    claims = Claims(
        gpu_model="NVIDIA H100 80GB",
        gpus_per_node=8,
        gpu_memory_gib=80,
        gpu_form_factor=form,
        nvlink_topology="full_mesh",
    )
    return verify_candidate(claims, evidence)


def test_an_sxm_run_no_longer_verifies_an_h100_declared_pcie():
    sxm, pcie = _busbw("sxm"), _busbw("pcie")
    assert sxm.busbw.status == "verified" and sxm.busbw_fraction == pytest.approx(1.333, abs=1e-3)
    # 480 GB/s is above what eight PCIe Gen5 cards can physically reach: set aside.
    assert pcie.busbw.status == "unverifiable" and pcie.busbw_fraction is None
    assert "physically reach" in pcie.busbw.explanation_en


def test_the_expected_value_names_the_card_it_was_computed_for():
    spec = match_declared_gpu("NVIDIA H100 80GB", "pcie", 80)
    expected = expected_busbw_gbyte_s(spec, 8, 1, "full_mesh", "none", 0, 0)
    # Eight bridged PCIe cards cannot be a full mesh: the ring crosses PCIe Gen5 (63 x 0.8).
    assert expected.value_gbyte_s == pytest.approx(50.4)
    assert "NVIDIA H100 PCIe 80GB: PCIe Gen5" in expected.basis
    assert "NVIDIA H100 PCIe 80GB：PCIe Gen5" in expected.basis_zh
    sxm = expected_busbw_gbyte_s(match_declared_gpu("NVIDIA H100 80GB", "sxm", 80), 8, 1,
                                 "full_mesh", "none", 0, 0)  # fmt: skip
    assert "NVIDIA H100 SXM5 80GB: NVLink 450 GB/s per direction" in sxm.basis


def test_the_datasheet_rules_out_a_full_mesh_of_eight_pcie_h100s_named_without_pcie():
    assert nvlink_topology_ruled_out("NVIDIA H100 80GB", 8, "full_mesh", "sxm", 80) is None
    reason = nvlink_topology_ruled_out("NVIDIA H100 80GB", 8, "full_mesh", "pcie", 80)
    assert reason is not None and "NVLink bridges join 2 cards" in reason[0]
    c = candidate(
        offering=offering(
            gpu_model="NVIDIA H100 80GB", gpu_form_factor="pcie", nvlink_topology="full_mesh"
        ),
        answers={"nvlink_topology": "claimed"},
    )
    result = score_candidate(c, evaluation(), V2)
    row = next(
        x
        for d in result.dimensions
        for x in d.contributions
        if x.rule_id == "network.nvlink.topology"
    )
    assert row.inputs["answer.nvlink_topology_datasheet"] == "contradicted"


@pytest.mark.parametrize("topology", ["grouped", "none"])
@pytest.mark.parametrize("profile", ["pretraining", "finetuning"])
def test_naming_the_variant_or_declaring_its_form_factor_scores_the_same(topology, profile):
    # The TCO's collectives model read the SXM5's NVLink as the node's bound for an "H100
    # 80GB" declared PCIe (a ring's 360 GB/s instead of PCIe's 50), so two 200 Gb/s rails
    # counted as a seventh of the reference fabric's share instead of nearly all of it.
    common = {
        "gpu_form_factor": "pcie",
        "nvlink_topology": topology,
        "fabric": "roce",
        "fabric_rate_gbit_s": 200,
        "nics_per_node": 2,
    }
    silent = candidate(offering=offering(gpu_model="NVIDIA H100 80GB", **common))
    named = candidate(offering=offering(gpu_model="NVIDIA H100 PCIe 80GB", **common))
    spec = evaluation(workload_profile=profile)
    a, b = score_candidate(silent, spec, V2), score_candidate(named, spec, V2)
    assert a.scores == b.scores and a.total == b.total
    assert a.tco.cost_per_effective_gpu_hour == b.tco.cost_per_effective_gpu_hour
