"""A kernel log that shows a GPU failing without an Xid line (the driver could not bring the GPU
up; the driver's "fallen off the bus" sentence with no Xid 79) must not read as a clean log:
corpus batch 9 found the parser's warning stopped at the parser, and the fallen-off-bus flag was
read by nothing."""

from __future__ import annotations

from scoring.verification import measured_facts, verify_candidate
from scoring.verification.health import XID_NODE_AFFECTED

try:
    from test_verification_partial_evidence import claims, parsed, parsed_text
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .test_verification_partial_evidence import claims, parsed, parsed_text

# gpu-operator#1371: an L40S the 570 driver does not support, the probe failed, "None of the
# NVIDIA devices were initialized"; no Xid line.
UNSUPPORTED = (
    "kernel_log/gpu-operator-issue1371-dmesg-l40s-26b9-not-supported-by-570-probe-failed-"
    "none-initialized.txt"
)
# bumblebee#554: "GPU at 0000:01:00.0 has fallen off the bus." and no Xid line.
FALLEN = "kernel_log/bumblebee-issue554-dmesg-gpu-at-fallen-off-bus-no-xid.txt"
# A driver's clean load on a GPU node (the lines a healthy boot logs; no Xid, no failure).
CLEAN = (
    "[    5.123456] nvidia: loading out-of-tree module taints kernel.\n"
    "[    5.234567] nvidia-nvlink: Nvlink Core is being initialized, major device number 234\n"
    "[    5.345678] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15  Fri Jan 24 "
    "18:47:22 UTC 2025\n"
)


def _judged(rel: str, **claimed):
    evidence = [parsed_text(CLEAN, "dmesg.txt") if rel == CLEAN else parsed(rel)]
    assert evidence[0].kind == "kernel_log"
    assert evidence[0].metrics["xid_count"] == 0
    report = verify_candidate(claims(**claimed), evidence)
    return report, measured_facts(report, evidence)


def test_a_gpu_the_driver_could_not_bring_up_is_a_fault_and_weighs_on_stability():
    report, measured = _judged(UNSUPPORTED, gpu_model="L40S", gpus_per_node=1)
    faults = [f for f in report.faults if f.kind == "gpu_init_failed"]
    assert len(faults) == 1
    assert "could not bring a GPU up" in faults[0].explanation_en
    assert "未能启用某块 GPU" in faults[0].explanation_zh
    assert measured.xid_severity is not None and measured.xid_severity >= XID_NODE_AFFECTED
    assert measured.xid_node_share == 1.0
    assert "GPU not brought up" in measured.evidence_refs["xid_severity"]


def test_a_gpu_fallen_off_the_bus_without_an_xid_line_weighs_as_xid_79():
    report, measured = _judged(FALLEN)
    faults = [f for f in report.faults if f.kind == "gpu_fallen_off_bus"]
    assert len(faults) == 1
    assert "no Xid 79 line" in faults[0].explanation_en
    assert "按 Xid 79 计" in faults[0].explanation_zh
    assert measured.xid_severity == 1.0
    assert measured.xid_node_share == 1.0


def test_a_clean_driver_log_stays_clean():
    report, measured = _judged(CLEAN)
    assert not [f for f in report.faults if f.kind in ("gpu_init_failed", "gpu_fallen_off_bus")]
    assert measured.xid_severity == 0.0
    assert measured.xid_node_share == 0.0
