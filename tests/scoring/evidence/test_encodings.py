"""Tool outputs that are not UTF-8: real samples re-encoded as uploads from Chinese enterprises
and re-saving editors arrive (GBK/GB18030, Windows-1252, ISO-8859-1, UTF-16 without a BOM), a
mixed file, and binary or garbled bytes that must still be refused with the usual error."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.evidence import parse_bytes
from scoring.evidence.base import DecodedText, EvidenceParseError, decode_evidence, decode_text
from scoring.evidence.bundle import parse_evidence

SAMPLES = Path(__file__).parent / "samples"


def read_sample(path: str) -> str:
    return (SAMPLES / path).read_text(encoding="utf-8")


# Real outputs holding Chinese text: lscpu run under LANG=zh_CN, and a topology matrix whose
# author added a Chinese legend.
CHINESE = [
    "cpu_info/lscpu-zh-cn-ubuntu2204-vmware-vm-i7-13620h-hypervisor-vendor.txt",
    "cpu_info/lscpu-zh-cn-archlinux-i5-6200u-baremetal-new-layout-flags-wrapped.txt",
    "cpu_info/lscpu-zh-cn-kunpeng920-aarch64-2s-96cpu-old-layout.txt",
    "cpu_info/lscpu-zh-cn-bianbu-riscv64-spacemit-x60-new-layout-prompt.txt",
    "nvidia_smi_topo/blog-h200-nv18-9nic-bond-dashed-rule-short-numa-headers-cn-legend.txt",
]
# ASCII outputs of other tools, to carry a note or a node name in another encoding.
ASCII = [
    "ibstat/mlx4-cx3-fdr56-mt4099.txt",
    "nvidia_smi/autodl-2x2080ti-driver550-container.txt",
    "cpu_info/devmachine-kvm-lscpu-new-layout.txt",
]
# A note a vendor's engineer appended, re-saved by a Windows editor (German supplier).
LATIN_NOTE = "\n# Lieferant: Rechenzentrum Süd, Schrank 4, Höhe 2U (geprüft)\n"
CP1252_NOTE = "\n# Lieferant: Rechenzentrum Süd – Schrank 4 (“geprüft”)\n"


def _same_parse(data: bytes, text: str):
    """The parse of ``data`` (another encoding) and of ``text`` as UTF-8 agree; the former."""
    result = parse_bytes(data)
    expected = parse_bytes(text.encode("utf-8"))
    assert result.kind == expected.kind
    assert result.metrics == expected.metrics
    assert result.facts == expected.facts
    assert result.warnings[len(result.notes) :] == expected.warnings
    return result


# --------------------------------------------------------------------------- GB18030 / GBK


@pytest.mark.parametrize("path", CHINESE)
@pytest.mark.parametrize("encoding", ["gbk", "gb18030"])
def test_chinese_output_saved_as_gbk_parses_the_same_and_says_so(path, encoding):
    text = read_sample(path)
    result = _same_parse(text.encode(encoding), text)
    assert result.notes == (
        {
            "code": "text.decoded_as",
            "params": {"encoding": "GB18030"},
            "line": None,
            "kind": None,
            "message": "not UTF-8: read as GB18030 text",
        },
    )
    assert result.warnings[0] == "not UTF-8: read as GB18030 text"


def test_gb18030_with_its_bom_is_read_as_declared():
    text = read_sample(CHINESE[1])
    assert "\ufeff".encode("gb18030") == b"\x84\x31\x95\x33"
    result = _same_parse("\ufeff".encode("gb18030") + text.encode("gb18030"), text)
    assert [n["params"] for n in result.notes] == [{"encoding": "GB18030"}]


def test_terminal_box_drawing_saved_as_gbk_is_read_as_gbk_not_latin1():
    # A tmux pane's borders are GB2312's box drawing: no hanzi, still plainly GBK.
    text = read_sample("ibstat/mlx4-cx3-2port-qdr40-tmux-pane.txt")
    decoded = decode_evidence(text.encode("gbk"))
    assert decoded == DecodedText(text, "gb18030")


@pytest.mark.parametrize("path", ASCII)
def test_a_chinese_node_name_in_gbk_is_read_as_gbk(path):
    text = "节点：计算节点-07（北京亦庄机房）\n" + read_sample(path)
    result = _same_parse(text.encode("gbk"), text)
    assert result.notes[0]["params"] == {"encoding": "GB18030"}


@pytest.mark.parametrize("note", ["目標雷達運行良好，無異常。", "工程結構圖"])
def test_big5_text_is_refused_rather_than_misread_as_gb18030(note):
    # Traditional Chinese from Taiwan or Hong Kong: its byte pairs decode as GB18030 too, but
    # into rare characters and kana, which no Chinese text is made of.
    data = (read_sample(ASCII[0]) + f"# {note}\n").encode("big5")
    with pytest.raises(EvidenceParseError, match="not UTF-8 text"):
        decode_text(data)


def test_an_invalid_gb18030_sequence_is_refused_with_the_usual_error():
    data = read_sample(CHINESE[0]).encode("gbk")
    # The first label, then spaces: drop the trail byte of its full-width colon (A3 BA), so that
    # the lead byte is followed by a space, which no GB18030 character has.
    broken = data.replace("构：".encode("gbk"), "构".encode("gbk") + b"\xa3", 1)
    with pytest.raises(EvidenceParseError) as caught:
        decode_text(broken)
    assert caught.value.code == "text.not_utf8"
    assert caught.value.line == 1
    assert str(caught.value) == f"line 1: not UTF-8 text (byte 0x{broken[0]:02x})"


@pytest.mark.parametrize("encoding", ["utf-8", "gbk", "utf-16", "utf-16-le"])
def test_a_file_cut_inside_a_character_loses_that_character_and_says_so(encoding):
    text = read_sample(CHINESE[3])
    kept = text[: text.index("型号名称")]
    data = (kept + "型").encode(encoding)[:-1]  # half of 型 (a third, in UTF-8)
    decoded = decode_evidence(data)
    assert decoded.text == kept
    codes = [note["code"] for note in decoded.notes]
    assert codes[-1] == "text.cut_character"
    assert decoded.notes[-1]["params"] == {"bytes": 2 if encoding == "utf-8" else 1}
    assert decoded.notes[-1]["message"] == (
        f"the file ends inside a character (cut?): its last {decoded.cut_bytes} byte(s) "
        "were left out"
    )
    result = parse_bytes(data)
    assert result.kind == "cpu_info" and result.metrics["logical_cpus"] == 8
    assert [note["code"] for note in result.notes] == codes


def test_a_bad_byte_at_the_end_is_not_a_cut_character():
    data = read_sample(ASCII[0]).encode() + b"\xff"
    with pytest.raises(EvidenceParseError, match="byte 0xff"):
        decode_text(data + b"\xfe\xfd")
    # One stray byte alone at the end: a Latin letter, not a cut GB18030 character.
    assert decode_evidence(data).encoding == "iso-8859-1"


# --------------------------------------------------------------------------- single byte


@pytest.mark.parametrize("path", ASCII)
def test_a_latin1_note_is_read_as_iso_8859_1(path):
    text = read_sample(path) + LATIN_NOTE
    result = _same_parse(text.encode("latin-1"), text)
    assert [n["params"] for n in result.notes] == [{"encoding": "ISO-8859-1"}]


@pytest.mark.parametrize("path", ASCII)
def test_a_cp1252_note_with_smart_quotes_is_read_as_windows_1252(path):
    text = read_sample(path) + CP1252_NOTE
    result = _same_parse(text.encode("cp1252"), text)
    assert [n["params"] for n in result.notes] == [{"encoding": "Windows-1252"}]


@pytest.mark.parametrize("word", ["Größe", "Müller", "café", "Ångström"])
def test_latin1_words_are_never_read_as_chinese(word):
    text = read_sample(ASCII[0]) + f"\n# {word}\n"
    decoded = decode_evidence(text.encode("latin-1"))
    assert decoded.text == text
    assert decoded.encoding == "iso-8859-1"


@pytest.mark.parametrize(
    "path",
    ["virt/devmachine-systemd-detect-virt-vm-kvm.txt", "virt/devmachine-echoed-command-kvm.txt"],
)
def test_a_latin1_note_in_a_one_word_output_is_a_few_stray_letters(path):
    # Two high bytes in a file of a few dozen: few, though more than 5% of it.
    text = read_sample(path) + "\n# Größe\n"
    assert decode_evidence(text.encode("latin-1")) == DecodedText(text, "iso-8859-1")


def test_many_high_bytes_are_not_a_latin1_text():
    # The same letters everywhere: no longer "ASCII with a few stray bytes".
    text = "Größe Größe Größe Größe\n" * 20
    with pytest.raises(EvidenceParseError, match="not UTF-8 text"):
        decode_text(text.encode("latin-1"))


def test_bytes_undefined_in_windows_1252_are_refused():
    data = read_sample(ASCII[0]).encode() + b"\n# \x81\n"
    with pytest.raises(EvidenceParseError, match="byte 0x81"):
        decode_text(data)


# --------------------------------------------------------------------------- UTF-16


@pytest.mark.parametrize("path", ASCII + CHINESE[:1])
@pytest.mark.parametrize(
    ("encoding", "shown"),
    [("utf-16-le", "UTF-16LE (without BOM)"), ("utf-16-be", "UTF-16BE (without BOM)")],
)
def test_utf16_without_bom_is_told_by_its_nul_bytes(path, encoding, shown):
    text = read_sample(path)
    result = _same_parse(text.encode(encoding), text)
    assert [n["params"] for n in result.notes] == [{"encoding": shown}]


def test_utf16_with_bom_is_noted_too():
    text = read_sample(ASCII[1])
    result = _same_parse(text.encode("utf-16"), text)  # Windows PowerShell's `>`
    assert [n["params"] for n in result.notes] == [{"encoding": "UTF-16"}]


def test_utf8_is_read_without_a_note():
    text = read_sample(CHINESE[0])
    assert decode_evidence(text.encode()) == DecodedText(text)
    assert decode_evidence(b"\xef\xbb\xbf" + text.encode()) == DecodedText(text)
    assert parse_bytes(text.encode()).notes == ()


# --------------------------------------------------------------------------- a mixed file


def test_a_mixed_file_reads_each_line_in_its_encoding_and_names_the_others():
    # A UTF-8 output with Chinese in it, then a note typed on a GBK console.
    first = read_sample(CHINESE[4])
    note = "备注：机柜 A3 二层，交付前复测\n第二行：同上\n"
    data = first.encode("utf-8") + note.encode("gbk")
    decoded = decode_evidence(data)
    assert decoded.text == first + note
    assert decoded.encoding == "gb18030"
    start = first.count("\n") + 1
    assert decoded.lines == (start, start + 1)
    (shown,) = decoded.notes
    assert shown["code"] == "text.decoded_lines_as"
    assert shown["params"] == {"encoding": "GB18030", "lines": f"{start}-{start + 1}"}
    result = parse_bytes(data)
    assert result.kind == "nvidia_smi_topo"
    assert result.metrics == parse_bytes((first + note).encode()).metrics
    assert result.notes == decoded.notes


def test_line_ranges_in_the_note_are_short():
    decoded = DecodedText("", "gb18030", (3, 7, 8, 9, 12, 20, 22, 24, 26, 28, 30))
    assert decoded.notes[0]["params"]["lines"] == "3, 7-9, 12, 20, 22, 24, ..."


# --------------------------------------------------------------------------- still refused


def test_binary_files_are_still_refused(sample):
    gzipped = gzip.compress(sample(ASCII[0]).encode(), mtime=0)
    with pytest.raises(EvidenceParseError) as caught:
        decode_text(gzipped)
    assert caught.value.code in {"text.binary", "text.not_utf8"}
    elf = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8
    with pytest.raises(EvidenceParseError, match="binary content"):
        decode_text(elf)


def test_control_bytes_make_a_non_utf8_file_binary():
    # No NUL, but control bytes and high bytes: never guessed as a legacy encoding.
    data = read_sample(ASCII[0]).encode() + b"\x01\x02\x03\xe9\n"
    with pytest.raises(EvidenceParseError) as caught:
        decode_text(data)
    assert caught.value.code == "text.not_utf8"


def test_garbled_bytes_are_refused():
    garbled = bytes((i * 37 + 11) % 128 + 128 for i in range(400))
    with pytest.raises(EvidenceParseError, match="not UTF-8 text"):
        decode_text(b"CPU(s): 2\n" + garbled)


def test_a_nul_pattern_that_is_not_utf16_text_is_binary():
    # Little-endian integers: NUL characters in any UTF-16 reading.
    data = b"".join(n.to_bytes(4, "little") for n in range(1, 200))
    with pytest.raises(EvidenceParseError, match="binary content"):
        decode_text(data)


# --------------------------------------------------------------------------- in a bundle


def _bundle(files: dict[str, bytes], commands: list[dict]) -> bytes:
    manifest = {
        "collector_version": "1.0.0",
        "hostname": "gpu-node-07",
        "started_at": "2026-11-30T09:00:00Z",
        "finished_at": "2026-11-30T09:01:00Z",
        "commands": commands,
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in {"manifest.json": json.dumps(manifest).encode(), **files}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_bundle_member_in_gbk_is_parsed_with_its_note_and_a_failed_one_keeps_it():
    lscpu = read_sample(CHINESE[0]).encode("gbk")
    junk = "午饭后检查四号机柜的线缆\n".encode("gbk")
    command = {"exit_code": 0, "duration_s": 0.1}
    data = _bundle(
        {"lscpu.txt": lscpu, "notes.txt": junk},
        [
            {"name": "lscpu", "argv": ["lscpu"], "output": "lscpu.txt", **command},
            {"name": "notes", "argv": ["cat", "notes"], "output": "notes.txt", **command},
        ],
    )
    parsed, failed = parse_evidence("b.tgz", data)
    assert parsed.ok and parsed.kind == "cpu_info"
    assert parsed.metrics["virtualization_type"] == "full"
    assert [n["code"] for n in parsed.notes] == ["text.decoded_as"]
    assert parsed.warnings[0] == "not UTF-8: read as GB18030 text"
    assert not failed.ok and failed.error_detail["code"] == "file.unknown_kind"
    assert [n["code"] for n in failed.notes] == ["text.decoded_as"]


# --------------------------------------------------------------------------- never a crash


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=2048))
def test_any_bytes_decode_or_give_the_typed_error(data):
    try:
        decoded = decode_evidence(data)
    except EvidenceParseError as exc:
        assert exc.code in {"text.binary", "text.not_utf8", "text.utf16"}
        return
    assert isinstance(decoded.text, str)
    for note in decoded.notes:
        json.dumps(note)


_ENCODED = [
    (read_sample(path), encoding)
    for path in CHINESE[:2] + ASCII[:1]
    for encoding in ("utf-8", "gbk", "utf-16-le")
]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.data())
def test_cut_or_damaged_encoded_outputs_decode_or_give_the_typed_error(data):
    text, encoding = data.draw(st.sampled_from(_ENCODED))
    raw = bytearray(text.encode(encoding))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(raw)))
        operation = data.draw(st.sampled_from(["cut", "insert", "drop"]))
        if operation == "cut":
            del raw[at:]
        elif operation == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=3))
        else:
            del raw[at : at + 1]
    try:
        result = parse_bytes(bytes(raw))
    except EvidenceParseError as exc:
        assert exc.code
        return
    json.dumps(result.metrics, allow_nan=False)
    json.dumps(list(result.notes))


def test_the_cli_prints_how_a_file_was_read(tmp_path):
    path = tmp_path / "lscpu-gbk.txt"
    path.write_bytes(read_sample(CHINESE[0]).encode("gbk"))
    done = subprocess.run(
        [sys.executable, "-m", "scoring.evidence", "--json", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert row["ok"] and row["kind"] == "cpu_info"
    assert row["warnings"][0] == "not UTF-8: read as GB18030 text"
    assert [note["code"] for note in row["notes"]] == ["text.decoded_as"]
