"""A GDDR board with ECC on shows 15/16 of its datasheet memory (ECC check bits are stored
inline), so the real nvidia-smi outputs of a truthful 48 GB L40S (46068 MiB) and 16 GB T4
(15360 MiB) verify checklist item 1 instead of contradicting it, and the explanation names the
allowance (GPU expert review: a 5 % tolerance alone read 45 GiB as short of 48 x 0.95)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence.registry import parse_bytes
from scoring.reference import ecc_reserved_share, match_gpu
from scoring.verification import Claims, NodeEvidence, verify_candidate

SAMPLES = Path(__file__).parent / "evidence" / "samples"
L40S_TABLE = "nvidia_smi/thamada-l40s-driver550-table-mig-na.txt"
L40S_QUERY = "nvidia_smi_query/thamada-l40s-driver550-q-ada-full.txt"
T4_TABLE = "nvidia_smi/gpu-operator-issue510-kubectl-exec-defaulted-container-t4-driver525.txt"


def _gpu_match(rel: str, model: str, memory_gib: int):
    result = parse_bytes((SAMPLES / rel).read_bytes())
    evidence = [NodeEvidence("n1", 1, result.kind, result.metrics, rel, None)]
    claims = Claims(
        gpu_model=model, gpus_per_node=1, gpu_memory_gib=memory_gib, gpu_form_factor="pcie"
    )
    return verify_candidate(claims, evidence).items["gpu_match"]


@pytest.mark.parametrize(
    ("rel", "model", "memory_gib"),
    [(L40S_TABLE, "NVIDIA L40S", 48), (L40S_QUERY, "NVIDIA L40S", 48), (T4_TABLE, "Tesla T4", 16)],
)
def test_a_truthful_gddr_card_with_ecc_on_verifies_its_memory(rel, model, memory_gib):
    item = _gpu_match(rel, model, memory_gib)
    assert item.status == "verified", item.explanation_en
    assert "ECC inline in GDDR memory" in item.explanation_en
    assert "15/16" in item.explanation_en and "15/16" in item.explanation_zh
    assert "15/16" in item.tolerance and "15/16" in item.tolerance_zh


def test_an_overstated_gddr_memory_claim_is_still_contradicted():
    # 46068 MiB is far from a 64 GiB claim even after ECC's 1/16.
    item = _gpu_match(L40S_TABLE, "NVIDIA L40S", 64)
    assert item.status == "contradicted"
    assert "15/16" in item.explanation_en


@pytest.mark.parametrize(
    ("name", "share"),
    [
        ("NVIDIA L40S", 1 / 16),
        ("NVIDIA A10", 1 / 16),
        ("Tesla T4", 1 / 16),
        ("NVIDIA L4", 1 / 16),
        ("NVIDIA H100 80GB HBM3", 0.0),
        ("NVIDIA A100-SXM4-80GB", 0.0),
        ("NVIDIA GeForce RTX 4090", 0.0),
    ],
)
def test_only_gddr_boards_with_inline_ecc_lose_a_sixteenth(name, share):
    assert ecc_reserved_share(match_gpu(name)) == share
