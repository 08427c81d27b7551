"""The Blackwell memory repair rows of ``nvidia-smi -q`` (driver 580/595: "Channel Repair
Pending", "TPC Repair Pending", "Unrepairable Memory", and "SRAM Threshold Exceeded" under
"Aggregate"), from the parser to the stability score.

The real outputs behind these tests all read "No" or "N/A": no public output with "Yes" in one
of these rows was found (only people describing one in prose). The "Yes" cases therefore take
the real driver-595 sample and change exactly one row from No to Yes (``one_row``), which is
said at each test; nothing else of the output is invented.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from scoring.api import score_candidate
from scoring.evidence import parse_bytes, parse_text
from scoring.types import MeasuredFacts
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate
from tests.scoring.scoring_factories import candidate, evaluation

SAMPLES = Path(__file__).parent / "samples" / "nvidia_smi_query"
# Real: RTX PRO 6000 Blackwell Server Edition, 'nvidia-smi -q -d ECC', driver 595.58.03.
DRIVER595 = "kr-blog-q-d-ecc-driver595-rtxpro6000-1-of-4-shown-author-note.txt"
# Real: RTX 5080 Laptop (Blackwell), driver 580.173.02: "Unrepairable Memory : N/A".
LAPTOP_5080 = "kr-isaac-notes-rtx5080-laptop-blackwell-q-driver580-unrepairable-na-remapped-na.txt"
# Real: RTX 3090 Ti in a VM, driver 580.142: channel/TPC rows, no "Unrepairable Memory" row.
AMPERE_580 = "nix-notes-rtx3090ti-vm-q-driver580-channel-tpc-repair-no-without-unrepairable-row.txt"
# Real: the same node's GPU 1 after an Xid 48, 'nvidia-smi -i 1 -q -d ECC' as its author cut it
# (no GPU header, sections at column 0): DRAM Uncorrectable 2, Channel Repair Pending / Unrepairable
# Memory No.
XID48_EXCERPT = (
    "kr-blog-q-d-ecc-i1-rtxpro6000-dram-uncorrectable-2-"
    "repair-rows-no-author-excerpt-unindented.txt"
)
# Real, old layout: A100 under driver 510, Remapped Rows (Pending: Yes) and none of the new rows.
A100_REMAP = "mlengineering-a100-q-ecc-remapped-rows-xid63.txt"
NEW_METRICS = ("memory_unrepairable", "memory_repair_pending", "sram_threshold_exceeded")
MEMORY_FAULTS = {"remapped_rows_pending", "remapped_rows_failure"}
NODE = "gpu-node-a"


def text(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def one_row(name: str, label: str, new: str) -> str:
    """The real sample ``name`` with the value of its one row ``label`` replaced by ``new``."""
    pattern = re.compile(rf"(?m)^(\s+{re.escape(label)}\s+: )No$")
    changed, count = pattern.subn(lambda m: m.group(1) + new, text(name))
    assert count == 1, (label, count)
    return changed


def evidence(raw: str, source: str = DRIVER595) -> NodeEvidence:
    result = parse_text(raw, "nvidia_smi_query")
    return NodeEvidence(NODE, 7, result.kind, result.metrics, source, None)


def claims() -> Claims:
    return Claims(gpu_model="RTX PRO 6000", gpus_per_node=4, gpu_memory_gib=96, node_count=1)


def facts_and_faults(ev: NodeEvidence) -> tuple[MeasuredFacts, list]:
    report = verify_candidate(claims(), [ev])
    memory = [f for f in report.faults if f.kind in MEMORY_FAULTS]
    return measured_facts(report, [ev]), memory


def stability(facts: MeasuredFacts) -> float:
    scored = score_candidate(replace(candidate(), measured=facts), evaluation(), rubric_version="2")
    return scored.score("stability")


def with_metrics(ev: NodeEvidence, **metrics: object) -> NodeEvidence:
    return replace(ev, metrics={**ev.metrics, **metrics})


# -- the parser, on the real outputs -------------------------------------------------------


def test_driver595_ecc_output_reads_every_repair_row_as_no() -> None:
    m = parse_bytes((SAMPLES / DRIVER595).read_bytes()).metrics
    assert [m[k] for k in NEW_METRICS] == [False, False, False]
    gpu = m["gpus"][0]
    assert (gpu["channel_repair_pending"], gpu["tpc_repair_pending"]) == (False, False)
    # -q -d ECC prints no Remapped Rows section: those stay unknown.
    assert (m["remapped_rows_pending"], m["remapped_rows_failure"]) == (None, None)


def test_blackwell_laptop_unrepairable_memory_na_is_not_shown() -> None:
    m = parse_bytes((SAMPLES / LAPTOP_5080).read_bytes()).metrics
    assert m["product_names"] == ["NVIDIA GeForce RTX 5080 Laptop GPU"]
    assert m["memory_repair_pending"] is False
    assert (m["memory_unrepairable"], m["sram_threshold_exceeded"]) == (None, None)
    assert (m["remapped_rows_pending"], m["remapped_rows_failure"]) == (None, None)


def test_driver580_without_the_unrepairable_row_reads_the_rows_it_prints() -> None:
    m = parse_bytes((SAMPLES / AMPERE_580).read_bytes()).metrics
    assert (m["memory_repair_pending"], m["memory_unrepairable"]) == (False, None)
    assert m["sram_threshold_exceeded"] is None  # "N/A": ECC is disabled
    assert (m["remapped_rows_pending"], m["remapped_rows_failure"]) == (False, False)


def test_an_unindented_ecc_excerpt_after_an_xid48_reads_as_one_gpu() -> None:
    result = parse_bytes((SAMPLES / XID48_EXCERPT).read_bytes())
    m = result.metrics
    assert (m["gpus_shown"], m["gpu_count"]) == (1, None)
    assert (m["ecc_volatile_uncorrected"], m["ecc_aggregate_uncorrected"]) == (2, 2)
    assert (m["memory_repair_pending"], m["memory_unrepairable"]) == (False, False)
    assert m["gpus"][0]["tpc_repair_pending"] is None  # the author left the TPC row out
    assert "line 3: GPU values without a 'GPU <bus id>' header" in result.warnings


def test_the_xid48_node_has_an_ecc_fault_but_no_repair_fault() -> None:
    facts, faults = facts_and_faults(evidence(text(XID48_EXCERPT), XID48_EXCERPT))
    assert faults == []
    assert (facts.ecc_uncorrected, facts.remapped_rows_pending, facts.remapped_rows_failure) == (
        2,
        0,
        0,
    )
    report = verify_candidate(claims(), [evidence(text(XID48_EXCERPT), XID48_EXCERPT)])
    ecc = [f for f in report.faults if f.kind == "ecc_uncorrected"]
    assert len(ecc) == 1 and NODE in ecc[0].explanation_en


def test_an_old_layout_with_remapped_rows_only_leaves_the_new_metrics_unknown() -> None:
    m = parse_bytes((SAMPLES / A100_REMAP).read_bytes()).metrics
    assert [m[k] for k in NEW_METRICS] == [None, None, None]
    assert m["remapped_rows_pending"] is True


@pytest.mark.parametrize(
    ("label", "metric"),
    [
        ("Unrepairable Memory", "memory_unrepairable"),
        ("Channel Repair Pending", "memory_repair_pending"),
        ("TPC Repair Pending", "memory_repair_pending"),
        ("SRAM Threshold Exceeded", "sram_threshold_exceeded"),
    ],
)
def test_a_yes_in_one_row_sets_its_metric_and_only_it(label: str, metric: str) -> None:
    # The real driver-595 sample with exactly this one row changed from No to Yes.
    result = parse_text(one_row(DRIVER595, label, "Yes"), "nvidia_smi_query")
    m = result.metrics
    assert m[metric] is True
    assert [k for k in NEW_METRICS if m[k]] == [metric]
    clean = parse_text(text(DRIVER595), "nvidia_smi_query")
    assert len(result.warnings) == len(clean.warnings) + 1


def test_gpu_requires_reset_in_place_of_a_value_is_no_answer_and_a_warning() -> None:
    # The real driver-595 sample with one row changed from No to "GPU requires reset", the
    # value people quote from wedged cards ("Channel Repair Pending: GPU requires reset").
    result = parse_text(
        one_row(DRIVER595, "Channel Repair Pending", "GPU requires reset"), "nvidia_smi_query"
    )
    assert result.metrics["gpus"][0]["channel_repair_pending"] is None
    assert result.metrics["memory_repair_pending"] is False  # TPC Repair Pending still says No
    assert any(
        "'GPU requires reset' in place of channel repair pending" in w for w in result.warnings
    )


# -- verification and scoring ----------------------------------------------------------------


def test_driver595_no_sample_raises_no_fault_and_measures_nothing_wrong() -> None:
    facts, faults = facts_and_faults(evidence(text(DRIVER595)))
    assert faults == []
    assert (facts.remapped_rows_pending, facts.remapped_rows_failure) == (0, 0)
    assert DRIVER595 in facts.ref("remapped_rows_failure")


@pytest.mark.parametrize(
    "label", ["Unrepairable Memory", "SRAM Threshold Exceeded"], ids=["unrepairable", "sram"]
)
def test_a_replacement_row_counts_exactly_like_a_row_remapping_failure(label: str) -> None:
    # The real driver-595 sample with exactly this one row changed from No to Yes.
    flagged = evidence(one_row(DRIVER595, label, "Yes"))
    facts, faults = facts_and_faults(flagged)
    assert [f.kind for f in faults] == ["remapped_rows_failure"]
    fault = faults[0]
    assert NODE in fault.explanation_en and f"{label}: Yes" in fault.explanation_en
    assert NODE in fault.explanation_zh and f"{label}: Yes" in fault.explanation_zh
    assert "replaced" in fault.explanation_en and "更换" in fault.explanation_zh
    assert facts.remapped_rows_failure == 1
    # The same clean output with a remapping failure instead: the same facts, the same score.
    remap_failure = with_metrics(evidence(text(DRIVER595)), remapped_rows_failure=True)
    remap_facts, _ = facts_and_faults(remap_failure)
    assert remap_facts == facts
    clean, _ = facts_and_faults(evidence(text(DRIVER595)))
    assert stability(facts) == stability(remap_facts) < stability(clean)


@pytest.mark.parametrize(
    "label", ["Channel Repair Pending", "TPC Repair Pending"], ids=["channel", "tpc"]
)
def test_a_pending_repair_counts_exactly_like_a_pending_row_remap(label: str) -> None:
    # The real driver-595 sample with exactly this one row changed from No to Yes.
    facts, faults = facts_and_faults(evidence(one_row(DRIVER595, label, "Yes")))
    assert [f.kind for f in faults] == ["remapped_rows_pending"]
    fault = faults[0]
    assert NODE in fault.explanation_en and f"({label}: Yes)" in fault.explanation_en
    assert NODE in fault.explanation_zh and f"（{label}: Yes）" in fault.explanation_zh
    assert "reset" in fault.explanation_en and "重置" in fault.explanation_zh
    assert facts.remapped_rows_pending == 1 and facts.remapped_rows_failure == 0
    remap_pending = with_metrics(evidence(text(DRIVER595)), remapped_rows_pending=True)
    pending_facts, _ = facts_and_faults(remap_pending)
    assert pending_facts == facts
    clean, _ = facts_and_faults(evidence(text(DRIVER595)))
    assert stability(facts) == stability(pending_facts) < stability(clean)


def test_the_old_layout_scores_as_it_did_before_the_repair_rows_were_read() -> None:
    ev = evidence(text(A100_REMAP), A100_REMAP)
    facts, faults = facts_and_faults(ev)
    # What verification saw before: the same metrics without the three new ones.
    before = replace(ev, metrics={k: v for k, v in ev.metrics.items() if k not in NEW_METRICS})
    old_facts, old_faults = facts_and_faults(before)
    assert facts == old_facts and facts.remapped_rows_pending == 1
    assert [f.explanation_en for f in faults] == [f.explanation_en for f in old_faults]
    assert "Remapped Rows, Pending: Yes" in faults[0].explanation_en
