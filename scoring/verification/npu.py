"""Checklist item 1 for a candidate declared with a Huawei Ascend part: NPU model, count and memory
read from npu-smi's device table, as item 1 reads nvidia-smi for an NVIDIA GPU (gpu.py).

The table lists each NPU (the "NPU" id) with its chips: one chip per NPU on an Atlas A2 (910B),
two on an Atlas A3 (whose NPU ids run 0..7 with chips 0 and 1 each). A vendor declares NPUs
per node, so the count is the table's NPUs (``npu_count``), never its chips; the memory of an
NPU is the HBM of its chips together (an A3 NPU of two 64 GB chips is a 128 GB NPU). The model
is the name npu-smi prints ("910B3", "910B4-1" read as the 910B family); "Ascend910", which
Atlas A3 nodes print for every chip, names no family, so it neither confirms nor contradicts a
declared 910B or 910C.

An NVIDIA listing that counts no GPU (lspci, a topology matrix) says nothing of NPUs and is not
read; one that shows NVIDIA GPUs on the node contradicts an Ascend declaration (gpu.py judges
it when the node has no npu-smi table).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..reference import gpu_family_of
from ._util import NodeResult, as_int, as_list, num, of_kind, pct, pct_zh
from .model import (
    STATUS_CONTRADICTED,
    STATUS_UNVERIFIABLE,
    STATUS_VERIFIED,
    Claims,
    NodeEvidence,
)

NPU_SMI = "npu_smi"
# npu-smi prints HBM in MB of 1024 * 1024 bytes (a 64 GB 910B shows 65536), as nvidia-smi its
# MiB: the same 5 % tolerance as an NVIDIA GPU's memory (gpu.GPU_MEMORY_TOLERANCE).
NPU_MEMORY_TOLERANCE = 0.05

_PARTIAL_EN = {
    "excerpt": "the device table was cut (rows elided, or the paste starts inside the table)",
    "cut": "the device table stops inside an NPU's rows",
}
_PARTIAL_ZH = {
    "excerpt": "设备表被截断（有行被省略，或粘贴内容从表格中间开始）",
    "cut": "设备表在某个 NPU 的行中途结束",
}


def npu_table(evs: Sequence[NodeEvidence]) -> NodeEvidence | None:
    """The node's npu-smi output whose device table settles the count: the first complete
    table, else the partial one showing the most NPUs; None without a table."""
    tables = [e for e in of_kind(evs, NPU_SMI) if (as_int(e.metrics.get("npu_count")) or 0) > 0]
    complete = [e for e in tables if not e.metrics.get("device_count_partial")]
    if complete:
        return complete[0]
    if not tables:
        return None
    return max(tables, key=lambda e: as_int(e.metrics.get("npu_count")) or 0)


def _memory_per_npu_mib(metrics: Mapping[str, Any]) -> float | None:
    """The smallest NPU's HBM (its chips' totals added up), in MiB, over the NPUs the table
    shows whole (as many chip rows as the NPU with most; a table cut inside an NPU's rows
    leaves that NPU out); None when a chip row shows no HBM total."""
    chips: dict[Any, list[int | None]] = {}
    for chip in as_list(metrics.get("chips")):
        # A chip whose second row was never read (the table cut after its first) has no HBM.
        if (
            isinstance(chip, Mapping)
            and chip.get("npu") is not None
            and chip.get("chip") is not None
        ):
            chips.setdefault(chip["npu"], []).append(as_int(chip.get("hbm_total_mb")))
    if not chips:
        return None
    whole = max(len(v) for v in chips.values())
    totals = []
    for values in chips.values():
        if len(values) < whole:
            continue  # an NPU cut off after its first chip
        if any(v is None or v <= 0 for v in values):
            return None
        totals.append(sum(v for v in values if v is not None))
    return float(min(totals)) if totals else None


def _name_problem(claims: Claims, name: str) -> tuple[str, str] | None:
    """(en, zh) when the NPU name names another Ascend family than the declared one."""
    claimed, measured = gpu_family_of(claims.gpu_model), gpu_family_of(name)
    if claimed and measured and claimed != measured:
        return (
            f"npu-smi names the NPU {name} (the {measured} family), not the claimed "
            f"{claims.gpu_model}",
            f"npu-smi 显示 NPU 为 {name}（{measured} 系列），并非声明的 {claims.gpu_model}",
        )
    return None


def _name_gap(name: str) -> tuple[str, str]:
    if gpu_family_of(name) is None and name.upper().replace(" ", "") == "ASCEND910":
        return (
            f"npu-smi names the NPU {name!r}, the name Atlas A3 nodes print, which does not "
            "tell a 910B from a 910C: the model is not confirmed",
            f"npu-smi 显示 NPU 名称为 {name!r}（Atlas A3 节点显示的名称），无法区分 910B 与 "
            "910C：型号未能确认",
        )
    return (
        f"the NPU name {name!r} names no Ascend family the reference knows: the model is not "
        "confirmed",
        f"NPU 名称 {name!r} 不对应参考表中的任何昇腾系列：型号未能确认",
    )


def npu_node(
    node: str, evs: Sequence[NodeEvidence], claims: Claims, table: NodeEvidence
) -> NodeResult:
    """One node's item-1 verdict from its npu-smi device table ``table`` (npu_table)."""
    m = table.metrics
    count = as_int(m.get("npu_count")) or 0
    chips = as_int(m.get("chip_count"))
    partial = m.get("device_count_partial") or None
    names = [str(n) for n in as_list(m.get("npu_names")) if isinstance(n, str) and n.strip()]
    problems: list[tuple[str, str]] = []
    gaps: list[tuple[str, str]] = []
    count_short = 0
    for name in names:
        problem = _name_problem(claims, name)
        if problem is not None:
            problems.append(problem)
        elif gpu_family_of(name) is None:
            gaps.append(_name_gap(name))
    if not names:
        gaps.append(("the NPU model is not shown", "未显示 NPU 型号"))
    if count < claims.gpus_per_node and partial:
        gaps.append(
            (
                f"only {count} NPU(s) are shown because "
                f"{_PARTIAL_EN.get(partial, 'the table is partial')}: a partial table is a "
                f"lower bound and cannot show fewer than the {claims.gpus_per_node} claimed",
                f"仅显示 {count} 个 NPU，因为{_PARTIAL_ZH.get(partial, '设备表不完整')}："
                f"不完整的设备表只是下限，不能证明少于声明的 {claims.gpus_per_node} 个",
            )
        )
    elif count < claims.gpus_per_node:
        problems.append(
            (
                f"only {count} NPU(s) are visible, fewer than the {claims.gpus_per_node} claimed",
                f"仅可见 {count} 个 NPU，少于声明的 {claims.gpus_per_node} 个",
            )
        )
        count_short = len(problems)

    mib = _memory_per_npu_mib(m)
    gib = None if mib is None else mib / 1024
    floor = claims.gpu_memory_gib * (1 - NPU_MEMORY_TOLERANCE)
    if gib is None:
        gaps.append(("the NPU memory (HBM) is not shown", "未显示 NPU 显存（HBM）容量"))
    elif gib < floor:
        problems.append(
            (
                f"each NPU has {num(gib)} GiB of HBM ({num(mib, 0)} MB in npu-smi), below the "
                f"claimed {claims.gpu_memory_gib} GiB less {pct(NPU_MEMORY_TOLERANCE)}",
                f"每个 NPU 的 HBM 为 {num(gib)} GiB（npu-smi 显示 {num(mib, 0)} MB），低于声明的 "
                f"{claims.gpu_memory_gib} GiB（容差 {pct_zh(NPU_MEMORY_TOLERANCE)}）",
            )
        )

    shown_names = ", ".join(names) or "NPU"
    lower = "at least " if partial and count >= claims.gpus_per_node else ""
    shown = f"{lower}{count} × {shown_names}"
    shown_zh = f"{'至少 ' if lower else ''}{count} × {shown_names}"
    if chips is not None and chips != count:
        shown += f" ({chips} chips)"
        shown_zh += f"（{chips} 个芯片）"
    if mib is not None:
        shown += f", {num(mib, 0)} MB HBM per NPU"
        shown_zh += f"，每个 NPU 的 HBM 为 {num(mib, 0)} MB"
    claim_text = f"{claims.gpus_per_node} × {claims.gpu_model} {claims.gpu_memory_gib} GB"
    source_en, source_zh = f"npu-smi {table.ref}", f"npu-smi {table.ref_zh}"
    details = {
        "gpu_count": count,
        "gpu_count_partial": partial,
        "gpu_names": names,
        "memory_gib": None if gib is None else round(gib, 2),
        "memory_mib": mib,
        "npu_chip_count": chips,
        "source": NPU_SMI,
    }
    nvidia = _nvidia_gpus_shown(evs)
    if nvidia is not None:
        problems.append(nvidia)
    if problems:
        details["count_short_only"] = len(problems) == 1 and count_short == 1
        en = f"On node {node} ({source_en}) " + "; ".join(p[0] for p in problems) + "."
        zh = f"节点 {node}（{source_zh}）：" + "；".join(p[1] for p in problems) + "。"
        return NodeResult(node, STATUS_CONTRADICTED, en, zh, table.ref, details)
    if gaps:
        en = (
            f"Node {node} shows {shown} in {source_en}, which fits the claim {claim_text} so "
            "far, but " + "; ".join(g[0] for g in gaps) + "."
        )
        zh = (
            f"节点 {node} 的 {source_zh} 显示 {shown_zh}，与声明的 {claim_text} 暂无矛盾，但"
            + "；".join(g[1] for g in gaps)
            + "。"
        )
        return NodeResult(node, STATUS_UNVERIFIABLE, en, zh, table.ref, details)
    en = (
        f"Measured {shown} on node {node} ({source_en}) matches the claim {claim_text} "
        f"(NPUs counted, not chips; memory tolerance {pct(NPU_MEMORY_TOLERANCE)})."
    )
    zh = (
        f"节点 {node} 实测 {shown_zh}（{source_zh}），与声明的 {claim_text} 相符"
        f"（按 NPU 计数而非芯片；显存容差 {pct_zh(NPU_MEMORY_TOLERANCE)}）。"
    )
    return NodeResult(node, STATUS_VERIFIED, en, zh, table.ref, details)


