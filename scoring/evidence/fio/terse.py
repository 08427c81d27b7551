"""fio's ``--output-format=terse`` (``--minimal``) lines, versions 3 and 4."""

from __future__ import annotations

import math
from typing import Any

from .common import _TERSE_RE, _Group
from .json_report import _from_json

# Terse (``--output-format=terse`` / ``--minimal``) fields, 0-based, of versions 3 and 4 (the
# layout in fio's HOWTO; version 4 adds the trim block after the write block): the version,
# fio's version, the job name, the group id, the error code, then per direction the I/O in
# KiB, the bandwidth in KiB/s, the IOPS, the runtime in ms, 4 slat and 4 clat figures (us; the
# clat mean third), 20 percentiles, 4 lat and 5 bandwidth figures: 41 fields a direction.
_TERSE_DIRECTION_START = {"read": 5, "write": 46}
_TERSE_VERSIONS = ("3", "4")
# After the directions come CPU (5 fields), I/O depths (7) and latency buckets (22), then one
# block of 9 per disk, its name first: field 121 in version 3, 162 in version 4 (trim added).
_TERSE_DISK_START = {"3": 121, "4": 162}
_TERSE_DISK_FIELDS = 9


def _terse_job(fields: list[str]) -> dict[str, Any] | None:
    """One terse line as the JSON job object ``_from_json`` reads, or None if not v3/v4."""
    if fields[0] not in _TERSE_VERSIONS or len(fields) < 50:
        return None
    try:
        numbers = [float(fields[i]) for i in (3, 4, *range(5, 9), 15, *range(46, 50), 56)]
    except (ValueError, IndexError):
        return None  # a cut or edited line: not a result
    if not all(math.isfinite(n) and n >= 0 for n in numbers):
        return None
    job: dict[str, Any] = {
        "jobname": fields[2],
        "groupid": int(float(fields[3])),
        "error": int(float(fields[4])),
    }
    for direction, start in _TERSE_DIRECTION_START.items():
        kib, bw, iops, runtime = (float(fields[start + offset]) for offset in range(4))
        clat_min, clat_max, clat_mean = (float(fields[start + offset]) for offset in (8, 9, 10))
        job[direction] = {
            "io_bytes": kib * 1024,
            "bw": bw,  # KiB/s, as fio 2.x JSON gives it
            "iops": iops,
            "runtime": runtime,
            "total_ios": round(iops * runtime / 1000),
            "clat": {
                "min": clat_min,
                "max": clat_max,
                "mean": clat_mean,
                "N": max(round(iops * runtime / 1000), 1),
            },
        }
    disks = fields[_TERSE_DISK_START[fields[0]] :: _TERSE_DISK_FIELDS]
    job["disk_util"] = [{"name": d} for d in disks if d and _number_or_none(d) is None]
    return job


def _number_or_none(text: str) -> float | None:
    try:
        return float(text.rstrip("%"))
    except ValueError:
        return None


def _from_terse(lines: list[str]) -> tuple[dict[int, _Group], dict[str, Any]] | None:
    """Groups and info from terse v3/v4 lines (one per job, or per group with
    group_reporting); None when there is no such line."""
    jobs: list[dict[str, Any]] = []
    version: str | None = None
    first = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not _TERSE_RE.match(line):
            continue
        fields = line.split(";")
        job = _terse_job(fields)
        if job is None:
            continue
        first = first or number
        version = version or fields[1]
        jobs.append(job)
    if not jobs:
        return None
    # fio prints the disks once, after the last job's fields.
    disks = [d for job in jobs for d in job.pop("disk_util")]
    names = list(dict.fromkeys(d["name"] for d in disks))
    return _from_json(
        {"fio version": version, "jobs": jobs, "disk_util": [{"name": n} for n in names]}, first
    )
