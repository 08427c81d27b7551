"""Opening evidence uploads: collector bundles with their manifest, or one loose file.

An upload is either a bundle made by ``collector/collect.py`` (``manifest.json`` plus one file
per command output, as tar.gz, tar or zip) or one loose tool output. Archives are recognised
by their magic bytes, never by the file name, and read safely in memory by ``archive.py``
(which lists what rejects a whole upload with ``BundleRejected``). A bundle must hold a valid
``manifest.json``; members it does not list are still parsed, with a warning.

``manifest.json`` (schema_version 1)::

    {"schema_version": 1, "collector_version": "1.0.0", "hostname": "gpu-node-01",
     "started_at": "2025-06-05T09:12:00Z", "finished_at": "2025-06-05T09:14:31Z",
     "nonce": "portal-issued-nonce" | null,
     "commands": [{"name": "nvidia-smi-topo", "argv": ["nvidia-smi", "topo", "-m"],
                   "output": "nvidia-smi-topo.txt" | null, "exit_code": 0 | null,
                   "duration_s": 0.41 | null, "missing": false,
                   "timed_out": false, "error": null, "stderr": null}]}

Required: collector_version, hostname, started_at and finished_at (ISO 8601 with a time zone,
convertible to UTC and not before 2000: ``times.py``),
commands (each with name, argv, output, exit_code, duration_s). Optional: schema_version
(only 1 is known), nonce, and per command missing, timed_out, error, stderr. Unknown keys are
ignored so that a newer collector can add fields. The manifest's sizes and names are never
trusted for reading: it only labels what the archive itself holds.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, BinaryIO

from . import nccl
from .archive import (
    ARCHIVE_HEAD_BYTES,
    DEFAULT_MAX_MEMBER_BYTES,
    DEFAULT_MAX_MEMBERS,
    DEFAULT_MAX_RATIO,
    DEFAULT_MAX_TOTAL_BYTES,
    BundleLimits,
    BundleRejected,
    Member,
    archive_format,
    is_archive,
    read_upload,
    reads_as_archive,
    safe_member_name,
)
from .base import UNKNOWN, EvidenceParseError, Fact, decode_evidence
from .base import detail as _detail
from .registry import detect_kind, parse_text
from .times import EvidenceTimeRefused, manifest_time_check

__all__ = [
    "ARCHIVE_HEAD_BYTES",
    "BundleLimits",
    "BundleRejected",
    "EvidenceSet",
    "EvidenceTimeRefused",
    "Manifest",
    "ManifestCommand",
    "Member",
    "MemberResult",
    "archive_format",
    "is_archive",
    "open_evidence",
    "parse_evidence",
    "parse_evidence_set",
    "parse_manifest",
    "parse_member",
    "reads_as_archive",
    "safe_member_name",
]

MANIFEST_NAME = "manifest.json"
MANIFEST_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ManifestCommand:
    """One command the collector ran (or could not run) and where its stdout went."""

    name: str
    argv: tuple[str, ...]
    output: str | None
    exit_code: int | None
    duration_s: float | None
    missing: bool = False
    timed_out: bool = False
    error: str | None = None
    stderr: str | None = None

    @property
    def command_line(self) -> str:
        return " ".join(self.argv) if self.argv else self.name


@dataclass(frozen=True)
class Manifest:
    """The validated ``manifest.json`` of a collector bundle."""

    collector_version: str
    hostname: str
    started_at: datetime
    finished_at: datetime
    nonce: str | None
    commands: tuple[ManifestCommand, ...]
    schema_version: int = MANIFEST_SCHEMA_VERSION


@dataclass(frozen=True)
class EvidenceSet:
    """An opened upload: a bundle (manifest and members) or one loose file (no manifest)."""

    name: str
    members: tuple[Member, ...]
    manifest: Manifest | None = None

    @property
    def is_bundle(self) -> bool:
        return self.manifest is not None

    def get(self, name: str) -> Member | None:
        return next((m for m in self.members if m.name == name), None)

    @property
    def unlisted(self) -> tuple[str, ...]:
        """Names of members that the manifest does not list as a command output."""
        if self.manifest is None:
            return ()
        listed = {c.output for c in self.manifest.commands}
        return tuple(m.name for m in self.members if m.name not in listed)


@dataclass(frozen=True)
class MemberResult:
    """The outcome of parsing one evidence file (or of one command the collector recorded).

    ``missing`` is true when the collector did not produce this output at all (tool not
    installed, step skipped); such a result has ``ok`` false but is not a parse failure.
    ``exit_code`` is the command's exit code from the manifest (None for loose files).
    """

    file: str
    kind: str
    ok: bool
    error: str | None
    metrics: dict[str, Any] = field(default_factory=dict)
    facts: tuple[Fact, ...] = ()
    warnings: tuple[str, ...] = ()
    exit_code: int | None = None
    missing: bool = False
    command: str | None = None
    # ``error`` as data ({code, params, line, kind, message}, see EvidenceError.detail) for
    # a reader in another language; None when ``ok``.
    error_detail: dict[str, Any] | None = None
    # The coded form of warnings the portal shows in the reader's language (base.detail):
    # how a file that is not UTF-8 was read.
    notes: tuple[dict[str, Any], ...] = ()


# --------------------------------------------------------------------------- opening


def open_evidence(
    name: str,
    data: bytes | BinaryIO,
    *,
    max_members: int = DEFAULT_MAX_MEMBERS,
    max_member_bytes: int = DEFAULT_MAX_MEMBER_BYTES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    max_ratio: float = DEFAULT_MAX_RATIO,
) -> EvidenceSet:
    """Open an upload held in memory or in a readable binary stream; never touches the disk.

    ``name`` is the upload's file name, used only as a label. Raises ``BundleRejected`` for an
    unsafe or oversized archive, an archive without a valid manifest, or a loose file above
    ``max_member_bytes``. Caps: at most ``max_members`` entries, ``max_member_bytes`` per
    file, ``max_total_bytes`` in all, and an inflated/compressed ratio of ``max_ratio``.
    """
    limits = BundleLimits(max_members, max_member_bytes, max_total_bytes, max_ratio)
    stream: BinaryIO = (
        io.BytesIO(bytes(data)) if isinstance(data, bytes | bytearray | memoryview) else data
    )
    label = _loose_name(name)
    fmt, files = read_upload(stream, limits, label)
    if fmt is None:
        return EvidenceSet(label, tuple(files), None)
    manifest_member = next((m for m in files if m.name == MANIFEST_NAME), None)
    if manifest_member is None:
        raise BundleRejected(
            f"{MANIFEST_NAME} is missing: a bundle must be made by the collector "
            "(loose tool outputs can be uploaded one file at a time instead)",
            code="manifest.missing",
        )
    manifest = parse_manifest(manifest_member.data)
    return EvidenceSet(label, tuple(m for m in files if m.name != MANIFEST_NAME), manifest)


def _loose_name(name: str) -> str:
    # The name comes from the client: keep only a printable base name for display.
    base = re.split(r"[/\\]", name)[-1]
    base = "".join(ch for ch in base if ch.isprintable())
    return base or "upload"


# --------------------------------------------------------------------------- manifest


def parse_manifest(data: bytes) -> Manifest:
    """Validate ``manifest.json`` (schema in the module docstring); BundleRejected if invalid."""
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BundleRejected(
            f"{MANIFEST_NAME} is not valid JSON ({exc})",
            code="manifest.bad_json",
            params={"detail": exc},
        ) from None
    if not isinstance(doc, dict):
        raise BundleRejected(f"{MANIFEST_NAME} must hold a JSON object", code="manifest.not_object")
    schema = doc.get("schema_version", MANIFEST_SCHEMA_VERSION)
    if schema != MANIFEST_SCHEMA_VERSION:
        raise BundleRejected(
            f"{MANIFEST_NAME}: unsupported schema_version {schema!r} "
            f"(this portal reads version {MANIFEST_SCHEMA_VERSION})",
            code="manifest.schema_version",
            params={"schema": repr(schema), "supported": MANIFEST_SCHEMA_VERSION},
        )
    commands_raw = _field(doc, "commands", list)
    commands = tuple(_parse_command(i, raw) for i, raw in enumerate(commands_raw, start=1))
    outputs = [c.output for c in commands if c.output is not None]
    for output in outputs:
        if outputs.count(output) > 1:
            raise BundleRejected(
                f"{MANIFEST_NAME}: output {output!r} is listed twice",
                code="manifest.output_twice",
                params={"output": output},
            )
    nonce = doc.get("nonce")
    if nonce is not None and not isinstance(nonce, str):
        raise BundleRejected(
            f"{MANIFEST_NAME}: 'nonce' must be a string or null", code="manifest.nonce_type"
        )
    return Manifest(
        collector_version=_nonempty(doc, "collector_version"),
        hostname=_nonempty(doc, "hostname"),
        started_at=_timestamp(doc, "started_at"),
        finished_at=_timestamp(doc, "finished_at"),
        nonce=nonce,
        commands=commands,
        schema_version=MANIFEST_SCHEMA_VERSION,
    )


_TYPE_NAMES = {str: "a string", list: "a list", dict: "an object", bool: "true or false"}


def _field(doc: dict[str, Any], key: str, kind: type, index: int | None = None) -> Any:
    """``doc[key]`` checked to be a ``kind``; ``index`` numbers the command ``doc`` is, if one."""
    where = "" if index is None else f"command {index}: "
    if key not in doc:
        raise BundleRejected(
            f"{MANIFEST_NAME}: {where}required key {key!r} is missing",
            code="manifest.missing_key" if index is None else "manifest.command_missing_key",
            params={"key": key, "command": index},
        )
    value = doc[key]
    if not isinstance(value, kind):
        raise BundleRejected(
            f"{MANIFEST_NAME}: {where}{key!r} must be {_TYPE_NAMES[kind]}",
            code="manifest.key_type" if index is None else "manifest.command_key_type",
            params={"key": key, "command": index, "type": _TYPE_NAMES[kind]},
        )
    return value


def _nonempty(doc: dict[str, Any], key: str) -> str:
    value: str = _field(doc, key, str)
    if not value.strip():
        raise BundleRejected(
            f"{MANIFEST_NAME}: {key!r} is empty", code="manifest.empty_key", params={"key": key}
        )
    return value


def _timestamp(doc: dict[str, Any], key: str) -> datetime:
    text = _field(doc, key, str)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BundleRejected(
            f"{MANIFEST_NAME}: {key!r} is not an ISO 8601 time: {text!r}",
            code="manifest.bad_time",
            params={"key": key, "text": text},
        ) from None
    if moment.tzinfo is None:
        raise BundleRejected(
            f"{MANIFEST_NAME}: {key!r} has no time zone: {text!r}",
            code="manifest.no_time_zone",
            params={"key": key, "text": text},
        )
    manifest_time_check(moment, key=key, text=text)
    return moment


def _parse_command(index: int, raw: Any) -> ManifestCommand:
    where = f"command {index}: "
    if not isinstance(raw, dict):
        raise BundleRejected(
            f"{MANIFEST_NAME}: {where}must be an object",
            code="manifest.command_not_object",
            params={"command": index},
        )
    name = _field(raw, "name", str, index)
    argv = _field(raw, "argv", list, index)
    if not all(isinstance(a, str) for a in argv):
        raise BundleRejected(
            f"{MANIFEST_NAME}: {where}'argv' must be a list of strings",
            code="manifest.command_argv",
            params={"command": index},
        )
    for key in ("output", "exit_code", "duration_s"):
        if key not in raw:
            raise BundleRejected(
                f"{MANIFEST_NAME}: {where}required key {key!r} is missing",
                code="manifest.command_missing_key",
                params={"command": index, "key": key},
            )
    output = raw["output"]
    if output is not None:
        if not isinstance(output, str):
            raise BundleRejected(
                f"{MANIFEST_NAME}: {where}'output' must be a string or null",
                code="manifest.command_output_type",
                params={"command": index},
            )
        output = safe_member_name(output)
        if output == MANIFEST_NAME:
            raise BundleRejected(
                f"{MANIFEST_NAME}: {where}'output' cannot be the manifest",
                code="manifest.command_output_manifest",
                params={"command": index},
            )
    exit_code = raw["exit_code"]
    if exit_code is not None and (isinstance(exit_code, bool) or not isinstance(exit_code, int)):
        raise BundleRejected(
            f"{MANIFEST_NAME}: {where}'exit_code' must be an integer or null",
            code="manifest.command_exit_code",
            params={"command": index},
        )
    duration = raw["duration_s"]
    if duration is not None and (
        isinstance(duration, bool) or not isinstance(duration, int | float) or duration < 0
    ):
        raise BundleRejected(
            f"{MANIFEST_NAME}: {where}'duration_s' must be seconds >= 0 or null",
            code="manifest.command_duration",
            params={"command": index},
        )
    flags = {k: raw.get(k, False) for k in ("missing", "timed_out")}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise BundleRejected(
                f"{MANIFEST_NAME}: {where}{key!r} must be true or false",
                code="manifest.command_flag",
                params={"command": index, "key": key},
            )
    texts = {k: raw.get(k) for k in ("error", "stderr")}
    for key, value in texts.items():
        if value is not None and not isinstance(value, str):
            raise BundleRejected(
                f"{MANIFEST_NAME}: {where}{key!r} must be a string or null",
                code="manifest.command_text",
                params={"command": index, "key": key},
            )
    return ManifestCommand(
        name=name,
        argv=tuple(argv),
        output=output,
        exit_code=exit_code,
        duration_s=None if duration is None else float(duration),
        missing=flags["missing"],
        timed_out=flags["timed_out"],
        error=texts["error"],
        stderr=texts["stderr"],
    )


# --------------------------------------------------------------------------- parsing


def parse_evidence(name: str, data: bytes | BinaryIO, **caps: Any) -> list[MemberResult]:
    """Open an upload and parse every evidence file in it, in manifest order.

    Raises ``BundleRejected`` for the whole upload; a file that does not parse is a result
    with ``ok`` false and the parser's message, never an exception. ``caps`` are the keyword
    arguments of ``open_evidence``.
    """
    return parse_evidence_set(open_evidence(name, data, **caps))


def parse_evidence_set(evidence: EvidenceSet) -> list[MemberResult]:
    """Parse the members of an opened upload; commands come first, then unlisted members."""
    if evidence.manifest is None:
        return [parse_member(m) for m in evidence.members]
    by_name = {m.name: m for m in evidence.members}
    results = [_command_result(c, by_name.get(c.output or "")) for c in evidence.manifest.commands]
    for member_name in evidence.unlisted:
        result = parse_member(by_name[member_name])
        results.append(_with(result, warnings=(*result.warnings, "not listed in manifest.json")))
    return results


# The kind a command's output should be, from its argv; only a hint that the content confirms.
_TOOL_KINDS = {
    "ibstat": "ibstat",
    "ibstatus": "ibstat",
    "lspci": "lspci",
    "lscpu": "cpu_info",
    "dmidecode": "dmi",
    "systemd-detect-virt": "virt",
    "fio": "fio",
    "dcgmi": "dcgm_diag",
    "dmesg": "kernel_log",
    "journalctl": "kernel_log",
    "ping": "rtt",
    "ping6": "rtt",
    "fping": "rtt",
    "nvbandwidth": "nvbandwidth",
    "npu-smi": "npu_smi",
}


def command_kind(argv: tuple[str, ...]) -> str | None:
    """The evidence kind ``argv`` is expected to print, or None when it is not known."""
    if not argv:
        return None
    tool = argv[0].rsplit("/", 1)[-1]
    rest = argv[1:]
    if tool == "nvidia-smi":
        if "topo" in rest:
            return "nvidia_smi_topo"
        if "nvlink" in rest:
            return "nvidia_smi_nvlink"
        if "mig" in rest:
            return "nvidia_smi_mig"
        if "-L" in rest or "--list-gpus" in rest:
            return "nvidia_smi_list"
        if ("-q" in rest or "--query" in rest) and ("-x" in rest or "--xml-format" in rest):
            return "nvidia_smi_xml"
        if "-q" in rest or "--query" in rest or any(a.startswith("--query-") for a in rest):
            return "nvidia_smi_query"
        return None if rest else "nvidia_smi"
    if tool.endswith("_perf"):
        return "nccl_tests"
    if tool.startswith("ib_") and tool.endswith(("_bw", "_lat")):
        return "perftest"
    return _TOOL_KINDS.get(tool)


class _Undecodable(Exception):
    """A packed member's text stopped decoding as UTF-8 part-way (it is then read whole)."""


