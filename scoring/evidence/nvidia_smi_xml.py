"""Parser for ``nvidia-smi -q -x`` (the XML report, nvsmi_device.dtd v1..v12).

Read with the standard library's expat-based ``xml.etree.ElementTree`` parser, with the care
defusedxml takes: any ``<!ENTITY`` declaration or internal DTD subset is refused before parsing
(no entity expansion, so no "billion laughs"), the external DTD the report names is never
fetched, and the input is capped at 32 MiB. An output cut short (upload truncated, ``head``)
keeps the GPUs that were complete, with a warning. Text around the document (a pasted prompt
before ``<?xml``, a markdown fence after ``</nvidia_smi_log>``) is ignored.

metrics
    driver_version, cuda_version, attached_gpus (as printed), dtd (the DOCTYPE's DTD name).
                     Driver 615 marks <driver_version> and <cuda_version> deprecated for
                     <kmd_version> and <cuda_umd_version> (to be removed in CUDA 14): either
                     is read.
    gpu_count        complete <gpu> elements read.
    gpu_names, gpu_uuids, bus_ids   per GPU; ``duplicate_uuids`` UUIDs listed more than once.
    memory_total_mib per GPU (None when "N/A").
    virtualization_mode   per GPU ("None", "Pass-Through", "VGPU", "Host VGPU"...; None when
                     absent); ``mig_mode`` per GPU (current_mig).
    c2c_mode         per GPU, <c2c_mode>: "Enabled" or "Disabled" (a Grace superchip GPU's
                     NVLink-C2C link to its CPU), None for N/A or absent; ``c2c_enabled_gpus``
                     the GPUs saying "Enabled", None when none reports a mode (as -q's, in
                     scoring.evidence.nvidia_smi_query).
    ecc_mode         per GPU (current_ecc); ``ecc_volatile_uncorrected`` and
                     ``ecc_aggregate_uncorrected``: DRAM + SRAM uncorrectable counts summed
                     over GPUs (None when no GPU reports one), named as nvidia-smi -q's
                     (scoring.evidence.nvidia_smi_query) so that verification reads both alike.
    remapped_rows_pending, remapped_rows_failure   GPUs reporting "Yes" (None when no GPU
                     reports remapped rows: GPUs before Ampere have none; "N/A" is no report).
    retired_pages_pending   GPUs reporting pending retirement "Yes" (None when none reports it:
                     GPUs with row remapping print "N/A").
    memory_unrepairable, memory_repair_pending, sram_threshold_exceeded   GPUs reporting "Yes"
                     in ``ecc_errors/unrepairable_memory``, ``channel_repair_pending`` or
                     ``tpc_repair_pending`` (either counts) and ``ecc_errors/aggregate/
                     sram_threshold_exceeded``: the XML twins of -q's rows of the same names
                     (scoring.evidence.nvidia_smi_query), None when no GPU reports them.
    pcie_link_width_max / pcie_link_width_current   per GPU, lanes (16 for "16x"; None when
                     "N/A" or absent): ``pci/pci_gpu_link_info/link_widths`` max_link_width and
                     current_link_width, the same NVML figures as nvidia-smi -q's "Link Width"
                     (scoring.evidence.nvidia_smi_query); a current below the max is a link that
                     trained narrower (verification.health). The link generation is not read:
                     GPUs drop to Gen1 at idle, so a low current generation means nothing.
    gpus             per GPU dict with the above plus serial, vbios_version, temperature_c,
                     power_limit_w, performance_state, ``pcie_link_width_line`` (the line of
                     its <current_link_width>, for a fault to point at), ``multigpu_board``
                     (True/False, None when absent) and ``board_id``: GPUs of one multi-GPU
                     board (Tesla K80, M60, M10) share a board id; ``pci_device_id`` as printed
                     ("307F10DE": device 307f of vendor 10de), the model when the name is the
                     driver's placeholder "NVIDIA Graphics Device" (a warning says so); and
                     ``channel_repair_pending`` / ``tpc_repair_pending`` /
                     ``memory_unrepairable`` / ``sram_threshold_exceeded`` (True/False/None).
facts: ``gpu_count``, one ``gpu_memory_total_mib`` per GPU, and ``ecc_volatile_uncorrected`` /
``ecc_aggregate_uncorrected`` / ``c2c_enabled_gpus`` where a GPU reports them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from .base import (
    EvidenceParseError,
    Fact,
    ParseResult,
    c2c_enabled_gpus,
    c2c_mode,
    placeholder_gpu_name_warning,
)

KIND = "nvidia_smi_xml"

MAX_BYTES = 32 * 1024 * 1024
_DOCTYPE_RE = re.compile(r"<!DOCTYPE\s+nvidia_smi_log(?:\s+SYSTEM\s+[\"']([^\"']*)[\"'])?\s*>")
_NUMBER_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")
# A <gpu> start tag (not <gpu_...>) or a current link width element, for their line numbers.
_WIDTH_MARK_RE = re.compile(r"<gpu[\s>]|<current_link_width>")
_LINK_WIDTHS = "pci/pci_gpu_link_info/link_widths"


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is ``nvidia-smi -q -x`` XML."""
    try:
        head = text[:65536]
        if "<nvidia_smi_log" in head:
            return 97
        if "nvsmi_device" in head and "<gpu" in head:
            return 90
        return 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _refuse_unsafe(text: str) -> str | None:
    """Raise on entity declarations or an internal DTD subset; return the DTD name if any."""
    head = text[:65536]
    if "<!ENTITY" in text:
        raise EvidenceParseError(
            "XML entity declarations are refused (<!ENTITY)",
            kind=KIND,
            code="nvidia_smi_xml.entity",
        )
    doctypes = re.findall(r"<!DOCTYPE[^>]*>?", head)
    if len(doctypes) > 1:
        raise EvidenceParseError("more than one DOCTYPE", kind=KIND, code="nvidia_smi_xml.doctypes")
    if doctypes:
        match = _DOCTYPE_RE.search(head)
        if match is None or "[" in doctypes[0]:
            raise EvidenceParseError(
                "only nvidia-smi's own DOCTYPE is accepted (no internal DTD subset)",
                kind=KIND,
                code="nvidia_smi_xml.doctype",
            )
        return match.group(1)
    return None


