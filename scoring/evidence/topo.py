"""Parser for ``nvidia-smi topo -m`` (``--matrix``): GPU/NIC interconnect matrix and affinities.

Handles tab- and space-separated tables (tabs are often turned into spaces by copy/paste),
old ``mlx5_N`` / ``mlx4_0`` NIC columns and new ``NICn`` columns with a "NIC Legend:" block,
"CPU Affinity", "NUMA Affinity" and "GPU NUMA ID" columns, the old ``SOC`` code (now ``SYS``),
truncated matrices, a header underlined with terminal escapes (newer drivers print them even
into a file), cells printed without the tab between them in wide matrices ("NODENODE" is two
cells) and column names likewise in the header ("NIC8NIC9" is two NICs), and a
``topo -p2p`` table pasted after it (ignored); a file holding a ``topo -p2p`` status table
alone is refused as such (``topo.p2p_only``).

metrics
    gpu_count            GPU columns in the header.
    gpu_count_partial    "index_gap" when the header's GPU columns are not GPU0..GPU<n-1>
                         (nvidia-smi numbers every GPU, so a missing one was hidden): gpu_count
                         is then a lower bound; None otherwise (missing rows do not matter, the
                         header names every GPU).
    nic_count            NIC columns in the header (any non-GPU device column).
    nvlink_pairs         unordered GPU pairs joined by NV#.
    full_nvlink_mesh     every GPU pair is NV# (None with fewer than 2 GPUs or missing cells).
    nvlink_min_links / nvlink_max_links   smallest / largest NV# over NVLink pairs (None if none).
    gpu_nvlink_links     GPU -> total NVLinks to the other GPUs (sum of its NV# cells).
    gpu_pair_links       connection code -> number of GPU pairs, e.g. {"NV12": 28} or {"PIX": 1}.
    matrix               row label -> {column label -> code} as printed ("X", "NV12", "PXB"...).
    nic_names            NIC device names (from the legend or the column names), column order.
    gpu_affinity         GPU -> {"cpu_affinity", "numa_affinity", "gpu_numa_id"} (None if N/A
                         or blank: a blank CPU Affinity cell keeps its place in a tab-separated
                         row, the NUMA affinity is not read in its stead).
    numa_nodes           distinct NUMA affinity values of the GPUs.
    gpu_nic_affinity     GPU -> {"link": closest code, "nics": NIC names at that distance}.
    gpus_with_local_nic  GPUs having a NIC behind the same PCIe switch tree (PIX or PXB).
facts: ``gpu_count``, ``nic_count``, ``nvlink_pairs``.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult

KIND = "nvidia_smi_topo"

_GPU_RE = re.compile(r"^GPU\d+$")
_DEVICE_RE = re.compile(r"^(?:GPU\d+|NIC\d+|[A-Za-z][A-Za-z0-9.-]*_\d+|[A-Za-z]+\d+)$")
_CELL_RE = re.compile(r"^(?:X|NV\d{1,4}|PIX|PXB|PHB|NODE|SYS|SOC|PSB|C2C)$")
_P2P_CELLS = {"OK", "NS", "CNS", "GNS", "TNS", "U", "CNP"}
_LEGEND_NIC_RE = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_EXCERPT_RE = re.compile(r"^\s*(?:\[\.\.\.\]|\.\.\.|…|<snip>|\[snip\])\s*$", re.IGNORECASE)
_AFFINITY_NAMES = (
    (("CPU", "Affinity"), "cpu_affinity"),
    (("NUMA", "Affinity"), "numa_affinity"),
    (("GPU", "NUMA", "ID"), "gpu_numa_id"),
    # Headers shortened by hand or by a terminal too narrow for them ("NUMA  GPU NUMA").
    (("GPU", "NUMA"), "gpu_numa_id"),
    (("NUMA",), "numa_affinity"),
)
# Distance order of the codes: lower is closer (used to find each GPU's nearest NIC).
_DISTANCE = {"X": 0, "PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5, "SOC": 5, "PSB": 2}
_LOCAL_NIC = {"PIX", "PXB", "PSB"}
# Newer drivers underline the header with terminal escapes ("\x1b[4m ... \x1b[0m") even when
# the output goes to a file; a pasted copy may keep them.
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Cells printed without the tab between them ("NODENODE", "PIXNODE", seen in wide matrices):
# a token made only of connection codes is split back into its cells.
_FUSED_RE = re.compile(r"(?:X|NV\d{1,2}|PIX|PXB|PHB|NODE|SYS|SOC|PSB|C2C){2,}")
_FUSED_PART_RE = re.compile(r"NV\d{1,2}|PIX|PXB|PHB|NODE|SYS|SOC|PSB|C2C|X")
# Column names printed without the blank between them in a wide header ("NIC7    NIC8NIC9"
# when a name fills its column): split back into the names.
_FUSED_NAMES_RE = re.compile(r"(?:GPU\d+|NIC\d+|mlx\d_\d+){2,}")
_FUSED_NAME_RE = re.compile(r"GPU\d+|NIC\d+|mlx\d_\d+")
_SCAN_BYTES = 65536
_MAX_DEVICES = 512  # far above any server (72 GPUs + NICs); bounds the O(n^2) pair work


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is ``nvidia-smi topo -m`` output (first 64 KiB)."""
    head = text[:_SCAN_BYTES]
    score = 0
    if re.search(r"(?m)^[ \t]*GPU0[ \t]+(?:GPU1|NIC0|mlx\d_\d+|CPU\s+Affinity)\b", head):
        score += 40
    if re.search(r"(?m)^[ \t]*GPU\d+[ \t]+(?:X[ \t]+)?(?:NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)\b", head):
        score += 40
    if re.search(r"NV#\s*=\s*Connection traversing a bonded set", head):
        score += 20
    if re.search(r"(?m)^[ \t]*(?:PIX|PHB)[ \t]*=[ \t]*(?:Connection|Path) travers", head):
        score += 15
    if "CPU Affinity" in head:
        score += 10
    return min(score, 100)


