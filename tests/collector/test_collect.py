"""Tests of the node collector, run for real: this machine's tools, stand-ins, a local portal."""

from __future__ import annotations

import email.parser
import email.policy
import glob
import gzip
import http.server
import importlib.util
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from scoring import poc
from scoring.evidence.bundle import EvidenceSet, open_evidence, parse_evidence_set

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
COLLECTOR = ROOT / "collector" / "collect.py"
SAMPLES = HERE / "samples"

STEP_NAMES = [
    "nvidia-smi",
    "nvidia-smi-q",
    "nvidia-smi-topo",
    "nvidia-smi-nvlink",
    "nvidia-smi-query-gpu",
    "ibstat",
    "lspci",
    "lscpu",
    "dmidecode",
    "systemd-detect-virt",
    "dcgmi-diag",
]


def extra_names(path: str) -> list[str]:
    """The newer tools' steps the collector adds for the tools found on ``path``."""
    old = os.environ.get("PATH", "")
    os.environ["PATH"] = path
    try:
        return [step.name for step in collect.extra_tool_steps()]
    finally:
        os.environ["PATH"] = old


def load_collector() -> ModuleType:
    spec = importlib.util.spec_from_file_location("collect", COLLECTOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


collect = load_collector()


def python38() -> str | None:
    """A Python 3.8 interpreter, to prove the collector runs where old nodes are."""
    candidates = [
        shutil.which("python3.8"),
        *glob.glob(os.path.expanduser("~/.pyenv/versions/3.8*/bin/python3.8")),
    ]
    for candidate in candidates:
        if not candidate:
            continue
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0 and probe.stdout.strip() == "(3, 8)":
            return candidate
    return None


PYTHON38 = python38()
INTERPRETERS = [
    pytest.param(sys.executable, id="current-python"),
    pytest.param(
        PYTHON38,
        id="python3.8",
        marks=pytest.mark.skipif(PYTHON38 is None, reason="no Python 3.8 interpreter here"),
    ),
]


def clean_env(path: str, **extra: str) -> dict[str, str]:
    """The environment for a collector run: no proxy, so traffic stays on 127.0.0.1, and a
    neutral locale, so that the collector speaks English unless a test asks otherwise."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(PATH=path, NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    env.pop("GPU_PORTAL_TOKEN", None)
    for name in ("LC_ALL", "LC_MESSAGES", "PYTHONIOENCODING"):
        env.pop(name, None)
    env["LANG"] = "C.UTF-8"
    env.update(extra)
    return env


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


def run_collector(
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    python: str = sys.executable,
    timeout: float = 120,
) -> Run:
    done = subprocess.run(
        [python, str(COLLECTOR), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def stand_ins(tmp_path: Path) -> dict[str, Any]:
    """Copies of the stand-in tools with their execute bits set, and the PATH to use them."""
    bin_dir = tmp_path / "bin"
    shutil.copytree(HERE / "bin", bin_dir)
    nccl_dir = tmp_path / "nccl-tests"
    shutil.copytree(HERE / "nccl-tests", nccl_dir)
    for tool in [*bin_dir.iterdir(), nccl_dir / "build" / "all_reduce_perf"]:
        tool.chmod(0o755)
    path = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])
    return {"env": clean_env(path, STANDIN_SAMPLES=str(SAMPLES)), "nccl": nccl_dir, "bin": bin_dir}


@pytest.fixture
def no_tools(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds no diagnostic tool: every step is recorded as missing."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    return clean_env(str(empty))


def bundle_at(path: Path) -> EvidenceSet:
    return open_evidence(path.name, path.read_bytes())


# --------------------------------------------------------------------------- real runs


def test_runs_on_this_machine_without_upload(tmp_path: Path) -> None:
    env = clean_env(os.environ.get("PATH", "/usr/bin:/bin"))

    args = ["--no-upload", "--out", "node.tar.gz", "--timeout", "120"]
    # On a GPU node every tool runs for real, dcgmi diag included: allow for it.
    run = run_collector(args, env, tmp_path, timeout=1800)

    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "node.tar.gz"
    assert "note: no nonce" in run.stderr
    evidence = bundle_at(tmp_path / "node.tar.gz")
    manifest = evidence.manifest
    assert manifest is not None
    assert manifest.hostname == socket.gethostname()
    assert manifest.collector_version == collect.COLLECTOR_VERSION
    assert manifest.nonce is None
    assert manifest.started_at <= manifest.finished_at
    assert [c.name for c in manifest.commands] == STEP_NAMES + extra_names(env["PATH"])
    for index, command in enumerate(manifest.commands, start=1):
        assert f"[{index}/{len(manifest.commands)}] " in run.stderr
        tool = command.argv[0]
        if shutil.which(tool, path=collect.tool_env()["PATH"]) is None:
            # A tool this machine lacks (no GPU here) is recorded, not fatal.
            assert (command.missing, command.exit_code, command.output) == (True, None, None)
        else:
            assert not command.missing and command.duration_s is not None
    assert {m.name for m in evidence.members} == {c.output for c in manifest.commands if c.output}
    if shutil.which("lscpu"):
        lscpu = next(r for r in parse_evidence_set(evidence) if r.file == "lscpu.txt")
        assert (lscpu.kind, lscpu.ok, lscpu.exit_code) == ("cpu_info", True, 0)
        assert lscpu.metrics["logical_cpus"] == os.cpu_count()
        assert "] lscpu ... ok " in run.stderr


FIO_JOBS = [
    ("seq-write", "write", 1 << 20),
    ("seq-read", "read", 1 << 20),
    ("rand-read", "randread", 4096),
    ("rand-write", "randwrite", 4096),
]


def test_fio_runs_the_plans_local_and_shared_jobs_and_cleans_up(tmp_path: Path, no_tools) -> None:
    """Real fio on two directories: sequential and random jobs on each, labelled so that the
    parser reports every job and the POC plan's four fio runs are covered by them."""
    # A real fio job: ./scripts/test.sh installs fio, and its absence fails instead of skipping.
    assert shutil.which("fio"), "fio is not installed (./scripts/test.sh installs it)"
    disk, shared = tmp_path / "disk", tmp_path / "team-share"
    disk.mkdir()
    shared.mkdir()
    env = clean_env(no_tools["PATH"] + os.pathsep + os.path.dirname(shutil.which("fio") or ""))
    args = ["--no-upload", "--out", "b.tgz", "--fio-target", str(disk), "--shared-fs"]
    args += [str(shared), "--fio-size", "8M", "--fio-runtime", "1"]

    run = run_collector(args, env, tmp_path)

    assert run.returncode == 0, run.stderr
    assert list(disk.iterdir()) == [] and list(shared.iterdir()) == []  # temporary files gone
    evidence = bundle_at(tmp_path / "b.tgz")
    assert evidence.manifest is not None
    results = {r.file: r for r in parse_evidence_set(evidence)}
    commands = {c.output: c for c in evidence.manifest.commands}
    for output, prefix, where in (
        ("fio-local-nvme.json", "local-nvme-", disk),
        ("fio-shared-fs.json", "shared-fs-", shared),
    ):
        fio = results[output]
        assert (fio.kind, fio.ok) == ("fio", True), fio.error
        assert fio.metrics["errors"] == []
        jobs = fio.metrics["jobs"]
        assert [(j["name"], j["rw"], j["bs_bytes"]) for j in jobs] == [
            (prefix + name, rw, bs) for name, rw, bs in FIO_JOBS
        ]
        assert all(j["numjobs"] == 1 and j["iodepth"] in (1, 16, 64) for j in jobs)
        assert jobs[0]["write_bw_mbyte_s"] > 0 and jobs[1]["read_bw_mbyte_s"] > 0
        assert jobs[2]["read_iops"] > 0 and jobs[3]["write_iops"] > 0
        argv = commands[output].argv
        assert argv[0] == "fio" and "--output-format=json" in argv and "--size=8M" in argv
        assert any(a.startswith(f"--filename={where}/") for a in argv)
        if "--ioengine=libaio" in argv:  # O_DIRECT accepted: the random jobs keep 64 in flight
            assert [j["iodepth"] for j in jobs] == [16, 16, 64, 64]
        else:  # psync: one I/O in flight, reported as such
            assert [j["iodepth"] for j in jobs] == [1, 1, 1, 1]

    # The portal's matching: the report of this bundle covers the plan's four fio runs.
    report = [
        {"file": r.file, "kind": r.kind, "ok": r.ok, "command": r.command, "metrics": r.metrics}
        for r in results.values()
    ]
    found = poc.evidence_from_report(report, node_name="node1", upload_id=1)
    plan = poc.required_runs(poc.PlanSpec("inference", 8, 8, node_count=1), ["node1"])
    fio_runs = [r for r in plan if r.kind.startswith("fio_")]
    covered = poc.coverage(fio_runs, found, deadline=None, now=datetime.now(UTC), node_count=1)
    assert {r.run.kind: r.status for r in covered.runs} == {
        poc.FIO_LOCAL_SEQ: poc.COVERED,
        poc.FIO_LOCAL_RAND: poc.COVERED,
        poc.FIO_SHARED_SEQ: poc.COVERED,
        poc.FIO_SHARED_RAND: poc.COVERED,
    }
    assert {r.run.kind: r.evidence[0].source for r in covered.runs} == {
        poc.FIO_LOCAL_SEQ: "fio-local-nvme.json",
        poc.FIO_LOCAL_RAND: "fio-local-nvme.json",
        poc.FIO_SHARED_SEQ: "fio-shared-fs.json",
        poc.FIO_SHARED_RAND: "fio-shared-fs.json",
    }


EXTRA_OUTPUTS = {
    "nvidia-smi-L": "nvidia-smi-L.txt",
    "nvidia-smi-mig-lgi": "nvidia-smi-mig.txt",
    "kernel-log": "kernel-log.txt",
    "nvbandwidth": "nvbandwidth.txt",
    "npu-smi": "npu-smi.txt",
    "npu-smi-health-ecc": "npu-smi-details.txt",
}
EXTRA_KINDS = {
    "nvidia-smi-L": "nvidia_smi_list",
    "nvidia-smi-mig-lgi": "nvidia_smi_mig",
    "kernel-log": "kernel_log",
    "nvbandwidth": "nvbandwidth",
    "npu-smi": "npu_smi",
    "npu-smi-health-ecc": "npu_smi",
}
EXPECTED_KINDS = {
    "nvidia-smi.txt": "nvidia_smi",
    "nvidia-smi-q.txt": "nvidia_smi_query",
    "nvidia-smi-topo.txt": "nvidia_smi_topo",
    "nvidia-smi-nvlink.txt": "nvidia_smi_nvlink",
    "nvidia-smi-query-gpu.csv": "nvidia_smi_query",
    "ibstat.txt": "ibstat",
    "lspci.txt": "lspci",
    "lscpu.txt": "cpu_info",
    "dmidecode-system.txt": "dmi",
    "systemd-detect-virt.txt": "virt",
    "dcgmi-diag.txt": "dcgm_diag",
    "nccl-all-reduce.txt": "nccl_tests",
}


@pytest.mark.parametrize("python", INTERPRETERS)
def test_stand_in_tools_give_members_of_the_right_kinds(
    python: str, stand_ins: dict[str, Any], tmp_path: Path
) -> None:
    args = [
        "--no-upload",
        "--out",
        "b.tgz",
        "--nccl-tests",
        str(stand_ins["nccl"]),
        "--nonce",
        "given-nonce",
    ]

    run = run_collector(args, stand_ins["env"], tmp_path, python=python)

    extras = extra_names(stand_ins["env"]["PATH"])
    total = 12 + len(extras)
    assert run.returncode == 0, run.stderr
    assert f"[3/{total}] nvidia-smi topo -m ... ok " in run.stderr
    assert f"[10/{total}] systemd-detect-virt ... failed (exit 1) " in run.stderr
    assert f"collected {total} of {total} outputs into b.tgz" in run.stderr
    evidence = bundle_at(tmp_path / "b.tgz")
    assert evidence.manifest is not None and evidence.manifest.nonce == "given-nonce"
    nccl = evidence.manifest.commands[-1]
    # The sample CSV lists two GPUs (bus ids 04:00.0 and 8B:00.0), hence -g 2.
    assert nccl.argv[1:] == ("-b", "8", "-e", "1G", "-f", "2", "-g", "2")
    assert nccl.argv[0].endswith("nccl-tests/build/all_reduce_perf")

    results = {r.file: r for r in parse_evidence_set(evidence)}
    expected = dict(EXPECTED_KINDS)
    expected.update({EXTRA_OUTPUTS[name]: EXTRA_KINDS[name] for name in extras})
    assert {name: r.kind for name, r in results.items()} == expected
    assert results["nvidia-smi-L.txt"].metrics["gpu_count"] == 2
    assert results["nvidia-smi-mig.txt"].metrics["gpu_instance_count"] == 3
    assert results["nvidia-smi-topo.txt"].metrics["gpu_count"] == 8
    assert results["nvidia-smi.txt"].metrics["gpu_count"] == 2
    assert results["ibstat.txt"].metrics["ports"][0]["rate_gbit_s"] == 100
    assert results["lspci.txt"].metrics["nvidia_gpu_count"] == 8
    assert results["lscpu.txt"].metrics["hypervisor_vendor"] == "KVM"
    assert results["nccl-all-reduce.txt"].metrics["peak_busbw_gbyte_s"] == 232.2
    virt = results["systemd-detect-virt.txt"]
    assert (virt.ok, virt.exit_code, virt.metrics["virtual"]) == (True, 1, False)
    assert "`systemd-detect-virt` exited with code 1" in virt.warnings
    dcgm = results["dcgmi-diag.txt"]
    assert (dcgm.ok, dcgm.exit_code, dcgm.metrics["overall"]) == (True, 0, "pass")
    assert dcgm.metrics["format"] == "json"
    assert dcgm.command == "dcgmi diag -r 3 -j"


def test_dcgm_diag_falls_back_to_the_text_report_once(
    stand_ins: dict[str, Any], tmp_path: Path
) -> None:
    """A dcgmi that refuses -j: the level-3 diag runs again as text, and a failing report
    (exit 1) is kept; nothing runs a third time."""
    log = tmp_path / "calls.log"
    env = dict(stand_ins["env"], STANDIN_DCGMI_JSON="0", STANDIN_LOG=str(log))

    run = run_collector(["--no-upload", "--out", "b.tgz"], env, tmp_path)

    assert run.returncode == 0, run.stderr
    assert log.read_text().splitlines() == ["dcgmi diag -r 3 -j", "dcgmi diag -r 3"]
    total = 11 + len(extra_names(env["PATH"]))
    assert f"[11/{total}] dcgmi diag -r 3 -j ... failed (exit 1) " in run.stderr
    evidence = bundle_at(tmp_path / "b.tgz")
    dcgm = next(r for r in parse_evidence_set(evidence) if r.file == "dcgmi-diag.txt")
    assert (dcgm.kind, dcgm.ok, dcgm.exit_code) == ("dcgm_diag", True, 1)
    assert dcgm.metrics["overall"] == "fail" and dcgm.command == "dcgmi diag -r 3"
    # The POC plan reads the level from the command: this run is its dcgmi diag -r 3 run, and
    # it failed.
    found = poc.evidence_from_report(
        [{"file": dcgm.file, "kind": dcgm.kind, "ok": True, "command": dcgm.command,
          "metrics": dcgm.metrics}],
        node_name="n",
        upload_id=1,
    )  # fmt: skip
    runs = [poc.RequiredRun(poc.DCGM_DIAG, poc.DCGM_DIAG)]
    covered = poc.coverage(runs, found, deadline=None, now=datetime.now(UTC))
    assert covered.runs[0].status == poc.FAILED
    assert covered.runs[0].note == "dcgmi diag reported fail"


def test_nccl_is_skipped_when_no_gpu_is_listed(stand_ins: dict[str, Any], tmp_path: Path) -> None:
    (stand_ins["bin"] / "nvidia-smi").unlink()

    run = run_collector(
        ["--no-upload", "--out", "b.tgz", "--nccl-tests", str(stand_ins["nccl"])],
        stand_ins["env"],
        tmp_path,
    )

    assert run.returncode == 0, run.stderr
    assert "... skipped: nvidia-smi listed no GPU" in run.stderr
    evidence = bundle_at(tmp_path / "b.tgz")
    assert evidence.manifest is not None
    nccl = evidence.manifest.commands[-1]
    assert (nccl.exit_code, nccl.output, nccl.missing) == (None, None, False)
    assert nccl.error is not None and nccl.error.startswith("skipped: nvidia-smi listed no GPU")
    result = next(r for r in parse_evidence_set(evidence) if r.file == "nccl-all-reduce")
    assert (result.ok, result.missing) == (False, True)


def test_a_hanging_tool_is_killed_at_the_timeout(stand_ins: dict[str, Any], tmp_path: Path) -> None:
    hang = stand_ins["bin"] / "dcgmi"
    log = tmp_path / "calls.log"
    hang.write_text(
        f"#!/bin/sh\necho \"$*\" >> {log}\necho 'partial report'\nsleep 60\necho never\n"
    )
    hang.chmod(0o755)

    started = time.monotonic()
    run = run_collector(
        ["--no-upload", "--out", "b.tgz", "--timeout", "1", "--dcgm-timeout", "1"],
        stand_ins["env"],
        tmp_path,
    )

    assert time.monotonic() - started < 20
    assert run.returncode == 0, run.stderr
    total = 11 + len(extra_names(stand_ins["env"]["PATH"]))
    assert f"[11/{total}] dcgmi diag -r 3 -j ... timed out after 1s" in run.stderr
    assert log.read_text().splitlines() == ["diag -r 3 -j"]  # a hung tool is not started again
    evidence = bundle_at(tmp_path / "b.tgz")
    assert evidence.manifest is not None
    dcgm = evidence.manifest.commands[10]
    assert (dcgm.timed_out, dcgm.exit_code, dcgm.output) == (True, None, "dcgmi-diag.txt")
    assert evidence.get("dcgmi-diag.txt").data == b"partial report\n"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--portal and --token are needed to upload"),
        (["--portal", "ftp://x", "--token", "t"], "--portal must be an http:// or https:// URL"),
        (["--no-upload", "--fio-target", "/dev/null"], "--fio-target must be an existing dir"),
        (["--no-upload", "--shared-fs", "/nonexistent"], "--shared-fs must be an existing dir"),
        (["--no-upload", "--fio-runtime", "0"], "--fio-runtime must be at least 1"),
        (["--no-upload", "--dcgm-level", "5"], "argument --dcgm-level: invalid choice"),
        (["--no-upload", "--nccl-tests", "/"], "no executable all_reduce_perf in /"),
        (["--no-upload", "--timeout", "0"], "--timeout must be positive"),
        (["--no-upload", "--upload-only", "x"], "--no-upload and --upload-only exclude"),
        (["--no-upload", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_usage_errors_exit_with_2(
    args: list[str], message: str, no_tools: dict[str, str], tmp_path: Path
) -> None:
    run = run_collector(args, no_tools, tmp_path)

    assert run.returncode == 2
    assert message in run.stderr
    assert list(tmp_path.glob("*.tar.gz")) == []


# --------------------------------------------------------------------------- upload


@dataclass
class FakePortal:
    """A tiny portal on 127.0.0.1: scripted answers, every request recorded."""

    post_answers: list[tuple[int, dict[str, Any]]]
    nonce_answer: tuple[int, dict[str, Any]] = (200, {"nonce": "portal-nonce-7"})
    # Answers to the GETs of an upload's status address, in turn (the last one repeats).
    status_answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""

    @property
    def posts(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]


@pytest.fixture
def portal() -> Iterator[FakePortal]:
    state = FakePortal(post_answers=[])

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self, status: int, doc: dict[str, Any]) -> None:
            body = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _record(self, body: bytes) -> None:
            state.requests.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers),
                    "body": body,
                }
            )

        def do_GET(self) -> None:
            self._record(b"")
            if self.path.endswith("/nonce/") or not state.status_answers:
                self._answer(*state.nonce_answer)
            else:
                answers = state.status_answers
                self._answer(*(answers.pop(0) if len(answers) > 1 else answers[0]))

        def do_POST(self) -> None:
            self._record(self.rfile.read(int(self.headers["Content-Length"])))
            self._answer(*state.post_answers.pop(0))

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    # A short poll interval: shutdown() waits for it (0.5 s by default, at every test's end).
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def form_fields(request: dict[str, Any]) -> dict[str, bytes]:
    """Decode a multipart/form-data body the way a server would."""
    head = f"Content-Type: {request['headers']['Content-Type']}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + request["body"])
    return {
        part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
        for part in message.iter_parts()
    }