def _nvidia_gpus_shown(evs: Sequence[NodeEvidence]) -> tuple[str, str] | None:
    """(en, zh) when an NVIDIA listing of the node shows GPUs beside its NPUs: one machine
    does not carry both, so a file comes from another machine."""
    for ev in of_kind(evs, "lspci", "nvidia_smi", "nvidia_smi_query"):
        key = "nvidia_gpu_count" if ev.kind == "lspci" else "gpu_count"
        if (as_int(ev.metrics.get(key)) or 0) > 0:
            return (
                f"{ev.ref} shows NVIDIA GPUs beside the NPUs: a file comes from another "
                "machine (remove that upload) or the node is not the Ascend node claimed",
                f"{ev.ref_zh} 显示除 NPU 之外还有 NVIDIA GPU："
                "有文件来自另一台机器（请删除该上传），或该节点并非声明的昇腾节点",
            )
    return None


def no_nvidia_gpu_listing(ev: NodeEvidence) -> bool:
    """An NVIDIA listing that counts no GPU (lspci, a topology matrix): on an Ascend node it
    says nothing of the NPUs."""
    if ev.kind == "lspci":
        return as_int(ev.metrics.get("nvidia_gpu_count")) == 0
    return ev.kind == "nvidia_smi_topo" and as_int(ev.metrics.get("gpu_count")) == 0


