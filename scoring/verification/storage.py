"""Checklist items 4 and 5: local NVMe bandwidth from fio; distributed storage (unknowable).

fio jobs are compared with claims of their own kind: a sequential job (rw=read or write) with
large blocks (at least 128 KiB) measures bandwidth and checks the GB/s claims; a random
small-block job (at most 16 KiB) with at least 32 I/Os in flight (iodepth x numjobs) measures
IOPS and checks the IOPS claims (when the offering states them). A job of another kind never
contradicts a claim: it leaves it unverifiable, and says which jobs ran.

A job of the right kind may verify a claim it meets, unless it may have read the page cache
(buffered I/O, or a direct flag the output does not record: fio's text report omits it and
fio's default is buffered); to contradict one it must also be a run that can judge the drive
(``run_shortfalls``): direct I/O (an unrecorded flag is assumed, and said so), enough I/Os in
flight, a long enough run and a file well above cache scale, on a device the output names as
NVMe. What fio
records about where it ran: the block devices it drove (JSON ``disk_util``, the text report's
"Disk stats"; a network or distributed mount has none) and the file or directory it was given.
So a run naming a local device is local-disk evidence; a run naming none is not shown to be
local (the same reason item 5 cannot use fio: no mount type is recorded) and judges no claim.
"""

from __future__ import annotations

import errno
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
    per_node,
    size_text,
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
# A sequential run that can refute a throughput claim. NVMe datasheets quote sequential GB/s
# at 128 KiB with 32 or more I/Os in flight: 4 MiB in flight. What saturates a drive is the
# bytes in flight, not the count of I/Os: 1 MiB blocks at depth 16 (the collector's run) keep
# 16 MiB in flight, four times the datasheet's. A synchronous engine (psync...) keeps one I/O
# in flight per job whatever its iodepth. Buffered I/O measures the page cache and its copy, a
# run of a few seconds its ramp-up, a file of a few MiB the caches in front of the flash.
SEQ_MIN_OUTSTANDING = 32
SEQ_MIN_BYTES_IN_FLIGHT = SEQ_MIN_OUTSTANDING * LARGE_BLOCK_BYTES
MIN_RUNTIME_S = 10.0
MIN_FILE_BYTES = 1024**3
_SYNC_ENGINES = {"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap"}
TARGET_NVME = "nvme"
TARGET_LOCAL = "local"
TARGET_UNKNOWN = "unknown"
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


def effective_outstanding(job: Mapping[str, Any]) -> int | None:
    """I/Os in flight: iodepth x numjobs, one per job for a synchronous engine."""
    jobs = as_int(job.get("numjobs"))
    if str(job.get("ioengine") or "").lower() in _SYNC_ENGINES:
        return jobs
    return outstanding_ios(job)


def bytes_in_flight(job: Mapping[str, Any]) -> int | None:
    """Bytes in flight: the I/Os in flight (effective_outstanding) x the block size; None
    when either is not recorded."""
    depth, size = effective_outstanding(job), as_int(job.get("bs_bytes"))
    return None if depth is None or size is None else depth * size


def run_shortfalls(job: Mapping[str, Any], measure: str = "bandwidth") -> list[tuple[str, str]]:
    """Why a job of the right kind cannot refute a ``measure`` claim, as (en, zh); empty when
    it can. Only what the output records is judged (see ``run_assumptions``): an unrecorded
    direct flag is assumed direct to refute (and said so), never to verify."""
    return [reason for kind, reason in _shortfalls(job, measure) if kind not in _VERIFY_ONLY]


# The shortfalls that can only understate a drive: fewer I/Os in flight than throughput is
# quoted at, and a run shorter than a settled figure needs (the collector's 1 GiB file read at
# NVMe speed takes a fraction of a second; a write's time includes its end_fsync). The others
# can overstate it: buffered I/O measures the page cache and a file under 1 GiB is held in
# caches; a job that ended with an error covers part of the run.
_UNDERSTATES_ONLY = frozenset(("shallow", "short"))
# What stops a run verifying a claim but not refuting one: the direct flag fio's text report
# does not record. fio's default is buffered I/O (direct=0), which reads the page cache: a
# fast run of unknown direct may be the cache, so it verifies nothing (expert review); a run
# that falls short is still read as direct, the assumption run_assumptions states.
_VERIFY_ONLY = frozenset(("direct_unknown",))


