"""Shared types of the evidence parsers: the parse result, the typed error and text helpers."""

from __future__ import annotations

import itertools
import quopri
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

# Bumped whenever any parser changes what it extracts; recorded on every import so that
# uploads parsed by an older version can be found and re-imported.
PARSER_VERSION = "1.19.1"

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
    "npu_smi",
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
    ``notes`` holds the coded form of the warnings the portal must show in the reader's
    language (see ``detail``): how a file that is not UTF-8 was read.
    """

    kind: str
    metrics: dict[str, Any]
    facts: tuple[Fact, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Fact:
    """One measured number with its unit and the 1-based line it was read from."""

    metric: str
    value: float
    unit: str
    line: int | None = None
    details: dict[str, Any] = field(default_factory=dict)


def detail(code: str, message: str, **params: Any) -> dict[str, Any]:
    """A coded message made without raising (a note, a recorded failure), in the shape of
    ``EvidenceError.detail()``: the portal shows ``code`` with ``params`` in the reader's
    language, ``message`` is the English text."""
    return {"code": code, "params": params, "line": None, "kind": None, "message": message}


@dataclass(frozen=True)
class DecodedText:
    """A tool output's text and how its bytes were read.

    ``encoding`` is "utf-8" (with or without a BOM), or what was read instead: "utf-16" (with a
    BOM), "utf-16-le" / "utf-16-be" (without one, told by the NUL bytes of ASCII text),
    "gb18030" (GBK and GB2312 are subsets of it), "windows-1252" or "iso-8859-1". ``lines``
    lists the 1-based lines read in ``encoding`` when the others were UTF-8 (a mixed file);
    it is empty when the whole file was read in ``encoding``. ``cut_bytes`` counts the bytes
    of an incomplete character at the very end that were left out (a file cut inside one).
    """

    text: str
    encoding: str = "utf-8"
    lines: tuple[int, ...] = ()
    cut_bytes: int = 0

    @property
    def notes(self) -> tuple[dict[str, Any], ...]:
        """What the portal must say about the decoding: nothing for whole UTF-8 text, else
        how the file was read and whether its last character was cut."""
        notes = []
        shown = _ENCODING_NAMES.get(self.encoding, self.encoding)
        if self.lines:
            ranges = _line_ranges(self.lines)
            notes.append(
                detail(
                    "text.decoded_lines_as",
                    f"line(s) {ranges} are not UTF-8 and were read as {shown}; the rest is UTF-8",
                    encoding=shown,
                    lines=ranges,
                )
            )
        elif self.encoding != "utf-8":
            notes.append(
                detail("text.decoded_as", f"not UTF-8: read as {shown} text", encoding=shown)
            )
        if self.cut_bytes:
            notes.append(
                detail(
                    "text.cut_character",
                    f"the file ends inside a character (cut?): its last {self.cut_bytes} "
                    "byte(s) were left out",
                    bytes=self.cut_bytes,
                )
            )
        return tuple(notes)

    @property
    def warnings(self) -> tuple[str, ...]:
        """The notes' English text, for the warnings of a parse result."""
        return tuple(note["message"] for note in self.notes)


_ENCODING_NAMES = {
    "utf-16": "UTF-16",
    "utf-16-le": "UTF-16LE (without BOM)",
    "utf-16-be": "UTF-16BE (without BOM)",
    "gb18030": "GB18030",
    "windows-1252": "Windows-1252",
    "iso-8859-1": "ISO-8859-1",
}
_LINE_RANGES_SHOWN = 6


def _line_ranges(lines: tuple[int, ...]) -> str:
    """Lines 3, 7, 8, 9 and 12 as "3, 7-9, 12"; cut with ", ..." after a few ranges."""
    ranges: list[list[int]] = []
    for number in lines:
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    shown = [f"{a}" if a == b else f"{a}-{b}" for a, b in ranges[:_LINE_RANGES_SHOWN]]
    return ", ".join(shown) + (", ..." if len(ranges) > _LINE_RANGES_SHOWN else "")


