"""Parser for perftest RDMA reports (``ib_write_bw``/``ib_read_bw``/``ib_send_bw``...).

Reads single-size runs, ``-a`` sweeps, bidirectional and duration mode; a latency report
(``ib_*_lat``) uploaded in their place is parsed as latency (test_type "latency", no
bandwidth), not refused, so that its figures are kept. perftest prints latency figures with two
decimals in fixed-width columns, and a wide value runs into the next one ("2465.901216.65"):
such a cell is read as the two figures it holds.

Units: with ``--report_gbits`` perftest prints Gb/sec (10**9 bits/s). Its default MB/sec column
is 2**20 bytes/s (perftest divides by 0x100000 for MB and by 125000000 for Gb; see
``format_factor`` in perftest_resources.c), so Gbit/s = MB/sec * 1048576 * 8 / 10**9.

Metrics (``ParseResult.metrics``):

- ``test_type``: "bandwidth" or "latency".
- ``test`` (str|None): "ib_write_bw", "ib_read_lat"... from the report title; ``title``.
- ``bw_avg_gbit_s`` (float|None): the best "BW average" of any row (the only row of a
  single-size run; the plateau of an ``-a`` sweep). None for latency tests.
- ``bw_peak_gbit_s`` (float|None): the best "BW peak"; None when perftest said "BW peak won't
  be measured" (duration mode ``-D``) or printed 0.00 for every row.
- ``bw_avg_gbit_s_at_max_size``, ``max_size_bytes``, ``msg_rate_mpps`` (at the best row).
- ``sweep``: one row per message size: ``{size_bytes, iterations, bw_peak_gbit_s,
  bw_avg_gbit_s, msg_rate_mpps}`` (bandwidth) or ``{size_bytes, iterations, t_min_us,
  t_max_us, t_typical_us, t_avg_us, t_stdev_us, p99_us, p999_us}`` (latency).
- ``report_unit``: "Gb/sec" or "MB/sec" as printed (a JSON report: as its figures say);
  ``bidirectional`` (bool); ``device``, ``link_type`` ("IB" or "Ethernet" = RoCE),
  ``transport_type``, ``connection_type``,
  ``mtu_bytes``, ``qps`` (int), ``gid_index``; ``rdma_cm`` (bool: "rdma_cm QPs : ON", the
  connection made with -R; None when not printed), ``tos`` (the -T traffic class, None when
  not printed); ``peak_measured`` (bool);
  ``cpu_freq_warnings`` (count of "Conflicting CPU frequency" lines).
- latency only (``ib_write_lat``/``ib_send_lat``/``ib_read_lat``), all of the smallest message
  size (``lat_size_bytes``): ``lat_typical_us`` (median), ``lat_avg_us``, ``lat_min_us``,
  ``lat_max_us``, ``lat_stdev_us``, ``lat_p99_us``, ``lat_p999_us`` (None when not printed).
- bandwidth only: ``value_unit`` the unit the numbers were read in ("MB/sec" = 2**20 B/s, also
  printed "MiB/sec" by perftest 4.5+; or "Gb/sec"). A table headed MB/sec from a command with
  ``--report_gbits`` is read as Gb/sec, with a warning.

Annotations a person added after a value ("196.07  <-- plateau", "# ok") and markdown
emphasis around a figure ("**5544.28**") are dropped; a table pasted without its title block
is read too (test name unknown), and so is a paste quoted in markdown ("> " before every
line). The last row of a table that was never closed is left out, with a warning, when it has
fewer columns than a full row (the output was cut inside it). A run that failed before its
table ("Couldn't connect to <host>:18515", "Unable to init the socket connection",
"Couldn't read remote address") is recognised from those lines and fails quoting the first. A
row with a negative figure (perftest's counters wrap in
very long runs) is no measurement: it is left out with a warning, and a report made only of
such rows fails as having no result rows.

The ``--out_json`` report (``perftest_json``: perftest's unquoted keys or quoted JSON) is read
as a one-row table when the file has no text table; its latency figures are in usec. Its
bandwidth states no unit (MB/sec = 2**20 B/s by default, Gb/sec with ``--report_gbits``), but its
own figures tell: perftest derives BW and MsgRate from one message count over one time
(``print_report_bw``), so BW_average / (MsgRate * MsgSize) is 10**6 over the unit's divisor,
0.9537 for MB/sec and 0.008 for Gb/sec. Figures that fit neither are refused
(``perftest.json_figures``); when a zero leaves the ratio undefined, the perftest command line
before the JSON decides (``--report_gbits``, or its getopt abbreviation ``--report_gbit``, or
else MB/sec), and without one the report is refused (``perftest.json_unit``).

Facts: one ``perftest_bw_avg_gbit_s`` (unit "Gbit/s") per bandwidth row, or one
``perftest_lat_typical_us`` (unit "us") per latency row, with the message size in
``details``. A file with several reports (client and server pasted together): the first one
gives the figures and a warning says so.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import perftest_json
from .base import (
    EvidenceParseError,
    Fact,
    ParseResult,
    strip_annotation,
    strip_emphasis,
    unquote,
)

KIND = "perftest"

_DETECT_MAX_LINES = 200
_DETECT_MAX_CHARS = 65536
MBYTE_PER_S_TO_GBIT_S = 1048576 * 8 / 1e9

_TITLE_RE = re.compile(
    r"^(?P<verb>RDMA_Write|RDMA_Read|Send|Atomic(?:\s+\S+)?|Raw Ethernet\S*|\S+)\s+"
    r"(?P<bidir>Bidirectional\s+)?(?P<kind>BW|Latency)\s+Test\s*$"
)
# The characters of a banner key ("Dual-port", "TX depth", "Max inline data"): ``_pairs`` reads
# "<key> : <value>" pairs (a regex with a lazy key before "\s*:" was quadratic).
_PAIR_KEY_CHARS = frozenset(string.ascii_letters + string.digits + "_.*- ")
_PAIR_VALUE_RE = re.compile(r"\s*(\S+)")
# "BW peak[MB/sec]" (perftest < 4.5), "BW peak[MiB/sec]" (4.5+), "BW peak[Gb/sec]"
# (--report_gbits), "BW_peak[Gb/sec]" / "Gbps" in derived tools. Matched from the first
# "#bytes" only (``_header``): searched, ".*" ran to the line's end from every "#bytes".
_BW_HEADER_RE = re.compile(
    r"#bytes.*BW[ _]peak\s*\[(?P<unit>[^\]]{1,12})\].*BW[ _]average",
    re.IGNORECASE,
)
_BW_HEADER_START_RE = re.compile("#bytes", re.IGNORECASE)
_UNITS = {
    "mb/sec": "MB/sec",
    "mib/sec": "MB/sec",
    "mb/s": "MB/sec",
    "mib/s": "MB/sec",
    "gb/sec": "Gb/sec",
    "gbit/s": "Gb/sec",
    "gb/s": "Gb/sec",
    "gbps": "Gb/sec",
}
# getopt_long takes any unambiguous prefix of a long option: "--report_gbit" (NVIDIA's
# ngc_multinode_perf scripts write it so) is perftest's "--report_gbits".
_REPORT_GBITS_RE = re.compile(r"(?:^|\s)--?report[_-]gbits?\b")
_LAT_HEADER_RE = re.compile(r"#bytes.*t_(?:min|avg)\[usec\]")
# A latency column's name: from the start of a word only (tried from inside a long word, it
# was quadratic).
_LAT_COLUMN_RE = re.compile(r"(?<!\S)(\S+)\[usec\]")
_NUMBER_RE = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$")
_SEPARATOR_RE = re.compile(r"^-{20,}$")
_EXCERPT_RE = re.compile(r"\[\.\.\.\]|<snip>", re.IGNORECASE)
_FAILURE_HINTS = (
    "couldn't connect",
    "unable to",
    "failed to",
    "completion with error",
    "error:",
    "couldn't",
    "problems with",
)
_VERB_TO_TEST = {"rdma_write": "write", "rdma_read": "read", "send": "send", "atomic": "atomic"}
# What perftest prints when the client and the server never exchange their keys
# (perftest_communication.c), or when it cannot open the device it was given (each test's main:
# ctx_find_dev, then ctx_open_device); a run that fails there prints no banner or table at all.
_OWN_FAILURES = (
    "unable to find the infiniband/roce device",
    "couldn't get context for the device",
    "unable to init the socket connection",
    "unable to read to socket/rdam_cm",
    "failed to close connection between server and client",
    "ethernet_read_keys:",
    "pp_read_keys:",
)
_COMMAND_RE = re.compile(r"(?:^|[\s/])ib_(?:write|read|send|atomic)_(?:bw|lat)\b")
# A bandwidth tool run on a command line ("ib_write_bw -d mlx5_0 ..."), not a file named after
# one ("cat /tmp/ib_write_bw.json").
_BW_COMMAND_RE = re.compile(r"(?:^|[\s/])ib_(?:write|read|send|atomic)_bw(?=\s|$)")
# perftest divides bytes/s by 0x100000 for MB/sec and by 125000000 for Gb/sec, and message/s by
# 10**6 for MsgRate (print_report_bw in perftest_parameters.c, both from the same count and
# time): BW / (MsgRate * MsgSize) is 10**6 over the divisor. The two units are 119x apart; the
# tolerance covers the printed rounding (2 decimals for BW, 6 for MsgRate).
_JSON_UNIT_RATIOS = (("MB/sec", 1e6 / 0x100000), ("Gb/sec", 1e6 / 125e6))
_JSON_RATIO_TOLERANCE = 0.2


@dataclass
class _Report:
    title: str
    title_line: int
    kind: str  # "bandwidth" or "latency"
    bidirectional: bool
    verb: str
    info: dict[str, str] = field(default_factory=dict)
    unit: str | None = None
    header_line: int | None = None
    latency_columns: list[str] = field(default_factory=list)
    qos: bool = False
    rows: list[tuple[int, list[float]]] = field(default_factory=list)
    closed: bool = False
    report_gbits: bool = False  # the command line just before it had --report_gbits
    warnings: list[str] = field(default_factory=list)


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is a perftest report (looks at the head only)."""
    try:
        head = text[:_DETECT_MAX_CHARS].splitlines()[:_DETECT_MAX_LINES]
        title = header = 0
        for raw in head:
            line = raw.strip()
            if _bw_header(line) or _lat_header(line):
                header += 1
            elif _TITLE_RE.match(line) and ("Test" in line):
                title += 1
        if header:
            return 92
        if title and any("Link type" in raw or "Dual-port" in raw for raw in head):
            return 75
        if perftest_json.looks_like_report(head):
            return 88
        lowered = [raw.lower() for raw in head]
        if any(failure in line for line in lowered for failure in _OWN_FAILURES) or (
            any("couldn't connect to" in line for line in lowered)
            and any(_COMMAND_RE.search(line) for line in head)
        ):
            return 60
        return 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _bw_header(line: str) -> re.Match[str] | None:
    """``_BW_HEADER_RE`` searched in ``line``, from its first "#bytes": a match from a later one
    is one from the first ("." takes any character of a line), with the same groups."""
    start = _BW_HEADER_START_RE.search(line)
    return None if start is None else _BW_HEADER_RE.match(line, start.start())


