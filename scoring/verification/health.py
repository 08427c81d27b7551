"""Health faults in the evidence: wrong collective results, DCGM failures, ECC and row remaps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._util import as_bool, as_int, as_list, evidence_sort_key, first
from .model import SEVERITY_ERROR, SEVERITY_WARNING, Fault, NodeEvidence


def _total(value: Any) -> int | None:
    """Sum of an int or a per-GPU list of ints; None when nothing was countable."""
    numbers = [n for n in (as_int(v) for v in as_list(value)) if n is not None]
    return sum(numbers) if numbers else None


def _any_true(value: Any) -> bool:
    return any(as_bool(v) is True for v in as_list(value))


def _nccl_faults(ev: NodeEvidence) -> list[Fault]:
    m = ev.metrics
    wrong = as_int(m.get("wrong_total")) or 0
    if wrong <= 0 and m.get("out_of_bounds_ok") is not False:
        return []
    collective = m.get("collective") or "collective"
    return [
        Fault(
            "nccl_wrong_results",
            ev.node_name,
            SEVERITY_ERROR,
            ev.ref,
            f"nccl-tests {collective} on node {ev.node_name} returned wrong results "
            f"({wrong} wrong value(s)): the GPUs or links corrupt data; its bandwidth is not used.",
            f"节点 {ev.node_name} 的 nccl-tests {collective} 结果错误（{wrong} 个错误值）："
            "GPU 或链路存在数据损坏，该带宽结果不予采用。",
            {"wrong_total": wrong, "out_of_bounds": m.get("out_of_bounds")},
        )
    ]


def _dcgm_faults(ev: NodeEvidence) -> list[Fault]:
    m = ev.metrics
    overall = str(m.get("overall") or "").lower()
    failed = [str(t) for t in as_list(m.get("failed_tests"))]
    if overall == "fail" or failed:
        tests = ", ".join(failed) or "unnamed test"
        return [
            Fault(
                "dcgm_fail",
                ev.node_name,
                SEVERITY_ERROR,
                ev.ref,
                f"dcgmi diag on node {ev.node_name} failed: {tests}.",
                f"节点 {ev.node_name} 的 dcgmi diag 未通过：{tests}。",
                {"overall": m.get("overall"), "failed_tests": failed},
            )
        ]
    if overall == "warn":
        warned = ", ".join(str(t) for t in as_list(m.get("warned_tests"))) or "unnamed test"
        return [
            Fault(
                "dcgm_warn",
                ev.node_name,
                SEVERITY_WARNING,
                ev.ref,
                f"dcgmi diag on node {ev.node_name} passed with warnings: {warned}.",
                f"节点 {ev.node_name} 的 dcgmi diag 通过但有警告：{warned}。",
                {"overall": m.get("overall"), "warned_tests": as_list(m.get("warned_tests"))},
            )
        ]
    return []


def _memory_faults(ev: NodeEvidence) -> list[Fault]:
    m: Mapping[str, Any] = ev.metrics
    node = ev.node_name
    faults = []
    uncorrected = _total(
        first(m, "ecc_volatile_uncorrected", "ecc_uncorrected", "ecc_volatile_uncorr")
    )
    aggregate = _total(first(m, "ecc_aggregate_uncorrected", "ecc_aggregate_uncorr"))
    if (uncorrected or 0) > 0 or (aggregate or 0) > 0:
        faults.append(
            Fault(
                "ecc_uncorrected",
                node,
                SEVERITY_ERROR,
                ev.ref,
                f"GPU memory on node {node} reports uncorrectable ECC errors (volatile "
                f"{uncorrected or 0}, aggregate {aggregate or 0}).",
                f"节点 {node} 的 GPU 显存存在不可纠正 ECC 错误（易失 {uncorrected or 0}，"
                f"累计 {aggregate or 0}）。",
                {"volatile": uncorrected, "aggregate": aggregate},
            )
        )
    if _any_true(m.get("remapped_rows_pending")) or _any_true(m.get("retired_pages_pending")):
        faults.append(
            Fault(
                "remapped_rows_pending",
                node,
                SEVERITY_ERROR,
                ev.ref,
                f"A GPU on node {node} has memory row remapping (or page retirement) pending: "
                "it needs a GPU reset before it is reliable.",
                f"节点 {node} 有 GPU 存在待处理的显存行重映射（或页退役）：需重置 GPU 后才可靠。",
                {"remapped_rows_pending": m.get("remapped_rows_pending")},
            )
        )
    if _any_true(m.get("remapped_rows_failure")):
        faults.append(
            Fault(
                "remapped_rows_failure",
                node,
                SEVERITY_ERROR,
                ev.ref,
                f"A GPU on node {node} reports a row-remapping failure: the GPU should be "
                "replaced.",
                f"节点 {node} 有 GPU 报告显存行重映射失败：应更换该 GPU。",
                {"remapped_rows_failure": m.get("remapped_rows_failure")},
            )
        )
    return faults


def _nvlink_faults(ev: NodeEvidence) -> list[Fault]:
    m = ev.metrics
    counters = {
        name: as_int(m.get(f"{name}_errors_total")) or 0 for name in ("replay", "recovery", "crc")
    }
    if not any(counters.values()):
        return []
    links = [str(link) for link in as_list(m.get("links_with_errors"))]
    shown = ", ".join(f"{name} {count}" for name, count in counters.items() if count)
    where = f" on {', '.join(links)}" if links else ""
    return [
        Fault(
            "nvlink_errors",
            ev.node_name,
            SEVERITY_WARNING,
            ev.ref,
            f"NVLink error counters on node {ev.node_name} are not zero ({shown}){where}: "
            "a link may be flaky.",
            f"节点 {ev.node_name} 的 NVLink 错误计数不为零（{shown}）{where}：链路可能不稳定。",
            {**counters, "links_with_errors": links},
        )
    ]


def _kernel_log_faults(ev: NodeEvidence) -> list[Fault]:
    """GPU Xid and NVSwitch SXid events in a node's kernel log (kind ``kernel_log``)."""
    m = ev.metrics
    xid = as_int(m.get("xid_count")) or 0
    sxid = as_int(m.get("sxid_count")) or 0
    if xid <= 0 and sxid <= 0:
        return []
    codes = sorted({c for c in (as_int(x) for x in as_list(m.get("xid_codes"))) if c is not None})
    shown = f" (codes {', '.join(str(c) for c in codes)})" if codes else ""
    return [
        Fault(
            "xid_errors",
            ev.node_name,
            SEVERITY_WARNING,
            ev.ref,
            f"The kernel log of node {ev.node_name} shows {xid} GPU Xid and {sxid} NVSwitch "
            f"SXid event(s){shown}: the GPUs or their links reported errors.",
            f"节点 {ev.node_name} 的内核日志记录了 {xid} 次 GPU Xid 与 {sxid} 次 NVSwitch SXid "
            f"事件{shown}：GPU 或其链路报告了错误。",
            {"xid_count": xid, "sxid_count": sxid, "xid_codes": codes},
        )
    ]


def health_faults(evidence: Sequence[NodeEvidence]) -> list[Fault]:
    """Faults from nccl-tests, dcgmi diag, nvidia-smi (ECC, remapped rows), NVLink error
    counters and kernel-log Xid events, in a stable order."""
    faults: list[Fault] = []
    for ev in sorted(evidence, key=evidence_sort_key):
        if ev.kind == "nccl_tests":
            faults.extend(_nccl_faults(ev))
        elif ev.kind == "dcgm_diag":
            faults.extend(_dcgm_faults(ev))
        elif ev.kind in ("nvidia_smi_query", "nvidia_smi"):
            faults.extend(_memory_faults(ev))
        elif ev.kind == "nvidia_smi_nvlink":
            faults.extend(_nvlink_faults(ev))
        elif ev.kind == "kernel_log":
            faults.extend(_kernel_log_faults(ev))
    return faults
