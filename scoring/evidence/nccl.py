"""Parser for nccl-tests results (all_reduce_perf and every other ``*_perf`` collective).

Handles every output generation seen in the wild: pre-2019 tables without ``#`` and without
``redop``/``root`` columns (``error`` = max deviation), 2020-era tables with ``redop`` only,
current tables with ``redop root ... #wrong``, NCCL 1.x ``bytes N type op ... res`` headers,
``N/A`` values, blank ``redop`` cells (old alltoall), ``%g`` numbers, lines tagged by
mpirun (``[1,0]<stdout>:``), srun (``0: ``), MPICH / Intel MPI's Hydra (``[0] ``, repeated
inside a line where one printf ended), Ray / SkyPilot (``(head, rank=0, pid=N) ``) or
``kubectl logs --prefix`` (``[pod/<name>/<container>] ``), result rows alone (a log tail), the
"nccl-tests version" / "Collective test starting|concluded" banners, device lists from many
processes and hosts, and MPI / NCCL / UCX noise interleaved. Columns are found from the
header line and rows are split on whitespace: widths are never trusted.

Units: nccl-tests prints algbw/busbw in GB/s with GB = 10^9 bytes (it divides by 1.0E9), time
in microseconds, sizes in bytes.

metrics
    collective           "all_reduce", "alltoall", ... from the binary name or banner; None
                         when the output never names it. A name first seen after a table that
                         printed its summary ("./broadcast_perf ..." starting the next run)
                         does not name that table.
    collective_inferred  True when ``collective`` was not named but inferred from the table:
                         busbw/algbw is 2(n-1)/n for all_reduce, (n-1)/n for all_gather,
                         reduce_scatter and alltoall, 1 for broadcast/reduce/sendrecv; the
                         count column (size / type size / n for the per-rank collectives), the
                         redop (a reduction or "none") and root (-1 or a rank) narrow it.
    collective_candidates  the collectives the table fits when none is named ([] when named);
                         several when the table cannot tell them apart (all_gather/alltoall;
                         all_reduce/sendrecv over 2 ranks): ``collective`` then stays None.
    ranks_inferred       n derived from that ratio or the count column (None when unknown).
    collectives          every collective named, in order of appearance.
    net_plugins          network transports named by NCCL INFO lines: "GCP GPUDirect-TCPX",
                         "GCP GPUDirect-TCPXO", "AWS EFA", "libfabric (OFI)", "InfiniBand",
                         "Socket" ([] when NCCL_DEBUG=INFO was off).
    ranks                number of ranks: the distinct ranks in the device list ("Rank N ...
                         device"), at least its highest rank + 1 and NCCL's "nranks N" (a
                         per-node log lists only its own ranks); None when neither is shown.
    peak_busbw_gbyte_s   largest busbw of any row, in- or out-of-place (first table).
    peak_size_bytes      size of the row holding that peak.
    avg_busbw_gbyte_s    the tool's "Avg bus bandwidth", None when not printed.
    wrong_total          "#wrong" columns: sum of the printed counts (None when every cell was
                         N/A, i.e. -c 0). Old "error" columns hold a deviation, not a count: there
                         wrong_total is the "Out of bounds values" count, None if not printed.
    wrong_unchecked      number of N/A cells in the #wrong/error columns.
    max_error            largest value of an old-style "error" column (None otherwise).
    out_of_bounds        the "Out of bounds values" count; out_of_bounds_ok its OK/FAILED.
    wrong_line           the line showing the first wrong result: the first row with a
                         #wrong count above 0, else a failing "Out of bounds values" line;
                         None when every table is clean.
                         These correctness figures cover every table of the file (the sum of
                         the known counts, False when any table FAILED): a table of wrong
                         results after a clean one is as wrong as a first one.
    max_size_bytes / min_size_bytes / row_count
    curve                one entry per row: size_bytes, count, type, redop, root, time_us,
                         algbw_gbyte_s, busbw_gbyte_s (from whichever of out-of-/in-place has
                         the larger busbw), out_of_place_busbw_gbyte_s, in_place_busbw_gbyte_s.
    nccl_version         "2.21.5" from "NCCL version ..." lines or nccl-tests' nccl-library code.
    nccl_tests_version   from "# nccl-tests version X" (newer builds add the git revision:
                         "2.20.0 (b4d5bee) nccl-headers=... nccl-library=...").
    gpu_names, hosts     distinct values from the device list, in order.
    devices_listed       ranks the "Using devices" list shows (below ``ranks`` in a per-node
                         or cut log: its hosts are then only some of the run's).
    bus_ids_shown        ranks whose device line shows a readable PCI bus ("[0x18]" in older
                         builds, "[0002:00:01]" domain:bus:device in newer ones).
    shared_gpu_ranks     list of the ranks whose device line shows the same host and full PCI
                         address ("[0000:02:00]") as another rank's: several processes on one
                         GPU (empty when none, or when no full address is shown).
    root_bus_ranks       of those, ranks whose GPU sits on bus 00 of its PCI domain. A
                         discrete GPU in a physical server sits behind a root port (bus 01 or
                         higher); bus 00 is where a hypervisor's virtual PCI bus (Hyper-V
                         vPCI, a QEMU/Nitro root bus) puts a passed-through GPU.
    gpus_per_process     the "nGpus" figure of the parameter line.
    failures             "Test NCCL failure ..." / "NCCL failure ..." lines. A file with no
                         result row fails (nccl.test_failed) quoting the first such line
                         that gives NCCL's reason, or else NCCL's first WARN about an error;
                         a log of failure lines alone is still recognised as nccl-tests.
    runs                 when the file holds several tables, one summary per table; the other
                         figures above then describe the first table.
facts: one ``busbw_gbyte_s`` per row (max of in/out-of-place), ``peak_busbw_gbyte_s`` and
``avg_busbw_gbyte_s`` (first table).
"""

from __future__ import annotations

import copy
import itertools
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, strip_annotation, unquote

KIND = "nccl_tests"

