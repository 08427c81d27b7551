"""fio's normal text report (fio 3 and 2.x): job blocks, group status lines, disk stats."""

from __future__ import annotations

import re
from typing import Any

from .common import (
    _BINARY,
    _CLAT_RE,
    _COMMAND_OPTION_RE,
    _COMMAND_RE,
    _DECIMAL,
    _DIRECTIONS,
    _DISK_LINE_RE,
    _DISK_STATS_RE,
    _FAILURE_RE,
    _GROUP_RE,
    _HEADER_BS_RE,
    _HEADER_ENGINE_RE,
    _HEADER_IODEPTH_RE,
    _HEADER_RE,
    _JOB_RE,
    _LAT_TO_US,
    _LATENCY_DEPTH_RE,
    _LAYOUT_RE,
    _NEW_DIR_RE,
    _NEW_GROUP_DIR_RE,
    _OLD_DIR_RE,
    _OLD_GROUP_DIR_RE,
    _RUNTIME_RE,
    _TERSE_RE,
    _VERSION_RE,
    _check_finite,
    _Dir,
    _direct,
    _Group,
    _Job,
    _size_bytes,
    _write_only,
)


def _bytes_per_s(value: str, unit: str, *, old_style: bool) -> float:
    prefix = unit[:-3] if unit.endswith("B/s") else unit
    binary = prefix.endswith("i") or old_style
    scale = (_BINARY if binary else _DECIMAL)[prefix.rstrip("i").lower()]
    return float(value) * scale


def _pick_bw(match: re.Match[str]) -> float:
    """Prefer whichever of the two printed figures is in decimal units."""
    figures = [(match.group("bw1"), match.group("u1"))]
    if match.group("bw2"):
        figures.append((match.group("bw2"), match.group("u2")))
    for value, unit in figures:
        if "i" not in unit:
            return _bytes_per_s(value, unit, old_style=False)
    return _bytes_per_s(*figures[0], old_style=False)


def _iops(text: str) -> float:
    suffix = text[-1].lower()
    if suffix in "kmg":
        return float(text[:-1]) * {"k": 1e3, "m": 1e6, "g": 1e9}[suffix]
    return float(text)


def _job_figures(line: str) -> tuple[str, float, float] | None:
    """(direction, bytes/s, IOPS) from a job's "read: IOPS=..., BW=..." line (fio 3 or 2)."""
    new = _NEW_DIR_RE.match(line)
    if new:
        return new.group("dir"), _pick_bw(new), _iops(new.group("iops"))
    old = _OLD_DIR_RE.match(line)
    if old:
        bw = _bytes_per_s(old.group("bw"), old.group("u"), old_style=True)
        return old.group("dir"), bw, float(old.group("iops"))
    return None


def _group_figures(line: str) -> tuple[str, float] | None:
    """(direction, bytes/s) from a "Run status group" line: "READ: bw=..." or "aggrb=..."."""
    new = _NEW_GROUP_DIR_RE.match(line)
    if new:
        return new.group("dir").lower(), _pick_bw(new)
    old = _OLD_GROUP_DIR_RE.match(line)
    if old:
        return old.group("dir").lower(), _bytes_per_s(
            old.group("bw"), old.group("u"), old_style=True
        )
    return None


