"""One node whose nvidia-smi outputs show two different GPUs: the files cannot all come from
that machine, so the GPU claim is contradicted on that node with both files named, whatever
the order of the uploads; listings of the same card (rounding of the memory, the table's and
-q's spellings) never raise it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring.evidence import parse_bytes
from scoring.verification import Claims, NodeEvidence, verify_candidate

ROOT = Path(__file__).resolve().parents[2]
A100_80_Q = ROOT / "fixtures/demo-evidence/2-a100-node-07/nvidia-smi-q.txt"
A100_40_TABLE = (
    ROOT / "tests/scoring/evidence/samples/nvidia_smi/dgx-a100-8gpu-driver450-mig-pending.txt"
)
CJK = re.compile(r"[\u4e00-\u9fff]")


def _file(path: Path, upload: int, node: str = "a100-07") -> NodeEvidence:
    result = parse_bytes(path.read_bytes())
    return NodeEvidence(node, upload, result.kind, result.metrics, path.name, None)


def _claims(**overrides) -> Claims:
    base = {
        "gpu_model": "NVIDIA A100-SXM4-80GB",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "gpu_form_factor": "sxm",
        "nvlink_topology": "full_mesh",
        "fabric": "infiniband",
        "fabric_rate_gbit_s": 200,
        "nics_per_node": 8,
        "node_count": 2,
    }
    return Claims(**{**base, **overrides})


@pytest.mark.parametrize("uploads", [(1, 2), (2, 1)])
def test_an_80gb_listing_and_a_40gb_listing_on_one_node_contradict_the_claim(uploads) -> None:
    evidence = [_file(A100_80_Q, uploads[0]), _file(A100_40_TABLE, uploads[1])]
    item = verify_candidate(_claims(), evidence).items["gpu_match"]
    assert item.status == "contradicted"
    assert "nvidia-smi outputs disagree on the GPU memory" in item.explanation_en
    assert A100_80_Q.name in item.explanation_en and A100_40_TABLE.name in item.explanation_en
    assert "one machine cannot show both" in item.explanation_en
    assert "同一台机器不可能同时如此" in item.explanation_zh and "显存" in item.explanation_zh
    assert not CJK.search(item.explanation_en)


def test_the_80gb_listing_alone_still_verifies_the_model() -> None:
    # Before: the node's first listing decided alone, so the 40 GB file beside it went unseen.
    item = verify_candidate(_claims(), [_file(A100_80_Q, 1)]).items["gpu_match"]
    assert "disagree" not in item.explanation_en
    assert item.status in ("verified", "unverifiable")


def _smi(names: list[str], mib: int | None, count: int = 8) -> dict:
    return {
        "gpu_count": count,
        "gpu_names": names,
        "memory_total_mib": [mib] * count,
    }


def _ev(kind: str, metrics: dict, upload: int, node: str = "gpu-01") -> NodeEvidence:
    return NodeEvidence(node, upload, kind, metrics, f"{kind}-{upload}.txt", 1)


H100 = {
    "gpu_model": "H100 SXM5 80GB",
    "gpu_memory_gib": 80,
    "fabric": "roce",
    "fabric_rate_gbit_s": 400,
}


def test_listings_of_the_same_card_agree() -> None:
    evidence = [
        _ev("nvidia_smi", _smi(["NVIDIA H100 80GB HBM3"], 81559), 1),
        # another driver reports a little more frame buffer; -q spells the name the same way
        _ev("nvidia_smi_query", {**_smi([], 81920), "product_names": ["NVIDIA H100 80GB HBM3"]}, 2),
        # a listing without names but with memory, and one with a name cut by the table
        _ev("nvidia_smi", _smi([], 81559), 3),
        _ev("nvidia_smi", _smi(["NVIDIA H100 80GB H..."], None), 4),
    ]
    item = verify_candidate(_claims(**H100), evidence).items["gpu_match"]
    assert item.status == "verified", item.explanation_en


@pytest.mark.parametrize(
    "other, difference",
    [
        (_smi(["NVIDIA H100 PCIe"], 81559), "form factor"),
        (_smi(["NVIDIA A100-SXM4-80GB"], 81920), "model"),
        (_smi([], 40960), "memory"),
    ],
)
def test_a_second_listing_of_another_card_on_the_node_is_named(other, difference) -> None:
    evidence = [_ev("nvidia_smi", _smi(["NVIDIA H100 80GB HBM3"], 81559), 1)]
    evidence.append(_ev("nvidia_smi", other, 2))
    item = verify_candidate(_claims(**H100), evidence).items["gpu_match"]
    assert item.status == "contradicted"
    assert f"disagree on the GPU {difference}" in item.explanation_en
    assert "nvidia_smi-1.txt" in item.explanation_en and "nvidia_smi-2.txt" in item.explanation_en
    assert item.evidence_ref == "gpu-01: nvidia_smi-2.txt line 1 (upload 2)"


def test_different_nodes_are_each_judged_on_their_own_listings() -> None:
    evidence = [
        _ev("nvidia_smi", _smi(["NVIDIA H100 80GB HBM3"], 81559), 1, node="gpu-01"),
        _ev("nvidia_smi", _smi(["NVIDIA H100 80GB HBM3"], 81559), 2, node="gpu-02"),
    ]
    item = verify_candidate(_claims(**H100), evidence).items["gpu_match"]
    assert item.status == "verified"