_COLLECTIVE_RE = re.compile(
    r"(?<![A-Za-z0-9_])(all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|"
    r"sendrecv|gather|scatter|hypercube)_perf"
)
_TESTS_VERSION_RE = re.compile(
    r"nccl-tests version (\S+)(?:\s+\([^()\s]{1,64}\))?(?:\s+nccl-headers=(\d+))?"
    r"(?:\s+nccl-library=(\d{1,9}))?"
)
_NCCL_VERSION_RE = re.compile(r"\bNCCL version (\d+\.\d+(?:\.\d+)?)")
_COMPILED_WITH_RE = re.compile(r"compiled with NCCL (\d+\.\d+(?:\.\d+)?)")
# "nThread 1 nGpus 8 minBytes ..."; some builds print "nGpus(perProc) 1 minBytes ..." instead.
_PARAMS_RE = re.compile(
    r"\b(?:nThread\s+(\d{1,9})\s+nGpus|nGpus\(perProc\)(?=\s+\d{1,9}\s+minBytes\b))"
    r"\s+(\d{1,9})"
)
# A device-list entry up to its PCI bus. The bracket holds no other bracket: "Rank 0 on h device
# 0 [" repeated with no "]" would otherwise be scanned to the end from each "Rank" (quadratic).
_DEVICE_ENTRY = (
    r"\bRank\s+(\d{1,9})\s+(?:Group\s+\d+\s+)?(?:Pid\s+(\d+)\s+)?on\s+(\S+)\s+device\s+(\d+)\s+"
    r"\[([^\][]*)\]"
)
_DEVICE_ENTRY_RE = re.compile(_DEVICE_ENTRY)
_DEVICE_RE = re.compile(_DEVICE_ENTRY + r"\s*(.*)$")
# The PCI bus of a device-list entry: "0x18" (bus only) or "0002:00:01" (domain:bus:device).
_DEVICE_BUS_RE = re.compile(
    r"^\s*(?:0x([0-9A-Fa-f]{1,2})|[0-9A-Fa-f]{4,8}:([0-9A-Fa-f]{2}):[0-9A-Fa-f]{2}(?:\.[0-7])?)\s*$"
)
_NRANKS_RE = re.compile(r"\bnranks (\d{1,9})\b")
_OOB_RE = re.compile(r"Out of bounds values\s*:\s*(\d{1,15})\s*(OK|FAILED)?", re.IGNORECASE)
_AVG_RE = re.compile(r"Avg bus bandwidth\s*:\s*(\S+)", re.IGNORECASE)
_FAILURE_RE = re.compile(r"\b(?:Test (?:NCCL |CUDA )?failure|NCCL failure|CUDA failure)\b")
# nccl-tests' own failure report names the test source file and line it checked at
# ("<host>: Test NCCL failure <file>.cu:<line> '<reason>'", " .. <host> pid <n>: Test failure
# <file>.cu:<line>"): a log that kept nothing else (every rank failed at init) is still nccl-tests.
_TESTS_FAILURE_RE = re.compile(r"\b(?:Test (?:NCCL |CUDA )?failure|NCCL failure) \w+\.cu:\d+")
# An NCCL WARN line reporting an error (src/debug.cc prints "... NCCL WARN <msg>"): what a run
# that stopped before its first row said about why, when it printed no "Test ... failure".
_WARN_ERROR_RE = re.compile(
    r"NCCL WARN .*(?:failure|failed|error|[Tt]imeout|[Aa]bort|[Cc]onnection (?:closed|refused))"
)
# What a launcher puts before each line it relays: Ray (and so SkyPilot) names the task
# "(head, rank=0, pid=3808) ", kubectl logs --prefix the pod "[pod/<name>/<container>] ";
# either may come before mpirun's --tag-output "[1,0]<stdout>:" or srun --label's "0: ".
_LAUNCHER_TAG = (
    r"(?:\((?:[\w.-]+,? )?[\w.-]+=[^,()\s]*(?:, [\w.-]+=[^,()\s]*)*\) |\[pod/[^\]\s]+\] )"
)
# MPICH / Intel MPI (Hydra) "-prepend-rank" and "-l" put "[<rank>]" before each piece of
# output they relay, so the same tag also appears inside a line, where one printf ended.
_HYDRA_TAG = r"\[\d{1,6}\](?= |$)"
_RANK_TAG = rf"(?:\[\d+,\d+\]<std(?:out|err)>:|\s*\d+: |{_HYDRA_TAG})"
# A log pasted indented (a list item, a YAML block) keeps the blanks before the tag.
# Without a launcher tag, srun's "0: " takes any blanks before it in its own "\s*": a "[ \t]*"
# before that "\s*" split a long run of blanks in every way (quadratic).
_MPI_TAG_RE = re.compile(
    rf"^(?:[ \t]*{_LAUNCHER_TAG}{_RANK_TAG}?"
    rf"|[ \t]*\[\d+,\d+\]<std(?:out|err)>:|\s*\d+: |[ \t]*{_HYDRA_TAG})"
)
_HYDRA_HEAD = r"(?:[ \t]*\[\d{1,6}\](?= ))?"
# One result row: "<size> <count> <type> <redop> <root> <time> ...", with nccl-tests' type and
# reduction names (the redop is blank in old alltoall tables); a Hydra tag may follow the root,
# where nccl-tests' first printf of the row ends.
_ROW_SHAPE_RE = re.compile(
    rf"(?m)^{_HYDRA_HEAD}[ \t]*\d{{1,15}}[ \t]+\d{{1,15}}[ \t]+"
    r"(?:u?int(?:8|32|64)|int|char|f8e4m3|f8e5m2|fp8|float(?:8|16|32|64)?|half|bfloat16|bf16|double)"
    r"[ \t]+(?:(?:sum|prod|max|min|avg|none|mulsum|premulsum)[ \t]+)?-?\d{1,9}"
    r"(?:\[\d{1,6}\])?[ \t]+\d"
)
_EXCERPT_RE = re.compile(r"^\s*(?:\[\.\.\.\]|\.\.\.|…|<snip>|\[snip\])\s*$", re.IGNORECASE)