def _from_text(lines: list[str], skip: range) -> tuple[dict[int, _Group], dict[str, Any]]:
    groups: dict[int, _Group] = {}
    info: dict[str, Any] = {
        "jobnames": [],
        "rw": [],
        "errors": [],
        "fio_version": None,
        "terse_line": None,
        "disks": None,
        "failures": [],
    }
    layouts: dict[str, int | None] = {}
    in_disk_stats = False
    job_rows: dict[tuple[str, int], _Job] = {}
    info["jobs"] = job_rows
    job_group: _Group | None = None
    job_row: _Job | None = None
    status_group: _Group | None = None
    last_dir: _Dir | None = None
    header_lines: dict[tuple[str, int], int] = {}
    last_result = 0  # the last line of a job block, a Run status line or the disk stats
    for number, raw in enumerate(lines, start=1):
        if number in skip:
            continue
        line = raw.rstrip()
        match = _VERSION_RE.match(line.strip())
        if match:
            info["fio_version"] = info["fio_version"] or f"fio-{match.group(1)}"
            continue
        if info["terse_line"] is None and _TERSE_RE.match(line):
            info["terse_line"] = number
        if _FAILURE_RE.match(line.strip()):
            info["failures"].append((number, line.strip()))
            continue
        if _DISK_STATS_RE.match(line):
            in_disk_stats = True
            info["disks"] = info["disks"] or []
            continue
        if in_disk_stats:
            disk = _DISK_LINE_RE.match(line)
            if disk:
                last_result = number
                info["disks"].append(disk.group(1))
                continue
            in_disk_stats = False
        match = _COMMAND_RE.match(line)
        if match and info.get("command") is None:
            info["command"] = dict(_COMMAND_OPTION_RE.findall(match.group("args")))
            continue
        match = _LAYOUT_RE.match(line)
        if match:
            layouts.setdefault(match.group("name"), _size_bytes(match.group("size").strip()))
            continue
        match = _HEADER_RE.match(line)
        if match:
            rw = match.group("rw")
            if rw not in info["rw"]:
                info["rw"].append(rw)
            key = (match.group("name"), int(match.group("gid")))
            header_lines.setdefault(key, number)
            if key not in job_rows:
                rest = match.group("rest")
                row = job_rows[key] = _Job(key[0], key[1], rw)
                bs = _HEADER_BS_RE.search(rest)
                if bs:
                    size = bs.group("old") or (bs.group("w") if _write_only(rw) else bs.group("r"))
                    row.bs_bytes = _size_bytes(size)
                depth = _HEADER_IODEPTH_RE.search(rest)
                row.iodepth = int(depth.group(1)) if depth else None
                engine = _HEADER_ENGINE_RE.search(rest)
                row.ioengine = engine.group(1) if engine else None
            continue
        match = _JOB_RE.match(line)
        if match:
            last_result = number
            gid = int(match.group("gid"))
            job_group = groups.setdefault(gid, _Group(gid=gid, line=number))
            job_group.jobs += 1
            status_group, last_dir = None, None
            name = match.group("name")
            job_row = job_rows.setdefault((name, gid), _Job(name, gid))
            job_row.processes += int(match.group("jobs"))
            if name not in info["jobnames"]:
                info["jobnames"].append(name)
            if match.group("err") != "0":
                info["errors"].append({"job": name, "error": int(match.group("err"))})
                if job_row.error is None:
                    job_row.error = int(match.group("err"))
                if "error=" in line:  # "err= 5 (file:..., func=fsync, error=<strerror>)"
                    info["failures"].append((number, line.strip()))
            continue
        match = _GROUP_RE.match(line)
        if match:
            last_result = number
            gid = int(match.group("gid"))
            status_group = groups.setdefault(gid, _Group(gid=gid, line=number))
            job_group, job_row, last_dir = None, None, None
            continue
        if job_group is not None:
            figures = _job_figures(line)
            if figures is not None:
                last_result = number
                direction, bw, iops = figures
                if direction == "trim":
                    last_dir = None
                    continue
                acc = job_group.dirs.setdefault(direction, _Dir())
                acc.bw_byte_s += bw
                acc.iops += iops
                acc.reports += 1
                _check_finite((acc.bw_byte_s, acc.iops), number)
                if job_row is not None:
                    job_row.bw_byte_s[direction] += bw
                    job_row.iops[direction] += iops
                    runtime = _RUNTIME_RE.search(line)
                    if runtime:
                        ms = float(runtime.group(1))
                        job_row.runtime_ms = max(job_row.runtime_ms or 0.0, ms)
                last_dir = acc
                continue
            depth = _LATENCY_DEPTH_RE.match(line)
            if depth:
                if job_row is not None and job_row.iodepth is None:
                    job_row.iodepth = int(depth.group(1))
                continue
            clat = _CLAT_RE.match(line)
            if clat and last_dir is not None:
                last_dir.clat_sum_us += float(clat.group("avg")) * _LAT_TO_US[clat.group("unit")]
                last_dir.clat_n += 1
                _check_finite((last_dir.clat_sum_us,), number)
                last_dir = None
                continue
        if status_group is not None:
            group_figures = _group_figures(line)
            if group_figures is None:
                continue
            last_result = number
            direction, bw = group_figures
            _check_finite((bw,), number)
            if direction in _DIRECTIONS:
                status_group.status_bw.setdefault(direction, (bw, number))
    # Under group_reporting the other jobs of a group print a header and no block of their
    # own, but their headers come before the results. A header after every result whose job
    # never reported is a job the output stops at: cut there, or the job died silently.
    info["unreported"] = [
        (name, number)
        for (name, gid), number in header_lines.items()
        if number > last_result and not job_rows[(name, gid)].processes
    ]
    command = info.pop("command", None)
    for (name, _gid), row in job_rows.items():
        row.file_size_bytes = layouts.get(name)
        if command is not None:
            # The command line lists every option the job ran with; one it omits is fio's
            # default (buffered I/O).
            row.direct = _direct(command)
            row.file_size_bytes = row.file_size_bytes or _size_bytes(
                command.get("size") or command.get("filesize")
            )
            target = command.get("filename") or command.get("directory")
            row.target = target or None
            if row.numjobs is None and command.get("numjobs", "").isdigit():
                row.numjobs = int(command["numjobs"])
    return groups, info
