"""A run on another GPU variant cannot judge a candidate: the model, memory figure and form
factor a GPU name states (scoring.reference.gpu_name_facts) are compared with the claim's, only
where both state them, and a run whose device names differ is set aside as foreign — no
verdict, no fraction. Real outputs: the AWS p4d A100-SXM4-40GB two-node run the demo attaches
to its A100-SXM4-80GB candidate, and the OCI 8 x A100-SXM4-40GB one-node run."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import nccl
from scoring.reference import GpuNameFacts, gpu_name_differences, gpu_name_facts
from scoring.verification import Claims, NodeEvidence, verify_candidate

SAMPLES = Path(__file__).parent / "evidence" / "samples" / "nccl_tests"
AWS_A100_40GB_2NODE = SAMPLES / "aws-p4d-a100-2node-efa-nccl283.txt"
OCI_A100_40GB_1NODE = SAMPLES / "oci-a100-1node-ubuntu-nccl2265.txt"
DEMO_NODE_08 = (
    Path(__file__).parents[2] / "fixtures/demo-evidence/2-a100-node-08/all_reduce_perf.txt"
)


@pytest.mark.parametrize(
    ("name", "facts"),
    [
        # offering spellings (fixtures/demo.json)
        ("NVIDIA A100-SXM4-80GB", ("A100", 80, "sxm")),
        ("NVIDIA H100 SXM5 80GB", ("H100", 80, "sxm")),
        ("NVIDIA A800 80GB PCIe", ("A800", 80, "pcie")),
        ("NVIDIA H800 80GB", ("H800", 80, None)),
        ("NVIDIA L40S", ("L40S", None, None)),
        ("NVIDIA GeForce RTX 4090", ("4090", None, None)),
        # device names as nccl-tests / nvidia-smi print them (samples)
        ("A100-SXM4-40GB", ("A100", 40, "sxm")),
        ("NVIDIA H100 80GB HBM3", ("H100", 80, None)),
        ("NVIDIA GH200 120GB", ("GH200", 120, None)),
        ("NVIDIA GB10", ("GB10", None, None)),
        ("Tesla T4", ("T4", None, None)),
        ("Tesla V100-SXM2-32GB", ("V100", 32, "sxm")),
        ("NVIDIA A100-PCIE-40GB", ("A100", 40, "pcie")),
        ("NVIDIA H100 PCIe", ("H100", None, "pcie")),
        ("NVIDIA H100 NVL", ("H100", None, "nvl")),
        ("AMD Instinct MI300X", ("MI300X", None, None)),
        ("A100", ("A100", None, None)),
        ("", (None, None, None)),
    ],
)
def test_a_gpu_name_states_only_what_its_words_say(name, facts):
    assert gpu_name_facts(name) == GpuNameFacts(*facts)


@pytest.mark.parametrize(
    ("claimed", "measured", "differences"),
    [
        ("NVIDIA A100-SXM4-80GB", "A100-SXM4-40GB", ["memory"]),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", ["form_factor"]),
        ("NVIDIA H100 SXM5 80GB", "NVIDIA H800", ["model"]),
        ("NVIDIA H100 SXM5 80GB", "NVIDIA H20", ["model"]),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A800-SXM4-80GB", ["model"]),
        ("NVIDIA H100 PCIe", "NVIDIA H100 NVL", ["form_factor"]),
        ("NVIDIA A800 80GB PCIe", "NVIDIA A100-SXM4-40GB", ["model", "memory", "form_factor"]),
        # unknown stays unknown: a name silent on a point differs in nothing
        ("NVIDIA A100-SXM4-80GB", "A100", []),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB", []),
        ("NVIDIA H100 SXM5 80GB", "NVIDIA H100 80GB HBM3", []),
        ("NVIDIA H800 80GB", "NVIDIA H800 PCIe", []),
        ("NVIDIA L40S", "NVIDIA L40S", []),
        # one card's two figures: a GH200's "120GB" names its CPU memory beside 96 GB of HBM
        ("NVIDIA GH200 96GB", "NVIDIA GH200 120GB", []),
        ("NVIDIA GH200 144GB", "NVIDIA GH200 120GB", ["memory"]),
    ],
)
def test_two_names_differ_only_in_what_both_state(claimed, measured, differences):
    assert gpu_name_differences(gpu_name_facts(claimed), gpu_name_facts(measured)) == differences


def _claims(**overrides) -> Claims:
    base = {
        "gpu_model": "NVIDIA A100-SXM4-80GB",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "gpu_form_factor": "sxm",
        "nvlink_topology": "full_mesh",
        "fabric": "roce",
        "fabric_rate_gbit_s": 200,
        "nics_per_node": 4,
        "node_count": 2,
    }
    return Claims(**(base | overrides))


def _evidence(path: Path, node: str = "a100-node-08", **metrics) -> list[NodeEvidence]:
    parsed = nccl.parse(path.read_text()).metrics | metrics
    return [NodeEvidence(node, 1, "nccl_tests", parsed, "all_reduce_perf.txt", 1)]


def test_the_demo_40gb_run_is_foreign_to_the_80gb_candidate():
    assert DEMO_NODE_08.read_bytes() == AWS_A100_40GB_2NODE.read_bytes()
    report = verify_candidate(_claims(), _evidence(DEMO_NODE_08))
    busbw = report.busbw
    # Before: judged as 13.7 % of the expected 240 GB/s, a contradiction and a fraction.
    assert report.busbw_fraction is None and report.nvlink_busbw_fraction is None
    assert busbw.status == "unverifiable" and busbw.evidence_ref is None
    assert busbw.details["foreign_runs"] == [
        "a100-node-08: all_reduce_perf.txt line 1 (upload 1): ran on A100-SXM4-40GB, not the "
        "claimed NVIDIA A100-SXM4-80GB (40 GB, not 80 GB), on host(s) nccl-tests-efa-worker-0, "
        "nccl-tests-efa-worker-1, not node a100-node-08"
    ]
    assert "运行于 A100-SXM4-40GB，并非声明的 NVIDIA A100-SXM4-80GB（显存 40 GB，并非 80 GB）" in (
        busbw.explanation_zh
    )
    # The pointer to the file is worded in Chinese too, never "(upload 1)" in the Chinese text.
    assert "a100-node-08：all_reduce_perf.txt 第 1 行（上传 1）：运行于" in busbw.explanation_zh
    assert "(upload" not in busbw.explanation_zh


def test_the_same_run_judges_a_40gb_candidate():
    report = verify_candidate(
        _claims(gpu_model="NVIDIA A100-SXM4-40GB", gpu_memory_gib=40), _evidence(DEMO_NODE_08)
    )
    assert report.busbw.details["foreign_runs"] == []
    assert report.busbw.details["tested_nodes"] == 2 and report.busbw_fraction is not None


def test_the_offerings_memory_field_speaks_where_the_model_name_is_silent():
    report = verify_candidate(
        _claims(gpu_model="NVIDIA A100", gpu_memory_gib=80, node_count=1),
        _evidence(OCI_A100_40GB_1NODE, node="gpu-01"),
    )
    assert report.busbw_fraction is None
    [foreign] = report.busbw.details["foreign_runs"]
    assert "not the claimed NVIDIA A100 (40 GB, not 80 GB)," in foreign


def test_a_pcie_run_is_foreign_to_an_sxm_claim_stated_in_the_form_factor_field():
    report = verify_candidate(
        _claims(gpu_model="NVIDIA A100", gpu_memory_gib=0, node_count=1),
        _evidence(OCI_A100_40GB_1NODE, node="gpu-01", gpu_names=["NVIDIA A100-PCIE-40GB"]),
    )
    [foreign] = report.busbw.details["foreign_runs"]
    assert "not the claimed NVIDIA A100 (PCIe, not SXM)," in foreign


def test_a_device_line_naming_only_the_family_is_not_set_aside():
    report = verify_candidate(
        _claims(node_count=1),
        _evidence(OCI_A100_40GB_1NODE, node="gpu-01", gpu_names=["A100"]),
    )
    assert report.busbw.details["foreign_runs"] == []
    assert report.busbw.details["tested_nodes"] == 1 and report.busbw_fraction is not None