_HEADER_ALIASES = {"bytes": "size", "n": "count", "op": "redop", "res": "error", "#wrong": "wrong"}
_WRONG_COLUMNS = ("wrong", "error")
_DEFAULT_PREFIXES = {
    13: ["size", "count", "type", "redop", "root"],
    12: ["size", "count", "type", "redop"],
    11: ["size", "count", "type"],
}
_SCAN_BYTES = 65536
_NOT_AVAILABLE = frozenset({"N/A", "n/a", "N/a", "n/A"})


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is nccl-tests output (looks at the first 64 KiB)."""
    head = text[:_SCAN_BYTES]
    score = 0
    if "nccl-tests version" in head or "Collective test starting" in head:
        score += 40
    if _PARAMS_RE.search(head):
        score += 30
    if re.search(
        rf"(?m)^{_HYDRA_HEAD}[# \t]*(?:size|bytes)\s+(?:count|N)\s+type\b.*\bbusbw\b", head
    ):
        score += 45
    # The units line under the column names: an excerpt may start there.
    if re.search(rf"(?m)^{_HYDRA_HEAD}[# \t]*\(B\)\s+\(elements\)\s.*\(us\)\s+\(GB/s\)", head):
        score += 45
    # A log tail or a relay may keep the result rows alone: three rows of nccl-tests' shape.
    if next(itertools.islice(_ROW_SHAPE_RE.finditer(head), 2, None), None) is not None:
        score += 40
    if "Avg bus bandwidth" in head:
        score += 20
    if "Out of bounds values" in head:
        score += 15
    if _device_ends(head):
        score += 15
    if _COLLECTIVE_RE.search(head):
        score += 10
    if "failure" in head and _TESTS_FAILURE_RE.search(head):
        score += 55
    return min(score, 100)


def _device_ends(head: str) -> bool:
    """Whether a device-list entry ends ``head``: what ``_DEVICE_RE.search(head)`` says (its
    ``$`` is the end of the head, so only an entry on the last line, or the line before it when
    the last is what follows it, counts), in time linear in the head's length. That search runs
    ``(.*)$`` to the end of the line from every entry, quadratic on a line of many entries."""
    body = head[:-1] if head.endswith("\n") else head
    newline = body.rfind("\n")
    # Where ``\s*(.*)$`` can still match from: after the last line break but the final one and
    # the blanks before it.
    tail = 0 if newline < 0 else len(head[: newline + 1].rstrip())
    return any(entry.end() >= tail for entry in _DEVICE_ENTRY_RE.finditer(head))


@dataclass
class _Header:
    prefix: list[str]
    groups: list[list[str]]
    labels: list[str]
    line: int

    def __post_init__(self) -> None:
        # Read for every row: computed once per table.
        self.sizes = [len(g) for g in self.groups]
        self.width = len(self.prefix) + sum(self.sizes)
        # A row as wide as the header (nearly all of them) is read by position: where each
        # prefix column is (the last of a repeated name, as a dict of the prefix keeps it)...
        where = {name: index for index, name in enumerate(self.prefix)}
        self.at = tuple(where.get(name) for name in ("size", "count", "type", "redop", "root"))
        # ...and each group's label, columns and first token.
        spans = []
        position = len(self.prefix)
        for index, names in enumerate(self.groups):
            label = self.labels[index] if index < len(self.labels) else f"group{index}"
            spans.append((label, tuple(names), position))
            position += len(names)
        self.spans = tuple(spans)
        # Where each group holds the columns a reduced table reads (the last of a repeated
        # name, as the group's dict keeps it; None when absent).
        picks = []
        for names in self.groups:
            where = {name: index for index, name in enumerate(names)}
            picks.append(tuple(where.get(n) for n in ("busbw", "algbw", "time", "wrong", "error")))
        self.picks = tuple(picks)
        # Two groups under one label share one entry of a row's results (the last wins): such
        # a table, or one with fewer than two prefix columns, is never reduced on the fast path.
        distinct = len({label for label, _n, _s in spans}) == len(spans)
        self.reducible = distinct and len(self.prefix) >= 2
        # The same picks as indexes into a row's cells after the prefix.
        first = len(self.prefix)
        self.flat = tuple(
            (label, *(None if at is None else start - first + at for at in pick))
            for (label, _names, start), pick in zip(spans, picks, strict=True)
        )


class _Row:
    """One result row; ``best`` is the group (out-of-place or in-place) with the larger busbw.
    A plain class with slots: a big log makes hundreds of thousands of them."""

    __slots__ = (
        "best",
        "best_label",
        "count",
        "line",
        "redop",
        "results",
        "root",
        "size_bytes",
        "type",
        "unreadable",
    )  # fmt: skip

    def __init__(
        self,
        line: int,
        size_bytes: int,
        count: int | None,
        type: str | None,
        redop: str | None,
        root: int | None,
        results: dict[str, dict[str, Any]],
        unreadable: bool = False,
    ) -> None:
        self.line = line
        self.size_bytes = size_bytes
        self.count = count
        self.type = type
        self.redop = redop
        self.root = root
        self.results = results
        self.unreadable = unreadable
        best_label: str | None = None
        best: dict[str, Any] | None = None
        for label, values in results.items():
            busbw = values.get("busbw")
            if busbw is not None and (best is None or busbw > best["busbw"]):
                best_label, best = label, values
        self.best_label = best_label
        self.best = best


@dataclass
class _Run:
    header: _Header
    collective: str | None
    rows: list[_Row] = field(default_factory=list)
    avg_busbw: float | None = None
    avg_line: int | None = None
    out_of_bounds: int | None = None
    out_of_bounds_ok: bool | None = None
    out_of_bounds_line: int | None = None
    wrong_kind: str | None = None
    # Streaming (compact) parses close a table once the next one starts: its summary and its
    # one curve fact are kept, its rows dropped (the first table's rows stay for the curve).
    summary: dict[str, Any] | None = None
    compact: Fact | None = None
    row_count: int = 0
    # Set for a table whose rows are not kept (compact parse, an earlier table kept its rows):
    # each row is reduced as it comes to what the table's summary and fact need.
    reduced: _Reduced | None = None


class _Reduced:
    """A table's rows reduced as they are read, to exactly what ``_run_summary`` and
    ``_compact_fact`` make of the rows (same figures, same order), without keeping any row."""

    __slots__ = (
        "algbw", "busbw", "count", "errors", "first", "lines", "peak", "peak_size", "placement",
        "sizes", "times", "total", "unchecked", "wrong_line",
    )  # fmt: skip

    def __init__(self) -> None:
        self.count = 0
        self.total: int | None = None
        self.unchecked = 0
        self.wrong_line: int | None = None  # the first row with a wrong count above 0
        self.errors: list[float] = []
        self.first: tuple[str | None, str | None, int] | None = None  # type, redop, line
        self.peak: float | None = None
        self.peak_size: int | None = None
        self.sizes: list[int] = []
        self.busbw: list[float] = []
        self.algbw: list[Any] = []
        self.times: list[Any] = []
        self.placement: list[str | None] = []
        self.lines: list[int] = []

    def best(self, line, size, type_, redop, label, busbw, algbw, time_) -> None:
        """The row's best group (the larger busbw) in the table's arrays and peak."""
        if self.first is None:
            self.first = (type_, redop, line)
        if self.peak is None or busbw > self.peak:
            self.peak, self.peak_size = busbw, size
        self.sizes.append(size)
        self.busbw.append(busbw)
        self.algbw.append(algbw)
        self.times.append(time_)
        self.placement.append(label)
        self.lines.append(line)

    def add_row(self, row: _Row) -> None:
        """A row read by _parse_row (any shape)."""
        self.count += 1
        absent = _ABSENT
        for values in row.results.values():
            value = values.get("wrong", absent)
            if value is not absent:
                if value is None or value == "unreadable":
                    self.unchecked += 1
                else:
                    self.total = (self.total or 0) + int(value)
                    if value > 0 and self.wrong_line is None:
                        self.wrong_line = row.line
            value = values.get("error", absent)
            if value is not absent:
                if value is None or value == "unreadable":
                    self.unchecked += 1
                else:
                    self.errors.append(value)
        best = row.best
        if best is not None:
            self.best(
                row.line, row.size_bytes, row.type, row.redop, row.best_label, best["busbw"],
                best.get("algbw"), best.get("time"),
            )  # fmt: skip

    def summary(self, run: _Run) -> dict[str, Any]:
        total = run.out_of_bounds if self.errors else self.total
        wrong_line = _wrong_line(run, self.wrong_line, bool(self.errors))
        return {
            "collective": run.collective,
            "header_line": run.header.line,
            "row_count": self.count,
            "peak_busbw_gbyte_s": self.peak,
            "peak_size_bytes": self.peak_size,
            "avg_busbw_gbyte_s": run.avg_busbw,
            "wrong_total": total,
            "wrong_unchecked": self.unchecked,
            "max_error": max(self.errors) if self.errors else None,
            "out_of_bounds": run.out_of_bounds,
            "out_of_bounds_ok": run.out_of_bounds_ok,
            "wrong_line": wrong_line,
        }

    def fact(self, run: _Run, index: int) -> Fact | None:
        if self.first is None or self.peak is None:
            return None
        type_, redop, line = self.first
        details = {
            "collective": run.collective,
            "run": index,
            "type": type_,
            "redop": redop,
            "size_bytes": self.sizes,
            "busbw_gbyte_s": self.busbw,
            "algbw_gbyte_s": self.algbw,
            "time_us": self.times,
            "placement": self.placement,
            "lines": self.lines,
        }
        return Fact("busbw_curve_gbyte_s", self.peak, "GB/s", line, details)


def _number(token: str) -> float | None:
    if len(token) > 40 or "_" in token:
        return None
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _byte_count(token: str) -> int | None:
    """An integer byte/element count; ``%g`` values are snapped to the power of two they round."""
    if len(token) <= 20 and token.isascii() and token.isdigit():
        return int(token)
    value = _number(token)
    if value is None or value < 0 or value > 2.0**63:
        return None
    if value < 1e6 and value != int(value):
        # %g prints every integer below 10**6 whole: "579.3" is a time, not a count.
        return None
    if value >= 1:
        # %g keeps 6 significant digits: a power of two within that rounding is the true value.
        power = 2 ** round(math.log2(value))
        if abs(power - value) <= value * 5e-6:
            return int(power)
    return round(value)


def _nccl_version_from_code(code: str) -> str:
    number = int(code)
    if number >= 10000:  # NCCL >= 2.9 encodes major*10000 + minor*100 + patch
        return f"{number // 10000}.{number % 10000 // 100}.{number % 100}"
    return f"{number // 1000}.{number % 1000 // 100}.{number % 100}"


def _parse_header(line: str, line_no: int, labels: list[str]) -> _Header | None:
    tokens = [t.lower() for t in line.strip().lstrip("#").split()]
    if len(tokens) < 5 or tokens[0] not in ("size", "bytes") or "busbw" not in tokens:
        return None
    tokens = [_HEADER_ALIASES.get(t, t) for t in tokens]
    if "time" not in tokens:
        return None
    first = tokens.index("time")
    groups: list[list[str]] = []
    for name in tokens[first:]:
        if name == "time":
            groups.append([])
        groups[-1].append(name)
    return _Header(tokens[:first], groups, labels or ["out-of-place", "in-place"], line_no)


def _default_header(width: int, line_no: int) -> _Header | None:
    prefix = _DEFAULT_PREFIXES.get(width)
    if prefix is None:
        return None
    group = ["time", "algbw", "busbw", "wrong"]
    return _Header(list(prefix), [group, list(group)], ["out-of-place", "in-place"], line_no)


def _parse_group(names, tokens, flags: list[bool] | None = None) -> dict[str, Any] | None:
    """One group's cells by name; None when a figure is unreadable. An unreadable #wrong or
    error cell is kept as "unreadable" (and ``flags``, when given, gets True)."""
    result: dict[str, Any] = {}
    for name, token in zip(names, tokens, strict=True):
        if token in _NOT_AVAILABLE:
            result[name] = None
            continue
        # _number inlined (millions of cells in a big log).
        value = None
        if len(token) <= 40 and "_" not in token:
            try:
                value = float(token)
            except ValueError:
                value = None
            if value is not None and value - value != 0:  # inf or nan
                value = None
        if value is None:
            if name in _WRONG_COLUMNS:
                result[name] = "unreadable"
                if flags is not None:
                    flags.append(True)
                continue
            return None
        result[name] = value
    return result


def _full_row(
    tokens: list[str],
    header: _Header,
    line_no: int,
    counts: dict[str, int | None],
    plain: bool = False,
) -> _Row | None:
    """``_parse_row`` for a row as wide as its header, read by position (the same result).
    ``counts`` caches byte and element counts by their text: a log sweeps the same sizes in
    every table, so each distinct one is read (and held) once."""
    at_size, at_count, at_type, at_redop, at_root = header.at
    if at_size is None:
        return None
    token = tokens[at_size]
    size = counts.get(token)
    if size is None:
        size = _byte_count(token)
        if size is None:
            return None
        if len(counts) < 4096:
            counts[token] = size
    count = None
    if at_count is not None:
        token = tokens[at_count]
        count = counts.get(token)
        if count is None:
            count = _byte_count(token)
            if count is None:
                return None
            if len(counts) < 4096:
                counts[token] = count
    root = None
    if at_root is not None:
        root_value = _number(tokens[at_root])
        if root_value is None:
            return None
        root = int(root_value)
    flags: list[bool] = []
    results: dict[str, dict[str, Any]] = {}
    # Cells without "_" (which float() would accept) and of at most 40 characters: a group
    # that float() reads whole, to finite numbers, is what _parse_group would make of it.
    plain = plain and max(map(len, tokens)) <= 40
    for label, names, start in header.spans:
        cells = tokens[start : start + len(names)]
        parsed = None
        if plain:
            try:
                values = list(map(float, cells))
            except ValueError:  # N/A, a cut cell...
                values = None
            if values is not None:
                total = sum(values)
                if total - total == 0:  # all finite
                    parsed = dict(zip(names, values, strict=True))
        if parsed is None:
            parsed = _parse_group(names, cells, flags)
            if parsed is None:
                return None
        results[label] = parsed
    return _Row(
        line_no,
        size,
        count,
        tokens[at_type] if at_type is not None else None,
        tokens[at_redop] if at_redop is not None else None,
        root,
        results,
        bool(flags),
    )


def _parse_row(
    tokens: list[str],
    header: _Header,
    line_no: int,
    counts: dict[str, int | None] | None = None,
    plain: bool = False,
) -> _Row | None:
    """One result row read with ``header``'s columns; None when it cannot be read. ``plain``:
    the row's text holds no "_" (see _full_row)."""
    sizes = header.sizes
    width = header.width
    if len(tokens) >= width and len(header.prefix) >= 2:
        return _full_row(tokens, header, line_no, {} if counts is None else counts, plain)
    groups_used = len(sizes)
    pre = len(tokens) - sum(sizes)
    # Blank cells (an old alltoall's empty redop, a tool that leaves in-place empty) shorten the
    # row: keep the groups that fit from the right, since every column is right-aligned.
    while pre < 2 or pre > len(header.prefix):
        groups_used -= 1
        if groups_used == 0:
            return None
        pre = len(tokens) - sum(sizes[len(sizes) - groups_used :])
    prefix = dict(zip(header.prefix, tokens[:pre], strict=False))
    size = _byte_count(prefix.get("size", ""))
    if size is None:
        return None
    if _number(prefix.get("type", "-")) is not None:
        return None  # a number where the type name goes: the tail of a row cut by other lines
    count_token = prefix.get("count")
    count = _byte_count(count_token) if count_token is not None else None
    if count_token is not None and count is None:
        return None
    root_token = prefix.get("root")
    root = None
    if root_token is not None:
        root_value = _number(root_token)
        if root_value is None:
            return None
        root = int(root_value)
    results: dict[str, dict[str, Any]] = {}
    position = pre
    first_group = len(sizes) - groups_used
    flags: list[bool] = []
    for index in range(first_group, len(sizes)):
        chunk = tokens[position : position + sizes[index]]
        position += sizes[index]
        parsed = _parse_group(header.groups[index], chunk, flags)
        if parsed is None:
            return None
        label = header.labels[index] if index < len(header.labels) else f"group{index}"
        results[label] = parsed
    return _Row(
        line_no, size, count, prefix.get("type"), prefix.get("redop"), root, results, bool(flags)
    )