def ascend_without_table(node: str, evs: Sequence[NodeEvidence]) -> NodeResult | None:
    """A node whose lspci lists Ascend functions but that uploaded no npu-smi table: an NPU
    node whose NPUs are not counted (unverifiable); None when lspci lists none."""
    listing = next(
        (e for e in of_kind(evs, "lspci") if (as_int(e.metrics.get("ascend_functions")) or 0) > 0),
        None,
    )
    if listing is None:
        return None
    functions = as_int(listing.metrics.get("ascend_functions"))
    return NodeResult(
        node,
        STATUS_UNVERIFIABLE,
        f"Node {node} lists {functions} Huawei Ascend PCI function(s) in {listing.ref} but "
        "uploaded no npu-smi device table: lspci lists chips, not NPUs, and names no model, so "
        "the NPU count, model and memory are not shown (upload 'npu-smi info').",
        f"节点 {node} 的 {listing.ref_zh} 列出 {functions} 个华为昇腾 PCI 功能，但未上传 npu-smi "
        "设备表：lspci 列出的是芯片而非 NPU，且不显示型号，因此未显示 NPU 数量、型号与显存"
        "（请上传 'npu-smi info' 的输出）。",
        listing.ref,
        {"gpu_count": None, "gpu_names": [], "ascend_functions": functions},
    )
