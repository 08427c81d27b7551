"""Parser for Huawei Ascend's ``npu-smi``: the ``npu-smi info`` device table, ``npu-smi info -t
health`` and ``npu-smi info -t ecc``, alone or several in one file (a collection script saves
each command line followed by its output, as Ascend's fault-diagnosis guide asks).

The device table has two rows per chip: "| <NPU> <name> | <health> | <power> <temp> <huge
pages> |" and "| <chip> [<phy id>] | <bus id> | <AI core> <memory> <HBM used> / <total> |"
(an Atlas A3 card shows two chips, each with its physical id; column widths differ between
releases, so cells are split on "|" and read by pattern). The process table after it is not
read. ``-t health`` prints "Health Status", "Error Code" (hexadecimal codes, or NA) and "Error
Information"; ``-t ecc`` prints "NPU ID" and per memory (DDR, HBM) the single- and double-bit
error counts, their lifetime totals and the isolated pages. Neither names the NPU or chip
unless its command line does ("npu-smi info -i 0 -c 0 -t health") or an "NPU ID" / "Chip ID"
line is printed. npu-smi's health states are OK, Warning, Alarm and Critical (its source treats
the last three as unhealthy), and NA for a management unit seen from a VM or container.

metrics
    npu_smi_version      the banner's version, None without the banner.
    npu_count            NPUs in the device table (distinct NPU ids), None without a table.
    chip_count           chips (row pairs) in the device table, None without a table.
    device_count_partial None when the table lists every chip; else why the counts are only a
                         lower bound: "excerpt" (an elision "..." or no column heads: the paste
                         starts inside the table), "cut" (the text ends inside a chip's rows or
                         the border after them).
    chips                per chip {npu, chip, phy_id, name, health, bus_id, power_w,
                         temperature_c, hbm_used_mb, hbm_total_mb}.
    npu_names            the names printed, each once ("910B3", "Ascend910", "910B4-1").
    health_checks        per ``-t health`` output {npu, chip, health, error_codes, error_info}.
    health_by_device     every health state read, per device: {npu, chip, health, source}
                         (source "table" or "health"), the worse of both for one device.
    worst_health         the worst state of health_by_device, None when none was read.
    unhealthy_devices    the devices of health_by_device in Warning, Alarm or Critical.
    ecc                  per ``-t ecc`` output {npu, chip, and each count printed, named
                         hbm_/ddr_ + single_bit_errors, double_bit_errors, single_bit_total,
                         double_bit_total, single_bit_isolated_pages, double_bit_isolated_pages,
                         single_bit_next_isolated_pages, double_bit_next_isolated_pages}.
    ecc_volatile_uncorrected        per ``-t ecc`` output: its double-bit (uncorrectable) error
                         count now, DDR and HBM summed (npu-smi's "Double Bit Error Count":
                         the current count, not the lifetime total), None when not printed.
    ecc_volatile_uncorrected_total  their sum, None without an ``-t ecc`` output.
    ecc_aggregate_uncorrected_total the lifetime double-bit totals summed, None when not printed.
facts: ``npu_count`` and ``chip_count`` (the table's), ``ecc_volatile_uncorrected_total``: named as
the metrics they repeat with their line (a fact named otherwise was stored twice).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult

KIND = "npu_smi"

HEALTH_STATES = ("OK", "Warning", "Alarm", "Critical")
UNHEALTHY = frozenset(HEALTH_STATES[1:])
_HEALTH_ORDER = {state: rank for rank, state in enumerate(HEALTH_STATES)}
_SCAN = 65536

_BANNER_RE = re.compile(r"^\|[ \t]*npu-smi[ \t]+(\S+)[ \t]+Version:[ \t]*(\S+)", re.M)
_HEADS_RE = re.compile(r"^\|[ \t]*NPU[ \t]+Name[ \t]*\|[ \t]*Health[ \t]*\|", re.M)
_CHIP_HEADS_RE = re.compile(r"^\|[ \t]*Chip(?:[ \t]+Phy-ID)?[ \t]*\|[ \t]*Bus-Id[ \t]*\|", re.M)
_PROCESS_HEADS_RE = re.compile(r"^\|[ \t]*NPU[ \t]+Chip[ \t]*\|[ \t]*Process id[ \t]*\|", re.M)
_DEVICE_ROW_RE = re.compile(
    r"^\|[ \t]*\d+[ \t]+\S[^|\n]*\|[ \t]*(?:OK|Warning|Alarm|Critical|NA)[ \t]*\|", re.M
)
_HEALTH_LINE_RE = re.compile(r"^[ \t]*Health Status[ \t]*:", re.M)
_ERROR_CODE_LINE_RE = re.compile(r"^[ \t]*Error Code[ \t]*:", re.M)
_ECC_LINE_RE = re.compile(r"^[ \t]*(?:HBM|DDR) (?:Single|Double) Bit Error Count[ \t]*:", re.M)

# A bus id as npu-smi prints it; a masked paste writes "xx" for the bus number.
_BUS_RE = re.compile(r"^[0-9A-Fa-f]{4,8}:(?:[0-9A-Fa-f]{2}|xx):[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$")
_NPU_CELL_RE = re.compile(r"^(\d{1,4})[ \t]+(\S.*)$")
_CHIP_CELL_RE = re.compile(r"^(\d{1,4})(?:[ \t]+(\d{1,5}))?$")
_PAIR_RE = re.compile(r"(\d{1,9})[ \t]*/[ \t]*(\d{1,9})")
_NUMBER_RE = re.compile(r"^-?\d{1,6}(?:\.\d{1,3})?$")
# A key-value line of the -t outputs: "Health Status : OK", "HBM Double Bit Error Count : 0";
# a continuation of Error Information has a blank key.
_KEY_VALUE_RE = re.compile(r"^[ \t]*([A-Za-z][A-Za-z0-9 ()%/.\-]{0,60}?)?[ \t]*:[ \t]?(.*)$")
# The command line a collection file writes before each output ("/usr/local/bin/npu-smi info
# -i 0 -c 0 -t health", a shell prompt before "npu-smi info").
_COMMAND_RE = re.compile(r"(?:^|[\s/#$])npu-smi[ \t]+info\b([^\n|]*)$")
_ELISION_RE = re.compile(r"^[ \t]*(?:\.\.\.|…|\[\.\.\.\])[ \t]*$")
_ECC_KEY_RE = re.compile(
    r"^(HBM|DDR) (Single|Double) Bit (Error Count|Aggregate Total Err Cnt|Isolated Pages Count"
    r"|Next-Isolated Pages Count)$"
)
_ECC_FIELDS = {
    "Error Count": "errors",
    "Aggregate Total Err Cnt": "total",
    "Isolated Pages Count": "isolated_pages",
    "Next-Isolated Pages Count": "next_isolated_pages",
}


# What each sign adds to the confidence that a text is npu-smi's (capped at 100): the banner,
# the device table's heads, the process table's heads, a device row, an -t ecc count line.
_SIGNS = (
    (_BANNER_RE, 60),
    (_HEADS_RE, 40),
    (_CHIP_HEADS_RE, 10),
    (_PROCESS_HEADS_RE, 40),
    (_DEVICE_ROW_RE, 30),
    (_ECC_LINE_RE, 60),
)


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is npu-smi output (first 64 KiB)."""
    head = text[:_SCAN]
    score = sum(weight for pattern, weight in _SIGNS if pattern.search(head))
    # An -t health output: its "Health Status" and "Error Code" lines together.
    if _HEALTH_LINE_RE.search(head) and _ERROR_CODE_LINE_RE.search(head):
        score += 60
    return min(score, 100)


