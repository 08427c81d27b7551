"""The cheap necessary conditions that let a big log skip the identifier and time scans."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from scoring import fingerprint
from scoring.fingerprint import extract, extract_pieces, may_be_dated, may_identify, measured_at

SAMPLES = sorted(
    path
    for path in (Path(__file__).parent / "evidence" / "samples").rglob("*")
    if path.is_file() and path.suffix != ".tsv"
)


def _pieces(text: str) -> list[str]:
    """``text`` split after newlines, as a big member's blocks are (one line each: the finest
    split there is)."""
    return text.splitlines(keepends=True) or [text]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_piece_passing_means_nothing_to_find(path):
    text = path.read_bytes().decode("utf-8", errors="replace")
    pieces = _pieces(text)
    if not any(map(may_identify, pieces)):
        assert not extract(text)
    if not any(map(may_be_dated, pieces)):
        assert measured_at(text) is None


def test_identifiers_and_times_are_found_piece_by_piece():
    text = (
        "x\nNode GUID: 0x0002c90300a1b2c3\n  link/ether 0c:42:a1:00:00:01 brd\n"
        "GPU 0: A100 (UUID: GPU-12345678-1234-1234-1234-123456789abc)\n"
        "Serial Number : 1321234567890\nTimestamp : Mon Nov 30 08:00:00 2026\n"
        '{"timestamp": 1764489600}\n'
    )
    found = extract(text)
    assert found.hca_guid and found.mac and found.gpu_uuid
    assert measured_at(text) is not None
    for line in _pieces(text):
        if "GUID" in line or "ether" in line or "UUID" in line:
            assert may_identify(line)
        if "Timestamp" in line or "timestamp" in line:
            assert may_be_dated(line)
    # Case folding beyond ASCII ("GUİD") still counts: the slow test, for non-ASCII text.
    assert may_identify("Node GU\u0130D: 0x0002c90300a1b2c3")
    # An nccl-tests device line names its host, a results row belongs to a run's digest.
    assert may_identify("#  Rank  0 Group  0 Pid 1 on node device  0 [0x63] H100\n")
    assert may_identify("       8   2   float   sum   -1   32.07   0.00   0.00   0\n")
    assert not may_identify("node-01:1234:1234 [0] NCCL INFO Bootstrap : Using eth0\n")
    assert not may_be_dated("       8   2   float   sum   -1   32.07   0.00   0.00   0\n")


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_text_read_in_pieces_gives_the_fingerprint_of_the_whole(path):
    """A big member's identifiers are read block by block (never decoded whole): the same
    identifiers and nccl-tests run digests as the whole text, for blocks of a few lines and
    for blocks of any size split after a newline."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    whole = extract(text)
    lines = _pieces(text)
    for size in (3, 17, 200):
        blocks = ["".join(lines[i : i + size]) for i in range(0, len(lines), size)]
        assert extract_pieces(blocks) == whole, size


# The row test as it was first written: a blank (or the start) before the size. The compiled
# one starts with the digit for speed and must say the same of every text.
_ROW_AS_WRITTEN = re.compile(
    r"(?:^|\s)\d{1,15}\s+\d{1,15}\s+(?:"
    + "|".join(sorted(fingerprint._NCCL_TYPES, key=len, reverse=True))
    + r")\s+\S"
)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_nccl_row_test_agrees_with_its_plain_form_on_every_line(path):
    text = path.read_bytes().decode("utf-8", errors="replace")
    for piece in [text, *_pieces(text)]:
        expected = _ROW_AS_WRITTEN.search(piece) is not None
        assert (fingerprint._NCCL_ROW.search(piece) is not None) == expected, piece


@pytest.mark.parametrize(
    "text",
    [
        "8 2 float sum",
        " 8 2 float sum",
        "x8 2 float sum",
        "x 8 2 float sum",
        "\u00a08\t2\tfloat\t-",
        "1234567890123456 2 float sum",
        "123456789012345 2 float sum",
        "a1234567890123456 2 float sum",
        "８ 2 float sum",
        "#8 2 float sum",
        "8 2 float",
        "8 2 floatx sum",
        "\n1048576 262144 float sum -1 1.2",
    ],
)
def test_nccl_row_test_edge_cases(text):
    assert (fingerprint._NCCL_ROW.search(text) is not None) == (
        _ROW_AS_WRITTEN.search(text) is not None
    )


def test_nccl_row_test_agrees_on_random_texts():
    rng = random.Random(15)  # noqa: S311 (test data, not secrets)
    alphabet = ["1", "23", "0", " ", "\t", "\n", "x", "#", "float", "int8", "-", "\u00a0", "٣"]
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        assert (fingerprint._NCCL_ROW.search(text) is not None) == (
            _ROW_AS_WRITTEN.search(text) is not None
        ), repr(text)


def _marked(piece: str) -> str:
    """``piece`` with an indented line holding one non-ASCII character after it: it names no
    identifier, heading or serial and ends no section, and makes the piece non-ASCII."""
    return piece + ("" if piece.endswith("\n") else "\n") + "  \u00e9\n"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_ascii_texts_read_by_substring_find_what_the_patterns_find(path):
    """An ASCII text's case-insensitive words are tested on its lower-cased copy; a non-ASCII
    one goes through the patterns. Both find the same identifiers, read whole or line by line
    (where a heading read in one piece decides the serial of the next)."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    assert extract(_marked(text)) == extract(text)
    pieces = _pieces(text)
    assert extract_pieces([_marked(p) for p in pieces]) == extract_pieces(pieces)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_fast_scans_find_what_the_slow_ones_find(path):
    text = path.read_bytes().decode("utf-8", errors="replace")
    for piece in [text, *_pieces(text)]:
        # A results row has its type column followed by a blank: no such word, no row.
        if fingerprint._NCCL_ROW.search(piece):
            assert fingerprint._NCCL_TYPE_WORD.search(piece)
    if text.isascii():
        # The lower-cased scan finds the same GUIDs at the same places.
        slow = [
            (m.span("value"), m.group("value").lower()) for m in fingerprint._GUID.finditer(text)
        ]
        fast = [
            (m.span("value"), m.group("value"))
            for m in fingerprint._GUID_LOWER.finditer(text.lower())
        ]
        assert fast == slow


def test_the_lower_cased_guid_scan_reads_any_case():
    text = "Node GUID: 0X0002C90300A1B2C3\nsys_image_GUID = 0002:C903:00A1:B2C4\nport guid 0x0\n"
    assert extract(text).hca_guid == ("0002c90300a1b2c3", "0002c90300a1b2c4")
    # Non-ASCII text keeps the case-folding scan.
    assert extract("Node GU\u0130D: 0x0002c90300a1b2c3 ü").hca_guid == ("0002c90300a1b2c3",)