def _text(element: ET.Element | None, path: str) -> str | None:
    if element is None:
        return None
    found = element.find(path)
    if found is None or found.text is None:
        return None
    value = " ".join(found.text.split())
    return value or None


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    match = _NUMBER_RE.match(value)
    return float(match.group(1)) if match else None


def _int(value: str | None) -> int | None:
    number = _number(value)
    return int(number) if number is not None else None


def _uncorrectable(gpu: ET.Element, scope: str) -> int | None:
    """Uncorrectable ECC count of one scope (volatile/aggregate): DRAM + SRAM counters of the
    current layout, or double_bit/total of the pre-R450 layout. None when none is a number."""
    node = gpu.find(f"ecc_errors/{scope}")
    if node is None:
        return None
    old = _int(_text(node, "double_bit/total"))
    if old is not None:
        return old
    values = [
        _int(child.text)
        for child in node
        if ("uncorrect" in child.tag or "uncorrected" in child.tag) and not list(child)
    ]
    numbers = [v for v in values if v is not None]
    return sum(numbers) if numbers else None


def _flag(text: str | None) -> bool | None:
    """Whether a Yes/No element says Yes; None when the GPU does not report it (absent, "N/A",
    or a message such as "GPU requires reset" in place of the answer)."""
    return {"yes": True, "true": True, "no": False, "false": False}.get((text or "").lower())


def _gpu(gpu: ET.Element) -> dict[str, Any]:
    remap_pending = _text(gpu, "remapped_rows/remapped_row_pending")
    remap_failure = _text(gpu, "remapped_rows/remapped_row_failure")
    retire_pending = _text(gpu, "retired_pages/pending_retirement")
    multi = _text(gpu, "multigpu_board")
    power = _text(gpu, "gpu_power_readings/current_power_limit") or _text(
        gpu, "power_readings/power_limit"
    )
    return {
        "bus_id": gpu.get("id"),
        "name": _text(gpu, "product_name"),
        "uuid": _text(gpu, "uuid"),
        "serial": _text(gpu, "serial"),
        "vbios_version": _text(gpu, "vbios_version"),
        "memory_total_mib": _int(_text(gpu, "fb_memory_usage/total")),
        "memory_used_mib": _int(_text(gpu, "fb_memory_usage/used")),
        "mig_mode": _text(gpu, "mig_mode/current_mig"),
        "c2c_mode": c2c_mode(_text(gpu, "c2c_mode")),
        "virtualization_mode": _text(gpu, "gpu_virtualization_mode/virtualization_mode"),
        "ecc_mode": _text(gpu, "ecc_mode/current_ecc"),
        "ecc_uncorrected_volatile": _uncorrectable(gpu, "volatile"),
        "ecc_uncorrected_aggregate": _uncorrectable(gpu, "aggregate"),
        "remapped_rows_pending": _flag(remap_pending),
        "remapped_rows_failure": _flag(remap_failure),
        "retired_pages_pending": _flag(retire_pending),
        # Beside the ECC counters since the Blackwell memory repair (580 and later drivers).
        "channel_repair_pending": _flag(_text(gpu, "ecc_errors/channel_repair_pending")),
        "tpc_repair_pending": _flag(_text(gpu, "ecc_errors/tpc_repair_pending")),
        "memory_unrepairable": _flag(_text(gpu, "ecc_errors/unrepairable_memory")),
        "sram_threshold_exceeded": _flag(
            _text(gpu, "ecc_errors/aggregate/sram_threshold_exceeded")
        ),
        "temperature_c": _int(_text(gpu, "temperature/gpu_temp")),
        "power_limit_w": _number(power),
        "performance_state": _text(gpu, "performance_state"),
        "pcie_link_width_max": _int(_text(gpu, f"{_LINK_WIDTHS}/max_link_width")),
        "pcie_link_width_current": _int(_text(gpu, f"{_LINK_WIDTHS}/current_link_width")),
        "multigpu_board": {"yes": True, "no": False}.get((multi or "").lower()),
        "board_id": _text(gpu, "board_id"),
        "pci_device_id": _text(gpu, "pci/pci_device_id"),
    }


