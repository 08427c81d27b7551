"""The registry of evidence kinds: content-based kind detection and dispatch to one parser.

Adding a kind: write a module with ``KIND``, ``detect(text) -> int`` and
``parse(text) -> ParseResult``, add it to ``_MODULES`` below, add samples and tests.
"""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType

from . import (
    cpu_info,
    dcgm,
    dmi,
    fio,
    ibstat,
    kernel_log,
    lspci,
    nccl,
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
    return best_kind


def parse_text(text: str, kind: str | None = None) -> ParseResult:
    """Parse one tool output; ``kind`` is detected from the content when not given."""
    if not text.strip():
        raise EvidenceParseError("the file is empty", kind=kind, code="file.empty")
    text = unquote_text(text)
    if kind is None:
        kind = detect_kind(text)
    if kind == UNKNOWN:
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
    return module.parse(text)


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
