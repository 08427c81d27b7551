"""A fio job that ended with an error (an errno: 5 EIO, the drive failed an I/O; 28 ENOSPC)
stopped early: its figures neither verify nor contradict an NVMe claim, the verdict says why,
and no measured NVMe figure is read from it. The same run without the error judges as before."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from scoring.evidence import parse_bytes
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate

SEQREAD = Path(__file__).parent / "evidence" / "samples" / "fio" / "fio333-seqread-normal.txt"


def _claims(**overrides: Any) -> Claims:
    base: dict[str, Any] = {
        "gpu_model": "H100 SXM5 80GB",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "node_count": 1,
    }
    return Claims(**{**base, **overrides})


def _fit_run(read_mbyte_s: float, error: int | None) -> NodeEvidence:
    """A sequential read fit to judge (1 MiB blocks, 32 x 4 in flight, direct, 60 s, 64 GiB)."""
    job = {
        "name": "seqread", "groupid": 0, "rw": "read", "bs_bytes": 1 << 20, "iodepth": 32,
        "numjobs": 4, "direct": True, "ioengine": "libaio", "file_size_bytes": 64 << 30,
        "runtime_s": 60.0, "target": "/dev/nvme0n1", "error": error,
        "read_bw_mbyte_s": read_mbyte_s, "read_iops": read_mbyte_s, "write_bw_mbyte_s": 0.0,
        "write_iops": 0.0,
    }  # fmt: skip
    metrics = {"read_bw_mbyte_s": read_mbyte_s, "jobs": [job], "disks": ["nvme0n1"]}
    return NodeEvidence("gpu-01", 1, "fio", metrics, "fio.txt", 1)


def test_the_parser_keeps_each_jobs_error_code():
    clean = parse_bytes(SEQREAD.read_bytes())
    failed = parse_bytes(SEQREAD.read_bytes().replace(b"err= 0:", b"err= 5:"))
    assert clean.metrics["jobs"][0]["error"] is None
    assert failed.metrics["jobs"][0]["error"] == 5
    # The figures fio printed stay what the file says (the headline is the parser's record).
    assert failed.metrics["read_bw_mbyte_s"] == clean.metrics["read_bw_mbyte_s"] == 1115.0


def test_a_failed_job_meeting_the_claim_does_not_verify_it():
    claims = _claims(nvme_read_gbyte_s=Decimal("1.0"))
    for error, status in ((None, "verified"), (5, "unverifiable")):
        item = verify_candidate(claims, [_fit_run(1115.0, error)]).items["local_nvme"]
        assert item.status == status
        if error is not None:
            assert "ended with error 5 (EIO)" in item.explanation_en
            assert "以错误 5 (EIO) 结束" in item.explanation_zh


@pytest.mark.parametrize(
    ("error", "status"), [(None, "contradicted"), (5, "unverifiable"), (28, "unverifiable")]
)
def test_a_failed_job_short_of_the_claim_does_not_contradict_it(error, status):
    claims = _claims(nvme_read_gbyte_s=Decimal("7.0"))
    evidence = [_fit_run(3000.0, error)]
    report = verify_candidate(claims, evidence)
    assert report.items["local_nvme"].status == status
    facts = measured_facts(report, evidence)
    assert facts.nvme_read_mbyte_s == (3000.0 if error is None else None)
    if error == 28:
        assert "error 28 (ENOSPC)" in report.items["local_nvme"].explanation_en


def test_a_completed_job_beside_a_failed_one_still_judges():
    claims = _claims(nvme_read_gbyte_s=Decimal("7.0"))
    failed = _fit_run(9000.0, 5)  # a figure above the claim, from a run that failed
    completed = NodeEvidence("gpu-01", 2, "fio", _fit_run(6900.0, None).metrics, "b.txt", 1)
    report = verify_candidate(claims, [failed, completed])
    assert report.items["local_nvme"].status == "verified"
    assert measured_facts(report, [failed, completed]).nvme_read_mbyte_s == 6900.0
