"""Tests of safe bundle reading: real archives built here, malicious ones included."""

from __future__ import annotations

import builtins
import contextlib
import gzip
import io
import json
import os
import stat
import struct
import tarfile
import time
import tracemalloc
import warnings
import zipfile
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.evidence.archive import read_upload
from scoring.evidence.base import EvidenceError
from scoring.evidence.bundle import (
    ARCHIVE_HEAD_BYTES,
    BundleLimits,
    BundleRejected,
    Member,
    archive_format,
    is_archive,
    open_evidence,
    parse_evidence,
    parse_manifest,
    reads_as_archive,
    safe_member_name,
)

MIB = 1 << 20
SAMPLES = Path(__file__).resolve().parents[2] / "collector" / "samples"
TOPO = (SAMPLES / "a100-8gpu-baremetal-4nic-nic-legend.txt").read_bytes()
IBSTAT = (SAMPLES / "hpc-login-cx6-mt4123-hdr100.txt").read_bytes()
DCGM_FAIL = (SAMPLES / "memtest-r4-rtx2060-persistence-FAIL.txt").read_bytes()


# --------------------------------------------------------------------------- builders


def command(name: str, argv: list[str], output: str | None, exit_code: int | None = 0, **extra):
    return {
        "name": name,
        "argv": argv,
        "output": output,
        "exit_code": exit_code,
        "duration_s": 0.4,
        **extra,
    }


TOPO_COMMAND = command("nvidia-smi-topo", ["nvidia-smi", "topo", "-m"], "nvidia-smi-topo.txt")


def manifest_doc(commands: list[dict[str, Any]] | None = None, **overrides: Any) -> dict:
    doc: dict[str, Any] = {
        "schema_version": 1,
        "collector_version": "1.0.0",
        "hostname": "gpu-node-01",
        "started_at": "2025-06-05T09:12:00Z",
        "finished_at": "2025-06-05T09:14:31+00:00",
        "nonce": "n0nce-42",
        "commands": [TOPO_COMMAND] if commands is None else commands,
    }
    doc.update(overrides)
    return doc


def manifest(commands: list[dict[str, Any]] | None = None, **overrides: Any) -> bytes:
    return json.dumps(manifest_doc(commands, **overrides)).encode()


