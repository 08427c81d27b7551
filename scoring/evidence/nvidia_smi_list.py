"""Parser for ``nvidia-smi -L``: the GPUs and MIG devices with their UUIDs.

Reads the current layout (``MIG 3g.40gb     Device  0: (UUID: MIG-<uuid>)``), the R450/R460
layout (``MIG 1c.3g.20gb Device 0: (UUID: MIG-GPU-<gpu uuid>/<gi>/<ci>)``) and a MIG-only
listing run inside a container (no ``GPU n:`` line).

metrics
    gpu_count, gpu_names, gpu_uuids   the physical GPUs listed (``GPU n: <name> (UUID: GPU-...)``),
                    each UUID once (the lists of containers sharing a GPU repeat it), and so
                    for the MIG devices.
    gpus            per GPU: index, name, uuid, mig_count.
    mig_count       MIG devices listed; ``mig_devices``: gpu_index (None when no GPU line),
                    profile ("3g.40gb", "1c.3g.20gb"), device, uuid, gi/ci (legacy UUIDs only).
    mig_profiles    distinct MIG profiles, in order; ``mig_enabled`` True when any MIG device.
    uuid_format     "mig" (MIG-<uuid>) or "legacy" (MIG-GPU-<uuid>/gi/ci) or None.
facts: ``gpu_count`` and ``mig_count`` (unit "count").
"""

from __future__ import annotations

import re
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, strip_annotation

KIND = "nvidia_smi_list"

# The name starts after all the blanks after the colon and is empty or ends in a non-blank: a
# name that could start or end in blanks split a long run of them in every way (quadratic).
_GPU_RE = re.compile(
    r"^GPU\s+(\d{1,4}):\s*(?!\s)((?:.*?\S)??)\s*\(UUID:\s*(GPU-[0-9A-Fa-f-]+)\s*\)"
)
_MIG_RE = re.compile(r"^MIG\s+(\S+)\s+Device\s+(\d{1,4}):\s*\(UUID:\s*(MIG-[0-9A-Za-z/-]+)\s*\)")
_LEGACY_RE = re.compile(r"^MIG-GPU-[0-9A-Fa-f-]+/(\d+)/(\d+)$")
# The blanks before "Link" are those of its own line ("\s*" ran over every blank line below).
_LINK_RE = re.compile(r"^[^\S\n]*Link \d+:", re.MULTILINE)
# A listing quoted in markdown or a mail reply starts every line with "> ".
_QUOTE_RE = re.compile(r"^(?:>\s?)+")


def _line(raw: str) -> str:
    return strip_annotation(_QUOTE_RE.sub("", raw.strip()).strip())


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is ``nvidia-smi -L`` output."""
    try:
        head = text[:65536]
        if "(UUID:" not in head:
            return 0
        if _LINK_RE.search(head):
            return 0  # nvidia-smi nvlink prints the same GPU lines above its links
        lines = [_line(x) for x in head.splitlines() if _line(x)]
        hits = sum(1 for x in lines if _GPU_RE.match(x) or _MIG_RE.match(x))
        if not hits:
            return 0
        if "Driver Version" in head or re.search(
            r"(?m)^[^\S\n]*(?:Attached GPUs|Product Name)\s*:", head
        ):
            return 0
        return 95 if hits >= max(1, len(lines) // 2) else 60
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _once(devices: list[dict[str, Any]], what: str, warnings: list[str]) -> list[dict[str, Any]]:
    """Keep the first listing of each UUID (``oc logs --all-containers`` of containers sharing
    one GPU prints it once per container): one device is counted once."""
    first: dict[str, dict[str, Any]] = {}
    seen: dict[str, int] = {}
    for device in devices:
        uuid = device["uuid"]
        seen[uuid] = seen.get(uuid, 0) + 1
        if uuid not in first:
            first[uuid] = device
    for uuid, times in seen.items():
        if times > 1:
            warnings.append(f"{what} {uuid} is listed {times} times: counted once")
    return list(first.values())


def parse(text: str) -> ParseResult:
    """Parse ``nvidia-smi -L`` into GPUs and MIG devices."""
    gpus: list[dict[str, Any]] = []
    migs: list[dict[str, Any]] = []
    warnings: list[str] = []
    formats: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _line(raw)
        if not line:
            continue
        match = _GPU_RE.match(line)
        if match:
            gpus.append(
                {"index": int(match.group(1)), "name": match.group(2) or None,
                 "uuid": match.group(3), "mig_count": 0, "line": number}
            )  # fmt: skip
            continue
        match = _MIG_RE.match(line)
        if match:
            uuid = match.group(3)
            legacy = _LEGACY_RE.match(uuid)
            formats.add("legacy" if legacy else "mig")
            parent = gpus[-1] if gpus else None
            migs.append(
                {
                    "gpu_index": parent["index"] if parent else None,
                    "profile": match.group(1),
                    "device": int(match.group(2)),
                    "uuid": uuid,
                    "gi": int(legacy.group(1)) if legacy else None,
                    "ci": int(legacy.group(2)) if legacy else None,
                    "parent": parent["uuid"] if parent else None,
                }
            )
            continue
        if line.startswith(("GPU ", "MIG ")):
            warnings.append(f"line {number}: unreadable GPU/MIG line skipped")
        elif "No devices were found" in line or "NVIDIA-SMI has failed" in line:
            raise EvidenceParseError(
                f"nvidia-smi reported: {line}",
                line=number,
                kind=KIND,
                code="nvidia_smi_list.tool_error",
                params={"message": line},
            )
    if not gpus and not migs:
        raise EvidenceParseError(
            "no 'GPU n: <name> (UUID: GPU-...)' or 'MIG ... Device n: (UUID: ...)' line",
            kind=KIND,
            code="nvidia_smi_list.nothing",
        )
    if migs and not gpus:
        warnings.append("MIG devices listed without their GPU (run inside a container?)")
    gpus = _once(gpus, "GPU", warnings)
    migs = _once(migs, "MIG device", warnings)
    for gpu in gpus:
        gpu["mig_count"] = sum(1 for m in migs if m["parent"] == gpu["uuid"])
    for mig in migs:
        mig.pop("parent")
    uuids = [g["uuid"] for g in gpus]
    indexes = [g["index"] for g in gpus]
    repeated = sorted({i for i in indexes if indexes.count(i) > 1})
    if repeated and len(set(uuids)) == len(uuids):
        warnings.append(
            f"GPU index {repeated[0]} is listed {indexes.count(repeated[0])} times with "
            "different UUIDs: the lists of several nodes in one file; gpu_count counts them all"
        )
    for gpu in gpus:
        gpu.pop("line")
    metrics: dict[str, Any] = {
        "gpu_count": len(gpus),
        "gpu_names": [g["name"] for g in gpus],
        "gpu_uuids": uuids,
        "gpus": gpus,
        "mig_count": len(migs),
        "mig_devices": migs,
        "mig_profiles": list(dict.fromkeys(m["profile"] for m in migs)),
        "mig_enabled": bool(migs),
        "uuid_format": ("legacy" if "legacy" in formats else "mig") if formats else None,
    }
    facts = (
        Fact("gpu_count", float(len(gpus)), "count"),
        Fact("mig_count", float(len(migs)), "count"),
    )
    return ParseResult(kind=KIND, metrics=metrics, facts=facts, warnings=tuple(warnings))