# Every detector reads at most the first 256 Ki characters of a text (virt only asks whether
# it exceeds 4 KiB): detecting a big file's kind from a head this long gives the same kind.
_DETECT_HEAD_CHARS = 256 * 1024


def _packed_text(member: Member) -> tuple[str, Iterator[str]] | None:
    """A packed (big) member's head and an iterator over all its lines, decoded block by
    block: the text is never held whole. None when it must be decoded whole (UTF-16, NUL
    bytes or bytes that are not UTF-8 in the head: decode_evidence reads it or says why)."""
    head = b""
    for block in member.blocks():  # decode_evidence's checks look at the first 64 KiB
        head += block
        if len(head) >= 65536 + 3:
            break
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    if b"\x00" in head.removeprefix(b"\xef\xbb\xbf")[:65536]:
        return None
    del head
    chunks = member.text_chunks()
    pieces: list[str] = []
    held = 0
    try:
        while held <= _DETECT_HEAD_CHARS:
            piece = next(chunks, None)
            if piece is None:
                break
            pieces.append(piece)
            held += len(piece)
    except UnicodeDecodeError:
        return None

    def lines() -> Iterator[str]:
        for piece in pieces:
            yield from piece.splitlines()
        pieces.clear()
        try:
            for text in chunks:
                yield from text.splitlines()
        except UnicodeDecodeError:
            raise _Undecodable from None

    head = "".join(pieces) if len(pieces) > 1 else pieces[0]
    return head[: _DETECT_HEAD_CHARS + 1], lines()


