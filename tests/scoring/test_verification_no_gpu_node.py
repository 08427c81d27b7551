"""A node that shows no NVIDIA GPU is set aside from every verdict, named, never judged.

The tester's case: a collector run with a GPU node's upload token on a KVM guest without GPUs.
Its lspci (complete, no NVIDIA device), lscpu (hypervisor flag) and systemd-detect-virt ("kvm")
are real outputs of such a guest; before, they turned the GPU node's "bare metal" verdict into
"virtualised" and its 0 GPUs would have judged the GPU count. The GPU node's samples are a real
HGX H100 lspci, nvidia-smi table and DGX DMI. The test is on what the metrics say, not names.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from scoring.evidence import registry
from scoring.verification import Claims, NodeEvidence, facts, verify_bare_metal, verify_candidate
from scoring.verification.gpu_nodes import shows_no_gpu, split_gpu_nodes

SAMPLES = Path(__file__).parent / "evidence" / "samples"
CLAIMS = Claims(gpu_model="H100 SXM5 80GB", gpus_per_node=8, gpu_memory_gib=80, node_count=2)
GPU_NODE = (
    "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
    "nvidia_smi/thamada-hgx-h100x8-driver565-cuda127-table.txt",
    "dmi/dgx1-v100-physical-dmidecode-t1.txt",
)
KVM_GUEST_LSPCI = "lspci/devmachine-kvm-lspci.txt"
KVM_GUEST = (
    KVM_GUEST_LSPCI,
    "cpu_info/devmachine-kvm-lscpu-new-layout.txt",
    "virt/devmachine-systemd-detect-virt-vm-kvm.txt",
)
NOTE_EN = "Node {} shows no NVIDIA GPU: its evidence is set aside as not from a GPU node"
NOTE_ZH = "节点 {} 未显示任何 NVIDIA GPU：其证据不属于该方案的 GPU 节点，已搁置。"


def _evidence(node: str, paths: tuple[str, ...], upload: int) -> list[NodeEvidence]:
    evidence = []
    for path in paths:
        text = (SAMPLES / path).read_text(encoding="utf-8")
        kind = registry.detect_kind(text)
        assert kind == path.split("/")[0], path
        result = registry.parse_text(text, kind)
        evidence.append(NodeEvidence(node, upload, kind, result.metrics, path))
    return evidence


def test_the_kvm_guest_alone_would_judge_the_delivery_virtualised() -> None:
    # Why it must be set aside: on its own its signals make a confident verdict.
    assert verify_bare_metal(CLAIMS, _evidence("vm", KVM_GUEST, 2)).verdict == "virtualised"


def test_a_node_without_an_nvidia_gpu_is_set_aside_and_the_gpu_node_decides() -> None:
    gpu = _evidence("hgx-h100-node-01", GPU_NODE, 1)
    both = gpu + _evidence("vm", KVM_GUEST, 2)
    alone, mixed = verify_candidate(CLAIMS, gpu), verify_candidate(CLAIMS, both)

    assert mixed.set_aside_nodes == ("vm",)
    assert alone.bare_metal.verdict == mixed.bare_metal.verdict == "bare_metal"
    assert mixed.bare_metal.confidence == alone.bare_metal.confidence
    assert mixed.bare_metal.signals == alone.bare_metal.signals
    assert all(s.node_name == "hgx-h100-node-01" for s in mixed.bare_metal.signals)
    assert NOTE_EN.format("vm") in mixed.bare_metal.explanation_en
    assert NOTE_ZH.format("vm") in mixed.bare_metal.explanation_zh
    for key in ("gpu_match", "nvlink_topology", "fabric", "local_nvme", "distributed_storage"):
        item, before = mixed.items[key], alone.items[key]
        assert item.status == before.status, key
        assert "vm" not in (item.details.get("nodes") or {}), key
        assert item.details["set_aside_nodes"] == ["vm"]
        assert NOTE_EN.format("vm") in item.explanation_en
        assert NOTE_ZH.format("vm") in item.explanation_zh
    assert mixed.items["gpu_match"].status == "verified"
    # The items no node can measure are not about nodes: no note.
    assert mixed.items["sla"] == alone.items["sla"]
    # The measured facts scoring reads are the GPU node's alone.
    assert facts.measured_facts(mixed, both) == facts.measured_facts(alone, gpu)
    assert facts.measured_facts(mixed, both).delivery_form_seen == "bare_metal"


def test_set_aside_by_what_the_metrics_say_not_by_the_name() -> None:
    # The token's node name on the guest's evidence: still no GPU, still set aside.
    guest = _evidence("hgx-h100-node-02", KVM_GUEST, 2)
    report = verify_candidate(CLAIMS, _evidence("hgx-h100-node-01", GPU_NODE, 1) + guest)
    assert report.set_aside_nodes == ("hgx-h100-node-02",)
    assert report.bare_metal.verdict == "bare_metal"
    assert NOTE_EN.format("hgx-h100-node-02") in report.bare_metal.explanation_en


def test_only_no_gpu_nodes_leave_the_verdict_uncertain_and_named() -> None:
    report = verify_candidate(CLAIMS, _evidence("vm", KVM_GUEST, 2))
    assert report.bare_metal.verdict == "uncertain"
    assert report.bare_metal.signals == ()
    assert report.items["gpu_match"].status == "unverifiable"
    assert NOTE_EN.format("vm") in report.items["gpu_match"].explanation_en
    assert facts.measured_facts(report, _evidence("vm", KVM_GUEST, 2)).bare_metal_verdict is None


def test_a_node_whose_nvidia_smi_shows_gpus_is_kept_whatever_its_lspci_says() -> None:
    evidence = _evidence("node-a", (KVM_GUEST_LSPCI, GPU_NODE[1]), 1)
    assert not shows_no_gpu(evidence)
    kept, aside = split_gpu_nodes(evidence)
    assert (kept, aside) == (evidence, ())


def test_a_grep_filtered_or_cut_listing_proves_nothing_about_the_gpus() -> None:
    grep = _evidence("node-a", ("lspci/sriov-host-cx6-pf-and-vf-lspci-v-grep-mellanox.txt",), 1)
    assert grep[0].metrics["nvidia_gpu_count"] == 0 and grep[0].metrics["filtered"]
    assert not shows_no_gpu(grep)
    (guest,) = _evidence("node-b", (KVM_GUEST_LSPCI,), 2)
    cut = replace(guest, metrics={**guest.metrics, "gpu_count_partial": "excerpt"})
    assert shows_no_gpu([guest]) and not shows_no_gpu([cut])


def test_a_node_with_gpus_is_judged_exactly_as_before() -> None:
    gpu = _evidence("hgx-h100-node-01", GPU_NODE, 1)
    report = verify_candidate(CLAIMS, gpu)
    assert report.set_aside_nodes == ()
    assert "set aside" not in report.bare_metal.explanation_en
    assert "set_aside_nodes" not in report.items["gpu_match"].details
