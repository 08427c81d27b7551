"""Big bundle members are held deflated and parsed block by block, with the same results."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from scoring.evidence import archive
from scoring.evidence.archive import Member
from scoring.evidence.base import EvidenceParseError, decode_text
from scoring.evidence.bundle import open_evidence, parse_member

NCCL = "nccl_tests/oci-h100-2node-roce-nccl2215.txt"


def _tar_gz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _manifest(output: str, argv: list[str]) -> bytes:
    command = {"name": "n", "argv": argv, "output": output, "exit_code": 0, "duration_s": 1}
    return json.dumps(
        {
            "collector_version": "1.0.0",
            "hostname": "node-1",
            "started_at": "2026-11-30T08:00:00Z",
            "finished_at": "2026-11-30T08:02:00Z",
            "commands": [command],
        }
    ).encode()


@pytest.fixture(scope="module", autouse=True)
def small_blocks():
    """Thresholds scaled down 8x (the code reads them at run time): quick tests, same paths."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(archive, "PACK_ABOVE_BYTES", archive.PACK_ABOVE_BYTES // 8)
        patch.setattr(archive, "BLOCK_BYTES", archive.BLOCK_BYTES // 8)
        yield


@pytest.fixture(scope="module")
def big_log(sample) -> bytes:
    """Past the packing threshold by several blocks, in whole tables."""
    text = sample(NCCL).encode()
    return text * ((archive.PACK_ABOVE_BYTES + 5 * archive.BLOCK_BYTES) // len(text))


@pytest.fixture(scope="module")
def big_member(big_log: bytes) -> Member:
    data = _tar_gz({"manifest.json": _manifest("n.txt", ["all_reduce_perf"]), "n.txt": big_log})
    member = open_evidence("b.tar.gz", data).get("n.txt")
    assert member is not None
    return member


def test_a_big_member_is_held_deflated_and_reads_back_exactly(big_log, big_member):
    assert big_member.packed and big_member.held == b""
    assert big_member.size_bytes == len(big_log)
    assert sum(map(len, big_member.packed)) < len(big_log) // 4
    assert big_member.data == big_log
    assert b"".join(big_member.line_blocks()) == big_log
    pieces = list(big_member.text_chunks())
    assert len(pieces) > 1 and all(piece.endswith("\n") for piece in pieces[:-1])
    assert "".join(pieces) == big_log.decode()


def test_a_small_member_is_held_as_it_is():
    data = _tar_gz({"manifest.json": _manifest("n.txt", ["x"]), "n.txt": b"abc\n"})
    member = open_evidence("b.tar.gz", data).get("n.txt")
    assert member == Member("n.txt", b"abc\n", 4)
    assert member.data == b"abc\n" and list(member.text_chunks()) == ["abc\n"]


def test_a_big_loose_file_is_packed_too(big_log):
    evidence = open_evidence("n.txt", io.BytesIO(big_log))
    (member,) = evidence.members
    assert member.packed and member.data == big_log


def _held(member: Member) -> Member:
    return Member(member.name, member.data, member.size_bytes)


@pytest.mark.parametrize("hint", ["nccl_tests", None])
def test_a_packed_log_parses_as_the_same_log_held_whole(big_member, hint):
    streamed = parse_member(big_member, hint=hint)
    whole = parse_member(_held(big_member), hint=hint)
    assert streamed.ok and streamed.kind == "nccl_tests"
    assert streamed == whole


def test_undecodable_bytes_deep_in_a_packed_file_give_the_usual_error(big_log):
    # Four high bytes in a row: neither GB18030 nor a stray Latin letter.
    broken = big_log[:-100] + b"\xff\xfe\xfd\xfc" + big_log[-99:]
    (member,) = open_evidence("n.txt", io.BytesIO(broken)).members
    assert member.packed
    result = parse_member(member, hint="nccl_tests")
    with pytest.raises(EvidenceParseError) as expected:
        decode_text(broken)
    assert not result.ok
    assert result.error == str(expected.value)
    assert result == parse_member(_held(member), hint="nccl_tests")


def test_a_stray_latin1_byte_deep_in_a_packed_file_is_read_as_when_held(big_log):
    broken = big_log[:-100] + b"\xe9" + big_log[-99:]
    (member,) = open_evidence("n.txt", io.BytesIO(broken)).members
    assert member.packed
    result = parse_member(member, hint="nccl_tests")
    assert result.ok and result.kind == "nccl_tests"
    assert [note["code"] for note in result.notes] == ["text.decoded_as"]
    assert result.notes[0]["params"] == {"encoding": "ISO-8859-1"}
    assert result.warnings[0] == "not UTF-8: read as ISO-8859-1 text"
    assert result == parse_member(_held(member), hint="nccl_tests")


def test_a_packed_utf16_file_is_decoded_the_usual_way(big_log):
    text = big_log[: archive.PACK_ABOVE_BYTES // 2 + 1000].decode()
    data = text.encode("utf-16")
    (member,) = open_evidence("n.txt", io.BytesIO(data)).members
    assert member.packed
    assert parse_member(member) == parse_member(_held(member))


def test_a_nul_byte_early_in_a_packed_file_is_binary_content(big_log):
    broken = big_log[:1000] + b"\x00" + big_log[1000:]
    (member,) = open_evidence("n.txt", io.BytesIO(broken)).members
    assert member.packed
    result = parse_member(member, hint="nccl_tests")
    assert not result.ok and "binary content" in (result.error or "")
    assert result == parse_member(_held(member), hint="nccl_tests")
