"""A fio run that can overstate the drive verifies no NVMe claim, as it refutes none (expert
review of stop 33): buffered I/O measures the page cache and a file under 1 GiB is held in
caches. A run that can only understate (too few I/Os in flight, a run too short to settle) may
still verify a claim it meets, as the collector's own 1 GiB runs do, and so may a fit run on a
device not named as NVMe (md0, a RAID of NVMe drives). Neither the verdict nor the measured
NVMe figure reads a run that can overstate; the explanation says why."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from scoring.evidence import parse_bytes
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate

SAMPLES = Path(__file__).parent / "evidence" / "samples" / "fio"


def _claims(read_gbyte_s: str) -> Claims:
    return Claims(
        gpu_model="H100 SXM5 80GB",
        gpus_per_node=8,
        gpu_memory_gib=80,
        node_count=1,
        nvme_read_gbyte_s=Decimal(read_gbyte_s),
    )


def _run(read_mbyte_s: float, **job: Any) -> NodeEvidence:
    """A sequential 1 MiB read on /dev/nvme0n1 fit to judge, with ``job``'s changes."""
    fields = {
        "name": "seqread", "groupid": 0, "rw": "read", "bs_bytes": 1 << 20, "iodepth": 32,
        "numjobs": 4, "direct": True, "ioengine": "libaio", "file_size_bytes": 64 << 30,
        "runtime_s": 60.0, "target": "/dev/nvme0n1", "error": None,
        "read_bw_mbyte_s": read_mbyte_s, "read_iops": read_mbyte_s, "write_bw_mbyte_s": 0.0,
        "write_iops": 0.0,
    }  # fmt: skip
    fields.update(job)
    disk = fields["target"].removeprefix("/dev/")
    metrics = {"read_bw_mbyte_s": read_mbyte_s, "jobs": [fields], "disks": [disk]}
    return NodeEvidence("gpu-01", 1, "fio", metrics, "fio.txt", 1)


def test_the_published_page_cache_run_made_fast_verifies_nothing():
    # fio 3.33 reading a 16 MiB file on vda with psync for 2 s: 2,129 MiB read from a 16 MiB
    # file is the page cache. Made to claim 12.5 GB/s, it still verifies nothing.
    text = (SAMPLES / "fio333-seqread-normal.txt").read_bytes()
    fast = text.replace(b"(1115MB/s)", b"(12500MB/s)").replace(b"bw=1063MiB/s", b"bw=11921MiB/s")
    for data in (text, fast):
        result = parse_bytes(data)
        evidence = [NodeEvidence("gpu-01", 1, result.kind, result.metrics, "fio.txt", 1)]
        report = verify_candidate(_claims("12"), evidence)
        item = report.items["local_nvme"]
        assert item.status == "unverifiable", item.explanation_en
        assert "16 MiB file" in item.explanation_en and "not a device named as NVMe" in (
            item.explanation_en
        )
        assert measured_facts(report, evidence).nvme_read_mbyte_s is None


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"direct": False}, "buffered I/O"),
        ({"file_size_bytes": 256 << 20}, "256 MiB file"),
    ],
    ids=["buffered", "small-file"],
)
def test_a_run_that_can_overstate_neither_verifies_nor_refutes(change, why):
    claims = _claims("7")
    fit = verify_candidate(claims, [_run(7200.0)]).items["local_nvme"]
    assert fit.status == "verified"
    for figure in (7200.0, 12500.0, 3000.0):
        evidence = [_run(figure, **change)]
        report = verify_candidate(claims, evidence)
        item = report.items["local_nvme"]
        assert item.status == "unverifiable", (figure, item.explanation_en)
        assert why in item.explanation_en
        assert measured_facts(report, evidence).nvme_read_mbyte_s is None


@pytest.mark.parametrize(
    "change",
    [
        {"iodepth": 1, "numjobs": 1, "ioengine": "psync"},
        {"runtime_s": 0.15},
        {"target": "/dev/md0"},
    ],
    ids=["one-in-flight", "collector-1GiB-run", "md-raid"],
)
def test_a_run_that_can_only_understate_verifies_a_claim_it_meets(change):
    claims = _claims("7")
    evidence = [_run(7200.0, **change)]
    report = verify_candidate(claims, evidence)
    assert report.items["local_nvme"].status == "verified"
    assert measured_facts(report, evidence).nvme_read_mbyte_s == 7200.0
    # It cannot refute one it misses: what it misses may be its own settings.
    short = verify_candidate(claims, [_run(3000.0, **change)]).items["local_nvme"]
    assert short.status == "unverifiable"
