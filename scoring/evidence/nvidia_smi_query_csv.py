"""The ``--query-gpu … --format=csv`` side of nvidia_smi_query: rows under a header (or under the
command line that names the columns), with or without units."""

from __future__ import annotations

import re
from typing import Any

from .base import EvidenceParseError, ParseResult
from .nvidia_smi_query_values import (
    BRANDS,
    EXCERPT_RE,
    FIELD_RE,
    KIND,
    int_value,
    mib_value,
    query_result,
    text_value,
    yes_no,
)

_QUERY_RE = re.compile(r"--query-gpu[= ]([A-Za-z0-9_.,]+)")
# "-i 0,1" / "--id=0": the listing covers the GPUs asked for, not every GPU.
_ID_FILTER_RE = re.compile(r"(?:^|\s)(?:-i|--id)(?:[= ]|$)")
_ALIASES = {
    "gpu_name": "name",
    "gpu_bus_id": "pci.bus_id",
    "gpu_uuid": "uuid",
    "gpu_serial": "serial",
    "retired_pages.sbe": "retired_pages.single_bit_ecc.count",
    "retired_pages.dbe": "retired_pages.double_bit.count",
}

_CSV_FIELDS = {
    "name": "product_name",
    "pci.bus_id": "bus_id",
    "memory.total": "memory_total_mib",
    "mig.mode.current": "mig_mode",
    "virtualization_mode": "virtualization_mode",
    "ecc.mode.current": "ecc_mode",
    "ecc.errors.uncorrected.volatile.total": "ecc_volatile_uncorrected",
    "ecc.errors.corrected.volatile.total": "ecc_volatile_corrected",
    "ecc.errors.uncorrected.aggregate.total": "ecc_aggregate_uncorrected",
    "ecc.errors.corrected.aggregate.total": "ecc_aggregate_corrected",
    "retired_pages.pending": "retired_pages_pending",
    "remapped_rows.correctable": "remapped_rows_correctable",
    "remapped_rows.uncorrectable": "remapped_rows_uncorrectable",
    "remapped_rows.pending": "remapped_rows_pending",
    "remapped_rows.failure": "remapped_rows_failure",
    "pcie.link.width.max": "pcie_link_width_max",
    "pcie.link.width.current": "pcie_link_width_current",
}


# Fields read besides _CSV_FIELDS.
_OTHER_READ = frozenset(
    {
        "retired_pages.single_bit_ecc.count",
        "retired_pages.double_bit.count",
        "driver_version",
    }
)


# One value of a --query-gpu row: a product name, or a figure, state or identifier of at most
# three words ("81920 MiB", "[N/A]", "Enabled", "GPU-5c1b…", "00000000:07:00.0", "Default").
_VALUE_WORDS_MAX = 3


def _values_row(parts: list[str]) -> bool:
    """Whether ``parts`` (a line split at its commas) can be a row of values: every part a
    product name or a few words. A sentence split at its commas is not (a README quoting
    ``nvidia-smi --query-gpu=…`` read 937 "GPUs" from its prose lines)."""
    return all(part.startswith(BRANDS) or len(part.split()) <= _VALUE_WORDS_MAX for part in parts)


def parse_csv(text: str) -> ParseResult:
    """Parse ``--query-gpu … --format=csv`` output into nvidia_smi_query's figures."""
    warnings: list[str] = []
    fields: list[str] | None = None
    driver: str | None = None
    rows: list[tuple[int, dict[str, str]]] = []
    partial: str | None = None
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if EXCERPT_RE.match(line):
            warnings.append(f"line {line_no}: the output was cut by its author ({line})")
            partial = "excerpt"
            continue
        match = _QUERY_RE.search(line)
        if match:
            fields = [_ALIASES.get(f, f) for f in match.group(1).strip(",").split(",")]
            if _ID_FILTER_RE.search(line):
                partial = partial or "filter"
            continue
        parts = [p.strip() for p in line.split(",")]
        if all(FIELD_RE.match(p) for p in parts) and len(parts) > 1:
            fields = [_ALIASES.get(p.split(" [")[0], p.split(" [")[0]) for p in parts]
            continue
        if not _values_row(parts):
            # A sentence with commas (a document quoting the command, a log line): no GPU.
            continue
        if fields is None or len(parts) != len(fields):
            if fields is not None and len(parts) > 1:
                warnings.append(f"line {line_no}: row with {len(parts)} values, not {len(fields)}")
                partial = partial or "unread_rows"
            elif fields is None and len(parts) > 1 and any(p.startswith(BRANDS) for p in parts):
                rows.append((line_no, {f"field{i}": v for i, v in enumerate(parts)}))
            continue
        rows.append((line_no, dict(zip(fields, parts, strict=True))))
    if not rows:
        raise EvidenceParseError(
            "no --query-gpu CSV rows found (expected comma-separated values under a header such "
            "as 'name, pci.bus_id, memory.total [MiB]')",
            kind=KIND,
            code="nvidia_smi_query.no_csv_rows",
        )
    if fields is None:
        warnings.append(
            "no CSV header and no --query-gpu command: columns unknown; only GPU "
            "count and recognisable product names are read"
        )
    elif not any(f in _CSV_FIELDS or f in _OTHER_READ for f in fields):
        warnings.append(
            "none of the queried fields (" + ", ".join(fields) + ") is one read here: only "
            "the GPU count is known"
        )
    per_gpu = []
    for line_no, row in rows:
        gpu: dict[str, Any] = {}
        for field, key in _CSV_FIELDS.items():
            raw = row.get(field)
            if key == "memory_total_mib":
                gpu[key] = mib_value(raw)
            elif key.endswith(("_pending", "_failure")):
                gpu[key] = yes_no(raw)
            elif key.startswith(("ecc_volatile", "ecc_aggregate", "remapped_rows", "pcie_link")):
                gpu[key] = int_value(raw)
            else:
                gpu[key] = text_value(raw)
        if fields is None:
            names = [v for v in row.values() if v.startswith(BRANDS)]
            gpu["product_name"] = names[0] if names else None
        sbe = int_value(row.get("retired_pages.single_bit_ecc.count"))
        dbe = int_value(row.get("retired_pages.double_bit.count"))
        gpu["retired_pages"] = None if sbe is None and dbe is None else (sbe or 0) + (dbe or 0)
        gpu["pcie_link_width_line"] = line_no if gpu["pcie_link_width_current"] else None
        driver = driver or text_value(row.get("driver_version"))
        per_gpu.append(gpu)
    bus_ids = [g["bus_id"] for g in per_gpu if g["bus_id"]]
    if any("cut by its author" in w for w in warnings):
        warnings.append("rows hidden by the excerpt: gpu_count counts only the rows shown")
    if len(set(bus_ids)) < len(bus_ids):
        warnings.append("the same GPU appears in several rows (-l loop?); gpu_count counts once")
    count = len(set(bus_ids)) if bus_ids and len(bus_ids) == len(per_gpu) else len(per_gpu)
    return query_result(
        "csv",
        per_gpu,
        count,
        len(per_gpu),
        driver,
        None,
        [line for line, _ in rows],
        warnings,
        partial,
    )
