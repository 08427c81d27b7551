"""Checklist items 4 and 5: local NVMe bandwidth from fio; distributed storage (unknowable).

fio jobs are compared with claims of their own kind: a sequential job (rw=read or write) with
large blocks (at least 128 KiB) measures bandwidth and checks the GB/s claims; a random
small-block job (at most 16 KiB) with at least 32 I/Os in flight (iodepth x numjobs) measures
IOPS and checks the IOPS claims (when the offering states them). A job of another kind never
contradicts a claim: it leaves it unverifiable, and says which jobs ran.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._util import (
    NodeResult,
    as_float,
    as_int,
    as_list,
    by_node,
    combine_nodes,
    num,
    of_kind,
    pct,
    pct_zh,
)
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

# Sequential throughput needs large blocks (fio's own examples and NVMe datasheets use 128 KiB
# to 1 MiB); random IOPS figures are quoted at 4 KiB, up to 16 KiB counts as small.
LARGE_BLOCK_BYTES = 128 * 1024
SMALL_BLOCK_BYTES = 16 * 1024
# Datasheet IOPS are quoted at deep queues (QD128-256); at queue depth 1 a drive shows its
# latency, not its IOPS. Below 32 outstanding I/Os a random job cannot judge an IOPS claim.
IOPS_MIN_OUTSTANDING = 32
_SEQUENTIAL = {"read": "read", "write": "write"}
_RANDOM = {"read": {"randread", "randrw"}, "write": {"randwrite", "randrw"}}
JOB_BANDWIDTH = "bandwidth"
JOB_IOPS = "iops"
JOB_OTHER = "other"


def fio_jobs(metrics: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The parser's per-job rows; for metrics without them (older parses, headline-only
    data) one row from the headline figures, its rw known only if a single mode ran."""
    rows = [j for j in as_list(metrics.get("jobs")) if isinstance(j, Mapping)]
    if rows or "jobs" in metrics:
        return [dict(j) for j in rows]
    modes = [m for m in as_list(metrics.get("rw")) if isinstance(m, str)]
    row: dict[str, Any] = {"name": None, "rw": modes[0] if len(modes) == 1 else None}
    row["bs_bytes"] = row["iodepth"] = row["numjobs"] = None
    for direction, _ in _DIRECTIONS:
        row[f"{direction}_bw_mbyte_s"] = metrics.get(f"{direction}_bw_mbyte_s")
        row[f"{direction}_iops"] = metrics.get(f"{direction}_iops")
    if len(modes) > 1:
        row["rw"] = "+".join(modes)
    return [row]


def job_kind(job: Mapping[str, Any], direction: str) -> str:
    """What a job measures for ``direction``: "bandwidth", "iops" or "other".

    An unknown mode or block size (a headline-only report) is taken at its word as a
    bandwidth figure; a known mode or size that does not fit never is.
    """
    rw = job.get("rw")
    bs = as_int(job.get("bs_bytes"))
    if rw is None or rw == _SEQUENTIAL[direction]:
        if bs is None or bs >= LARGE_BLOCK_BYTES:
            return JOB_BANDWIDTH
        return JOB_OTHER
    if rw in _RANDOM[direction] and (bs is None or bs <= SMALL_BLOCK_BYTES):
        return JOB_IOPS
    return JOB_OTHER


def describe_job(job: Mapping[str, Any]) -> str:
    """ "randwrite 4 KiB, iodepth 1 x 1 job(s)": what fio was asked to run."""
    bs = as_int(job.get("bs_bytes"))
    size = (
        "? KiB"
        if bs is None
        else (f"{num(bs / 1048576)} MiB" if bs >= 1048576 else f"{num(bs / 1024)} KiB")
    )
    depth = job.get("iodepth") if job.get("iodepth") is not None else "?"
    jobs = job.get("numjobs") if job.get("numjobs") is not None else "?"
    return f"{job.get('rw') or '?'} {size}, iodepth {depth} × {jobs} job(s)"


def outstanding_ios(job: Mapping[str, Any]) -> int | None:
    depth, jobs = as_int(job.get("iodepth")), as_int(job.get("numjobs"))
    if depth is None or jobs is None:
        return None
    return depth * jobs


