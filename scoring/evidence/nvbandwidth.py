"""Parser for NVIDIA ``nvbandwidth`` output: one bandwidth matrix per test case, in GB/s.

Reads the header (nvbandwidth / CUDA / driver versions, the device list), then each
``Running <testcase>.`` block: the matrix title ("memcpy CE CPU(row) -> GPU(column) bandwidth
(GB/s)"), the column indexes, the rows (``N/A`` on the diagonal of GPU-GPU tests), and the
``SUM <testcase> <value>`` line. ``Waived`` test cases and an ``ASSERT`` or error that stops a
run are reported, not hidden. From v0.7 a bidirectional test prints three matrices under its one
``Running`` line ("Read1", "Read2", "Total"), each closed by its own SUM
(``..._read_ce_read1``, ``_read2``, ``_total``): each matrix is the test case its SUM names, and
the ``Running`` name, which no SUM closes, is not a test case of its own. v0.10 adds a
``COEFFICIENT_OF_VARIATION <testcase> <value>`` line after a SUM and prints the CUDA versions as
"13.3 (13030)" ("CUDA Driver Version (API): ..."). Rows whose first column header was dropped
(pasted without the leading spaces) read the same. A multinode build run under MPI lists its GPUs as
``Process <rank> (<host>): device <n>: <name> (<bus>)`` and names its tests
``multinode_<test>``: each process's GPU is one device (its rank is its row and column in the
matrices), and a ``multinode_`` test has the direction of the test it extends.

metrics
    testcases        {name: {title, unit ("GB/s", or "ns" for a latency test), matrix (list of
                     rows, None for N/A), sum_gbyte_s, min, max, mean (of the numbers), cells,
                     direction ("h2d", "d2h", "d2d", "local"...)}}; a latency test
                     (``host_device_latency_sm``) has its figures in sum_ns/min_ns/max_ns/
                     mean_ns and None in the _gbyte_s keys; coefficient_of_variation (v0.10's
                     COEFFICIENT_OF_VARIATION line, None before) is the spread of the samples.
    testcase_names   in order of appearance; ``waived`` count ("Waived:" lines, and "Waiving
                     <test>." of older builds, whose names are in ``waived_testcases``);
                     ``errors`` (ASSERT / error lines).
    h2d_gbyte_s / d2h_gbyte_s   mean per-GPU bandwidth of host_to_device_memcpy_ce /
                     device_to_host_memcpy_ce (falling back to the _sm variants), None if not run.
    d2d_min_gbyte_s / d2d_mean_gbyte_s   over the off-diagonal cells of
                     device_to_device_memcpy_read_ce (or write_ce / the _sm variants; a
                     multinode run's multinode_device_to_device_* when no single-node one ran).
    device_count, device_names, nvbandwidth_version, cuda_runtime_version, cuda_driver_version
                     (as printed: "12040", or "13.3" from v0.10's "13.3 (13030)"), driver_version;
                     ``devices`` [{index, name, bus_id}], plus ``host`` and ``local_index``
                     (the device number on that host) for a multinode run's processes.
facts: one ``nvbandwidth_sum_gbyte_s`` per bandwidth test case (unit "GB/s", details
{testcase}); latency test cases give none.
"""

from __future__ import annotations

import re
import statistics
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, strip_annotation, unquote

KIND = "nvbandwidth"

