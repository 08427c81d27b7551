"""Parser for ``fio`` results: bandwidth (MB/s) and IOPS per direction, from json or text.

Reads ``--output-format=json`` (and ``json+``), the normal text report, and files where both
are mixed (``--output-format=normal,json`` prints them one after another).

Units: the metrics are in MB/s = 10**6 bytes per second (decimal megabytes). fio's JSON gives
``bw_bytes`` (bytes/s; fio >= 3) and ``bw`` (KiB/s = 1024 bytes/s; the only figure in fio 2.x).
fio 3 text prints ``BW=1063MiB/s (1115MB/s)``: the decimal figure in parentheses is used when
shown, otherwise the binary one is converted (1 MiB/s = 1.048576 MB/s). fio 2.x text
(``bw=104857KB/s``, ``aggrb=``) means 1024-based units by its own default (kb_base=1024) and
is converted as such. Text IOPS are rounded by fio ("IOPS=14.3k"); JSON IOPS are exact.

Metrics (``ParseResult.metrics``):

- ``read_bw_mbyte_s``, ``write_bw_mbyte_s`` (float|None), ``read_iops``, ``write_iops``
  (float|None): summed over the jobs of a reporting group (or the group_reporting figure);
  None when that direction did not run. With several groups (``stonewall``/``new_group`` run
  one after another, so summing them would double count), each headline is the best group's.
- ``read_clat_mean_us``, ``write_clat_mean_us`` (float|None): mean completion latency (JSON:
  weighted by I/O count; text: only when one job block reports that direction).
- ``groups``: ``[{"groupid", "jobs", "read_bw_mbyte_s", "write_bw_mbyte_s", "read_iops",
  "write_iops"}]``; ``job_count``; ``jobnames``; ``rw`` (distinct rw modes seen);
- ``jobs``: one row per job definition (name and group), in order: ``{"name", "groupid",
  "rw", "bs_bytes", "iodepth", "numjobs", "read_bw_mbyte_s", "write_bw_mbyte_s",
  "read_iops", "write_iops"}``. ``rw`` is fio's mode ("read", "randwrite"...); ``bs_bytes``
  the block size in bytes (the write size for write-only modes; fio's k/M are 1024-based);
  ``iodepth`` and ``numjobs`` as set (1 when not shown; without an iodepth option the depth
  fio reports with the latency figures is used: JSON ``latency_depth``, text
  ``latency : ... depth=N``, the job's iodepth unless a latency target was set; fio 2.x
  JSON lists no options at all, so its ``bs_bytes`` is None). Figures are summed over the job's
  processes; a direction the job did not run is 0 (a write-only job reads 0), the same in the
  JSON and the text forms. Fields fio did not print are None. ``error``: the first non-zero
  error code (an errno) a process of the job ended with, else None: the figures then cover
  only the I/O done before the failure, and verification does not judge a claim by them.
  ``fio_version``; ``format`` ("json", "normal", "normal+json" or "terse"); ``errors``
  (jobs with a non-zero error code).
- ``--output-format=terse`` (``--minimal``) versions 3 and 4 are read too: bandwidth (KiB/s)
  and IOPS per direction, the clat mean; the lines carry no options, so a terse job's
  ``rw`` and ``bs_bytes`` are None (``iodepth`` and ``numjobs`` are 1, as for any job whose
  options were not shown) unless fio's job header line for it ("<job>: (g=0): rw=read,
  bs=(R) 128KiB-128KiB, ..., ioengine=psync, iodepth=1", printed on the same stdout) is in the
  file: its rw, block size, ioengine and iodepth are then read. A file with the normal report as
  well is read from the normal report.

A paste that indents all of fio's column-0 lines alike is read without that indent, and a
figure a person set in markdown bold ("write: **IOPS=111k**, ...") without the asterisks.

A run that reported no figures but printed fio's own error lines (``fio: pid=N, err=5/file:...,
func=io_u error, error=Input/output error``, ``fio: io_u error on file ...``, a job line
``err= 5 (..., error=...)``) is recognised from those lines alone and fails with an error
quoting the first of them that names the failed call (``fio.failed``).

A log captured through a relay that puts the same text before every line (a CI runner's
``[node-3] ``, a logging framework's ``2026-11-02T10:11:12.345Z INFO  ``, ``stdout: ``,
``kubectl logs --prefix``) is read without that prefix (``base.strip_line_prefix``): the text
before fio's own first token (``{``, ``<job>: (g=0)``, ``Run status group``, ``READ: bw=``...)
that the large majority of lines share. Lines that share none are read as they are.

Facts: ``read_bw_mbyte_s``/``write_bw_mbyte_s`` (unit "MB/s") and ``read_iops``/``write_iops``
(unit "IOPS") for the headline figures.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from .base import (
    EvidenceParseError,
    Fact,
    ParseResult,
    decode_quoted_printable,
    strip_line_prefix,
)

KIND = "fio"

_DETECT_MAX_LINES = 200
_DETECT_MAX_CHARS = 65536
_DIRECTIONS = ("read", "write")

_JOB_RE = re.compile(
    r"^(?P<name>\S.*?):\s*\(groupid=(?P<gid>\d+),\s*jobs=(?P<jobs>\d+)\):\s*err=\s*(?P<err>-?\d+)"
)
_NEW_DIR_RE = re.compile(
    r"^\s*(?P<dir>read|write|trim)\s*:\s*IOPS=(?P<iops>\d+(?:\.\d+)?[kKMG]?),\s*"
    r"BW=(?P<bw1>\d+(?:\.\d+)?)(?P<u1>[kKMGTP]?i?B/s)"
    r"(?:\s*\((?P<bw2>\d+(?:\.\d+)?)(?P<u2>[kKMGTP]?i?B/s)\))?"
)
_OLD_DIR_RE = re.compile(
    r"^\s*(?P<dir>read|write|trim)\s*:\s*io=[^,]*,\s*bw=(?P<bw>\d+(?:\.\d+)?)(?P<u>[KMGTP]?B/s),"
    r"\s*iops=(?P<iops>\d+(?:\.\d+)?)"
)
_CLAT_RE = re.compile(r"^\s*clat\s*\((?P<unit>nsec|usec|msec)\):.*?\bavg=\s*(?P<avg>\d+(?:\.\d+)?)")
_GROUP_RE = re.compile(r"^Run status group (?P<gid>\d+) \(all jobs\):")
_NEW_GROUP_DIR_RE = re.compile(
    r"^\s*(?P<dir>READ|WRITE|TRIM):\s*bw=(?P<bw1>\d+(?:\.\d+)?)(?P<u1>[kKMGTP]?i?B/s)"
    r"(?:\s*\((?P<bw2>\d+(?:\.\d+)?)(?P<u2>[kKMGTP]?i?B/s)\))?"
)
_OLD_GROUP_DIR_RE = re.compile(
    r"^\s*(?P<dir>READ|WRITE|TRIM):\s*io=[^,]*,\s*aggrb=(?P<bw>\d+(?:\.\d+)?)(?P<u>[KMGTP]?B/s)"
)
_HEADER_RE = re.compile(r"^(?P<name>\S.*?): \(g=(?P<gid>\d+)\): rw=(?P<rw>[a-z]+)(?P<rest>.*)$")
# The read block size range ends before an "=": "\S*?" ran on over every "bs=(R)" of a long word
# from each of them (quadratic).
_HEADER_BS_RE = re.compile(
    r"bs=\(R\)\s*(?P<r>\d+(?:\.\d+)?[KMGkmg]?i?B)-[^\s=]*?,\s*\(W\)\s*(?P<w>\d+(?:\.\d+)?[KMGkmg]?i?B)"
    r"|bs=(?P<old>\d+(?:\.\d+)?[KMGkmg]?)(?:-|,|\s|/|$)"
)
_HEADER_IODEPTH_RE = re.compile(r"\biodepth=(\d{1,6})\b")
_HEADER_ENGINE_RE = re.compile(r"\bioengine=([A-Za-z0-9_]+)")
# "read: IOPS=..., BW=...(<io>/<n>msec)" (fio 3) and "read : io=..., runt=<n>msec" (fio 2):
# the run time.
_RUNTIME_RE = re.compile(r"(?:/|\brunt=\s*)(\d{1,12})msec\)?")
# "<job>: Laying out IO file (1 file / <size>)": the size of the file the job laid out.
_LAYOUT_RE = re.compile(
    r"^(?P<name>\S.*?): Laying out IO file(?:\(s\)|s)? ?\(\d+ file(?:\(s\)|s)? / (?P<size>[^)]+)\)"
)
# An echoed command line ("$ fio --name=x --rw=read --direct=1 ..."): the text report does not
# print the options, the command line does. The shell prompt may name the user, host and
# directory ("root@truenas[/mnt/data]# fio ...", busybox's "/ # fio ..." in a pod). Each run of
# blanks is taken whole ("(?!\s)"): the prompt's and the arguments' ".*" could take any part of
# it, and every split of a long run was tried (quadratic after "fio").
_COMMAND_RE = re.compile(
    r"^\s*(?!\s)(?:[^#$\n]{0,80}?[$#]\s*)?(?:sudo\s+)?(?:\S*/)?fio\s+(?P<args>(?!\s).*--\S.*)$"
)
# "--size=22m", or "--directory /data": fio's long options take their value either way.
_COMMAND_OPTION_RE = re.compile(
    r"--(direct|buffered|filename|directory|size|filesize|numjobs)(?:=|\s+(?=[^-\s]))(\S+)"
)
_DISK_STATS_RE = re.compile(r"^\s*Disk stats \(read/write\):\s*$")
_DISK_LINE_RE = re.compile(r"^\s+([A-Za-z0-9_.:-]+): ios=")
_SIZE_RE = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?P<p>[kmgtKMGT]?)(?:i?[bB])?$")
_VERSION_RE = re.compile(r"^fio-(\d+\.\d+\S*)\s*$")
# "latency   : target=0, window=0, percentile=100.00%, depth=16": fio's iodepth for the job.
_LATENCY_DEPTH_RE = re.compile(r"^\s*latency\s*:\s*target=.*\bdepth=(\d{1,6})\b")
_TERSE_RE = re.compile(r"^\d;fio-\d")
# What fio prints on stderr when an I/O or a setup step fails: "fio: pid=<pid>,
# err=<errno>/file:<source>.c:<line>, func=<call>, error=<strerror>" (the job's end) and
# "fio: io_u error on file <path>: <strerror>: <read|write> offset=<n>, buflen=<n>".
_FAILURE_RE = re.compile(
    r"^fio: (?:pid=\d{1,10}, err=\d{1,6}/file:\S+, func=|io_u error on file \S)"
)
# Where fio's own output starts on a line, each a token fio prints at column 0 (the group lines
# keep fio's indentation): a log relay's line prefix is what comes before it. A job name is
# taken as one word of at most 64 characters here (bounded, so that a long line without blanks
# is searched in linear time); a wrong guess is dropped by the shared-prefix check.
_FIRST_TOKEN_RE = re.compile(
    r"Run status group \d+ \(all jobs\):"
    r"|\{\s*$"
    r"|fio-\d+\.\d+\S*\s*$"
    r"|Starting \d+ (?:process|thread)"
    r"|(?<![\w.;])\d;fio-\d"
    r"|[^\s:]{1,64}: \((?:g|groupid)=\d+"
    r"|(?:   READ|  WRITE|   TRIM): (?:bw|io)="
)
# The lines fio prints at column 0 (version, "Starting N processes|threads", a job's header and
# result line, a group's summary): where a paste indents them all alike, the indent is the
# paste's, not fio's.
_COLUMN0_RE = re.compile(
    r"Run status group \d+ \(all jobs\):"
    r"|fio-\d+\.\d+\S*\s*$"
    r"|Starting \d+ (?:process|thread)"
    r"|[^\s:]{1,64}: \((?:g|groupid)=\d+"
)


def _tidy(lines: list[str]) -> list[str]:
    """``lines`` as fio printed them: without the markdown bold a person put around a figure
    ("write: **IOPS=111k**, ..."; fio never prints "**"), and without the indent a paste gave
    every line when all of fio's column-0 lines carry the same one. Line numbers are kept; the
    same list comes back when nothing was changed."""
    if any("**" in line for line in lines):
        lines = [line.replace("**", "") for line in lines]
    indents: set[str] = set()
    for line in lines[: _DETECT_MAX_LINES * 10]:
        stripped = line.lstrip(" \t")
        if stripped and _COLUMN0_RE.match(stripped):
            indents.add(line[: len(line) - len(stripped)])
            if len(indents) > 1:
                return lines
    indent = next(iter(indents), "")
    if not indent:
        return lines
    return [
        line[len(indent) :] if line.startswith(indent) else line.lstrip(" \t") for line in lines
    ]


# fio itself prints a bare "..." under a job header when numjobs > 1: not a cut marker.
_EXCERPT_RE = re.compile(r"\[\.\.\.\]|<snip>", re.IGNORECASE)

_DECIMAL = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}
_BINARY = {"": 1.0, "k": 1024.0, "m": 1024.0**2, "g": 1024.0**3, "t": 1024.0**4, "p": 1024.0**5}
_LAT_TO_US = {"nsec": 1e-3, "usec": 1.0, "msec": 1e3}


@dataclass
class _Dir:
    bw_byte_s: float = 0.0
    iops: float = 0.0
    clat_sum_us: float = 0.0
    clat_n: float = 0.0
    reports: int = 0


@dataclass
class _Job:
    """One job definition (name and group) and the figures of its processes."""

    name: str
    gid: int
    rw: str | None = None
    bs_bytes: int | None = None
    iodepth: int | None = None
    numjobs: int | None = None
    direct: bool | None = None
    ioengine: str | None = None
    file_size_bytes: int | None = None
    runtime_ms: float | None = None
    target: str | None = None
    # The first non-zero error code (an errno: 5 EIO, 28 ENOSPC...) a process of the job
    # ended with: its figures then cover only the I/O done before the failure.
    error: int | None = None
    processes: int = 0
    bw_byte_s: dict[str, float] = field(default_factory=lambda: dict.fromkeys(_DIRECTIONS, 0.0))
    iops: dict[str, float] = field(default_factory=lambda: dict.fromkeys(_DIRECTIONS, 0.0))


def _size_bytes(text: Any) -> int | None:
    """fio sizes: "4k", "1M", "128KiB", "4096B", 4096 -> bytes (k = 1024, as fio's bs)."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return int(text) if text > 0 else None
    if not isinstance(text, str):
        return None
    first = text.split(",")[0].split(":")[0].split("-")[0].strip()
    match = _SIZE_RE.match(first)
    if not match:
        return None
    value = float(match.group("n")) * _BINARY[match.group("p").lower()]
    return int(value) if 0 < value < 2**63 else None


def _write_only(rw: str | None) -> bool:
    return rw in ("write", "randwrite", "trimwrite")


def _direct(options: dict[str, Any]) -> bool:
    """Whether a job's listed options ask for direct (unbuffered) I/O; fio's default is not."""
    if options.get("direct") is not None:
        return _option_int(options["direct"]) == 1
    if options.get("buffered") is not None:
        return _option_int(options["buffered"]) == 0
    return False


def _option_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if number >= 0 else None


@dataclass
class _Group:
    gid: int
    line: int
    jobs: int = 0
    dirs: dict[str, _Dir] = field(default_factory=dict)
    status_bw: dict[str, tuple[float, int]] = field(default_factory=dict)


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is fio output (json, normal or both; head only)."""
    try:
        head = text[:_DETECT_MAX_CHARS]
        if '"fio version"' in head:
            return 95
        lines, _ = strip_line_prefix(head.splitlines()[:_DETECT_MAX_LINES], _FIRST_TOKEN_RE)
        lines = _tidy(lines)
        if any(_GROUP_RE.match(line) for line in lines):
            return 90
        if any(_JOB_RE.match(line) for line in lines):
            return 85
        version = any(_VERSION_RE.match(line.strip()) for line in lines)
        # "Starting 4 processes", or "Starting 16 threads" for a job run with thread=1.
        starting = any(
            line.startswith("Starting ") and ("process" in line or "thread" in line)
            for line in lines
        )
        if version and starting:
            return 60
        if any(_TERSE_RE.match(line) for line in lines):
            return 50
        # A run that failed before any job reported: fio's own error lines alone.
        if any(_FAILURE_RE.match(line.strip()) for line in lines):
            return 70 if version or starting else 55
        return 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


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


def _num(value: Any, what: str, line: int) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EvidenceParseError(
            f"fio JSON field {what} is not a number",
            line=line,
            kind=KIND,
            code="fio.field_not_number",
            params={"field": what},
        )
    number = float(value)
    if math.isnan(number) or math.isinf(number) or number < 0:
        raise EvidenceParseError(
            f"fio JSON field {what} is not a valid figure",
            line=line,
            kind=KIND,
            code="fio.field_invalid",
            params={"field": what},
        )
    return number


def _check_finite(values: tuple[float, ...], line: int) -> None:
    if not all(math.isfinite(v) for v in values):
        raise EvidenceParseError(
            "implausible figure (number overflow)", line=line, kind=KIND, code="fio.overflow"
        )


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


def _mbyte(value: float) -> float:
    return round(value / 1e6, 3)


def _job_row(job: _Job) -> dict[str, Any]:
    numjobs = job.numjobs if job.numjobs is not None else job.processes
    row: dict[str, Any] = {
        "name": job.name,
        "groupid": job.gid,
        "rw": job.rw,
        "bs_bytes": job.bs_bytes,
        "iodepth": job.iodepth if job.iodepth is not None else 1,
        "numjobs": max(numjobs, job.processes, 1),
        "direct": job.direct,
        "ioengine": job.ioengine,
        "file_size_bytes": job.file_size_bytes,
        "runtime_s": None if job.runtime_ms is None else round(job.runtime_ms / 1000, 3),
        "target": job.target,
        "error": job.error,
    }
    for direction in _DIRECTIONS:
        row[f"{direction}_bw_mbyte_s"] = _mbyte(job.bw_byte_s[direction])
        row[f"{direction}_iops"] = round(job.iops[direction], 3)
    return row


def _failure_error(failures: list[tuple[int, str]]) -> EvidenceParseError:
    """The error of a run that reported no figures and said why: fio's "err=" line (it names
    the failed call and the errno's text) before an "io_u error" line or a job's "err= 5"."""
    line, message = next(
        (f for f in failures if f[1].startswith("fio: pid=")),
        next((f for f in failures if "error=" in f[1]), failures[0]),
    )
    return EvidenceParseError(
        f"fio reported no results; the run failed: {message}",
        line=line,
        kind=KIND,
        code="fio.failed",
        params={"message": message},
    )


def parse(text: str) -> ParseResult:
    """Parse fio output (json, json+, normal or mixed); see the module docstring."""
    warnings: list[str] = []
    decoded = decode_quoted_printable(text)
    if decoded is not None:
        # A report kept as a mail archive keeps it: "err=3D 0", "BW=3D195MiB/s".
        text = decoded
        warnings.append(
            "the output was quoted-printable (a mail body: '=3D' for '='): decoded; line "
            "numbers are those of the decoded text"
        )
    lines, prefix = strip_line_prefix(text.splitlines(), _FIRST_TOKEN_RE)
    tidy = _tidy(lines)
    if prefix is not None or tidy is not lines:
        lines = tidy
        text = "\n".join(lines)
    json_error: EvidenceParseError | None = None
    found = None
    try:
        found = _find_json(text)
    except EvidenceParseError as exc:
        json_error = exc
    skip = range(0)
    if found is not None:
        _, _, end, first_line = found
        skip = range(first_line, text.count("\n", 0, end) + 2)
    text_groups, text_info = _from_text(lines, skip)
    text_has_results = any(g.dirs or g.status_bw for g in text_groups.values())

    if found is not None:
        data, _, _, first_line = found
        try:
            groups, info = _from_json(data, first_line)
        except EvidenceParseError as exc:
            if not text_has_results:
                raise
            json_error, found = exc, None
    if found is not None:
        fmt = "normal+json" if text_has_results else "json"
        info["fio_version"] = info["fio_version"] or text_info["fio_version"]
    elif text_has_results:
        groups, info = text_groups, text_info
        fmt = "normal"
        if json_error is not None:
            warnings.append(f"the JSON part is unreadable ({json_error}); used the text report")
    elif json_error is not None:
        # fio writes its error lines into the same file as the JSON (--output): they say why
        # the run stopped, which a JSON cut after them cannot.
        raise _failure_error(text_info["failures"]) if text_info["failures"] else json_error
    elif (terse := _from_terse(lines)) is not None:
        groups, info = terse
        fmt = "terse"
        # A terse line carries no option; fio's job header on the same stdout ("seqread:
        # (g=0): rw=read, bs=(R) 128KiB-128KiB, ..., ioengine=psync, iodepth=1") says them.
        for key, row in info["jobs"].items():
            header = text_info["jobs"].get(key)
            if header is None:
                continue
            for name in ("rw", "bs_bytes", "iodepth", "ioengine"):
                if getattr(row, name) is None:
                    setattr(row, name, getattr(header, name))
            if row.rw and row.rw not in info["rw"]:
                info["rw"].append(row.rw)
    elif text_info["terse_line"] is not None:
        raise EvidenceParseError(
            "fio terse output is not supported: rerun with --output-format=json",
            line=text_info["terse_line"],
            kind=KIND,
            code="fio.terse",
        )
    elif text_info["failures"]:
        raise _failure_error(text_info["failures"])
    else:
        job_line = next((g.line for g in text_groups.values()), None)
        raise EvidenceParseError(
            "fio job header found but no read/write results (job failed or output truncated)"
            if job_line
            else "no fio results found (expected `fio --output-format=json` output or the "
            "normal report with 'Run status group')",
            line=job_line,
            kind=KIND,
            code="fio.no_results" if job_line else "fio.nothing",
        )

    group_rows: list[dict[str, Any]] = []
    best: dict[str, dict[str, tuple[float, int]]] = {d: {} for d in _DIRECTIONS}
    clat: dict[str, float | None] = {d: None for d in _DIRECTIONS}
    for gid in sorted(groups):
        group = groups[gid]
        row: dict[str, Any] = {"groupid": gid, "jobs": group.jobs}
        for direction in _DIRECTIONS:
            acc = group.dirs.get(direction)
            status = group.status_bw.get(direction)
            bw: float | None = None
            line = group.line
            if status is not None:
                bw, line = status
            elif acc is not None:
                bw = acc.bw_byte_s
                if fmt == "normal":
                    warnings.append(
                        f"group {gid}: no 'Run status' {direction.upper()} line; "
                        "bandwidth summed from the job lines (truncated output?)"
                    )
            iops = acc.iops if acc is not None else None
            row[f"{direction}_bw_mbyte_s"] = _mbyte(bw) if bw is not None else None
            row[f"{direction}_iops"] = round(iops, 3) if iops is not None else None
            if bw is not None and (not best[direction] or bw > best[direction]["bw"][0]):
                best[direction]["bw"] = (bw, line)
            if iops is not None and (
                not best[direction].get("iops") or iops > best[direction]["iops"][0]
            ):
                best[direction]["iops"] = (iops, line)
            if acc is not None and acc.clat_n and (fmt != "normal" or acc.reports == 1):
                clat[direction] = round(acc.clat_sum_us / acc.clat_n, 3)
        group_rows.append(row)

    for direction in _DIRECTIONS:
        ran = sum(1 for r in group_rows if r[f"{direction}_bw_mbyte_s"] is not None)
        if ran > 1:
            warnings.append(
                f"{ran} reporting groups ran {direction}s: the headline is the best group "
                "(groups run one after another are not added up)"
            )
    for err in info["errors"]:
        warnings.append(f"job {err['job']} reported error {err['error']}")
    for name, number in info.get("unreported", []) if fmt == "normal" else []:
        warnings.append(
            f"line {number}: job {name} printed its header after the last result and no result "
            "of its own (the output was cut there, or the job failed)"
        )
    for job in info["jobs"].values():
        if job.processes and job.numjobs is not None and job.numjobs > job.processes:
            # Without group_reporting each process has its own block: a cut report shows
            # some of them, and the job's figures are those of the processes shown.
            warnings.append(
                f"job {job.name} ran {job.numjobs} processes but {job.processes} reported: "
                "its figures cover only those"
            )
    excerpt = next((i for i, raw in enumerate(lines, 1) if _EXCERPT_RE.search(raw)), None)
    if excerpt is not None:
        warnings.append(f"excerpt marker at line {excerpt}: the output was cut")

    metrics: dict[str, Any] = {"format": fmt}
    facts: list[Fact] = []
    for direction in _DIRECTIONS:
        bw_best = best[direction].get("bw")
        iops_best = best[direction].get("iops")
        metrics[f"{direction}_bw_mbyte_s"] = _mbyte(bw_best[0]) if bw_best else None
        metrics[f"{direction}_iops"] = round(iops_best[0], 3) if iops_best else None
        metrics[f"{direction}_clat_mean_us"] = clat[direction]
        if bw_best:
            facts.append(Fact(f"{direction}_bw_mbyte_s", _mbyte(bw_best[0]), "MB/s", bw_best[1]))
        if iops_best:
            facts.append(Fact(f"{direction}_iops", round(iops_best[0], 3), "IOPS", iops_best[1]))
    if all(metrics[f"{d}_bw_mbyte_s"] is None for d in _DIRECTIONS):
        warnings.append("no read or write results: only trim, or every job failed")
    metrics.update(
        {
            "groups": group_rows,
            "job_count": sum(g.jobs for g in groups.values()),
            "jobnames": info["jobnames"],
            "rw": info["rw"],
            "jobs": [_job_row(job) for job in info["jobs"].values() if job.processes],
            "fio_version": info["fio_version"],
            "errors": info["errors"],
            "disks": info["disks"] if info["disks"] is not None else text_info["disks"],
        }
    )
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))