def _lat_header(line: str) -> re.Match[str] | None:
    """``_LAT_HEADER_RE`` searched in ``line``, from its first "#bytes" (see ``_bw_header``)."""
    start = line.find("#bytes")
    return None if start < 0 else _LAT_HEADER_RE.match(line, start)


def _pairs(line: str) -> list[tuple[str, str]]:
    r"""The "<key> : <value>" pairs of a banner line, several to a line (" Dual-port : OFF
    Device : mlx5_0"): what ``([A-Za-z][A-Za-z0-9_.*\- ]*?)\s*:\s*(\S+)`` finds with findall,
    in linear time. A key is the text before a colon back to the first letter after the last
    character no key holds, without the blanks before the colon; its value is the next word."""
    pairs: list[tuple[str, str]] = []
    start = 0
    while (colon := line.find(":", start)) >= 0:
        value = _PAIR_VALUE_RE.match(line, colon + 1)
        if value is None:
            break  # nothing but blanks after this colon, and so no other pair either
        key = line[start:colon].rstrip()
        first = len(key)
        for at in range(len(key) - 1, -1, -1):
            if key[at] not in _PAIR_KEY_CHARS:
                break
            if key[at] in string.ascii_letters:
                first = at
        if first < len(key):
            pairs.append((key[first:], value.group(1)))
            start = value.end()
        else:
            start = colon + 1
    return pairs


