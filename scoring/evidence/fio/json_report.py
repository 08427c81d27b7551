"""fio's ``--output-format=json`` (and ``json+``) document: found in a file that may hold other text
before and after it, and read into groups and jobs."""

from __future__ import annotations

import json
from typing import Any

from ..base import (
    EvidenceParseError,
)
from .common import (
    _DIRECTIONS,
    KIND,
    _check_finite,
    _Dir,
    _direct,
    _Group,
    _Job,
    _num,
    _option_int,
    _size_bytes,
    _write_only,
)


def _find_json(text: str) -> tuple[Any, int, int, int] | None:
    """Locate fio's JSON object. Returns (data, start_offset, end_offset, start_line)."""
    offset = 0
    for number, raw in enumerate(text.splitlines(keepends=True), start=1):
        if raw.rstrip() == "{":
            try:
                data, end = json.JSONDecoder().raw_decode(text, offset)
            except json.JSONDecodeError as exc:
                line = text.count("\n", 0, exc.pos) + 1
                raise EvidenceParseError(
                    f"fio JSON is unreadable ({exc.msg}; truncated?)",
                    line=line,
                    kind=KIND,
                    code="fio.json_unreadable",
                    params={"detail": exc.msg},
                ) from None
            except RecursionError:
                raise EvidenceParseError(
                    "fio JSON is nested too deeply",
                    line=number,
                    kind=KIND,
                    code="fio.json_too_deep",
                ) from None
            return data, offset, end, number
        offset += len(raw)
    return None


def _from_json(data: Any, line: int) -> tuple[dict[int, _Group], dict[str, Any]]:
    if not isinstance(data, dict):
        raise EvidenceParseError(
            "fio JSON is not an object", line=line, kind=KIND, code="fio.json_not_object"
        )
    jobs = data.get("jobs")
    if jobs is None and isinstance(data.get("client_stats"), list):
        jobs = [
            j
            for j in data["client_stats"]
            if isinstance(j, dict) and j.get("jobname") != "All clients"
        ]
    if not isinstance(jobs, list) or not jobs:
        raise EvidenceParseError(
            "fio JSON has no 'jobs' list", line=line, kind=KIND, code="fio.json_no_jobs"
        )
    groups: dict[int, _Group] = {}
    info: dict[str, Any] = {
        "jobnames": [],
        "rw": [],
        "errors": [],
        "fio_version": data.get("fio version"),
    }
    global_options = (
        data.get("global options") if isinstance(data.get("global options"), dict) else {}
    )
    global_rw = global_options.get("rw")
    listed_options = "global options" in data or any(
        isinstance(j, dict) and "job options" in j for j in jobs
    )
    job_rows: dict[tuple[str, int], _Job] = {}
    info["jobs"] = job_rows
    disks = data.get("disk_util")
    info["disks"] = (
        [str(d["name"]) for d in disks if isinstance(d, dict) and d.get("name")]
        if isinstance(disks, list)
        else None
    )
    for job in jobs:
        if not isinstance(job, dict):
            raise EvidenceParseError(
                "fio JSON job entry is not an object",
                line=line,
                kind=KIND,
                code="fio.json_job_not_object",
            )
        name = str(job.get("jobname", "?"))
        gid = int(_num(job.get("groupid", 0), "groupid", line))
        group = groups.setdefault(gid, _Group(gid=gid, line=line))
        group.jobs += 1
        if name not in info["jobnames"]:
            info["jobnames"].append(name)
        options = job.get("job options") if isinstance(job.get("job options"), dict) else {}
        rw = options.get("rw") or global_rw
        if isinstance(rw, str) and rw not in info["rw"]:
            info["rw"].append(rw)
        row = job_rows.get((name, gid))
        if row is None:
            opts = {**global_options, **options}
            row = job_rows[(name, gid)] = _Job(name, gid, rw if isinstance(rw, str) else None)
            bs = opts.get("bs")
            if bs is not None and _write_only(row.rw):
                parts = str(bs).split(",")  # "bs=4k,128k": read size, write size
                bs = parts[1] if len(parts) > 1 and parts[1].strip() else parts[0]
            if bs is None and not listed_options:
                row.bs_bytes = None  # fio 2.x JSON lists no options: the size is unknown
            else:
                row.bs_bytes = _size_bytes(bs if bs is not None else "4k")  # fio's default bs
            depth = opts.get("iodepth")
            if depth is None and not job.get("latency_target"):
                # Without a latency target fio reports the job's iodepth as latency_depth.
                depth = job.get("latency_depth")
            row.iodepth = _option_int(depth if depth is not None else 1)
            row.numjobs = _option_int(opts.get("numjobs", 1))
            if listed_options:
                # fio 3 lists the options it was given: an option not listed is fio's default
                # (buffered I/O, the psync engine on Linux).
                row.direct = _direct(opts)
                row.ioengine = str(opts.get("ioengine") or "psync")
                row.file_size_bytes = _size_bytes(opts.get("size") or opts.get("filesize"))
                target = opts.get("filename") or opts.get("directory")
                row.target = str(target) if target else None
        row.processes += 1
        if job.get("error") not in (None, 0):
            info["errors"].append({"job": name, "error": job.get("error")})
            if row.error is None and isinstance(job.get("error"), int):
                row.error = job["error"]
        for direction in _DIRECTIONS:
            stats = job.get(direction)
            if not isinstance(stats, dict):
                continue
            io_bytes = _num(stats.get("io_bytes", 0), f"{direction}.io_bytes", line)
            runtime = _num(stats.get("runtime", 0), f"{direction}.runtime", line)
            total = _num(stats.get("total_ios", 0), f"{direction}.total_ios", line)
            if io_bytes == 0 and runtime == 0:
                # Nothing moved and no time measured: a direction the job did not run, or whose
                # only I/O failed at once (total_ios 1 of a job that ended with ENOSPC): no
                # figure, as terse output gives none for it.
                continue
            if "bw_bytes" in stats:
                bw = _num(stats["bw_bytes"], f"{direction}.bw_bytes", line)
            else:
                bw = _num(stats.get("bw", 0), f"{direction}.bw", line) * 1024.0
            acc = group.dirs.setdefault(direction, _Dir())
            acc.bw_byte_s += bw
            iops = _num(stats.get("iops", 0), f"{direction}.iops", line)
            acc.iops += iops
            acc.reports += 1
            row.bw_byte_s[direction] += bw
            row.iops[direction] += iops
            if runtime > 0:
                row.runtime_ms = max(row.runtime_ms or 0.0, runtime)
            clat = stats.get("clat_ns")
            scale = 1e-3
            if not isinstance(clat, dict):
                clat, scale = stats.get("clat"), 1.0  # fio 2.x: microseconds
            # Under gtod_reduce fio times nothing: min, max and mean are all 0, not a latency.
            unmeasured = isinstance(clat, dict) and clat.get("max") == 0 and clat.get("mean") == 0
            if isinstance(clat, dict) and "mean" in clat and not unmeasured:
                count = _num(clat.get("N", total or 1), f"{direction}.clat.N", line)
                mean = _num(clat["mean"], f"{direction}.clat.mean", line)
                acc.clat_sum_us += mean * scale * count
                acc.clat_n += count
            _check_finite((acc.bw_byte_s, acc.iops, acc.clat_sum_us), line)
    return groups, info