_RUNNING_RE = re.compile(r"^Running\s+([A-Za-z0-9_]+)\.?\s*$")
_SUM_RE = re.compile(r"^SUM\s+([A-Za-z0-9_]+)\s+(-?\d+(?:\.\d+)?)\s*$")
# A bandwidth matrix title ends "(GB/s)"; a latency test's ("memory latency SM CPU(row) <->
# GPU(column) (ns)") ends "(ns)". The latency one is matched from the line's first "latency"
# (``_is_title``): searched, ".*" ran to the line end from every one of them (quadratic).
_BANDWIDTH_TITLE_RE = re.compile(r"bandwidth\s*\(GB/s\)\s*$", re.IGNORECASE)
_LATENCY_WORD_RE = re.compile("latency", re.IGNORECASE)
_LATENCY_TITLE_RE = re.compile(r"latency.*\(ns\)\s*$", re.IGNORECASE)
# A device's name is empty or ends in a non-blank: a name that could end in blanks before the
# "\s*" that follows it, and the two "\s*" around the optional bus, split a long run of blanks
# in every way (cubic).
_DEVICE_RE = re.compile(r"^Device\s+(\d+):\s*((?:.*?\S)??)\s*(?:\(([0-9A-Fa-f:.]+)\)\s*)?$")
# A multinode build (MPI): "Process 4 (worker-1): device 0: HGX GB200 (00000008:01:00)".
_PROCESS_RE = re.compile(
    r"^Process\s+(\d+)\s+\((.*?)\):\s*device\s+(\d+):\s*((?:.*?\S)??)\s*"
    r"(?:\(([0-9A-Fa-f:.]+)\)\s*)?$"
)
_VERSION_RES = {
    "nvbandwidth_version": re.compile(r"^nvbandwidth Version:\s*(\S+)"),
    "cuda_runtime_version": re.compile(r"^CUDA Runtime Version:\s*(\S+)"),
    # v0.10: "CUDA Driver Version (API): 13.3 (13030)".
    "cuda_driver_version": re.compile(r"^CUDA Driver Version(?: \(API\))?:\s*(\S+)"),
    "driver_version": re.compile(r"^Driver Version:\s*(\S+)"),
}
_CV_RE = re.compile(r"^COEFFICIENT_OF_VARIATION\s+([A-Za-z0-9_]+)\s+(-?\d+(?:\.\d+)?)\s*$")
_WAIVING_RE = re.compile(r"^Waiving\s+([A-Za-z0-9_]+)\.?\s*$")
_CELL_RE = re.compile(r"^(?:-?\d+(?:\.\d+)?|N/A)$")
# nvbandwidth's own failures: an ASSERT, a pattern check, a CUDA/NVML call that returned an
# error code ("[CUDA_ERROR_INVALID_CONTEXT] invalid device context in expression ...": the
# code's "_" keeps "error" from being a word there).
_ERROR_RE = re.compile(
    r"\bASSERT\b|\berror\b|\bfailed\b|Invalid value|\b(?:CUDA|NVML)_ERROR_[A-Z_]+",
    re.IGNORECASE,
)
_H2D = ("host_to_device_memcpy_ce", "host_to_device_memcpy_sm")
_D2H = ("device_to_host_memcpy_ce", "device_to_host_memcpy_sm")
_D2D = (
    "device_to_device_memcpy_read_ce",
    "device_to_device_memcpy_write_ce",
    "device_to_device_memcpy_read_sm",
    "device_to_device_memcpy_write_sm",
    "multinode_device_to_device_memcpy_read_ce",
    "multinode_device_to_device_memcpy_write_ce",
    "multinode_device_to_device_memcpy_read_sm",
    "multinode_device_to_device_memcpy_write_sm",
)