def _group_labels(line: str) -> list[str]:
    found = [(m.start(), m.group(0)) for m in re.finditer(r"out-of-place|in-place", line)]
    return [label for _, label in sorted(found)]


def _clean(line: str) -> str:
    # A paste quoted in a markdown reply: "> " before every line.
    line = unquote(line)
    # Both MPI tag forms end in a colon, both launcher tags start with a bracket: any other
    # line is left as it is.
    if ":" in line or line.lstrip(" \t").startswith(("(", "[")):
        tag = _MPI_TAG_RE.match(line)
        if tag:
            hydra = re.search(r"\[\d{1,6}\]$", tag.group(0))
            line = line[tag.end() :]
            if hydra:
                # The rank's later pieces of the same line carry the same tag: "-1[0]  1626.5".
                line = line.replace(hydra.group(0), " ")
    line = line.rstrip()
    # An annotation needs "#", "//", "<", ">" or an arrow (not ASCII) after a word and a
    # blank: result rows have none, and a "#" that starts a line is not one.
    if "/" in line or "<" in line or ">" in line or not line.isascii():
        return strip_annotation(line)
    mark = line.find("#")
    if mark >= 0 and ((not line[:mark].isspace() and mark > 0) or "#" in line[mark + 1 :]):
        return strip_annotation(line)
    return line


# Network transports named by NCCL_DEBUG=INFO lines ("NCCL INFO Using network ...",
# "NET/Plugin ...", "NET/OFI Selected Provider is efa"); the first three exist only in one
# cloud's virtual machines, libfabric/OFI also runs on bare-metal HPC (e.g. Slingshot).
# "NET/IB : No device found" is NCCL saying IB is absent, not that it is used.
_NET_PATTERNS = (
    (re.compile(r"TCPXO|FasTrak", re.IGNORECASE), "GCP GPUDirect-TCPXO"),
    (re.compile(r"GPUDirectTCPX|gpudirect-?tcpx\b", re.IGNORECASE), "GCP GPUDirect-TCPX"),
    (re.compile(r"provider\s+(?:is\s+)?efa\b|\befa-direct\b", re.IGNORECASE), "AWS EFA"),
    (re.compile(r"NET/OFI|aws-ofi-nccl|AWS Libfabric|Libfabric", re.IGNORECASE), "libfabric (OFI)"),
    (re.compile(r"Using network IB\b|NET/IB\b(?!\s*:\s*No device)"), "InfiniBand"),
    (re.compile(r"Using network Socket\b|NET/Socket\b"), "Socket"),
)
# Lower-case words one of which a text must contain for the label's pattern to match at all.
_NET_GATES = {
    "GCP GPUDirect-TCPXO": ("tcpxo", "fastrak"),
    "GCP GPUDirect-TCPX": ("tcpx",),
    "AWS EFA": ("efa",),
    "libfabric (OFI)": ("net/ofi", "aws-ofi-nccl", "libfabric"),
    "InfiniBand": ("net/ib", "network ib"),
    "Socket": ("net/socket", "network socket"),
}
# A line NCCL itself printed (src/debug.cc): "[<timestamp>] <host>:<pid>:<tid> [<cudaDev>]
# NCCL INFO <msg>", WARN lines with "<file>:<line> [(<func>)]" before "NCCL WARN". The
# timestamp (NCCL_DEBUG_TIMESTAMP_FORMAT, on WARN by default since 2.26), the host part and
# the device are optional because pasted logs often lose them; an mpirun --tag-output or
# srun --label prefix may come first. Prose that merely names a transport ("grep -c
# 'NET/Socket'", "look for NET/IB") has none of this shape and names nothing.
_NCCL_LOG_LINE_RE = re.compile(
    rf"\s*{_LAUNCHER_TAG}?(?:\[\d+,\d+\]<std(?:out|err)>:|\d+: )?"
    r"(?:\[[^\]\n]*\]\s?)?"
    r"(?:[^\s:\[]+:\d+:\d+ )?"
    r"(?:\[-?\d+\] )?"
    r"(?:[^\s:]+:\d+ (?:\([^)\n]*\) )?)?"
    r"NCCL (?:INFO|WARN) "
)


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)]