def overstating_shortfalls(
    job: Mapping[str, Any], measure: str = "bandwidth"
) -> list[tuple[str, str]]:
    """The shortfalls (run_shortfalls) of a job that may make it read faster than the drive:
    a job with any cannot verify a claim it meets, as it cannot refute one it misses."""
    return [reason for kind, reason in _shortfalls(job, measure) if kind not in _UNDERSTATES_ONLY]


def _shortfalls(job: Mapping[str, Any], measure: str) -> list[tuple[str, tuple[str, str]]]:
    """run_shortfalls, each reason with its kind (error, buffered, shallow, short, small)."""
    found: list[tuple[str, tuple[str, str]]] = []
    error = as_int(job.get("error"))
    if error:
        # fio's error codes are errno values: 5 is EIO (the drive failed an I/O), 28 ENOSPC.
        name = errno.errorcode.get(error)
        code = f"{error} ({name})" if name else str(error)
        found.append(
            (
                "error",
                (
                    f"the job ended with error {code}: its figures cover only the I/O done before "
                    "the failure",
                    f"该任务以错误 {code} 结束：其数据只覆盖失败前完成的 I/O",
                ),
            )
        )
    if job.get("direct") is False:
        found.append(
            (
                "buffered",
                (
                    "buffered I/O (direct=0: the page cache is measured, not the drive)",
                    "缓冲 I/O（direct=0：测的是页缓存而非磁盘）",
                ),
            )
        )
    elif job.get("direct") is None:
        found.append(
            (
                "direct_unknown",
                (
                    "direct I/O is not recorded (fio's text report omits it, and fio's default "
                    "is buffered I/O, which measures the page cache): upload fio's JSON output "
                    "(--output-format=json), which records it",
                    "输出未记录是否为 direct I/O（fio 文本报告不含此项，"
                    "而 fio 默认使用缓冲 I/O，测的是页缓存）："
                    "请上传 fio 的 JSON 输出（--output-format=json），其中会记录此项",
                ),
            )
        )
    depth = effective_outstanding(job)
    in_flight = bytes_in_flight(job)
    if in_flight is None:
        shallow = depth is not None and depth < SEQ_MIN_OUTSTANDING
    else:
        shallow = in_flight < SEQ_MIN_BYTES_IN_FLIGHT
    if measure == "bandwidth" and shallow:
        engine = job.get("ioengine") or "?"
        quoted = f"{SEQ_MIN_OUTSTANDING} × {LARGE_BLOCK_BYTES // 1024} KiB"
        found.append(
            (
                "shallow",
                (
                    f"{depth} I/O(s) in flight ({engine}, iodepth {job.get('iodepth')} × "
                    f"{job.get('numjobs')} job(s)"
                    + ("" if in_flight is None else f", {size_text(in_flight)} in flight")
                    + f"), under the {quoted} at which NVMe throughput is quoted",
                    f"在途 I/O 仅 {depth} 个（{engine}，iodepth {job.get('iodepth')} × "
                    f"{job.get('numjobs')} 个任务"
                    + ("" if in_flight is None else f"，在途 {size_text(in_flight)}")
                    + f"），低于 NVMe 吞吐标称所用的 {quoted}",
                ),
            )
        )
    runtime = as_float(job.get("runtime_s"))
    if runtime is not None and runtime < MIN_RUNTIME_S:
        found.append(
            (
                "short",
                (
                    f"a {num(runtime)} s run (under {num(MIN_RUNTIME_S)} s)",
                    f"运行仅 {num(runtime)} 秒（不足 {num(MIN_RUNTIME_S)} 秒）",
                ),
            )
        )
    size = as_float(job.get("file_size_bytes"))
    if measure == "bandwidth" and size is not None and size < MIN_FILE_BYTES:
        found.append(
            (
                "small",
                (
                    f"a {size_text(size)} file (under {size_text(MIN_FILE_BYTES)}: held in caches)",
                    f"测试文件仅 {size_text(size)}（不足 {size_text(MIN_FILE_BYTES)}，会被缓存）",
                ),
            )
        )
    return found


