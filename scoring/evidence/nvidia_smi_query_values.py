"""What the ``nvidia-smi -q`` and ``--query-gpu`` CSV parsers share: reading one printed value
(N/A and its kin are no value) and building the result both return (nvidia_smi_query documents
its metrics)."""

from __future__ import annotations

import re
from typing import Any

from .base import Fact, ParseResult, c2c_enabled_gpus, placeholder_gpu_name_warning

KIND = "nvidia_smi_query"

EXCERPT_RE = re.compile(r"^\s*(?:\[\.\.\.\]|\.\.\.|…|<snip>|\[snip\])\s*$", re.IGNORECASE)
FIELD_RE = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*(?: \[[^\]]+\])?$")
# "Not Found": the CUDA version on a host without the CUDA user-mode driver (a vGPU host).
NA = {"N/A", "[N/A]", "[NOT SUPPORTED]", "NOT SUPPORTED", "[UNKNOWN ERROR]", "NOT FOUND", ""}
BRANDS = ("NVIDIA", "Tesla", "Quadro", "GeForce", "GRID", "TITAN")
SCAN_BYTES = 65536


def text_value(raw: str | None) -> str | None:
    """The value as printed, stripped; None for N/A, [Not Supported] and their kin."""
    if raw is None:
        return None
    value = raw.strip()
    return None if value.upper() in NA else value


def int_value(raw: str | None) -> int | None:
    """The leading whole number of a value ("16x" -> 16, "0" -> 0), or None."""
    value = text_value(raw)
    match = re.match(r"^([0-9]{1,15})(?![0-9])", value) if value else None
    return int(match.group(1)) if match else None


def yes_no(raw: str | None) -> bool | None:
    """True for Yes/True, False for No/False, None for anything else."""
    value = (text_value(raw) or "").lower()
    return {"yes": True, "no": False, "true": True, "false": False}.get(value)


def mib_value(raw: str | None) -> int | None:
    """A memory size in MiB ("81559 MiB", "80 GiB" -> 81920), or None."""
    value = text_value(raw)
    match = (
        re.match(r"^([0-9]{1,12}(?:\.[0-9]{1,6})?)\s*(MiB|Mb|MB|GiB)?", value) if value else None
    )
    if not match:
        return None
    number = float(match.group(1))
    return round(number * 1024) if match.group(2) == "GiB" else round(number)


def any_known(values: list[bool | None]) -> bool | None:
    """Whether any known value is True; None when none is known."""
    known = [v for v in values if v is not None]
    return any(known) if known else None


def sum_known(values: list[int | None]) -> int | None:
    """The sum of the known values; None when none is known."""
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def query_result(
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
    """The ParseResult of either format: per-GPU lists, sums and any-of flags over ``gpus``,
    the warnings they call for, and the facts (``lines`` are the GPUs' first lines)."""
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
        "c2c_mode": [g.get("c2c_mode") for g in gpus],
        "c2c_enabled_gpus": c2c_enabled_gpus([g.get("c2c_mode") for g in gpus]),
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
        metrics[key] = sum_known([g.get(key) for g in gpus])
    for key in (
        "retired_pages_pending",
        "remapped_rows_pending",
        "remapped_rows_failure",
        "memory_unrepairable",
        "sram_threshold_exceeded",
    ):
        metrics[key] = any_known([g.get(key) for g in gpus])
    metrics["memory_repair_pending"] = any_known(
        [any_known([g.get("channel_repair_pending"), g.get("tpc_repair_pending")]) for g in gpus]
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
    placeholder = placeholder_gpu_name_warning(metrics["product_names"])
    if placeholder:
        warnings.append(placeholder)
    first_line = lines[0] if lines else None
    facts = []
    if gpu_count is not None:
        facts.append(Fact("gpu_count", float(gpu_count), "count", first_line))
    for key in (
        "ecc_volatile_uncorrected",
        "ecc_aggregate_uncorrected",
        "retired_pages",
        "remapped_rows_uncorrectable",
        "c2c_enabled_gpus",
    ):
        if metrics[key] is not None:
            facts.append(Fact(key, float(metrics[key]), "count", first_line))
    return ParseResult(KIND, metrics, tuple(facts), tuple(warnings))
