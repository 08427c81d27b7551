"""Detecting fio output and reading it, whichever forms a file holds, into one ParseResult."""

from __future__ import annotations

from typing import Any

from ..base import (
    EvidenceParseError,
    Fact,
    ParseResult,
    decode_quoted_printable,
    strip_line_prefix,
)
from .common import (
    _DETECT_MAX_CHARS,
    _DETECT_MAX_LINES,
    _DIRECTIONS,
    _EXCERPT_RE,
    _FAILURE_RE,
    _FIRST_TOKEN_RE,
    _GROUP_RE,
    _JOB_RE,
    _TERSE_RE,
    _VERSION_RE,
    KIND,
    _Job,
    _tidy,
)
from .json_report import _find_json, _from_json
from .terse import _from_terse
from .text import _from_text


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