def iops_jobs(evidence: Iterable[NodeEvidence], direction: str) -> list[tuple[float, NodeEvidence]]:
    """(IOPS, evidence) of every random small-block job with a deep enough queue that ran
    ``direction`` (a job of unknown depth is taken at its word)."""
    found = []
    for ev in evidence:
        if ev.kind != "fio":
            continue
        for job in fio_jobs(ev.metrics):
            iops = as_float(job.get(f"{direction}_iops"))
            depth = outstanding_ios(job)
            if (
                iops
                and iops > 0
                and job_kind(job, direction) == JOB_IOPS
                and (depth is None or depth >= IOPS_MIN_OUTSTANDING)
            ):
                found.append((iops, ev))
    return found


def bandwidth_jobs(
    evidence: Iterable[NodeEvidence], direction: str
) -> list[tuple[float, NodeEvidence]]:
    """(MB/s, evidence) of every sequential large-block job that ran ``direction``."""
    found = []
    for ev in evidence:
        if ev.kind != "fio":
            continue
        for job in fio_jobs(ev.metrics):
            mbyte_s = as_float(job.get(f"{direction}_bw_mbyte_s"))
            if mbyte_s and mbyte_s > 0 and job_kind(job, direction) == JOB_BANDWIDTH:
                found.append((mbyte_s, ev))
    return found


# Per-node figures are judged on the worst node, like the other per-node items; from 20 nodes on,
# on the 5th percentile (nearest rank), so one node among many that a reboot would fix does not
# decide alone. Below 20 nodes the 5th percentile is the worst node.
NODE_PERCENTILE = 0.05


def node_percentile(values: Sequence[tuple[float, str]]) -> tuple[float, str] | None:
    """The (value, node) at the 5th percentile (nearest rank) of per-node values, lower is
    worse; the worst node below 20 nodes. Ties break by node name; None without values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(math.ceil(NODE_PERCENTILE * len(ordered)), 1)
    return ordered[rank - 1]


def node_bandwidths(
    evidence: Iterable[NodeEvidence], direction: str
) -> list[tuple[float, str, NodeEvidence]]:
    """Each node's sequential large-block ``direction`` bandwidth (MB/s): the best such job
    on that node (several jobs on one node are settings tried, the node can reach the best),
    as (MB/s, node, evidence), one entry per node with such a job, by node name."""
    best: dict[str, tuple[float, NodeEvidence]] = {}
    for mbyte_s, ev in bandwidth_jobs(evidence, direction):
        found = best.get(ev.node_name)
        if found is None or mbyte_s > found[0]:
            best[ev.node_name] = (mbyte_s, ev)
    return [(value, node, ev) for node, (value, ev) in sorted(best.items())]


def worst_node_bandwidth(
    evidence: Iterable[NodeEvidence], direction: str
) -> tuple[float, NodeEvidence] | None:
    """The per-node ``direction`` bandwidth (MB/s) that judges the candidate: the worst node's
    (the 5th percentile from 20 nodes on, see NODE_PERCENTILE), never the best node's."""
    per_node = node_bandwidths(evidence, direction)
    chosen = node_percentile([(value, node) for value, node, _ in per_node])
    if chosen is None:
        return None
    return next((value, ev) for value, node, ev in per_node if node == chosen[1])


def _mismatch(
    fio: Sequence[NodeEvidence], direction: str, direction_zh: str, measure: str
) -> tuple[str, str]:
    """Why no job could judge the ``measure`` ("bandwidth" or "iops") claim of a direction."""
    ran = [
        describe_job(j)
        for e in fio
        for j in fio_jobs(e.metrics)
        if (as_float(j.get(f"{direction}_bw_mbyte_s")) or 0) > 0
    ]
    if not ran:
        what_zh = "带宽" if measure == "bandwidth" else " IOPS"
        return (f"fio did not measure {direction}s", f"fio 未测量{direction_zh}{what_zh}")
    shown = "; ".join(dict.fromkeys(ran))
    if measure == "bandwidth":
        return (
            f"no sequential large-block {direction} job ran (only {shown}, which "
            f"measures IOPS or a mixed load, not the claimed {direction} bandwidth)",
            f"未运行顺序大块{direction_zh}测试（仅有 {shown}，"
            f"测量的是 IOPS 或混合负载，而非声明的{direction_zh}带宽）",
        )
    return (
        f"no random small-block {direction} job with at least {IOPS_MIN_OUTSTANDING} I/Os in "
        f"flight ran (only {shown}), so the claimed {direction} IOPS are not measured",
        f"未运行至少 {IOPS_MIN_OUTSTANDING} 个并发 I/O 的随机小块{direction_zh}测试"
        f"（仅有 {shown}），声明的{direction_zh} IOPS 未被测量",
    )