def parse_member(member: Member, *, hint: str | None = None) -> MemberResult:
    """Detect the kind of one file from its content (``hint`` first) and parse it. How a file
    that is not UTF-8 was read is added to the result's warnings and notes."""
    kind = UNKNOWN
    notes: tuple[dict[str, Any], ...] = ()
    try:
        parsed = None
        packed = _packed_text(member) if member.packed else None
        if packed is not None:
            # A big file, read block by block: an nccl log is parsed line by line, never
            # held as one text (logs reach 64 MiB).
            head, lines = packed
            kind = detect_kind(head, hint)
            del head
            if kind == nccl.KIND:
                try:
                    parsed = nccl.parse_lines(lines)
                except _Undecodable:
                    kind = UNKNOWN  # not UTF-8 further on: read whole below, as a held file
            else:
                lines.close()
        if parsed is None:
            decoded = decode_evidence(member.data)
            notes = decoded.notes
            if packed is None or kind == UNKNOWN:
                kind = detect_kind(decoded.text, hint)
            if kind == nccl.KIND:
                # Streamed: one fact per table, never a list of every line.
                parsed = nccl.parse_lines(nccl.iter_lines(decoded.text))
            else:
                parsed = parse_text(decoded.text, kind)
            if notes:
                parsed = replace(
                    parsed,
                    warnings=(*decoded.warnings, *parsed.warnings),
                    notes=(*notes, *parsed.notes),
                )
    except EvidenceParseError as exc:
        return MemberResult(
            member.name,
            exc.kind or kind,
            False,
            str(exc),
            warnings=tuple(note["message"] for note in notes),
            error_detail=exc.detail(),
            notes=notes,
        )
    except Exception as exc:  # a parser bug must not lose the other files of the bundle
        message = f"internal parser error ({type(exc).__name__}: {exc})"
        detail = _detail("parser.internal", message, error=f"{type(exc).__name__}: {exc}")
        return MemberResult(member.name, kind, False, message, error_detail=detail)
    return MemberResult(
        member.name,
        parsed.kind,
        True,
        None,
        parsed.metrics,
        parsed.facts,
        parsed.warnings,
        notes=parsed.notes,
    )


