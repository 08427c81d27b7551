"""The ``nvidia-smi -q`` side of nvidia_smi_query: the indented "key : value" tree, one block per
"GPU 00000000:07:00.0" header, read into per-GPU figures."""

from __future__ import annotations

import re
from typing import Any

from .base import EvidenceParseError, ParseResult, c2c_mode
from .nvidia_smi_query_values import (
    EXCERPT_RE,
    KIND,
    int_value,
    mib_value,
    query_result,
    text_value,
    yes_no,
)

_GPU_HEADER_RE = re.compile(
    r"^GPU\s+((?:[0-9A-Fa-f]{4,8}:)?[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}(?:\.[0-9A-Fa-f])?)\s*$"
)
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


def _key_value(line: str) -> tuple[str, str] | None:
    """("key", "value") of a "  Key     : value" line (the value may hold colons)."""
    colon = line.find(":")
    if colon <= 0:
        return None
    key = line[:colon].strip()
    return (key, line[colon + 1 :].strip()) if key else None


def parse_q(text: str) -> ParseResult:
    """Parse ``nvidia-smi -q`` (whole, or an excerpt) into nvidia_smi_query's figures."""
    warnings: list[str] = []
    top: dict[str, str] = {}
    gpus: list[tuple[int, str | None, dict[tuple[str, ...], str]]] = []
    # Per GPU block, the line of its current link width (a fault points at it).
    width_lines: list[int | None] = []
    stack: list[tuple[int, str]] = []
    current: dict[tuple[str, ...], str] | None = None
    recognised = False
    top_section: str | None = None
    # The last line read inside a GPU block: (line number, text, whether it held a value).
    last_in_block: tuple[int, str, bool] | None = None

    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.expandtabs(4).rstrip()
        if not line.strip():
            continue
        if EXCERPT_RE.match(line):
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
        if indent and line.strip()[:1].isalnum():
            # GPU rows are indented; a closing fence or a prompt after the block is not one.
            last_in_block = (line_no, line.strip(), pair is not None)
        if pair:
            path = (*(name.lower() for _, name in stack), pair[0].lower())
            current[path] = pair[1]
            recognised = True
            if path[-2:] == ("link width", "current") and width_lines[-1] is None:
                width_lines[-1] = line_no
        elif len(stack) < _MAX_DEPTH:
            stack.append((indent, line.strip()))

    if last_in_block is not None and not last_in_block[2]:
        # A section heading ("MIG Mode", "FB Memory Usage") always has rows under it: a report
        # that ends on one, or on a word with no " : " ("Mult"), was cut inside that line.
        bus = gpus[-1][1] or "?"
        warnings.append(
            f"line {last_in_block[0]}: the output ends at '{last_in_block[1]}' inside GPU "
            f"{bus}'s block: cut there, the values after it are missing"
        )
    known = {"driver version", "cuda version", "attached gpus"}
    if not recognised and not known & set(top):
        raise EvidenceParseError(
            "no nvidia-smi -q values found (expected 'Attached GPUs : N', 'GPU 00000000:07:00.0' "
            "blocks with indented 'Key : value' lines, or --query-gpu CSV)",
            kind=KIND,
            code="nvidia_smi_query.nothing",
        )
    attached = int_value(top.get("attached gpus"))
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
    return query_result(
        "q",
        per_gpu,
        gpu_count,
        len(gpus),
        text_value(top.get("driver version")),
        text_value(top.get("cuda version")),
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
        return int_value(old_unc), int_value(old_cor)
    uncorrected: int | None = None
    corrected: int | None = None
    for path, raw in values.items():
        if len(path) != 3 or path[:2] != base:
            continue
        number = int_value(raw)
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
    sbe = int_value(_get(values, ("retired pages", "single bit ecc")))
    dbe = int_value(_get(values, ("retired pages", "double bit ecc")))
    retired = None if sbe is None and dbe is None else (sbe or 0) + (dbe or 0)
    pending_retire = yes_no(
        _get(
            values,
            ("retired pages", "pending"),
            ("retired pages", "pending page blacklist"),
            ("retired pages", "pending page retirement"),
        )
    )
    return {
        "bus_id": bus or text_value(_get(values, ("pci", "bus id"))),
        "product_name": text_value(_get(values, ("product name",))),
        "memory_total_mib": mib_value(
            _get(values, ("fb memory usage", "total"), ("memory usage", "total"))
        ),
        "mig_mode": text_value(_get(values, ("mig mode", "current"))),
        "c2c_mode": c2c_mode(_get(values, ("gpu c2c mode",))),
        "virtualization_mode": text_value(
            _get(values, ("gpu virtualization mode", "virtualization mode"))
        ),
        "ecc_mode": text_value(_get(values, ("ecc mode", "current"))),
        "ecc_volatile_uncorrected": vol_unc,
        "ecc_volatile_corrected": vol_cor,
        "ecc_aggregate_uncorrected": agg_unc,
        "ecc_aggregate_corrected": agg_cor,
        "retired_pages": retired,
        "retired_pages_pending": pending_retire,
        "remapped_rows_correctable": int_value(
            _get(values, ("remapped rows", "correctable error"))
        ),
        "remapped_rows_uncorrectable": int_value(
            _get(values, ("remapped rows", "uncorrectable error"))
        ),
        "remapped_rows_pending": yes_no(_get(values, ("remapped rows", "pending"))),
        "remapped_rows_failure": yes_no(
            _get(values, ("remapped rows", "remapping failure occurred"))
        ),
        **_repair_rows(values),
        **_link_width(values),
        "multigpu_board": yes_no(_get(values, ("multigpu board",))),
        "board_id": text_value(_get(values, ("board id",))),
    }


def _link_width(values: dict[tuple[str, ...], str]) -> dict[str, int | None]:
    """Max and current PCIe link width of one GPU block, in lanes ("16x" -> 16).

    Found by the last two labels of the path ("Link Width", "Max"/"Current") wherever the block
    nests them: under "PCI / GPU Link Info" in every driver seen, kept loose for excerpts."""
    found: dict[str, int | None] = {"pcie_link_width_max": None, "pcie_link_width_current": None}
    for path, raw in values.items():
        if path[-2:] == ("link width", "max") and found["pcie_link_width_max"] is None:
            found["pcie_link_width_max"] = int_value(raw)
        elif path[-2:] == ("link width", "current") and found["pcie_link_width_current"] is None:
            found["pcie_link_width_current"] = int_value(raw)
    return found


def _repair_rows(values: dict[tuple[str, ...], str]) -> dict[str, Any]:
    """The memory repair rows of one GPU block, found by their label at any depth."""
    found: dict[str, Any] = dict.fromkeys(_REPAIR_ROWS.values())
    reset: list[str] = []
    for path, raw in values.items():
        key = _REPAIR_ROWS.get(path[-1])
        if key is None or found[key] is not None:
            continue
        found[key] = yes_no(raw)
        if raw.strip().lower() == _RESET_REQUIRED:
            reset.append(path[-1])
    found["repair_rows_reset_required"] = reset
    return found
