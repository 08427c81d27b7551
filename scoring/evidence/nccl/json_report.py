"""nccl-tests' JSON report (``-J <path>``): recognised by its opening keys and read by printing its
results as the text table nccl-tests prints beside it, so one scanner reads both.

The writer (nccl-tests src/util.cu, JSON_FILE_VERSION 2; the same keys in its first release)
prints one object on one line, with no line breaks: "version", "start_time", "args" (the
command line), "env" (the whole environment of the run: never read here, it may hold secrets),
"nccl_version" (NCCL's version code, 22703 for 2.27.3), "config" (nthreads, ngpus, minimum_bytes,
maximum_bytes, step_factor or step_bytes, warmup_iters, iterations, aggregated_iterations,
validation, graph, blocking_collectives, parallel_init, and "devices": one object per rank
with rank, group, pid, hostname, device, device_hex, device_info), "results" (one object per
row: size, count, type, redop, root, out_of_place and in_place objects of time (or cpu_time),
alg_bw, bus_bw and nwrong (null when not checked), actual_iterations, experiment_name),
"out_of_bounds" (count, okay), "average_bus_bandwidth" (bandwidth, okay), "errors", "end_time".
Booleans are the strings "true" / "false"; a NaN figure is the string "nan". A run killed
before its end leaves the object open: such a file is refused, as JSON it cannot be read.

Each figure is printed as nccl-tests prints it in the text table (time in 7 characters, algbw
and busbw in 6, fewer decimals as the value grows; the average with %g), so the figures of one
run are the same from its JSON report and from its text output. The report has one line: the
facts and figures name no line of it (their line is None) and warnings name a result by its
index ("results[3]").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..base import EvidenceParseError, Fact, ParseResult
from .formats import KIND

# The writer's first keys, in its order: "version", "start_time", "args".
_OPENING_RE = re.compile(r'\A\s*\{\s*"version"\s*:\s*\d{1,4}\s*,\s*"start_time"\s*:\s*"[^"]*"\s*,'
                         r'\s*"args"\s*:\s*\[')  # fmt: skip
_KNOWN_VERSIONS = (1, 2)
# The column heads of nccl-tests' text table (writeResultHeader) and their widths.
_WIDTHS = (10, 12, 8, 6, 6, 7, 6, 6, 6, 7, 6, 6, 6)
_HALF_NAMES = ("time", "algbw", "busbw", "#wrong")
_HALF_UNITS = ("(us)", "(GB/s)", "(GB/s)", "")
_LINE_REF_RE = re.compile(r"^line (\d+): ")


def _columns(*names: str) -> str:
    return "# " + "  ".join(f"{name:>{width}}" for name, width in zip(names, _WIDTHS, strict=True))


def is_json_report(head: str) -> bool:
    """Whether ``head`` opens like nccl-tests' JSON report."""
    return _OPENING_RE.match(head) is not None


def _float_str(value: float, width: int) -> str:
    """``value`` as nccl-tests' getFloatStr prints it in ``width`` characters: two decimals,
    then one, then none as the integer part grows, then an exponent."""
    power = 0
    step = 1
    while value >= step and power < 40:
        power += 1
        step *= 10
    if power < width - 2:
        return f"{value:{width}.2f}"
    if power < width - 1:
        return f"{value:{width}.1f}"
    if power < width + 1:
        return f"{value:{width}.0f}"
    return f"{value:{width}.1e}"


def _bad_value(where: str, what: str) -> EvidenceParseError:
    return EvidenceParseError(
        f"nccl-tests JSON: {where} is not {what}",
        kind=KIND,
        code="nccl.json_bad_value",
        params={"where": where},
    )


def _number(value: Any, where: str) -> float | None:
    """A figure of the report: a number, or None for null and the writer's "nan"."""
    if value is None or value == "nan":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad_value(where, f"a number ({str(value)[:40]!r})")
    if not math.isfinite(value):
        return None
    return float(value)


