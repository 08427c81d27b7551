"""An Ascend's stability reads its own tool, npu-smi, as an NVIDIA GPU's reads nvidia-smi and the
kernel log (honesty review of the accelerator treatment).

The stability rules on ECC, Xid and DCGM read NVIDIA tools only, and npu-smi output was refused:
an Ascend offering's stability stayed at 22.57 (one 8-card node for inference) whatever its
NPUs showed. npu-smi's current double-bit count now feeds the uncorrected-ECC rule (the same
threshold: none earns the points), and its health states the Xid rules (OK as a clean log;
Warning, Alarm and Critical weighed as the Xid buckets), each citing the npu-smi file. Only a
candidate declared with an Ascend part reads them: npu-smi from another machine says nothing of
an NVIDIA offering. There is no npu-smi counterpart of a DCGM diagnostic: those rules stay
missing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from scoring.evidence import parse_bytes, parse_text
from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.verification import NodeEvidence, measured_facts, verify_candidate
from tests.scoring.scoring_factories import candidate, evaluation, fleet_claims, offering

V2 = load_rubric("2")
SAMPLES = Path(__file__).parent / "evidence" / "samples"
COLLECTION = (
    "npu_smi/mindcluster-faultdiag-npu-info-before-23.0.5-table-health-ecc-board-usages-elided.txt"
)
TABLE_ONLY = "npu_smi/1panel-issue9472-npu-smi-24.1.1-info-prompt-910b4-32g-cut-in-border.txt"
# A complete listing of an Ascend host (8 NPU functions 19e5:d802, no NVIDIA device): the node
# is one of the offering's accelerator nodes (test_ascend_nodes_are_accelerator_nodes).
LSPCI = "lspci/kunpeng-notes-day7-ascend-8x-d802-hi171x-ibmc-vga-lspci-plain-prompt.txt"
ASCEND = "Huawei Ascend 910B"
INFERENCE = evaluation(workload_profile="inference", required_total_gpus=8)
MEASURED_RULES = (
    "stability.measured.ecc_uncorrected",
    "stability.measured.xid_severity",
    "stability.measured.xid_node_share",
)


def _evidence(node: str, path: str, text: str | None = None, upload: int = 1) -> NodeEvidence:
    result = parse_text(text) if text is not None else parse_bytes((SAMPLES / path).read_bytes())
    return NodeEvidence(node, upload, result.kind, result.metrics, Path(path).name, 1)


def _claims(model: str = ASCEND):
    return fleet_claims(1, gpu_model=model, gpu_memory_gib=64, gpu_form_factor="other")


def _measured(evidence, model: str = ASCEND):
    report = verify_candidate(_claims(model), evidence)
    return report, measured_facts(report, evidence)


def _scored(measured=None, model: str = ASCEND):
    item = candidate(
        1,
        node_count=1,
        offering=offering(gpu_model=model, gpu_memory_gib=64, gpu_form_factor="other"),
    )
    if measured is not None:
        item = replace(item, measured=measured)
    result = score_candidate(item, INFERENCE, V2)
    (stability,) = [d for d in result.dimensions if d.dimension == "stability"]
    return result.score("stability"), {c.rule_id: c for c in stability.contributions}


def _alarm(text: str, state: str) -> str:
    row = "| 7     xxx                 | OK     "
    assert row in text
    return text.replace(row, row.replace("OK     ", f"{state:<7}"), 1)


def test_an_ascend_node_healthy_in_npu_smi_earns_the_measured_stability_points():
    evidence = [_evidence("npu-01", COLLECTION), _evidence("npu-01", LSPCI)]
    report, measured = _measured(evidence)
    # No NVIDIA GPU on the node, but its NPUs make it a node of the offering: never set aside.
    assert report.set_aside_nodes == () and report.npu_nodes == ("npu-01",)
    assert (measured.ecc_uncorrected, measured.xid_severity, measured.xid_node_share) == (0, 0, 0)
    before, _ = _scored()
    after, rules = _scored(measured)
    assert (before, after) == (22.57, 43.81)
    for rule_id in MEASURED_RULES:
        found = rules[rule_id]
        assert found.basis == "measured" and found.points == found.max_points
        # The evidence line names the tool: the npu-smi file of the node.
        assert found.evidence_ref == f"upload 1 · npu-01 · npu_smi {Path(COLLECTION).name}"
    # No npu-smi output is a DCGM diagnostic: those rules stay missing.
    assert rules["stability.measured.dcgm_overall"].basis == "missing"


def test_ecc_counts_only_where_npu_smi_printed_them():
    _, measured = _measured([_evidence("npu-01", TABLE_ONLY)])
    assert measured.ecc_uncorrected is None and measured.xid_severity == 0


@pytest.mark.parametrize(
    ("state", "severity", "xid_points", "share_points"),
    [("Warning", 0.5, 3.0, 0.0), ("Alarm", 1.0, 3.0, 0.0), ("Critical", 1.0, 3.0, 0.0)],
)
def test_an_unhealthy_npu_weighs_as_an_xid_and_never_below_no_evidence(
    state, severity, xid_points, share_points
):
    text = _alarm((SAMPLES / COLLECTION).read_text("utf-8"), state)
    _, measured = _measured([_evidence("npu-01", COLLECTION, text)])
    assert measured.xid_severity == severity and measured.xid_nodes == 1
    score, rules = _scored(measured)
    assert rules["stability.measured.xid_severity"].points == xid_points
    assert rules["stability.measured.xid_node_share"].points == share_points
    assert rules["stability.measured.xid_severity"].evidence_ref.endswith(f"NPU 7 chip 0 {state}")
    healthy, _ = _scored(_measured([_evidence("npu-01", COLLECTION)])[1])
    unmeasured, _ = _scored()
    # Measuring never hurts: a bad reading scores at least what no reading does.
    assert unmeasured <= score < healthy


def test_an_uncorrectable_ecc_error_costs_the_points_as_on_nvidia():
    text = (SAMPLES / COLLECTION).read_text("utf-8")
    old = "HBM Double Bit Error Count               : 0"
    _, measured = _measured([_evidence("npu-01", COLLECTION, text.replace(old, old[:-1] + "3"))])
    assert measured.ecc_uncorrected == 3
    _, ascend = _scored(measured)
    # The same count read from nvidia-smi on an H100 earns the same (none).
    _, h100 = _scored(replace(measured, evidence_refs={}), "NVIDIA H100 SXM5 80GB")
    rule = "stability.measured.ecc_uncorrected"
    assert ascend[rule].points == h100[rule].points == 0.0


def test_npu_smi_says_nothing_of_an_nvidia_offering():
    evidence = [_evidence("npu-01", COLLECTION)]
    report, measured = _measured(evidence, "NVIDIA H100 SXM5 80GB")
    assert report.npu_nodes == ()
    assert (measured.ecc_uncorrected, measured.xid_severity) == (None, None)


def test_the_worst_node_decides_across_npu_smi_and_nodes():
    text = _alarm((SAMPLES / COLLECTION).read_text("utf-8"), "Alarm")
    evidence = [
        _evidence("npu-01", COLLECTION),
        _evidence("npu-02", COLLECTION, text, upload=2),
        _evidence("npu-02", TABLE_ONLY, upload=2),  # one node's two files: the heavier counts
    ]
    report = verify_candidate(replace(_claims(), node_count=2), evidence)
    measured = measured_facts(report, evidence)
    assert measured.xid_severity == 1.0 and measured.xid_nodes == 1
    assert measured.xid_node_share == 0.5
    assert "npu-02" in measured.evidence_refs["xid_severity"]
