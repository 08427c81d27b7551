"""Parser for ``nvidia-smi -q`` (full or excerpts) and ``nvidia-smi --query-gpu=... --format=csv``.

``-q`` is an indented "key : value" tree with one block per "GPU 00000000:07:00.0" header; the
parser keeps every value under its section path, so it reads old (Single/Double Bit ECC,
"Memory Usage ... Mb") and new (SRAM/DRAM counters, Remapped Rows, "FB Memory Usage") layouts
alike. Excerpts (``[...]``, ``grep -A2`` output without a GPU header) are accepted and the
absence of a figure is reported as None; an -d ECC / ROW_REMAPPER excerpt whose "ECC Mode",
"ECC Errors", "Remapped Rows" or "Retired Pages" section starts at column 0 without a GPU
header is read as one GPU's block; a report that ends on a section heading or a word with no
value ("    Mult", cut inside "MultiGPU Board") is flagged as cut there, its later values missing.
CSV output is read with or without its header (the
``--query-gpu=`` command line then names the columns) and with or without units.

This module detects the kind and picks the format; nvidia_smi_query_tree reads -q,
nvidia_smi_query_csv the CSV, and both build their result in nvidia_smi_query_values.

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
    c2c_mode             per GPU, "GPU C2C Mode" of -q: "Enabled" or "Disabled" (the NVLink-C2C
                         link of a Grace superchip's GPU to its CPU), None for N/A or not shown.
    c2c_enabled_gpus     GPUs whose mode is "Enabled"; None when no GPU shows a mode. x86 drivers
                         of the 545 series print "Disabled" on GPUs that have no such link.
    format               "q" or "csv".
facts: ``gpu_count``, ``c2c_enabled_gpus`` and the error counters above when they are known.
"""

from __future__ import annotations

import re

from .base import ParseResult
from .nvidia_smi_query_csv import parse_csv
from .nvidia_smi_query_tree import parse_q
from .nvidia_smi_query_values import BRANDS, FIELD_RE, KIND, SCAN_BYTES

__all__ = ["KIND", "detect", "parse"]

_COMMAND_RE = re.compile(r"nvidia-smi\s")
_QUERY_FLAG_RE = re.compile(r"\s-q\b")


def _names_query_command(head: str) -> bool:
    r"""Whether ``head`` holds "nvidia-smi" and, after it and a blank, a "-q" word: what
    ``nvidia-smi\s+(?:\S+\s+)*-q\b`` finds (its words may run over lines), in linear time. That
    search went over the rest of the head from every "nvidia-smi" (quadratic: 2.8 s for 64 KB
    of "nvidia-smi" lines)."""
    command = _COMMAND_RE.search(head)
    return command is not None and _QUERY_FLAG_RE.search(head, command.end() - 1) is not None


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is ``nvidia-smi -q`` or ``--query-gpu`` CSV output."""
    head = text[:SCAN_BYTES]
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
    if _names_query_command(head):
        score += 30
    if re.search(r"(?m)^[ \t]+Virtualization Mode[ \t]+:", head):
        score += 20
    if re.search(
        r"(?m)^(?:name|pci\.bus_id|index|uuid|driver_version|memory\.total \[MiB\])"
        r"(?:, [a-z0-9_.]+(?: \[[^\]\n]+\])?)+[ \t]*$",
        head,
    ):
        score += 50
    if score == 0 and _headerless_csv_rows(head):
        score = 50
    return min(score, 100)


def _headerless_csv_rows(head: str) -> bool:
    """Whether every line of ``head`` is a ``--format=csv,noheader`` row naming a GPU ("NVIDIA
    A100-SXM4-80GB, 81920 MiB"): values split by ", ", one of them a product name. Such a listing
    shows neither the command nor the column names."""
    lines = [line.strip() for line in head.splitlines() if line.strip()]
    if not lines or len(lines) > 1024:
        return False
    for line in lines:
        fields = line.split(", ")
        if len(fields) < 2 or not any(f.startswith(BRANDS) for f in fields):
            return False
        if any(not f or (":" in f and not re.fullmatch(r"[0-9A-Fa-f:.]+", f)) for f in fields):
            return False
    return True


def parse(text: str) -> ParseResult:
    """Parse ``nvidia-smi -q`` or ``--query-gpu`` CSV output into the figures above."""
    if _looks_like_csv(text):
        return parse_csv(text)
    return parse_q(text)


def _looks_like_csv(text: str) -> bool:
    head = text[:SCAN_BYTES]
    if re.search(r"(?m)^[ \t]+\S[^:\n]*?[ \t]:[ \t]", head) or "NVSMI LOG" in head:
        return False
    if "--query-gpu" in head:
        return True
    for line in head.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) > 1 and (
            all(FIELD_RE.match(f) for f in fields) or any(f.startswith(BRANDS) for f in fields)
        ):
            return True
    return False
