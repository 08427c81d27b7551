"""Safe streaming reads of tar, tar.gz and zip uploads held in memory, under size caps.

Nothing is ever extracted or written to disk: members are read as streams into bytes and
their names are only labels. The whole upload is rejected with ``BundleRejected`` (nothing
partial is returned) when any member is unsafe or a cap is passed:

- names with a ``..`` component, a leading ``/``, a backslash, a drive letter (``C:``), a NUL
  or another control character;
- symbolic or hard links, devices, FIFOs, sockets, sparse files or any other non-regular
  member (directory entries are accepted and skipped: they carry no data and ``tar czf`` of
  a folder makes them);
- duplicate names, more than ``max_members`` members, a member over ``max_member_bytes``,
  members adding up to more than ``max_total_bytes``, or an inflated/compressed ratio above
  ``max_ratio`` (checked once more than 1 MiB has been inflated: tiny archives of tar padding
  legitimately reach 50:1); encrypted zip members; a zip header whose sizes cannot be true.

Sizes declared by headers are never trusted: bytes are counted as they are inflated and
reading stops as soon as a cap is passed, so a bomb is never inflated into memory.
"""

from __future__ import annotations

import io
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from .base import EvidenceError

MIB = 1 << 20
DEFAULT_MAX_MEMBERS = 200
DEFAULT_MAX_MEMBER_BYTES = 64 * MIB
DEFAULT_MAX_TOTAL_BYTES = 256 * MIB
DEFAULT_MAX_RATIO = 200.0
_CHUNK = 64 * 1024
# Files above this are held deflated (level 1, in blocks) rather than as plain bytes.
PACK_ABOVE_BYTES = 4 * MIB
BLOCK_BYTES = MIB
# Below this many inflated bytes the ratio is not checked: a tar of a few small text files is
# mostly zero padding and compresses far better than real data.
_RATIO_FLOOR_BYTES = MIB
# Tar headers, long-name records and padding around members; generous on purpose.
_TAR_OVERHEAD_PER_MEMBER = 4096
# A zip central-directory entry is 46 bytes plus name, extra field and comment.
_ZIP_DIRECTORY_BYTES_PER_MEMBER = 4096
_DRIVE_LETTER = re.compile(r"^[A-Za-z]:")


class BundleRejected(EvidenceError):
    """The whole upload is refused; ``reason`` says which member or cap is at fault."""

    def __init__(self, reason: str, *, code: str = "", params: dict[str, Any] | None = None):
        self.reason = reason
        self._set_code(code, params)
        super().__init__(reason)


