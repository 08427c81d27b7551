"""Tests of ``python -m scoring.evidence``: loose files, bundles, rejections, unreadable paths."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from scoring.evidence.__main__ import main

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "tests" / "collector" / "samples"
IBSTAT = SAMPLES / "hpc-login-cx6-mt4123-hdr100.txt"
TOPO = SAMPLES / "a100-8gpu-baremetal-4nic-nic-legend.txt"


def run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(args), stdout=out)
    return code, out.getvalue()


def command(name: str, output: str | None, exit_code: int | None = 0, **extra: Any) -> dict:
    return {
        "name": name,
        "argv": [name],
        "output": output,
        "exit_code": exit_code,
        "duration_s": 0.2,
        **extra,
    }


def write_bundle(
    path: Path, commands: list[dict], files: dict[str, bytes], links: tuple[str, ...] = ()
) -> Path:
    manifest = {
        "collector_version": "1.0.0",
        "hostname": "gpu-node-07",
        "started_at": "2025-06-05T09:12:00Z",
        "finished_at": "2025-06-05T09:13:00Z",
        "nonce": "abc",
        "commands": commands,
    }
    with tarfile.open(path, "w:gz") as archive:
        for name, data in {"manifest.json": json.dumps(manifest).encode(), **files}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name in links:
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            archive.addfile(info)
    return path


def test_json_for_a_loose_file(tmp_path: Path) -> None:
    loose = tmp_path / "ibstat.txt"
    loose.write_bytes(IBSTAT.read_bytes())

    code, out = run(str(loose), "--json")

    assert code == 0
    (row,) = json.loads(out)
    assert (row["file"], row["kind"], row["ok"], row["error"]) == (str(loose), "ibstat", True, None)
    assert row["metrics"]["ports"][0]["rate_gbit_s"] == 100
    assert row["metrics"]["ports"][0]["state"] == "Active"


def test_json_for_a_bundle_has_one_object_per_member(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path / "node7.tar.gz",
        [
            command("nvidia-smi-topo", "nvidia-smi-topo.txt"),
            command("ibstat", None, None, missing=True, error="ibstat is not installed"),
        ],
        {"nvidia-smi-topo.txt": TOPO.read_bytes()},
    )

    code, out = run("--json", str(bundle))

    assert code == 0  # a tool missing on the node is reported, not a failure
    rows = json.loads(out)
    assert [(r["file"], r["kind"], r["ok"]) for r in rows] == [
        (f"{bundle}:nvidia-smi-topo.txt", "nvidia_smi_topo", True),
        (f"{bundle}:ibstat", "unknown", False),
    ]
    assert rows[0]["metrics"]["gpu_count"] == 8
    assert rows[0]["metrics"]["nic_count"] == 4
    assert rows[1]["error"] == "not collected: ibstat is not installed"
    assert rows[1]["missing"] is True
    assert set(rows[0]) >= {"file", "kind", "ok", "error", "metrics"}


def test_a_member_that_fails_to_parse_makes_the_exit_status_non_zero(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path / "b.tgz",
        [command("nvidia-smi-topo", "nvidia-smi-topo.txt"), command("notes", "notes.txt")],
        {"nvidia-smi-topo.txt": TOPO.read_bytes(), "notes.txt": b"just some notes\n"},
    )

    code, out = run("--json", str(bundle))

    assert code == 1
    rows = json.loads(out)
    assert [r["ok"] for r in rows] == [True, False]
    assert "not the output of a supported tool" in rows[1]["error"]


def test_a_rejected_bundle_is_one_failed_object_of_kind_bundle(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "evil.tar.gz", [], {}, links=("escape",))

    code, out = run("--json", str(bundle))

    assert code == 1
    assert json.loads(out) == [
        {
            "file": str(bundle),
            "kind": "bundle",
            "ok": False,
            "error": "rejected: member 'escape' is a symbolic link: only regular files allowed",
            "metrics": {},
        }
    ]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda tmp: tmp / "absent.txt", "No such file or directory"),
        (lambda tmp: tmp, "Is a directory"),
    ],
)
def test_an_unreadable_path_is_a_clear_error(
    make: Any, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make(tmp_path)
    loose = tmp_path / "ibstat.txt" if path.is_dir() else path.with_name("ibstat.txt")
    loose.write_bytes(IBSTAT.read_bytes())

    code, out = run("--json", str(path), str(loose))

    assert code == 1
    rows = json.loads(out)
    assert rows[0] == {
        "file": str(path),
        "kind": "unknown",
        "ok": False,
        "error": f"cannot read the file: {reason}",
        "metrics": {},
    }
    assert rows[1]["ok"] is True  # the other paths are still reported
    assert f"error: cannot read {str(path)!r}: {reason}" in capsys.readouterr().err


def test_human_output_is_a_table_with_a_summary(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path / "b.tgz",
        [
            command("nvidia-smi-topo", "nvidia-smi-topo.txt"),
            command("dcgmi", None, None, missing=True),
            command("lscpu", "lscpu.txt", 1),
        ],
        {"nvidia-smi-topo.txt": TOPO.read_bytes(), "lscpu.txt": b""},
    )

    code, out = run(str(bundle))

    assert code == 1
    lines = out.splitlines()
    assert lines[0] == (
        f"{bundle}: bundle from gpu-node-07 (collector 1.0.0, 2025-06-05T09:12:00+00:00 to "
        "2025-06-05T09:13:00+00:00, 3 commands, with nonce)"
    )
    assert lines[1] == f"ok       nvidia_smi_topo    {bundle}:nvidia-smi-topo.txt"
    assert lines[2].startswith("         gpu_count=8 nic_count=4 ")
    assert lines[3] == f"MISSING  unknown            {bundle}:dcgmi"
    assert lines[4] == "         not collected: dcgmi is not installed on the node"
    assert lines[5] == f"FAILED   unknown            {bundle}:lscpu.txt"
    assert lines[6] == "         `lscpu` failed with exit code 1: printed nothing"
    assert lines[-1] == "3 files: 1 ok, 1 failed, 1 not collected"


def test_no_path_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([])
    assert stopped.value.code == 2
    assert "the following arguments are required: PATH" in capsys.readouterr().err


def test_runs_as_a_module(tmp_path: Path) -> None:
    loose = tmp_path / "topo.txt"
    loose.write_bytes(TOPO.read_bytes())

    done = subprocess.run(
        [sys.executable, "-m", "scoring.evidence", "--json", str(loose)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert (row["kind"], row["metrics"]["full_nvlink_mesh"]) == ("nvidia_smi_topo", True)
