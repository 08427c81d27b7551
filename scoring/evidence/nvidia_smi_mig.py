"""Parser for ``nvidia-smi mig -lgi`` / ``-lci`` / ``-lgip`` / ``-lcip`` tables: MIG instances and
profiles.

Rows are read by pattern after removing the table borders, so narrower or wider column
layouts of other driver versions, doubled ``||`` borders (markdown escaping) and collapsed
whitespace all read the same. Rows pasted without their table's heading are read by their
shape, with a warning. "No MIG-enabled devices found" gives an empty, valid result.

metrics
    gpu_instances       -lgi rows: gpu, profile ("3g.20gb"), profile_id, instance_id,
                        placement_start, placement_size.
    compute_instances   -lci rows: gpu, gpu_instance_id, profile ("1c.3g.20gb"), profile_id,
                        instance_id, placement_start/size (None on older drivers).
    profiles            -lgip rows: gpu, profile, profile_id, free, total, memory_gib, p2p, sm.
    compute_instance_profiles   -lcip rows (the compute instance profiles of one GPU instance):
                        gpu, gpu_instance_id, profile ("1c.3g.20gb"), profile_id, default (the
                        "*" nvidia-smi puts after the profile a bare ``-cci`` creates), free,
                        total, sm. A listing printed again for the same GPU instance (before and
                        after a ``-cci``) replaces the earlier rows: the last one is the state.
    gpu_instance_count, compute_instance_count, profile_count, compute_instance_profile_count.
    gpu_instance_profiles   distinct profiles of the GPU instances, in order.
    gpus                distinct GPU indexes seen; ``tables`` which tables were found.
    mig_enabled         False when nvidia-smi said no MIG-enabled device, else True.
facts: ``mig_gpu_instance_count`` and ``mig_compute_instance_count`` (unit "count").
"""

from __future__ import annotations

import re
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, strip_annotation

KIND = "nvidia_smi_mig"

_TITLES = {
    "gpu instances:": "lgi",
    "compute instances:": "lci",
    "gpu instance profiles:": "lgip",
    "compute instance profiles:": "lcip",
}
_GI_RE = re.compile(r"^(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+):(\d+)$")
_CI_RE = re.compile(r"^(\d+)\s+(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)(?:\s+(\d+):(\d+))?$")
_GIP_RE = re.compile(
    r"^(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)/(\d+)\s+(\d+(?:\.\d+)?)\s+(Yes|No)\s+(\d+)\b"
)
# -lcip: "0  2  MIG 4g.20gb  3*  1/1  56  2  0  0" (GPU, GPU instance, name, profile ID with "*"
# on the default profile, free/total, exclusive SM, then the shared engines).
_CIP_RE = re.compile(r"^(\d+)\s+(\d+)\s+MIG\s+(\S+)\s+(\d+)(\*?)\s+(\d+)/(\d+)\s+(\d+)\b")
_NONE_RE = re.compile(r"No MIG-enabled devices found|No GPU instances found|"
                      r"No compute instances found", re.IGNORECASE)  # fmt: skip


def _row(raw: str) -> str:
    line = strip_annotation(raw.strip())
    line = line.strip("|").strip()
    return re.sub(r"\s+", " ", line)


# Each table's rows have a shape of their own ("3/7" free/total only in the profile tables, a
# "0:4" placement only in the instance ones, two numbers before "MIG" only in the compute
# ones), so a row read without its table's heading still says which table it belongs to.
_ROW_SHAPES = (("lgip", _GIP_RE), ("lcip", _CIP_RE), ("lci", _CI_RE), ("lgi", _GI_RE))


