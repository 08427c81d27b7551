"""What the readers of fio's forms share: the patterns of its lines, the units, the job, direction
and group records they fill, and the checks of a figure."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..base import (
    EvidenceParseError,
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