_RULE_RE = re.compile(r"^\s*[-=+]{10,}\s*$")


def _header(tokens: list[str]) -> tuple[list[str], list[str]] | None:
    """Split a header's tokens into device columns and affinity columns, or None."""
    if not tokens or tokens[0] != "GPU0":
        return None
    if len(tokens) > 1 and (_CELL_RE.match(tokens[1].upper()) or tokens[1].upper() in _P2P_CELLS):
        return None  # a matrix row ("GPU0  X  NV12 ..."), not the header
    devices: list[str] = []
    index = 0
    while index < len(tokens):
        if _DEVICE_RE.match(tokens[index]):
            devices.append(tokens[index])
        elif _FUSED_NAMES_RE.fullmatch(tokens[index]):
            devices.extend(_FUSED_NAME_RE.findall(tokens[index]))
        else:
            break
        index += 1
    extras: list[str] = []
    while index < len(tokens):
        for words, name in _AFFINITY_NAMES:
            if tuple(tokens[index : index + len(words)]) == words:
                extras.append(name)
                index += len(words)
                break
        else:
            extras.append(tokens[index].lower())
            index += 1
    return devices, extras


def _row_cells(tokens: list[str], width: int) -> tuple[list[str], int]:
    """The first ``width`` connection cells of a matrix row (fused cells split apart) and how
    many tokens after the row label they took."""
    cells: list[str] = []
    used = 0
    for token in tokens[1:]:
        if len(cells) >= width:
            break
        used += 1
        upper = token.upper()
        if len(upper) > 3 and _FUSED_RE.fullmatch(upper):
            cells.extend(_FUSED_PART_RE.findall(upper))
        else:
            cells.append(upper)
    return cells[:width], used


def _affinity_values(raw: str, tokens: list[str], used: int, extras: list[str]) -> list[str]:
    """The affinity cells after a row's connection cells. Split on blanks, a blank CPU Affinity
    cell of a tab-separated row would vanish and shift the NUMA affinity into its place
    ("...NODE<tab><tab>0<tab><tab>N/A"): there the blank cell is kept, as ""."""
    values = tokens[1 + used :]
    if "\t" not in raw or not extras or extras[0] != "cpu_affinity":
        return values
    fields = [field.strip() for field in raw.split("\t")]
    if [f.upper() for f in fields[: 1 + used]] != [t.upper() for t in tokens[: 1 + used]]:
        return values  # not one cell per tab (fused or blank-separated cells)
    rest = fields[1 + used :]
    if rest and not rest[0] and any(rest):
        return ["", *values]
    return values


def _none_if_na(value: str | None) -> str | None:
    return None if value is None or value.upper() in ("N/A", "") else value