def regular(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 1_700_000_000
    return info, data


def special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, b""


def tar_bytes(entries: list[tuple[tarfile.TarInfo, bytes]], compression: str = "gz") -> bytes:
    buffer = io.BytesIO()
    mode = f"w:{compression}" if compression else "w"
    with tarfile.open(fileobj=buffer, mode=mode, format=tarfile.PAX_FORMAT) as archive:
        for info, data in entries:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def good_entries(extra: list[tuple[tarfile.TarInfo, bytes]] = ()) -> list:
    return [regular("manifest.json", manifest()), regular("nvidia-smi-topo.txt", TOPO), *extra]


def zip_bytes(entries: list[tuple[str | zipfile.ZipInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names we want
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return buffer.getvalue()


def raw_zip(name: str, payload: bytes, *, crc: int, file_size: int) -> bytes:
    """A one-member deflate zip written by hand so that its header can lie about sizes."""
    encoded = name.encode()
    sizes = (crc, len(payload), file_size)
    local = struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 8, 0, 0, *sizes, len(encoded), 0)
    central = struct.pack(
        "<4s6H3I5H2I",
        b"PK\x01\x02",
        0x0314,
        20,
        0,
        8,
        0,
        0,
        *sizes,
        len(encoded),
        0,
        0,
        0,
        0,
        (stat.S_IFREG | 0o644) << 16,
        0,
    )
    body = local + encoded + payload
    directory = central + encoded
    end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), len(body), 0)
    return body + directory + end


def deflated_zeros(size: int) -> tuple[bytes, int]:
    """Raw deflate of ``size`` zero bytes (a multiple of 1 MiB), built in O(1 MiB) time.

    After a full flush deflate keeps no history, so every 1 MiB block of zeros compresses to
    the same bytes and can be repeated instead of recompressed.
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(MIB)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(size // MIB):
        crc = zlib.crc32(zeros, crc)
    return block * (size // MIB) + compressor.flush(), crc


def gzip_bomb_tar(size: int = 1 << 30) -> bytes:
    """A valid tar.gz whose one member is ``size`` zero bytes (1 GiB -> about 1 MiB)."""
    info = tarfile.TarInfo("zeros.txt")
    info.size = size
    header = info.tobuf(tarfile.USTAR_FORMAT)
    trailer = bytes(1024)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(bytes(MIB)) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = compressor.compress(trailer) + compressor.flush()
    crc = zlib.crc32(header)
    zeros = bytes(MIB)
    for _ in range(size // MIB):
        crc = zlib.crc32(zeros, crc)
    crc = zlib.crc32(trailer, crc)
    total = len(header) + size + len(trailer)
    gzip_header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    gzip_trailer = struct.pack("<II", crc, total & 0xFFFFFFFF)
    return gzip_header + head + block * (size // MIB) + tail + gzip_trailer


class Unseekable:
    """A pipe-like stream: read() only."""

    def __init__(self, data: bytes):
        self._buffer = io.BytesIO(data)

    def read(self, size: int = -1) -> bytes:
        return self._buffer.read(size)


@contextlib.contextmanager
def no_filesystem(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Record any attempt to open, create or link a path while the block runs."""
    touched: list[str] = []

    def refuse(name: str):
        def refused(*args: Any, **kwargs: Any) -> Any:
            touched.append(f"{name}{args!r}")
            raise PermissionError(f"test forbids {name}")

        return refused

    with monkeypatch.context() as patch:
        for module, attr in [
            (builtins, "open"),
            (io, "open"),
            (os, "open"),
            (os, "mkdir"),
            (os, "makedirs"),
            (os, "symlink"),
            (os, "link"),
            (os, "mknod"),
            (os, "mkfifo"),
            (os, "rename"),
            (os, "replace"),
            (os, "chmod"),
            (os, "utime"),
        ]:
            patch.setattr(module, attr, refuse(f"{module.__name__}.{attr}"))
        yield touched


def assert_rejected(data: bytes, match: str, monkeypatch: pytest.MonkeyPatch, **caps: Any):
    with (
        no_filesystem(monkeypatch) as touched,
        pytest.raises(BundleRejected, match=match) as caught,
    ):
        open_evidence("upload.tar.gz", data, **caps)
    assert touched == []
    return caught.value


# --------------------------------------------------------------------------- good bundles


@pytest.mark.parametrize("compression", ["gz", ""])
def test_tar_bundle_gives_manifest_and_members(compression: str) -> None:
    evidence = open_evidence("node1.tar.gz", tar_bytes(good_entries(), compression))

    assert evidence.is_bundle
    assert evidence.name == "node1.tar.gz"
    assert [m.name for m in evidence.members] == ["nvidia-smi-topo.txt"]
    assert evidence.members[0] == Member("nvidia-smi-topo.txt", TOPO, len(TOPO))
    manifest_read = evidence.manifest
    assert manifest_read is not None
    assert manifest_read.hostname == "gpu-node-01"
    assert manifest_read.collector_version == "1.0.0"
    assert manifest_read.nonce == "n0nce-42"
    assert manifest_read.started_at == datetime(2025, 6, 5, 9, 12, tzinfo=UTC)
    assert manifest_read.finished_at == datetime(2025, 6, 5, 9, 14, 31, tzinfo=UTC)
    (topo,) = manifest_read.commands
    assert topo.argv == ("nvidia-smi", "topo", "-m")
    assert topo.command_line == "nvidia-smi topo -m"
    assert (topo.output, topo.exit_code, topo.duration_s, topo.missing) == (
        "nvidia-smi-topo.txt",
        0,
        0.4,
        False,
    )
    assert evidence.unlisted == ()


def test_zip_bundle_gives_manifest_and_members() -> None:
    data = zip_bytes([("manifest.json", manifest()), ("nvidia-smi-topo.txt", TOPO)])

    evidence = open_evidence("node1.zip", data)

    assert evidence.manifest is not None and evidence.manifest.hostname == "gpu-node-01"
    assert evidence.get("nvidia-smi-topo.txt") == Member("nvidia-smi-topo.txt", TOPO, len(TOPO))


def test_streams_are_read_like_bytes_seekable_or_not() -> None:
    data = tar_bytes(good_entries())
    for stream in (io.BytesIO(data), Unseekable(data)):
        evidence = open_evidence("b.tgz", stream)  # type: ignore[arg-type]
        assert [m.name for m in evidence.members] == ["nvidia-smi-topo.txt"]
    zipped = zip_bytes([("manifest.json", manifest()), ("nvidia-smi-topo.txt", TOPO)])
    assert open_evidence("b.zip", Unseekable(zipped)).manifest is not None  # type: ignore[arg-type]


def test_dot_slash_names_and_directory_entries_are_accepted() -> None:
    folder = tarfile.TarInfo("./")
    folder.type = tarfile.DIRTYPE
    entries = [
        (folder, b""),
        regular("./manifest.json", manifest()),
        regular("./nvidia-smi-topo.txt", TOPO),
    ]

    evidence = open_evidence("b.tgz", tar_bytes(entries))

    assert [m.name for m in evidence.members] == ["nvidia-smi-topo.txt"]


def test_members_missing_from_manifest_are_kept_and_listed_as_unlisted() -> None:
    data = tar_bytes(good_entries([regular("extra/ibstat.txt", IBSTAT)]))

    evidence = open_evidence("b.tgz", data)

    assert evidence.unlisted == ("extra/ibstat.txt",)


def test_loose_file_is_one_member_named_after_the_upload() -> None:
    evidence = open_evidence("../../etc/ibstat.txt", IBSTAT)

    assert not evidence.is_bundle
    assert evidence.manifest is None
    assert evidence.members == (Member("ibstat.txt", IBSTAT, len(IBSTAT)),)


def test_loose_file_over_the_cap_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_rejected(
        b"x" * 2000,
        r"file 'upload.tar.gz' is larger than the 1000 bytes cap",
        monkeypatch,
        max_member_bytes=1000,
    )


def test_format_is_told_by_magic_bytes_not_by_name() -> None:
    assert archive_format(tar_bytes(good_entries())) == "tar.gz"
    assert archive_format(tar_bytes(good_entries(), "")) == "tar"
    assert archive_format(zip_bytes([("a", b"b")])) == "zip"
    assert archive_format(TOPO) is None
    assert is_archive(tar_bytes(good_entries()))
    assert not is_archive(b"")
    # A text file named like an archive is still a loose file.
    assert not open_evidence("bundle.tar.gz", TOPO).is_bundle


def _read_format(data: bytes) -> str | None:
    return read_upload(io.BytesIO(data), BundleLimits(), "upload")[0]


@pytest.mark.parametrize(
    ("data", "archive"),
    [
        (tar_bytes(good_entries()), True),
        (tar_bytes(good_entries(), ""), True),
        (zip_bytes([("a", b"b")]), True),
        (TOPO, False),
        # One compressed file is a loose file (the portal keeps one upload of it per node).
        (gzip.compress(TOPO), False),
        (b"", False),
    ],
    ids=["tar.gz", "tar", "zip", "text", "text.gz", "empty"],
)
def test_an_upload_reads_as_an_archive_from_its_head_as_read_upload_reads_it(data, archive):
    assert reads_as_archive(data[:ARCHIVE_HEAD_BYTES]) is archive
    assert (_read_format(data) is not None) is archive


def test_a_gzip_that_does_not_inflate_reads_as_an_archive() -> None:
    broken = b"\x1f\x8b\x08\x00" + b"\xff" * 40
    assert reads_as_archive(broken)
    with pytest.raises(BundleRejected):
        _read_format(broken)


def test_a_bundle_behind_a_long_gzip_name_still_reads_as_an_archive() -> None:
    raw = tar_bytes(good_entries(), "")
    named = io.BytesIO()
    with gzip.GzipFile(filename="n" * 2000, fileobj=named, mode="wb", mtime=0) as packed:
        packed.write(raw)
    assert reads_as_archive(named.getvalue()[:ARCHIVE_HEAD_BYTES])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2048))