# Decoding checks look at this much of a file's head (NUL bytes, the UTF-16 pattern).
_HEAD_BYTES = 65536
# C0 control bytes no tool's text output holds (tab, line feed, vertical tab, form feed,
# carriage return and ESC, for colours, are allowed): one of them in a file that is not UTF-8
# makes it binary, never a text to guess the encoding of.
_CONTROL_BYTES_RE = re.compile(b"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
_CONTROL_CHARS_RE = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
# Non-ASCII characters looked at to judge a GB18030 reading (the decode itself is whole).
_GB_SAMPLE_CHARS = 4096
# Share of a GB18030 reading's two-byte characters that must be common in Chinese text: GB2312's
# level-1 hanzi (the 3755 most frequent), its CJK punctuation and full-width forms, and its box
# drawing (a terminal's pane borders). Real Chinese text is nearly all of them; Latin-1 letters
# misread as GB18030 pair into GBK's rarer areas (an accented letter before an ASCII one) or
# into level-2 hanzi ("ö" "ß").
_GB_COMMON_SHARE = 0.6
_GB_COMMON_ROWS = frozenset((0xA1, 0xA2, 0xA3, 0xA9, *range(0xB0, 0xD8)))
# A single-byte (Latin) reading is for text that is ASCII but for a few stray letters: at most
# a few high bytes, or this share of the file's bytes, in runs of at most two ("öß").
_LATIN_FEW_BYTES = 8
_LATIN_HIGH_SHARE = 0.05
_LATIN_RUN_RE = re.compile(b"[\x80-\xff]{3,}")
_GB18030_BOM = b"\x84\x31\x95\x33"
# An incomplete character at the very end of a file is at most this long (a four-byte UTF-8
# or GB18030 sequence cut after three bytes); what Python says of such a cut, per codec.
_MAX_CUT_BYTES = 3
_CUT_REASONS = frozenset(
    {"unexpected end of data", "incomplete multibyte sequence", "truncated data"}
)
# Bytes that Windows-1252 leaves undefined: in ISO-8859-1 they are C1 control characters.
_CP1252_UNDEFINED = frozenset(b"\x81\x8d\x8f\x90\x9d")


def _decode_cut(data: bytes, encoding: str) -> tuple[str, int]:
    """``data`` decoded strictly but for an incomplete character at its very end (a file cut
    inside one), which is left out: the text and the number of bytes left out. Raises
    UnicodeDecodeError for anything else that does not decode."""
    try:
        return data.decode(encoding), 0
    except UnicodeDecodeError as exc:
        tail = data[exc.start :]
        cut = (
            exc.reason in _CUT_REASONS
            and exc.end == len(data)
            and 0 < len(tail) <= _MAX_CUT_BYTES
            # Python calls any lone end byte "incomplete" in GB18030: only a lead byte starts
            # a character that a cut could have left incomplete.
            and (encoding != "gb18030" or 0x81 <= tail[0] <= 0xFE)
        )
        if not cut:
            raise
        return data[: exc.start].decode(encoding), len(tail)


def decode_text(data: bytes, *, kind: str | None = None) -> str:
    """Decode a tool's output; see ``decode_evidence`` for what is read and what is refused."""
    return decode_evidence(data, kind=kind).text


def decode_evidence(data: bytes, *, kind: str | None = None) -> DecodedText:
    """Decode a tool's output, saying how: UTF-8 (with or without BOM) first; UTF-16 with a
    BOM, or without one when its NUL bytes are those of ASCII text; GB18030 with its BOM; else
    GB18030 when the whole file decodes strictly and its non-ASCII characters read as Chinese
    text (a tool run under LANG=zh_CN.GBK, a log saved by a Windows editor); else a file that
    is UTF-8 but for some lines has those lines read the same way (GB18030, or Windows-1252 /
    ISO-8859-1 when they are ASCII but for a few stray letters: a note re-saved by an editor).

    Binary content (NUL or control bytes) and text that is none of these raise
    EvidenceParseError instead of producing mojibake. What was not read as UTF-8 is recorded
    in the result's ``notes``.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text, cut = _decode_cut(data, "utf-16")
            return DecodedText(text, "utf-16", cut_bytes=cut)
        except UnicodeDecodeError as exc:
            raise EvidenceParseError(
                f"invalid UTF-16 text ({exc.reason})",
                kind=kind,
                code="text.utf16",
                params={"detail": exc.reason},
            ) from exc
    if data.startswith(_GB18030_BOM):
        # Declared by its BOM (U+FEFF in GB18030): no guess to make, only a strict decode.
        try:
            text, cut = _decode_cut(data[len(_GB18030_BOM) :], "gb18030")
            return DecodedText(text, "gb18030", cut_bytes=cut)
        except UnicodeDecodeError:
            pass  # refused below, as any other file that is not text
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data[:_HEAD_BYTES]:
        wide = _utf16_without_bom(data)
        if wide is not None:
            return wide
        raise EvidenceParseError(
            "binary content (NUL bytes), not a text output", kind=kind, code="text.binary"
        )
    try:
        text, cut = _decode_cut(data, "utf-8")
        return DecodedText(text, cut_bytes=cut)
    except UnicodeDecodeError as exc:
        fallback = _legacy_text(data)
        if fallback is not None:
            return fallback
        line = data[: exc.start].count(b"\n") + 1
        raise EvidenceParseError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x})",
            line=line,
            kind=kind,
            code="text.not_utf8",
            params={"byte": f"0x{data[exc.start]:02x}"},
        ) from exc


def _utf16_without_bom(data: bytes) -> DecodedText | None:
    """``data`` read as UTF-16 when its head has the NUL pattern of mostly-ASCII UTF-16 text
    (every other byte NUL, the bytes between them not), else None."""
    head = data[: min(_HEAD_BYTES, len(data) - len(data) % 2)]
    if len(head) < 4:
        return None
    even, odd = head[0::2], head[1::2]
    pairs = len(even)
    if any(a == 0 and b == 0 for a, b in zip(even, odd, strict=True)):
        return None  # a NUL character: binary, whichever the byte order
    for encoding, low, high in (("utf-16-le", even, odd), ("utf-16-be", odd, even)):
        # ASCII characters: the high byte NUL. A character such as U+4E00 has a NUL low byte,
        # so a few of those are allowed.
        if high.count(0) >= pairs // 2 and low.count(0) * 20 <= pairs:
            try:
                text, cut = _decode_cut(data, encoding)
            except UnicodeDecodeError:
                return None
            if _CONTROL_CHARS_RE.search(text):
                return None
            return DecodedText(text, encoding, cut_bytes=cut)
    return None


def _legacy_text(data: bytes) -> DecodedText | None:
    """``data`` (not UTF-8) read as GB18030 or a single-byte Latin encoding, whole or in the
    lines that are not UTF-8; None when it is binary or no reading is plausible."""
    if _CONTROL_BYTES_RE.search(data):
        return None
    try:
        whole, cut = _decode_cut(data, "gb18030")
    except UnicodeDecodeError:
        whole, cut = None, 0
    if whole is not None and _reads_as_gb_text(whole):
        return DecodedText(whole, "gb18030", cut_bytes=cut)
    # A mix: the lines that are UTF-8 stay so, the others are read in one legacy encoding.
    # No GB18030 or Latin character spans a line feed, so the lines can be decoded apart.
    pieces: list[str | None] = []
    foreign: list[int] = []
    utf8_non_ascii = False
    raw_lines = data.split(b"\n")
    for index, raw in enumerate(raw_lines):
        if raw.isascii():
            pieces.append(raw.decode("ascii"))
            continue
        try:
            pieces.append(raw.decode("utf-8"))
            utf8_non_ascii = True
        except UnicodeDecodeError:
            pieces.append(None)
            foreign.append(index)
    others = [raw_lines[i] for i in foreign]
    encoding = _foreign_encoding(others, len(data))
    if encoding is None:
        return None
    for index, raw in zip(foreign, others, strict=True):
        pieces[index] = raw.decode(encoding)
    text = "\n".join(piece or "" for piece in pieces)
    lines = tuple(i + 1 for i in foreign) if utf8_non_ascii else ()
    return DecodedText(text, encoding, lines)


def _foreign_encoding(lines: list[bytes], size: int) -> str | None:
    """The one encoding the lines that are not UTF-8 (of a file of ``size`` bytes) read
    plausibly in, or None."""
    try:
        decoded = [raw.decode("gb18030") for raw in lines]
    except UnicodeDecodeError:
        decoded = None
    if decoded is not None and _reads_as_gb_text("\n".join(decoded)):
        return "gb18030"
    high = sum(len(raw) - len(raw.decode("ascii", "ignore")) for raw in lines)
    if high > max(_LATIN_FEW_BYTES, _LATIN_HIGH_SHARE * size) or any(
        _LATIN_RUN_RE.search(raw) for raw in lines
    ):
        return None
    used = set().union(*(set(raw) for raw in lines))
    if used & _CP1252_UNDEFINED:
        return None
    return "windows-1252" if any(0x80 <= b <= 0x9F for b in used) else "iso-8859-1"


def _reads_as_gb_text(text: str) -> bool:
    """True when the non-ASCII characters of a GB18030 reading look like Chinese text: no
    private-use or unassigned character, no four-byte one but a CJK ideograph, and mostly
    common two-byte ones (see _GB_COMMON_SHARE)."""
    chars = list(itertools.islice((c for c in text if c > "\x7f"), _GB_SAMPLE_CHARS))
    if not chars:
        return False
    common = 0
    for char in chars:
        if unicodedata.category(char) in {"Co", "Cn", "Cs", "Cc"}:
            return False
        raw = char.encode("gb18030")
        if len(raw) == 2:
            lead, trail = raw
            if trail >= 0xA1 and lead in _GB_COMMON_ROWS:
                common += 1
        elif not unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH"):
            return False
    return common >= _GB_COMMON_SHARE * len(chars)


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


def split_label(line: str, colons: str = ":") -> tuple[str, str] | None:
    r"""``line`` cut at its first colon (any character of ``colons``): the text before it as it
    is (the caller strips it and checks its shape) and the value after it without the blanks
    around it; None when the line has no colon.

    This is what ``^\s*(.*?)\s*:\s*(.*?)\s*$`` matches, in time linear in the line's length: in
    such a pattern the lazy group and the ``\s*`` after it both take blanks, so a long run of
    blanks that no colon (or no line end) follows is retried from every position in it,
    quadratic (a 64 KB line held a worker for seconds).
    """
    cut = -1
    for colon in colons:
        found = line.find(colon, 0, cut if cut >= 0 else len(line))
        if found >= 0:
            cut = found
    if cut < 0:
        return None
    return line[:cut], line[cut + 1 :].strip()


# The markers of a markdown blockquote: a reply that quotes a pasted output puts "> " (and
# "> > " when quoting a quote) before each of its lines, indented when the quote sits in a
# list item.
_QUOTE_MARK_RE = re.compile(r"^[ \t]*(?:>[ \t]?)+")


def unquote(line: str) -> str:
    """``line`` without the markdown blockquote markers before it ("> ", "> > ") and the
    blanks before them; unchanged otherwise. No tool output these parsers read starts a line
    with ">"."""
    if ">" not in line or not line.lstrip(" \t").startswith(">"):
        return line
    return _QUOTE_MARK_RE.sub("", line, count=1)


_QUOTE_SCAN_LINES = 200
_QUOTE_SHARE = 0.8


def unquote_text(text: str) -> str:
    """``text`` without markdown blockquote markers when they start nearly every line (80% of
    the first 200 non-empty ones): an output pasted into a reply that quotes it. Otherwise
    ``text`` unchanged. Lines keep their number."""
    if ">" not in text[:4096]:
        return text
    lines = text.split("\n")
    window = list(itertools.islice((line for line in lines if line.strip()), _QUOTE_SCAN_LINES))
    quoted = sum(1 for line in window if _QUOTE_MARK_RE.match(line))
    if not window or quoted < _QUOTE_SHARE * len(window):
        return text
    return "\n".join(unquote(line) for line in lines)


# Quoted-printable (RFC 2045), as a mail archive keeps a message body: every "=" of the text is
# written "=3D", a long line is broken with a trailing "=" (a soft break), other bytes "=XX".
_QP_LONE_EQUALS_RE = re.compile(r"=(?![0-9A-F]{2}|\r?$)", re.MULTILINE)
_QP_MIN_ESCAPES = 3


def decode_quoted_printable(text: str) -> str | None:
    """``text`` decoded from quoted-printable, or None when it is not: at least three "=3D" and
    no "=" that is neither an escape nor a soft break (a plain output writes "=" bare). Soft
    breaks join their lines, so the decoded text has fewer lines."""
    if text.count("=3D") < _QP_MIN_ESCAPES or _QP_LONE_EQUALS_RE.search(text):
        return None
    return quopri.decodestring(text.encode("utf-8")).decode("utf-8", "replace")


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


# NVML's name for a GPU its driver's product table does not list yet (a board newer than the
# driver, pre-release silicon): NVIDIA's own captures of Rubin on driver 615 and of GB200 in
# nccl-tests read "NVIDIA Graphics Device". It names no model.
_PLACEHOLDER_GPU_NAME = "nvidia graphics device"


def placeholder_gpu_name_warning(names: list[str | None]) -> str | None:
    """A warning when a GPU name is the driver's placeholder (or that name cut by a table with
    "..."): the model must come from elsewhere (the PCI device id). None otherwise."""
    for name in names:
        lowered = (name or "").strip().lower()
        shown = lowered.rstrip(".").rstrip()
        if lowered == _PLACEHOLDER_GPU_NAME or (
            lowered.endswith("...") and len(shown) >= 17 and _PLACEHOLDER_GPU_NAME.startswith(shown)
        ):
            return (
                f"GPU name '{name}' is the driver's placeholder for a GPU its product table does "
                "not know (a board newer than the driver): it names no model"
            )
    return None


def c2c_mode(raw: str | None) -> str | None:
    """A GPU's NVLink-C2C mode as nvidia-smi prints it ("GPU C2C Mode" of -q, <c2c_mode> of -q
    -x; NVML nvmlDeviceGetC2cModeInfoV): "Enabled" or "Disabled", None for N/A (no C2C link, or
    a driver that does not report it) and anything else."""
    value = (raw or "").strip().lower()
    return {"enabled": "Enabled", "disabled": "Disabled"}.get(value)


def c2c_enabled_gpus(modes: list[str | None]) -> int | None:
    """How many GPUs report their NVLink-C2C link enabled; None when none reports a mode.

    Only a Grace superchip's GPU (GH200, GB200, GB300) has that link to its CPU. x86 drivers of
    the 545 series print "Disabled" on an H100 where later ones print N/A, so "Disabled" on a
    GPU without a Grace says nothing about the GPU: the count reads as "none enabled" there."""
    known = [mode for mode in modes if mode is not None]
    return sum(1 for mode in known if mode == "Enabled") if known else None