@dataclass(frozen=True)
class BundleLimits:
    """The caps applied while reading an upload (all counts and bytes are inclusive maxima)."""

    max_members: int = DEFAULT_MAX_MEMBERS
    max_member_bytes: int = DEFAULT_MAX_MEMBER_BYTES
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES
    max_ratio: float = DEFAULT_MAX_RATIO

    def __post_init__(self) -> None:
        for name in ("max_members", "max_member_bytes", "max_total_bytes", "max_ratio"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")


@dataclass(frozen=True)
class Member:
    """One evidence file: its name inside the bundle (or the upload's name) and its bytes.

    A file over ``PACK_ABOVE_BYTES`` (a long nccl log) is held deflated in blocks of
    ``BLOCK_BYTES`` (``packed``; ``held`` is then empty) so that an import never holds its
    text twice: ``blocks()`` and ``text_chunks()`` inflate one block at a time; ``data``
    joins them, for the callers that need the whole file at once.
    """

    name: str
    held: bytes
    size_bytes: int
    packed: tuple[bytes, ...] = field(default=(), repr=False)

    @property
    def data(self) -> bytes:
        """The whole file (inflated when packed: big, so streaming readers use blocks())."""
        return b"".join(self.blocks()) if self.packed else self.held

    def blocks(self) -> Iterator[bytes]:
        """The file's bytes, one block at a time."""
        if not self.packed:
            yield self.held
            return
        for block in self.packed:
            yield zlib.decompress(block)

    def line_blocks(self) -> Iterator[bytes]:
        """The file's bytes in pieces that end after a newline (the last one may not): a
        line is never split, nor a UTF-8 character (a newline byte is never inside one)."""
        if not self.packed:
            yield self.held
            return
        carry = b""
        for block in self.blocks():
            end = block.rfind(b"\n") + 1
            if end == 0:
                carry += block
                continue
            yield carry + block[:end]
            carry = block[end:]
        if carry:
            yield carry

    def text_chunks(self, errors: str = "strict") -> Iterator[str]:
        """The file decoded as UTF-8 (a BOM dropped), piece by piece: together they are
        ``data.decode("utf-8", errors)`` without the BOM, split only after newlines."""
        first = True
        for piece in self.line_blocks():
            if first and piece.startswith(b"\xef\xbb\xbf"):
                piece = piece[3:]
            first = False
            yield piece.decode("utf-8", errors)


# --------------------------------------------------------------------------- format detection


def archive_format(head: bytes) -> str | None:
    """Return "tar.gz", "zip" or "tar" from an upload's first 512 bytes, or None (loose file)."""
    if head[:2] == b"\x1f\x8b":
        return "tar.gz"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if head[257:262] == b"ustar":
        return "tar"
    return None


def is_archive(data: bytes) -> bool:
    """True when ``data`` starts like a gzip, zip or ustar archive (magic bytes, not name)."""
    return archive_format(data[:512]) is not None


# The upload's first bytes that ``reads_as_archive`` needs at most: a gzip header with its
# optional name and comment, and enough deflate data for one inflated tar header.
ARCHIVE_HEAD_BYTES = 64 * 1024


def reads_as_archive(head: bytes) -> bool:
    """Whether an upload that starts with ``head`` (its first ARCHIVE_HEAD_BYTES, or all of a
    shorter one) is read as an archive by ``read_upload``: a zip, a ustar tar, or a gzip that
    holds a tar. One gzip-compressed file (``nccl.log.gz``) is a loose file. A gzip that does
    not inflate counts as an archive (it is refused as one). Inflates at most 512 bytes."""
    fmt = archive_format(head[:512])
    if fmt != "tar.gz":
        return fmt is not None
    try:
        first = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS).decompress(head, 512)
    except zlib.error:
        return True
    return _tar_header(first)


def read_upload(
    stream: BinaryIO, limits: BundleLimits, label: str
) -> tuple[str | None, list[Member]]:
    """Read an upload from ``stream``: (format, its regular members in archive order).

    A loose file (no archive magic, or one gzip-compressed file that holds no tar) gives
    ``(None, [Member(label, whole file)])``.
    """
    head = _read_exactly(stream, 512)
    fmt = archive_format(head)
    if fmt is None:
        return None, [_read_loose(head, stream, limits, label)]
    source = _Prefixed(head, stream)
    if fmt == "zip":
        return fmt, _read_zip(source, limits)
    if fmt == "tar":
        return fmt, _read_tar(
            _BoundedSource(source, limits, compressed=False), limits, compressed=False
        )
    # gzip: a compressed tar (a bundle), or one gzip-compressed file (``nccl.log.gz``), which
    # is a loose file like any other once inflated (the caps and the ratio check still apply).
    inflated = _BoundedSource(source, limits, compressed=True)
    first = _read_exactly(inflated, 512)
    if not _tar_header(first):
        name = label[:-3] if label.lower().endswith(".gz") and len(label) > 3 else label
        return None, [_read_loose(first, inflated, limits, name)]
    return fmt, _read_tar(_Prefixed(first, inflated), limits, compressed=True)


def _tar_header(block: bytes) -> bool:
    """True when ``block`` (the first 512 bytes) is a tar header, checksum and all, or the
    zero block of an empty tar."""
    if len(block) < 512:
        return False
    if block[257:262] == b"ustar" or block == bytes(512):
        return True
    try:
        tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return False
    return True


def _read_loose(head: bytes, stream: Any, limits: BundleLimits, label: str) -> Member:
    """One file, ``head`` then the rest of ``stream``, capped at the per-file size."""
    holder = _Holder()
    holder.add(head)
    while holder.size <= limits.max_member_bytes:
        chunk = stream.read(min(_CHUNK, limits.max_member_bytes - holder.size + 1))
        if not chunk:
            break
        holder.add(chunk)
    if holder.size > limits.max_member_bytes:
        raise BundleRejected(
            f"file {label!r} is larger than the {_size(limits.max_member_bytes)} cap",
            code="archive.file_too_large",
            params={"name": label, "cap": _size(limits.max_member_bytes)},
        )
    return holder.member(label)


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    parts: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        parts.append(chunk)
        remaining -= len(chunk)
    return b"".join(parts)