def _row_table(raw: str) -> str | None:
    """The table whose row shape ``raw`` has, or None (only lines naming MIG are tried)."""
    if "MIG" not in raw or len(raw) > 400:
        return None
    line = _row(raw)
    return next((table for table, shape in _ROW_SHAPES if shape.match(line)), None)


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is an ``nvidia-smi mig -l...`` listing."""
    try:
        head = text[:65536].lower()
        if any(f"| {t}" in head or f"|| {t}" in head for t in _TITLES):
            return 95
        if "no mig-enabled devices found" in head and len(head.strip()) < 400:
            return 70
        if sum(1 for raw in text[:65536].splitlines() if _row_table(raw)) >= 2:
            # Rows whose table heading was cut off: their shape still names the table.
            return 60
        return 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def parse(text: str) -> ParseResult:
    """Parse MIG GPU-instance, compute-instance and profile tables."""
    table: str | None = None
    tables: list[str] = []
    gis: list[dict[str, Any]] = []
    cis: list[dict[str, Any]] = []
    profiles: list[dict[str, Any]] = []
    cips: dict[tuple[int, int, int], dict[str, Any]] = {}
    none_line: int | None = None
    headless_line: int | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _row(raw)
        if not line or set(line) <= set("+-=| "):
            continue
        title = _TITLES.get(line.lower())
        if title:
            table = title
            tables.append(title)
            continue
        if table is None and (shape := _row_table(raw)) is not None:
            # The listing starts below its heading (a cut paste): the row's shape names it.
            table, headless_line = shape, number
            tables.append(shape)
        if _NONE_RE.search(line):
            none_line = none_line or number
            continue
        if table == "lgi":
            match = _GI_RE.match(line)
            if match:
                gis.append(
                    {"gpu": int(match.group(1)), "profile": match.group(2),
                     "profile_id": int(match.group(3)), "instance_id": int(match.group(4)),
                     "placement_start": int(match.group(5)),
                     "placement_size": int(match.group(6)), "line": number}
                )  # fmt: skip
        elif table == "lci":
            match = _CI_RE.match(line)
            if match:
                cis.append(
                    {"gpu": int(match.group(1)), "gpu_instance_id": int(match.group(2)),
                     "profile": match.group(3), "profile_id": int(match.group(4)),
                     "instance_id": int(match.group(5)),
                     "placement_start": int(match.group(6)) if match.group(6) else None,
                     "placement_size": int(match.group(7)) if match.group(7) else None,
                     "line": number}
                )  # fmt: skip
        elif table == "lcip":
            match = _CIP_RE.match(line)
            if match:
                gpu, gi, profile_id = int(match.group(1)), int(match.group(2)), int(match.group(4))
                cips.pop((gpu, gi, profile_id), None)  # a later listing is the current state
                cips[(gpu, gi, profile_id)] = {
                    "gpu": gpu, "gpu_instance_id": gi, "profile": match.group(3),
                    "profile_id": profile_id, "default": match.group(5) == "*",
                    "free": int(match.group(6)), "total": int(match.group(7)),
                    "sm": int(match.group(8)), "line": number,
                }  # fmt: skip
        elif table == "lgip":
            match = _GIP_RE.match(line)
            if match:
                profiles.append(
                    {"gpu": int(match.group(1)), "profile": match.group(2),
                     "profile_id": int(match.group(3)), "free": int(match.group(4)),
                     "total": int(match.group(5)), "memory_gib": float(match.group(6)),
                     "p2p": match.group(7) == "Yes", "sm": int(match.group(8)),
                     "line": number}
                )  # fmt: skip
    if not tables and none_line is None:
        raise EvidenceParseError(
            "no MIG table found (expected 'nvidia-smi mig -lgi' / '-lci' / '-lgip' / '-lcip' "
            "output)",
            kind=KIND,
            code="nvidia_smi_mig.nothing",
        )
    warnings: list[str] = []
    if none_line is not None:
        warnings.append(f"line {none_line}: nvidia-smi found no MIG instance or MIG device")
    if headless_line is not None:
        warnings.append(
            f"line {headless_line}: rows without their table heading (the listing was cut "
            f"above them): read as -{tables[0]} rows by their shape; rows before may be missing"
        )
    compute_profiles = list(cips.values())
    if tables and not (gis or cis or profiles or compute_profiles) and none_line is None:
        warnings.append("MIG table heading found but no row could be read")
    seen = set()
    for gi in gis:
        key = (gi["gpu"], gi["instance_id"])
        if key in seen:
            warnings.append(f"GPU {gi['gpu']} GPU instance {gi['instance_id']} listed twice")
        seen.add(key)
    for rows in (gis, cis, profiles, compute_profiles):
        for row in rows:
            row.pop("line")
    gpus = sorted({r["gpu"] for r in (*gis, *cis, *profiles, *compute_profiles)})
    metrics: dict[str, Any] = {
        "gpu_instances": gis,
        "compute_instances": cis,
        "profiles": profiles,
        "gpu_instance_count": len(gis),
        "compute_instance_count": len(cis),
        "profile_count": len(profiles),
        "compute_instance_profiles": compute_profiles,
        "compute_instance_profile_count": len(compute_profiles),
        "gpu_instance_profiles": list(dict.fromkeys(g["profile"] for g in gis)),
        "gpus": gpus,
        "tables": tables,
        "mig_enabled": not (none_line is not None and "mig-enabled" in text.lower()),
    }
    facts = (
        Fact("mig_gpu_instance_count", float(len(gis)), "count"),
        Fact("mig_compute_instance_count", float(len(cis)), "count"),
    )
    return ParseResult(kind=KIND, metrics=metrics, facts=facts, warnings=tuple(warnings))
