"""Wrong nccl-tests results in any table of a file reach every reader: the health fault, the
busbw check and the POC (scoring/verification/health.py, network/, scoring/poc/).

A file of several runs (a script appending each run to one log) used to be judged by its first
table only: a clean first run hid a later one whose results were corrupt."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from scoring import poc
from scoring.evidence import parse_bytes
from scoring.poc import PlanSpec, PocEvidence
from scoring.verification import Claims, NodeEvidence, verify_candidate

SAMPLES = Path(__file__).parent / "evidence" / "samples" / "nccl_tests"
CJK = re.compile(r"[\u4e00-\u9fff]")
# A clean all_reduce on 2x RTX 2080 Ti ("0 OK", 41 lines), then a real run whose every row
# counts wrong values ("108 FAILED", its first row on line 11 of its own file).
CLEAN = "autodl-2x2080ti-pcie-container.txt"
WRONG = "rtx3090-2node-inc-wrong-results-g-format-108-failed.txt"
CLAIMS = Claims(
    gpu_model="RTX 2080 Ti",
    gpus_per_node=2,
    gpu_memory_gib=11,
    gpu_form_factor="pcie",
    nvlink_topology="none",
    fabric="roce",
    fabric_rate_gbit_s=400,
    nics_per_node=8,
    node_count=1,
    logical_cpus_per_node=None,
)


def metrics(*names: str) -> dict:
    result = parse_bytes(b"".join((SAMPLES / name).read_bytes() for name in names))
    assert result.kind == "nccl_tests"
    return dict(result.metrics)


def node(*names: str) -> NodeEvidence:
    return NodeEvidence("gpu-01", 1, "nccl_tests", metrics(*names), "nccl.log", None)


def test_health_fault_names_the_later_table_and_its_line() -> None:
    report = verify_candidate(CLAIMS, [node(CLEAN, WRONG)])
    (fault,) = [f for f in report.faults if f.kind == "nccl_wrong_results"]
    assert fault.details["out_of_bounds"] == 108
    assert fault.details["wrong_total"] > 2 * 268435000
    assert fault.details["wrong_line"] == 41 + 11
    assert fault.evidence_ref == "gpu-01: nccl.log line 52 (upload 1)"
    assert "returned wrong results" in fault.explanation_en
    assert CJK.search(fault.explanation_zh)


def test_busbw_of_a_file_with_a_corrupt_later_run_is_not_used() -> None:
    clean = verify_candidate(CLAIMS, [node(CLEAN)])
    assert clean.busbw_fraction is not None  # the first table alone is usable...
    assert not [f for f in clean.faults if f.kind == "nccl_wrong_results"]
    report = verify_candidate(CLAIMS, [node(CLEAN, WRONG)])
    assert report.busbw_fraction is None  # ...not once a later run in its file is corrupt
    assert "wrong results" in report.busbw.explanation_en
    # The set-aside run is cited at its first wrong result, as the health fault is.
    assert "nccl.log line 52 (upload 1): wrong results" in report.busbw.explanation_en


def test_poc_run_fails_on_wrong_results_in_a_later_table() -> None:
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    spec = PlanSpec("inference", 8, 8, node_count=1, all_nodes_max=1, sample_size=1)
    runs = [r for r in poc.required_runs(spec, ["gpu01"]) if r.kind == poc.NCCL_ONE_NODE]
    assert runs
    command = "./build/all_reduce_perf -b 8 -e 1024M -f 2 -g2"

    def coverage(*names: str) -> poc.RunCoverage:
        e = PocEvidence("gpu01", 7, "nccl_tests", metrics(*names), "nccl.log", command)
        found = poc.coverage(runs, [e], deadline=now + timedelta(days=1), now=now)
        return found.runs[0]

    assert coverage(CLEAN).status == poc.COVERED
    run = coverage(CLEAN, WRONG)
    assert run.status == poc.FAILED
    assert run.note_code == poc.NOTE_NCCL_WRONG
    assert run.note.startswith("nccl-tests reported 1.07374e+09 wrong results")


def test_poc_run_fails_on_a_table_that_only_says_failed() -> None:
    # An old table (an "error" deviation column, as issue37's) counts nothing per row: the
    # tool's "Out of bounds values : 2 FAILED" is the verdict, as for the health fault.
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    spec = PlanSpec("inference", 8, 8, node_count=1, all_nodes_max=1, sample_size=1)
    runs = [r for r in poc.required_runs(spec, ["gpu01"]) if r.kind == poc.NCCL_ONE_NODE]
    failed = {"collective": "all_reduce", "out_of_bounds": 2, "out_of_bounds_ok": False}
    e = PocEvidence("gpu01", 7, "nccl_tests", failed, "nccl.log", "all_reduce_perf -g 8")
    (run,) = poc.coverage(runs, [e], deadline=now + timedelta(days=1), now=now).runs
    assert (run.status, run.note) == (poc.FAILED, "nccl-tests reported 2 wrong results")
