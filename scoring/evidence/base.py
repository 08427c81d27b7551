"""Shared types of the evidence parsers: the parse result, the typed error and text helpers."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

# Bumped whenever any parser changes what it extracts; recorded on every import so that
# uploads parsed by an older version can be found and re-imported.
PARSER_VERSION = "1.6.0"

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


# The parts of a log relay's line prefix that change from line to line: a time stamp (ISO 8601,
# a time of day) and the pod tag of ``kubectl logs --prefix`` ("[pod/<name>/<container>]",
# whichever pod wrote the line). They are matched by their shape, the rest of a prefix letter
# for letter, so that "[node-3] " and "[node-4] " (two nodes' outputs interleaved) stay apart.
_PREFIX_VARIABLE_RE = re.compile(
    r"(?P<pod>\[pod/[^\]\s]+\])"
    r"|(?P<stamp>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?)"
)
_PREFIX_SCAN_LINES = 200
# "The large majority" of the scanned non-empty lines must start with the prefix: a relay may
# leave a few lines bare (a line it cut, a message of its own), an unprefixed output has none.
_PREFIX_SHARE = 0.8
_PREFIX_CANDIDATES = 4
_PREFIX_LINE_CHARS = 1024


def _prefix_pattern(prefix: str) -> re.Pattern[str]:
    """A pattern matching ``prefix`` at a line start: time stamps and pod tags by their shape; the
    trailing blanks may be missing on a line that holds nothing else (a relayed empty line)."""
    core = prefix.rstrip()
    parts, end = [], 0
    for match in _PREFIX_VARIABLE_RE.finditer(core):
        parts.append(re.escape(core[end : match.start()]))
        if match.group("pod"):
            parts.append(r"\[pod/[^\]\s]+\]")
        else:
            parts.append(re.sub(r"\d+", lambda _: r"\d+", re.escape(match.group())))
        end = match.end()
    parts.append(re.escape(core[end:]))
    tail = re.escape(prefix[len(core) :])
    return re.compile(f"{''.join(parts)}(?:{tail}|[ \t]*$)")


def strip_line_prefix(lines: list[str], anchor: re.Pattern[str]) -> tuple[list[str], str | None]:
    """``lines`` without the prefix a log relay put before each of them, and that prefix.

    A CI runner, a logging framework or ``kubectl logs --prefix`` writes the same text before
    every line of a tool's output (``[node-3] ``, ``stdout: ``,
    ``2026-11-02T10:11:12.345Z INFO  ``, ``[pod/<name>/<container>] ``). ``anchor`` matches
    where a line of the tool's own output starts (a token the tool prints at column 0): the
    non-blank text before it on such a line is a candidate, kept when it starts at least 80% of
    the first 200 non-empty lines. A line that does not start with the kept prefix is left as
    it is. Without a shared prefix the lines come back unchanged with None. The number of lines
    never changes, so line numbers stay those of the file.
    """
    window = list(itertools.islice((line for line in lines if line.strip()), _PREFIX_SCAN_LINES))
    tried: set[str] = set()
    for line in window:
        # A relayed line of the tool's own output is short; a long one (a blob, a rule) cannot
        # give a prefix and is not searched.
        if len(line) > _PREFIX_LINE_CHARS:
            continue
        match = anchor.search(line)
        if match is None or not line[: match.start()].strip():
            continue
        candidate = line[: match.start()]
        pattern = _prefix_pattern(candidate)
        if pattern.pattern in tried:
            continue
        tried.add(pattern.pattern)
        if len(tried) > _PREFIX_CANDIDATES:
            break
        shared = sum(1 for other in window if pattern.match(other))
        if shared >= _PREFIX_SHARE * len(window):
            stripped = []
            for other in lines:
                found = pattern.match(other)
                stripped.append(other[found.end() :] if found else other)
            return stripped, candidate
    return lines, None