def _floats(tokens: list[str], line: int) -> list[float]:
    values: list[float] = []
    for token in tokens:
        value = float(token)
        if math.isnan(value) or math.isinf(value):
            raise EvidenceParseError(
                f"not a finite number {token!r}",
                line=line,
                kind=KIND,
                code="perftest.not_finite",
                params={"token": token},
            )
        values.append(value)
    return values


def _test_name(report: _Report) -> str | None:
    words = report.verb.split()
    base = _VERB_TO_TEST.get(words[0].lower()) if words else None
    if base is None:
        return None
    return f"ib_{base}_{'bw' if report.kind == 'bandwidth' else 'lat'}"


def _read_reports(text: str) -> tuple[list[_Report], dict[str, Any]]:
    reports: list[_Report] = []
    notes: dict[str, Any] = {
        "no_peak": False,
        "cpu_freq": 0,
        "failures": [],
        "excerpt": None,
        "report_gbits": False,
    }
    current: _Report | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = strip_annotation(unquote(raw).strip())
        if not line:
            continue
        if line.startswith("#") and not line.startswith("#bytes"):
            # "#  #bytes  #iterations ..." and "#  65536  ..." (a commented-out copy).
            unhashed = line.lstrip("#").strip()
            if unhashed.startswith("#bytes") or (unhashed[:1].isdigit() and current is not None):
                line = unhashed
        lowered = line.lower()
        if _REPORT_GBITS_RE.search(line) and ("ib_" in line or "perftest" in lowered):
            notes["report_gbits"] = True  # applies to the next report only
        if notes["excerpt"] is None and _EXCERPT_RE.search(line):
            notes["excerpt"] = number
        if "bw peak won't be measured" in lowered:
            notes["no_peak"] = True
            continue
        if lowered.startswith("conflicting cpu frequency values detected"):
            notes["cpu_freq"] += 1
            continue
        match = _TITLE_RE.match(line)
        if match:
            current = _Report(
                title=line,
                title_line=number,
                kind="bandwidth" if match.group("kind") == "BW" else "latency",
                bidirectional=bool(match.group("bidir")),
                verb=match.group("verb"),
                report_gbits=notes["report_gbits"],
            )
            notes["report_gbits"] = False
            reports.append(current)
            continue
        bw_header = _bw_header(line)
        lat_header = None if bw_header else _lat_header(line)
        repeated = (
            current is not None
            and current.header_line is not None
            and not current.rows
            and current.kind == ("bandwidth" if bw_header else "latency")
        )
        if (
            (bw_header or lat_header)
            and not repeated
            and (current is None or current.header_line is not None)
        ):
            # A table pasted without its title block, or a second table after the first. The
            # same header twice in a row is one table: a server and a client writing to one
            # log (a loopback run) interleave their lines.
            current = _Report(
                title="",
                title_line=number,
                kind="bandwidth" if bw_header else "latency",
                bidirectional=False,
                verb="",
                report_gbits=notes["report_gbits"],
            )
            notes["report_gbits"] = False
            reports.append(current)
        if current is None:
            if any(hint in lowered for hint in _FAILURE_HINTS):
                notes["failures"].append((number, line))
            continue
        if _SEPARATOR_RE.match(line):
            if current.rows:
                current.closed = True
            continue
        if bw_header:
            current.unit = bw_header.group("unit").strip()
            current.header_line = number
            current.qos = "#sl" in line
            continue
        if lat_header:
            current.header_line = number
            current.latency_columns = _LAT_COLUMN_RE.findall(line)
            continue
        tokens = [strip_emphasis(token) for token in line.split()]
        if current.kind == "latency":
            tokens = _unfused(tokens)
        if (
            current.header_line is not None
            and not current.closed
            and tokens
            and all(_NUMBER_RE.match(t) for t in tokens)
        ):
            current.rows.append((number, _floats(tokens, number)))
            continue
        if current.header_line is None and ":" in line:
            for key, value in _pairs(line):
                current.info.setdefault(key.strip().lower(), value)
            continue
        if any(hint in lowered for hint in _FAILURE_HINTS):
            notes["failures"].append((number, line))
    return reports, notes


