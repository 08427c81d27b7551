"""The registry of evidence kinds: content-based kind detection and dispatch to one parser.

Adding a kind: write a module with ``KIND``, ``detect(text) -> int`` and
``parse(text) -> ParseResult``, add it to ``_MODULES`` below, add samples and tests.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from types import ModuleType
from typing import Any

from . import (
    cpu_info,
    dcgm,
    dmi,
    fio,
    ibstat,
    kernel_log,
    lspci,
    nccl,
    npu_smi,
    nvbandwidth,
    nvidia_smi,
    nvidia_smi_list,
    nvidia_smi_mig,
    nvidia_smi_query,
    nvidia_smi_xml,
    nvlink,
    perftest,
    rtt,
    topo,
    virt,
)
from .base import UNKNOWN, EvidenceParseError, ParseResult, decode_evidence, unquote_text

# Order breaks ties between equally confident detectors: the more specific formats first.
_MODULES: tuple[ModuleType, ...] = (
    nvidia_smi_xml,
    nccl,
    nvbandwidth,
    topo,
    nvlink,
    dcgm,
    nvidia_smi_query,
    nvidia_smi_mig,
    nvidia_smi_list,
    nvidia_smi,
    npu_smi,
    ibstat,
    perftest,
    fio,
    lspci,
    dmi,
    kernel_log,
    rtt,
    cpu_info,
    virt,
)
PARSERS: dict[str, ModuleType] = {m.KIND: m for m in _MODULES}


# A hinted kind is kept without running the other detectors when its own detector is at least
# this confident; below, every detector runs as if there were no hint.
HINT_CONFIDENCE = 50


def detect_kind(text: str, hint: str | None = None) -> str:
    """Return the kind whose detector is most confident about ``text``, or ``"unknown"``.

    ``hint`` is the kind the caller expects (from the command that produced the file); the
    content still decides: the hint is kept only when its own detector is confident. An output
    quoted in markdown ("> " before every line) is read without the quote markers.
    """
    text = unquote_text(text)
    if hint in PARSERS and PARSERS[hint].detect(text) >= HINT_CONFIDENCE:
        return hint
    best_kind, best_score = UNKNOWN, 0
    for module in _MODULES:
        score = module.detect(text)
        if score > best_score:
            best_kind, best_score = module.KIND, score
    if best_score < HINT_CONFIDENCE and other_vendor_tool(text) is not None:
        # A faint likeness (a rocm-smi table's borders) is not the kind.
        return UNKNOWN
    return best_kind


# The banners of other vendors' accelerator tools. AMD's (ROCm): rocm-smi frames its report with
# "ROCm System Management Interface" and "End of ROCm SMI Log"; amd-smi version prints "AMDSMI
# Tool:"; amd-smi static/list print "GPU: 0" blocks whose keys are upper case ("MARKET_NAME:",
# "BDF:"); rocminfo prints "HSA System Attributes" and "HSA Agents", and in each agent (a paste of
# one too) "Device Type:" one of HSA's device types, CPU, GPU or DSP. A candidate node with AMD
# GPUs is a procurement fact, but none of these outputs is evidence a kind here can read.
# (Huawei Ascend's npu-smi is a kind: npu_smi.)
# Each pattern stays within one line ([ \t], never \s): detect_kind runs them on any text its
# detectors are unsure of, and "^\s+" on a run of blank lines is quadratic.
_OTHER_VENDOR_TOOLS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("rocm-smi", "AMD", re.compile(r"ROCm System Management Interface|End of ROCm SMI Log")),
    (
        "amd-smi",
        "AMD",
        re.compile(r"^AMDSMI Tool:|^[ \t]+MARKET_NAME:[ \t]|^[ \t]+(?:ASIC|BUS):[ \t]*$", re.M),
    ),
    (
        "rocminfo",
        "AMD",
        re.compile(
            r"^HSA System Attributes[ \t]*$|^ROCk module (?:version .* )?is loaded|"
            r"^[ \t]+Device Type:[ \t]+(?:CPU|GPU|DSP)[ \t]*$",
            re.M,
        ),
    ),
)
_OTHER_VENDOR_SCAN = 65536


def other_vendor_tool(text: str) -> tuple[str, str] | None:
    """The other vendor's accelerator tool (rocm-smi, amd-smi, rocminfo) whose banner or keys
    ``text`` shows in its first 64 KiB, with its vendor ("AMD"), or None."""
    head = text[:_OTHER_VENDOR_SCAN]
    for name, vendor, pattern in _OTHER_VENDOR_TOOLS:
        if pattern.search(head):
            return name, vendor
    return None


def _other_vendor_error(tool: tuple[str, str]) -> EvidenceParseError:
    name, vendor = tool
    return EvidenceParseError(
        f"{name} output: {vendor} accelerators' tool, not NVIDIA GPUs'; no evidence kind reads it",
        code="file.other_vendor_tool",
        params={"tool": name, "vendor": vendor},
    )


def parse_text(text: str, kind: str | None = None) -> ParseResult:
    """Parse one tool output; ``kind`` is detected from the content when not given."""
    if not text.strip():
        raise EvidenceParseError("the file is empty", kind=kind, code="file.empty")
    text = unquote_text(text)
    given = kind is not None
    if kind is None:
        kind = detect_kind(text)
    if kind == UNKNOWN:
        other = other_vendor_tool(text)
        if other is not None:
            raise _other_vendor_error(other)
        raise EvidenceParseError(
            "not the output of a supported tool (kinds: " + ", ".join(PARSERS) + ")",
            code="file.unknown_kind",
            params={"kinds": ", ".join(PARSERS)},
        )
    try:
        module = PARSERS[kind]
    except KeyError:
        raise EvidenceParseError(
            f"unsupported evidence kind {kind!r}",
            code="file.unsupported_kind",
            params={"kind": kind},
        ) from None
    try:
        result = module.parse(text)
    except EvidenceParseError as error:
        # A kind named by the caller (the command that made the file) whose parser finds nothing
        # of its own in another vendor's tool output: say what the file is.
        other = other_vendor_tool(text) if given else None
        if other is not None:
            raise _other_vendor_error(other) from error
        raise
    except OverflowError:
        # float() of a digit run beyond a double, inside the parser: the same bad figure.
        raise EvidenceParseError(
            "a number too large to be a figure: not a value the tool prints",
            kind=kind,
            code="file.figure_overflow",
        ) from None
    return _figures_in_range(result)


# Every tool's counters and figures fit in 64 bits. A digit run longer than that, or "nan" /
# "inf" that float() reads, is not a figure: stored, it failed the whole upload (JSON has no
# NaN; float() of a 400-digit int overflows in verification) with every good file of its bundle.
FIGURE_MAX = 2**63


def _out_of_range(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not -FIGURE_MAX < value < FIGURE_MAX
    return isinstance(value, float) and not math.isfinite(value)


def _first_out_of_range(value: Any) -> Any:
    """The first figure out of range in a metrics value (dicts and lists walked), or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif _out_of_range(item):
            return item
    return None