def _net_plugins(text: str) -> list[str]:
    """Transports named by NCCL's own INFO/WARN lines in ``text`` (one line or a whole log),
    in ``_NET_PATTERNS`` order; a match outside such a line does not count."""
    found: list[str] = []
    lowered = text.lower()
    if "net" not in lowered and "efa" not in lowered:
        return found
    for pattern, label in _NET_PATTERNS:
        # A substring test is ~30x cheaper than a case-insensitive regex scan of a big log.
        if not any(word in lowered for word in _NET_GATES[label]):
            continue
        line_end = -1  # a line is looked at once, not once per match in it (quadratic)
        for match in pattern.finditer(text):
            if match.start() < line_end:
                continue
            end = text.find("\n", match.start())
            line_end = len(text) if end < 0 else end
            if _NCCL_LOG_LINE_RE.match(_line_at(text, match.start())):
                found.append(label)
                break
    return found


def parse(text: str) -> ParseResult:
    """Parse nccl-tests output into the figures documented at the top of this module."""
    scanner = _Scanner()
    for line_no, raw in enumerate(text.splitlines(), start=1):
        scanner.feed(line_no, _clean(raw))
    result = scanner.finish()
    result.metrics["net_plugins"] = _net_plugins(text)
    return result


def iter_lines(text: str, chunk: int = 1 << 20) -> Iterator[str]:
    """The lines of ``text`` as ``str.splitlines`` gives them, one chunk at a time (never a
    list of every line of a big log)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + chunk)
        end = len(text) if end < 0 else end + 1
        yield from text[start:end].splitlines()
        start = end


def parse_lines(lines: Iterable[str]) -> ParseResult:
    """Parse nccl-tests output read line by line, keeping little of it: each table is
    summarised when the next begins, and its rows become ONE ``busbw_curve_gbyte_s`` fact
    (the table's peak, with ``size_bytes``, ``busbw_gbyte_s``, ``algbw_gbyte_s``,
    ``time_us``, ``placement`` and ``lines`` arrays in its details) instead of one fact per
    row. The metrics are those of :func:`parse`; ``net_plugins`` is read line by line."""
    scanner = _Scanner(compact=True)
    plugins: list[str] = []
    feed = scanner.feed
    for line_no, raw in enumerate(lines, start=1):
        line = _clean(raw)
        if feed(line_no, line):
            continue  # a result row: no transport is named there
        if "NET" in line or "network" in line or "efa" in line.lower():
            plugins.extend(p for p in _net_plugins(line) if p not in plugins)
    result = scanner.finish()
    result.metrics["net_plugins"] = [label for _p, label in _NET_PATTERNS if label in plugins]
    return result


@dataclass
class _Scanner:
    """One pass over the lines; keeps what the banners said and the tables found."""

    warnings: list[str] = field(default_factory=list)
    runs: list[_Run] = field(default_factory=list)
    collectives: list[str] = field(default_factory=list)
    collective: str | None = None
    devices: dict[int, tuple[str, str]] = field(default_factory=dict)
    duplicate_ranks: set[int] = field(default_factory=set)
    nranks: int | None = None
    nccl_version: str | None = None
    tests_version: str | None = None
    gpus_per_process: int | None = None
    failures: list[tuple[int, str]] = field(default_factory=list)
    # NCCL WARN lines reporting an error: named when no row and no failure line was printed.
    warn_errors: list[tuple[int, str]] = field(default_factory=list)
    # Collective names first seen after a finished table (see _banner).
    late_collectives: set[str] = field(default_factory=set)
    labels: list[str] = field(default_factory=list)
    orphan_header: _Header | None = None
    unreadable: list[int] = field(default_factory=list)
    last_line: int = 0
    compact: bool = False
    # Byte and element counts by their text (see _full_row).
    counts: dict[str, int | None] = field(default_factory=dict)
    # Whether a table closed so far kept rows (tables close in order).
    kept_rows: bool = False
    # Header lines already read (see _header) and root cells known to be numbers.
    headers: dict[tuple[str, tuple[str, ...]], Any] = field(default_factory=dict)
    roots: set[str] = field(default_factory=set)
    device_lines: dict[str, Any] = field(default_factory=dict)
    # rank -> PCI bus number of its GPU as the device list prints it.
    buses: dict[int, int] = field(default_factory=dict)
    # rank -> (host, "domain:bus:device") when the device line shows the full PCI address.
    pci_ids: dict[int, tuple[str, str]] = field(default_factory=dict)

    def _close(self, index: int) -> None:
        run = self.runs[index]
        if run.summary is not None:
            return
        reduced = run.reduced
        if reduced is not None:
            run.row_count = reduced.count
            run.summary = reduced.summary(run)
            run.compact = reduced.fact(run, index)
            run.reduced = None
            self.kept_rows = self.kept_rows or run.row_count > 0
            return
        run.row_count = len(run.rows)
        run.summary = _run_summary(run)
        run.compact = _compact_fact(run, index)
        if self.kept_rows:
            run.rows = []  # not the first table with rows: its summary and fact suffice
        self.kept_rows = self.kept_rows or run.row_count > 0

    def feed(self, line_no: int, line: str) -> bool:
        """Take one cleaned line; True when it was read as a result row (runs exist, it starts
        with a digit and has no colon), whatever became of it."""
        self.last_line = line_no
        stripped = line.lstrip()
        if not stripped:
            return False
        if self.runs and stripped[0].isdigit() and ":" not in line:
            # Result rows carry no banner: skipping the banner patterns keeps big logs fast.
            tokens = line.split()
            plain = "_" not in line
            run = self.runs[-1]
            if not (run.reduced is not None and plain and self._reduce_plain(run, tokens, line_no)):
                self._add_row(tokens, line_no, plain)
            return True
        if _EXCERPT_RE.match(line):
            self.warnings.append(f"line {line_no}: the output was cut by its author ({line})")
        elif not self._banner(line, line_no):
            tokens = line.split()
            if tokens and not tokens[0].startswith("#") and _number(tokens[0]) is not None:
                self._add_row(tokens, line_no)
                # An orphan row starting the first table: a row now, for the transport scan.
                return bool(self.runs) and stripped[0].isdigit() and ":" not in line
        return False

    def _banner(self, line: str, line_no: int) -> bool:
        """Handle a non-row line; False when it may be a result row."""
        # Cheap substring tests guard each pattern: most lines of a big log match none.
        found = _COLLECTIVE_RE.search(line) if "_perf" in line else None
        if found:
            self.collective = found.group(1)
            first_seen = self.collective not in self.collectives
            if first_seen:
                self.collectives.append(self.collective)
            last = self.runs[-1] if self.runs else None
            if last is not None and last.collective is None and "concluded" in line:
                last.collective = self.collective
            elif (
                first_seen
                and last is not None
                and (last.rows or last.row_count)
                and (last.avg_busbw is not None or last.out_of_bounds is not None)
            ):
                # The name comes after a table that printed its summary: it names the next
                # run ("./broadcast_perf -b 8 ..." after an all_gather table), not that one.
                self.late_collectives.add(self.collective)
        match = _TESTS_VERSION_RE.search(line) if "nccl-tests version" in line else None
        if match:
            self.tests_version = match.group(1)
            if match.group(3):
                self.nccl_version = _nccl_version_from_code(match.group(3))
            return True
        match = None
        if "NCCL" in line:
            match = _NCCL_VERSION_RE.search(line) or _COMPILED_WITH_RE.search(line)
        if match:
            self.nccl_version = self.nccl_version or match.group(1)
        match = _PARAMS_RE.search(line) if "nGpus" in line else None
        if match:
            self.gpus_per_process = int(match.group(2))
            return True
        device = self._device(line) if "Rank" in line and "device" in line else None
        if device is not None:
            rank, entry, bus, pci = device
            if rank in self.devices and self.devices[rank] != entry:
                self.duplicate_ranks.add(rank)
            self.devices.setdefault(rank, entry)
            if bus is not None:
                self.buses.setdefault(rank, bus)
            if pci is not None:
                self.pci_ids.setdefault(rank, (entry[0], pci))
            return True
        match = _NRANKS_RE.search(line) if "NCCL INFO" in line else None
        if match:
            self.nranks = max(self.nranks or 0, int(match.group(1)))
            return True
        if "failure" in line and _FAILURE_RE.search(line):
            self.failures.append((line_no, line.strip()))
            return True
        warn = line.find("NCCL WARN ") if not self.warn_errors else -1
        # From the first "NCCL WARN " only: a search tries ".*" from every one of them.
        if warn >= 0 and _WARN_ERROR_RE.match(line, warn):
            self.warn_errors.append((line_no, line.strip()))
        if "out-of-place" in line or "in-place" in line:
            self.labels = _group_labels(line)
            return True
        header = self._header(line, line_no) if "busbw" in line else None
        if header is not None:
            if self.compact and self.runs:
                self._close(len(self.runs) - 1)
            run = _Run(header, self.collective)
            if self.compact and self.kept_rows:
                run.reduced = _Reduced()  # its rows will not be kept: reduce them as they come
            self.runs.append(run)
            self.labels = []
            return True
        return self._summary_line(line, line_no)

    def _summary_line(self, line: str, line_no: int) -> bool:
        lowered = line.lower()
        match = _OOB_RE.search(line) if "out of bounds" in lowered else None
        if match and self.runs:
            status = (match.group(2) or "").upper()
            self.runs[-1].out_of_bounds = int(match.group(1))
            self.runs[-1].out_of_bounds_ok = None if not status else status == "OK"
            self.runs[-1].out_of_bounds_line = line_no
        avg = _AVG_RE.search(line) if "bus bandwidth" in lowered else None
        if avg and self.runs:
            self.runs[-1].avg_busbw = _number(avg.group(1))
            self.runs[-1].avg_line = line_no
        return bool(match or avg)

    def _device(self, line: str) -> tuple[int, tuple[str, str], int | None, str | None] | None:
        """(rank, (host, GPU name), PCI bus or None, full "domain:bus:device" address or None)
        of a device-list line, or None; read once per distinct line (every run of a long log
        prints its device list again)."""
        known = self.device_lines.get(line, _ABSENT)
        if known is not _ABSENT:
            return known
        match = _DEVICE_RE.search(line)
        device = None
        if match:
            bus = _DEVICE_BUS_RE.match(match.group(5))
            number = int(bus.group(1) or bus.group(2), 16) if bus else None
            pci = match.group(5).strip().lower() if bus and bus.group(2) else None
            device = (
                int(match.group(1)),
                (match.group(3), match.group(6).strip()),
                number,
                pci,
            )
        if len(self.device_lines) < 4096:
            self.device_lines[line] = device
        return device

    def _shared_gpu_ranks(self) -> list[int]:
        """Ranks whose host and full PCI address another rank also shows: several processes on
        one GPU (a test run on a machine with fewer GPUs than ranks)."""
        seen: dict[tuple[str, str], list[int]] = {}
        for rank, key in self.pci_ids.items():
            seen.setdefault(key, []).append(rank)
        return sorted(r for ranks in seen.values() if len(ranks) > 1 for r in ranks)

    def _header(self, line: str, line_no: int) -> _Header | None:
        """``_parse_header`` of the line, read once per distinct header line and labels (a long
        log repeats the same header for every table): a copy with this line's number."""
        key = (line, tuple(self.labels))
        known = self.headers.get(key, _ABSENT)
        if known is _ABSENT:
            header = _parse_header(line, line_no, self.labels)
            if len(self.headers) < 64:
                self.headers[key] = header
            return header
        if known is None:
            return None
        header = copy.copy(known)
        header.line = line_no
        return header

    def _add_row(self, tokens: list[str], line_no: int, plain: bool = False) -> None:
        if not self.runs:
            self.orphan_header = self.orphan_header or _default_header(len(tokens), line_no)
            if self.orphan_header is None:
                return
            self.runs.append(_Run(self.orphan_header, self.collective))
            self.warnings.append(
                f"line {line_no}: no column header before the first row; columns inferred "
                "from the row width"
            )
        run = self.runs[-1]
        if run.reduced is not None and plain and self._reduce_plain(run, tokens, line_no):
            return  # (rows of the else branch in feed: a sign, a point)
        row = _parse_row(tokens, run.header, line_no, self.counts, plain)
        if row is None:
            self.unreadable.append(line_no)
            return
        if row.unreadable:
            self.warnings.append(f"line {line_no}: unreadable #wrong/error value (truncated?)")
        if run.reduced is not None:
            run.reduced.add_row(row)
        else:
            run.rows.append(row)

    def _reduce_plain(self, run: _Run, tokens: list[str], line_no: int) -> bool:
        """A full-width row of plain finite numbers straight into ``run.reduced`` (what
        _full_row then _Reduced.add_row would do); False, having changed nothing, for any
        other row: _parse_row reads it."""
        header = run.header
        if len(tokens) < header.width or not header.reducible or max(map(len, tokens)) > 40:
            return False
        at_size, at_count, at_type, at_redop, at_root = header.at
        if at_size is None:
            return False
        counts = self.counts
        size = counts.get(tokens[at_size])
        if size is None:
            return False  # read (and cached) by _full_row
        if at_count is not None and counts.get(tokens[at_count]) is None:
            return False
        if at_root is not None:
            root = tokens[at_root]
            if root not in self.roots:
                if _number(root) is None:
                    return False
                if len(self.roots) < 1024:
                    self.roots.add(root)
        try:
            values = list(map(float, tokens[len(header.prefix) : header.width]))
        except ValueError:
            return False
        total = sum(values)
        if total - total != 0:  # inf or nan
            return False
        reduced = run.reduced
        if reduced is None:
            return False
        reduced.count += 1
        best = None
        best_busbw = 0.0
        for pick in header.flat:
            _label, at_busbw, _algbw, _time, at_wrong, at_error = pick
            if at_wrong is not None:
                wrong = int(values[at_wrong])
                reduced.total = (reduced.total or 0) + wrong
                if wrong > 0 and reduced.wrong_line is None:
                    reduced.wrong_line = line_no
            if at_error is not None:
                reduced.errors.append(values[at_error])
            if at_busbw is not None and (best is None or values[at_busbw] > best_busbw):
                best, best_busbw = pick, values[at_busbw]
        if best is not None:  # _Reduced.best, inlined (once per row of a long log)
            label, _b, at_algbw, at_time, _w, _e = best
            if reduced.first is None:
                reduced.first = (
                    tokens[at_type] if at_type is not None else None,
                    tokens[at_redop] if at_redop is not None else None,
                    line_no,
                )
            if reduced.peak is None or best_busbw > reduced.peak:
                reduced.peak, reduced.peak_size = best_busbw, size
            reduced.sizes.append(size)
            reduced.busbw.append(best_busbw)
            reduced.algbw.append(values[at_algbw] if at_algbw is not None else None)
            reduced.times.append(values[at_time] if at_time is not None else None)
            reduced.placement.append(label)
            reduced.lines.append(line_no)
        return True

    def finish(self) -> ParseResult:
        warnings = self.warnings
        for line_no in self.unreadable:
            tail = " (the output seems truncated)" if line_no == self.last_line else ""
            warnings.append(f"line {line_no}: unreadable or incomplete result row skipped{tail}")
        if self.compact:
            for index in range(len(self.runs)):
                self._close(index)
        runs = [run for run in self.runs if run.rows or run.row_count]
        if not runs:
            raise _no_rows_error(self.runs, self.failures or self.warn_errors)
        warnings.extend(
            f"line {n}: the test reported a failure: {message}" for n, message in self.failures
        )
        if self.duplicate_ranks:
            ranks = ", ".join(str(r) for r in sorted(self.duplicate_ranks))
            warnings.append(
                f"rank(s) {ranks} listed by several processes: they ran as separate jobs "
                "(nccl-tests built without MPI?); 'ranks' counts each rank number once"
            )
        shared = self._shared_gpu_ranks()
        if shared:
            warnings.append(
                f"{len(shared)} ranks share a GPU with another rank (same host and PCI "
                "address): the run measured no link between GPUs for them"
            )
        if len(runs) > 1:
            warnings.append(
                f"{len(runs)} result tables; the bandwidth figures describe the first one, "
                "the correctness figures every table"
            )
        main = runs[0]
        summaries = [run.summary or _run_summary(run) for run in runs]
        summary = {**summaries[0], **_worst_correctness(summaries)}
        if main.avg_busbw is None:
            warnings.append("no 'Avg bus bandwidth' line (output truncated?)")
        if main.out_of_bounds is None:
            warnings.append("no 'Out of bounds values' line: the correctness check is absent")
        if summary["wrong_unchecked"]:
            unchecked = summary["wrong_unchecked"]
            warnings.append(f"{unchecked} result(s) were not checked for correctness (N/A)")
        if summary["wrong_line"] is not None:
            warnings.append(
                f"line {summary['wrong_line']}: nccl-tests reported wrong results "
                "(out-of-bounds values)"
            )
        collective = main.collective
        if (
            collective is None
            and len(self.collectives) == 1
            and self.collectives[0] not in self.late_collectives
        ):
            collective = self.collectives[0]
        ranks = self.nranks
        if self.devices:
            # A per-node or filtered log lists some ranks only: "Rank 15" means 16 or more.
            listed, highest = len(self.devices), max(self.devices) + 1
            ranks = max(listed, highest, self.nranks or 0)
            if ranks > listed:
                warnings.append(
                    f"the device list shows {listed} of at least {ranks} ranks "
                    "(a per-node or filtered log)"
                )
        inferred = _infer_collective(main.rows, ranks) if collective is None else None
        if inferred is not None:
            candidates, _, reason = inferred
            if len(candidates) == 1:
                collective = candidates[0]
                warnings.append(f"the output does not name the collective: {reason}")
            elif candidates:
                warnings.append(
                    "the output does not name the collective and the table fits "
                    f"{' or '.join(candidates)}: {reason}"
                )
        sizes = [row.size_bytes for row in main.rows]
        metrics: dict[str, Any] = {
            "collective": collective,
            "collective_inferred": inferred is not None and collective is not None,
            "collective_candidates": inferred[0] if inferred is not None else [],
            "ranks_inferred": inferred[1] if inferred is not None else None,
            "collectives": self.collectives,
            "ranks": ranks,
            **{k: v for k, v in summary.items() if k not in ("collective", "header_line")},
            "max_size_bytes": max(sizes),
            "min_size_bytes": min(sizes),
            "curve": [_curve_point(row) for row in main.rows],
            "nccl_version": self.nccl_version,
            "nccl_tests_version": self.tests_version,
            "gpu_names": list(dict.fromkeys(n for _, n in self.devices.values() if n)),
            "hosts": list(dict.fromkeys(host for host, _ in self.devices.values())),
            # Below ``ranks`` when the log lists some ranks only: ``hosts`` is then a floor.
            "devices_listed": len(self.devices),
            "gpus_per_process": self.gpus_per_process,
            "bus_ids_shown": len(self.buses),
            "root_bus_ranks": sum(1 for bus in self.buses.values() if bus == 0),
            "shared_gpu_ranks": shared,
            "failures": [message for _, message in self.failures],
        }
        if len(runs) > 1:
            metrics["runs"] = summaries
        facts = _facts(runs, collective, compact=self.compact)
        return ParseResult(KIND, metrics, tuple(facts), tuple(warnings))


