"""Parser for ``nvidia-smi -q`` (full or excerpts) and ``nvidia-smi --query-gpu=... --format=csv``.

``-q`` is an indented "key : value" tree with one block per "GPU 00000000:07:00.0" header; the
parser keeps every value under its section path, so it reads old (Single/Double Bit ECC,
"Memory Usage ... Mb") and new (SRAM/DRAM counters, Remapped Rows, "FB Memory Usage") layouts
alike. Excerpts (``[...]``, ``grep -A2`` output without a GPU header) are accepted and the
absence of a figure is reported as None; an -d ECC / ROW_REMAPPER excerpt whose "ECC Mode",
"ECC Errors", "Remapped Rows" or "Retired Pages" section starts at column 0 without a GPU
header is read as one GPU's block. CSV output is read with or without its header (the
``--query-gpu=`` command line then names the columns) and with or without units.

metrics (per-GPU lists follow the order of the GPUs in the file)
    gpu_count            "Attached GPUs" when printed, else the GPU blocks / CSV rows shown
                         (None for a -q excerpt that shows no GPU header at all).
    gpus_shown           GPU blocks or CSV rows actually present.
    gpu_count_partial    None when gpu_count covers every GPU; else why it is only a lower
                         bound: "excerpt" (rows cut by the author), "filter" (``-i``/``--id``
                         asked for some GPUs), "unread_rows" (rows that did not fit the header),
                         "no_total" (a -q excerpt without "Attached GPUs": blocks shown only).
    product_names, memory_total_mib, mig_mode, virtualization_mode, bus_ids   per GPU.
    driver_version, cuda_version
    ecc_volatile_uncorrected / ecc_volatile_corrected / ecc_aggregate_uncorrected /
    ecc_aggregate_corrected   sums over GPUs (old layout: Double/Single Bit "Total"; new layout:
                         the SRAM/DRAM "Uncorrectable*"/"Correctable" counters); None when
                         every value is N/A or absent.
    retired_pages        single + double bit retired pages, summed (None when N/A).
    retired_pages_pending          any GPU with a pending retirement (None when not shown).
    remapped_rows_pending          any GPU with a pending row remap (None when not shown).
    remapped_rows_failure          any GPU reporting "Remapping Failure Occurred: Yes".
    remapped_rows_uncorrectable / remapped_rows_correctable   sums (None when not shown).
    memory_unrepairable            any GPU reporting "Unrepairable Memory: Yes" (None when no GPU
                                   shows the row: drivers before the Blackwell memory repair rows).
    memory_repair_pending          any GPU reporting "Channel Repair Pending: Yes" or "TPC Repair
                                   Pending: Yes" (None when neither row is shown).
    sram_threshold_exceeded        any GPU reporting "SRAM Threshold Exceeded: Yes" (None when not
                                   shown). The rows sit under "ECC Errors" (the threshold under
                                   its "Aggregate", printed since the 535 drivers; the repair
                                   rows in the 580/595 samples); they are found by their label
                                   wherever a GPU block nests them. "GPU requires reset" in
                                   place of a value is no answer (None) and gives a warning.
    pcie_link_width_max / pcie_link_width_current   per GPU, lanes (16 for "16x"; None when
                         N/A or not shown): "GPU Link Info / Link Width / Max" and "Current"
                         of -q, ``pcie.link.width.max`` / ``pcie.link.width.current`` of CSV.
                         NVML's Max is the widest link the device and the system allow
                         (nvmlDeviceGetMaxPcieLinkWidth); a Current below it is a link that
                         trained narrower (verification.health). Each GPU dict of ``gpus`` also
                         holds ``pcie_link_width_line``, the line of its Current width (-q) or
                         its row (CSV). The link generation is not read: GPUs drop to Gen1 at
                         idle to save power, so a low current generation means nothing. Each
                         -q GPU dict also holds ``multigpu_board`` ("MultiGPU Board", True/False,
                         None when not shown) and ``board_id`` ("Board ID"; the GPUs of one
                         multi-GPU board share it).
    virtualized          True when a GPU's virtualization mode is Pass-Through or VGPU, False
                         when all say None/Host VGPU, None when not shown.
    format               "q" or "csv".
facts: ``gpu_count`` and the error counters above when they are known.
"""