def _whole(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad_value(where, f"a whole number ({str(value)[:40]!r})")
    return value


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _half(body: Any, where: str) -> str | None:
    """One half (out-of-place or in-place) of a row as the text table prints it, or None when
    the report holds no such half (null: in-place only)."""
    if body is None:
        return None
    if not isinstance(body, dict):
        raise _bad_value(where, "an object")
    time = _number(body.get("time", body.get("cpu_time")), f"{where}.time")
    algbw = _number(body.get("alg_bw"), f"{where}.alg_bw")
    busbw = _number(body.get("bus_bw"), f"{where}.bus_bw")
    if time is None or algbw is None or busbw is None:
        return None
    wrong = _number(body.get("nwrong"), f"{where}.nwrong")
    shown = "N/A" if wrong is None else f"{wrong:6g}"
    return f"  {_float_str(time, 7)}  {_float_str(algbw, 6)}  {_float_str(busbw, 6)}  {shown:>6}"


def _row(index: int, row: Any) -> tuple[str, bool] | None:
    """The row as the text table prints it and whether it has an out-of-place half; None when
    its in-place half has no figures."""
    where = f"results[{index}]"
    if not isinstance(row, dict):
        raise _bad_value(where, "an object")
    size = _whole(row.get("size"), f"{where}.size")
    count = _whole(row.get("count"), f"{where}.count")
    root = _text(row.get("root")) or "-1"
    head = (
        f"{size:12d}  {count:12d}  {_text(row.get('type')) or '-':>8}  "
        f"{_text(row.get('redop')) or 'none':>6}  {root:>6}"
    )
    in_place = _half(row.get("in_place"), f"{where}.in_place")
    if in_place is None:
        return None
    out_of_place = _half(row.get("out_of_place"), f"{where}.out_of_place")
    if out_of_place is None:
        # In place only (a trace replay): the text table leaves the first half blank, which
        # would shift its columns. Both halves carry the in-place figures, the best of which
        # is what is read; the curve then shows no out-of-place figure (_as_report).
        return head + in_place + in_place, False
    return head + out_of_place + in_place, True


def _config_lines(config: dict[str, Any]) -> list[str]:
    def whole(key: str) -> int:
        value = config.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    if "step_factor" in config:
        step = f"{whole('step_factor')}(factor)"
    else:
        step = f"{whole('step_bytes')}(bytes)"
    lines = [
        f"# nThread {whole('nthreads')} nGpus {whole('ngpus')} minBytes {whole('minimum_bytes')} "
        f"maxBytes {whole('maximum_bytes')} step: {step} warmup iters: {whole('warmup_iters')} "
        f"iters: {whole('iterations')} agg iters: {whole('aggregated_iterations')} "
        f"validation: {whole('validation')} graph: {whole('graph')}",
        "#",
        "# Using devices",
    ]
    devices = config.get("devices")
    for device in devices if isinstance(devices, list) else []:
        if not isinstance(device, dict):
            continue
        rank, group, pid, number = (device.get(k) for k in ("rank", "group", "pid", "device"))
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (rank, number)):
            continue
        host = _text(device.get("hostname")).replace(" ", "_") or "?"
        lines.append(
            f"#  Rank {rank:2d} Group {group if isinstance(group, int) else 0:2d} "
            f"Pid {pid if isinstance(pid, int) else 0:6d} on {host:>10} device {number:2d} "
            f"[{_text(device.get('device_hex'))}] {_text(device.get('device_info'))}"
        )
    return lines


def _summary_lines(report: dict[str, Any]) -> list[str]:
    lines = []
    bounds = report.get("out_of_bounds")
    if isinstance(bounds, dict) and isinstance(bounds.get("count"), int):
        verdict = "OK" if bounds["count"] == 0 else "FAILED"
        lines.append(f"# Out of bounds values : {bounds['count']} {verdict}")
    average = report.get("average_bus_bandwidth")
    if isinstance(average, dict):
        value = _number(average.get("bandwidth"), "average_bus_bandwidth.bandwidth")
        if value is not None:
            lines.append(f"# Avg bus bandwidth    : {value:g}")
    return lines


def _nccl_version(code: Any) -> str | None:
    if isinstance(code, bool) or not isinstance(code, int) or code <= 0:
        return None
    if code >= 10000:  # NCCL >= 2.9: major*10000 + minor*100 + patch
        return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"
    return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"


def load(text: str) -> dict[str, Any]:
    """The report as an object, or EvidenceParseError (unreadable, cut, not a report)."""
    try:
        report = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EvidenceParseError(
            f"nccl-tests JSON is unreadable ({exc.msg} at character {exc.pos}; a run killed "
            "before its end leaves the report open)",
            kind=KIND,
            code="nccl.json_unreadable",
            params={"detail": exc.msg, "position": exc.pos},
        ) from None
    except RecursionError:
        raise EvidenceParseError(
            "nccl-tests JSON is nested too deeply", kind=KIND, code="nccl.json_too_deep"
        ) from None
    results = report.get("results") if isinstance(report, dict) else None
    if not isinstance(results, list) or not results:
        raise EvidenceParseError(
            "nccl-tests JSON has no result row with its figures (no 'results' list, or an empty "
            "one)",
            kind=KIND,
            code="nccl.json_no_results",
        )
    return report