_TYPE_BYTES = {
    "int8": 1, "uint8": 1, "char": 1, "fp8": 1, "f8e4m3": 1, "f8e5m2": 1, "float8": 1,
    "half": 2, "float16": 2, "bfloat16": 2, "bf16": 2,
    "int32": 4, "uint32": 4, "int": 4, "float": 4, "float32": 4,
    "int64": 8, "uint64": 8, "double": 8, "float64": 8,
}  # fmt: skip
_NO_REDOP = {None, "", "none"}
_RATIO_TOLERANCE = 0.03


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _RATIO_TOLERANCE * max(abs(b), 1e-9)


def _infer_collective(
    rows: list[_Row], ranks: int | None
) -> tuple[list[str], int | None, str] | None:
    """The collective(s) a table fits when the output never names one.

    nccl-tests' bus bandwidth is algbw * factor: 2(n-1)/n for all_reduce, (n-1)/n for
    all_gather, reduce_scatter and alltoall, 1 for broadcast, reduce and sendrecv. For the
    collectives that split the buffer per rank (all_gather, reduce_scatter, alltoall, gather,
    scatter) the count column is size / (type size * n). A reduction op (sum, prod...) rules
    out the copy-only collectives; a root >= 0 means broadcast/reduce/gather/scatter.
    Returns (candidates, n or None, reason), or None when the rows hold no usable figures.
    """
    ratios: list[float] = []
    big: list[float] = []
    splits: list[float] = []
    for row in rows:
        best = row.best or {}
        algbw, busbw = best.get("algbw"), best.get("busbw")
        if algbw and busbw and algbw > 0:
            ratios.append(busbw / algbw)
            if algbw >= 1.0:  # two printed decimals: small values give rough ratios
                big.append(busbw / algbw)
        type_bytes = _TYPE_BYTES.get((row.type or "").lower())
        if type_bytes and row.count:
            splits.append(row.size_bytes / (row.count * type_bytes))
    if not ratios:
        return None
    ratio = _median(big or ratios)
    split = round(_median(splits)) if splits else None
    redops = {(row.redop or "").lower() or None for row in rows}
    roots = {row.root for row in rows}
    reduces = bool(redops - _NO_REDOP)
    copies = redops <= _NO_REDOP
    rooted = any(r is not None and r >= 0 for r in roots)
    unrooted = all(r is not None and r < 0 for r in roots)
    n = ranks
    reason = f"busbw/algbw = {ratio:.3f}"
    candidates: list[str] = []
    if split is not None and split > 1:
        # The buffer is split per rank: n is the split.
        n = split
        reason += f", size/count/type size = {split} ranks"
        if not _close(ratio, (n - 1) / n):
            expected = (n - 1) / n
            reason += f" (old nccl-tests print busbw = algbw, not (n-1)/n = {expected:.3f})"
        if rooted:
            candidates = ["gather", "scatter"]
        elif reduces:
            candidates = ["reduce_scatter"]
        elif copies:
            candidates = ["all_gather", "alltoall"]
        else:
            candidates = ["all_gather", "reduce_scatter", "alltoall"]
    elif ratio > 1 + _RATIO_TOLERANCE:
        # Only all_reduce moves more bus bytes than algorithm bytes (up to 2x).
        if ratio <= 2 + _RATIO_TOLERANCE and not rooted and not (copies and redops != {None}):
            candidates = ["all_reduce"]
            guess = round(2 / (2 - ratio)) if ratio < 2 - 1e-6 else None
            # Past ~16 ranks, two printed decimals no longer pin n down.
            if n is None and guess is not None and 2 <= guess <= 16:
                n = guess
                reason += f" = 2(n-1)/n with n = {guess}"
            else:
                reason += " = 2(n-1)/n (all_reduce)"
    elif _close(ratio, 1.0):
        if rooted:
            candidates = ["reduce"] if reduces else ["broadcast"] if copies else []
            candidates = candidates or ["broadcast", "reduce"]
        elif n is not None and n > 2:
            candidates = ["sendrecv"]  # an all_reduce over n > 2 ranks has a ratio > 1
        elif unrooted and reduces:
            candidates = ["all_reduce", "sendrecv"]
        else:
            candidates = ["sendrecv"]
    elif ratio < 1 - _RATIO_TOLERANCE:
        guess = round(1 / (1 - ratio))
        if guess >= 2 and _close(ratio, (guess - 1) / guess) and (n is None or n == guess):
            n = guess
            reason += f" = (n-1)/n with n = {guess}"
            if reduces:
                candidates = ["reduce_scatter"]
            elif copies:
                candidates = ["all_gather", "alltoall"]
            else:
                candidates = ["all_gather", "reduce_scatter", "alltoall"]
    return candidates, n, reason


