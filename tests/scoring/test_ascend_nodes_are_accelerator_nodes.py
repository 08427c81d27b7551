"""An Ascend candidate's nodes are its accelerator nodes: never set aside for showing no NVIDIA GPU,
judged as a GPU node is, and checklist item 1 read from npu-smi.

Before, every node of a candidate declared with a Huawei Ascend part was set aside as "not from
a GPU node of this offering" (it shows no NVIDIA GPU): its lspci, DMI and virtualisation signs
never reached the bare-metal verdict (an Ascend NPU passed through to a kata VM left the
delivery "uncertain"), and item 1 (GPU model, count and memory) stayed unverifiable although
npu-smi counts the NPUs and names them. A node with neither an NVIDIA GPU nor an NPU (a laptop,
a KVM guest) is still set aside, for Ascend and NVIDIA candidates alike, and npu-smi never keeps
a node of an NVIDIA candidate.

Samples (provenance in evidence/samples/PROVENANCE.tsv): a Kunpeng host's complete lspci with 8
Ascend functions 19e5:d802; the lspci of a kata VM given one of them; a complete npu-smi 23.0.rc3
table of 8 x 910B4 (32 GB); cut tables of Atlas A3 nodes ("Ascend910", two chips per NPU) and of
910B3 nodes; an Atlas 800I A2's DMI; the dev machine's KVM guest outputs; an HGX H100 host.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from scoring.evidence import parse_text, registry
from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.verification import Claims, NodeEvidence, facts, verify_candidate
from tests.scoring.scoring_factories import candidate, evaluation, offering

SAMPLES = Path(__file__).parent / "evidence" / "samples"
CJK = re.compile(r"[\u4e00-\u9fff]")

ASCEND_LSPCI = "lspci/kunpeng-notes-day7-ascend-8x-d802-hi171x-ibmc-vga-lspci-plain-prompt.txt"
KATA_VM_LSPCI = (
    "lspci/kata-ascend-npu-doc-kata-vm-one-d802-passed-through-qemu-virtio-lspci-arrow-note.txt"
)
TABLE_910B4 = "npu_smi/kata-ascend-npu-doc-npu-smi-23.0.rc3-info-8x-910b4-32g-complete-prompt.txt"
TABLE_910B3_CUT = "npu_smi/vllm-ascend-issue1130-npu-smi-info-no-banner-910b3-cut-in-npu3-row.txt"
TABLE_A3_CUT = "npu_smi/modelengine-ucm-issue748-npu-smi-25.2.1-a3-no-top-border-cut.txt"
ATLAS_DMI = (
    "dmi/llm-action-kylin-v10-huawei-atlas-a800i-a2-dmidecode3.2-t-system-oem-placeholders.txt"
)
ASCEND_NODE = (ASCEND_LSPCI, TABLE_910B4, ATLAS_DMI)
KVM_GUEST = (
    "lspci/devmachine-kvm-lspci.txt",
    "cpu_info/devmachine-kvm-lscpu-new-layout.txt",
    "virt/devmachine-systemd-detect-virt-vm-kvm.txt",
)
GPU_NODE = (
    "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
    "nvidia_smi/thamada-hgx-h100x8-driver565-cuda127-table.txt",
    "dmi/dgx1-v100-physical-dmidecode-t1.txt",
)
PER_NODE_ITEMS = ("gpu_match", "nvlink_topology", "fabric", "local_nvme", "distributed_storage")

ASCEND = Claims(gpu_model="Huawei Ascend 910B", gpus_per_node=8, gpu_memory_gib=32, node_count=1)
H100 = Claims(gpu_model="H100 SXM5 80GB", gpus_per_node=8, gpu_memory_gib=80, node_count=2)
NVIDIA_NOTE_EN = "Node {} shows no NVIDIA GPU: its evidence is set aside as not from a GPU node"
NPU_NOTE_EN = (
    "Node {} shows no Huawei Ascend NPU (npu-smi, lspci) and no NVIDIA GPU: its evidence is set "
    "aside as not from an accelerator node of this offering."
)
NPU_NOTE_ZH = (
    "节点 {} 未显示任何华为昇腾 NPU（npu-smi、lspci），也未显示 NVIDIA GPU："
    "其证据不属于该方案的加速卡节点，已搁置。"
)


def _evidence(node: str, paths: tuple[str, ...], upload: int = 1) -> list[NodeEvidence]:
    evidence = []
    for path in paths:
        text = (SAMPLES / path).read_text(encoding="utf-8")
        kind = registry.detect_kind(text)
        assert kind == path.split("/")[0], path
        result = registry.parse_text(text, kind)
        evidence.append(NodeEvidence(node, upload, kind, result.metrics, path))
    return evidence


def _table(node: str, text: str, source: str, upload: int = 1) -> NodeEvidence:
    result = parse_text(text)
    assert result.kind == "npu_smi"
    return NodeEvidence(node, upload, "npu_smi", result.metrics, source)


def _a3_complete() -> str:
    """The Atlas A3 table of ModelEngine issue 748, cut inside the border after NPU 1's first
    chip, completed with NPU 1's second chip as vllm-ascend issue 2082 prints it for the same
    server model (chip 1, physical id 3, bus 9B) and the closing border: 2 NPUs, 4 chips."""
    text = (SAMPLES / TABLE_A3_CUT).read_text(encoding="utf-8").rstrip("\n")
    lines = text.split("\n")
    border = lines[-1]
    assert border.startswith("+----") and not border.endswith("+")
    width = len(lines[-2])
    rows = [
        "| 1     Ascend910           | OK            | -           36                0    / 0"
        "             |",
        "| 1     3                   | 0000:9B:00.0  | 0           0    / 0          3193 / 65536"
        "         |",
    ]
    closing = "+" + "=" * (width - 2) + "+"
    return "\n".join([*lines[:-1], "+" + "-" * (width - 2) + "+", *rows, closing]) + "\n"


# --- the nodes kept and set aside ------------------------------------------------------------


def test_an_ascend_host_is_kept_and_its_evidence_judged_as_a_gpu_nodes() -> None:
    evidence = _evidence("npu-01", ASCEND_NODE)
    report = verify_candidate(ASCEND, evidence)
    # Before: set_aside_nodes == ("npu-01",) and the bare-metal verdict had no signal at all.
    assert report.set_aside_nodes == () and report.npu_nodes == ("npu-01",)
    assert [(s.name, s.points_to, s.node_name) for s in report.bare_metal.signals] == [
        ("dmi_product", "bare_metal", "npu-01")
    ]
    assert "A800I A2" in report.bare_metal.explanation_en
    for key in PER_NODE_ITEMS:
        assert "set aside" not in report.items[key].explanation_en, key
        assert "set_aside_nodes" not in (report.items[key].details or {}), key


def test_an_ascend_npu_in_a_vm_makes_the_delivery_virtualised() -> None:
    # A kata VM's lspci: QEMU and virtio devices beside the NPU passed through (19e5:d802).
    evidence = _evidence("npu-vm", (KATA_VM_LSPCI,))
    assert evidence[0].metrics["ascend_functions"] == 1
    report = verify_candidate(ASCEND, evidence)
    # Before: set aside, "uncertain" with confidence 0, and a bare-metal claim stood unchallenged.
    assert report.set_aside_nodes == ()
    assert (report.bare_metal.verdict, report.bare_metal.confidence) == ("virtualised", 0.85)
    measured = facts.measured_facts(report, evidence)
    assert measured.delivery_form_seen == "virtualised"
    # Without npu-smi the NPUs are not counted: item 1 says so, it does not count lspci's 0 GPUs.
    item = report.items["gpu_match"]
    assert item.status == "unverifiable"
    assert "lists 1 Huawei Ascend PCI function(s)" in item.explanation_en
    assert "upload 'npu-smi info'" in item.explanation_en
    assert "华为昇腾 PCI 功能" in item.explanation_zh and "npu-smi info" in item.explanation_zh


def test_an_ascend_hosts_network_links_and_drives_are_judged() -> None:
    paths = (
        *ASCEND_NODE,
        "ibstat/gpud-h100-roce-cx7-some-down-polling.txt",  # two RoCE ports down
        "fio/fio333-seqread-normal-json.txt",  # buffered I/O: no verdict on the drive
    )
    evidence = _evidence("npu-01", paths)
    claims = replace(
        ASCEND, fabric="roce", fabric_rate_gbit_s=400, nics_per_node=8, nvme_read_gbyte_s=0.5
    )
    report = verify_candidate(claims, evidence)
    # Before: both items "unverifiable", the node set aside, no fault.
    assert report.items["fabric"].status == "verified"
    assert report.items["fabric"].explanation_en.startswith("ibstat on node npu-01 shows the 8")
    assert [(f.kind, f.node_name) for f in report.faults] == [("port_down", "npu-01")] * 2
    assert "npu-01" in report.items["local_nvme"].details["nodes"]
    assert report.items["local_nvme"].explanation_en.startswith("fio on node npu-01: read")
    measured = facts.measured_facts(report, evidence)
    assert (measured.ib_ports_down, measured.ib_rate_gbit_s_min) == (2, 400.0)


def test_a_machine_without_gpu_or_npu_is_still_set_aside_for_an_ascend_candidate() -> None:
    evidence = _evidence("npu-01", ASCEND_NODE) + _evidence("laptop", KVM_GUEST, 2)
    report = verify_candidate(replace(ASCEND, node_count=2), evidence)
    alone = verify_candidate(replace(ASCEND, node_count=2), _evidence("npu-01", ASCEND_NODE))
    assert report.set_aside_nodes == ("laptop",) and report.npu_nodes == ("npu-01",)
    assert report.bare_metal.signals == alone.bare_metal.signals
    assert NPU_NOTE_EN.format("laptop") in report.bare_metal.explanation_en
    assert NPU_NOTE_ZH.format("laptop") in report.bare_metal.explanation_zh
    for key in PER_NODE_ITEMS:
        item = report.items[key]
        assert item.status == alone.items[key].status, key
        assert item.details["set_aside_nodes"] == ["laptop"]
        assert NPU_NOTE_EN.format("laptop") in item.explanation_en
        assert NPU_NOTE_ZH.format("laptop") in item.explanation_zh
        assert "shows no NVIDIA GPU: its evidence" not in item.explanation_en
    assert report.items["gpu_match"].status == "verified"
    assert facts.measured_facts(report, evidence) == facts.measured_facts(
        alone, _evidence("npu-01", ASCEND_NODE)
    )


def test_npu_smi_never_keeps_a_node_of_an_nvidia_candidate() -> None:
    gpu = _evidence("hgx-h100-node-01", GPU_NODE)
    npu = _evidence("npu-01", ASCEND_NODE, 2)
    report, alone = verify_candidate(H100, gpu + npu), verify_candidate(H100, gpu)
    assert report.set_aside_nodes == ("npu-01",) and report.npu_nodes == ()
    assert report.bare_metal.signals == alone.bare_metal.signals
    assert NVIDIA_NOTE_EN.format("npu-01") in report.bare_metal.explanation_en
    assert "Ascend" not in report.bare_metal.explanation_en
    for key in PER_NODE_ITEMS:
        assert report.items[key].status == alone.items[key].status, key
        assert "npu-01" not in (report.items[key].details.get("nodes") or {}), key
    assert report.items["gpu_match"].status == "verified"
    assert facts.measured_facts(report, gpu + npu) == facts.measured_facts(alone, gpu)


def test_an_ascend_candidate_with_only_a_laptop_is_judged_on_nothing() -> None:
    evidence = _evidence("laptop", KVM_GUEST)
    report = verify_candidate(ASCEND, evidence)
    assert report.set_aside_nodes == ("laptop",) and report.npu_nodes == ()
    assert report.bare_metal.verdict == "uncertain" and report.bare_metal.signals == ()
    item = report.items["gpu_match"]
    assert item.status == "unverifiable"
    assert item.explanation_en.startswith("No npu-smi device table")
    assert NPU_NOTE_EN.format("laptop") in item.explanation_en


# --- checklist item 1 from npu-smi --------------------------------------------------------------


def test_item_1_is_verified_from_npu_smi_naming_the_node_and_file_in_both_languages() -> None:
    evidence = _evidence("npu-01", ASCEND_NODE)
    item = verify_candidate(ASCEND, evidence).items["gpu_match"]
    # Before: "unverifiable", "No nvidia-smi, lspci or topology output was uploaded".
    assert item.status == "verified"
    npu_smi = next(e for e in evidence if e.kind == "npu_smi")
    assert item.evidence_ref == npu_smi.ref
    assert item.explanation_en == (
        f"Measured 8 × 910B4, 32768 MB HBM per NPU on node npu-01 (npu-smi {npu_smi.ref}) "
        "matches the claim 8 × Huawei Ascend 910B 32 GB (NPUs counted, not chips; memory "
        "tolerance 5 %)."
    )
    assert "npu-01" in item.explanation_zh and npu_smi.source in item.explanation_zh
    assert "实测 8 × 910B4" in item.explanation_zh and "相符" in item.explanation_zh
    assert dict(item.details["nodes"]["npu-01"]) == {
        "status": "verified",
        "gpu_count": 8,
        "gpu_count_partial": None,
        "gpu_names": ["910B4"],
        "memory_gib": 32.0,
        "memory_mib": 32768.0,
        "npu_chip_count": 8,
        "source": "npu_smi",
    }


@pytest.mark.parametrize(
    ("claims", "why_en", "why_zh"),
    [
        (
            replace(ASCEND, gpu_model="Huawei Ascend 910C"),
            "npu-smi names the NPU 910B4 (the 910B family), not the claimed Huawei Ascend 910C",
            "npu-smi 显示 NPU 为 910B4（910B 系列），并非声明的 Huawei Ascend 910C",
        ),
        (
            replace(ASCEND, gpus_per_node=16),
            "only 8 NPU(s) are visible, fewer than the 16 claimed",
            "仅可见 8 个 NPU，少于声明的 16 个",
        ),
        (
            replace(ASCEND, gpu_memory_gib=64),
            "each NPU has 32 GiB of HBM (32768 MB in npu-smi), below the claimed 64 GiB",
            "每个 NPU 的 HBM 为 32 GiB（npu-smi 显示 32768 MB），低于声明的 64 GiB",
        ),
    ],
    ids=["model", "count", "memory"],
)
def test_item_1_is_contradicted_by_what_npu_smi_shows(claims, why_en, why_zh) -> None:
    evidence = _evidence("npu-01", ASCEND_NODE)
    item = verify_candidate(claims, evidence).items["gpu_match"]
    assert item.status == "contradicted"
    npu_smi = next(e for e in evidence if e.kind == "npu_smi")
    assert item.explanation_en.startswith(f"On node npu-01 (npu-smi {npu_smi.ref}) {why_en}")
    assert item.explanation_zh.startswith(f"节点 npu-01（npu-smi {npu_smi.ref_zh}）：{why_zh}")
    assert item.evidence_ref == npu_smi.ref


@pytest.mark.parametrize(
    ("declared", "status"),
    [("Huawei Ascend 910B", "verified"), ("昇腾910B", "verified"), ("Ascend 910C", "contradicted")],
)
def test_a_910b3_is_a_910b_and_never_a_910c(declared: str, status: str) -> None:
    # Cut in NPU 3's row: 4 NPUs shown, a lower bound that reaches the 4 declared.
    (table,) = _evidence("npu-b3", (TABLE_910B3_CUT,))
    claims = Claims(gpu_model=declared, gpus_per_node=4, gpu_memory_gib=64)
    item = verify_candidate(claims, [table]).items["gpu_match"]
    assert item.status == status
    if status == "verified":
        assert "at least 4 × 910B3" in item.explanation_en
        assert "至少 4 × 910B3" in item.explanation_zh


def test_a_cut_table_showing_fewer_npus_is_a_lower_bound_never_a_contradiction() -> None:
    (table,) = _evidence("npu-b3", (TABLE_910B3_CUT,))
    item = verify_candidate(
        Claims(gpu_model="Huawei Ascend 910B", gpus_per_node=8, gpu_memory_gib=64), [table]
    ).items["gpu_match"]
    assert item.status == "unverifiable"
    assert "only 4 NPU(s) are shown because the device table stops inside an NPU's rows" in (
        item.explanation_en
    )
    assert "仅显示 4 个 NPU" in item.explanation_zh


def test_an_atlas_a3_counts_npus_not_chips_and_its_name_confirms_no_model() -> None:
    table = _table("npu-a3", _a3_complete(), "npu-smi-a3.txt")
    assert (table.metrics["npu_count"], table.metrics["chip_count"]) == (2, 4)
    assert table.metrics["device_count_partial"] is None
    a3 = Claims(gpu_model="Huawei Ascend 910C", gpus_per_node=2, gpu_memory_gib=128)
    item = verify_candidate(a3, [table]).items["gpu_match"]
    # Two NPUs of two 64 GB chips: 2 NPUs of 128 GB, as a vendor declares them; but npu-smi's
    # "Ascend910" does not tell a 910C from a 910B, so the model stays unconfirmed.
    assert item.status == "unverifiable"
    assert item.details["nodes"]["npu-a3"]["gpu_count"] == 2
    assert item.details["nodes"]["npu-a3"]["memory_gib"] == 128.0
    assert "2 × Ascend910 (4 chips), 131072 MB HBM per NPU" in item.explanation_en
    assert "does not tell a 910B from a 910C" in item.explanation_en
    assert "无法区分 910B 与 910C" in item.explanation_zh
    # Declaring the chips as NPUs is declaring more NPUs than the node has.
    chips = verify_candidate(replace(a3, gpus_per_node=4), [table]).items["gpu_match"]
    assert chips.status == "contradicted"
    assert "only 2 NPU(s) are visible, fewer than the 4 claimed" in chips.explanation_en
    # Nor is an Ascend910 a 910B: it contradicts neither declaration.
    b = verify_candidate(replace(a3, gpu_model="Huawei Ascend 910B"), [table]).items["gpu_match"]
    assert b.status == "unverifiable"


def test_an_npu_node_whose_files_show_nvidia_gpus_is_contradicted() -> None:
    evidence = _evidence("npu-01", (TABLE_910B4,)) + _evidence("npu-01", (GPU_NODE[0],))
    item = verify_candidate(ASCEND, evidence).items["gpu_match"]
    assert item.status == "contradicted"
    assert "shows NVIDIA GPUs beside the NPUs: a file comes from another machine" in (
        item.explanation_en
    )
    assert CJK.search(item.explanation_zh)


def test_an_nvidia_node_under_an_ascend_declaration_is_still_contradicted() -> None:
    item = verify_candidate(ASCEND, _evidence("gpu-01", GPU_NODE)).items["gpu_match"]
    assert item.status == "contradicted"
    assert "not the claimed Huawei Ascend 910B" in item.explanation_en


# --- what scoring reads -------------------------------------------------------------------------


def test_a_verified_item_1_earns_the_ascends_gpu_match_points() -> None:
    evidence = _evidence("npu-01", ASCEND_NODE)
    report = verify_candidate(ASCEND, evidence)
    measured = facts.measured_facts(report, evidence)
    item = candidate(
        1,
        node_count=1,
        offering=offering(
            gpu_model="Huawei Ascend 910B", gpu_memory_gib=32, gpu_form_factor="other"
        ),
        measured=measured,
    )
    spec = evaluation(
        workload_profile="inference", required_total_gpus=8, required_gpu_memory_gib=32
    )

    def stability(status: str) -> tuple[float, float]:
        scored = score_candidate(
            replace(item, answers={"gpu_match": status}), spec, load_rubric("2")
        )
        (dimension,) = [d for d in scored.dimensions if d.dimension == "stability"]
        rule = next(c for c in dimension.contributions if c.rule_id == "stability.gpu.match")
        return scored.score("stability"), rule.points

    # The questionnaire's answer alone (what an Ascend had before: evidence could not speak).
    claimed_score, claimed_points = stability("claimed")
    verified_score, verified_points = stability(report.items["gpu_match"].status)
    assert (claimed_points, verified_points) == (3.0, 6.0)
    assert verified_score > claimed_score