def parse_json(text: str, parse_text: Callable[[str], ParseResult]) -> ParseResult:
    """Read a JSON report with ``parse_text``, the text parser, through the table it renders."""
    report = load(text)
    lines: list[str] = []
    args = report.get("args")
    program = _text(args[0]).rsplit("/", 1)[-1] if isinstance(args, list) and args else ""
    if program:
        lines.append(f"# Collective test starting: {program}")
    config = report.get("config")
    if isinstance(config, dict):
        lines.extend(_config_lines(config))
    lines += [
        "#",
        f"# {'':>10}  {'':>12}  {'':>8}  {'':>6}  {'':>6}           out-of-place"
        "                       in-place",
        _columns("size", "count", "type", "redop", "root", *_HALF_NAMES, *_HALF_NAMES),
        _columns("(B)", "(elements)", "", "", "", *_HALF_UNITS, *_HALF_UNITS),
    ]
    rows_at: dict[int, int] = {}
    in_place_only: set[int] = set()
    skipped: list[str] = []
    for index, row in enumerate(report["results"]):
        printed = _row(index, row)
        if printed is None:
            skipped.append(f"results[{index}]")
            continue
        lines.append(printed[0])
        rows_at[len(lines)] = index
        if not printed[1]:
            in_place_only.add(index)
    if not rows_at:
        raise EvidenceParseError(
            "nccl-tests JSON has no result row with its figures (every time or bandwidth null "
            "or nan)",
            kind=KIND,
            code="nccl.json_no_results",
        )
    lines.extend(_summary_lines(report))
    result = parse_text("\n".join(lines) + "\n")
    return _as_report(result, report, rows_at, in_place_only, skipped)


def _where(line: int | None, rows_at: dict[int, int]) -> str | None:
    return None if line is None or line not in rows_at else f"results[{rows_at[line]}]"


def _as_report(
    result: ParseResult,
    report: dict[str, Any],
    rows_at: dict[int, int],
    in_place_only: set[int],
    skipped: list[str],
) -> ParseResult:
    """``result`` of the rendered table, told as the report's: no line of the rendering is
    named, a result is named by its index, and the report's own fields are added."""
    metrics = dict(result.metrics)
    if in_place_only and isinstance(metrics.get("curve"), list):
        indexes = [rows_at[line] for line in sorted(rows_at)]
        metrics["curve"] = [
            {**point, "out_of_place_busbw_gbyte_s": None} if index in in_place_only else point
            for index, point in zip(indexes, metrics["curve"], strict=False)
        ]
    metrics["wrong_result"] = _where(metrics.get("wrong_line"), rows_at)
    metrics["wrong_line"] = None
    if "runs" in metrics:
        metrics["runs"] = [{**run, "wrong_line": None} for run in metrics["runs"]]
    metrics["format"] = "json"
    metrics["json_version"] = report.get("version")
    metrics["nccl_version"] = _nccl_version(report.get("nccl_version")) or metrics.get(
        "nccl_version"
    )
    errors = report.get("errors")
    errors = [e.strip() for e in errors if isinstance(e, str) and e.strip()] if errors else []
    metrics["errors"] = errors[:20]
    warnings = []
    for warning in result.warnings:
        match = _LINE_REF_RE.match(warning)
        if match:
            named = _where(int(match.group(1)), rows_at)
            warning = (
                warning[match.end() :] if named is None else f"{named}: {warning[match.end() :]}"
            )
        warnings.append(warning)
    version = report.get("version")
    if version not in _KNOWN_VERSIONS:
        warnings.append(f"nccl-tests JSON version {version!r}: read as version 2")
    if skipped:
        warnings.append(
            f"{len(skipped)} result row(s) without figures (null or nan) left out: "
            + ", ".join(skipped[:5])
        )
    warnings.extend(f"nccl-tests reported an error: {e[:200]}" for e in errors[:3])
    facts = tuple(replace(fact, line=None, details=_no_lines(fact)) for fact in result.facts)
    return ParseResult(KIND, metrics, facts, tuple(warnings), result.notes)


def _no_lines(fact: Fact) -> dict[str, Any]:
    details = dict(fact.details)
    if "lines" in details:
        details["lines"] = [None] * len(details["lines"])
    return details