def _no_rows_error(runs: list[_Run], failures: list[tuple[int, str]]) -> EvidenceParseError:
    if failures:
        # " .. <host> pid <n>: Test failure <file>.cu:<line>" only says where the test stopped;
        # the line before it quotes NCCL's reason ("... 'unhandled cuda error ...'").
        line_no, message = next((f for f in failures if "'" in f[1]), failures[0])
        reason = f"nccl-tests printed no result rows; the test failed: {message}"
        return EvidenceParseError(
            reason, line=line_no, kind=KIND, code="nccl.test_failed", params={"message": message}
        )
    if runs:
        reason = "the nccl-tests table has a header but no readable result rows (truncated?)"
        return EvidenceParseError(reason, line=runs[0].header.line, kind=KIND, code="nccl.no_rows")
    return EvidenceParseError(
        "no nccl-tests result table found (expected a header line with 'size count type ... "
        "time algbw busbw' columns and numeric rows)",
        kind=KIND,
        code="nccl.nothing",
    )


_ABSENT = object()


def _run_summary(run: _Run) -> dict[str, Any]:
    peak_row = max(
        (row for row in run.rows if row.best is not None),
        key=lambda row: row.best["busbw"] if row.best else 0.0,
        default=None,
    )
    total: int | None = None
    unchecked = 0
    errors: list[float] = []
    first_wrong: int | None = None
    absent = _ABSENT
    for row in run.rows:
        for values in row.results.values():
            value = values.get("wrong", absent)
            if value is not absent:
                if value is None or value == "unreadable":
                    unchecked += 1
                else:
                    total = (total or 0) + int(value)
                    if value > 0 and first_wrong is None:
                        first_wrong = row.line
            value = values.get("error", absent)
            if value is not absent:
                if value is None or value == "unreadable":
                    unchecked += 1
                else:
                    errors.append(value)
    if errors:  # an old "error" column is a deviation: the tool's own verdict is the count
        total = run.out_of_bounds
    wrong_line = _wrong_line(run, first_wrong, bool(errors))
    return {
        "collective": run.collective,
        "header_line": run.header.line,
        "row_count": len(run.rows) or run.row_count,
        "peak_busbw_gbyte_s": peak_row.best["busbw"] if peak_row and peak_row.best else None,
        "peak_size_bytes": peak_row.size_bytes if peak_row else None,
        "avg_busbw_gbyte_s": run.avg_busbw,
        "wrong_total": total,
        "wrong_unchecked": unchecked,
        "max_error": max(errors) if errors else None,
        "out_of_bounds": run.out_of_bounds,
        "out_of_bounds_ok": run.out_of_bounds_ok,
        "wrong_line": wrong_line,
    }