def test_reads_as_archive_never_fails_on_any_bytes(data: bytes) -> None:
    assert reads_as_archive(data) in (True, False)
    assert reads_as_archive(b"\x1f\x8b" + data) in (True, False)


# --------------------------------------------------------------------------- unsafe members


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../evil.txt", r"'\.\./evil\.txt' has a '\.\.' component \(path traversal\)"),
        ("logs/../../evil.txt", r"path traversal"),
        ("/etc/cron.d/evil", r"'/etc/cron\.d/evil' is an absolute path"),
        ("C:/Windows/evil.txt", r"starts with a drive letter"),
        ("logs\\..\\evil.txt", r"contains a backslash"),
        ("evil\x1b[31m.txt", r"contains a control character"),
    ],
)
def test_unsafe_names_reject_the_bundle(
    name: str, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_rejected(tar_bytes(good_entries([regular(name, b"x")])), reason, monkeypatch)
    zipped = zip_bytes([("manifest.json", manifest()), (name, b"x")])
    with pytest.raises(BundleRejected, match=reason):
        open_evidence("b.zip", zipped)


def test_nul_in_a_pax_path_rejects_the_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    info, data = regular("placeholder.txt", b"x")
    info.pax_headers = {"path": "evil\x00.txt"}
    assert_rejected(tar_bytes(good_entries([(info, data)])), r"contains a NUL byte", monkeypatch)
    with pytest.raises(BundleRejected, match="NUL byte"):
        safe_member_name("a\x00b")


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (special("link", tarfile.SYMTYPE, "/etc/passwd"), r"'link' is a symbolic link"),
        (special("hard", tarfile.LNKTYPE, "manifest.json"), r"'hard' is a hard link"),
        (special("tty", tarfile.CHRTYPE), r"'tty' is a character device"),
        (special("disk", tarfile.BLKTYPE), r"'disk' is a block device"),
        (special("pipe", tarfile.FIFOTYPE), r"'pipe' is a FIFO \(named pipe\)"),
        (special("odd", b"V"), r"'odd' is not a regular file \(tar type b'V'\)"),
    ],
)
def test_non_regular_tar_members_reject_the_bundle(
    entry: tuple[tarfile.TarInfo, bytes], reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_rejected(tar_bytes(good_entries([entry])), reason, monkeypatch)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        (stat.S_IFLNK | 0o777, r"'link' is a symbolic link"),
        (stat.S_IFCHR | 0o600, r"'link' is a character device"),
        (stat.S_IFIFO | 0o600, r"'link' is a FIFO"),
    ],
)
def test_non_regular_zip_members_reject_the_bundle(
    mode: int, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = zipfile.ZipInfo("link")
    info.create_system = 3
    info.external_attr = mode << 16
    data = zip_bytes([("manifest.json", manifest()), (info, b"/etc/passwd")])
    assert_rejected(data, reason, monkeypatch)


@pytest.mark.parametrize("second", ["nvidia-smi-topo.txt", "./nvidia-smi-topo.txt"])
def test_duplicate_names_reject_the_bundle(second: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tar_bytes(good_entries([regular(second, b"shadow")]))
    assert_rejected(data, r"duplicate member name 'nvidia-smi-topo\.txt'", monkeypatch)
    zipped = zip_bytes([("manifest.json", manifest()), ("a.txt", b"1"), ("a.txt", b"2")])
    assert_rejected(zipped, r"duplicate member name 'a\.txt'", monkeypatch)


def test_ten_thousand_members_are_refused_early(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = good_entries([regular(f"f{i:05}.txt", b"x") for i in range(10_000)])
    tarred = tar_bytes(entries)
    zipped = zip_bytes([(info.name, data) for info, data in entries])

    started = time.perf_counter()
    assert_rejected(tarred, r"too many members: more than 200", monkeypatch)
    assert_rejected(zipped, r"too many members: more than 200", monkeypatch)
    assert time.perf_counter() - started < 2.0


# --------------------------------------------------------------------------- bombs


def test_gzip_bomb_is_stopped_by_the_ratio_cap_in_bounded_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bomb = gzip_bomb_tar()
    assert len(bomb) < 2 * MIB  # 1 GiB of zeros once inflated

    tracemalloc.start()
    started = time.perf_counter()
    try:
        assert_rejected(bomb, r"the archive inflates more than 200 times", monkeypatch)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 5.0
    assert peak < 16 * MIB


@pytest.mark.parametrize(
    ("caps", "reason"),
    [
        ({"max_ratio": 1e9}, r"member 'zeros\.txt' is larger than the 8 MiB cap per file"),
        (
            {"max_ratio": 1e9, "max_member_bytes": 1 << 31},
            r"the bundle's files add up to more than the 8 MiB cap",
        ),
    ],
)
def test_gzip_bomb_is_stopped_by_the_size_caps(
    caps: dict[str, Any], reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    caps = {"max_member_bytes": 8 * MIB, "max_total_bytes": 8 * MIB, **caps}
    tracemalloc.start()
    try:
        assert_rejected(gzip_bomb_tar(), reason, monkeypatch, **caps)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * MIB


def test_zip_with_a_lying_size_header_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    payload, crc = deflated_zeros(1 << 30)
    lying = raw_zip("zeros.txt", payload, crc=crc, file_size=1000)

    assert_rejected(
        lying,
        r"'zeros\.txt' has a lying header: it declares 1000 bytes but holds \d+ compressed",
        monkeypatch,
    )


def test_zip_bomb_declaring_its_size_is_rejected_before_inflating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    payload, crc = deflated_zeros(1 << 30)
    honest = raw_zip("zeros.txt", payload, crc=crc, file_size=1 << 30)

    assert_rejected(
        honest, r"'zeros\.txt' declares 1073741824 bytes, over the 64 MiB cap", monkeypatch
    )


def test_zip_member_with_a_bomb_ratio_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    payload, crc = deflated_zeros(16 * MIB)
    data = raw_zip("zeros.txt", payload, crc=crc, file_size=16 * MIB)

    assert_rejected(data, r"member 'zeros\.txt' inflates more than 200 times", monkeypatch)


def test_zip_with_a_wrong_crc_is_rejected_as_corrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    payload, crc = deflated_zeros(MIB)
    data = raw_zip("manifest.json", payload, crc=crc ^ 1, file_size=MIB)

    assert_rejected(data, r"member 'manifest\.json' is corrupt \(Bad CRC-32", monkeypatch)


# --------------------------------------------------------------------------- broken archives


def test_truncated_gzip_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    data = tar_bytes(good_entries())
    assert_rejected(data[: len(data) // 2], r"the gzip stream is truncated", monkeypatch)


def test_garbled_gzip_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4
    assert_rejected(data, r"corrupt gzip data", monkeypatch)


def test_gzip_members_are_read_one_after_another_in_bounded_memory() -> None:
    """``cat a.gz b.gz`` is one gzip stream (gzip(1) reads both). The second member began in
    the chunk the first ended in: fed to the finished inflater it came back doubled, each turn,
    until memory ran out. The cap on the address space turns a regression into a failure."""
    import re
    import resource

    with open("/proc/self/status") as status:
        used = int(re.search(r"^VmSize:\s+(\d+) kB", status.read(), re.M).group(1)) * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 30), hard))
    try:
        two = open_evidence("topo.txt.gz", gzip.compress(TOPO[:100]) + gzip.compress(TOPO[100:]))
        bundle = gzip.decompress(tar_bytes(good_entries()))
        split = open_evidence("b.tgz", gzip.compress(bundle[:700]) + gzip.compress(bundle[700:]))
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    [member] = two.members
    assert (member.name, member.data) == ("topo.txt", TOPO)
    assert split.is_bundle
    assert split.members == open_evidence("b.tgz", tar_bytes(good_entries())).members


def test_one_gzip_compressed_file_is_a_loose_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """``gzip nccl.log`` is how a big log travels: it is read as the file it holds (named
    without ``.gz``), never as a broken tar, and nothing touches the disk."""
    with no_filesystem(monkeypatch) as touched:
        evidence = open_evidence("topo.txt.gz", gzip.compress(TOPO))
    assert touched == []
    assert evidence.manifest is None
    [member] = evidence.members
    assert (member.name, member.data) == ("topo.txt", TOPO)
    # Shorter than a tar header, and a gzip of text that is not a tar header either.
    assert open_evidence("a.gz", gzip.compress(b"x")).members[0].data == b"x"
    assert open_evidence("b", gzip.compress(TOPO * 50)).members[0].name == "b"


def test_a_gzip_compressed_file_keeps_the_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    big = b"0123456789abcdef" * 8192  # 128 KiB, compresses well
    assert_rejected(
        gzip.compress(big),
        r"file .upload\.tar. is larger than the 65536 bytes cap",
        monkeypatch,
        max_member_bytes=64 * 1024,
    )
    bomb = gzip.compress(b"a" * (64 * MIB))
    assert_rejected(bomb, r"inflates more than", monkeypatch)
    # Zeros read as a tar's end marker: still refused as a bomb, not as an empty archive.
    assert_rejected(gzip.compress(bytes(64 * MIB)), r"inflates more than", monkeypatch)


def test_truncated_zip_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    data = zip_bytes([("manifest.json", manifest()), ("nvidia-smi-topo.txt", TOPO)])
    assert_rejected(data[:-30], r"not a valid zip archive", monkeypatch)


def test_empty_archive_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_rejected(tar_bytes([]), r"the archive is empty", monkeypatch)


def test_bundle_rejected_is_an_evidence_error() -> None:
    assert issubclass(BundleRejected, EvidenceError)
    assert BundleRejected("why").reason == "why"


# --------------------------------------------------------------------------- manifest


def test_bundle_without_manifest_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    data = tar_bytes([regular("nvidia-smi-topo.txt", TOPO)])
    assert_rejected(
        data, r"manifest\.json is missing: a bundle must be made by the collector", monkeypatch
    )


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", r"manifest\.json is not valid JSON"),
        (b"\xff\xfe\x00", r"manifest\.json is not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, r"manifest\.json is not valid JSON"),
        (b"[]", r"manifest\.json must hold a JSON object"),
    ],
)
def test_unreadable_manifest_is_rejected(body: bytes, reason: str) -> None:
    with pytest.raises(BundleRejected, match=reason):
        parse_manifest(body)


@pytest.mark.parametrize(
    "key", ["collector_version", "hostname", "started_at", "finished_at", "commands"]
)
def test_manifest_without_a_required_key_is_rejected(key: str) -> None:
    doc = manifest_doc()
    del doc[key]
    with pytest.raises(BundleRejected, match=rf"required key '{key}' is missing"):
        parse_manifest(json.dumps(doc).encode())


@pytest.mark.parametrize("key", ["name", "argv", "output", "exit_code", "duration_s"])
def test_manifest_command_without_a_required_key_is_rejected(key: str) -> None:
    broken = dict(TOPO_COMMAND)
    del broken[key]
    with pytest.raises(BundleRejected, match=rf"command 1: required key '{key}' is missing"):
        parse_manifest(manifest([broken]))


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"hostname": 7}, r"'hostname' must be a string"),
        ({"hostname": "  "}, r"'hostname' is empty"),
        ({"commands": {}}, r"'commands' must be a list"),
        ({"nonce": 5}, r"'nonce' must be a string or null"),
        ({"started_at": "yesterday"}, r"'started_at' is not an ISO 8601 time"),
        ({"finished_at": "2025-06-05T09:14:31"}, r"'finished_at' has no time zone"),
        ({"schema_version": 2}, r"unsupported schema_version 2"),
    ],
)
def test_manifest_with_wrong_types_is_rejected(overrides: dict[str, Any], reason: str) -> None:
    with pytest.raises(BundleRejected, match=reason):
        parse_manifest(manifest(**overrides))


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"argv": "nvidia-smi topo -m"}, r"command 1: 'argv' must be a list"),
        ({"argv": ["nvidia-smi", 3]}, r"'argv' must be a list of strings"),
        ({"exit_code": "0"}, r"'exit_code' must be an integer or null"),
        ({"exit_code": True}, r"'exit_code' must be an integer or null"),
        ({"duration_s": -1}, r"'duration_s' must be seconds >= 0 or null"),
        ({"missing": "yes"}, r"'missing' must be true or false"),
        ({"stderr": 1}, r"'stderr' must be a string or null"),
        ({"output": "../../etc/passwd"}, r"path traversal"),
        ({"output": "manifest.json"}, r"'output' cannot be the manifest"),
    ],
)
def test_manifest_command_with_wrong_types_is_rejected(
    changes: dict[str, Any], reason: str
) -> None:
    with pytest.raises(BundleRejected, match=reason):
        parse_manifest(manifest([{**TOPO_COMMAND, **changes}]))


