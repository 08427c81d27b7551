"""Shared types of the evidence parsers: the parse result, the typed error and text helpers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# Bumped whenever any parser changes what it extracts; recorded on every import so that
# uploads parsed by an older version can be found and re-imported.
PARSER_VERSION = "1.5.0"

KINDS = (
    "nccl_tests",
    "nvidia_smi_topo",
    "nvidia_smi_nvlink",
    "nvidia_smi",
    "nvidia_smi_query",
    "ibstat",
    "lspci",
    "cpu_info",
    "dmi",
    "virt",
    "fio",
    "perftest",
    "dcgm_diag",
    "kernel_log",
    "rtt",
    "nvidia_smi_list",
    "nvidia_smi_mig",
    "nvbandwidth",
    "nvidia_smi_xml",
)
UNKNOWN = "unknown"


class EvidenceError(Exception):
    """Base class of every error raised while reading evidence.

    ``code`` names the message (``"nccl.no_rows"``) and ``params`` holds its values, so that
    a reader in another language can be shown it from a catalogue; ``str(exc)`` stays the
    English text the CLI prints. An empty code means no catalogue entry: show the text.
    """

    code: str = ""
    params: dict[str, Any]

    def _set_code(self, code: str, params: dict[str, Any] | None) -> None:
        self.code = code
        self.params = {key: json_safe(value) for key, value in (params or {}).items()}

    def detail(self) -> dict[str, Any]:
        """The error as JSON-safe data: code, params, line, kind and the English message."""
        return {
            "code": self.code,
            "params": self.params,
            "line": getattr(self, "line", None),
            "kind": getattr(self, "kind", None),
            "message": getattr(self, "reason", str(self)),
        }


def json_safe(value: Any) -> Any:
    """``value`` as stored in an error's params: numbers, text, None, or dicts/lists of those."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return str(value)


class EvidenceParseError(EvidenceError):
    """A file could not be parsed. ``line`` is 1-based, or None when no single line is at fault."""

    def __init__(
        self,
        reason: str,
        *,
        line: int | None = None,
        kind: str | None = None,
        code: str = "",
        params: dict[str, Any] | None = None,
    ):
        self.reason = reason
        self.line = line
        self.kind = kind
        self._set_code(code, params)
        where = f"line {line}: " if line is not None else ""
        prefix = f"{kind}: " if kind else ""
        super().__init__(f"{prefix}{where}{reason}")


@dataclass(frozen=True)
class ParseResult:
    """What one parser extracted from one file.

    ``metrics`` holds the key figures under the names documented in the README (JSON-safe
    values only: str, int, float, bool, None, lists and dicts of those). ``facts`` lists the
    individual measured values the portal stores as Measurements: (metric, value, unit, line).
    ``warnings`` lists what was missing or odd but did not stop the parse (truncated output…).
    """

    kind: str
    metrics: dict[str, Any]
    facts: tuple[Fact, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fact:
    """One measured number with its unit and the 1-based line it was read from."""

    metric: str
    value: float
    unit: str
    line: int | None = None
    details: dict[str, Any] = field(default_factory=dict)


def decode_text(data: bytes, *, kind: str | None = None) -> str:
    """Decode a tool's output: UTF-8 (with or without BOM) or UTF-16 with a BOM.

    Binary content (NUL bytes in a UTF-8 stream, or undecodable bytes) raises
    EvidenceParseError instead of producing mojibake.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise EvidenceParseError(
                f"invalid UTF-16 text ({exc.reason})",
                kind=kind,
                code="text.utf16",
                params={"detail": exc.reason},
            ) from exc
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data[:65536]:
        raise EvidenceParseError(
            "binary content (NUL bytes), not a text output", kind=kind, code="text.binary"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise EvidenceParseError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x})",
            line=line,
            kind=kind,
            code="text.not_utf8",
            params={"byte": f"0x{data[exc.start]:02x}"},
        ) from exc


# A note a person appended after a value: "State: Active   # otherwise Down",
# "196.07   <-- plateau", "Rate: 400 -> was 200", "1.2  // typo?". Only after a value
# and whitespace, so that a line that *starts* with "#" (nccl-tests, perftest headers,
# dmidecode) or a "#" glued to a word ("#bytes") is left alone.
_ANNOTATION_RE = re.compile(
    r"(?<=\S)[ \t]+(?:#|//|<-+|<=+|-+>|=+>|\u2190|\u2192|\u27f5|\u27f6|\u21d0|\u21d2)(?:[ \t].*)?$"
)


# Any character an annotation's marker starts with: a line holding none of them has none.
_ANNOTATION_MARK_RE = re.compile("[#/\\-=\u2190\u2192\u27f5\u27f6\u21d0\u21d2]")


def strip_annotation(line: str) -> str:
    """``line`` without a trailing human annotation (comment or arrow note); unchanged otherwise."""
    # One scan of the line in C (it was a generator testing ten characters in turn).
    if _ANNOTATION_MARK_RE.search(line) is None:
        return line
    return _ANNOTATION_RE.sub("", line)


# A figure a person emphasised in a markdown paste: "**5544.28**", "__0.94__", "`12.5`".
_EMPHASIS_RE = re.compile(r"^(\*{1,2}|_{1,2}|`)([-+]?\d[\d.eE+-]*)\1$")


def strip_emphasis(token: str) -> str:
    """``token`` without markdown emphasis around a number ("**5544.28**" -> "5544.28")."""
    if token[:1] not in "*_`":
        return token
    match = _EMPHASIS_RE.match(token)
    return match.group(2) if match else token


# What ``kubectl logs --prefix`` puts before each line of a pod's output.
_POD_PREFIX_RE = re.compile(r"^\s*\[pod/[^\]\s]+\] ?")


def strip_pod_prefix(line: str) -> str:
    """``line`` without a ``[pod/<name>/<container>] `` prefix; unchanged otherwise."""
    if "[pod/" not in line[:16]:
        return line
    return _POD_PREFIX_RE.sub("", line, count=1)
