"""GPU memory health read from nvidia-smi -q -x as from -q: uncorrectable ECC errors and
pending or failed row remaps are health faults and measured facts, referenced to the file; a
node reported by two tools counts once; a GPU that does not report remapped rows (before
Ampere) is not taken as "none pending"."""

from __future__ import annotations

from pathlib import Path

from scoring.evidence import parse_bytes
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate
from scoring.verification.health import health_faults

SAMPLES = Path(__file__).parent / "evidence" / "samples"
L4_XML = "nvidia_smi_xml/go-exporter-2x-l4-driver555-cut-after-remapped-rows.xml.txt"
PASCAL_XML = "nvidia_smi_xml/csharp-monitor-quadro-p620-driver515-gpu-block-duplicated.xml.txt"
ECC_Q = "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt"


def _evidence(text: str, source: str, node: str = "gpu-01", upload: int = 7) -> NodeEvidence:
    result = parse_bytes(text.encode())
    return NodeEvidence(node, upload, result.kind, result.metrics, source, None)


def _l4() -> str:
    """The real L4 report, cut inside its first GPU's temperature, closed after it: one
    complete GPU with every memory health row."""
    text = (SAMPLES / L4_XML).read_text().rstrip()
    return text + "\n        </temperature>\n    </gpu>\n</nvidia_smi_log>\n"


def _faulty_l4(dram_uncorrectable: int = 3, pending: str = "Yes", failure: str = "No") -> str:
    text = _l4()
    volatile = text.index("<volatile>")
    text = text[:volatile] + text[volatile:].replace(
        "<dram_uncorrectable>0</dram_uncorrectable>",
        f"<dram_uncorrectable>{dram_uncorrectable}</dram_uncorrectable>",
        1,
    )
    text = text.replace(
        "<remapped_row_pending>No</remapped_row_pending>",
        f"<remapped_row_pending>{pending}</remapped_row_pending>",
    )
    return text.replace(
        "<remapped_row_failure>No</remapped_row_failure>",
        f"<remapped_row_failure>{failure}</remapped_row_failure>",
    )


def _facts(evidence: list[NodeEvidence]):
    claims = Claims(gpu_model="L4", gpus_per_node=1, gpu_memory_gib=24, node_count=1)
    return measured_facts(verify_candidate(claims, evidence), evidence)


def test_xml_ecc_errors_and_a_pending_remap_are_faults_and_facts():
    xml = _evidence(_faulty_l4(), "nvidia-smi-q.xml")
    assert xml.kind == "nvidia_smi_xml"
    assert xml.metrics["ecc_volatile_uncorrected"] == 3
    faults = {f.kind: f for f in health_faults([xml])}
    assert {"ecc_uncorrected", "remapped_rows_pending"} <= set(faults)
    assert "remapped_rows_failure" not in faults
    assert faults["ecc_uncorrected"].evidence_ref == xml.ref
    facts = _facts([xml])
    assert (facts.ecc_uncorrected, facts.remapped_rows_pending) == (3, 1)
    assert facts.remapped_rows_failure == 0
    for name in ("ecc_uncorrected", "remapped_rows_pending", "remapped_rows_failure"):
        assert "nvidia_smi_xml nvidia-smi-q.xml" in facts.ref(name)


def test_a_clean_xml_is_a_good_finding_not_nothing():
    xml = _evidence(_l4(), "nvidia-smi-q.xml")
    assert xml.metrics["gpu_count"] == 1
    assert not [f for f in health_faults([xml]) if f.kind.startswith(("ecc", "remapped"))]
    facts = _facts([xml])
    assert (facts.ecc_uncorrected, facts.remapped_rows_pending) == (0, 0)
    assert facts.ref("ecc_uncorrected")


def test_a_gpu_without_remapped_rows_is_not_read_as_none_pending():
    xml = _evidence((SAMPLES / PASCAL_XML).read_text(), "old.xml")
    assert xml.metrics["remapped_rows_pending"] is None
    assert xml.metrics["remapped_rows_failure"] is None
    facts = _facts([xml])
    assert facts.remapped_rows_pending is None
    assert facts.remapped_rows_failure is None


def test_two_tools_on_one_node_count_its_errors_once_and_nodes_add_up():
    one = _evidence(_faulty_l4(dram_uncorrectable=2), "q.xml", node="gpu-01")
    same_node = _evidence(_faulty_l4(dram_uncorrectable=2), "again.xml", node="gpu-01", upload=8)
    other = _evidence(_faulty_l4(dram_uncorrectable=5), "q.xml", node="gpu-02", upload=9)
    facts = _facts([one, same_node, other])
    assert facts.ecc_uncorrected == 7  # 2 on gpu-01 (reported twice), 5 on gpu-02
    assert facts.remapped_rows_pending == 2  # nodes, not files


def test_the_text_report_and_the_xml_agree_on_a_node():
    text_q = parse_bytes((SAMPLES / ECC_Q).read_bytes())
    q = NodeEvidence("gpu-01", 7, text_q.kind, text_q.metrics, "q.txt", None)
    count = q.metrics["ecc_volatile_uncorrected"]
    xml = _evidence(_faulty_l4(dram_uncorrectable=count), "q.xml", upload=8)
    assert _facts([q]).ecc_uncorrected == _facts([q, xml]).ecc_uncorrected == count