# perftest prints latency figures with two decimals in fixed-width columns: a wide one runs
# into the next ("2465.901216.65" is a t_stdev of 2465.90 and a 99% percentile of 1216.65).
_FUSED_RE = re.compile(r"^(\d{1,12}\.\d\d)(\d{1,12}\.\d\d)$")


def _unfused(tokens: list[str]) -> list[str]:
    if all(_NUMBER_RE.match(t) for t in tokens):
        return tokens
    out: list[str] = []
    for token in tokens:
        fused = None if _NUMBER_RE.match(token) else _FUSED_RE.match(token)
        out.extend(fused.groups() if fused else (token,))
    return out


def _unit(report: _Report, report_gbits: bool) -> str:
    """The unit the numbers are really in: "MB/sec" (2**20 bytes/s) or "Gb/sec"."""
    printed = (report.unit or "").lower()
    unit = _UNITS.get(printed)
    if unit is None:
        raise EvidenceParseError(
            f"unknown bandwidth unit {report.unit!r} (expected MB/sec, MiB/sec or Gb/sec)",
            line=report.header_line,
            kind=KIND,
            code="perftest.unit",
            params={"unit": report.unit},
        )
    if unit == "MB/sec" and report_gbits:
        # Some perftest builds keep the MB/sec heading when --report_gbits is given.
        return "Gb/sec"
    return unit