def _with(result: MemberResult, **changes: Any) -> MemberResult:
    values = {name: getattr(result, name) for name in MemberResult.__dataclass_fields__}
    values.update(changes)
    return MemberResult(**values)


def _command_result(command: ManifestCommand, member: Member | None) -> MemberResult:
    label = command.output or command.name
    shown = f"`{command.command_line}`"
    if command.missing:
        tool = command.argv[0] if command.argv else command.name
        reason = command.error or f"{tool} is not installed on the node"
        why = command.error or _detail("command.not_installed", reason, tool=tool)
        return MemberResult(
            label,
            UNKNOWN,
            False,
            f"not collected: {reason}",
            missing=True,
            command=command.command_line,
            error_detail=_detail("command.not_collected", f"not collected: {reason}", reason=why),
        )
    if member is None:
        if command.output is None or (command.exit_code is None and not command.timed_out):
            reason = command.error or "the collector did not run it"
            why = command.error or _detail("command.not_run", reason)
            return MemberResult(
                label,
                UNKNOWN,
                False,
                f"not collected: {reason}",
                exit_code=command.exit_code,
                missing=True,
                command=command.command_line,
                error_detail=_detail(
                    "command.not_collected", f"not collected: {reason}", reason=why
                ),
            )
        message = f"{command.output!r} is listed in manifest.json but not in the bundle"
        return MemberResult(
            label,
            UNKNOWN,
            False,
            message,
            exit_code=command.exit_code,
            command=command.command_line,
            error_detail=_detail("command.output_missing", message, output=command.output),
        )
    result = parse_member(member, hint=command_kind(command.argv))
    notes: list[str] = []
    if command.timed_out:
        notes.append(f"{shown} timed out; its output may be incomplete")
    failed = command.exit_code not in (0, None)
    if failed and result.ok:
        notes.append(f"{shown} exited with code {command.exit_code}")
    error, detail = result.error, result.error_detail
    if failed and not result.ok:
        stderr = (command.stderr or "").strip()
        printed = "printed nothing" if not member.data.strip() else str(error)
        error = f"{shown} failed with exit code {command.exit_code}: {printed}"
        if stderr:
            error += f" (stderr: {stderr[-300:]})"
        detail = _detail(
            "command.failed_stderr" if stderr else "command.failed",
            error,
            command=command.command_line,
            exit_code=command.exit_code,
            detail=_detail("command.printed_nothing", printed)
            if not member.data.strip()
            else result.error_detail,
            stderr=stderr[-300:],
        )
    return _with(
        result,
        error=error,
        error_detail=detail,
        warnings=(*notes, *result.warnings),
        exit_code=command.exit_code,
        command=command.command_line,
    )