def _shown(figure: Any) -> str:
    text = str(figure)  # a parser's int() refuses a digit run str() could not print
    return text if len(text) <= 24 else f"{text[:12]}… ({len(text.lstrip('-'))} digits)"


def _figures_in_range(result: ParseResult) -> ParseResult:
    """``result``, or EvidenceParseError naming a figure no tool prints (see FIGURE_MAX)."""
    line, found = None, None
    for fact in result.facts:
        if _out_of_range(fact.value):
            line, found = fact.line, fact.value
            break
    if found is None:
        found = _first_out_of_range(result.metrics)
    if found is None:
        return result
    shown = _shown(found)
    raise EvidenceParseError(
        f"a figure out of range ({shown}): not a value the tool prints",
        line=line,
        kind=result.kind,
        code="file.figure_out_of_range",
        params={"figure": shown},
    )


def parse_bytes(data: bytes, kind: str | None = None) -> ParseResult:
    """Decode (see ``decode_evidence``) and parse one file's bytes; how a file that is not
    UTF-8 was read is added to the result's warnings and notes."""
    decoded = decode_evidence(data, kind=kind)
    result = parse_text(decoded.text, kind)
    if not decoded.notes:
        return result
    return replace(
        result,
        warnings=(*decoded.warnings, *result.warnings),
        notes=(*decoded.notes, *result.notes),
    )