def run_assumptions(job: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The conditions of ``run_shortfalls`` the output does not record, taken as met."""
    found = []
    if job.get("direct") is None:
        found.append(
            (
                "direct I/O is not recorded (fio's text report omits it) and is assumed",
                "输出未记录是否为 direct I/O（fio 文本报告不含此项），按 direct I/O 处理",
            )
        )
    if job.get("runtime_s") is None:
        found.append(
            (
                "the run time is not recorded and is assumed long enough",
                "输出未记录运行时长，按足够长处理",
            )
        )
    return found


def fio_device_target(metrics: Mapping[str, Any]) -> tuple[str, list[str]]:
    """("nvme" | "local" | "unknown", device names) from the block devices fio drove."""
    disks = [str(d) for d in as_list(metrics.get("disks")) if d]
    if not disks:
        return TARGET_UNKNOWN, []
    if any(d.lower().startswith("nvme") for d in disks):
        return TARGET_NVME, disks
    return TARGET_LOCAL, disks


def _entries(
    evidence: Iterable[NodeEvidence], direction: str, measure: str
) -> list[tuple[float, NodeEvidence, Mapping[str, Any]]]:
    """(figure, evidence, job) of every job of the kind that measures ``measure`` for
    ``direction``: MB/s of sequential large-block jobs, IOPS of random small-block jobs with
    a deep enough queue (a job of unknown depth is taken at its word)."""
    found = []
    for ev in evidence:
        if ev.kind != "fio":
            continue
        for job in fio_jobs(ev.metrics):
            if measure == "bandwidth":
                value = as_float(job.get(f"{direction}_bw_mbyte_s"))
                fits = job_kind(job, direction) == JOB_BANDWIDTH
            else:
                value = as_float(job.get(f"{direction}_iops"))
                depth = outstanding_ios(job)
                fits = job_kind(job, direction) == JOB_IOPS and (
                    depth is None or depth >= IOPS_MIN_OUTSTANDING
                )
            if value and value > 0 and fits:
                found.append((value, ev, job))
    return found


MET = "met"
REFUTED = "refuted"
UNFIT = "unfit"
NO_TARGET = "no_target"


def judge_jobs(
    entries: Sequence[tuple[float, NodeEvidence, Mapping[str, Any]]],
    want: float | None,
    measure: str,
) -> tuple[str, tuple[float, NodeEvidence, Mapping[str, Any]], list[tuple[str, str]]]:
    """What one node's jobs of the right kind say about a claim of ``want`` (same unit as the
    figures; None: no claim, so nothing is met): (verdict, the job it rests on, reasons).

    MET: a job on a local device that ended without an error and with nothing that can
    overstate the drive (``overstating_shortfalls``: buffered I/O, a direct flag the output
    does not record, a file the caches hold) reached the claim less the tolerance; a run that
    can only understate (too few I/Os in flight, a short run) may verify a claim it meets. A
    device not named as NVMe may meet one (a RAID of NVMe drives is md0; a VM's NVMe may be a
    virtio disk). REFUTED: none did, and a run fit to judge (``run_shortfalls`` empty) on an
    NVMe device fell short. UNFIT:
    neither; the reasons say why the best local job cannot judge (a fast page-cache run
    verifies nothing). NO_TARGET: no job names the device it drove.
    """
    local = [e for e in entries if fio_device_target(e[1].metrics)[0] != TARGET_UNKNOWN]
    if not local:
        return NO_TARGET, max(entries, key=lambda e: e[0]), []
    # A job that ended with an error (an I/O error, a full disk) stopped early: its figures
    # neither meet a claim nor refute one (run_shortfalls says so).
    completed = [e for e in local if not as_int(e[2].get("error"))]
    best = max(completed or local, key=lambda e: e[0])
    provers = [e for e in completed if not overstating_shortfalls(e[2], measure)]
    if want is not None and provers:
        proof = max(provers, key=lambda e: e[0])
        if proof[0] >= want * NVME_MIN_FRACTION:
            return MET, proof, []
    judges = [
        e
        for e in local
        if fio_device_target(e[1].metrics)[0] == TARGET_NVME and not run_shortfalls(e[2], measure)
    ]
    if want is not None:
        # A fit run that met the claim but could not prove it (its direct flag unrecorded)
        # refutes nothing: only a fit run below the tolerance does.
        judges = [e for e in judges if e[0] < want * NVME_MIN_FRACTION]
    else:
        # No claim: the figure read is one no page cache can have inflated.
        judges = [e for e in judges if not overstating_shortfalls(e[2], measure)]
    if judges:
        return REFUTED, max(judges, key=lambda e: e[0]), []
    reasons = [reason for _kind, reason in _shortfalls(best[2], measure)]
    target, disks = fio_device_target(best[1].metrics)
    if target != TARGET_NVME:
        names = ", ".join(disks)
        reasons.append(
            (
                f"it ran on {names}, not a device named as NVMe",
                f"测试设备为 {names}，并非 NVMe 设备",
            )
        )
    return UNFIT, best, reasons


# Per-node figures are judged on the worst node, like the other per-node items; from 20 nodes on,
# on the 5th percentile (nearest rank), so one node among many that a reboot would fix does not
# decide alone. Below 20 nodes the 5th percentile is the worst node. Evidence naming more nodes
# than the candidate has is judged on its worst node: the names are not distinct nodes (a
# good node's files sent again under other names, or nodes swapped during the POC), and they
# must not outvote the bad one.
NODE_PERCENTILE = 0.05


def node_percentile(
    values: Sequence[tuple[float, str]], node_count: int | None = None
) -> tuple[float, str] | None:
    """The (value, node) at the 5th percentile (nearest rank) of per-node values, lower is
    worse; the worst node below 20 nodes, or when there are more values than the candidate's
    ``node_count``. Ties break by node name; None without values."""
    if not values:
        return None
    ordered = sorted(values)
    if node_count is not None and len(ordered) > node_count:
        return ordered[0]
    rank = max(math.ceil(NODE_PERCENTILE * len(ordered)), 1)
    return ordered[rank - 1]


def node_bandwidths(
    evidence: Iterable[NodeEvidence], direction: str, claimed_mbyte_s: float | None = None
) -> list[tuple[float, str, NodeEvidence]]:
    """Each node's sequential large-block ``direction`` bandwidth (MB/s) as the verdict read
    it (``judge_jobs`` against ``claimed_mbyte_s``): the job that met the claim, or the fit
    run that fell short; a node whose runs cannot judge (UNFIT, NO_TARGET) gives no figure.
    As (MB/s, node, evidence), one entry per node with such a job, by node name."""
    per_node: dict[str, list[tuple[float, NodeEvidence, Mapping[str, Any]]]] = {}
    for entry in _entries(evidence, direction, "bandwidth"):
        per_node.setdefault(entry[1].node_name, []).append(entry)
    found = []
    for node, entries in sorted(per_node.items()):
        verdict, (value, ev, _), _ = judge_jobs(entries, claimed_mbyte_s, "bandwidth")
        if verdict in (MET, REFUTED):
            found.append((value, node, ev))
    return found


def worst_node_bandwidth(
    evidence: Iterable[NodeEvidence],
    direction: str,
    claimed_mbyte_s: float | None = None,
    node_count: int | None = None,
) -> tuple[float, NodeEvidence] | None:
    """The per-node ``direction`` bandwidth (MB/s) that judges the candidate: the worst node's
    (the 5th percentile from 20 nodes on, see NODE_PERCENTILE, unless the evidence names more
    nodes than ``node_count``), never the best node's."""
    per_node = node_bandwidths(evidence, direction, claimed_mbyte_s)
    chosen = node_percentile([(value, node) for value, node, _ in per_node], node_count)
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
    notes: list[tuple[str, str]] = []
    ref = fio[0].ref
    claimed_iops = {d: as_float(getattr(claims, f"nvme_{d}_iops")) for d, _ in _DIRECTIONS}
    for measure, wants in (("bandwidth", claimed), ("iops", claimed_iops)):
        for direction, direction_zh in _DIRECTIONS:
            want = wants[direction]
            if want is None or want <= 0:
                continue
            # Several fio jobs on one node (a read job, a write job): each direction's jobs
            # of the kind that measures the claim; other jobs cannot speak to it.
            entries = _entries(fio, direction, measure)
            if not entries:
                gaps.append(_mismatch(fio, direction, direction_zh, measure))
                continue
            unit = 1000.0 if measure == "bandwidth" else 1.0  # fio MB/s against GB/s claims
            verdict, best, reasons = judge_jobs(entries, want * unit, measure)
            got = best[0] / unit
            key = direction if measure == "bandwidth" else f"{direction}_iops"
            details[f"{key}_verdict"] = verdict
            if measure == "bandwidth":
                details[f"{direction}_gbyte_s"] = round(got, 3)
                details[f"{direction}_fraction"] = round(got / want, 3)
                text = (
                    f"{direction} {num(got, 2)} GB/s against {num(want, 2)} GB/s claimed",
                    f"{direction_zh} {num(got, 2)} GB/s（声明 {num(want, 2)} GB/s）",
                )
            else:
                details[f"{direction}_iops"] = round(got, 1)
                details[f"{direction}_iops_fraction"] = round(got / want, 3)
                text = (
                    f"random {direction} {num(got, 0)} IOPS against {num(want, 0)} IOPS claimed",
                    f"随机{direction_zh} {num(got, 0)} IOPS（声明 {num(want, 0)} IOPS）",
                )
            if verdict == MET:
                fits.append(text)
            elif verdict == REFUTED:
                problems.append(text)
                notes.extend(run_assumptions(best[2]))
                ref = best[1].ref
            elif verdict == UNFIT:
                details[f"{key}_set_aside"] = [r[0] for r in reasons]
                gaps.append(
                    (
                        f"{text[0]} comes from a run that cannot judge the drive: "
                        + "; ".join(r[0] for r in reasons),
                        f"{text[1]}来自无法评判磁盘性能的测试：" + "；".join(r[1] for r in reasons),
                    )
                )
            else:
                gaps.append(
                    (
                        f"{text[0]} comes from a run whose output names no block device it "
                        "drove (no disk_util / Disk stats), so it is not shown to be on a "
                        "local disk (a network or distributed mount shows none)",
                        f"{text[1]}所在测试的输出未列出其使用的块设备（无 disk_util / Disk "
                        "stats），无法证明在本地盘上运行（网络或分布式挂载不会列出设备）",
                    )
                )
    if not problems and not fits and not gaps:
        return None
    tol = pct(NVME_MIN_FRACTION)
    tol_zh = pct_zh(NVME_MIN_FRACTION)
    if problems:
        assumed = list(dict.fromkeys(notes))
        return NodeResult(
            node,
            STATUS_CONTRADICTED,
            f"fio on node {node} measured "
            + "; ".join(p[0] for p in problems)
            + f", below {tol} of the claim, in a run able to judge an NVMe drive (direct "
            f"I/O, enough I/Os in flight, at least {num(MIN_RUNTIME_S)} s, on an NVMe device)."
            + "".join(f" Note: {a[0]}." for a in assumed),
            f"节点 {node} 的 fio 实测"
            + "；".join(p[1] for p in problems)
            + f"，低于声明值的 {tol_zh}；该测试足以评判 NVMe 磁盘（direct I/O、足够的在途 "
            f"I/O、至少 {num(MIN_RUNTIME_S)} 秒、NVMe 设备）。"
            + "".join(f"注：{a[1]}。" for a in assumed),
            ref,
            details,
        )
    if gaps:
        return NodeResult(
            node,
            STATUS_UNVERIFIABLE,
            (
                f"fio on node {node} measured " + "; ".join(f[0] for f in fits) + ", but "
                if fits
                else f"fio on node {node}: "
            )
            + "; ".join(g[0] for g in gaps)
            + ".",
            (
                f"节点 {node} 的 fio 实测" + "；".join(f[1] for f in fits) + "，但"
                if fits
                else f"节点 {node} 的 fio："
            )
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
        f"{SMALL_BLOCK_BYTES // 1024} KiB jobs, ≥ {IOPS_MIN_OUTSTANDING} I/Os in flight), on a "
        "block device the output names; only a run with direct I/O, ≥ "
        f"{size_text(SEQ_MIN_BYTES_IN_FLIGHT)} in flight ({SEQ_MIN_OUTSTANDING} × "
        f"{LARGE_BLOCK_BYTES // 1024} KiB, bandwidth), ≥ {num(MIN_RUNTIME_S)} s and a file "
        f"≥ {size_text(MIN_FILE_BYTES)} (bandwidth) on an NVMe device can fall short; a run "
        "that shows buffered I/O or does not record direct I/O (fio's text report) verifies "
        "nothing"
    )
    tolerance_zh = (
        f"实测值 ≥ 声明读/写带宽（GB/s，顺序 ≥ {LARGE_BLOCK_BYTES // 1024} KiB 的任务）及 IOPS"
        f"（随机 ≤ {SMALL_BLOCK_BYTES // 1024} KiB、在途 I/O ≥ {IOPS_MIN_OUTSTANDING} 的任务）的 "
        f"{pct(NVME_MIN_FRACTION)}，且输出列出所用块设备；仅当测试为 direct I/O、在途数据 ≥ "
        f"{size_text(SEQ_MIN_BYTES_IN_FLIGHT)}（{SEQ_MIN_OUTSTANDING} × "
        f"{LARGE_BLOCK_BYTES // 1024} KiB，带宽）、≥ {num(MIN_RUNTIME_S)} 秒、文件 ≥ "
        f"{size_text(MIN_FILE_BYTES)}（带宽）且在 NVMe 设备上时，未达标才判为不符；"
        "显示为缓冲 I/O 或未记录是否为 direct I/O（fio 文本报告）的测试不能用于核实"
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
    results = [
        r
        for node, evs in by_node(evidence).items()
        if (
            r := per_node(
                "local_nvme", node, claims, lambda n=node, e=evs: _nvme_node(n, e, claims)
            )
        )
    ]
    return combine_nodes(
        "local_nvme",
        results,
        tolerance=tolerance,
        tolerance_zh=tolerance_zh,
        no_evidence_en="No fio output was uploaded, so the NVMe bandwidth cannot be checked.",
        no_evidence_zh="未上传 fio 输出，无法核对 NVMe 带宽。",
        extra={
            "claimed_read_gbyte_s": as_float(claims.nvme_read_gbyte_s),
            "claimed_write_gbyte_s": as_float(claims.nvme_write_gbyte_s),
        },
    )


def verify_distributed_storage(
    claims: Claims, evidence: Sequence[NodeEvidence]
) -> ItemVerification:
    """Item 5: always unverifiable. fio records the block devices it drove (``disks``) and the
    path it was given, never the file system type: a run that names no local device may be on
    the distributed mount, on NFS or in memory, so it cannot stand for the claimed system."""
    fio_nodes = sorted({ev.node_name for ev in of_kind(evidence, "fio")})
    if not claims.distributed_fs:
        en = "No distributed file system is claimed."
        zh = "未声明分布式文件系统。"
    else:
        en = (
            f"The claimed {claims.distributed_fs} bandwidth cannot be verified from node "
            "evidence: fio records the local block devices it drove (so a run naming one is "
            "local-disk evidence, item 4), but never the file system it wrote to, so a run "
            "naming none is not shown to be on the claimed distributed mount."
        )
        zh = (
            f"无法根据节点证据核对所声明的 {claims.distributed_fs} 带宽：fio 会记录其使用的本地"
            "块设备（列出设备的测试属于本地盘证据，见第 4 项），但从不记录所写入的文件系统，"
            "因此未列出设备的测试也无法证明是在所声明的分布式挂载点上运行。"
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
