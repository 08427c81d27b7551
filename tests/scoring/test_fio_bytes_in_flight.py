"""What saturates an NVMe drive is the bytes in flight, not the count of I/Os (expert review).

Datasheets quote sequential GB/s at 128 KiB x 32 I/Os: 4 MiB in flight. The collector's run,
1 MiB blocks at queue depth 16 on libaio with direct I/O, keeps 16 MiB in flight: a sound run
that can refute an inflated throughput claim. Counting I/Os alone (16 < 32) set it aside, so
an inflated claim kept its credit and out-scored an honest one.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest

from scoring import api
from scoring.evidence import parse_bytes
from scoring.verification import NodeEvidence, measured_facts, verify_candidate
from scoring.verification.storage import bytes_in_flight, run_shortfalls

try:
    from scoring_factories import candidate, evaluation, fleet_claims, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, fleet_claims, offering

# A real fio 3.33 JSON report (one sequential write job), reshaped into the collector's jobs.
SAMPLE = Path(__file__).parent / "evidence" / "samples" / "fio" / "fio333-seqwrite-json.txt"


def _job(bs: str | None, iodepth: int | None, numjobs: int = 1, engine: str = "libaio"):
    sizes = {"4k": 4096, "128k": 131072, "1M": 1048576}
    return {
        "rw": "read",
        "bs_bytes": None if bs is None else sizes[bs],
        "iodepth": iodepth,
        "numjobs": numjobs,
        "ioengine": engine,
        "direct": True,
        "runtime_s": 30.0,
    }


@pytest.mark.parametrize(
    ("bs", "depth", "jobs", "engine", "sound"),
    [
        ("1M", 16, 1, "libaio", True),  # the collector's run: 16 MiB in flight
        ("128k", 32, 1, "libaio", True),  # the datasheet's: 4 MiB
        ("128k", 8, 4, "io_uring", True),  # 4 MiB from four jobs
        ("128k", 16, 1, "libaio", False),  # 2 MiB
        ("1M", 16, 1, "psync", False),  # synchronous: one I/O of 1 MiB
        ("1M", 16, 4, "psync", True),  # four synchronous jobs of 1 MiB: 4 MiB
        (None, 16, 1, "libaio", False),  # block size unknown: judged by the I/O count
        (None, 32, 1, "libaio", True),
    ],
)
def test_a_run_is_judged_by_its_bytes_in_flight(bs, depth, jobs, engine, sound):
    shortfalls = run_shortfalls(_job(bs, depth, jobs, engine))
    assert (not shortfalls) is sound, shortfalls
    if not sound and bs is not None:
        assert "in flight" in shortfalls[0][0] and "32 × 128 KiB" in shortfalls[0][0]
        assert "在途" in shortfalls[0][1]


def test_bytes_in_flight_need_the_depth_and_the_block_size():
    assert bytes_in_flight(_job("1M", 16)) == 16 * 1048576
    assert bytes_in_flight(_job(None, 16)) is None
    assert bytes_in_flight(_job("1M", None)) is None


def _collector_fio(read_gbyte_s: float, write_gbyte_s: float) -> bytes:
    text = SAMPLE.read_text(encoding="utf-8")
    base = json.loads(text[text.index("{") : text.rindex("}") + 1])
    report = copy.deepcopy(base)
    report["jobs"] = []
    for name, rw, rate in (
        ("local-nvme-seq-write", "write", write_gbyte_s),
        ("local-nvme-seq-read", "read", read_gbyte_s),
    ):
        job = copy.deepcopy(base["jobs"][0])
        job["jobname"] = name
        job["job options"] = {
            "name": name,
            "filename": "/mnt/nvme/gpu-poc-fio-local-node1.tmp",
            "rw": rw,
            "bs": "1M",
            "size": "1G",
            "runtime": "30",
            "ioengine": "libaio",
            "direct": "1",
            "iodepth": "16",
        }
        per_second = int(rate * 1e9)
        for side in ("read", "write"):
            job[side].update({"bw": 0, "bw_bytes": 0, "io_bytes": 0, "runtime": 0})
        job[rw].update(
            {
                "bw": per_second // 1024,
                "bw_bytes": per_second,
                "io_bytes": per_second * 30,
                "runtime": 30000,
            }
        )
        job["job_runtime"] = 30000
        report["jobs"].append(job)
    report["disk_util"] = [{"name": "nvme0n1", "util": 99.0}]
    return json.dumps(report, indent=2).encode()


def _storage(claimed: tuple[int, int], measured: tuple[float, float]):
    parsed = parse_bytes(_collector_fio(*measured))
    evidence = [NodeEvidence("node1", 1, parsed.kind, parsed.metrics, "fio-local-nvme.json")]
    claims = fleet_claims(
        1, nvme_read_gbyte_s=claimed[0], nvme_write_gbyte_s=claimed[1], nvme_capacity_tib=15
    )
    report = verify_candidate(claims, evidence)
    item = report.items["local_nvme"]
    status = item.status if item.status in ("verified", "contradicted") else "claimed"
    result = api.score_candidate(
        candidate(
            node_count=1,
            offering=offering(
                nvme_read_gbyte_s=Decimal(claimed[0]), nvme_write_gbyte_s=Decimal(claimed[1])
            ),
            measured=measured_facts(report, evidence),
            answers={"local_nvme": status},
        ),
        evaluation(required_total_gpus=8),
        rubric_version="2",
    )
    return item, result.score("storage")


def test_the_collectors_run_refutes_an_inflated_claim_which_then_scores_below_the_honest_one():
    inflated, inflated_score = _storage((25, 20), (3.0, 2.0))
    honest, honest_score = _storage((3, 2), (3.0, 2.0))
    assert inflated.status == "contradicted", inflated.explanation_en
    assert honest.status == "verified", honest.explanation_en
    assert inflated_score < honest_score
