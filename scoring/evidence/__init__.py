"""Evidence parsers: turn the raw outputs of POC tools into typed, checked figures."""

from .base import (
    KINDS,
    PARSER_VERSION,
    UNKNOWN,
    EvidenceError,
    EvidenceParseError,
    Fact,
    ParseResult,
    decode_text,
)
from .registry import PARSERS, detect_kind, parse_bytes, parse_text

__all__ = [
    "KINDS",
    "PARSERS",
    "PARSER_VERSION",
    "UNKNOWN",
    "EvidenceError",
    "EvidenceParseError",
    "Fact",
    "ParseResult",
    "decode_text",
    "detect_kind",
    "parse_bytes",
    "parse_text",
]
