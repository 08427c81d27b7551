"""Which evidence satisfies which required run, and a command line that produces it."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

from .plan import (
    DCGM_DIAG,
    FIO_LOCAL_RAND,
    FIO_LOCAL_SEQ,
    FIO_SHARED_RAND,
    FIO_SHARED_SEQ,
    IB_WRITE_BW,
    INVENTORY,
    NCCL_MULTI_ALL_REDUCE,
    NCCL_MULTI_ALLTOALL,
    NCCL_ONE_NODE,
    NVIDIA_SMI_Q,
    PocEvidence,
    RequiredRun,
)

DEFAULT_SHARED_PREFIXES = (
    "/shared",
    "/mnt/shared",
    "/lustre",
    "/gpfs",
    "/nfs",
    "/mnt/nfs",
    "/cpfs",
    "/weka",
    "/beegfs",
)
SEQUENTIAL_RW = frozenset({"read", "write", "rw", "readwrite"})
RANDOM_RW = frozenset({"randread", "randwrite", "randrw", "randtrim", "trimwrite"})


def _argv(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _nccl_collective(e: PocEvidence) -> str:
    collective = e.metrics.get("collective")
    if isinstance(collective, str) and collective:
        return collective
    tool = (_argv(e.command) or [""])[0].rsplit("/", 1)[-1]
    return tool[: -len("_perf")] if tool.endswith("_perf") else ""


def nodes_spanned(e: PocEvidence) -> int:
    """How many nodes an nccl-tests run spanned: the distinct hosts of its device list (one,
    the uploading node, when none is listed)."""
    hosts = e.metrics.get("hosts")
    if isinstance(hosts, list | tuple) and hosts:
        return len({str(h) for h in hosts})
    return 1


def _dcgm_level(e: PocEvidence) -> int | None:
    level = e.metrics.get("level")
    if isinstance(level, int) and not isinstance(level, bool):
        return level
    match = re.search(r"(?:-r|--run)[ =]+(\d)\b", e.command)
    return int(match.group(1)) if match else None


SEQUENTIAL_MIN_BS = 128 * 1024  # a sequential run measures throughput: large blocks
RANDOM_MAX_BS = 64 * 1024  # a random run measures IOPS: small blocks


def _fio_modes(e: PocEvidence) -> set[str]:
    """ "sequential" and/or "random" from the jobs' rw and block size (bs_bytes; a job whose
    block size was not printed counts by its rw alone)."""
    modes: set[str] = set()
    jobs = e.metrics.get("jobs")
    rows = (
        [(j.get("rw"), j.get("bs_bytes")) for j in jobs if isinstance(j, Mapping)]
        if isinstance(jobs, list)
        else []
    )
    if not rows and isinstance(e.metrics.get("rw"), list):
        rows = [(rw, None) for rw in e.metrics["rw"]]
    for rw, bs in rows:
        if not isinstance(rw, str):
            continue
        size = bs if isinstance(bs, int) and not isinstance(bs, bool) else None
        if rw in SEQUENTIAL_RW and (size is None or size >= SEQUENTIAL_MIN_BS):
            modes.add("sequential")
        elif rw in RANDOM_RW and (size is None or size <= RANDOM_MAX_BS):
            modes.add("random")
    return modes


# The collector names its fio jobs for their target ("local-nvme-seq-read",
# "shared-fs-rand-write"...): the label says which plan run a job belongs to wherever the
# directory lies. fio reports the names back (JSON "jobname", text "name: (groupid=...)").
FIO_JOB_PREFIXES = {"local": "local-nvme-", "shared": "shared-fs-"}


def fio_job_target(e: PocEvidence) -> str:
    """ "local" or "shared" when every job of the file carries the collector's label for that
    target, else "" (unlabelled or mixed jobs)."""
    jobs = e.metrics.get("jobs")
    names = []
    if isinstance(jobs, list):
        names = [j.get("name") for j in jobs if isinstance(j, Mapping)]
    if not names and isinstance(e.metrics.get("jobnames"), list):
        names = list(e.metrics["jobnames"])
    if not names or not all(isinstance(n, str) for n in names):
        return ""
    for target, prefix in FIO_JOB_PREFIXES.items():
        if all(n.startswith(prefix) for n in names):
            return target
    return ""


def fio_target(e: PocEvidence, shared_prefixes: Sequence[str] = DEFAULT_SHARED_PREFIXES) -> str:
    """ "shared" or "local": the collector's job label when every job carries one; else
    "shared" when the fio command's file or directory lies under a shared-FS prefix (or the
    file is named for it), else "local"."""
    labelled = fio_job_target(e)
    if labelled:
        return labelled
    prefixes = [p.rstrip("/") for p in shared_prefixes if p and p.strip("/")]
    for arg in _argv(e.command):
        value = arg.split("=", 1)[1] if arg.startswith("--") and "=" in arg else arg
        for path in value.split(":"):
            if any(path == p or path.startswith(p + "/") for p in prefixes):
                return "shared"
    name = e.source.lower()
    if "shared" in name or "sharedfs" in name:
        return "shared"
    return "local"


def _perftest_peers(e: PocEvidence) -> set[str]:
    return {a for a in _argv(e.command)[1:] if not a.startswith("-")}


def _is_ib_write_bw(e: PocEvidence) -> bool:
    if e.kind != "perftest":
        return False
    test = e.metrics.get("test")
    tool = (_argv(e.command) or [""])[0].rsplit("/", 1)[-1]
    return test == "ib_write_bw" or tool == "ib_write_bw"


def _on_node(run: RequiredRun, e: PocEvidence) -> bool:
    return not run.node or e.node_name == run.node


def _matches(
    run: RequiredRun, e: PocEvidence, shared_prefixes: Sequence[str], node_count: int
) -> bool:
    kind = run.kind
    if kind == NCCL_ONE_NODE:
        return (
            e.kind == "nccl_tests"
            and _nccl_collective(e) == "all_reduce"
            and nodes_spanned(e) == 1
            and _on_node(run, e)
        )
    if kind in (NCCL_MULTI_ALL_REDUCE, NCCL_MULTI_ALLTOALL):
        wanted = "all_reduce" if kind == NCCL_MULTI_ALL_REDUCE else "alltoall"
        return (
            e.kind == "nccl_tests"
            and _nccl_collective(e) == wanted
            and nodes_spanned(e) >= min(run.min_nodes, node_count)
            and nodes_spanned(e) >= 2
        )
    if kind == IB_WRITE_BW:
        if not _is_ib_write_bw(e):
            return False
        if not run.peers:
            return True
        a, b = run.peers
        peers = _perftest_peers(e)
        return (e.node_name == a and b in peers) or (e.node_name == b and a in peers)
    if kind == DCGM_DIAG:
        level = _dcgm_level(e)
        return e.kind == "dcgm_diag" and level is not None and level >= 3 and _on_node(run, e)
    if kind in (FIO_LOCAL_SEQ, FIO_LOCAL_RAND, FIO_SHARED_SEQ, FIO_SHARED_RAND):
        if e.kind != "fio" or not _on_node(run, e):
            return False
        target = "shared" if kind in (FIO_SHARED_SEQ, FIO_SHARED_RAND) else "local"
        mode = "sequential" if kind in (FIO_LOCAL_SEQ, FIO_SHARED_SEQ) else "random"
        return fio_target(e, shared_prefixes) == target and mode in _fio_modes(e)
    if kind == NVIDIA_SMI_Q:
        if e.kind == "nvidia_smi_xml":
            return _on_node(run, e)
        argv = _argv(e.command)
        asked = "-q" in argv or "--query" in argv or not e.command
        return e.kind == "nvidia_smi_query" and asked and _on_node(run, e)
    if kind == INVENTORY:
        return e.kind == "nvidia_smi_list" and _on_node(run, e)
    return False


def suggested_command(run: RequiredRun, *, shared_path: str = "/shared", gpus: int = 8) -> str:
    """A command line that produces evidence satisfying ``run`` (shown on the plan page; run it
    through the collector or keep the command with the output so that the portal can read the
    target path and the peer)."""
    gpus = max(gpus, 1)
    shared = (shared_path or "/shared").rstrip("/") or "/shared"
    fio = (
        "fio --output-format=json --size=4G --runtime=60 --time_based --ioengine=libaio --direct=1"
    )
    kind = run.kind
    if kind == NCCL_ONE_NODE:
        return f"all_reduce_perf -b 8 -e 8G -f 2 -g {gpus}"
    if kind in (NCCL_MULTI_ALL_REDUCE, NCCL_MULTI_ALLTOALL):
        binary = "all_reduce_perf" if kind == NCCL_MULTI_ALL_REDUCE else "alltoall_perf"
        ranks = run.min_nodes * gpus
        return f"mpirun -np {ranks} -N {gpus} --hostfile hosts {binary} -b 8 -e 8G -f 2 -g 1"
    if kind == IB_WRITE_BW:
        server = run.peers[1] if run.peers else "<server>"
        return f"ib_write_bw -d mlx5_0 --report_gbits -a {server}"
    if kind == DCGM_DIAG:
        return "dcgmi diag -r 3"
    if kind in (FIO_LOCAL_SEQ, FIO_SHARED_SEQ, FIO_LOCAL_RAND, FIO_SHARED_RAND):
        target = "shared" if kind in (FIO_SHARED_SEQ, FIO_SHARED_RAND) else "local"
        where = shared if target == "shared" else "/local_nvme"
        prefix = FIO_JOB_PREFIXES[target]  # the collector's label: matched wherever the path
        if kind in (FIO_LOCAL_SEQ, FIO_SHARED_SEQ):
            job = f"--name={prefix}seq-read --rw=read --bs=1M --iodepth=16"
        else:
            job = f"--name={prefix}rand-read --rw=randread --bs=4k --iodepth=64"
        return f"{fio} --filename={where}/gpu-poc-fio.tmp {job}"
    if kind == NVIDIA_SMI_Q:
        return "nvidia-smi -q"
    if kind == INVENTORY:
        return "nvidia-smi -L"
    return ""