def _nvme_node(node: str, evs: Sequence[NodeEvidence], claims: Claims) -> NodeResult | None:
    fio = of_kind(evs, "fio")
    if not fio:
        return None
    claimed = {
        "read": as_float(claims.nvme_read_gbyte_s),
        "write": as_float(claims.nvme_write_gbyte_s),
    }
    details: dict[str, Any] = {
        "jobs": [
            {**j, "kind": {d: job_kind(j, d) for d, _ in _DIRECTIONS}}
            for e in fio
            for j in fio_jobs(e.metrics)
        ]
    }
    problems: list[tuple[str, str]] = []
    fits: list[tuple[str, str]] = []
    gaps: list[tuple[str, str]] = []
    ref = fio[0].ref
    for direction, direction_zh in _DIRECTIONS:
        want = claimed[direction]
        if want is None or want <= 0:
            continue
        # Several fio jobs on one node (a read job, a write job): each direction's best
        # sequential large-block job; other jobs cannot speak to a bandwidth claim.
        jobs = bandwidth_jobs(fio, direction)
        best = max(jobs, key=lambda pair: pair[0]) if jobs else None
        if best is None:
            gaps.append(_mismatch(fio, direction, direction_zh, "bandwidth"))
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
    for direction, direction_zh in _DIRECTIONS:
        want = as_float(getattr(claims, f"nvme_{direction}_iops"))
        if want is None or want <= 0:
            continue
        jobs = iops_jobs(fio, direction)
        best = max(jobs, key=lambda pair: pair[0]) if jobs else None
        if best is None:
            gaps.append(_mismatch(fio, direction, direction_zh, "iops"))
            continue
        details[f"{direction}_iops"] = round(best[0], 1)
        details[f"{direction}_iops_fraction"] = round(best[0] / want, 3)
        text = (
            f"random {direction} {num(best[0], 0)} IOPS against {num(want, 0)} IOPS claimed",
            f"随机{direction_zh} {num(best[0], 0)} IOPS（声明 {num(want, 0)} IOPS）",
        )
        if best[0] < want * NVME_MIN_FRACTION:
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
    """Item 4: fio bandwidth (and IOPS) per direction at least 80 % of the claimed NVMe
    read/write GB/s (and IOPS), each from jobs of its own kind.

    Only the claims made are judged; capacity is never measured and is said so.
    """
    tolerance = (
        f"measured ≥ {pct(NVME_MIN_FRACTION)} of the claimed read/write GB/s (sequential "
        f"≥ {LARGE_BLOCK_BYTES // 1024} KiB jobs) and IOPS (random ≤ "
        f"{SMALL_BLOCK_BYTES // 1024} KiB jobs, ≥ {IOPS_MIN_OUTSTANDING} I/Os in flight)"
    )
    tolerance_zh = (
        f"实测值 ≥ 声明读/写带宽（GB/s，顺序 ≥ {LARGE_BLOCK_BYTES // 1024} KiB 的任务）及 IOPS"
        f"（随机 ≤ {SMALL_BLOCK_BYTES // 1024} KiB、在途 I/O ≥ {IOPS_MIN_OUTSTANDING} 的任务）的 "
        f"{pct(NVME_MIN_FRACTION)}"
    )
    claimed_any = (
        claims.nvme_read_gbyte_s,
        claims.nvme_write_gbyte_s,
        claims.nvme_read_iops,
        claims.nvme_write_iops,
    )
    if all(as_float(value) is None for value in claimed_any):
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