@dataclass
class _Chip:
    line: int
    npu: int
    name: str
    health: str
    power_w: float | None
    temperature_c: float | None
    chip: int | None = None
    phy_id: int | None = None
    bus_id: str | None = None
    hbm_used_mb: int | None = None
    hbm_total_mb: int | None = None
    complete: bool = False


@dataclass
class _Block:
    """One -t output (health or ecc) and the ids its command line or its lines give."""

    kind: str
    line: int
    npu: int | None
    chip: int | None
    values: dict[str, str] = field(default_factory=dict)
    info: list[str] = field(default_factory=list)


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:]
    if inner.endswith("|"):
        inner = inner[:-1]
    return [cell.strip() for cell in inner.split("|")]


def _number(text: str) -> float | None:
    return float(text) if _NUMBER_RE.match(text) else None


def _count(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if re.fullmatch(r"\d{1,15}", text) else None


def _command_ids(args: str) -> tuple[str | None, int | None, int | None]:
    """(-t type, -i NPU, -c chip) of an npu-smi info command line."""
    kind = re.search(r"-t[ \t]+([\w-]+)", args)
    npu = re.search(r"-i[ \t]+(\d{1,4})", args)
    chip = re.search(r"-c[ \t]+(\d{1,4})", args)
    return (
        kind.group(1) if kind else None,
        int(npu.group(1)) if npu else None,
        int(chip.group(1)) if chip else None,
    )


class _Reader:
    def __init__(self) -> None:
        self.version: str | None = None
        self.heads = False
        self.chips: list[_Chip] = []
        self.blocks: list[_Block] = []
        self.warnings: list[str] = []
        self.excerpt = False
        self.in_table = False
        self.in_processes = False
        self.block: _Block | None = None
        self.command: tuple[str | None, int | None, int | None] = (None, None, None)
        self.cut_border = 0
        self.last_line = 0

    def read(self, text: str) -> None:
        for line_no, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if line:
                self.last_line = line_no
            if _ELISION_RE.match(raw):
                self.excerpt = True
                self.warnings.append(f"line {line_no}: the output was cut by its author ({line})")
                continue
            if line.startswith(("|", "+")):
                self._table_line(line, line_no)
                continue
            command = _COMMAND_RE.search(raw)
            if command is not None:
                self.command = _command_ids(command.group(1))
                self.block = None
                self.in_table = self.in_processes = False
                continue
            if line:
                self._key_value(raw, line_no)

    # --- the device table -------------------------------------------------------------------

    def _table_line(self, line: str, line_no: int) -> None:
        self.block = None
        banner = _BANNER_RE.match(line)
        if banner:
            self.version = self.version or banner.group(2)
            return
        if _HEADS_RE.match(line):
            self.heads, self.in_table, self.in_processes = True, True, False
            return
        if _CHIP_HEADS_RE.match(line):
            return
        if _PROCESS_HEADS_RE.match(line):
            self.in_table, self.in_processes = False, True
            return
        if line.startswith("+") or set(line) <= {"|", "-", "+", "="}:
            if not line.endswith("+"):
                self.cut_border = line_no
            return
        if self.in_processes:
            return
        cells = _cells(line)
        if len(cells) < 3:
            self._row_cut(line_no)
            return
        if _BUS_RE.match(cells[1]):
            self._chip_row(cells, line_no, line)
        elif cells[1] in (*HEALTH_STATES, "NA") or self.in_table:
            self._npu_row(cells, line_no, line)

    def _npu_row(self, cells: list[str], line_no: int, line: str) -> None:
        npu = _NPU_CELL_RE.match(cells[0])
        if npu is None:
            self.warnings.append(f"line {line_no}: unreadable NPU table line ignored")
            return
        if not self.heads and not self.in_table:
            # Rows without the column heads above them: the paste starts inside the table.
            self.excerpt = self.in_table = True
        health = cells[1]
        if health not in (*HEALTH_STATES, "NA"):
            self.warnings.append(f"line {line_no}: unknown health state {health!r}")
        figures = cells[2].split()
        self.chips.append(
            _Chip(
                line_no,
                int(npu.group(1)),
                npu.group(2).strip(),
                health,
                _number(figures[0]) if figures else None,
                _number(figures[1]) if len(figures) > 1 else None,
            )
        )

    def _chip_row(self, cells: list[str], line_no: int, line: str) -> None:
        current = self.chips[-1] if self.chips else None
        if current is None or current.chip is not None:
            self.warnings.append(f"line {line_no}: a chip row without its NPU row, ignored")
            return
        chip = _CHIP_CELL_RE.match(cells[0])
        if chip is None:
            self.warnings.append(f"line {line_no}: unreadable chip cell {cells[0]!r}")
            return
        current.chip = int(chip.group(1))
        current.phy_id = int(chip.group(2)) if chip.group(2) else None
        current.bus_id = cells[1].upper() if _BUS_RE.match(cells[1]) else None
        pairs = _PAIR_RE.findall(cells[2])
        if len(pairs) >= 2:
            current.hbm_used_mb, current.hbm_total_mb = int(pairs[-1][0]), int(pairs[-1][1])
        current.complete = line.endswith("|") and len(pairs) >= 2

    def _row_cut(self, line_no: int) -> None:
        if self.chips:
            self.chips[-1].complete = False
        self.warnings.append(f"line {line_no}: a table row cut short")

    # --- the -t outputs ---------------------------------------------------------------------

    def _key_value(self, raw: str, line_no: int) -> None:
        match = _KEY_VALUE_RE.match(raw)
        if match is None:
            return
        key, value = (match.group(1) or "").strip(), match.group(2).strip()
        kind, npu, chip = self.command
        if key == "Health Status":
            self.block = _Block("health", line_no, npu, chip)
            self.blocks.append(self.block)
        elif key == "NPU ID":
            self.block = _Block(kind or "", line_no, _count(value), chip)
            self.blocks.append(self.block)
        elif self.block is None and _ECC_KEY_RE.match(key):
            # An -t ecc output pasted without its "NPU ID" line.
            self.block = _Block("ecc", line_no, npu, chip)
            self.blocks.append(self.block)
        block = self.block
        if block is None:
            return
        if _ECC_KEY_RE.match(key) and key in block.values:
            # The counts again under one "NPU ID": the next chip's, a block of their own.
            block = self.block = _Block("ecc", line_no, block.npu, None)
            self.blocks.append(block)
        if key == "" and block.kind == "health":
            block.info.append(value)
            return
        if key == "Chip ID" and block.chip is None:
            block.chip = _count(value)
        if _ECC_KEY_RE.match(key):
            block.kind = "ecc"
        block.values.setdefault(key, value)

    # --- results ----------------------------------------------------------------------------

    def partial(self) -> str | None:
        if self.excerpt or (self.chips and not self.heads):
            return "excerpt"
        if self.chips and (not self.chips[-1].complete or self.cut_border == self.last_line):
            return "cut"
        return None


def _health_check(block: _Block) -> dict[str, Any]:
    values = block.values
    health = values.get("Health Status", "").strip() or None
    codes_text = values.get("Error Code", "").strip()
    codes = [] if codes_text in ("", "NA") else codes_text.split()
    info = [values.get("Error Information", "").strip(), *block.info]
    info = [item for item in info if item and item != "NA"]
    return {
        "npu": block.npu,
        "chip": block.chip,
        "health": health,
        "error_codes": codes,
        "error_info": info,
    }


def _ecc_entry(block: _Block) -> dict[str, Any]:
    entry: dict[str, Any] = {"npu": block.npu, "chip": block.chip}
    for key, value in block.values.items():
        match = _ECC_KEY_RE.match(key)
        if match is None:
            continue
        memory, bits, what = match.groups()
        name = f"{memory.lower()}_{bits.lower()}_bit_{_ECC_FIELDS[what]}"
        entry[name] = _count(value)
    return entry


def _sum_known(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _uncorrected(entry: dict[str, Any], what: str) -> int | None:
    return _sum_known([entry.get(f"hbm_double_bit_{what}"), entry.get(f"ddr_double_bit_{what}")])


def _health_by_device(
    chips: list[dict[str, Any]], checks: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every health state read, the worse per (NPU, chip); a health output that names no
    device is a device of its own."""
    found: dict[Any, dict[str, Any]] = {}
    sources = [(chip, "table") for chip in chips] + [(check, "health") for check in checks]
    for index, (item, source) in enumerate(sources):
        state = item["health"]
        if state not in _HEALTH_ORDER:
            continue
        key: Any = (item["npu"], item["chip"]) if item["npu"] is not None else ("?", index)
        if key[0] != "?" and item["chip"] is None:
            key = (item["npu"], 0)  # one chip per NPU unless a chip is named
        entry = {"npu": item["npu"], "chip": item["chip"], "health": state, "source": source}
        old = found.get(key)
        if old is None or _HEALTH_ORDER[state] > _HEALTH_ORDER[old["health"]]:
            found[key] = entry
    return list(found.values())


def parse(text: str) -> ParseResult:
    """Parse npu-smi output into the figures documented above."""
    reader = _Reader()
    reader.read(text)
    chips = reader.chips
    # npu-smi prints the three lines together; a lone "Health Status" is no -t health output.
    checks = [
        _health_check(b) for b in reader.blocks if b.kind == "health" and "Error Code" in b.values
    ]
    eccs = [_ecc_entry(b) for b in reader.blocks if b.kind == "ecc"]
    eccs = [e for e in eccs if len(e) > 2]
    if not chips and not checks and not eccs:
        raise EvidenceParseError(
            "no npu-smi output found (expected the 'npu-smi info' device table with its "
            "'| NPU Name | Health |' heads, or the 'Health Status :' / 'HBM Double Bit Error "
            "Count :' lines of 'npu-smi info -t health' / '-t ecc')",
            kind=KIND,
            code="npu_smi.nothing",
        )
    warnings = list(reader.warnings)
    chip_info = [
        {
            "npu": c.npu,
            "chip": c.chip,
            "phy_id": c.phy_id,
            "name": c.name,
            "health": c.health,
            "bus_id": c.bus_id,
            "power_w": c.power_w,
            "temperature_c": c.temperature_c,
            "hbm_used_mb": c.hbm_used_mb,
            "hbm_total_mb": c.hbm_total_mb,
        }
        for c in chips
    ]
    if chips and reader.version is None:
        warnings.append("no '| npu-smi <version>  Version:' banner: the version is unknown")
    by_device = _health_by_device(chip_info, checks)
    worst = max((d["health"] for d in by_device), key=_HEALTH_ORDER.__getitem__, default=None)
    volatile = [_uncorrected(e, "errors") for e in eccs]
    aggregate = [_uncorrected(e, "total") for e in eccs]
    npus = sorted({c.npu for c in chips})
    partial = reader.partial() if chips else None
    metrics: dict[str, Any] = {
        "npu_smi_version": reader.version,
        "npu_count": len(npus) if chips else None,
        "chip_count": len(chips) if chips else None,
        "device_count_partial": partial,
        "chips": chip_info,
        "npu_names": list(dict.fromkeys(c.name for c in chips)),
        "health_checks": checks,
        "health_by_device": by_device,
        "worst_health": worst,
        "unhealthy_devices": [d for d in by_device if d["health"] in UNHEALTHY],
        "ecc": eccs,
        "ecc_volatile_uncorrected": volatile,
        "ecc_volatile_uncorrected_total": _sum_known(volatile) if eccs else None,
        "ecc_aggregate_uncorrected_total": _sum_known(aggregate) if eccs else None,
    }
    for device in metrics["unhealthy_devices"]:
        where = f"NPU {device['npu']}" if device["npu"] is not None else "an NPU"
        if device["chip"] is not None:
            where += f" chip {device['chip']}"
        warnings.append(f"{where}: health {device['health']}")
    facts: list[Fact] = []
    if chips:
        facts.append(Fact("npu_count", float(len(npus)), "count", chips[0].line))
        facts.append(Fact("chip_count", float(len(chips)), "count", chips[0].line))
    total = metrics["ecc_volatile_uncorrected_total"]
    if total is not None:
        first = next(b.line for b in reader.blocks if b.kind == "ecc")
        facts.append(Fact("ecc_volatile_uncorrected_total", float(total), "count", first))
    return ParseResult(KIND, metrics, tuple(facts), tuple(warnings))