def test_manifest_listing_an_output_twice_is_rejected() -> None:
    with pytest.raises(BundleRejected, match=r"output 'nvidia-smi-topo\.txt' is listed twice"):
        parse_manifest(manifest([TOPO_COMMAND, TOPO_COMMAND]))


def test_manifest_optional_fields_default_and_unknown_keys_are_ignored() -> None:
    doc = manifest_doc(future_field={"x": 1})
    del doc["nonce"]
    del doc["schema_version"]

    parsed = parse_manifest(json.dumps(doc).encode())

    assert parsed.nonce is None
    assert parsed.commands[0].timed_out is False
    assert parsed.commands[0].stderr is None


def test_bad_manifest_inside_a_bundle_rejects_it(monkeypatch: pytest.MonkeyPatch) -> None:
    data = tar_bytes([regular("manifest.json", b"{}"), regular("nvidia-smi-topo.txt", TOPO)])
    assert_rejected(data, r"required key 'commands' is missing", monkeypatch)


# --------------------------------------------------------------------------- parse_evidence


def test_parse_evidence_reports_every_command_and_member() -> None:
    commands = [
        TOPO_COMMAND,
        command("ibstat", ["ibstat"], "ibstat.txt", None, missing=True),
        command(
            "dmidecode",
            ["dmidecode", "-t", "system"],
            "dmidecode-system.txt",
            1,
            stderr="/dev/mem: No such file or directory\n",
        ),
        command("dcgmi-diag", ["dcgmi", "diag", "-r", "1"], "dcgmi-diag.txt", 226),
        command("lspci", ["lspci", "-nn"], "lspci.txt"),
        command("nccl", ["all_reduce_perf"], None, None, error="no GPU found by nvidia-smi"),
    ]
    data = tar_bytes(
        [
            regular("manifest.json", manifest(commands)),
            regular("nvidia-smi-topo.txt", TOPO),
            regular("dmidecode-system.txt", b""),
            regular("dcgmi-diag.txt", DCGM_FAIL),
            regular("extra/ibstat-by-hand.txt", IBSTAT),
            regular("garbage.bin", b"\x00\x01\x02binary"),
        ]
    )

    results = {r.file: r for r in parse_evidence("node.tar.gz", data)}

    assert list(results) == [
        "nvidia-smi-topo.txt",
        "ibstat.txt",
        "dmidecode-system.txt",
        "dcgmi-diag.txt",
        "lspci.txt",
        "nccl",
        "extra/ibstat-by-hand.txt",
        "garbage.bin",
    ]
    topo = results["nvidia-smi-topo.txt"]
    assert (topo.kind, topo.ok, topo.error, topo.exit_code) == ("nvidia_smi_topo", True, None, 0)
    assert topo.metrics["gpu_count"] == 8
    assert topo.command == "nvidia-smi topo -m"

    ibstat = results["ibstat.txt"]
    assert (ibstat.ok, ibstat.missing, ibstat.kind) == (False, True, "unknown")
    assert ibstat.error == "not collected: ibstat is not installed on the node"

    dmi = results["dmidecode-system.txt"]
    assert (dmi.ok, dmi.missing, dmi.exit_code) == (False, False, 1)
    assert dmi.error == (
        "`dmidecode -t system` failed with exit code 1: printed nothing "
        "(stderr: /dev/mem: No such file or directory)"
    )

    dcgm = results["dcgmi-diag.txt"]
    assert (dcgm.kind, dcgm.ok, dcgm.exit_code) == ("dcgm_diag", True, 226)
    assert dcgm.warnings[0] == "`dcgmi diag -r 1` exited with code 226"

    lspci = results["lspci.txt"]
    assert not lspci.ok and not lspci.missing
    assert lspci.error == "'lspci.txt' is listed in manifest.json but not in the bundle"

    nccl = results["nccl"]
    assert (nccl.ok, nccl.missing) == (False, True)
    assert nccl.error == "not collected: no GPU found by nvidia-smi"

    by_hand = results["extra/ibstat-by-hand.txt"]
    assert (by_hand.kind, by_hand.ok) == ("ibstat", True)
    assert by_hand.warnings[-1] == "not listed in manifest.json"
    assert by_hand.exit_code is None

    garbage = results["garbage.bin"]
    assert not garbage.ok
    assert garbage.error is not None and "binary content" in garbage.error


