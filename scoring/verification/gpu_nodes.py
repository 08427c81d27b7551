"""Which nodes' evidence is about an accelerator node at all: a node that shows no NVIDIA GPU (nor,
for a candidate declared with a Huawei Ascend part, an Ascend NPU) is set aside.

A collector run on the wrong machine (a laptop, a jump host, a KVM guest without GPUs) is
evidence about that machine, not about the offering's GPU nodes: its lspci shows no NVIDIA
device, nvidia-smi fails ("No devices were found", "NVIDIA-SMI has failed"; a failed file is no
NodeEvidence at all), and its hypervisor signals would otherwise judge the delivery
"virtualised" and its 0 GPUs contradict the GPU count. Such a node is set aside from every
per-node verdict and named in their explanations instead.

The test is on the parsed metrics only, never on names: a node is set aside when a complete
lspci listing (not filtered through grep, not cut by an excerpt marker) counts 0 NVIDIA GPUs
and none of its evidence shows a GPU (a GPU-only tool's output that ran, lspci counting
one, or a kernel log with an Xid, an SXid or a line of the NVIDIA driver). A grep for
Mellanox devices or an excerpt proves nothing about the GPUs, so it never sets a node aside;
a node with GPUs is judged exactly as before. The same test (gpu_nodes) decides whether a
node's clean kernel log says "no Xid" (verification.facts).

A candidate declared with a Huawei Ascend part (reference.other_accelerator) runs on nodes
without any NVIDIA GPU: a node whose npu-smi read an NPU, or whose lspci lists an Ascend
function (19e5:d802...), is one of its accelerator nodes and is never set aside; its lspci,
DMI, virtualisation signs, kernel log, ibstat and fio are judged as a GPU node's are
(npu_nodes). For any other candidate the NPUs prove nothing: npu-smi or an Ascend in lspci
never keeps a node an NVIDIA offering would set aside.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..reference import other_accelerator
from ._util import MAX_NODES_NAMED, as_bool, as_int, as_list, by_node
from .model import Claims, NodeEvidence

# Outputs only a machine with an NVIDIA GPU and its driver produces when the file parsed:
# nvidia-smi in every form, DCGM, NVLink, nvbandwidth and nccl-tests.
GPU_ONLY_KINDS = frozenset(
    {
        "nvidia_smi",
        "nvidia_smi_query",
        "nvidia_smi_xml",
        "nvidia_smi_list",
        "nvidia_smi_mig",
        "nvidia_smi_topo",
        "nvidia_smi_nvlink",
        "dcgm_diag",
        "nvbandwidth",
        "nccl_tests",
    }
)


def _shows_a_gpu(ev: NodeEvidence) -> bool:
    if ev.kind == "lspci":
        return (as_int(ev.metrics.get("nvidia_gpu_count")) or 0) > 0
    if ev.kind in GPU_ONLY_KINDS:
        # A GPU tool's output counts as a GPU unless it says outright that it saw none.
        m = ev.metrics
        return as_int(m.get("gpu_count")) != 0 or (as_int(m.get("mig_count")) or 0) > 0
    if ev.kind == "kernel_log":
        # Xid or SXid events, or any line the NVIDIA driver wrote (the driver loads only
        # where a GPU or NVSwitch is).
        m = ev.metrics
        return any((as_int(m.get(name)) or 0) > 0 for name in _DRIVER_SIGNS) or bool(
            as_list(m.get("xid_codes"))
        )
    return False


_DRIVER_SIGNS = ("xid_count", "sxid_count", "nvidia_driver_lines")


def gpu_nodes(evidence: Sequence[NodeEvidence]) -> set[str]:
    """The nodes whose evidence shows an NVIDIA GPU (or its driver) somewhere."""
    return {ev.node_name for ev in evidence if _shows_a_gpu(ev)}


def _lists_no_gpu(ev: NodeEvidence) -> bool:
    """A complete lspci listing that counts 0 NVIDIA GPUs."""
    m = ev.metrics
    return (
        ev.kind == "lspci"
        and as_int(m.get("nvidia_gpu_count")) == 0
        and not m.get("gpu_count_partial")
        and as_bool(m.get("filtered")) is not True
    )


def shows_no_gpu(evs: Sequence[NodeEvidence]) -> bool:
    """Whether one node's evidence shows that it has no NVIDIA GPU (see the module docstring)."""
    return any(_lists_no_gpu(ev) for ev in evs) and not any(_shows_a_gpu(ev) for ev in evs)