def _read_capped(stream: Any, limit: int) -> bytes:
    """Read until EOF or until ``limit`` bytes are held, whichever comes first."""
    parts: list[bytes] = []
    held = 0
    while held < limit:
        chunk = stream.read(min(_CHUNK, limit - held))
        if not chunk:
            break
        parts.append(chunk)
        held += len(chunk)
    return b"".join(parts)


class _Prefixed:
    """A read-only stream that first replays bytes already consumed for magic detection."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head = head
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = _CHUNK
        if self._head:
            out, self._head = self._head[:size], self._head[size:]
            return out
        return self._rest.read(size)


def _size(n: float) -> str:
    return f"{n / MIB:g} MiB" if n >= MIB else f"{int(n)} bytes"


# --------------------------------------------------------------------------- member checks


def safe_member_name(raw: str, *, directory: bool = False) -> str:
    """Return the normalised name (``./a//b`` -> ``a/b``) or raise BundleRejected if unsafe.

    A directory entry may name the archive's root (``./``): its normalised name is empty.
    """
    if "\x00" in raw:
        raise BundleRejected(
            f"member name {raw!r} contains a NUL byte",
            code="archive.name_nul",
            params={"name": raw},
        )
    if "\\" in raw:
        raise BundleRejected(
            f"member name {raw!r} contains a backslash",
            code="archive.name_backslash",
            params={"name": raw},
        )
    if raw.startswith("/"):
        raise BundleRejected(
            f"member name {raw!r} is an absolute path",
            code="archive.name_absolute",
            params={"name": raw},
        )
    if _DRIVE_LETTER.match(raw):
        raise BundleRejected(
            f"member name {raw!r} starts with a drive letter",
            code="archive.name_drive_letter",
            params={"name": raw},
        )
    if not raw.isprintable():  # some character is not (str.isprintable: one scan in C)
        raise BundleRejected(
            f"member name {raw!r} contains a control character",
            code="archive.name_control_char",
            params={"name": raw},
        )
    parts = raw.split("/")
    if ".." in parts:
        raise BundleRejected(
            f"member name {raw!r} has a '..' component (path traversal)",
            code="archive.name_traversal",
            params={"name": raw},
        )
    kept = [p for p in parts if p not in ("", ".")]
    if not kept and not directory:
        raise BundleRejected(
            f"member name {raw!r} is empty",
            code="archive.name_empty",
            params={"name": raw},
        )
    return "/".join(kept)


class _Tally:
    """Counts members and bytes across an archive and enforces the caps as data arrives."""

    def __init__(self, limits: BundleLimits):
        self.limits = limits
        self.members = 0
        self.total_bytes = 0
        self.names: set[str] = set()

    def add_entry(self) -> None:
        self.members += 1
        if self.members > self.limits.max_members:
            raise BundleRejected(
                f"too many members: more than {self.limits.max_members}",
                code="archive.too_many_members",
                params={"max": self.limits.max_members},
            )

    def add_name(self, name: str) -> None:
        if name in self.names:
            raise BundleRejected(
                f"duplicate member name {name!r}",
                code="archive.duplicate_name",
                params={"name": name},
            )
        self.names.add(name)

    def read_member(self, name: str, stream: Any, compressed_bytes: int | None = None) -> Member:
        """Read one member in chunks, counting against the per-member and total caps."""
        holder = _Holder()
        size = 0
        while True:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            self.total_bytes += len(chunk)
            if size > self.limits.max_member_bytes:
                raise BundleRejected(
                    f"member {name!r} is larger than the "
                    f"{_size(self.limits.max_member_bytes)} cap per file",
                    code="archive.member_too_large",
                    params={"name": name, "cap": _size(self.limits.max_member_bytes)},
                )
            if self.total_bytes > self.limits.max_total_bytes:
                raise BundleRejected(
                    "the bundle's files add up to more than the "
                    f"{_size(self.limits.max_total_bytes)} cap",
                    code="archive.files_too_large",
                    params={"cap": _size(self.limits.max_total_bytes)},
                )
            if compressed_bytes is not None:
                _check_ratio(size, compressed_bytes, self.limits, name)
            holder.add(chunk)
        return holder.member(name)


class _Holder:
    """Collects a file's bytes as they are read: plain up to PACK_ABOVE_BYTES (one buffer,
    never a list of chunks plus their join), then deflated block by block."""

    def __init__(self) -> None:
        self._buffer = io.BytesIO()
        self._packed: list[bytes] = []
        self.size = 0

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        self._buffer.write(chunk)
        packing = self._packed or self.size > PACK_ABOVE_BYTES
        if packing and self._buffer.tell() >= BLOCK_BYTES:
            self._pack(final=False)

    def _pack(self, *, final: bool) -> None:
        held = self._buffer.getbuffer()
        start = 0
        while len(held) - start >= BLOCK_BYTES or (final and start < len(held)):
            self._packed.append(zlib.compress(held[start : start + BLOCK_BYTES], 1))
            start += BLOCK_BYTES
        rest = bytes(held[start:])
        held.release()
        self._buffer = io.BytesIO()
        self._buffer.write(rest)

    def member(self, name: str) -> Member:
        if not self._packed:
            return Member(name, self._buffer.getvalue(), self.size)
        self._pack(final=True)
        return Member(name, b"", self.size, tuple(self._packed))


def _check_ratio(
    inflated: int, compressed: int, limits: BundleLimits, member: str | None = None
) -> None:
    """``member`` names the member checked; None checks the whole archive."""
    if inflated > _RATIO_FLOOR_BYTES and inflated > limits.max_ratio * max(compressed, 1):
        what = "the archive" if member is None else f"member {member!r}"
        raise BundleRejected(
            f"{what} inflates more than {limits.max_ratio:g} times its compressed size "
            "(compression bomb?)",
            code="archive.ratio" if member is None else "archive.member_ratio",
            params={"name": member, "ratio": f"{limits.max_ratio:g}"},
        )


# --------------------------------------------------------------------------- tar


class _BoundedSource:
    """The tar byte stream, inflated from gzip when needed, with the inflated size capped.

    Reads are bounded by the caller's request size, so a bomb is stopped after at most one
    chunk past a cap; ratio = inflated bytes / compressed bytes consumed so far.
    """

    def __init__(self, raw: Any, limits: BundleLimits, *, compressed: bool):
        self._raw = raw
        self._limits = limits
        self._compressed = compressed
        self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._pending = b""
        self._done = False
        self.compressed_bytes = 0
        self.inflated_bytes = 0
        # Headers and padding come on top of the members' own bytes.
        self._limit = limits.max_total_bytes + (limits.max_members + 3) * _TAR_OVERHEAD_PER_MEMBER

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = _CHUNK
        data = self._inflate(size) if self._compressed else self._raw.read(size)
        self.inflated_bytes += len(data)
        if self.inflated_bytes > self._limit:
            raise BundleRejected(
                f"the archive holds more than the {_size(self._limits.max_total_bytes)} cap",
                code="archive.too_large",
                params={"cap": _size(self._limits.max_total_bytes)},
            )
        if self._compressed:
            _check_ratio(self.inflated_bytes, self.compressed_bytes, self._limits)
        return data

    def _inflate(self, size: int) -> bytes:
        out: list[bytes] = []
        got = 0
        while got < size and not self._done:
            if not self._pending:
                self._pending = self._raw.read(_CHUNK)
                if not self._pending:
                    if not self._inflater.eof:
                        raise BundleRejected(
                            "the gzip stream is truncated", code="archive.gzip_truncated"
                        )
                    self._done = True
                    break
            if self._inflater.eof:
                # Concatenated gzip members are one valid stream (gzip(1) reads them so). The
                # next member may begin in the chunk the last one ended in (its unused data):
                # a finished inflater fed it returns nothing and keeps it as unused data, so
                # that data, taken back as pending, doubled each turn without end.
                self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            fed = len(self._pending)
            try:
                piece = self._inflater.decompress(self._pending, size - got)
            except zlib.error as exc:
                raise BundleRejected(
                    f"corrupt gzip data ({exc})",
                    code="archive.gzip_corrupt",
                    params={"detail": exc},
                ) from None
            if self._inflater.eof:
                self._pending = self._inflater.unused_data
            else:
                self._pending = self._inflater.unconsumed_tail
            self.compressed_bytes += fed - len(self._pending)
            out.append(piece)
            got += len(piece)
        return b"".join(out)


def _tar_type_problem(info: tarfile.TarInfo) -> str | None:
    if info.issym():
        return "is a symbolic link"
    if info.islnk():
        return "is a hard link"
    if info.ischr():
        return "is a character device"
    if info.isblk():
        return "is a block device"
    if info.isfifo():
        return "is a FIFO (named pipe)"
    if info.issparse():
        return "is a sparse file"
    if info.isdir() or info.isreg():
        return None
    return f"is not a regular file (tar type {info.type!r})"


def _read_tar(source: Any, limits: BundleLimits, *, compressed: bool) -> list[Member]:
    """The members of the tar read from ``source`` (inflated and capped by a _BoundedSource;
    ``compressed`` names the archive in errors)."""
    tally = _Tally(limits)
    files: list[Member] = []
    try:
        # "r|" reads strictly forward from our stream: no seeking, no temporary files.
        with tarfile.open(fileobj=source, mode="r|") as archive:  # type: ignore[call-overload]
            for info in archive:
                tally.add_entry()
                name = safe_member_name(info.name, directory=info.isdir())
                problem = _tar_type_problem(info)
                if problem:
                    raise BundleRejected(
                        f"member {name!r} {problem}: only regular files allowed",
                        code="archive.not_regular",
                        params={"name": name, "problem": problem},
                    )
                if info.isdir():
                    continue
                tally.add_name(name)
                handle = archive.extractfile(info)
                files.append(
                    tally.read_member(name, handle) if handle is not None else Member(name, b"", 0)
                )
    except (tarfile.TarError, EOFError, ValueError, OSError) as exc:
        what = "gzip-compressed tar" if compressed else "tar"
        raise BundleRejected(
            f"not a valid {what} archive ({exc})",
            code="archive.bad_tgz" if compressed else "archive.bad_tar",
            params={"detail": exc},
        ) from None
    if tally.members == 0:
        # An empty tar is a few zero blocks; a gzip of megabytes of zeros reads as one too.
        # What follows the end marker is read through (capped, ratio-checked), so a bomb is
        # refused as one rather than as an empty archive.
        while source.read(_CHUNK):
            pass
        raise BundleRejected("the archive is empty", code="archive.empty")
    return files


# --------------------------------------------------------------------------- zip


def _zip_directory_check(handle: BinaryIO, limits: BundleLimits) -> None:
    """Refuse a zip whose central directory announces too many entries, before parsing it."""
    end = handle.seek(0, io.SEEK_END)
    tail_size = min(end, 22 + 0xFFFF)
    handle.seek(end - tail_size)
    tail = handle.read(tail_size)
    handle.seek(0)
    pos = tail.rfind(b"PK\x05\x06")
    if pos < 0 or len(tail) - pos < 22:
        raise BundleRejected(
            "not a valid zip archive (no end of central directory: truncated?)",
            code="archive.zip_truncated",
        )
    entries, directory_bytes = struct.unpack("<HI", tail[pos + 10 : pos + 16])
    if entries == 0xFFFF or directory_bytes == 0xFFFFFFFF:
        # Zip64: the real figures sit in the zip64 end record just before its 20-byte locator.
        rec = tail[max(pos - 76, 0) : pos - 20]
        if len(rec) == 56 and rec[:4] == b"PK\x06\x06":
            entries, directory_bytes = struct.unpack("<QQ", rec[32:48])
    if entries > limits.max_members:
        raise BundleRejected(
            f"too many members: more than {limits.max_members}",
            code="archive.too_many_members",
            params={"max": limits.max_members},
        )
    if directory_bytes > limits.max_members * _ZIP_DIRECTORY_BYTES_PER_MEMBER:
        raise BundleRejected(
            f"the zip central directory is too large ({directory_bytes} bytes) for "
            f"{limits.max_members} members",
            code="archive.zip_directory_too_large",
            params={"bytes": directory_bytes, "max": limits.max_members},
        )


def _zip_type_problem(info: zipfile.ZipInfo) -> str | None:
    mode = info.external_attr >> 16  # Unix mode bits, when the archiver recorded them
    if mode:
        if stat.S_ISLNK(mode):
            return "is a symbolic link"
        if stat.S_ISCHR(mode):
            return "is a character device"
        if stat.S_ISBLK(mode):
            return "is a block device"
        if stat.S_ISFIFO(mode):
            return "is a FIFO (named pipe)"
        if stat.S_ISSOCK(mode):
            return "is a socket"
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            return f"is not a regular file (mode {oct(mode)})"
    return None


def _read_zip(raw: Any, limits: BundleLimits) -> list[Member]:
    # zipfile needs to seek; the archive is held in memory, capped like its contents.
    blob = _read_capped(raw, limits.max_total_bytes + MIB + 1)
    if len(blob) > limits.max_total_bytes + MIB:
        raise BundleRejected(
            f"the archive is larger than the {_size(limits.max_total_bytes)} cap",
            code="archive.too_large",
            params={"cap": _size(limits.max_total_bytes)},
        )
    handle = io.BytesIO(blob)
    _zip_directory_check(handle, limits)
    try:
        archive = zipfile.ZipFile(handle)
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        ValueError,
        OSError,
        EOFError,
        NotImplementedError,  # "zip file version 12.5" from a garbled header
        struct.error,
    ) as exc:
        raise BundleRejected(
            f"not a valid zip archive ({exc})", code="archive.bad_zip", params={"detail": exc}
        ) from None
    tally = _Tally(limits)
    files: list[Member] = []
    with archive:
        for info in archive.infolist():
            tally.add_entry()
            # ZipInfo.is_dir() indexes the name's last character: an empty name would crash it.
            is_dir = info.filename.endswith("/")
            name = safe_member_name(info.filename, directory=is_dir)
            problem = _zip_type_problem(info)
            if problem:
                raise BundleRejected(
                    f"member {name!r} {problem}: only regular files allowed",
                    code="archive.not_regular",
                    params={"name": name, "problem": problem},
                )
            if is_dir:
                continue
            tally.add_name(name)
            _zip_header_check(info, name, limits)
            try:
                with archive.open(info) as stream:
                    # The header's compressed size may lie too: never count more than we hold.
                    member = tally.read_member(name, stream, min(info.compress_size, len(blob)))
            except BundleRejected:
                raise
            except Exception as exc:  # zipfile, zlib, bz2 and lzma each raise their own types
                raise BundleRejected(
                    f"member {name!r} is corrupt ({exc})",
                    code="archive.member_corrupt",
                    params={"name": name, "detail": exc},
                ) from None
            _check_ratio(tally.total_bytes, len(blob), limits)
            files.append(member)
    if tally.members == 0:
        raise BundleRejected("the archive is empty", code="archive.empty")
    return files


def _zip_header_check(info: zipfile.ZipInfo, name: str, limits: BundleLimits) -> None:
    if info.flag_bits & 0x1:
        raise BundleRejected(
            f"member {name!r} is encrypted", code="archive.encrypted", params={"name": name}
        )
    if info.file_size > limits.max_member_bytes:
        raise BundleRejected(
            f"member {name!r} declares {info.file_size} bytes, over the "
            f"{_size(limits.max_member_bytes)} cap per file",
            code="archive.member_declares_too_large",
            params={"name": name, "bytes": info.file_size, "cap": _size(limits.max_member_bytes)},
        )
    # Deflate, bzip2 and lzma expand incompressible data by well under 1 % plus a small
    # header; more compressed than inflated bytes means the header lies about the size.
    if info.compress_size > info.file_size + info.file_size // 100 + 1024:
        raise BundleRejected(
            f"member {name!r} has a lying header: it declares {info.file_size} bytes but "
            f"holds {info.compress_size} compressed bytes",
            code="archive.lying_header",
            params={"name": name, "bytes": info.file_size, "compressed": info.compress_size},
        )
    _check_ratio(info.file_size, info.compress_size, limits, name)
