"""A bus bandwidth above the expected value says why it is plausible (a manager's walk,
stop 30): "464.79 GB/s … is 129.1 % of the 360 GB/s expected, which confirms the declared
interconnect" left a manager unable to answer why 129 % is fine for one candidate while
another's run was set aside as above what the hardware can reach."""

from __future__ import annotations

try:
    from test_verification_fact_refs import claims, parsed
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .test_verification_fact_refs import claims, parsed

from scoring.verification import verify_candidate

# Real: 2 x OCI BM.GPU.H100.8 over 16 RoCE HCAs per node, busbw about 464.6 GB/s at 16 GiB.
OCI_2NODE = "nccl_tests/oci-h100-2node-roce-nccl2215.txt"


def _busbw(sample: str = OCI_2NODE, **claimed):
    return verify_candidate(claims(**claimed), [parsed(sample)]).busbw


def test_a_run_above_the_rings_bound_says_why_it_still_counts():
    item = _busbw()
    assert item.status == "verified"
    assert item.details["fraction"] > 1.0
    assert "above the expected value, which bounds a ring all-reduce" in item.explanation_en
    assert "nccl-tests#196" in item.explanation_en and "counts as 100 %" in item.explanation_en
    assert "高于期望值" in item.explanation_zh and "按 100 % 计" in item.explanation_zh


def test_a_run_at_or_below_the_expected_value_needs_no_such_note():
    # Real: one OCI BM.GPU4.8 (8 x A100-SXM4-40GB), busbw 232.2 GB/s.
    item = _busbw(
        "nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt",
        gpu_model="A100 SXM4 40GB",
        gpu_memory_gib=40,
        node_count=1,
    )
    assert item.details["fraction"] <= 1.0
    assert "above the expected value" not in item.explanation_en
