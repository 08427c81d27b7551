"""Parser for the plain ``nvidia-smi`` table (R3xx..R5xx layouts; processes table ignored).

The GPU table is read cell by cell: each GPU block is two or three ``| a | b | c |`` lines
(name/persistence | bus id/display | volatile uncorrected ECC, then fan/temp/perf/power |
memory | utilisation/compute mode, then MIG mode when the header has a "MIG M." row). Column
widths differ between driver generations, so cells are split on ``|`` and read by pattern.
A table relayed by ``kubectl logs --prefix`` (or any relay that puts the same text before every
line) is read without its ``[pod/<name>/<container>] `` line prefixes (``base.strip_line_prefix``).

metrics
    driver_version, cuda_version (None when "N/A"), nvidia_smi_version
    gpu_count            GPUs in the table.
    gpu_count_partial    None when the table lists every GPU; else why gpu_count is only a
                         lower bound: "excerpt" (cut by its author), "index_gap" (nvidia-smi
                         numbers GPUs 0..N-1, so a missing index is a hidden row: ``-i`` or an
                         edit), "cut" (the last GPU block is incomplete, or the text ends
                         inside the border after it).
    gpu_names            GPU names as printed (nvidia-smi truncates long ones with "...").
    memory_total_mib     per GPU (None when "Not Supported", e.g. unified-memory GB10).
    memory_used_mib      per GPU.
    mig_mode             per GPU "Enabled" / "Disabled" / None (no MIG row or N/A).
    mig_mode_pending     per GPU: True when nvidia-smi marks a pending change ("Disabled*").
    ecc_volatile_uncorrected      per GPU count, None when the cell says N/A / Off / On.
    ecc_volatile_uncorrected_total  sum of the counts shown, None when none is a number.
    vgpu                 True when a GPU name is a vGPU/GRID model ("GRID ...", or a vGPU
                         profile suffix such as "-8C", "-4Q", "-16A", "-2B").
    vgpu_models          those names.
    bus_ids, persistence_mode, power_cap_w   per GPU.
    unreachable_gpus     GPUs nvidia-smi names as unreachable ("Unable to determine the device
                         handle for GPU1: 0000:34:00.0: Unknown Error"): [{index, bus_id,
                         error}], [] when none. Those GPUs are not in the table, so gpu_count
                         counts the GPUs that work; the numbers they leave out are no
                         "index_gap". With no table at all the line is the tool's error.
    gpus                 per GPU dict with all of the above plus fan, temperature, perf state,
                         utilisation, compute mode.
facts: ``gpu_count`` and one ``gpu_memory_total_mib`` per GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .base import (
    EvidenceParseError,
    Fact,
    ParseResult,
    placeholder_gpu_name_warning,
    strip_line_prefix,
)

KIND = "nvidia_smi"

_HEADER_RE = re.compile(
    # R6xx drivers print "KMD Version:" (kernel-mode driver) and "CUDA UMD Version:".
    r"NVIDIA-SMI\s+(\S+)\s+(?:Driver|KMD)\s+Version:\s*(\S+)"
    r"(?:\s+CUDA(?:\s+UMD)?\s+Version:\s*(\S+))?"
)
# A GPU row's first cell: "  0  NVIDIA H100 80GB HBM3   On", the index, the name and the
# persistence mode (none in some tables). Read by ``_gpu_cell``: a lazy name between "\s+" was
# quadratic on a long run of blanks.
_GPU_INDEX_RE = re.compile(r"\s*(\d+)(?=\s)")
_PERSISTENCE_MODES = ("On", "Off", "WDDM", "TCC", "N/A")
_BUS_RE = re.compile(r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*(\S+)?")
_MEMORY_RE = re.compile(r"(?<![0-9])([0-9]{1,12})\s*MiB\s*/\s*([0-9]{1,12})\s*MiB")
_POWER_RE = re.compile(
    r"(?<![0-9.])(N/A|[0-9]{1,6}(?:\.[0-9]{1,3})?W)\s*/\s*(N/A|[0-9]{1,6}(?:\.[0-9]{1,3})?W)"
)
_VGPU_PROFILE_RE = re.compile(r"-\d+[ABCQ]$")
_TOOL_FAILURE_LINE_RE = re.compile(
    r"(?m)^[ \t]*(?:No devices were found|Failed to initialize NVML: )"
)
_FAILURE_RE = re.compile(
    r"(NVIDIA-SMI has failed[^\n]*|No devices were found|Failed to initialize NVML[^\n]*)"
)
# A GPU the driver cannot reach (fallen off the bus, a failed GSP): nvidia-smi says so before
# the table, which then lists the other GPUs only ("...for GPU1: 0000:34:00.0: Unknown Error";
# older drivers name the bus alone, "...for GPU0000:08:00.0: Unknown Error", and print no table).
_UNREACHABLE_RE = re.compile(
    r"Unable to determine the device handle for GPU\s*(?:(\d{1,3}):\s*)?"
    r"([0-9A-Fa-f]{3,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)?:?\s*([^\n]*)"
)
_EXCERPT_RE = re.compile(r"^\s*(?:\[\.\.\.\]|\.\.\.|…|<snip>|\[snip\])\s*$", re.IGNORECASE)
_SCAN_BYTES = 65536
# Where the table itself starts on a line (a border or the version banner): a log relay's line
# prefix is what comes before it.
_TABLE_START_RE = re.compile(r"[+|][-=]{3}|\|\s+NVIDIA-SMI\s")


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is the plain ``nvidia-smi`` table (first 64 KiB)."""
    head = text[:_SCAN_BYTES]
    score = 0
    if re.search(r"\|\s*NVIDIA-SMI\s+\d", head):
        score += 60
    if re.search(r"(?:Driver|KMD) Version:", head) and re.search(r"CUDA (?:UMD )?Version:", head):
        score += 10
    if "Persistence-M" in head or "Bus-Id" in head:
        score += 20
    if re.search(r"(?m)^\|[ \t]+\d+[ \t]+\S[^|\n]*\|[ \t]+[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:", head):
        score += 20
    if "NVIDIA-SMI has failed" in head or "Unable to determine the device handle for GPU" in head:
        score += 40
    elif _TOOL_FAILURE_LINE_RE.search(head):
        # nvidia-smi's own lines when NVML finds no GPU or cannot start ("Failed to initialize
        # NVML: Driver/library version mismatch", then "NVML library version: 570.124" on newer
        # drivers): the file is nvidia-smi's, and says why it has no table.
        score += 40
    return min(score, 100)


