"""The collector's multi-node mode, run for real on loopback: the collector runs as a process,
launches the stand-in ``mpirun`` (tests/collector/bin), which runs the stand-in ``nvidia-smi``,
``ibstat`` and nccl-tests binaries that print real outputs. Nothing inside the collector is
replaced; RTT probes go to 127.0.0.1 only."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scoring.evidence.bundle import parse_evidence_set

from .test_collect import (
    INTERPRETERS,
    bundle_at,
    clean_env,
    collect,
    run_collector,
)

HERE = Path(__file__).resolve().parent


@pytest.fixture
def cluster(tmp_path: Path) -> dict[str, Any]:
    bin_dir = tmp_path / "bin"
    shutil.copytree(HERE / "bin", bin_dir)
    nccl_dir = tmp_path / "nccl-tests"
    shutil.copytree(HERE / "nccl-tests", nccl_dir)
    for tool in [*bin_dir.iterdir(), *(nccl_dir / "build").iterdir()]:
        tool.chmod(0o755)
    hostfile = tmp_path / "hosts"
    hostfile.write_text("# two 8-GPU nodes\nnode-a slots=8\nnode-b slots=8\n")
    log = tmp_path / "mpirun.log"
    path = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])
    env = clean_env(path, STANDIN_SAMPLES=str(HERE / "samples"), MPIRUN_LOG=str(log))
    return {"env": env, "nccl": nccl_dir, "bin": bin_dir, "hostfile": hostfile, "log": log}


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections (the TCP-connect probe's target)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                conn.close()
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(2)
    server.close()


@pytest.mark.parametrize("python", INTERPRETERS)
def test_two_nodes_through_mpirun(
    python: str, cluster: dict[str, Any], tmp_path: Path, listener: int
) -> None:
    args = [
        "--no-upload",
        "--out",
        "multi.tgz",
        "--nonce",
        "poc-nonce-1",
        "--hostfile",
        str(cluster["hostfile"]),
        "--nccl-tests",
        str(cluster["nccl"]),
        "--rtt",
        f"127.0.0.1:{listener}",
        "--rtt-count",
        "3",
    ]
    run = run_collector(args, cluster["env"], tmp_path, python=python)

    assert run.returncode == 0, run.stderr
    assert "multi-node mode: 2 node(s) from the hostfile, launcher mpirun" in run.stderr
    # Progress per node: each identity command, then one line per node.
    assert "mpirun -np 1 --host node-a nvidia-smi -L ... ok" in run.stderr
    assert "mpirun -np 1 --host node-b ibstat ... ok" in run.stderr
    assert "node node-a: 2/2 identity outputs (nvidia-smi-L, ibstat)" in run.stderr
    assert "node node-b: 2/2 identity outputs (nvidia-smi-L, ibstat)" in run.stderr
    launched = cluster["log"].read_text().splitlines()
    assert "np=16 hosts=node-a:8,node-b:8 cmd=" in "\n".join(launched)
    assert any(line.startswith("np=16") and "alltoall_perf" in line for line in launched)

    evidence = bundle_at(tmp_path / "multi.tgz")
    manifest = evidence.manifest
    assert manifest is not None and manifest.nonce == "poc-nonce-1"
    results = {r.file: r for r in parse_evidence_set(evidence)}
    a, b = results["nodes/node-a/nvidia-smi-L.txt"], results["nodes/node-b/nvidia-smi-L.txt"]
    assert (a.kind, b.kind) == ("nvidia_smi_list", "nvidia_smi_list")
    # The two nodes report different GPUs: identity is per node, not copied.
    assert set(a.metrics["gpu_uuids"]).isdisjoint(b.metrics["gpu_uuids"])
    assert results["nodes/node-b/ibstat.txt"].metrics["port_count"] > 1
    all_reduce = results["multinode/all_reduce_perf.txt"]
    assert (all_reduce.kind, all_reduce.metrics["ranks"]) == ("nccl_tests", 16)
    assert all_reduce.metrics["peak_busbw_gbyte_s"] == 464.79  # the 16G in-place row
    alltoall = results["multinode/alltoall_perf.txt"]
    assert alltoall.kind == "nccl_tests"
    tcp = results[f"rtt/tcp-127.0.0.1_{listener}.txt"]
    assert tcp.kind == "rtt"
    assert (tcp.metrics["method"], tcp.metrics["port"], tcp.metrics["loss_pct"]) == (
        "tcp_connect",
        listener,
        0.0,
    )
    assert tcp.metrics["rtt_avg_ms"] is not None
    commands = {c.name: c for c in manifest.commands}
    assert commands["nccl-all_reduce-2-nodes"].argv[:5] == (
        "mpirun",
        "-np",
        "16",
        "--host",
        "node-a:8,node-b:8",
    )


def test_without_a_launcher_the_exact_commands_are_printed(
    cluster: dict[str, Any], tmp_path: Path
) -> None:
    (cluster["bin"] / "mpirun").unlink()
    run = run_collector(
        [
            "--no-upload",
            "--out",
            "p.tgz",
            "--hostfile",
            str(cluster["hostfile"]),
            "--nccl-tests",
            str(cluster["nccl"]),
            "--collectives",
            "all_reduce",
        ],
        cluster["env"],
        tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "launcher print" in run.stderr
    lines = run.stdout.splitlines()
    binary = str(cluster["nccl"] / "build" / "all_reduce_perf")
    assert (
        f"mpirun -np 16 --host node-a:8,node-b:8 --bind-to none -x NCCL_DEBUG=WARN {binary} "
        "-b 8 -e 8G -f 2 -g 1"
    ) in lines
    assert (
        f"srun --nodes=2 --ntasks-per-node=8 --nodelist=node-a,node-b {binary} -b 8 -e 8G -f 2 -g 1"
    ) in lines
    assert "srun --nodes=1 --ntasks=1 --nodelist=node-b nvidia-smi -L" in lines
    assert lines[-1] == "p.tgz"
    evidence = bundle_at(tmp_path / "p.tgz")
    assert evidence.manifest is not None
    commands = evidence.manifest.commands
    skipped = [c for c in commands if c.name.startswith("node:") or c.name.endswith("-nodes")]
    assert skipped and all(c.output is None for c in skipped)
    assert all("printed" in (c.error or "") for c in skipped)


def test_hostfile_and_slurm_node_lists() -> None:
    assert collect.expand_nodelist("gpu[01-03,07],login1") == [
        "gpu01",
        "gpu02",
        "gpu03",
        "gpu07",
        "login1",
    ]
    assert collect.split_target("[::1]:22") == ("::1", 22)
    assert collect.split_target("10.0.0.2") == ("10.0.0.2", None)


def test_bad_hostfile_is_a_usage_error(cluster: dict[str, Any], tmp_path: Path) -> None:
    bad = tmp_path / "bad-hosts"
    bad.write_text("node-a; rm -rf /\n")
    run = run_collector(["--no-upload", "--hostfile", str(bad)], cluster["env"], tmp_path)
    assert run.returncode == 2
    assert "not a host name" in run.stderr


def test_slurm_outside_an_allocation_is_a_usage_error(
    cluster: dict[str, Any], tmp_path: Path
) -> None:
    env = {k: v for k, v in cluster["env"].items() if not k.startswith("SLURM_")}
    run = run_collector(["--no-upload", "--slurm"], env, tmp_path)
    assert run.returncode == 2
    assert "SLURM_JOB_NODELIST" in run.stderr


# ./scripts/test.sh installs ping (iputils-ping); its absence fails instead of skipping.
def test_icmp_round_trip_to_loopback(cluster: dict[str, Any], tmp_path: Path) -> None:
    run = run_collector(
        ["--no-upload", "--out", "r.tgz", "--rtt", "127.0.0.1", "--rtt-count", "3"],
        cluster["env"],
        tmp_path,
    )
    assert run.returncode == 0, run.stderr
    results = {r.file: r for r in parse_evidence_set(bundle_at(tmp_path / "r.tgz"))}
    ping = results["rtt/ping-127.0.0.1.txt"]
    assert ping.kind == "rtt"
    assert (ping.metrics["method"], ping.metrics["target"], ping.metrics["transmitted"]) == (
        "icmp",
        "127.0.0.1",
        3,
    )
