"""Non-NVIDIA accelerators (trust review): Huawei Ascend and AMD Instinct parts are named.

An evaluation that must buy domestic accelerators (信创) names "Ascend 910B" among the
accepted GPU models, and an AMD Instinct offering can be required too; before, both were
"Unknown GPU model" and an Ascend offering could never pass a GPU-model requirement. The
table names their families (scoring.reference.OTHER_ACCELERATORS, each with its source) but
holds none of NVIDIA's reference figures for them (NVLink bandwidth, the one-NIC-per-GPU
reference fabric, the nccl-tests expectation): every reading of those takes the "no reference
for the GPU" path. The NVLink and SXM/PCIe rules score their own interconnect as declared, at
most as a claim, and say so (test_unreferenced_accelerators_honesty): an Ascend is scored
neither as an NVIDIA part without NVLink nor above one declaring the same.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from scoring.collectives import collectives
from scoring.ranking import rank, score_candidate
from scoring.reference import (
    OTHER_ACCELERATORS,
    form_factor_ruled_out,
    gpu_family_of,
    known_gpu_families,
    match_gpu,
    nvlink_topology_ruled_out,
    other_accelerator,
    parse_gpu_families,
    reference_fabric,
)
from scoring.rubric import load_rubric
from scoring.tco import compute_tco
from scoring.types import VendorFacts
from tests.scoring.scoring_factories import candidate, evaluation, offering

V1, V2 = load_rubric("1"), load_rubric("2")
CJK = re.compile(r"[\u4e00-\u9fff]")
DOMESTIC = VendorFacts(name="Vendor D", mlps_level=3, xinchuang=True, iso27001=True)
NVLINK_RULES = ("network.gpu.form_factor", "network.nvlink.topology")


def _ascend(candidate_id: int = 1, **changes):
    return candidate(
        candidate_id,
        vendor=DOMESTIC,
        offering=offering(
            **{
                "gpu_model": "Huawei Ascend 910B",
                "gpu_memory_gib": 64,
                "gpu_form_factor": "other",
                "nvlink_topology": "none",
                **changes,
            }
        ),
    )


def _mi300x(candidate_id: int = 2):
    return candidate(
        candidate_id,
        offering=offering(
            gpu_model="AMD Instinct MI300X",
            gpu_memory_gib=192,
            gpu_form_factor="other",
            nvlink_topology="full_mesh",
        ),
    )


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("Ascend 910B", "910B"),
        ("910B", "910B"),
        ("Huawei Ascend 910B3", "910B"),
        ("Ascend910B4", "910B"),
        ("昇腾910B", "910B"),
        ("华为昇腾 910B2", "910B"),
        ("Huawei Ascend 910C", "910C"),
        ("AMD Instinct MI250X", "MI250X"),
        ("AMD Instinct MI300X", "MI300X"),
        ("Instinct MI325X", "MI325X"),
    ],
)
def test_the_families_are_named_but_no_nvidia_reference_applies(name, family):
    assert gpu_family_of(name) == family
    assert other_accelerator(name).family == family
    assert match_gpu(name) is None
    assert reference_fabric(name) is None
    # A GPU the table knows without NVLink data is never refused on its datasheet.
    for topology in ("full_mesh", "grouped", "none"):
        assert nvlink_topology_ruled_out(name, 8, topology) is None
    for form in ("sxm", "pcie", "other"):
        assert form_factor_ruled_out(name, form) is None


def test_every_family_cites_its_source_and_only_sourced_memory():
    by_family = {acc.family: acc for acc in OTHER_ACCELERATORS}
    assert set(by_family) == {"910B", "910C", "MI250X", "MI300X", "MI325X"}
    assert all(acc.source and acc.vendor for acc in OTHER_ACCELERATORS)
    # AMD's ROCm GPU specifications table (VRAM in GiB).
    assert [by_family[f].memory_gib for f in ("MI250X", "MI300X", "MI325X")] == [
        (128,),
        (192,),
        (256,),
    ]
    assert by_family["910B"].memory_gib == (64,)
    assert by_family["910C"].memory_gib == ()  # no source found: left out
    assert known_gpu_families()[-5:] == ("910B", "910C", "MI250X", "MI300X", "MI325X")
    assert {"H100", "A100"} <= set(known_gpu_families())


def test_a_buyer_names_domestic_and_amd_families_in_any_spelling():
    assert parse_gpu_families("昇腾910B、Ascend 910C, AMD Instinct MI300X；H100") == (
        ("910B", "910C", "MI300X", "H100"),
        (),
    )
    assert parse_gpu_families("Ascend 910B3, 910B4") == (("910B",), ())


@pytest.mark.parametrize("rubric", [V1, V2], ids=["v1", "v2"])
def test_ascend_and_mi300x_candidates_rank_and_pass_a_requirement_naming_them(rubric):
    spec = evaluation(
        required_gpu_memory_gib=64,
        accepted_gpu_families=("910B", "MI300X"),
        require_xinchuang=True,
    )
    ascend, mi300x, h100 = _ascend(1), _mi300x(2), candidate(3, vendor=DOMESTIC)
    ranking = rank([ascend, mi300x, h100], spec, rubric)
    by_id = {r.candidate_id: r for r in ranking.results}
    assert not by_id[1].knockouts
    # The MI300X vendor is not Xinchuang-certified, and (rubric v2, expert review) an AMD
    # part is no domestic accelerator either; its model passes the accepted families.
    expected = ["xinchuang"] if rubric is V1 else ["xinchuang", "xinchuang_gpu"]
    assert [k.code for k in by_id[2].knockouts] == expected
    (h100_out,) = [k for k in by_id[3].knockouts if k.code == "gpu_model"]
    assert "accepts only 910B, MI300X" in h100_out.reason_en
    assert CJK.search(h100_out.reason_zh)
    assert ranking.leader.candidate_id == 1
    for item in (ascend, mi300x):
        alone = score_candidate(item, spec, rubric)
        assert alone.total == pytest.approx(by_id[item.candidate_id].total)
        assert len(alone.dimensions) == 6


def test_the_nvlink_rules_score_the_declared_interconnect_and_say_why():
    spec = evaluation(required_gpu_memory_gib=64)
    answers = {"nvlink_topology": "verified", "gpu_match": "verified"}
    ascend = replace(_ascend(1, nvlink_topology="full_mesh"), answers=answers)
    mi300x = replace(_mi300x(2), answers=answers)
    ranking = rank([ascend, mi300x, replace(candidate(3), answers=answers)], spec, V2)
    for result in ranking.results:
        (network,) = [d for d in result.dimensions if d.dimension == "network"]
        by_rule = {c.rule_id: c for c in network.contributions}
        for rule_id in NVLINK_RULES:
            found = by_rule[rule_id]
            assert found.basis == "claimed" and found.max_points > 0
            status = next(v for k, v in found.inputs.items() if k.startswith("answer."))
            if result.candidate_id == 3:  # the H100 keeps its verified claims
                assert status == "verified" and found.evidence_ref is None
            else:
                # No node output shows HCCS or Infinity Fabric: claimed until a document review.
                assert status == "claimed" and found.points == pytest.approx(0.7 * found.max_points)
                assert found.evidence_ref.startswith("no NVLink reference for ")
    # A full mesh declared scores above none declared, as it does for an NVIDIA part.
    declared = [
        score_candidate(_ascend(1, nvlink_topology=topology), spec, V2).score("network")
        for topology in ("none", "full_mesh")
    ]
    assert declared[0] < declared[1]


def test_the_tco_says_the_fabric_is_judged_against_a_stand_in_in_english_and_chinese():
    spec = evaluation(required_gpu_memory_gib=64)  # 16 GPUs: two 8-GPU nodes
    for item, family in ((_ascend(), "910B"), (_mi300x(), "MI300X")):
        found = collectives(item, spec, V2, item.offering.delivery_form)
        assert (found.source, found.gpu_family, found.reference_gbit_s) == ("stand_in", family, 800)
        lines = {code: (en, zh) for code, en, zh in compute_tco(item, spec, V2).assumptions()}
        en, zh = lines["collectives"]
        assert "of a stand-in reference, one 800 Gb/s NIC per GPU" in en
        assert f"an assumption: no reference fabric exists for {family}" in en
        assert "the most demanding reference the rubric holds (B300)" in en
        assert "替代参考网络（每块 GPU 一块 800 Gb/s 网卡）" in zh
        assert f"此为假定：{family} 没有参考网络" in zh
        # No reference GPU-hour price either: the fallback is said, not hidden.
        assert "no reference price for" in lines["reference_fallback"][0]