def upload_args(portal: FakePortal, *extra: str) -> list[str]:
    return [
        "--portal",
        portal.url,
        "--token",
        "tok-123",
        "--out",
        "b.tgz",
        "--retry-delay",
        "0.05",
        "--retries",
        "3",
        "--wait",
        "0",
        *extra,
    ]


@pytest.mark.parametrize("python", INTERPRETERS)
def test_upload_retries_503_then_prints_the_status_url(
    python: str, portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    accepted = {"id": 7, "status": "queued", "status_url": "/api/v1/evidence/7/"}
    portal.post_answers = [(503, {"detail": "busy"}), (503, {"detail": "busy"}), (202, accepted)]

    run = run_collector(upload_args(portal), no_tools, tmp_path, python=python)

    assert run.returncode == 0, run.stderr
    assert f"status: {portal.url}/api/v1/evidence/7/" in run.stdout
    assert "bundle accepted: upload 7, status queued" in run.stdout
    assert run.stderr.count("server error (HTTP 503): busy") == 2
    assert "retrying in 0.05s" in run.stderr
    assert "retrying in 0.1s" in run.stderr  # the second delay doubles the first
    assert [(r["method"], r["path"]) for r in portal.requests] == [
        ("GET", "/api/v1/evidence/nonce/"),
        ("POST", "/api/v1/evidence/"),
        ("POST", "/api/v1/evidence/"),
        ("POST", "/api/v1/evidence/"),
    ]
    for request in portal.requests:
        assert request["headers"]["Authorization"] == "Bearer tok-123"
    fields = form_fields(portal.posts[-1])
    assert fields["node_name"].decode() == socket.gethostname()
    assert fields["file"] == (tmp_path / "b.tgz").read_bytes()
    uploaded = open_evidence("b.tgz", fields["file"])
    assert uploaded.manifest is not None and uploaded.manifest.nonce == "portal-nonce-7"
    assert "tok-123" not in run.stderr + run.stdout


def _without_wait(portal: FakePortal) -> list[str]:
    args = upload_args(portal)
    at = args.index("--wait")
    return args[:at] + args[at + 2 :]


@pytest.mark.parametrize("python", INTERPRETERS)
def test_after_the_upload_it_waits_and_prints_what_the_portal_read(
    python: str, portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    accepted = {"id": 7, "status": "queued", "status_url": "/api/v1/evidence/7/"}
    portal.post_answers = [(202, accepted)]
    done = {
        "id": 7,
        "status": "done",
        "kinds_display": ["nccl-tests", "lscpu"],
        "report": [
            {"file": "all_reduce_perf.txt", "ok": True, "missing": False, "error": None},
            {"file": "lscpu", "ok": True, "missing": False, "error": None},
            {"file": "ibstat", "ok": False, "missing": True, "error": "not collected"},
            {"file": "fio.txt", "ok": False, "missing": False, "error": "line 3: no job result"},
        ],
    }
    portal.status_answers = [(200, {"id": 7, "status": "processing"}), (200, done)]

    run = run_collector(_without_wait(portal), no_tools, tmp_path, python=python)

    assert run.returncode == 0, run.stderr
    assert "import done: read nccl-tests, lscpu" in run.stdout
    # A file the node did not have was reported while collecting; one the portal could not
    # read is named with its reason.
    assert "  not read: fio.txt: line 3: no job result" in run.stdout
    assert "ibstat" not in run.stdout
    statuses = [r for r in portal.requests if r["path"] == "/api/v1/evidence/7/"]
    assert len(statuses) == 2
    assert statuses[0]["headers"]["Authorization"] == "Bearer tok-123"


def test_a_failed_import_is_printed_with_its_reason(
    portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    accepted = {"id": 8, "status": "queued", "status_url": "/api/v1/evidence/8/"}
    portal.post_answers = [(202, accepted)]
    failed = {"status": "failed", "error_display": "nothing in this upload could be parsed"}
    portal.status_answers = [(200, failed)]

    run = run_collector(_without_wait(portal), no_tools, tmp_path)

    assert run.returncode == 0, run.stderr
    assert "import failed: nothing in this upload could be parsed" in run.stdout


def test_waiting_stops_after_wait_seconds_and_says_where_the_result_will_be(
    portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    accepted = {"id": 9, "status": "queued", "status_url": "/api/v1/evidence/9/"}
    portal.post_answers = [(202, accepted)]
    portal.status_answers = [(200, {"status": "queued"})]

    run = run_collector([*upload_args(portal)[:-2], "--wait", "0.5"], no_tools, tmp_path)

    assert run.returncode == 0, run.stderr
    assert "the portal is still reading the bundle (queued)" in run.stdout
    assert "Upload evidence page" in run.stdout


@pytest.mark.parametrize("status", [400, 403])
def test_upload_4xx_is_not_retried_and_shows_the_server_message(
    status: int, portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    portal.post_answers = [(status, {"detail": "upload token expired"})]

    run = run_collector(upload_args(portal), no_tools, tmp_path)

    assert run.returncode == 3
    assert len(portal.posts) == 1
    assert f"the portal refused the bundle (HTTP {status}): upload token expired" in run.stderr
    assert "the bundle is kept at b.tgz" in run.stderr
    assert (tmp_path / "b.tgz").exists()


def test_a_duplicate_still_importing_is_not_called_imported(
    portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    # The portal queues a failed import again when its bundle is sent again.
    again = {"id": 4, "status": "queued", "status_url": "/api/v1/evidence/4/", "duplicate": True}
    portal.post_answers = [(200, again)]

    run = run_collector(upload_args(portal, "--nonce", "mine", "--wait", "0"), no_tools, tmp_path)

    assert run.returncode == 0, run.stderr
    assert "this bundle was received before and its import is not finished (upload 4)" in (
        run.stdout
    )
    assert "already imported" not in run.stdout


def test_duplicate_bundle_is_reported_as_already_imported(
    portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    duplicate = {"id": 3, "status": "done", "status_url": "/api/v1/evidence/3/", "duplicate": True}
    portal.post_answers = [(200, duplicate)]

    run = run_collector(upload_args(portal, "--nonce", "mine"), no_tools, tmp_path)

    assert run.returncode == 0, run.stderr
    assert "this bundle was already imported (upload 3)" in run.stdout
    assert f"status: {portal.url}/api/v1/evidence/3/" in run.stdout
    # With --nonce given the portal is not asked for one.
    assert [r["method"] for r in portal.requests] == ["POST"]


def test_missing_nonce_is_reported_and_collection_goes_on(
    portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    portal.nonce_answer = (404, {"detail": "Not found."})
    portal.post_answers = [(202, {"id": 1, "status": "queued", "status_url": "/s/1/"})]

    run = run_collector(upload_args(portal), no_tools, tmp_path)

    assert run.returncode == 0, run.stderr
    assert "warning: no nonce from the portal (HTTP 404: Not found.); continuing" in run.stderr
    uploaded = open_evidence("b.tgz", form_fields(portal.posts[0])["file"])
    assert uploaded.manifest is not None and uploaded.manifest.nonce is None


def test_unreachable_portal_fails_with_3_after_the_retries(
    no_tools: dict[str, str], tmp_path: Path
) -> None:
    with socket.socket() as probe:  # a port on 127.0.0.1 that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    args = [
        "--portal",
        url,
        "--token",
        "t",
        "--out",
        "b.tgz",
        "--retries",
        "2",
        "--retry-delay",
        "0.01",
    ]

    run = run_collector(args, no_tools, tmp_path)

    assert run.returncode == 3
    assert "warning: no nonce from the portal (cannot reach the portal" in run.stderr
    assert run.stderr.count("network error:") == 3
    assert "upload failed after 3 attempts; the bundle is kept at b.tgz" in run.stderr
    assert f"--portal {url} --token TOKEN --upload-only b.tgz" in run.stderr
    assert (tmp_path / "b.tgz").exists()


def test_upload_only_sends_an_existing_bundle(
    portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    made = run_collector(["--no-upload", "--out", "kept.tgz", "--nonce", "n"], no_tools, tmp_path)
    assert made.returncode == 0, made.stderr
    portal.post_answers = [(202, {"id": 9, "status": "queued", "status_url": "/s/9/"})]
    env = {**no_tools, "GPU_PORTAL_TOKEN": "env-token"}

    run = run_collector(
        ["--portal", portal.url, "--upload-only", "kept.tgz", "--wait", "0"], env, tmp_path
    )

    assert run.returncode == 0, run.stderr
    assert f"status: {portal.url}/s/9/" in run.stdout
    assert [r["method"] for r in portal.requests] == ["POST"]
    assert portal.posts[0]["headers"]["Authorization"] == "Bearer env-token"
    assert form_fields(portal.posts[0])["file"] == (tmp_path / "kept.tgz").read_bytes()


def _offline_bundle(path: Path, hostname: str) -> None:
    """A bundle as write_bundle makes it on another machine: manifest.json first."""
    manifest = json.dumps({"schema_version": 1, "hostname": hostname, "commands": []}).encode()
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, data in (("manifest.json", manifest), ("lscpu.txt", b"Architecture: x86_64\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_upload_only_names_the_node_the_bundle_was_collected_on(
    portal: FakePortal, no_tools: dict[str, str], tmp_path: Path
) -> None:
    """An offline node's bundle is uploaded from another machine: the node name sent is the
    manifest's host, not the uploading machine's (the portal files the evidence under it)."""
    _offline_bundle(tmp_path / "node3.tgz", "offline-node-3")
    (tmp_path / "topo.txt").write_bytes(b"\tGPU0\nGPU0\t X \n")
    portal.post_answers = [
        (202, {"id": n, "status": "queued", "status_url": "/s/1/"}) for n in (1, 2)
    ]
    for name in ("node3.tgz", "topo.txt"):
        run = run_collector(
            ["--portal", portal.url, "--token", "t", "--upload-only", name, "--wait", "0"],
            no_tools,
            tmp_path,
        )
        assert run.returncode == 0, run.stderr
    sent = [form_fields(post)["node_name"].decode() for post in portal.posts]
    # A plain file names no host: the machine sending it, as before.
    assert sent == ["offline-node-3", socket.gethostname()]


@pytest.mark.parametrize(
    "content",
    [b"", b"not a bundle", gzip.compress(b"one compressed file")],
    ids=["empty", "text", "gzip"],
)
def test_bundle_hostname_is_none_for_anything_but_a_bundle(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "upload"
    path.write_bytes(content)
    assert collect.bundle_hostname(str(path)) is None


# --------------------------------------------------------------------------- helpers


def test_gpu_count_comes_from_distinct_pci_bus_ids() -> None:
    csv = (SAMPLES / "mlengineering-h100-query-gpu-vbios-csv.txt").read_bytes()
    assert collect.count_gpus(csv) == 2
    assert collect.count_gpus(b"") == 0
    assert collect.count_gpus(b"No devices were found\n") == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"detail": "Invalid token."}', "Invalid token."),
        (b'{"file": ["This field is required."]}', '{"file": ["This field is required."]}'),
        (b"<html>Bad Gateway</html>", "<html>Bad Gateway</html>"),
        (b"", "(no message)"),
    ],
)
def test_server_message_prefers_the_detail(body: bytes, message: str) -> None:
    assert collect.server_message(body) == message


def test_ibv_devinfo_stands_in_when_ibstat_is_missing(
    stand_ins: dict[str, Any], tmp_path: Path
) -> None:
    (stand_ins["bin"] / "ibstat").unlink()

    run = run_collector(["--no-upload", "--out", "b.tgz"], stand_ins["env"], tmp_path)

    assert run.returncode == 0, run.stderr
    results = {r.file: r for r in parse_evidence_set(bundle_at(tmp_path / "b.tgz"))}
    ports = results["ibstat.txt"]
    assert (ports.kind, ports.ok, ports.command) == ("ibstat", True, "ibv_devinfo -v")
    assert ports.metrics["format"] == "ibv_devinfo"
    assert [(p["ca"], p["state"], p["rate_gbit_s"]) for p in ports.metrics["ports"]] == [
        ("mlx5_0", "Down", 100.0),
        ("mlx5_1", "Down", 100.0),
    ]


# Real npu-smi outputs (tests/scoring/evidence/samples/PROVENANCE.tsv).
NPU_SAMPLES = ROOT / "tests" / "scoring" / "evidence" / "samples" / "npu_smi"
A3_TABLE = NPU_SAMPLES / "modelengine-ucm-issue748-npu-smi-25.2.1-a3-no-top-border-cut.txt"
NPU_HEALTH = NPU_SAMPLES / "mindcluster-faultdiag-npu-smi-t-health-chip-leading-space-no-ids.txt"
NPU_ECC = NPU_SAMPLES / "mindcluster-faultdiag-npu-smi-t-ecc-npu1-ddr-hbm-chip-count.txt"


def _npu_smi_stand_in(folder: Path) -> Path:
    folder.mkdir()
    script = folder / "npu-smi"
    script.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f'    "info") exec cat "{A3_TABLE}" ;;\n'
        f'    "info -t health -i "*) exec cat "{NPU_HEALTH}" ;;\n'
        f'    "info -t ecc -i "*) exec cat "{NPU_ECC}" ;;\n'
        '    *) echo "npu-smi stand-in: unexpected arguments: $*" >&2; exit 2 ;;\n'
        "esac\n"
    )
    script.chmod(0o755)
    return folder


def test_npu_smi_is_collected_where_it_is(tmp_path: Path) -> None:
    folder = _npu_smi_stand_in(tmp_path / "bin")
    assert extra_names(str(tmp_path / "empty")) == []
    assert extra_names(str(folder)) == ["npu-smi", "npu-smi-health-ecc"]


def test_the_chips_to_query_come_from_the_table() -> None:
    # An Atlas A3 card shows two chips per NPU: each is queried.
    assert collect.npu_chips(A3_TABLE.read_bytes()) == [(0, 0), (0, 1), (1, 0)]
    assert collect.npu_chips(b"npu-smi: command failed\n") == []
    step = collect.npu_details_step()
    argv, reason = step.prepare({"npu-smi.txt": A3_TABLE.read_bytes()})
    assert reason == ""
    assert argv is not None and argv[-2:] == ["--npu-smi-details", "0:0,0:1,1:0"]
    assert step.prepare({}) == (None, "npu-smi listed no NPU, so there is no chip to query")


def test_npu_smi_details_names_each_output_by_its_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scoring.evidence import parse_text

    folder = _npu_smi_stand_in(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    out = io.StringIO()
    assert collect.npu_smi_details("0:0,0:1,1:0", out) == 0
    text = out.getvalue()
    assert text.splitlines()[0] == "npu-smi info -t health -i 0 -c 0"
    assert "npu-smi info -t ecc -i 1" in text and text.count("-t ecc") == 2
    metrics = parse_text(text).metrics
    assert [(c["npu"], c["chip"], c["health"]) for c in metrics["health_checks"]] == [
        (0, 0, "OK"),
        (0, 1, "OK"),
        (1, 0, "OK"),
    ]
    # The ECC output prints its own "NPU ID" (1 in the stand-in's sample for both runs).
    assert metrics["ecc_volatile_uncorrected"] == [0, 0]
