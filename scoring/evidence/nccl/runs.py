"""One result table (a run) and what it sums up to: its summary, correctness and facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..base import EvidenceParseError, Fact
from .formats import KIND
from .table import _Header, _Row


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