def _is_title(line: str) -> bool:
    """Whether ``line`` titles a matrix: "... bandwidth (GB/s)" or "... latency ... (ns)"."""
    if _BANDWIDTH_TITLE_RE.search(line):
        return True
    first = _LATENCY_WORD_RE.search(line)
    return first is not None and _LATENCY_TITLE_RE.match(line, first.start()) is not None


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is nvbandwidth output."""
    try:
        head = text[:65536]
        if "nvbandwidth Version" in head:
            return 95
        # The blanks before a word are those of its own line: "\s*" after "^" ran over all the
        # blank lines below each line start (quadratic in a file of empty lines).
        if re.search(r"(?m)^[^\S\n]*SUM [a-z_]+_(?:ce|sm|copy)\b", head):
            return 90
        if re.search(r"(?m)^(?:[^\S\n]|>)*Running [a-z_]+_(?:ce|sm)\.", head) and "(GB/s)" in head:
            return 85
        return 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _direction(name: str) -> str:
    name = name.removeprefix("multinode_")
    for prefix, short in (
        ("host_to_device", "h2d"),
        ("device_to_host", "d2h"),
        ("device_to_device", "d2d"),
        ("host_to_all", "h2all"),
        ("all_to_host", "all2h"),
        ("all_to_one", "all2one"),
        ("one_to_all", "one2all"),
        ("device_local", "local"),
    ):
        if name.startswith(prefix):
            return short
    return "other"


def _name_unnamed(cases: dict[str | None, dict[str, Any]], order: list[str | None]) -> None:
    """Give the matrix read without a test case name (key None) a name of its own, "unnamed",
    "unnamed_2"..., before another one starts: several matrices pasted without their
    "Running" lines each keep their figures."""
    if None not in cases:
        return
    taken = {name for name in order if name is not None}
    name, count = "unnamed", 1
    while name in taken:
        count += 1
        name = f"unnamed_{count}"
    cases[name] = cases.pop(None)
    order[order.index(None)] = name


def parse(text: str) -> ParseResult:
    """Parse nvbandwidth's header, matrices and SUM lines."""
    header: dict[str, Any] = {k: None for k in _VERSION_RES}
    devices: list[dict[str, Any]] = []
    cases: dict[str | None, dict[str, Any]] = {}
    order: list[str | None] = []
    errors: list[str] = []
    warnings: list[str] = []
    waived = 0
    waived_names: list[str] = []
    waived_lines: list[str] = []
    current: dict[str, Any] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = unquote(raw.strip()).strip()  # a markdown quote of a pasted output
        if not line:
            continue
        for key, pattern in _VERSION_RES.items():
            match = pattern.match(line)
            if match and header[key] is None:
                header[key] = match.group(1)
        match = _DEVICE_RE.match(line)
        if match and current is None:
            devices.append({"index": int(match.group(1)), "name": match.group(2) or None,
                            "bus_id": match.group(3)})  # fmt: skip
            continue
        match = _PROCESS_RE.match(line)
        if match and current is None:
            devices.append({"index": int(match.group(1)), "name": match.group(4) or None,
                            "bus_id": match.group(5), "host": match.group(2) or None,
                            "local_index": int(match.group(3))})  # fmt: skip
            continue
        if line.startswith(("Waived", "Waiving")):
            # "Waived:" (v0.5+) or "Waiving <test>." (older builds, which name the test).
            waived += 1
            match = _WAIVING_RE.match(line)
            if match:
                waived_names.append(match.group(1))
                waived_lines.append(f"line {number}: {line[:200]}")
            current = None
            continue
        match = _RUNNING_RE.match(line)
        if match:
            name = match.group(1)
            current = {"title": None, "columns": None, "rows": [], "sum": None, "line": number}
            cases[name] = current
            if name not in order:
                order.append(name)
            continue
        match = _SUM_RE.match(line)
        if match:
            name = match.group(1)
            case = cases.get(name)
            if case is None and current is not None and None in cases:
                # A matrix pasted without its "Running <test>." line: the SUM names it.
                case = cases.pop(None)
                cases[name] = case
                order[order.index(None)] = name
            elif case is None and current is not None and current["sum"] is None:
                # v0.7+: "SUM <running>_read1" closes the first matrix of a bidirectional test
                # printed under "Running <running>.": the matrix is that part's, not the test's.
                running = next((n for n in order if n is not None and cases[n] is current), None)
                if running is not None and name.startswith(running + "_"):
                    case = current
                    cases[name] = cases.pop(running)
                    order[order.index(running)] = name
            if case is None:
                case = {"title": None, "columns": None, "rows": [], "sum": None, "line": number}
                cases[name] = case
                order.append(name)
            case["sum"] = float(match.group(2))
            current = None
            continue
        match = _CV_RE.match(line)
        if match:
            if match.group(1) in cases:
                cases[match.group(1)]["cv"] = float(match.group(2))
            continue
        if _is_title(line):
            if current is None or current["title"] is not None:
                _name_unnamed(cases, order)
                current = {"title": None, "columns": None, "rows": [], "sum": None, "line": number}
                cases[None] = current
                order.append(None)
            current["title"] = line
            continue
        if current is None:
            if _ERROR_RE.search(line):
                errors.append(f"line {number}: {line[:200]}")
            continue
        tokens = strip_annotation(line).split()
        column_line = tokens and all(t.isdigit() for t in tokens)
        if current["title"] is not None and current["columns"] is None and column_line:
            current["columns"] = [int(t) for t in tokens]
            continue
        if current["columns"] is not None and tokens and tokens[0].isdigit():
            cells = tokens[1:]
            if cells and all(_CELL_RE.match(c) for c in cells):
                current["rows"].append([None if c == "N/A" else float(c) for c in cells])
                continue
            # Pasted without leading spaces, a row's index can look like a column header.
        if _ERROR_RE.search(line):
            errors.append(f"line {number}: {line[:200]}")
    if not cases and not devices and header["nvbandwidth_version"] is None:
        raise EvidenceParseError(
            "no nvbandwidth output found (expected 'nvbandwidth Version', 'Running <test>.' "
            "and 'SUM <test> <GB/s>' lines)",
            kind=KIND,
            code="nvbandwidth.nothing",
        )
    _name_unnamed(cases, order)
    unnamed = sum(1 for name in order if str(name).startswith("unnamed"))
    if unnamed:
        warnings.append(
            f"{unnamed} bandwidth matrix(es) without a test case name (no 'Running' or SUM line)"
            if unnamed > 1
            else "a bandwidth matrix without its test case name (no 'Running' or SUM line)"
        )
    summaries: dict[str, dict[str, Any]] = {}
    without_matrix: list[str] = []
    for name in order:
        case = cases[name]
        numbers = [v for row in case["rows"] for v in row if v is not None]
        if case["sum"] is None:
            warnings.append(f"{name}: no SUM line (run cut or failed)")
        if not case["rows"]:
            without_matrix.append(name)
        latency = "_latency" in name or "(ns)" in (case["title"] or "")
        figures = {
            "sum": case["sum"],
            "min": min(numbers) if numbers else None,
            "max": max(numbers) if numbers else None,
            "mean": round(statistics.fmean(numbers), 3) if numbers else None,
        }
        summaries[name] = {
            "title": case["title"],
            "direction": _direction(name),
            "unit": "ns" if latency else "GB/s",
            "matrix": case["rows"],
            # A latency test's figures are nanoseconds: they never pass for GB/s.
            **{f"{key}_gbyte_s": None if latency else value for key, value in figures.items()},
            **{f"{key}_ns": value if latency else None for key, value in figures.items()},
            "cells": len(numbers),
            "coefficient_of_variation": case.get("cv"),
        }
    if len(without_matrix) == 1:
        warnings.append(f"{without_matrix[0]}: no matrix")
    elif without_matrix:
        # "nvbandwidth | grep SUM" keeps the SUM lines alone: one warning, not one per test.
        warnings.append(
            f"{len(without_matrix)} test cases have no matrix (SUM lines alone?): "
            + ", ".join(without_matrix[:5])
            + (", ..." if len(without_matrix) > 5 else "")
        )
    if errors:
        warnings.append(f"{len(errors)} error line(s): {errors[0]}")
    if not any(
        s["cells"] or s["sum_gbyte_s"] is not None or s["sum_ns"] is not None
        for s in summaries.values()
    ):
        # An error stops the run; a test nvbandwidth waived (no peer access between the GPUs,
        # one GPU only) was never run: either is the reason nothing was measured.
        reason = errors[0] if errors else waived_lines[0] if waived_lines else None
        raise EvidenceParseError(
            "nvbandwidth measured nothing"
            + (f" ({reason})" if reason else " (no matrix and no SUM line)"),
            kind=KIND,
            code="nvbandwidth.failed" if reason else "nvbandwidth.empty",
            params={"error": reason},
        )

    def first(names: tuple[str, ...], key: str) -> float | None:
        for name in names:
            if name in summaries and summaries[name][key] is not None:
                return summaries[name][key]
        return None

    metrics: dict[str, Any] = {
        **header,
        "device_count": len(devices),
        "device_names": list(dict.fromkeys(d["name"] for d in devices if d["name"])),
        "devices": devices,
        "testcase_names": order,
        "testcases": summaries,
        "waived": waived,
        "waived_testcases": waived_names,
        "errors": errors,
        "h2d_gbyte_s": first(_H2D, "mean_gbyte_s"),
        "d2h_gbyte_s": first(_D2H, "mean_gbyte_s"),
        "d2d_min_gbyte_s": first(_D2D, "min_gbyte_s"),
        "d2d_mean_gbyte_s": first(_D2D, "mean_gbyte_s"),
    }
    facts = tuple(
        Fact("nvbandwidth_sum_gbyte_s", s["sum_gbyte_s"], "GB/s", cases[n]["line"], {"testcase": n})
        for n, s in summaries.items()
        if s["sum_gbyte_s"] is not None
    )
    return ParseResult(kind=KIND, metrics=metrics, facts=facts, warnings=tuple(warnings))
