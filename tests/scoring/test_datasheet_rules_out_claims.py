"""Claims the GPU's own datasheet rules out are contradicted before any evidence.

Expert review (p3, p13): an L40S (no NVLink, scoring.reference) declared "full_mesh" scored
8.4 of 12 on network.nvlink.topology while an honest "none" scored 0, an SXM L40S out-scored
the honest PCIe one on network, and 8 bridged H100 PCIe cards declared "full_mesh" set a
240 GB/s all-reduce expectation although NVLink bridges join pairs only.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoring.dimensions.facts import FactContext
from scoring.dimensions.runners import reference
from scoring.ranking import rank, score_candidate
from scoring.reference import (
    expected_busbw_gbyte_s,
    form_factor_ruled_out,
    match_gpu,
    nvlink_topology_ruled_out,
    possible_nvlink_topology,
)
from scoring.rubric import load_rubric
from scoring.types import MeasuredFacts
from scoring.verification.network.bounds import _intra_line
from tests.scoring.scoring_factories import candidate, evaluation, fleet_claims, offering

V2 = load_rubric("2")
L40S = {
    "gpu_model": "NVIDIA L40S",
    "gpu_memory_gib": 48,
    "gpu_form_factor": "pcie",
    "fabric": "none",
    "fabric_rate_gbit_s": 0,
    "nics_per_node": 0,
}
FINETUNE_8 = evaluation(
    workload_profile="finetuning", required_total_gpus=8, required_gpu_memory_gib=48
)
ADA_LINE = "NVIDIA L40S/L40/L20/L4 datasheets: no NVLink, PCIe Gen4 x16"


def _result(answers=None, measured=None, **changes):
    c = candidate(
        node_count=1,
        offering=offering(**{**L40S, **changes}),
        answers=answers or {},
        measured=measured or MeasuredFacts(),
    )
    return score_candidate(c, FINETUNE_8, V2)


def _row(result, rule_id):
    return next(c for d in result.dimensions for c in d.contributions if c.rule_id == rule_id)


@pytest.mark.parametrize("status", ["claimed", "verified"])
@pytest.mark.parametrize("topology", ["full_mesh", "grouped"])
def test_nvlink_declared_on_an_l40s_is_contradicted_by_the_datasheet(topology, status):
    result = _result({"nvlink_topology": status}, nvlink_topology=topology)
    row = _row(result, "network.nvlink.topology")
    assert row.inputs["answer.nvlink_topology_datasheet"] == "contradicted"
    # A contradicted item costs half the rule's maximum (12), whatever topology was claimed
    # (rubric v2's contradicted_scales: max_points).
    assert row.points == 12 * -0.5 and row.inputs["contradicted.max_points"] == 12
    # The reason in English and Chinese, each naming the datasheet line of reference/gpus.py.
    english, chinese = row.evidence_ref.split(" | ")
    assert "has no NVLink" in english and ADA_LINE in english
    assert "没有 NVLink" in chinese and ADA_LINE in chinese
    honest = _result({"nvlink_topology": status}, nvlink_topology="none")
    assert result.score("network") < honest.score("network")
    assert result.total < honest.total


def test_a_node_showing_no_nvlink_does_not_turn_the_ruled_out_claim_into_a_measurement():
    result = _result(
        {"nvlink_topology": "claimed"},
        MeasuredFacts(nvlink_topology="none"),
        nvlink_topology="full_mesh",
    )
    row = _row(result, "network.nvlink.topology")
    assert row.basis == "claimed" and row.points == -6.0


def test_an_sxm_l40s_is_contradicted_by_the_datasheet():
    sxm = _result({"gpu_match": "claimed"}, gpu_form_factor="sxm")
    row = _row(sxm, "network.gpu.form_factor")
    assert row.inputs["answer.gpu_form_factor_datasheet"] == "contradicted"
    assert row.points == 6 * -0.5
    english, chinese = row.evidence_ref.split(" | ")
    assert "made only as PCIe, not SXM" in english and ADA_LINE in english
    assert "只有 PCIe 版本" in chinese
    honest = _result({"gpu_match": "claimed"})
    assert _row(honest, "network.gpu.form_factor").inputs["answer.gpu_form_factor_datasheet"] == (
        "claimed"
    )
    assert sxm.score("network") < honest.score("network")


def test_eight_bridged_pcie_cards_cannot_be_a_full_mesh():
    h100_pcie = {"gpu_model": "NVIDIA H100 PCIe 80GB", "gpu_form_factor": "pcie"}
    spec = evaluation(required_total_gpus=8)
    claimed = score_candidate(candidate(node_count=1, offering=offering(**h100_pcie)), spec, V2)
    grouped = score_candidate(
        candidate(node_count=1, offering=offering(**h100_pcie, nvlink_topology="grouped")),
        spec,
        V2,
    )
    row = _row(claimed, "network.nvlink.topology")
    assert row.inputs["answer.nvlink_topology_datasheet"] == "contradicted"
    assert "bridges join 2 cards" in row.evidence_ref
    assert claimed.score("network") < grouped.score("network")
    # The expectation is what the GPU can have (pairs: grouped), not NVLink's 240 GB/s.
    gpu = match_gpu("NVIDIA H100 PCIe 80GB")
    full = expected_busbw_gbyte_s(gpu, 8, 1, "full_mesh", "infiniband", 400, 8)
    assert full == expected_busbw_gbyte_s(gpu, 8, 1, "grouped", "infiniband", 400, 8)
    assert full.value_gbyte_s == pytest.approx(63.0 * 0.8)
    claims = fleet_claims(1, gpu_model="NVIDIA H100 PCIe 80GB", gpu_form_factor="pcie")
    pairs = replace(claims, nvlink_topology="grouped")
    assert _intra_line(gpu, claims, "alltoall") == _intra_line(gpu, pairs, "alltoall")


@pytest.mark.parametrize(
    ("gpu_model", "gpus", "topology"),
    [
        ("NVIDIA H100 PCIe 80GB", 2, "full_mesh"),  # one bridged pair
        ("NVIDIA H100 PCIe 80GB", 8, "grouped"),
        ("NVIDIA H200 NVL 141GB", 4, "full_mesh"),  # 4-way bridge
        ("NVIDIA H100 SXM5 80GB", 8, "full_mesh"),
        ("NVIDIA L40S", 8, "none"),
        ("Unknown X", 8, "full_mesh"),
    ],
)
def test_what_the_gpu_can_have_is_not_ruled_out(gpu_model, gpus, topology):
    assert nvlink_topology_ruled_out(gpu_model, gpus, topology) is None
    assert possible_nvlink_topology(match_gpu(gpu_model), gpus, topology) == topology


@pytest.mark.parametrize(
    ("gpu_model", "form", "ruled_out"),
    [
        ("NVIDIA L40S", "sxm", True),
        ("NVIDIA L40S", "pcie", False),
        ("NVIDIA H20 96GB", "pcie", True),
        ("NVIDIA H100 80GB HBM3", "pcie", False),  # an H100 PCIe exists
        ("NVIDIA A100-SXM4-80GB", "sxm", False),
        # "other" is the superchip form (GH200, GB200): an L40S is none (review of stop 33).
        ("NVIDIA L40S", "other", True),
        ("NVIDIA GB200 186GB", "other", False),
        ("NVIDIA GB200 186GB", "sxm", True),
        ("Unknown X", "sxm", False),
        ("Unknown X", "other", False),
    ],
)
def test_form_factors_the_table_lists_no_version_in_are_ruled_out(gpu_model, form, ruled_out):
    assert (form_factor_ruled_out(gpu_model, form) is not None) is ruled_out


def test_the_batch_and_the_rule_definition_agree_on_datasheet_contradictions():
    pool = [
        candidate(
            i,
            node_count=1,
            offering=offering(**{**L40S, "gpu_form_factor": form, "nvlink_topology": topo}),
            answers={"nvlink_topology": "verified", "gpu_match": "claimed"},
            measured=MeasuredFacts(evidence_refs={"nvlink_topology": "upload 1 · topo line 2"}),
        )
        for i, (form, topo) in enumerate(
            [(f, t) for f in ("sxm", "pcie") for t in ("full_mesh", "grouped", "none")] * 8,
            start=1,
        )
    ]
    results = {r.candidate_id: r for r in rank(pool, FINETUNE_8, V2, explain=False).results}
    rules = [r for r in V2.rules if r.id in ("network.nvlink.topology", "network.gpu.form_factor")]
    for c in pool:
        alone = score_candidate(c, FINETUNE_8, V2)
        assert results[c.candidate_id].scores == alone.scores
        ctx = FactContext(c, FINETUNE_8, V2, alone.tco)
        for rule in rules:
            batch_row = _row(results[c.candidate_id], rule.id)
            assert batch_row == reference(rule, V2.status_factors, ctx)
        # Where the datasheet leaves the claim open, the evidence line is cited.
        if c.offering.nvlink_topology == "none":
            assert _row(alone, "network.nvlink.topology").evidence_ref == "upload 1 · topo line 2"