def split_gpu_nodes(
    evidence: Sequence[NodeEvidence], accelerator_nodes: Collection[str] = ()
) -> tuple[list[NodeEvidence], tuple[str, ...]]:
    """The evidence of the nodes that may be GPU nodes, in the given order, and the names of
    the nodes set aside because they show no NVIDIA GPU (sorted). ``accelerator_nodes`` (the
    candidate's NPU nodes: npu_nodes) are never set aside."""
    aside = tuple(
        node
        for node, evs in by_node(evidence).items()
        if node not in accelerator_nodes and shows_no_gpu(evs)
    )
    if not aside:
        return list(evidence), ()
    return [ev for ev in evidence if ev.node_name not in aside], aside


NPU_SMI = "npu_smi"


def _shows_an_npu(ev: NodeEvidence) -> bool:
    """An npu-smi output that read a device (a table chip, a health state or ECC counts), or
    an lspci listing with a Huawei Ascend function."""
    m = ev.metrics
    if ev.kind == "lspci":
        return (as_int(m.get("ascend_functions")) or 0) > 0
    return ev.kind == NPU_SMI and (
        (as_int(m.get("chip_count")) or 0) > 0
        or bool(as_list(m.get("health_by_device")))
        or bool(as_list(m.get("ecc")))
    )


def ascend_claimed(claims: Claims) -> bool:
    """Whether the candidate is declared with a Huawei Ascend part (reference.OTHER_ACCELERATORS),
    whose nodes show NPUs and no NVIDIA GPU."""
    other = other_accelerator(claims.gpu_model)
    return other is not None and other.vendor == "Huawei"


def npu_nodes(claims: Claims, evidence: Sequence[NodeEvidence]) -> tuple[str, ...]:
    """The nodes whose npu-smi or lspci shows an Ascend NPU, for a candidate declared with a
    Huawei Ascend part (sorted); none for any other GPU. Such a node shows no NVIDIA GPU yet
    is an accelerator node of the offering: never set aside, its evidence judged as a GPU
    node's, its NPUs' health and ECC counts read by the stability facts (facts.py)."""
    if not ascend_claimed(claims):
        return ()
    return tuple(sorted({ev.node_name for ev in evidence if _shows_an_npu(ev)}))


def set_aside_note(nodes: Sequence[str], *, npu: bool = False) -> tuple[str, str]:
    """The sentence (en, zh) that names the nodes set aside; ("", "") when there are none.
    ``npu``: the candidate is declared with an Ascend part, whose nodes show NPUs."""
    if not nodes:
        return "", ""
    named = list(nodes[:MAX_NODES_NAMED])
    if npu:
        en = " ".join(
            f"Node {node} shows no Huawei Ascend NPU (npu-smi, lspci) and no NVIDIA GPU: its "
            "evidence is set aside as not from an accelerator node of this offering."
            for node in named
        )
        zh = "".join(
            f"节点 {node} 未显示任何华为昇腾 NPU（npu-smi、lspci），也未显示 NVIDIA GPU："
            "其证据不属于该方案的加速卡节点，已搁置。"
            for node in named
        )
    else:
        en = " ".join(
            f"Node {node} shows no NVIDIA GPU: its evidence is set aside as not from a GPU "
            "node of this offering."
            for node in named
        )
        zh = "".join(
            f"节点 {node} 未显示任何 NVIDIA GPU：其证据不属于该方案的 GPU 节点，已搁置。"
            for node in named
        )
    rest = len(nodes) - len(named)
    if rest > 0:
        en += f" The same holds on {rest} more node(s)."
        zh += f"另有 {rest} 个节点情况相同。"
    return en, zh