@dataclass
class _Gpu:
    line: int
    index: int
    name: str
    persistence: str | None
    cells: list[list[str]] = field(default_factory=list)
    # A row that does not end with its closing "|": the paste stops inside the row.
    row_cut: bool = False


def _cells(line: str) -> list[str]:
    inner = line.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|"):
        inner = inner[:-1]
    return inner.split("|")


def _int_or_none(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    return int(value) if re.fullmatch(r"[0-9]{1,15}", value) else None


def parse(text: str) -> ParseResult:
    """Parse the ``nvidia-smi`` table into the figures documented above."""
    warnings: list[str] = []
    versions: tuple[str, str, str | None] | None = None
    gpus: list[_Gpu] = []
    seen: set[int] = set()
    in_table = False
    excerpt = False
    header_seen = False
    has_mig_row = False
    skip_block = False
    failure: tuple[int, str] | None = None
    unreachable: list[dict[str, Any]] = []
    current: _Gpu | None = None
    # The line of a border that stops before its closing "+" (a paste cut inside it).
    cut_border = 0
    last_line = 0

    # A table relayed by `kubectl logs --prefix` (a validator or driver pod), or a CI log.
    lines, _ = strip_line_prefix(text.splitlines(), _TABLE_START_RE)
    for line_no, raw in enumerate(lines, start=1):
        line = raw.strip()
        if line:
            last_line = line_no
        if _EXCERPT_RE.match(line):
            warnings.append(f"line {line_no}: the output was cut by its author ({line})")
            excerpt = True
            continue
        match = _HEADER_RE.search(line)
        if match:
            versions = versions or (match.group(1), match.group(2), match.group(3))
            continue
        match = _UNREACHABLE_RE.search(line)
        if match:
            message = match.group(0).strip()
            index = int(match.group(1)) if match.group(1) else None
            unreachable.append(
                {"index": index, "bus_id": match.group(2), "error": match.group(3).strip() or None}
            )
            warnings.append(f"line {line_no}: nvidia-smi could not reach a GPU: {message}")
            if failure is None:
                failure = (line_no, message)
            continue
        match = _FAILURE_RE.search(line)
        if match and failure is None:
            failure = (line_no, match.group(1).strip())
        if "GPU" in line and "Name" in line and line.startswith("|"):
            header_seen, in_table, has_mig_row = True, False, False
            continue
        if header_seen and not in_table:
            if "MIG M." in line:
                has_mig_row = True
            if line.startswith("|=") or line.startswith("+="):
                in_table = True
            continue
        if not in_table:
            continue
        if not line or line[0] not in "|+" or "Processes:" in line or "MIG devices:" in line:
            in_table = header_seen = False
            current = None
            continue
        if line.startswith("+") or set(line) <= {"|", "-", "+", "="}:
            current, skip_block = None, False
            if line.startswith("+") and not line.endswith("+"):
                cut_border = line_no
            continue
        cells = _cells(line)
        if len(cells) < 2 or skip_block:
            continue
        if current is None:
            current = _start_gpu(cells[0], line_no, warnings)
            if current is None:
                skip_block = True
                continue
            if current.index in seen:
                warnings.append(
                    f"line {line_no}: GPU {current.index} listed again (several nvidia-smi "
                    "runs?); the first listing is kept"
                )
                current, skip_block = None, True
                continue
            seen.add(current.index)
            gpus.append(current)
        current.cells.append([c.strip() for c in cells])
        current.row_cut = not line.endswith("|")

    if not gpus:
        if failure is not None:
            raise EvidenceParseError(
                f"nvidia-smi reported an error: {failure[1]}",
                line=failure[0],
                kind=KIND,
                code="nvidia_smi.tool_error",
                params={"message": failure[1]},
            )
        raise EvidenceParseError(
            "no nvidia-smi GPU table found (expected the '| NVIDIA-SMI ... Driver Version' "
            "header and '|   0  <name>  On | <bus id> ... |' rows)",
            kind=KIND,
            code="nvidia_smi.nothing",
        )
    if versions is None:
        warnings.append("no 'NVIDIA-SMI ... Driver Version' header: versions unknown")
    partial = _partial(gpus, excerpt, has_mig_row)
    if partial is None and gpus and cut_border == last_line:
        # The text ends inside the border after the last GPU block: the table was cut there,
        # and the next GPU may have followed.
        partial = "cut"
    if partial == "index_gap" and _gaps_explained(gpus, unreachable):
        # The missing numbers are the GPUs nvidia-smi said it could not reach: the table is
        # the complete list of the GPUs that work, not an edited one.
        partial = None
    result = _result(gpus, versions, has_mig_row, warnings, partial)
    result.metrics["unreachable_gpus"] = unreachable
    return result


def _gaps_explained(gpus: list[_Gpu], unreachable: list[dict[str, Any]]) -> bool:
    if not unreachable:
        return False
    listed = {g.index for g in gpus}
    missing = set(range(len(gpus) + len(unreachable))) - listed
    named = {u["index"] for u in unreachable if u["index"] is not None}
    if named:
        return named == missing and len(named) == len(unreachable)
    return len(missing) == len(unreachable) and max(listed) < len(gpus) + len(unreachable)


def _partial(gpus: list[_Gpu], excerpt: bool, has_mig_row: bool) -> str | None:
    """Why the table may not list every GPU (see ``gpu_count_partial``), None when it does."""
    if excerpt:
        return "excerpt"
    if sorted(g.index for g in gpus) != list(range(len(gpus))):
        return "index_gap"
    # A GPU block has two rows, three under a "MIG M." header; a last block with fewer, or
    # whose last row stops before its closing "|", was cut, and GPUs after it may be missing.
    last = gpus[-1]
    if len(last.cells) < (3 if has_mig_row else 2) or last.row_cut:
        return "cut"
    return None


def _gpu_cell(cell: str) -> tuple[str, str, str | None] | None:
    r"""The index, name and persistence mode (None when not shown) of a GPU row's first cell, or
    None: what ``^\s*(\d+)\s+(.+?)\s+(On|Off|WDDM|TCC|N/A)\s*$`` or else ``^\s*(\d+)\s+(\S.*?)\s*$``
    read (the name stripped), in linear time."""
    index = _GPU_INDEX_RE.match(cell)
    if index is None:
        return None
    rest = cell[index.end() :]
    body = rest.rstrip()
    for mode in _PERSISTENCE_MODES:
        before = body[: -len(mode)]
        if body.endswith(mode) and before[-1:].isspace():
            name = before.strip()
            # Blanks alone between the index and the mode are a name of one blank, when there
            # are three of them: one before it, one after it.
            if name or len(before) >= 3:
                return index.group(1), name, mode
            break
    name = rest.strip()
    return (index.group(1), name, None) if name else None


def _start_gpu(cell: str, line_no: int, warnings: list[str]) -> _Gpu | None:
    read = _gpu_cell(cell)
    if read is None:
        warnings.append(f"line {line_no}: unreadable GPU table line ignored")
        return None
    index, name, persistence = read
    return _Gpu(line_no, int(index), name, persistence)


def _gpu_info(gpu: _Gpu, has_mig_row: bool) -> dict[str, Any]:
    first = gpu.cells[0] + ["", "", ""]
    second = gpu.cells[1] + ["", "", ""] if len(gpu.cells) > 1 else ["", "", ""]
    third = gpu.cells[2] + ["", "", ""] if len(gpu.cells) > 2 else ["", "", ""]
    bus = _BUS_RE.search(first[1])
    memory = _MEMORY_RE.search(second[1])
    power = _POWER_RE.search(second[0])
    state = second[0].split()
    fan = state[0] if state else None
    temperature = state[1] if len(state) > 1 else None
    perf = next((t for t in state if re.fullmatch(r"P\d+", t)), None)
    utilisation = second[2].split()
    mig_raw = third[2].strip() if has_mig_row and len(gpu.cells) > 2 else ""
    mig_mode = mig_raw.rstrip("*") or None
    if mig_mode in ("N/A", ""):
        mig_mode = None
    cap = power.group(2) if power else None
    return {
        "index": gpu.index,
        "name": gpu.name,
        "persistence_mode": gpu.persistence,
        "bus_id": bus.group(1).upper() if bus else None,
        "display_active": bus.group(2) if bus else None,
        "ecc_volatile_uncorrected": _int_or_none(first[2]),
        "ecc_cell": first[2].strip() or None,
        "fan": None if fan in (None, "N/A") else fan,
        "temperature": None if temperature in (None, "N/A") else temperature,
        "perf_state": perf,
        "power_cap_w": float(cap[:-1]) if cap and cap != "N/A" else None,
        "memory_used_mib": int(memory.group(1)) if memory else None,
        "memory_total_mib": int(memory.group(2)) if memory else None,
        "gpu_utilization": utilisation[0] if utilisation else None,
        "compute_mode": utilisation[1] if len(utilisation) > 1 else None,
        "mig_mode": mig_mode,
        "mig_mode_pending": mig_raw.endswith("*"),
    }


def _is_vgpu(name: str) -> bool:
    # GRID boards and vGPU profiles ("A100-4C", "V100D-8C", "T4-16Q") only show up inside
    # virtual machines; a bare-metal GPU name never ends in a profile suffix.
    return bool(re.search(r"(?:^|\s)GRID(?:\s|$)", name) or _VGPU_PROFILE_RE.search(name))


def _result(
    gpus: list[_Gpu],
    versions: tuple[str, str, str | None] | None,
    has_mig_row: bool,
    warnings: list[str],
    partial: str | None = None,
) -> ParseResult:
    infos = [_gpu_info(gpu, has_mig_row) for gpu in gpus]
    for gpu, info in zip(gpus, infos, strict=True):
        if len(gpu.cells) < 2:
            warnings.append(f"line {gpu.line}: GPU {gpu.index} block is incomplete (truncated?)")
        if info["memory_total_mib"] is None:
            shown = gpu.cells[1][1] if len(gpu.cells) > 1 and len(gpu.cells[1]) > 1 else ""
            warnings.append(f"GPU {gpu.index}: memory size not shown ('{shown}')")
        if gpu.name.endswith("..."):
            warnings.append(f"GPU {gpu.index}: name truncated by nvidia-smi ('{gpu.name}')")
    ecc = [i["ecc_volatile_uncorrected"] for i in infos]
    ecc_numbers = [v for v in ecc if v is not None]
    vgpu_models = [i["name"] for i in infos if _is_vgpu(i["name"])]
    cuda = versions[2] if versions else None
    metrics: dict[str, Any] = {
        "driver_version": versions[1] if versions else None,
        "cuda_version": None if cuda in (None, "N/A") else cuda,
        "nvidia_smi_version": versions[0] if versions else None,
        "gpu_count": len(infos),
        "gpu_count_partial": partial,
        "gpu_names": [i["name"] for i in infos],
        "memory_total_mib": [i["memory_total_mib"] for i in infos],
        "memory_used_mib": [i["memory_used_mib"] for i in infos],
        "mig_mode": [i["mig_mode"] for i in infos],
        "mig_mode_pending": [i["mig_mode_pending"] for i in infos],
        "ecc_volatile_uncorrected": ecc,
        "ecc_volatile_uncorrected_total": sum(ecc_numbers) if ecc_numbers else None,
        "vgpu": bool(vgpu_models),
        "vgpu_models": vgpu_models,
        "bus_ids": [i["bus_id"] for i in infos],
        "persistence_mode": [i["persistence_mode"] for i in infos],
        "power_cap_w": [i["power_cap_w"] for i in infos],
        "gpus": infos,
    }
    if vgpu_models:
        warnings.append("vGPU/GRID model(s) listed: " + ", ".join(dict.fromkeys(vgpu_models)))
    placeholder = placeholder_gpu_name_warning(metrics["gpu_names"])
    if placeholder:
        warnings.append(placeholder)
    facts = [Fact("gpu_count", float(len(infos)), "count", gpus[0].line)]
    for gpu, info in zip(gpus, infos, strict=True):
        if info["memory_total_mib"] is not None:
            details = {"gpu": gpu.index, "name": gpu.name}
            facts.append(
                Fact(
                    "gpu_memory_total_mib",
                    float(info["memory_total_mib"]),
                    "MiB",
                    gpu.line,
                    details,
                )
            )
    return ParseResult(KIND, metrics, tuple(facts), tuple(warnings))