def _gbit(value: float, unit: str | None) -> float:
    return round(value * MBYTE_PER_S_TO_GBIT_S, 6) if unit == "MB/sec" else value


def _int_info(value: str | None) -> int | None:
    if value is None:
        return None
    digits = re.match(r"\d+", value)
    return int(digits.group(0)) if digits and len(digits.group(0)) < 10 else None


def _on_off(value: str | None) -> bool | None:
    word = (value or "").strip().upper()
    return True if word == "ON" else False if word == "OFF" else None


def _bandwidth_rows(report: _Report, unit: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    offset = 1 if report.qos else 0
    for line, values in report.rows:
        if len(values) < 5 + offset:
            raise EvidenceParseError(
                f"bandwidth row has {len(values)} columns, expected at least {5 + offset}",
                line=line,
                kind=KIND,
                code="perftest.bw_columns",
                params={"columns": len(values), "expected": 5 + offset},
            )
        size, iterations = values[0], values[1 + offset]
        peak, avg, rate = values[2 + offset], values[3 + offset], values[4 + offset]
        if size < 0 or size != int(size) or size > 2**40:
            raise EvidenceParseError(
                f"implausible message size {size:g}",
                line=line,
                kind=KIND,
                code="perftest.size",
                params={"size": f"{size:g}"},
            )
        rows.append(
            {
                "size_bytes": int(size),
                "iterations": int(iterations),
                "bw_peak_gbit_s": _gbit(peak, unit),
                "bw_avg_gbit_s": _gbit(avg, unit),
                "msg_rate_mpps": rate,
                "line": line,
            }
        )
    return rows


def _latency_rows(report: _Report) -> list[dict[str, Any]]:
    names = {
        "t_min": "t_min_us",
        "t_max": "t_max_us",
        "t_typical": "t_typical_us",
        "t_avg": "t_avg_us",
        "t_stdev": "t_stdev_us",
    }
    columns = [names.get(c, c) for c in report.latency_columns]
    # The two percentile headers read "99% percentile[usec]": only "percentile" is captured.
    percentiles = iter(("p99_us", "p999_us"))
    columns = [next(percentiles, c) if c == "percentile" else c for c in columns]
    rows: list[dict[str, Any]] = []
    for line, values in report.rows:
        if len(values) < 3:
            raise EvidenceParseError(
                "latency row has too few columns", line=line, kind=KIND, code="perftest.lat_columns"
            )
        row: dict[str, Any] = {"size_bytes": int(values[0]), "iterations": int(values[1])}
        for name, value in zip(columns, values[2:], strict=False):
            row[name] = value
        row["line"] = line
        rows.append(row)
    return rows


def _drop_cut_last_row(report: _Report, warnings: list[str]) -> None:
    """Leave out the last row of a table that was never closed when it has fewer columns than
    a full row: the output was cut inside it ("16  5000  0.34"), and the rows above stand. A
    latency table's only row is kept without its last figure, which the cut may have shortened
    ("5.84" of "5.8412" is no different on the page): the figures before it are whole."""
    if not report.rows:
        return
    line, values = report.rows[-1]
    if report.kind == "bandwidth":
        width = 5 + (1 if report.qos else 0)
    else:
        width = 2 + len(report.latency_columns) if report.latency_columns else 3
    if len(values) >= width:
        return
    if len(report.rows) >= 2:
        report.rows.pop()
        warnings.append(f"line {line}: the last result row is cut short; left out")
    elif report.kind != "bandwidth" and len(values) > 3:
        report.rows[-1] = (line, values[:-1])
        column = report.latency_columns[len(values) - 3] if report.latency_columns else "last"
        warnings.append(
            f"line {line}: the only result row is cut short after its {column} figure, which "
            "may itself be cut; left out"
        )


def _valid_rows(
    rows: list[dict[str, Any]], report: _Report, warnings: list[str]
) -> list[dict[str, Any]]:
    """``rows`` without those holding a negative figure.

    A bandwidth, message rate or latency below zero cannot be measured: perftest prints one
    when a counter wraps in a very long run (``-D`` of days). Such a row is no figure at all;
    a report made only of them has no result.
    """
    valid = [
        row
        for row in rows
        if not any(isinstance(v, int | float) and v < 0 for k, v in row.items() if k != "line")
    ]
    dropped = len(rows) - len(valid)
    if dropped and valid:
        warnings.append(
            f"{dropped} row(s) with a negative figure ignored (a perftest counter overflow)"
        )
    if not valid:
        raise EvidenceParseError(
            "perftest printed negative figures only (a counter overflow): no valid result rows",
            line=rows[0]["line"] if rows else report.title_line,
            kind=KIND,
            code="perftest.no_rows",
        )
    return valid


def _json_number(report: perftest_json.JsonReport, key: str) -> float:
    value = report.sections["results"][key]
    line = report.member_lines[f"results.{key}"]
    if not _NUMBER_RE.match(value):
        raise EvidenceParseError(
            f"not a finite number {value!r}",
            line=line,
            kind=KIND,
            code="perftest.not_finite",
            params={"token": value},
        )
    return _floats([value], line)[0]


def _json_command_unit(lines: list[str]) -> str | None:
    """The unit the last perftest bandwidth command in ``lines`` asked for: "Gb/sec" with
    ``--report_gbits``, else "MB/sec" (perftest's default); None without such a command."""
    commands = [line for line in lines if _BW_COMMAND_RE.search(line)]
    if not commands:
        return None
    return "Gb/sec" if _REPORT_GBITS_RE.search(commands[-1]) else "MB/sec"


def _json_figures_unit(size: float, bw_avg: float, msg_rate: float) -> tuple[str | None, float]:
    """(unit, ratio) the figures of a JSON report are in, from BW_average / (MsgRate * MsgSize):
    ("MB/sec" or "Gb/sec", ratio), (None, ratio) when the ratio fits neither unit, and
    (None, nan) when a zero leaves it undefined."""
    if size <= 0 or bw_avg <= 0 or msg_rate <= 0:
        return None, math.nan
    ratio = bw_avg / (msg_rate * size)
    for unit, expected in _JSON_UNIT_RATIOS:
        if abs(ratio / expected - 1) <= _JSON_RATIO_TOLERANCE:
            return unit, ratio
    return None, ratio


def _from_json(text: str) -> _Report | None:
    """The ``--out_json`` report in ``text`` as a one-row table, or None when there is none.

    Its bandwidth unit is not written in it: the ratio of its figures says which it is (see the
    module docstring), or, when a zero leaves that undefined, the command line before it."""
    lines = text.splitlines()
    found = perftest_json.read_report(lines)
    match = found.test if found is not None else None
    if found is None or match is None:
        return None
    results = found.sections["results"]
    kind = "bandwidth" if match.group("kind") == "BW" else "latency"
    report = _Report(
        title=found.sections["test_info"]["test"],
        title_line=found.member_lines["test_info.test"],
        kind=kind,
        bidirectional=bool(match.group("bidir")),
        verb=match.group("verb"),
        header_line=found.line,
        closed=True,
    )
    for key, value in found.sections["test_info"].items():
        # "Number_of_qps" is the banner's "Number of qps", "rdma_cm_QPs" its "rdma_cm QPs".
        report.info[key.lower().replace("_", " ").replace("rdma cm", "rdma_cm")] = value
    names = ["MsgSize", "n_iterations"]
    if kind == "bandwidth":
        names += list(perftest_json.BANDWIDTH_MEMBERS)
    else:
        present = [(k, c) for k, c in perftest_json.LATENCY_MEMBERS if k in results]
        names += [key for key, _ in present]
        report.latency_columns = [column for _, column in present]
    missing = [name for name in names if name not in results]
    if missing:
        raise EvidenceParseError(
            f"the perftest JSON results lack {', '.join(missing)}",
            line=found.member_lines.get("results.MsgSize", found.line),
            kind=KIND,
            code="perftest.json_results",
            params={"missing": ", ".join(missing)},
        )
    values = [_json_number(found, name) for name in names]
    if kind == "bandwidth":
        size, bw_avg, msg_rate = values[0], values[3], values[4]
        unit, ratio = _json_figures_unit(size, bw_avg, msg_rate)
        command = _json_command_unit(lines[: found.line - 1])
        if unit is None and not math.isnan(ratio):
            raise EvidenceParseError(
                f"the perftest JSON figures do not fit together: BW_average / (MsgRate x "
                f"MsgSize) is {ratio:.4g}, where perftest's own give 0.9537 (MB/sec) or 0.008 "
                "(Gb/sec)",
                line=found.member_lines["results.BW_average"],
                kind=KIND,
                code="perftest.json_figures",
                params={"ratio": f"{ratio:.4g}"},
            )
        if unit is None and command is None:
            raise EvidenceParseError(
                "the perftest JSON report does not say whether its bandwidth is in MB/sec or "
                "Gb/sec: upload the text report, or the JSON after the command that made it",
                line=found.line,
                kind=KIND,
                code="perftest.json_unit",
            )
        if unit is not None and command is not None and command != unit:
            report.warnings.append(
                f"the command line asks for {command} but the JSON figures are in {unit} "
                f"(BW_average / (MsgRate x MsgSize) = {ratio:.4g}): read as {unit}"
            )
        report.unit = unit or command
    report.rows.append((found.member_lines[f"results.{names[0]}"], values))
    return report


def parse(text: str) -> ParseResult:
    """Parse a perftest report into bandwidth (Gbit/s) or latency (us) figures."""
    reports, notes = _read_reports(text)
    with_rows = [r for r in reports if r.rows]
    if not with_rows:
        from_json = _from_json(text)
        if from_json is not None:
            reports, with_rows = [from_json], [from_json]
    if not with_rows:
        detail = ""
        if notes["failures"]:
            line, message = notes["failures"][0]
            detail = f": the tool reported {message!r}"
            raise EvidenceParseError(
                f"no perftest result rows{detail}",
                line=line,
                kind=KIND,
                code="perftest.tool_failed",
                params={"message": message},
            )
        if reports:
            raise EvidenceParseError(
                "perftest header found but no result rows (the run did not finish?)",
                line=reports[0].title_line,
                kind=KIND,
                code="perftest.no_rows",
            )
        raise EvidenceParseError(
            "no perftest report found (expected ib_write_bw/ib_read_bw/ib_send_bw output with "
            "a '#bytes ... BW average' table)",
            kind=KIND,
            code="perftest.nothing",
        )
    report = with_rows[0]
    warnings: list[str] = []
    if len(with_rows) > 1:
        warnings.append(
            f"{len(with_rows)} perftest reports in this file: figures come from the first "
            f"({report.title!r}, line {report.title_line})"
        )
    if notes["cpu_freq"]:
        warnings.append(
            f"{notes['cpu_freq']} 'Conflicting CPU frequency' warning(s): CPU not at max "
            "frequency, results may be low"
        )
    if report.rows and not report.closed:
        warnings.append("the result table has no closing line: output may be truncated")
        _drop_cut_last_row(report, warnings)
    if notes["excerpt"] is not None:
        warnings.append(f"excerpt marker at line {notes['excerpt']}: the output was cut")
    warnings.extend(report.warnings)

    info = report.info
    metrics: dict[str, Any] = {
        "test_type": report.kind,
        "test": _test_name(report),
        "title": report.title,
        "bidirectional": report.bidirectional,
        "report_unit": report.unit,
        "device": info.get("device"),
        "link_type": info.get("link type"),
        "transport_type": info.get("transport type"),
        "connection_type": info.get("connection type"),
        "mtu_bytes": _int_info(info.get("mtu")),
        "qps": _int_info(info.get("number of qps")),
        "gid_index": _int_info(info.get("gid index")),
        "rdma_cm": _on_off(info.get("rdma_cm qps")),
        "tos": _int_info(info.get("tos")),
        "cpu_freq_warnings": notes["cpu_freq"],
    }
    facts: list[Fact] = []
    if report.kind == "bandwidth":
        unit = _unit(report, report.report_gbits)
        if unit != _UNITS.get((report.unit or "").lower()):
            warnings.append(
                f"the table says {report.unit} but the command has --report_gbits: "
                "values read as Gb/sec"
            )
        metrics["value_unit"] = unit
        rows = _valid_rows(_bandwidth_rows(report, unit), report, warnings)
        best = max(rows, key=lambda r: r["bw_avg_gbit_s"])
        peaks = [r["bw_peak_gbit_s"] for r in rows]
        peak_measured = not notes["no_peak"] and any(p > 0 for p in peaks)
        if notes["no_peak"]:
            warnings.append("perftest did not measure the BW peak (duration mode): peak is null")
        elif not peak_measured:
            warnings.append("BW peak printed as 0.00 on every row: peak is null")
        largest = max(rows, key=lambda r: r["size_bytes"])
        metrics.update(
            {
                "bw_avg_gbit_s": best["bw_avg_gbit_s"],
                "bw_peak_gbit_s": max(peaks) if peak_measured else None,
                "peak_measured": peak_measured,
                "bw_avg_gbit_s_at_max_size": largest["bw_avg_gbit_s"],
                "max_size_bytes": largest["size_bytes"],
                "msg_rate_mpps": best["msg_rate_mpps"],
            }
        )
        for row in rows:
            facts.append(
                Fact(
                    "perftest_bw_avg_gbit_s",
                    row["bw_avg_gbit_s"],
                    "Gbit/s",
                    row["line"],
                    {
                        "size_bytes": row["size_bytes"],
                        "test": metrics["test"],
                        "bidirectional": report.bidirectional,
                    },
                )
            )
            if not peak_measured:
                row["bw_peak_gbit_s"] = None
    else:
        rows = _valid_rows(_latency_rows(report), report, warnings)
        smallest = min(rows, key=lambda r: r["size_bytes"])
        warnings.append("latency test: it has no bandwidth figures")
        metrics.update(
            {
                "bw_avg_gbit_s": None,
                "bw_peak_gbit_s": None,
                "peak_measured": False,
                "max_size_bytes": max(r["size_bytes"] for r in rows),
                "lat_size_bytes": smallest["size_bytes"],
                "lat_min_us": smallest.get("t_min_us"),
                "lat_max_us": smallest.get("t_max_us"),
                "lat_typical_us": smallest.get("t_typical_us"),
                "lat_avg_us": smallest.get("t_avg_us"),
                "lat_stdev_us": smallest.get("t_stdev_us"),
                "lat_p99_us": smallest.get("p99_us"),
                "lat_p999_us": smallest.get("p999_us"),
            }
        )
        for row in rows:
            value = row.get("t_typical_us", row.get("t_avg_us"))
            if value is not None:
                facts.append(
                    Fact(
                        "perftest_lat_typical_us",
                        value,
                        "us",
                        row["line"],
                        {"size_bytes": row["size_bytes"], "test": metrics["test"]},
                    )
                )
    for row in rows:
        row.pop("line", None)
    metrics["sweep"] = rows
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))


def bw_avg_each_way_gbit_s(metrics: Mapping[str, Any]) -> float | None:
    """The average bandwidth one way, Gbit/s, of a parsed bandwidth report's ``metrics``; None
    without a figure.

    perftest's ``-b`` (bidirectional) report gives the sum of both directions: a 400 Gb/s port
    sending and receiving at once reads about 780 Gb/s (the AMD AI NIC sample). A port's rate
    is a per-direction figure, so a bidirectional run is judged at half its reported sum."""
    bw = metrics.get("bw_avg_gbit_s")
    if not isinstance(bw, int | float) or isinstance(bw, bool):
        return None
    return float(bw) / 2 if metrics.get("bidirectional") is True else float(bw)
