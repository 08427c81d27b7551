"""Checklist items 4 and 5: local NVMe bandwidth from fio; distributed storage (unknowable)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._util import NodeResult, as_float, by_node, combine_nodes, num, of_kind, pct, pct_zh
from .model import (
    STATUS_CONTRADICTED,
    STATUS_UNVERIFIABLE,
    STATUS_VERIFIED,
    Claims,
    ItemVerification,
    NodeEvidence,
)

# fio's sequential bandwidth depends on block size, queue depth and job count; a run set up
# for throughput should reach 80 % of the drive's datasheet figure.
NVME_MIN_FRACTION = 0.8

_DIRECTIONS = (("read", "读"), ("write", "写"))


def _nvme_node(node: str, evs: Sequence[NodeEvidence], claims: Claims) -> NodeResult | None:
    fio = of_kind(evs, "fio")
    if not fio:
        return None
    claimed = {
        "read": as_float(claims.nvme_read_gbyte_s),
        "write": as_float(claims.nvme_write_gbyte_s),
    }
    details: dict[str, Any] = {}
    problems: list[tuple[str, str]] = []
    fits: list[tuple[str, str]] = []
    gaps: list[tuple[str, str]] = []
    ref = fio[0].ref
    for direction, direction_zh in _DIRECTIONS:
        want = claimed[direction]
        if want is None or want <= 0:
            continue
        # Several fio runs on one node (a read job, a write job): each direction's best.
        best: tuple[float, NodeEvidence] | None = None
        for ev in fio:
            mbyte_s = as_float(ev.metrics.get(f"{direction}_bw_mbyte_s"))
            if mbyte_s is not None and (best is None or mbyte_s > best[0]):
                best = (mbyte_s, ev)
        if best is None:
            gaps.append((f"fio did not measure {direction}s", f"fio 未测量{direction_zh}带宽"))
            continue
        got = best[0] / 1000  # fio metric is MB/s (10^6 bytes); the claim is GB/s
        details[f"{direction}_gbyte_s"] = round(got, 3)
        details[f"{direction}_fraction"] = round(got / want, 3)
        text = (
            f"{direction} {num(got, 2)} GB/s against {num(want, 2)} GB/s claimed",
            f"{direction_zh} {num(got, 2)} GB/s（声明 {num(want, 2)} GB/s）",
        )
        if got < want * NVME_MIN_FRACTION:
            problems.append(text)
            ref = best[1].ref
        else:
            fits.append(text)
    if not problems and not fits and not gaps:
        return None
    tol = pct(NVME_MIN_FRACTION)
    tol_zh = pct_zh(NVME_MIN_FRACTION)
    if problems:
        return NodeResult(
            node,
            STATUS_CONTRADICTED,
            f"fio on node {node} measured "
            + "; ".join(p[0] for p in problems)
            + f", below {tol} of the claim.",
            f"节点 {node} 的 fio 实测"
            + "；".join(p[1] for p in problems)
            + f"，低于声明值的 {tol_zh}。",
            ref,
            details,
        )
    if gaps:
        return NodeResult(
            node,
            STATUS_UNVERIFIABLE,
            f"fio on node {node} measured "
            + ("; ".join(f[0] for f in fits) or "nothing claimed")
            + ", but "
            + "; ".join(g[0] for g in gaps)
            + ".",
            f"节点 {node} 的 fio 实测"
            + ("；".join(f[1] for f in fits) or "无")
            + "，但"
            + "；".join(g[1] for g in gaps)
            + "。",
            ref,
            details,
        )
    return NodeResult(
        node,
        STATUS_VERIFIED,
        f"fio on node {node} measured "
        + "; ".join(f[0] for f in fits)
        + f", at least {tol} of the claim (capacity is not measured).",
        f"节点 {node} 的 fio 实测"
        + "；".join(f[1] for f in fits)
        + f"，达到声明值的 {tol_zh} 以上（容量未测量）。",
        ref,
        details,
    )


def verify_local_nvme(claims: Claims, evidence: Sequence[NodeEvidence]) -> ItemVerification:
    """Item 4: fio bandwidth per direction at least 80 % of the claimed NVMe read/write GB/s.

    Only the directions with a claim are judged; capacity is never measured and is said so.
    """
    tolerance = f"measured ≥ {pct(NVME_MIN_FRACTION)} of the claimed read/write GB/s"
    tolerance_zh = f"实测值 ≥ 声明读/写带宽（GB/s）的 {pct(NVME_MIN_FRACTION)}"
    if as_float(claims.nvme_read_gbyte_s) is None and as_float(claims.nvme_write_gbyte_s) is None:
        return ItemVerification(
            "local_nvme",
            STATUS_UNVERIFIABLE,
            "No NVMe read or write bandwidth is claimed, so fio results have nothing to be "
            "compared with.",
            "未声明 NVMe 读写带宽，fio 结果无可比较的对象。",
            None,
            tolerance,
            {},
            tolerance_zh,
        )
    results = [r for node, evs in by_node(evidence).items() if (r := _nvme_node(node, evs, claims))]
    return combine_nodes(
        "local_nvme",
        results,
        tolerance=tolerance,
        tolerance_zh=tolerance_zh,
        no_evidence_en="No fio output was uploaded, so the NVMe bandwidth cannot be checked.",
        no_evidence_zh="未上传 fio 输出，无法核对 NVMe 带宽。",
    )


def verify_distributed_storage(
    claims: Claims, evidence: Sequence[NodeEvidence]
) -> ItemVerification:
    """Item 5: always unverifiable; a fio result does not say which mount it ran on."""
    fio_nodes = sorted({ev.node_name for ev in of_kind(evidence, "fio")})
    if not claims.distributed_fs:
        en = "No distributed file system is claimed."
        zh = "未声明分布式文件系统。"
    else:
        en = (
            f"The claimed {claims.distributed_fs} bandwidth cannot be verified from node "
            "evidence: a fio result does not record whether it ran on a local disk or on the "
            "distributed mount."
        )
        zh = (
            f"无法根据节点证据核对所声明的 {claims.distributed_fs} 带宽：fio 结果未记录其测试"
            "对象是本地盘还是分布式挂载点。"
        )
    return ItemVerification(
        "distributed_storage",
        STATUS_UNVERIFIABLE,
        en,
        zh,
        None,
        None,
        {"fio_nodes": fio_nodes, "claimed_fs": claims.distributed_fs},
    )