def parse(text: str) -> ParseResult:
    """Parse one ``nvidia-smi topo -m`` matrix into the figures documented above."""
    warnings: list[str] = []
    devices: list[str] | None = None
    extras: list[str] = []
    header_line = 0
    rows: dict[str, tuple[int, list[str], list[str]]] = {}
    legend: dict[str, str] = {}
    in_table = False
    unknown_cells: set[str] = set()
    ignored_tables = 0

    for line_no, raw in enumerate(text.splitlines(), start=1):
        if _EXCERPT_RE.match(raw):
            warnings.append(f"line {line_no}: the output was cut by its author ({raw.strip()})")
            continue
        match = _LEGEND_NIC_RE.match(raw)
        if match:
            legend[match.group(1)] = match.group(2)
            continue
        if "\x1b" in raw:
            raw = _ANSI_RE.sub("", raw)
        tokens = raw.split()
        if not tokens:
            in_table = False
            continue
        found = _header(tokens)
        if found is not None and found[0]:
            if devices is None:
                devices, extras = found
                header_line = line_no
                in_table = True
                if len(devices) > _MAX_DEVICES:
                    raise EvidenceParseError(
                        f"implausible matrix: {len(devices)} device columns (at most "
                        f"{_MAX_DEVICES} expected)",
                        line=line_no,
                        kind=KIND,
                        code="topo.too_many_devices",
                        params={"devices": len(devices), "max": _MAX_DEVICES},
                    )
            else:
                in_table = False
                ignored_tables += 1
            continue
        if in_table and not rows and _RULE_RE.match(raw):
            continue  # a dashed line a person (or a wrapper script) drew under the header
        if not in_table or devices is None or tokens[0] not in devices:
            in_table = False
            continue
        cells, used = _row_cells(tokens, len(devices))
        if rows == {} and cells and all(c in _P2P_CELLS | {"X"} for c in cells):
            # A `topo -p2p` status table came first: not the topology matrix.
            devices, in_table, ignored_tables = None, False, ignored_tables + 1
            continue
        if len(cells) < len(devices) and cells and not _CELL_RE.match(cells[-1]):
            # A line cut inside its last cell ("NV" of "NV18"): that cell is no code, and
            # read as one it made the matrix look asymmetric.
            cells = cells[:-1]
        unknown_cells.update(c for c in cells if not _CELL_RE.match(c))
        if tokens[0] in rows:
            warnings.append(f"line {line_no}: row {tokens[0]} repeated; the first one is kept")
            continue
        rows[tokens[0]] = (line_no, cells, _affinity_values(raw, tokens, used, extras))
        if len(cells) < len(devices):
            warnings.append(
                f"line {line_no}: row {tokens[0]} has {len(cells)} of {len(devices)} cells "
                "(truncated line?)"
            )

    if devices is None and ignored_tables:
        # Only a `topo -p2p` table (peer-to-peer status: OK, GNS, CNS... per GPU pair): it says
        # whether P2P works, not how the GPUs are connected.
        raise EvidenceParseError(
            "an 'nvidia-smi topo -p2p' status table (OK / GNS / CNS per GPU pair) and no "
            "'nvidia-smi topo -m' matrix: it says whether peer-to-peer works, not how GPUs connect",
            kind=KIND,
            code="topo.p2p_only",
        )
    if devices is None:
        raise EvidenceParseError(
            "no 'nvidia-smi topo -m' matrix found (expected a header line starting with GPU0 "
            "and rows such as 'GPU0  X  NV12 ...')",
            kind=KIND,
            code="topo.nothing",
        )
    gpus = [d for d in devices if _GPU_RE.match(d)]
    if not any(g in rows for g in gpus):
        raise EvidenceParseError(
            "the topology header has no GPU rows below it",
            line=header_line,
            kind=KIND,
            code="topo.no_rows",
        )
    if unknown_cells:
        warnings.append("unknown connection code(s): " + ", ".join(sorted(unknown_cells)))
    if ignored_tables:
        warnings.append(f"{ignored_tables} other matrix table(s) ignored (topo -p2p?)")
    missing = [d for d in devices if d not in rows]
    if missing:
        warnings.append(
            "rows missing for " + ", ".join(missing) + " (truncated output?); figures use the "
            "cells that are present"
        )
    return _result(devices, extras, rows, legend, warnings)


def _cell(
    rows: dict[str, tuple[int, list[str], list[str]]], position: dict[str, int], a: str, b: str
) -> str | None:
    row = rows.get(a)
    if row is None:
        return None
    index = position[b]
    return row[1][index] if index < len(row[1]) else None