def test_parse_evidence_on_a_loose_file() -> None:
    (result,) = parse_evidence("ibstat.txt", IBSTAT)

    assert (result.file, result.kind, result.ok) == ("ibstat.txt", "ibstat", True)
    assert result.metrics["ports"][0]["rate_gbit_s"] == 100


def test_parse_evidence_on_a_file_of_no_known_tool() -> None:
    (result,) = parse_evidence("notes.txt", b"shopping list: eggs, milk\n")

    assert (result.kind, result.ok) == ("unknown", False)
    assert result.error is not None and "not the output of a supported tool" in result.error


def test_parse_evidence_rejects_the_whole_bundle() -> None:
    data = tar_bytes(good_entries([special("link", tarfile.SYMTYPE, "/etc/shadow")]))
    with pytest.raises(BundleRejected, match="symbolic link"):
        parse_evidence("node.tar.gz", data)


# --------------------------------------------------------------------------- fuzzing

VALID_ARCHIVES = {
    "tar.gz": tar_bytes(good_entries()),
    "tar": tar_bytes(good_entries(), ""),
    "zip": zip_bytes([("manifest.json", manifest()), ("nvidia-smi-topo.txt", TOPO)]),
}


@settings(max_examples=300, deadline=None)
@given(
    fmt=st.sampled_from(sorted(VALID_ARCHIVES)),
    flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=8),
    cut=st.none() | st.integers(min_value=0),
)
def test_damaged_archives_are_rejected_or_opened_never_crash(
    fmt: str, flips: list[tuple[int, int]], cut: int | None
) -> None:
    data = bytearray(VALID_ARCHIVES[fmt])
    for position, value in flips:
        data[position % len(data)] = value
    if cut is not None:
        del data[cut % len(data) :]
    try:
        opened = open_evidence("fuzz", bytes(data))
    except BundleRejected as exc:
        assert exc.reason
    else:
        assert all(isinstance(m.data, bytes) for m in opened.members)