from __future__ import annotations

import re
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult

KIND = "nvidia_smi_query"

_GPU_HEADER_RE = re.compile(
    r"^GPU\s+((?:[0-9A-Fa-f]{4,8}:)?[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}(?:\.[0-9A-Fa-f])?)\s*$"
)
_EXCERPT_RE = re.compile(r"^\s*(?:\[\.\.\.\]|\.\.\.|…|<snip>|\[snip\])\s*$", re.IGNORECASE)
_QUERY_RE = re.compile(r"--query-gpu[= ]([A-Za-z0-9_.,]+)")
# "-i 0,1" / "--id=0": the listing covers the GPUs asked for, not every GPU.
_ID_FILTER_RE = re.compile(r"(?:^|\s)(?:-i|--id)(?:[= ]|$)")
_FIELD_RE = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*(?: \[[^\]]+\])?$")
# "Not Found": the CUDA version on a host without the CUDA user-mode driver (a vGPU host).
_NA = {"N/A", "[N/A]", "[NOT SUPPORTED]", "NOT SUPPORTED", "[UNKNOWN ERROR]", "NOT FOUND", ""}
_ALIASES = {
    "gpu_name": "name",
    "gpu_bus_id": "pci.bus_id",
    "gpu_uuid": "uuid",
    "gpu_serial": "serial",
    "retired_pages.sbe": "retired_pages.single_bit_ecc.count",
    "retired_pages.dbe": "retired_pages.double_bit.count",
}
_BRANDS = ("NVIDIA", "Tesla", "Quadro", "GeForce", "GRID", "TITAN")
_SCAN_BYTES = 65536
# The memory repair and RMA rows of -q beside Remapped Rows (NVML nvmlDeviceGetRepairStatus,
# nvmlDeviceGetUnrepairableMemoryFlag_v1, nvmlEccSramErrorStatus_v1_t.bThresholdExceeded):
# label -> per-GPU key. verification.health says what each means for the GPU.
_REPAIR_ROWS = {
    "channel repair pending": "channel_repair_pending",
    "tpc repair pending": "tpc_repair_pending",
    "unrepairable memory": "memory_unrepairable",
    "sram threshold exceeded": "sram_threshold_exceeded",
}
# Sections of a GPU block that a -d ECC / ROW_REMAPPER / PAGE_RETIREMENT excerpt may start with.
_GPU_MEMORY_SECTIONS = {"ecc mode", "ecc errors", "remapped rows", "retired pages"}
# What nvidia-smi prints for a field NVML refused with NVML_ERROR_RESET_REQUIRED.
_RESET_REQUIRED = "gpu requires reset"
_MAX_DEPTH = 8  # nvidia-smi -q nests 5 levels; deeper "sections" are noise, kept flat


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is ``nvidia-smi -q`` or ``--query-gpu`` CSV output."""
    head = text[:_SCAN_BYTES]
    score = 0
    if "NVSMI LOG" in head:
        score += 60
    if re.search(r"(?m)^Attached GPUs\s*:", head):
        score += 40
    if re.search(r"(?m)^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d[ \t]*$", head):
        score += 30
    if re.search(
        r"(?m)^[ \t]+(?:Product Name[ \t]+:|FB Memory Usage|ECC Errors|Remapped Rows|"
        r"GPU Virtualization Mode|Retired Pages)\b",
        head,
    ):
        score += 30
    if "--query-gpu" in head:
        score += 50
    if re.search(r"nvidia-smi\s+(?:\S+\s+)*-q\b", head):
        score += 30
    if re.search(r"(?m)^[ \t]+Virtualization Mode[ \t]+:", head):
        score += 20
    if re.search(
        r"(?m)^(?:name|pci\.bus_id|index|uuid|driver_version|memory\.total \[MiB\])"
        r"(?:, [a-z0-9_.]+(?: \[[^\]\n]+\])?)+[ \t]*$",
        head,
    ):
        score += 50
    return min(score, 100)


def _key_value(line: str) -> tuple[str, str] | None:
    """("key", "value") of a "  Key     : value" line (the value may hold colons)."""
    colon = line.find(":")
    if colon <= 0:
        return None
    key = line[:colon].strip()
    return (key, line[colon + 1 :].strip()) if key else None


def _value(raw: str | None) -> str | None:
    if raw is None:
        return None
    value = raw.strip()
    return None if value.upper() in _NA else value


def _int(raw: str | None) -> int | None:
    value = _value(raw)
    match = re.match(r"^([0-9]{1,15})(?![0-9])", value) if value else None
    return int(match.group(1)) if match else None


def _yes_no(raw: str | None) -> bool | None:
    value = (_value(raw) or "").lower()
    return {"yes": True, "no": False, "true": True, "false": False}.get(value)


def _mib(raw: str | None) -> int | None:
    value = _value(raw)
    match = (
        re.match(r"^([0-9]{1,12}(?:\.[0-9]{1,6})?)\s*(MiB|Mb|MB|GiB)?", value) if value else None
    )
    if not match:
        return None
    number = float(match.group(1))
    return round(number * 1024) if match.group(2) == "GiB" else round(number)


def parse(text: str) -> ParseResult:
    """Parse ``nvidia-smi -q`` or ``--query-gpu`` CSV output into the figures above."""
    if _looks_like_csv(text):
        return _parse_csv(text)
    return _parse_q(text)


def _looks_like_csv(text: str) -> bool:
    head = text[:_SCAN_BYTES]
    if re.search(r"(?m)^[ \t]+\S[^:\n]*?[ \t]:[ \t]", head) or "NVSMI LOG" in head:
        return False
    if "--query-gpu" in head:
        return True
    for line in head.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) > 1 and (
            all(_FIELD_RE.match(f) for f in fields) or any(f.startswith(_BRANDS) for f in fields)
        ):
            return True
    return False


# -- nvidia-smi -q -----------------------------------------------------------------------------


def _parse_q(text: str) -> ParseResult:
    warnings: list[str] = []
    top: dict[str, str] = {}
    gpus: list[tuple[int, str | None, dict[tuple[str, ...], str]]] = []
    # Per GPU block, the line of its current link width (a fault points at it).
    width_lines: list[int | None] = []
    stack: list[tuple[int, str]] = []
    current: dict[tuple[str, ...], str] | None = None
    recognised = False
    top_section: str | None = None

    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.expandtabs(4).rstrip()
        if not line.strip():
            continue
        if _EXCERPT_RE.match(line):
            warnings.append(f"line {line_no}: the output was cut by its author ({line.strip()})")
            continue
        match = _GPU_HEADER_RE.match(line)
        if match:
            current = {}
            gpus.append((line_no, match.group(1).upper(), current))
            width_lines.append(None)
            stack, recognised = [], True
            continue
        indent = len(line) - len(line.lstrip())
        if current is None and indent == 0 and line.strip().lower() in _GPU_MEMORY_SECTIONS:
            # A -d ECC / ROW_REMAPPER excerpt whose author cut the GPU header and unindented
            # the sections: the (one) GPU's block starts here.
            current = {}
            gpus.append((line_no, None, current))
            width_lines.append(None)
            warnings.append(f"line {line_no}: GPU values without a 'GPU <bus id>' header")
            stack = [(indent, line.strip())]
            continue
        if current is None and indent == 0:
            pair = _key_value(line)
            if pair and not line.startswith(("$", "#")):
                top[pair[0].lower()] = pair[1]
            # A heading of the driver's own ("vGPU Driver Capability") opens a section whose
            # indented lines describe the driver, not a GPU.
            top_section = None if pair or line.startswith(("$", "#")) else line.strip().lower()
            continue
        if current is None and top_section is not None:
            pair = _key_value(line)
            if pair:
                top[f"{top_section} / {pair[0].lower()}"] = pair[1]
            continue
        if current is None:
            current = {}
            gpus.append((line_no, None, current))
            width_lines.append(None)
            warnings.append(f"line {line_no}: GPU values without a 'GPU <bus id>' header")
        while stack and stack[-1][0] >= indent:
            stack.pop()
        pair = _key_value(line)
        if pair:
            path = (*(name.lower() for _, name in stack), pair[0].lower())
            current[path] = pair[1]
            recognised = True
            if path[-2:] == ("link width", "current") and width_lines[-1] is None:
                width_lines[-1] = line_no
        elif len(stack) < _MAX_DEPTH:
            stack.append((indent, line.strip()))

    known = {"driver version", "cuda version", "attached gpus"}
    if not recognised and not known & set(top):
        raise EvidenceParseError(
            "no nvidia-smi -q values found (expected 'Attached GPUs : N', 'GPU 00000000:07:00.0' "
            "blocks with indented 'Key : value' lines, or --query-gpu CSV)",
            kind=KIND,
            code="nvidia_smi_query.nothing",
        )
    attached = _int(top.get("attached gpus"))
    per_gpu = [
        _q_gpu(values, bus) | {"pcie_link_width_line": width_lines[i]}
        for i, (_, bus, values) in enumerate(gpus)
    ]
    shown = sum(1 for _, bus, _ in gpus if bus is not None)
    gpu_count = attached if attached is not None else (shown or None)
    if attached is not None and shown and shown < attached:
        warnings.append(f"{shown} of {attached} attached GPUs shown (excerpt or -i filter)")
    if gpu_count is None:
        warnings.append("the excerpt does not say how many GPUs there are")
    # Every full -q report prints "Attached GPUs"; without it only the blocks shown are counted.
    partial = "no_total" if attached is None and gpu_count is not None else None
    return _result(
        "q",
        per_gpu,
        gpu_count,
        len(gpus),
        _value(top.get("driver version")),
        _value(top.get("cuda version")),
        [line for line, _, _ in gpus],
        warnings,
        partial,
    )


def _get(values: dict[tuple[str, ...], str], *paths: tuple[str, ...]) -> str | None:
    for path in paths:
        if path in values:
            return values[path]
    return None


def _ecc_sums(values: dict[tuple[str, ...], str], scope: str) -> tuple[int | None, int | None]:
    """(uncorrected, corrected) counts of one ECC scope ("volatile" or "aggregate")."""
    base = ("ecc errors", scope)
    old_unc = _get(values, (*base, "double bit", "total"))
    old_cor = _get(values, (*base, "single bit", "total"))
    if old_unc is not None or old_cor is not None:
        return _int(old_unc), _int(old_cor)
    uncorrected: int | None = None
    corrected: int | None = None
    for path, raw in values.items():
        if len(path) != 3 or path[:2] != base:
            continue
        number = _int(raw)
        if number is None:
            continue
        if "uncorrectable" in path[2]:
            uncorrected = (uncorrected or 0) + number
        elif "correctable" in path[2]:
            corrected = (corrected or 0) + number
    return uncorrected, corrected


def _q_gpu(values: dict[tuple[str, ...], str], bus: str | None) -> dict[str, Any]:
    vol_unc, vol_cor = _ecc_sums(values, "volatile")
    agg_unc, agg_cor = _ecc_sums(values, "aggregate")
    sbe = _int(_get(values, ("retired pages", "single bit ecc")))
    dbe = _int(_get(values, ("retired pages", "double bit ecc")))
    retired = None if sbe is None and dbe is None else (sbe or 0) + (dbe or 0)
    pending_retire = _yes_no(
        _get(
            values,
            ("retired pages", "pending"),
            ("retired pages", "pending page blacklist"),
            ("retired pages", "pending page retirement"),
        )
    )
    return {
        "bus_id": bus or _value(_get(values, ("pci", "bus id"))),
        "product_name": _value(_get(values, ("product name",))),
        "memory_total_mib": _mib(
            _get(values, ("fb memory usage", "total"), ("memory usage", "total"))
        ),
        "mig_mode": _value(_get(values, ("mig mode", "current"))),
        "virtualization_mode": _value(
            _get(values, ("gpu virtualization mode", "virtualization mode"))
        ),
        "ecc_mode": _value(_get(values, ("ecc mode", "current"))),
        "ecc_volatile_uncorrected": vol_unc,
        "ecc_volatile_corrected": vol_cor,
        "ecc_aggregate_uncorrected": agg_unc,
        "ecc_aggregate_corrected": agg_cor,
        "retired_pages": retired,
        "retired_pages_pending": pending_retire,
        "remapped_rows_correctable": _int(_get(values, ("remapped rows", "correctable error"))),
        "remapped_rows_uncorrectable": _int(_get(values, ("remapped rows", "uncorrectable error"))),
        "remapped_rows_pending": _yes_no(_get(values, ("remapped rows", "pending"))),
        "remapped_rows_failure": _yes_no(
            _get(values, ("remapped rows", "remapping failure occurred"))
        ),
        **_repair_rows(values),
        **_link_width(values),
        "multigpu_board": _yes_no(_get(values, ("multigpu board",))),
        "board_id": _value(_get(values, ("board id",))),
    }


def _link_width(values: dict[tuple[str, ...], str]) -> dict[str, int | None]:
    """Max and current PCIe link width of one GPU block, in lanes ("16x" -> 16).

    Found by the last two labels of the path ("Link Width", "Max"/"Current") wherever the block
    nests them: under "PCI / GPU Link Info" in every driver seen, kept loose for excerpts."""
    found: dict[str, int | None] = {"pcie_link_width_max": None, "pcie_link_width_current": None}
    for path, raw in values.items():
        if path[-2:] == ("link width", "max") and found["pcie_link_width_max"] is None:
            found["pcie_link_width_max"] = _int(raw)
        elif path[-2:] == ("link width", "current") and found["pcie_link_width_current"] is None:
            found["pcie_link_width_current"] = _int(raw)
    return found


def _repair_rows(values: dict[tuple[str, ...], str]) -> dict[str, Any]:
    """The memory repair rows of one GPU block, found by their label at any depth."""
    found: dict[str, Any] = dict.fromkeys(_REPAIR_ROWS.values())
    reset: list[str] = []
    for path, raw in values.items():
        key = _REPAIR_ROWS.get(path[-1])
        if key is None or found[key] is not None:
            continue
        found[key] = _yes_no(raw)
        if raw.strip().lower() == _RESET_REQUIRED:
            reset.append(path[-1])
    found["repair_rows_reset_required"] = reset
    return found


# -- --query-gpu CSV -------------------------------------------------------------------------

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


def _parse_csv(text: str) -> ParseResult:
    warnings: list[str] = []
    fields: list[str] | None = None
    driver: str | None = None
    rows: list[tuple[int, dict[str, str]]] = []
    partial: str | None = None
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if _EXCERPT_RE.match(line):
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
        if all(_FIELD_RE.match(p) for p in parts) and len(parts) > 1:
            fields = [_ALIASES.get(p.split(" [")[0], p.split(" [")[0]) for p in parts]
            continue
        if fields is None or len(parts) != len(fields):
            if fields is not None and len(parts) > 1:
                warnings.append(f"line {line_no}: row with {len(parts)} values, not {len(fields)}")
                partial = partial or "unread_rows"
            elif fields is None and len(parts) > 1:
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
    per_gpu = []
    for line_no, row in rows:
        gpu: dict[str, Any] = {}
        for field, key in _CSV_FIELDS.items():
            raw = row.get(field)
            if key == "memory_total_mib":
                gpu[key] = _mib(raw)
            elif key.endswith(("_pending", "_failure")):
                gpu[key] = _yes_no(raw)
            elif key.startswith(("ecc_volatile", "ecc_aggregate", "remapped_rows", "pcie_link")):
                gpu[key] = _int(raw)
            else:
                gpu[key] = _value(raw)
        if fields is None:
            names = [v for v in row.values() if v.startswith(_BRANDS)]
            gpu["product_name"] = names[0] if names else None
        sbe = _int(row.get("retired_pages.single_bit_ecc.count"))
        dbe = _int(row.get("retired_pages.double_bit.count"))
        gpu["retired_pages"] = None if sbe is None and dbe is None else (sbe or 0) + (dbe or 0)
        gpu["pcie_link_width_line"] = line_no if gpu["pcie_link_width_current"] else None
        driver = driver or _value(row.get("driver_version"))
        per_gpu.append(gpu)
    bus_ids = [g["bus_id"] for g in per_gpu if g["bus_id"]]
    if any("cut by its author" in w for w in warnings):
        warnings.append("rows hidden by the excerpt: gpu_count counts only the rows shown")
    if len(set(bus_ids)) < len(bus_ids):
        warnings.append("the same GPU appears in several rows (-l loop?); gpu_count counts once")
    count = len(set(bus_ids)) if bus_ids and len(bus_ids) == len(per_gpu) else len(per_gpu)
    return _result(
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


# -- both --------------------------------------------------------------------------------------


def _any(values: list[bool | None]) -> bool | None:
    known = [v for v in values if v is not None]
    return any(known) if known else None


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _result(
    form: str,
    gpus: list[dict[str, Any]],
    gpu_count: int | None,
    shown: int,
    driver: str | None,
    cuda: str | None,
    lines: list[int],
    warnings: list[str],
    partial: str | None = None,
) -> ParseResult:
    modes = [g["virtualization_mode"] for g in gpus]
    known_modes = [m.lower() for m in modes if m]
    virtualized = any(m in ("pass-through", "vgpu") for m in known_modes) if known_modes else None
    metrics: dict[str, Any] = {
        "format": form,
        "gpu_count": gpu_count,
        "gpus_shown": shown,
        "gpu_count_partial": partial,
        "driver_version": driver,
        "cuda_version": cuda,
        "product_names": [g["product_name"] for g in gpus],
        "memory_total_mib": [g["memory_total_mib"] for g in gpus],
        "mig_mode": [g["mig_mode"] for g in gpus],
        "virtualization_mode": modes,
        "virtualized": virtualized,
        "bus_ids": [g["bus_id"] for g in gpus],
        "pcie_link_width_max": [g.get("pcie_link_width_max") for g in gpus],
        "pcie_link_width_current": [g.get("pcie_link_width_current") for g in gpus],
        "gpus": gpus,
    }
    for key in (
        "ecc_volatile_uncorrected",
        "ecc_volatile_corrected",
        "ecc_aggregate_uncorrected",
        "ecc_aggregate_corrected",
        "retired_pages",
        "remapped_rows_uncorrectable",
        "remapped_rows_correctable",
    ):
        metrics[key] = _sum([g.get(key) for g in gpus])
    for key in (
        "retired_pages_pending",
        "remapped_rows_pending",
        "remapped_rows_failure",
        "memory_unrepairable",
        "sram_threshold_exceeded",
    ):
        metrics[key] = _any([g.get(key) for g in gpus])
    metrics["memory_repair_pending"] = _any(
        [_any([g.get("channel_repair_pending"), g.get("tpc_repair_pending")]) for g in gpus]
    )
    if metrics["remapped_rows_pending"]:
        warnings.append("row remapping pending: the GPU needs a reset")
    if metrics["memory_repair_pending"]:
        warnings.append("a channel or TPC repair is pending: the GPU needs a reset")
    if metrics["memory_unrepairable"]:
        warnings.append("unrepairable memory reported: the GPU needs replacement")
    if metrics["sram_threshold_exceeded"]:
        warnings.append("SRAM uncorrectable errors exceeded NVIDIA's RMA threshold")
    for gpu in gpus:
        rows = gpu.pop("repair_rows_reset_required", None)
        if rows:
            warnings.append(
                f"GPU {gpu.get('bus_id') or '?'}: 'GPU requires reset' in place of "
                f"{', '.join(rows)} (the driver cannot read them until the GPU is reset)"
            )
    if metrics["ecc_volatile_uncorrected"] or metrics["ecc_aggregate_uncorrected"]:
        warnings.append("uncorrectable ECC errors reported")
    first_line = lines[0] if lines else None
    facts = []
    if gpu_count is not None:
        facts.append(Fact("gpu_count", float(gpu_count), "count", first_line))
    for key in (
        "ecc_volatile_uncorrected",
        "ecc_aggregate_uncorrected",
        "retired_pages",
        "remapped_rows_uncorrectable",
    ):
        if metrics[key] is not None:
            facts.append(Fact(key, float(metrics[key]), "count", first_line))
    return ParseResult(KIND, metrics, tuple(facts), tuple(warnings))