def _result(
    devices: list[str],
    extras: list[str],
    rows: dict[str, tuple[int, list[str], list[str]]],
    legend: dict[str, str],
    warnings: list[str],
) -> ParseResult:
    gpus = [d for d in devices if _GPU_RE.match(d)]
    nics = [d for d in devices if not _GPU_RE.match(d)]
    position = {device: index for index, device in enumerate(devices)}
    matrix = {
        label: {devices[i]: cell for i, cell in enumerate(cells) if i < len(devices)}
        for label, (_, cells, _) in rows.items()
    }
    pair_links: dict[str, int] = {}
    nv_counts: list[int] = []
    gpu_links = {gpu: 0 for gpu in gpus}
    unknown_pairs = 0
    asymmetric: list[str] = []
    for a, b in combinations(gpus, 2):
        forward, backward = _cell(rows, position, a, b), _cell(rows, position, b, a)
        code = forward or backward
        if code is None:
            unknown_pairs += 1
            continue
        if forward and backward and forward != backward:
            asymmetric.append(f"{a}-{b}")
        pair_links[code] = pair_links.get(code, 0) + 1
        bonded = re.fullmatch(r"NV(\d{1,4})", code)
        if bonded:
            nv_counts.append(int(bonded.group(1)))
            gpu_links[a] += int(bonded.group(1))
            gpu_links[b] += int(bonded.group(1))
    if asymmetric:
        warnings.append("matrix not symmetric for " + ", ".join(asymmetric))
    pairs_total = len(gpus) * (len(gpus) - 1) // 2
    full_mesh: bool | None = None
    if len(gpus) >= 2:
        full_mesh = len(nv_counts) == pairs_total if not unknown_pairs else None
        if unknown_pairs and len(nv_counts) < pairs_total - unknown_pairs:
            full_mesh = False
    nic_names = [legend.get(nic, nic) for nic in nics]
    if any(re.match(r"^NIC\d+$", nic) and nic not in legend for nic in nics):
        warnings.append("no 'NIC Legend:' block: NIC device names are unknown (NICn kept)")
    affinity: dict[str, dict[str, str | None]] = {}
    for gpu in gpus:
        values = rows[gpu][2] if gpu in rows else []
        named = dict(zip(extras, values, strict=False))
        affinity[gpu] = {
            "cpu_affinity": _none_if_na(named.get("cpu_affinity")),
            "numa_affinity": _none_if_na(named.get("numa_affinity")),
            "gpu_numa_id": _none_if_na(named.get("gpu_numa_id")),
        }
    blank = [gpu for gpu in gpus if gpu in rows and rows[gpu][2][:1] == [""]]
    if blank:
        warnings.append("CPU Affinity cell blank for " + ", ".join(blank))
    nic_affinity: dict[str, dict[str, Any]] = {}
    for gpu in gpus:
        best, names = None, []
        for nic, name in zip(nics, nic_names, strict=True):
            code = _cell(rows, position, gpu, nic) or _cell(rows, position, nic, gpu)
            if code not in _DISTANCE:
                continue
            if best is None or _DISTANCE[code] < _DISTANCE[best]:
                best, names = code, [name]
            elif code == best:
                names.append(name)
        nic_affinity[gpu] = {"link": best, "nics": names}
    numa_nodes = sorted({a["numa_affinity"] for a in affinity.values() if a["numa_affinity"]})
    metrics: dict[str, Any] = {
        "gpu_count": len(gpus),
        "nic_count": len(nics),
        "nvlink_pairs": len(nv_counts),
        "full_nvlink_mesh": full_mesh,
        "nvlink_min_links": min(nv_counts) if nv_counts else None,
        "nvlink_max_links": max(nv_counts) if nv_counts else None,
        "gpu_nvlink_links": gpu_links,
        "gpu_pair_links": dict(sorted(pair_links.items())),
        "matrix": matrix,
        "nic_names": nic_names,
        "gpu_affinity": affinity,
        "numa_nodes": numa_nodes,
        "gpu_nic_affinity": nic_affinity,
        "gpus_with_local_nic": sum(1 for a in nic_affinity.values() if a["link"] in _LOCAL_NIC),
        "gpu_count_partial": (
            None if sorted(int(g[3:]) for g in gpus) == list(range(len(gpus))) else "index_gap"
        ),
    }
    header = rows[gpus[0]][0] if gpus and gpus[0] in rows else None
    facts = (
        Fact("gpu_count", float(len(gpus)), "count", header),
        Fact("nic_count", float(len(nics)), "count", header),
        Fact("nvlink_pairs", float(len(nv_counts)), "count", header),
    )
    return ParseResult(KIND, metrics, facts, tuple(warnings))
