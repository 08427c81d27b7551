"""Command line: parse evidence files and collector bundles and report what each holds.

    python -m scoring.evidence PATH... [--json]

Exit status: 0 when every file parsed, 1 when a file failed to parse, a bundle was rejected or
a path could not be read, 2 on a usage error. Outputs the collector recorded as not collected
(tool not installed on the node, step skipped) are shown but do not fail the run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from .base import UNKNOWN
from .bundle import BundleRejected, MemberResult, is_archive, open_evidence, parse_evidence_set

_SUMMARY_WIDTH = 100


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    parser = argparse.ArgumentParser(
        prog="python -m scoring.evidence",
        description="Parse tool outputs and collector bundles (tar.gz, tar, zip).",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a tool output or a bundle")
    parser.add_argument("--json", action="store_true", help="print one JSON object per file")
    args = parser.parse_args(argv)

    rows: list[dict[str, Any]] = []
    failed = False
    for path in args.paths:
        file_rows, file_failed = _report_path(path, human=None if args.json else out)
        rows.extend(file_rows)
        failed = failed or file_failed
    if args.json:
        json.dump(rows, out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        _print_totals(rows, out)
    return 1 if failed else 0


def _report_path(path: str, human: TextIO | None) -> tuple[list[dict[str, Any]], bool]:
    """Parse one path; return its JSON rows and whether anything in it failed."""
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(512)
            handle.seek(0)
            try:
                evidence = open_evidence(Path(path).name, handle)
            except BundleRejected as exc:
                kind = "bundle" if is_archive(head) else UNKNOWN
                row = _row(path, kind, False, f"rejected: {exc.reason}", {})
                if human:
                    _print_row(row, [], human)
                return [row], True
    except OSError as exc:
        reason = exc.strerror or str(exc)
        print(f"error: cannot read {path!r}: {reason}", file=sys.stderr)
        row = _row(path, UNKNOWN, False, f"cannot read the file: {reason}", {})
        if human:
            _print_row(row, [], human)
        return [row], True

    results = parse_evidence_set(evidence)
    if human and evidence.manifest is not None:
        m = evidence.manifest
        nonce = "with nonce" if m.nonce else "without nonce"
        human.write(
            f"{path}: bundle from {m.hostname} (collector {m.collector_version}, "
            f"{m.started_at.isoformat()} to {m.finished_at.isoformat()}, "
            f"{len(m.commands)} commands, {nonce})\n"
        )
    rows = []
    for result in results:
        label = f"{path}:{result.file}" if evidence.is_bundle else path
        row = _result_row(label, result)
        rows.append(row)
        if human:
            _print_row(row, list(result.warnings), human)
    failed = any(not r.ok and not r.missing for r in results) or not results
    return rows, failed


def _row(
    file: str, kind: str, ok: bool, error: str | None, metrics: dict[str, Any]
) -> dict[str, Any]:
    return {"file": file, "kind": kind, "ok": ok, "error": error, "metrics": metrics}


def _result_row(label: str, result: MemberResult) -> dict[str, Any]:
    row = _row(label, result.kind, result.ok, result.error, result.metrics)
    row.update(
        warnings=list(result.warnings),
        notes=list(result.notes),
        exit_code=result.exit_code,
        missing=result.missing,
    )
    return row


def _print_row(row: dict[str, Any], warnings: list[str], out: TextIO) -> None:
    status = "ok" if row["ok"] else ("MISSING" if row.get("missing") else "FAILED")
    out.write(f"{status:<8} {row['kind']:<18} {row['file']}\n")
    if row["ok"]:
        summary = _summarise(row["metrics"])
        if summary:
            out.write(f"         {summary}\n")
    else:
        out.write(f"         {row['error']}\n")
    for warning in warnings:
        out.write(f"         warning: {warning}\n")


def _summarise(metrics: dict[str, Any]) -> str:
    """The scalar metrics (and short lists) as ``key=value`` pairs, cut to one wide line."""
    parts = []
    for key, value in metrics.items():
        if isinstance(value, dict):
            continue
        text = json.dumps(value, ensure_ascii=False)
        if isinstance(value, list) and len(text) > 40:
            text = f"[{len(value)} items]"
        parts.append(f"{key}={text}")
    line = " ".join(parts)
    return line if len(line) <= _SUMMARY_WIDTH else line[: _SUMMARY_WIDTH - 3] + "..."


def _print_totals(rows: list[dict[str, Any]], out: TextIO) -> None:
    ok = sum(1 for r in rows if r["ok"])
    missing = sum(1 for r in rows if r.get("missing"))
    failed = len(rows) - ok - missing
    out.write(f"\n{len(rows)} files: {ok} ok, {failed} failed, {missing} not collected\n")


if __name__ == "__main__":
    sys.exit(main())
