"""Evidence errors carry a stable code and JSON-safe params beside their English text, so that
the portal can show them in the reader's language while the CLI keeps printing English."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile

import pytest

from scoring.evidence.archive import BundleRejected
from scoring.evidence.base import EvidenceParseError, decode_text
from scoring.evidence.bundle import open_evidence, parse_evidence
from scoring.evidence.codes import raise_sites
from scoring.evidence.registry import parse_text

# nccl-tests' table header, cut before the first result row (a run killed at once).
NCCL_HEADER_ONLY = (
    "# nThread 1 nGpus 8 minBytes 8 maxBytes 128M step: 2(factor) warmup iters: 5\n"
    "#\n"
    "#                            out-of-place                in-place\n"
    "#   size    count   type   redop   root   time   algbw   busbw #wrong"
    "   time   algbw   busbw #wrong\n"
    "#    (B) (elements)                        (us)  (GB/s)  (GB/s)"
    "            (us)  (GB/s)  (GB/s)\n"
)


def _tgz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _manifest(commands: list[dict]) -> bytes:
    return json.dumps(
        {
            "collector_version": "1.0.0",
            "hostname": "gpu-node-07",
            "started_at": "2026-11-30T09:00:00Z",
            "finished_at": "2026-11-30T09:01:00Z",
            "commands": commands,
        }
    ).encode()


def test_every_raise_site_has_a_literal_code_and_literal_params():
    sites = raise_sites()
    assert len(sites) > 100  # the parsers, the archive reader and the manifest checks
    uncoded = [f"{s.path}:{s.line}" for s in sites if not s.codes]
    opaque = [f"{s.path}:{s.line}" for s in sites if s.params is None]
    assert not uncoded, f"evidence errors without a code: {uncoded}"
    assert not opaque, f"params not given as a dict literal: {opaque}"


def test_each_code_names_one_kind_of_message():
    # A code reused with different param names would make one template wrong somewhere.
    names: dict[str, set[frozenset[str]]] = {}
    for site in raise_sites():
        for code in site.codes:
            names.setdefault(code, set()).add(site.params or frozenset())
    mixed = {code: params for code, params in names.items() if len(params) > 1}
    assert not mixed


def test_junk_text_fails_with_the_unknown_kind_code_and_english_text():
    [result] = parse_evidence("notes.txt", b"lunch at noon, then rack 4 cabling\n")
    assert not result.ok
    assert result.error.startswith("not the output of a supported tool (kinds: ")
    detail = result.error_detail
    assert detail["code"] == "file.unknown_kind"
    assert "ibstat" in detail["params"]["kinds"]
    assert detail["message"] == result.error
    json.dumps(detail)  # stored as JSON by the portal


def test_parse_error_detail_keeps_kind_line_and_params():
    with pytest.raises(EvidenceParseError) as caught:
        parse_text(NCCL_HEADER_ONLY, "nccl_tests")
    detail = caught.value.detail()
    assert detail["code"] == "nccl.no_rows"
    assert detail["kind"] == "nccl_tests"
    assert detail["line"] == 4
    assert str(caught.value) == f"nccl_tests: line 4: {detail['message']}"


def test_undecodable_bytes_give_a_code_with_the_byte():
    with pytest.raises(EvidenceParseError) as caught:
        decode_text(b"GPU0 \xff\xfe\xfa\n", kind="nvidia_smi_topo")
    assert caught.value.code == "text.not_utf8"
    assert caught.value.params == {"byte": "0xff"}


def test_truncated_archive_is_refused_with_a_code():
    archive = _tgz({"manifest.json": _manifest([]), "big.txt": b"x" * 200_000})
    with pytest.raises(BundleRejected) as caught:
        open_evidence("bundle.tar.gz", archive[: len(archive) // 2])
    assert caught.value.code in {"archive.gzip_truncated", "archive.bad_tgz"}
    assert caught.value.detail()["message"] == str(caught.value)
    json.dumps(caught.value.params)


def test_manifest_errors_name_the_command_by_number():
    bad = [{"name": "ibstat", "argv": ["ibstat"], "output": "ibstat.txt", "exit_code": 0}]
    with pytest.raises(BundleRejected) as caught:
        open_evidence("b.tgz", _tgz({"manifest.json": _manifest(bad)}))
    assert caught.value.code == "manifest.command_missing_key"
    assert caught.value.params == {"command": 1, "key": "duration_s"}


def test_a_failed_command_nests_the_parsers_detail():
    commands = [
        {
            "name": "ibstat",
            "argv": ["ibstat"],
            "output": "ibstat.txt",
            "exit_code": 1,
            "duration_s": 0.1,
            "stderr": "ibpanic: no HCA",
        },
        {"name": "fio", "argv": ["fio"], "output": None, "exit_code": None, "duration_s": None},
    ]
    files = {"manifest.json": _manifest(commands), "ibstat.txt": b"CA 'mlx5_0'\n"}
    failed, missing = parse_evidence("b.tgz", _tgz(files))
    assert failed.error_detail["code"] == "command.failed_stderr"
    assert failed.error_detail["params"]["exit_code"] == 1
    assert failed.error_detail["params"]["detail"]["code"] == "ibstat.no_ports"
    assert failed.error_detail["params"]["detail"]["params"] == {"ca": "mlx5_0"}
    assert missing.missing
    assert missing.error_detail["code"] == "command.not_collected"
    assert missing.error_detail["params"]["reason"]["code"] == "command.not_run"


def test_cli_still_prints_the_english_text(tmp_path):
    junk = tmp_path / "junk.txt"
    junk.write_text("lunch at noon\n")
    out = subprocess.run(
        [sys.executable, "-m", "scoring.evidence", str(junk)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "not the output of a supported tool" in out.stdout + out.stderr