def _width_lines(text: str, start: int, count: int) -> list[int | None]:
    """The line of the <current_link_width> of each of the first ``count`` <gpu> elements from
    ``start`` in ``text`` (None for a GPU without one). The pull parser gives no positions; the
    complete <gpu> elements it yields are the first ones of the text, in order."""
    lines: list[int | None] = []
    for mark in _WIDTH_MARK_RE.finditer(text, start):
        if mark.group().startswith("<gpu"):
            if len(lines) == count:
                break
            lines.append(None)
        elif lines and lines[-1] is None:
            lines[-1] = text.count("\n", 0, mark.start()) + 1
    return lines + [None] * (count - len(lines))


def parse(text: str) -> ParseResult:
    """Parse ``nvidia-smi -q -x`` into per-GPU identity, memory, ECC and virtualisation."""
    if len(text) > MAX_BYTES:
        raise EvidenceParseError(
            f"XML larger than {MAX_BYTES} bytes",
            kind=KIND,
            code="nvidia_smi_xml.too_large",
            params={"max": MAX_BYTES},
        )
    dtd = _refuse_unsafe(text)
    start = text.find("<?xml")
    if start < 0:
        start = text.find("<nvidia_smi_log")
    if start < 0:
        raise EvidenceParseError(
            "no <nvidia_smi_log> element (not nvidia-smi -q -x)",
            kind=KIND,
            code="nvidia_smi_xml.no_root",
        )
    parser = ET.XMLPullParser(events=("end",))
    gpus: list[dict[str, Any]] = []
    top: dict[str, str | None] = {
        "driver_version": None,
        "cuda_version": None,
        "kmd_version": None,
        "cuda_umd_version": None,
        "attached_gpus": None,
    }
    root_seen = False
    warnings: list[str] = []
    body = text[start:]
    # Whatever follows the closing tag (a markdown fence, a prompt, notes) is not XML.
    end = body.rfind("</nvidia_smi_log>")
    if end >= 0:
        body = body[: end + len("</nvidia_smi_log>")]

    def cut(exc: ET.ParseError) -> None:
        line = text[:start].count("\n") + exc.position[0]
        warnings.append(f"the XML is cut or broken at line {line} ({exc})")

    def take(events: Any) -> None:
        nonlocal root_seen
        for _, element in events:
            if element.tag == "gpu":
                gpus.append(_gpu(element))
            elif element.tag in top and top[element.tag] is None:
                top[element.tag] = " ".join((element.text or "").split()) or None
            elif element.tag == "nvidia_smi_log":
                root_seen = True

    # Fed in pieces so that the complete <gpu> elements before a break are kept.
    try:
        for offset in range(0, len(body), 65536):
            parser.feed(body[offset : offset + 65536])
            take(parser.read_events())
        parser.close()
        take(parser.read_events())
    except ET.ParseError as exc:
        cut(exc)
    top["driver_version"] = top["driver_version"] or top["kmd_version"]
    top["cuda_version"] = top["cuda_version"] or top["cuda_umd_version"]
    if not gpus and top["driver_version"] is None:
        reason = warnings[0] if warnings else "no <gpu> and no <driver_version>"
        raise EvidenceParseError(
            f"nothing readable in the XML: {reason}",
            kind=KIND,
            code="nvidia_smi_xml.nothing",
            params={"reason": reason},
        )
    if not root_seen and not warnings:
        warnings.append("no closing </nvidia_smi_log>")
    attached = _int(top["attached_gpus"])
    if attached is not None and attached != len(gpus):
        warnings.append(f"attached_gpus says {attached} but {len(gpus)} complete <gpu> elements")
    for gpu, line in zip(gpus, _width_lines(text, start, len(gpus)), strict=True):
        gpu["pcie_link_width_line"] = line if gpu["pcie_link_width_current"] is not None else None
    uuids = [g["uuid"] for g in gpus if g["uuid"]]
    duplicates = sorted({u for u in uuids if uuids.count(u) > 1})
    if duplicates:
        warnings.append("the same GPU UUID appears more than once: " + ", ".join(duplicates))

    def total(key: str) -> int | None:
        values = [g[key] for g in gpus if g[key] is not None]
        return sum(values) if values else None

    def count(key: str) -> int | None:
        # The GPUs saying Yes; None when no GPU reports the element at all.
        known = [g[key] for g in gpus if g[key] is not None]
        return sum(known) if known else None

    # A GPU with a channel or a TPC repair pending, counted once; None when neither is reported.
    repairs = [
        (g["channel_repair_pending"], g["tpc_repair_pending"])
        for g in gpus
        if g["channel_repair_pending"] is not None or g["tpc_repair_pending"] is not None
    ]
    repair_pending = sum(1 for pair in repairs if True in pair) if repairs else None
    metrics: dict[str, Any] = {
        "driver_version": top["driver_version"],
        "cuda_version": top["cuda_version"],
        "attached_gpus": attached,
        "dtd": dtd,
        "gpu_count": len(gpus),
        "gpu_names": [g["name"] for g in gpus],
        "gpu_uuids": uuids,
        "duplicate_uuids": duplicates,
        "bus_ids": [g["bus_id"] for g in gpus],
        "memory_total_mib": [g["memory_total_mib"] for g in gpus],
        "virtualization_mode": [g["virtualization_mode"] for g in gpus],
        "mig_mode": [g["mig_mode"] for g in gpus],
        "c2c_mode": [g["c2c_mode"] for g in gpus],
        "c2c_enabled_gpus": c2c_enabled_gpus([g["c2c_mode"] for g in gpus]),
        "ecc_mode": [g["ecc_mode"] for g in gpus],
        "ecc_volatile_uncorrected": total("ecc_uncorrected_volatile"),
        "ecc_aggregate_uncorrected": total("ecc_uncorrected_aggregate"),
        "remapped_rows_pending": count("remapped_rows_pending"),
        "remapped_rows_failure": count("remapped_rows_failure"),
        "retired_pages_pending": count("retired_pages_pending"),
        "memory_unrepairable": count("memory_unrepairable"),
        "memory_repair_pending": repair_pending,
        "sram_threshold_exceeded": count("sram_threshold_exceeded"),
        "pcie_link_width_max": [g["pcie_link_width_max"] for g in gpus],
        "pcie_link_width_current": [g["pcie_link_width_current"] for g in gpus],
        "gpus": gpus,
    }
    facts = [Fact("gpu_count", float(len(gpus)), "count")]
    facts += [
        Fact("gpu_memory_total_mib", float(g["memory_total_mib"]), "MiB", None, {"uuid": g["uuid"]})
        for g in gpus
        if g["memory_total_mib"] is not None
    ]
    for key in ("ecc_volatile_uncorrected", "ecc_aggregate_uncorrected", "c2c_enabled_gpus"):
        if metrics[key] is not None:
            facts.append(Fact(key, float(metrics[key]), "count"))
    if metrics["ecc_volatile_uncorrected"] or metrics["ecc_aggregate_uncorrected"]:
        warnings.append("uncorrectable ECC errors reported")
    if metrics["remapped_rows_pending"]:
        warnings.append("row remapping pending: the GPU needs a reset")
    if metrics["remapped_rows_failure"]:
        warnings.append("a row-remapping failure is reported: the GPU needs replacement")
    if metrics["memory_repair_pending"]:
        warnings.append("a channel or TPC repair is pending: the GPU needs a reset")
    if metrics["memory_unrepairable"]:
        warnings.append("unrepairable memory reported: the GPU needs replacement")
    if metrics["sram_threshold_exceeded"]:
        warnings.append("SRAM uncorrectable errors exceeded NVIDIA's RMA threshold")
    placeholder = placeholder_gpu_name_warning(metrics["gpu_names"])
    if placeholder:
        ids = sorted({g["pci_device_id"] for g in gpus if g["pci_device_id"]})
        warnings.append(placeholder + (f"; PCI device id {', '.join(ids)}" if ids else ""))
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))
