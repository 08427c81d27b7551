"""Evidence parsers: turn the raw outputs of POC tools into typed, checked figures."""

from .base import (
    KINDS,
    PARSER_VERSION,
    UNKNOWN,
    DecodedText,
    EvidenceError,
    EvidenceParseError,
    Fact,
    ParseResult,
    decode_evidence,
    decode_text,
)
from .registry import PARSERS, detect_kind, parse_bytes, parse_text

__all__ = [
    "KINDS",
    "PARSERS",
    "PARSER_VERSION",
    "UNKNOWN",
    "DecodedText",
    "EvidenceError",
    "EvidenceParseError",
    "Fact",
    "ParseResult",
    "decode_evidence",
    "decode_text",
    "detect_kind",
    "parse_bytes",
    "parse_text",
]