def _worst_correctness(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """The correctness figures over every table of a file: a log of several runs is as wrong
    as its worst one, whichever table comes first (bandwidth figures stay the first table's).

    wrong_total / out_of_bounds / wrong_unchecked sum the tables whose count is known (None
    when none is); out_of_bounds_ok is False when any table FAILED, True when none did and one
    said OK; max_error is the largest deviation; wrong_line the first line showing a failure.
    """

    def known(key: str) -> list[Any]:
        return [s[key] for s in summaries if s.get(key) is not None]

    oks = known("out_of_bounds_ok")
    ok = False if False in oks else (True if oks else None)
    lines = known("wrong_line")
    return {
        "wrong_total": sum(known("wrong_total")) if known("wrong_total") else None,
        "wrong_unchecked": sum(s["wrong_unchecked"] for s in summaries),
        "max_error": max(known("max_error")) if known("max_error") else None,
        "out_of_bounds": sum(known("out_of_bounds")) if known("out_of_bounds") else None,
        "out_of_bounds_ok": ok,
        "wrong_line": min(lines) if lines else None,
    }


def _wrong_line(run: _Run, first_wrong: int | None, deviations: bool) -> int | None:
    """Where a table shows its wrong results: the first row counting wrong values, else its
    "Out of bounds values" line when that reports any (the only count of an old table whose
    "error" column holds a deviation); None for a clean or unchecked table."""
    if first_wrong is not None and not deviations:
        return first_wrong
    if run.out_of_bounds_ok is False or (run.out_of_bounds or 0) > 0:
        return run.out_of_bounds_line
    return None


def _curve_point(row: _Row) -> dict[str, Any]:
    best = row.best or {}
    return {
        "size_bytes": row.size_bytes,
        "count": row.count,
        "type": row.type,
        "redop": row.redop,
        "root": row.root,
        "time_us": best.get("time"),
        "algbw_gbyte_s": best.get("algbw"),
        "busbw_gbyte_s": best.get("busbw"),
        "out_of_place_busbw_gbyte_s": row.results.get("out-of-place", {}).get("busbw"),
        "in_place_busbw_gbyte_s": row.results.get("in-place", {}).get("busbw"),
    }


def _compact_fact(run: _Run, index: int) -> Fact | None:
    """One table's rows as one fact: its peak busbw, with the size sweep as arrays."""
    rows = [row for row in run.rows if row.best is not None]
    if not rows:
        return None
    peak = max(rows, key=lambda row: row.best["busbw"] if row.best else 0.0)
    details = {
        "collective": run.collective,
        "run": index,
        "type": rows[0].type,
        "redop": rows[0].redop,
        "size_bytes": [row.size_bytes for row in rows],
        "busbw_gbyte_s": [row.best["busbw"] for row in rows if row.best],
        "algbw_gbyte_s": [row.best.get("algbw") for row in rows if row.best],
        "time_us": [row.best.get("time") for row in rows if row.best],
        "placement": [row.best_label for row in rows],
        "lines": [row.line for row in rows],
    }
    return Fact("busbw_curve_gbyte_s", peak.best["busbw"], "GB/s", rows[0].line, details)


def _facts(runs: list[_Run], collective: str | None, *, compact: bool = False) -> list[Fact]:
    facts: list[Fact] = []
    peak: Fact | None = None
    if compact:
        facts = [run.compact for run in runs if run.compact is not None]
        runs = runs[:1]  # the peak fact below reads the first table's rows
    for run in runs:
        for row in run.rows:
            if row.best is None:
                continue
            details = {
                "collective": run.collective,
                "size_bytes": row.size_bytes,
                "type": row.type,
                "redop": row.redop,
                "placement": row.best_label,
                "algbw_gbyte_s": row.best.get("algbw"),
                "time_us": row.best.get("time"),
            }
            fact = Fact("busbw_gbyte_s", row.best["busbw"], "GB/s", row.line, details)
            if not compact:
                facts.append(fact)
            if run is runs[0] and (peak is None or fact.value > peak.value):
                peak = fact
    if peak is not None:
        facts.append(Fact("peak_busbw_gbyte_s", peak.value, "GB/s", peak.line, peak.details))
    if runs[0].avg_busbw is not None:
        avg, line = runs[0].avg_busbw, runs[0].avg_line
        facts.append(Fact("avg_busbw_gbyte_s", avg, "GB/s", line, {"collective": collective}))
    return facts