@settings(max_examples=200, deadline=None)
@given(
    magic=st.sampled_from([b"", b"\x1f\x8b\x08\x00", b"PK\x03\x04", b"PK\x05\x06"]),
    body=st.binary(max_size=2048),
)
def test_random_bytes_are_rejected_or_opened_never_crash(magic: bytes, body: bytes) -> None:
    try:
        open_evidence("fuzz", magic + body)
    except BundleRejected as exc:
        assert exc.reason


def test_a_zip_member_with_an_empty_name_is_refused_not_a_crash():
    # Found by the damaged-archive fuzz test: zipfile's ZipInfo.is_dir() raised IndexError on
    # a central directory entry whose name length is 0.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", "{}")
        archive.writestr("x", "x")
    data = buffer.getvalue()
    entry = data.rfind(b"PK\x01\x02")
    name_length = struct.unpack("<H", data[entry + 28 : entry + 30])[0]
    data = (
        data[: entry + 28]
        + struct.pack("<H", 0)
        + data[entry + 30 : entry + 46]
        + data[entry + 46 + name_length :]
    )
    end = data.rfind(b"PK\x05\x06")
    size = struct.unpack("<I", data[end + 12 : end + 16])[0]
    data = data[: end + 12] + struct.pack("<I", size - name_length) + data[end + 16 :]
    with pytest.raises(BundleRejected) as refused:
        read_upload(io.BytesIO(data), BundleLimits(), "upload.zip")
    assert refused.value.code == "archive.name_empty"
