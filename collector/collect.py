#!/usr/bin/env python3
"""GPU node evidence collector: run diagnostics, write a tar.gz bundle, upload it to the portal.

Run it on each candidate node of a POC (Python 3.8+, standard library only):

    python3 collect.py --portal https://portal.example --token TOKEN
    python3 collect.py --portal URL --token TOKEN --fio-target /mnt/nvme --shared-fs /shared/poc
    python3 collect.py --no-upload --out node1.tar.gz          # offline: upload later
    python3 collect.py --portal URL --token TOKEN --upload-only node1.tar.gz

Each tool runs with a timeout and LC_ALL=C (parsers read English output); a tool that is not
installed is recorded in the manifest as missing instead of failing the run. Progress goes to
stderr, the status URL to stdout; after an upload the collector waits (--wait, 120 s by
default) for the portal to read the bundle and prints what it read and each file it could not.
The collector's own messages are in English or Chinese: --lang en|zh, else the locale (LC_ALL,
then LC_MESSAGES, then LANG; "zh..." is Chinese); the portal is asked to answer in the same
language. The manifest stays in English whatever the language.
The token can also come from the GPU_PORTAL_TOKEN environment variable, which keeps it out of
the process list.

Exit status: 0 done, 1 the bundle could not be written, 2 usage error, 3 upload failed
(the bundle is kept; retry with --upload-only), 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any, NoReturn

COLLECTOR_VERSION = "1.4.0"
MANIFEST_SCHEMA_VERSION = 1
EXIT_OK, EXIT_WRITE_FAILED, EXIT_USAGE, EXIT_UPLOAD_FAILED = 0, 1, 2, 3
DEFAULT_TIMEOUT_S = 600.0
# The portal refuses members over 64 MiB; keep well under it.
OUTPUT_CAP_BYTES = 32 * 1024 * 1024
STDERR_TAIL_CHARS = 2000
ANSWER_CAP_BYTES = 64 * 1024
EVIDENCE_PATH = "/api/v1/evidence/"
NONCE_PATH = "/api/v1/evidence/nonce/"
# Administration tools (dmidecode, ibstat) live in sbin, often missing from a user's PATH.
EXTRA_PATH = ("/usr/local/sbin", "/usr/sbin", "/sbin")

QUERY_GPU_FIELDS = (
    "name,pci.bus_id,driver_version,memory.total,mig.mode.current,ecc.mode.current,"
    "ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,"
    "retired_pages.pending"
)
# Drivers older than R450 reject the MIG and some ECC fields and fail the whole query.
QUERY_GPU_BASIC_FIELDS = "name,pci.bus_id,driver_version,memory.total"
PCI_BUS_ID = re.compile(r"\b[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]\b")


# --------------------------------------------------------------------------- language

LANGUAGES = ("en", "zh")
# What the portal's LocaleMiddleware is asked for; "en" too, since a portal may default to
# Chinese (LANGUAGE_CODE).
ACCEPT_LANGUAGE = {"en": "en", "zh": "zh-Hans"}
# The language of the messages below, set once by main(). The tools the collector runs get
# LC_ALL=C whatever it is (tool_env): the parsers read their English output.
language = "en"


def N_(text: str) -> str:
    """Mark a message that is translated where it is shown (gettext's gettext_noop)."""
    return text


def tr(text: str, **values: Any) -> str:
    """``text`` (English, a key of ZH) in the chosen language, its {placeholders} filled."""
    if language == "zh":
        text = ZH.get(text, text)
    return text.format(**values) if values else text


def listed(names: list[str]) -> str:
    """Names one after the other, with the list separator of the chosen language."""
    return ("、" if language == "zh" else ", ").join(names)


def language_from(argv: list[str], environ: Mapping[str, str]) -> str:
    """The last ``--lang en|zh`` of ``argv``, else the locale as POSIX reads it (the first of
    LC_ALL, LC_MESSAGES and LANG that is set and not empty; "zh..." is Chinese), else English.
    Read before argparse runs, so that the help and usage errors are in that language too."""
    chosen = None
    for index, word in enumerate(argv):
        if word == "--":
            break
        value = argv[index + 1] if word == "--lang" and index + 1 < len(argv) else None
        if word.startswith("--lang="):
            value = word[len("--lang=") :]
        if value in LANGUAGES:
            chosen = value
    if chosen is not None:
        return chosen
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def use_language(code: str) -> None:
    """Speak ``code`` from now on; English where stdout or stderr cannot show Chinese (a
    Latin-1 terminal, PYTHONIOENCODING=ascii): words beat question marks or a traceback."""
    global language
    if code == "zh":
        for stream in (sys.stdout, sys.stderr):
            try:
                "中文：，".encode(getattr(stream, "encoding", None) or "ascii")
            except (LookupError, UnicodeEncodeError):
                code = "en"
    language = code


@contextlib.contextmanager
def argparse_language() -> Iterator[None]:
    """argparse's own words (usage:, error:, options, invalid choice, ...) in the chosen
    language: argparse looks them up through its module's gettext functions, for which this
    one-file script has no catalogue, so they are pointed at ARGPARSE_ZH meanwhile."""
    if language != "zh" or not hasattr(argparse, "_") or not hasattr(argparse, "ngettext"):
        yield
        return
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]

    def plural(singular: str, many: str, count: int) -> str:
        text = singular if count == 1 else many
        return ARGPARSE_ZH.get(text, text)

    argparse._ = lambda text: ARGPARSE_ZH.get(text, text)  # type: ignore[attr-defined]
    argparse.ngettext = plural  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]


class Parser(argparse.ArgumentParser):
    """argparse, with the words its gettext calls do not reach in Chinese too: the ASCII colon
    it writes after every section heading, and Python 3.8's "argument --x: " before an error."""

    def format_help(self) -> str:
        text = super().format_help()
        if language != "zh":
            return text
        return re.sub(r"(?m)^(\S.*[\u4e00-\u9fff]):$", "\\1：", text)

    def error(self, message: str) -> NoReturn:
        if language == "zh":
            message = re.sub(r"^argument (\S+): ", "参数 \\1：", message)
        super().error(message)


class Step:
    """One command to run: its argv, fallbacks tried when it is missing or fails, its output."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        output: str,
        alternatives: list[list[str]] | None = None,
        prepare: Callable[[dict[str, bytes]], tuple[list[str] | None, str]] | None = None,
        cleanup: Callable[[], None] | None = None,
        usable: Callable[[bytes], bool] | None = None,
        timeout: float | None = None,
    ) -> None:
        self.name = name
        self.argv = argv
        self.output = output
        self.alternatives = alternatives or []
        # prepare(outputs so far) -> (argv, "") or (None, why the step is skipped)
        self.prepare = prepare
        self.cleanup = cleanup
        # usable(stdout) -> True when a command that exited non-zero still printed its report
        # (dcgmi diag exits 1 when a test fails): the alternatives are then not tried.
        self.usable = usable
        # Seconds allowed for this step (None: --timeout).
        self.timeout = timeout

    @property
    def label(self) -> str:
        return " ".join(self.argv)


class Outcome:
    """What running one step gave: the manifest entry and the captured stdout."""

    def __init__(self, entry: dict[str, Any], stdout: bytes, status: str) -> None:
        self.entry = entry
        self.stdout = stdout
        self.status = status


# --------------------------------------------------------------------------- the plan


def plan_steps(args: argparse.Namespace) -> list[Step]:
    steps = [
        Step("nvidia-smi", ["nvidia-smi"], "nvidia-smi.txt"),
        Step("nvidia-smi-q", ["nvidia-smi", "-q"], "nvidia-smi-q.txt"),
        Step("nvidia-smi-topo", ["nvidia-smi", "topo", "-m"], "nvidia-smi-topo.txt"),
        Step("nvidia-smi-nvlink", ["nvidia-smi", "nvlink", "-s"], "nvidia-smi-nvlink.txt"),
        Step(
            "nvidia-smi-query-gpu",
            ["nvidia-smi", "--query-gpu=" + QUERY_GPU_FIELDS, "--format=csv"],
            "nvidia-smi-query-gpu.csv",
            alternatives=[["nvidia-smi", "--query-gpu=" + QUERY_GPU_BASIC_FIELDS, "--format=csv"]],
        ),
        # Without infiniband-diags, rdma-core's ibv_devinfo -v gives the same port states and rates.
        Step(
            "ibstat", ["ibstat"], "ibstat.txt", alternatives=[["ibstatus"], ["ibv_devinfo", "-v"]]
        ),
        Step("lspci", ["lspci", "-nn"], "lspci.txt"),
        Step("lscpu", ["lscpu"], "lscpu.txt"),
        Step("dmidecode", ["dmidecode", "-t", "system"], "dmidecode-system.txt"),
        Step("systemd-detect-virt", ["systemd-detect-virt"], "systemd-detect-virt.txt"),
        dcgm_step(args.dcgm_level, args.dcgm_timeout),
    ]
    steps += extra_tool_steps()
    if args.fio_target:
        steps.append(fio_step(args.fio_target, args.fio_size, "local", args.fio_runtime))
    if args.shared_fs:
        steps.append(fio_step(args.shared_fs, args.fio_size, "shared", args.fio_runtime))
    if args.nccl_tests:
        steps.append(nccl_step(find_all_reduce(args.nccl_tests) or "all_reduce_perf"))
    steps += [rtt_step(target, args.rtt_count) for target in args.rtt or []]
    if args.cluster is not None:
        steps += multinode_steps(args)
    return steps


def extra_tool_steps() -> list[Step]:
    """The newer evidence kinds, only for the tools this node has (not recorded as missing)."""
    path = tool_env()["PATH"]
    steps: list[Step] = []
    if shutil.which("nvidia-smi", path=path):
        steps.append(Step("nvidia-smi-L", ["nvidia-smi", "-L"], "nvidia-smi-L.txt"))
        steps.append(
            Step("nvidia-smi-mig-lgi", ["nvidia-smi", "mig", "-lgi"], "nvidia-smi-mig.txt")
        )
    if shutil.which("dmesg", path=path) or shutil.which("journalctl", path=path):
        # Xid / SXid lines; dmesg may be restricted to root, journalctl -k then reads the same.
        steps.append(
            Step(
                "kernel-log",
                ["dmesg", "--ctime"],
                "kernel-log.txt",
                alternatives=[["journalctl", "-k", "-b", "--no-pager", "-q"]],
            )
        )
    if shutil.which("npu-smi", path=path):
        # Huawei Ascend NPUs: the device table (each chip's health), then each chip's health
        # with its error codes and each NPU's ECC counts (npu_smi_details).
        steps.append(Step("npu-smi", ["npu-smi", "info"], "npu-smi.txt"))
        steps.append(npu_details_step())
    if shutil.which("nvbandwidth", path=path):
        steps.append(
            Step(
                "nvbandwidth",
                ["nvbandwidth", "-t", "host_to_device_memcpy_ce", "device_to_host_memcpy_ce",
                 "device_to_device_memcpy_read_ce"],
                "nvbandwidth.txt",
            )
        )  # fmt: skip
    return steps


# npu-smi info's chip rows: "| <NPU> <name> | <health> | ..." then "| <chip> [<phy id>] | <bus
# id> | ...": the ids to query one by one.
NPU_ROW = re.compile(r"^\|\s*(\d{1,4})\s+\S[^|]*\|\s*(?:OK|Warning|Alarm|Critical|NA)\s*\|")
CHIP_ROW = re.compile(r"^\|\s*(\d{1,4})(?:\s+\d{1,5})?\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:")


def npu_chips(table: bytes) -> list[tuple[int, int]]:
    """(NPU, chip) of every chip an ``npu-smi info`` table lists, in its order."""
    chips: list[tuple[int, int]] = []
    npu = None
    for line in table.decode("utf-8", "replace").splitlines():
        line = line.strip()
        found = NPU_ROW.match(line)
        if found:
            npu = int(found.group(1))
            continue
        found = CHIP_ROW.match(line)
        if found and npu is not None and (npu, int(found.group(1))) not in chips:
            chips.append((npu, int(found.group(1))))
    return chips


def npu_details_step() -> Step:
    """Each chip's ``npu-smi info -t health`` and each NPU's ``-t ecc``, through the collector
    itself (npu_smi_details), for the chips the table listed."""
    base = [sys.executable, os.path.abspath(__file__), "--npu-smi-details"]

    def prepare(outputs: dict[str, bytes]) -> tuple[list[str] | None, str]:
        chips = npu_chips(outputs.get("npu-smi.txt", b""))
        if not chips:
            return None, N_("npu-smi listed no NPU, so there is no chip to query")
        return [*base, ",".join(f"{npu}:{chip}" for npu, chip in chips)], ""

    return Step(
        "npu-smi-health-ecc", [*base, "NPU:CHIP,..."], "npu-smi-details.txt", prepare=prepare
    )


def npu_smi_details(chips: str, out: IO[str] = sys.stdout, timeout: float = 60.0) -> int:
    """Run ``npu-smi info -t health -i N -c C`` for each "N:C" of ``chips`` and ``npu-smi info
    -t ecc -i N`` once per NPU, each output after its command line and a blank line after it
    (the collection file Ascend's fault-diagnosis guide describes): the command line names the
    device its output is about. 0 when any of them ran."""
    env = tool_env()
    pairs = [tuple(int(x) for x in item.split(":")) for item in chips.split(",") if item]
    commands: list[list[str]] = []
    for npu, chip in pairs:
        commands.append(["npu-smi", "info", "-t", "health", "-i", str(npu), "-c", str(chip)])
    for npu in dict.fromkeys(npu for npu, _ in pairs):
        commands.append(["npu-smi", "info", "-t", "ecc", "-i", str(npu)])
    ran = False
    for argv in commands:
        result = execute(argv, timeout, env)
        out.write(" ".join(argv) + "\n")
        out.write(result["stdout"].decode("utf-8", "replace").rstrip("\n") + "\n\n")
        ran = ran or result["exit_code"] == 0
    out.flush()
    return 0 if ran else 1


# --------------------------------------------------------------------------- round trips


def split_target(target: str) -> tuple[str, int | None]:
    """ "host" -> (host, None); "host:port" and "[v6]:port" -> (host, port)."""
    bracketed = re.match(r"^\[([^\]]+)\](?::(\d{1,5}))?$", target)
    if bracketed:
        port = bracketed.group(2)
        return bracketed.group(1), int(port) if port else None
    if target.count(":") == 1:
        host, port = target.split(":")
        if port.isdigit():
            return host, int(port)
    return target, None


def rtt_step(target: str, count: int) -> Step:
    """ICMP ping for "host"; the collector's own TCP-connect probe for "host:port"."""
    host, port = split_target(target)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", target)
    if port is None:
        argv = ["ping", "-c", str(count), "-i", "0.2", host]
        return Step(f"rtt-{safe}", argv, f"rtt/ping-{safe}.txt")
    argv = [
        sys.executable,
        os.path.abspath(__file__),
        "--tcping",
        target,
        "--rtt-count",
        str(count),
    ]
    return Step(f"rtt-{safe}", argv, f"rtt/tcp-{safe}.txt")


def tcping(target: str, count: int, timeout: float = 2.0, out: IO[str] = sys.stdout) -> int:
    """Time ``count`` TCP connects to host:port; print them the way ping does. 0 if any answered."""
    host, port = split_target(target)
    if port is None:
        out.write(f"tcping: {target!r} has no port (host:port)\n")
        return EXIT_USAGE
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        out.write(f"tcping: cannot resolve {host}: {exc}\n")
        return 1
    family, _, _, _, address = infos[0]
    out.write(f"TCPING {host}:{port} ({address[0]})\n")
    times: list[float] = []
    for seq in range(1, count + 1):
        started = time.perf_counter()
        try:
            with socket.socket(family, socket.SOCK_STREAM) as sock:
                sock.settimeout(timeout)
                sock.connect(address)
            elapsed = (time.perf_counter() - started) * 1000
            times.append(elapsed)
            out.write(f"connected to {host}:{port}: seq={seq} time={elapsed:.3f} ms\n")
        except OSError as exc:
            out.write(f"no connection to {host}:{port}: seq={seq} {exc}\n")
        if seq < count:
            time.sleep(0.2)
    lost = count - len(times)
    out.write(f"\n--- {host}:{port} tcp-connect statistics ---\n")
    out.write(
        f"{count} packets transmitted, {len(times)} received, "
        f"{round(100.0 * lost / count, 1):g}% packet loss\n"
    )
    if times:
        mean = sum(times) / len(times)
        mdev = (sum((t - mean) ** 2 for t in times) / len(times)) ** 0.5
        out.write(
            f"rtt min/avg/max/mdev = {min(times):.3f}/{mean:.3f}/{max(times):.3f}/{mdev:.3f} ms\n"
        )
    out.flush()
    return 0 if times else 1


# --------------------------------------------------------------------------- several nodes


class Cluster:
    """The nodes of a multi-node run, their GPU slots, and how commands reach them."""

    def __init__(self, nodes: list[tuple[str, int | None]], source: str) -> None:
        self.nodes = nodes
        self.source = source
        self.launcher = "print"

    def names(self) -> list[str]:
        return [name for name, _ in self.nodes]


def parse_hostfile(path: str) -> list[tuple[str, int | None]]:
    """Open MPI / MPICH hostfile lines: "host", "host slots=8", "host:8"; "#" comments."""
    nodes: list[tuple[str, int | None]] = []
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            name, slots = fields[0], None
            if ":" in name and name.rsplit(":", 1)[1].isdigit():
                name, count = name.rsplit(":", 1)
                slots = int(count)
            for field in fields[1:]:
                key, _, value = field.partition("=")
                if key in ("slots", "max_slots", "max-slots") and value.isdigit() and slots is None:
                    slots = int(value)
            if not re.match(r"^[A-Za-z0-9._-]+$", name):
                raise ValueError(tr("{path}: not a host name: {name}", path=path, name=repr(name)))
            if name not in [n for n, _ in nodes]:
                nodes.append((name, slots))
    if not nodes:
        raise ValueError(tr("{path}: no host listed", path=path))
    return nodes


def expand_nodelist(text: str) -> list[str]:
    """Slurm's compact node list ("gpu[01-03,07],login1") without scontrol."""
    names: list[str] = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", text):
        match = re.match(r"^([^\[]*)\[([^\]]*)\](.*)$", part)
        if not match:
            names.append(part)
            continue
        prefix, ranges, suffix = match.groups()
        for item in ranges.split(","):
            low, _, high = item.partition("-")
            if not high:
                names.append(f"{prefix}{low}{suffix}")
                continue
            for number in range(int(low), int(high) + 1):
                names.append(f"{prefix}{str(number).zfill(len(low))}{suffix}")
    return [n for n in names if n]


def slurm_nodes() -> list[tuple[str, int | None]]:
    text = os.environ.get("SLURM_JOB_NODELIST") or os.environ.get("SLURM_NODELIST")
    if not text:
        raise ValueError(tr("--slurm: not inside a Slurm allocation (SLURM_JOB_NODELIST is unset)"))
    names: list[str] = []
    if shutil.which("scontrol"):
        done = subprocess.run(
            ["scontrol", "show", "hostnames", text], capture_output=True, text=True, check=False
        )
        if done.returncode == 0:
            names = done.stdout.split()
    names = names or expand_nodelist(text)
    gpus = os.environ.get("SLURM_GPUS_ON_NODE") or os.environ.get("SLURM_GPUS_PER_NODE")
    slots = int(gpus) if gpus and gpus.isdigit() else None
    return [(name, slots) for name in names]


def choose_launcher(wanted: str, cluster: Cluster) -> str:
    path = tool_env()["PATH"]
    if wanted != "auto":
        return wanted
    if shutil.which("mpirun", path=path):
        return "mpirun"
    if cluster.source == "slurm" and shutil.which("srun", path=path):
        return "srun"
    return "print"


def on_node(launcher: str, node: str, argv: list[str]) -> list[str]:
    """``argv`` run once on ``node``."""
    if launcher == "srun":
        return ["srun", "--nodes=1", "--ntasks=1", f"--nodelist={node}", *argv]
    return ["mpirun", "-np", "1", "--host", node, *argv]


def across_nodes(launcher: str, nodes: list[str], slots: int, argv: list[str]) -> list[str]:
    """``argv`` as one MPI job with ``slots`` ranks (one GPU each) on every node."""
    if launcher == "srun":
        return [
            "srun",
            f"--nodes={len(nodes)}",
            f"--ntasks-per-node={slots}",
            f"--nodelist={','.join(nodes)}",
            *argv,
        ]
    return [
        "mpirun",
        "-np",
        str(len(nodes) * slots),
        "--host",
        ",".join(f"{n}:{slots}" for n in nodes),
        "--bind-to",
        "none",
        "-x",
        "NCCL_DEBUG=WARN",
        *argv,
    ]


# Per node: its GPUs (UUIDs, so the same node cannot report twice) and its HCAs (port GUIDs).
NODE_IDENTITY = (("nvidia-smi-L", ["nvidia-smi", "-L"]), ("ibstat", ["ibstat"]))
COLLECTIVE_BINARIES = {
    "all_reduce": "all_reduce_perf",
    "all_gather": "all_gather_perf",
    "reduce_scatter": "reduce_scatter_perf",
    "alltoall": "alltoall_perf",
    "all_to_all": "alltoall_perf",
    "broadcast": "broadcast_perf",
}


def find_binary(directory: str | None, name: str) -> str:
    for candidate in (name, os.path.join("build", name)):
        path = os.path.join(directory or "", candidate)
        if directory and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    return name


def node_slots(cluster: Cluster, wanted: int | None, outputs: dict[str, bytes]) -> int:
    """GPUs per node: --gpus-per-node, else the hostfile/Slurm slots, else this node's count."""
    if wanted:
        return wanted
    known = [slots for _, slots in cluster.nodes if slots]
    if known:
        return min(known)
    return count_gpus(outputs.get("nvidia-smi-query-gpu.csv", b""))


def multinode_steps(args: argparse.Namespace) -> list[Step]:
    cluster: Cluster = args.cluster
    launcher = cluster.launcher
    names = cluster.names()
    steps: list[Step] = []
    printed = N_("no mpirun or srun on this node: the command is printed at the end, run it there")
    for node in names:
        folder = "nodes/" + re.sub(r"[^A-Za-z0-9._-]+", "_", node)
        for label, tool in NODE_IDENTITY:
            argv = on_node("mpirun" if launcher == "print" else launcher, node, tool)
            step = Step(f"node:{node}:{label}", argv, f"{folder}/{label}.txt")
            if launcher == "print":
                step.prepare = lambda outputs, why=printed: (None, why)
            steps.append(step)
    for collective in args.collectives:
        binary = find_binary(args.nccl_tests, COLLECTIVE_BINARIES[collective])
        base = [binary, "-b", "8", "-e", args.nccl_max_bytes, "-f", "2", "-g", "1"]

        def prepare(
            outputs: dict[str, bytes], base: list[str] = base
        ) -> tuple[list[str] | None, str]:
            slots = node_slots(cluster, args.gpus_per_node, outputs)
            if slots == 0:
                return None, N_("GPUs per node unknown (pass --gpus-per-node)")
            if launcher == "print":
                return None, printed
            return across_nodes(launcher, names, slots, base), ""

        steps.append(
            Step(
                f"nccl-{collective}-{len(names)}-nodes",
                across_nodes("mpirun" if launcher == "print" else launcher, names, 0, base),
                f"multinode/{COLLECTIVE_BINARIES[collective]}.txt",
                prepare=prepare,
            )
        )
    return steps


def commands_to_print(args: argparse.Namespace, outputs: dict[str, bytes]) -> list[str]:
    """The exact commands of the multi-node steps, with mpirun and with srun."""
    cluster: Cluster = args.cluster
    names = cluster.names()
    slots = node_slots(cluster, args.gpus_per_node, outputs) or 8
    lines = []
    for launcher in ("mpirun", "srun"):
        lines.append(tr("# with {launcher}:", launcher=launcher))
        for node in names:
            for _, tool in NODE_IDENTITY:
                lines.append(" ".join(shell_quote(a) for a in on_node(launcher, node, tool)))
        for collective in args.collectives:
            binary = find_binary(args.nccl_tests, COLLECTIVE_BINARIES[collective])
            base = [binary, "-b", "8", "-e", args.nccl_max_bytes, "-f", "2", "-g", "1"]
            lines.append(
                " ".join(shell_quote(a) for a in across_nodes(launcher, names, slots, base))
            )
    return lines


def shell_quote(word: str) -> str:
    return (
        word
        if re.match(r"^[A-Za-z0-9_./:=,@+-]+$", word)
        else "'" + word.replace("'", "'\\''") + "'"
    )


def node_progress(
    args: argparse.Namespace, outcomes: list[Outcome], log: IO[str]
) -> list[dict[str, Any]]:
    """One line per node (identity outputs collected), and the manifest's "nodes" list."""
    by_name = {o.entry["name"]: o for o in outcomes}
    nodes = []
    for node, slots in args.cluster.nodes:
        labels = [label for label, _ in NODE_IDENTITY]
        got = [label for label in labels if by_name.get(f"node:{node}:{label}") is not None
               and by_name[f"node:{node}:{label}"].entry["output"]]  # fmt: skip
        log.write(
            tr(
                "node {node}: {got}/{total} identity outputs ({names})",
                node=node,
                got=len(got),
                total=len(labels),
                names=listed(got) or tr("none"),
            )
            + "\n"
        )
        nodes.append(
            {"name": node, "slots": slots, "identity": got, "complete": len(got) == len(labels)}
        )
    return nodes


# --------------------------------------------------------------------------- dcgmi diag

DCGM_LEVELS = (1, 2, 3, 4)
# NVIDIA's guidance: -r 1 takes seconds, -r 2 about two minutes, -r 3 up to about 30 minutes,
# -r 4 one to two hours (on an 8-GPU node).
DEFAULT_DCGM_TIMEOUT_S = 2700.0


def printed_json(stdout: bytes) -> bool:
    """True when ``stdout`` holds a JSON object (noise lines before it allowed)."""
    text = stdout.decode("utf-8", "replace")
    start = text.find("{")
    if start < 0:
        return False
    try:
        json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return False
    return True


def dcgm_step(level: int, timeout: float | None) -> Step:
    """``dcgmi diag -r LEVEL -j`` (JSON), else the text table where ``-j`` is not understood.
    A diag that found a failure exits non-zero with its report: that report is kept and the
    diag is not run a second time."""
    base = ["dcgmi", "diag", "-r", str(level)]
    return Step(
        "dcgmi-diag",
        [*base, "-j"],
        "dcgmi-diag.txt",
        alternatives=[base],
        usable=printed_json,
        timeout=timeout,
    )


# --------------------------------------------------------------------------- fio

# Job names carry the target: the portal matches a job to the POC plan's "local NVMe" or
# "shared file system" runs by these prefixes (scoring/poc/matching.py FIO_JOB_PREFIXES), and the
# parser reports each job's rw, block size, iodepth and numjobs.
FIO_TARGETS = {
    "local": ("local-nvme-", "fio-local-nvme.json"),
    "shared": ("shared-fs-", "fio-shared-fs.json"),
}
# (suffix, rw, block size, iodepth with an asynchronous engine): sequential throughput with
# 1 MiB blocks, then random 4 KiB IOPS at a queue deep enough (64) to judge an IOPS claim.
FIO_JOBS = (
    ("seq-write", "write", "1M", 16),
    ("seq-read", "read", "1M", 16),
    ("rand-read", "randread", "4k", 64),
    ("rand-write", "randwrite", "4k", 64),
)


def fio_step(directory: str, size: str, target: str = "local", runtime: int = 30) -> Step:
    """Sequential 1 MiB write and read, then random 4 KiB read and write, one job after the
    other on a temporary file in ``directory`` (deleted afterwards), each job named for the
    ``target`` ("local" NVMe or "shared" file system)."""
    prefix, output = FIO_TARGETS[target]
    # Named for the host too: several nodes may test one shared directory at the same time.
    host = re.sub(r"[^A-Za-z0-9._-]+", "_", socket.gethostname()) or "node"
    name = f"gpu-poc-fio-{target}-{host}-{os.getpid()}.tmp"
    path = os.path.join(os.path.abspath(directory), name)
    # fio splits --filename on ':'; a backslash escapes it.
    filename = path.replace(":", "\\:")

    def argv(engine: list[str], asynchronous: bool) -> list[str]:
        words = [
            "fio",
            "--output-format=json",
            "--filename=" + filename,
            "--size=" + size,
            "--runtime=" + str(runtime),
            *engine,
        ]
        for index, (suffix, rw, bs, depth) in enumerate(FIO_JOBS):
            words += ["--name=" + prefix + suffix, "--rw=" + rw, "--bs=" + bs]
            # A synchronous engine keeps one I/O in flight: say so rather than claim a depth.
            words.append("--iodepth=" + str(depth if asynchronous else 1))
            if rw == "write":
                words.append("--end_fsync=1")
            if index:
                words.append("--stonewall")  # one job at a time: figures are not mixed
        return words

    def cleanup() -> None:
        with contextlib.suppress(OSError):
            os.remove(path)

    # O_DIRECT bypasses the page cache, but tmpfs and some network file systems refuse it.
    primary = argv(["--ioengine=libaio", "--direct=1"], True)
    fallback = argv(["--ioengine=psync", "--direct=0"], False)
    return Step(
        output[: -len(".json")],
        primary,
        output,
        alternatives=[fallback],
        cleanup=cleanup,
    )


def find_all_reduce(directory: str) -> str | None:
    for candidate in ("all_reduce_perf", os.path.join("build", "all_reduce_perf")):
        path = os.path.join(directory, candidate)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    return None


def count_gpus(query_csv: bytes) -> int:
    """GPUs listed by ``nvidia-smi --query-gpu=...,pci.bus_id`` (distinct PCI bus ids)."""
    return len(set(PCI_BUS_ID.findall(query_csv.decode("utf-8", "replace"))))


def nccl_step(binary: str) -> Step:
    base = [binary, "-b", "8", "-e", "1G", "-f", "2", "-g"]

    def prepare(outputs: dict[str, bytes]) -> tuple[list[str] | None, str]:
        gpus = count_gpus(outputs.get("nvidia-smi-query-gpu.csv", b""))
        if gpus == 0:
            return None, N_("nvidia-smi listed no GPU, so the GPU count for -g is unknown")
        return [*base, str(gpus)], ""

    return Step("nccl-all-reduce", [*base, "N"], "nccl-all-reduce.txt", prepare=prepare)


# --------------------------------------------------------------------------- running


def tool_env() -> dict[str, str]:
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    parts = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(
        [p for p in parts if p] + [p for p in EXTRA_PATH if p not in parts]
    )
    return env


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the tool and everything it started (mpirun, nccl-tests ranks)."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def tail_text(handle: IO[bytes], chars: int) -> str | None:
    size = handle.seek(0, os.SEEK_END)
    handle.seek(max(0, size - chars * 4))
    text = handle.read().decode("utf-8", "replace").strip()
    return text[-chars:] or None


def execute(argv: list[str], timeout: float, env: dict[str, str]) -> dict[str, Any]:
    """Run one command; stdout and stderr go to temporary files so memory stays bounded."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            return {
                "exit_code": None,
                "error": f"could not start: {exc}",
                "start_error": str(exc),
                "stdout": b"",
                "duration_s": 0.0,
                "timed_out": False,
                "stderr": None,
            }
        timed_out = False
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc)
            code = proc.wait()
        except KeyboardInterrupt:
            kill_group(proc)
            raise
        duration = round(time.monotonic() - started, 3)
        out.seek(0)
        stdout = out.read(OUTPUT_CAP_BYTES + 1)
        error = None
        if len(stdout) > OUTPUT_CAP_BYTES:
            stdout = stdout[:OUTPUT_CAP_BYTES]
            error = f"output cut at {OUTPUT_CAP_BYTES} bytes"
        return {
            "exit_code": None if timed_out else code,
            "duration_s": duration,
            "timed_out": timed_out,
            "error": error,
            "stderr": tail_text(err, STDERR_TAIL_CHARS),
            "stdout": stdout,
        }


def run_step(step: Step, argv: list[str], timeout: float, env: dict[str, str]) -> Outcome:
    entry: dict[str, Any] = {"name": step.name, "argv": argv, "output": step.output}
    result: dict[str, Any] | None = None
    if step.timeout is not None:
        timeout = step.timeout
    for candidate in [argv, *step.alternatives]:
        if shutil.which(candidate[0], path=env["PATH"]) is None:
            continue
        result = execute(candidate, timeout, env)
        entry["argv"] = candidate
        if result["exit_code"] == 0 or result["timed_out"]:
            break  # a tool that hung is not started again in another form
        if step.usable is not None and step.usable(result["stdout"]):
            break
    if result is None:
        entry.update(
            output=None,
            exit_code=None,
            duration_s=None,
            missing=True,
            timed_out=False,
            error=f"{argv[0]} is not installed",
            stderr=None,
        )
        return Outcome(entry, b"", tr("missing (not installed)"))
    stdout = result.pop("stdout")
    start_error = result.pop("start_error", None)
    entry.update(result, missing=False)
    seconds = f"{result['duration_s']:.1f}"
    if result["timed_out"]:
        status = tr("timed out after {seconds}s", seconds=f"{timeout:.0f}")
    elif result["exit_code"] is None:
        entry["output"] = None
        status = tr("failed: could not start: {error}", error=start_error)
    elif result["exit_code"] != 0:
        status = tr("failed (exit {code}) {seconds}s", code=result["exit_code"], seconds=seconds)
    else:
        status = tr("ok {seconds}s", seconds=seconds)
    return Outcome(entry, stdout, status)


def skipped(step: Step, reason: str) -> Outcome:
    """``reason``, an English message of ZH: in English in the manifest, translated on screen."""
    entry = {
        "name": step.name,
        "argv": step.argv,
        "output": None,
        "exit_code": None,
        "duration_s": None,
        "missing": False,
        "timed_out": False,
        "error": "skipped: " + reason,
        "stderr": None,
    }
    return Outcome(entry, b"", tr("skipped: {reason}", reason=tr(reason)))


def collect(steps: list[Step], timeout: float, log: IO[str]) -> list[Outcome]:
    env = tool_env()
    outputs: dict[str, bytes] = {}
    outcomes = []
    for index, step in enumerate(steps, start=1):
        argv: list[str] | None = step.argv
        reason = ""
        if step.prepare is not None:
            argv, reason = step.prepare(outputs)
        shown = " ".join(argv) if argv else step.label
        if len(shown) > 72:
            shown = shown[:69] + "..."
        log.write(f"[{index}/{len(steps)}] {shown} ... ")
        log.flush()
        try:
            outcome = skipped(step, reason) if argv is None else run_step(step, argv, timeout, env)
        finally:
            if step.cleanup is not None:
                step.cleanup()
        log.write(outcome.status + "\n")
        log.flush()
        if outcome.entry["output"]:
            outputs[step.output] = outcome.stdout
        outcomes.append(outcome)
    return outcomes


# --------------------------------------------------------------------------- the bundle


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def build_manifest(
    outcomes: list[Outcome],
    hostname: str,
    nonce: str | None,
    started_at: str,
    finished_at: str,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        **(extra or {}),
        "schema_version": MANIFEST_SCHEMA_VERSION,
        "collector_version": COLLECTOR_VERSION,
        "hostname": hostname,
        "started_at": started_at,
        "finished_at": finished_at,
        "nonce": nonce,
        "commands": [o.entry for o in outcomes],
    }


def write_bundle(path: str, manifest: dict[str, Any], outcomes: list[Outcome]) -> None:
    """Write manifest.json then each output; via a temporary name so no half bundle remains."""
    partial = path + ".part"
    now = int(time.time())
    members = [("manifest.json", json.dumps(manifest, indent=2).encode("utf-8"))]
    members += [(o.entry["output"], o.stdout) for o in outcomes if o.entry["output"]]
    try:
        with tarfile.open(partial, "w:gz", format=tarfile.PAX_FORMAT) as archive:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mtime = now
                info.mode = 0o644
                archive.addfile(info, io.BytesIO(data))
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(partial)
        raise


# The manifest write_bundle puts first; a larger one is not a collector's.
MANIFEST_MAX_BYTES = 1 << 20


def bundle_hostname(path: str) -> str | None:
    """The hostname a bundle's manifest.json names (the node that ran the collector), None
    when the file is not a bundle this collector wrote or names none. --upload-only sends it
    as the node name: the bundle may be uploaded from another machine (an offline node's,
    copied to one that reaches the portal), and sending that machine's name filed the node's
    evidence under it. Reads the first member only, as a stream."""
    try:
        with tarfile.open(path, "r|*") as archive:
            first = archive.next()
            if first is None or first.name != "manifest.json" or not first.isfile():
                return None
            if first.size > MANIFEST_MAX_BYTES:
                return None
            handle = archive.extractfile(first)
            doc = json.loads(handle.read().decode("utf-8")) if handle is not None else None
    except (OSError, tarfile.TarError, ValueError, EOFError):
        return None
    name = doc.get("hostname") if isinstance(doc, dict) else None
    return name if isinstance(name, str) and name.strip() else None


def default_bundle_name(hostname: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", hostname) or "node"
    return f"evidence-{safe}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.tar.gz"


# --------------------------------------------------------------------------- the portal


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # A redirected POST would silently become a GET without the bundle.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_NoRedirect)


def request(
    url: str, token: str, timeout: float, data: bytes | None = None, content_type: str | None = None
) -> tuple[int, bytes]:
    """Send one request; return (HTTP status, body). Network failures raise OSError or
    http.client.HTTPException."""
    headers = {
        "Authorization": "Bearer " + token,
        "Accept": "application/json",
        # The portal's texts (errors, import results) in the language of these messages.
        "Accept-Language": ACCEPT_LANGUAGE[language],
        "User-Agent": "gpu-evidence-collector/" + COLLECTOR_VERSION,
    }
    if content_type:
        headers["Content-Type"] = content_type
    req = urllib.request.Request(
        url, data=data, headers=headers, method="POST" if data is not None else "GET"
    )
    try:
        with opener().open(req, timeout=timeout) as answer:
            return answer.status, answer.read(ANSWER_CAP_BYTES)
    except urllib.error.HTTPError as exc:
        body = exc.read(ANSWER_CAP_BYTES) if exc.fp is not None else b""
        return exc.code, body


def server_message(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    try:
        doc = json.loads(text)
    except ValueError:
        return text[:500] or tr("(no message)")
    if isinstance(doc, dict):
        for key in ("detail", "error", "message"):
            if isinstance(doc.get(key), str):
                return doc[key]
    return json.dumps(doc)[:500]


def fetch_nonce(portal: str, token: str, timeout: float) -> tuple[str | None, str]:
    """Ask the portal for the nonce to embed; (nonce, "") or (None, why not)."""
    try:
        status, body = request(portal + NONCE_PATH, token, timeout)
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return None, tr("cannot reach the portal ({error})", error=describe(exc))
    if status != 200:
        return None, tr("HTTP {status}: {message}", status=status, message=server_message(body))
    try:
        nonce = json.loads(body.decode("utf-8")).get("nonce")
    except (ValueError, AttributeError):
        nonce = None
    if not isinstance(nonce, str) or not nonce:
        return None, tr("the answer holds no nonce")
    return nonce, ""


def describe(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    return str(reason if reason is not None else exc) or type(exc).__name__


def encode_multipart(fields: dict[str, str], filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = "gpu-evidence-" + uuid.uuid4().hex
    safe_name = re.sub(r"[^A-Za-z0-9._-]+", "_", filename) or "bundle.tar.gz"
    parts = []
    for key, value in fields.items():
        parts.append(
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'
            ).encode()
        )
    parts.append(
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{safe_name}"\r\n'
            "Content-Type: application/gzip\r\n\r\n"
        ).encode()
    )
    parts.append(data)
    parts.append((f"\r\n--{boundary}--\r\n").encode())
    return b"".join(parts), "multipart/form-data; boundary=" + boundary


def upload(args: argparse.Namespace, path: str, node_name: str, log: IO[str]) -> int:
    """POST the bundle, retrying connection errors and 5xx with exponential backoff."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        print(
            tr("error: cannot read the bundle {path}: {error}", path=path, error=exc),
            file=sys.stderr,
        )
        return EXIT_UPLOAD_FAILED
    body, content_type = encode_multipart({"node_name": node_name}, os.path.basename(path), data)
    url = args.portal + EVIDENCE_PATH
    attempts = args.retries + 1
    for attempt in range(1, attempts + 1):
        log.write(
            tr(
                "uploading {name} ({size} bytes) to {url}, attempt {attempt}/{attempts} ... ",
                name=os.path.basename(path),
                size=len(data),
                url=url,
                attempt=attempt,
                attempts=attempts,
            )
        )
        log.flush()
        try:
            status, answer = request(url, args.token, args.http_timeout, body, content_type)
        except (OSError, ValueError, http.client.HTTPException) as exc:
            problem = tr("network error: {error}", error=describe(exc))
        else:
            if 200 <= status < 300:
                log.write(tr("done (HTTP {status})", status=status) + "\n")
                link = report_accepted(args.portal, answer)
                if link and args.wait > 0:
                    wait_for_import(link, args.token, args.wait, min(args.http_timeout, 30.0))
                return EXIT_OK
            # 429 asks to come back later, like a 5xx; other 4xx will not change on retry.
            if 300 <= status < 500 and status != 429:
                log.write(tr("refused (HTTP {status})", status=status) + "\n")
                hint = tr(" (check --portal: a redirect)") if status < 400 else ""
                print(
                    tr(
                        "error: the portal refused the bundle (HTTP {status}): {message}{hint}",
                        status=status,
                        message=server_message(answer),
                        hint=hint,
                    ),
                    file=sys.stderr,
                )
                print(tr("the bundle is kept at {path}", path=path), file=sys.stderr)
                return EXIT_UPLOAD_FAILED
            problem = tr(
                "server error (HTTP {status}): {message}",
                status=status,
                message=server_message(answer)[:200],
            )
        log.write(problem + "\n")
        if attempt < attempts:
            delay = min(args.retry_delay * 2 ** (attempt - 1), 300.0)
            log.write(tr("retrying in {delay}s", delay=f"{delay:g}") + "\n")
            log.flush()
            time.sleep(delay)
    command = f"python3 collect.py --portal {args.portal} --token TOKEN --upload-only {path}"
    if language == "zh":
        command += " --lang zh"
    print(
        tr(
            "error: upload failed after {attempts} attempts; the bundle is kept at {path}",
            attempts=attempts,
            path=path,
        ),
        file=sys.stderr,
    )
    print(tr("retry later with: {command}", command=command), file=sys.stderr)
    return EXIT_UPLOAD_FAILED


def report_accepted(portal: str, answer: bytes) -> str | None:
    """Print what the portal said about an accepted (or already known) bundle; the address of
    its status, None when the answer names none."""
    try:
        doc = json.loads(answer.decode("utf-8"))
    except ValueError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    status_url = doc.get("status_url")
    link = urllib.parse.urljoin(portal + "/", status_url) if isinstance(status_url, str) else None
    if doc.get("duplicate") and doc.get("status") in ("queued", "processing"):
        # Sent before and not imported yet, or failed and queued again by this sending.
        print(
            tr(
                "this bundle was received before and its import is not finished (upload {id})",
                id=doc.get("id", "?"),
            )
        )
    elif doc.get("duplicate"):
        print(tr("this bundle was already imported (upload {id})", id=doc.get("id", "?")))
    else:
        status = status_name(doc.get("status"))
        print(
            tr(
                "bundle accepted: upload {id}, status {status}",
                id=doc.get("id", "?"),
                status=status,
            )
        )
    if link:
        print(tr("status: {link}", link=link))
    return link


# An upload's states as the portal names them (its API answers the code, not a label).
STATUS_NAMES = {
    "queued": N_("queued"),
    "processing": N_("processing"),
    "done": N_("done"),
    "failed": N_("failed"),
}


def status_name(status: Any) -> str:
    if not isinstance(status, str):
        return tr("unknown")
    return tr(STATUS_NAMES[status]) if status in STATUS_NAMES else status


# How often the import's status is asked for while waiting (seconds, doubling up to the cap).
WAIT_FIRST_S, WAIT_CAP_S = 1.0, 8.0


def wait_for_import(link: str, token: str, wait_s: float, timeout: float) -> str | None:
    """Ask the portal for the import's status until it is done or failed, or ``wait_s`` has
    passed, and print what it read from each file and what it could not read; the status
    reached (None when the portal's answer could not be read). The engineer learns on the node
    that a file did not parse, instead of from a status address only the token opens."""
    deadline = time.monotonic() + wait_s
    delay = WAIT_FIRST_S
    while True:
        try:
            status, body = request(link, token, timeout)
            doc = json.loads(body.decode("utf-8")) if status == 200 else None
        except (OSError, ValueError, http.client.HTTPException):
            doc = None
        state = doc.get("status") if isinstance(doc, dict) else None
        if state not in ("queued", "processing", "done", "failed"):
            print(
                tr("could not read the import's result; see the candidate's Upload evidence page")
            )
            return None
        if state in ("done", "failed"):
            print_import_result(doc)
            return state
        if time.monotonic() + delay > deadline:
            print(
                tr(
                    "the portal is still reading the bundle ({state}); its result will be on "
                    "the candidate's Upload evidence page",
                    state=status_name(state),
                )
            )
            return state
        time.sleep(delay)
        delay = min(delay * 2, WAIT_CAP_S)


def print_import_result(doc: dict[str, Any]) -> None:
    """The import's outcome as the portal reports it: the kinds read, each file that could not
    be read and why (files not collected on the node were reported above). The reasons come
    in the request's language from ``unread_display``; a portal older than that field gives
    only the report's English texts."""
    kinds = [k for k in doc.get("kinds_display") or [] if isinstance(k, str)]
    if doc.get("status") == "failed":
        why = doc.get("error_display") or doc.get("error") or tr("no reason given")
        print(tr("import failed: {why}", why=why))
    else:
        print(tr("import done: read {kinds}", kinds=listed(kinds) if kinds else tr("nothing")))
    unread = doc.get("unread_display")
    if not isinstance(unread, list):
        report = [r for r in doc.get("report") or [] if isinstance(r, dict)]
        unread = [r for r in report if not r.get("ok") and not r.get("missing")]
    for entry in unread:
        if isinstance(entry, dict):
            print(
                tr(
                    "  not read: {file}: {error}",
                    file=entry.get("file", "?"),
                    error=entry.get("error") or tr("no reason given"),
                )
            )


# --------------------------------------------------------------------------- command line


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    with argparse_language():
        return _parse_args(argv)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = Parser(
        prog="collect.py",
        description=tr("Collect GPU node evidence and upload it to the procurement portal."),
    )
    parser.add_argument("--portal", help=tr("portal base URL, e.g. https://portal.example"))
    parser.add_argument("--token", help=tr("upload token (or set GPU_PORTAL_TOKEN)"))
    parser.add_argument("--nonce", help=tr("nonce to embed (default: asked from the portal)"))
    parser.add_argument("--nccl-tests", metavar="DIR", help=tr("nccl-tests directory to run from"))
    parser.add_argument(
        "--fio-target",
        metavar="DIR",
        help=tr("directory on the local NVMe disk: fio sequential and random jobs there"),
    )
    parser.add_argument(
        "--shared-fs",
        metavar="DIR",
        help=tr("directory on the shared file system: the same fio jobs there"),
    )
    parser.add_argument("--fio-size", default="1G", help=tr("fio file size (default 1G)"))
    parser.add_argument(
        "--fio-runtime",
        type=int,
        default=30,
        help=tr("seconds per fio job at most (default 30)"),
    )
    parser.add_argument(
        "--dcgm-level",
        type=int,
        choices=DCGM_LEVELS,
        default=3,
        help=tr("dcgmi diag -r level (default 3, as the POC plan requires)"),
    )
    parser.add_argument(
        "--dcgm-timeout",
        type=float,
        default=DEFAULT_DCGM_TIMEOUT_S,
        help=tr("seconds allowed for dcgmi diag (default %(default)g)"),
    )
    parser.add_argument("--out", help=tr("bundle path (default evidence-HOST-TIME.tar.gz)"))
    parser.add_argument("--no-upload", action="store_true", help=tr("only write the bundle"))
    parser.add_argument("--upload-only", metavar="BUNDLE", help=tr("upload an existing bundle"))
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=tr("seconds allowed per command (default %(default)g)"),
    )
    parser.add_argument("--retries", type=int, default=5, help=tr("upload retries (default 5)"))
    parser.add_argument(
        "--retry-delay",
        type=float,
        default=2.0,
        help=tr("first retry delay in seconds, doubled each time"),
    )
    parser.add_argument("--http-timeout", type=float, default=120.0, help=argparse.SUPPRESS)
    parser.add_argument(
        "--wait",
        type=float,
        default=120.0,
        help=tr(
            "seconds to wait for the portal to read the bundle and print what it found "
            "(default %(default)g; 0: do not wait)"
        ),
    )
    parser.add_argument(
        "--rtt",
        action="append",
        metavar="HOST[:PORT]",
        help=tr(
            "round-trip time to an endpoint: ping for HOST, TCP connect for HOST:PORT "
            "(repeat for several)"
        ),
    )
    parser.add_argument("--rtt-count", type=int, default=10, help=tr("probes per endpoint (10)"))
    parser.add_argument("--tcping", metavar="HOST:PORT", help=argparse.SUPPRESS)
    parser.add_argument("--npu-smi-details", metavar="NPU:CHIP,...", help=argparse.SUPPRESS)
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        help=tr(
            "language of the collector's messages (default: LC_ALL, LC_MESSAGES or LANG; "
            "zh* is Chinese, else English)"
        ),
    )
    group = parser.add_argument_group(tr("multi-node mode"))
    group.add_argument("--hostfile", metavar="FILE", help=tr("nodes to test (MPI hostfile)"))
    group.add_argument(
        "--slurm",
        action="store_true",
        help=tr("test the nodes of the current Slurm allocation"),
    )
    group.add_argument("--gpus-per-node", type=int, help=tr("ranks per node (default: detected)"))
    group.add_argument(
        "--launcher",
        choices=("auto", "mpirun", "srun", "print"),
        default="auto",
        help=tr("auto: mpirun, else srun in Slurm, else print the commands to run"),
    )
    group.add_argument(
        "--collectives",
        default="all_reduce,alltoall",
        help=tr("nccl-tests collectives across the nodes (default all_reduce,alltoall)"),
    )
    group.add_argument("--nccl-max-bytes", default="8G", help=tr("largest message size (8G)"))
    args = parser.parse_args(argv)
    if args.tcping or args.npu_smi_details:
        return args
    if args.lang is not None:
        use_language(args.lang)  # given abbreviated (--la zh): the pre-scan missed it
    args.token = args.token or os.environ.get("GPU_PORTAL_TOKEN")
    uploading = not args.no_upload or args.upload_only
    if args.no_upload and args.upload_only:
        parser.error(tr("--no-upload and --upload-only exclude each other"))
    if uploading and not (args.portal and args.token):
        parser.error(tr("--portal and --token are needed to upload (or pass --no-upload)"))
    if args.portal:
        parsed = urllib.parse.urlsplit(args.portal)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            parser.error(
                tr(
                    "--portal must be an http:// or https:// URL, got {value}",
                    value=repr(args.portal),
                )
            )
        args.portal = args.portal.rstrip("/")
    if args.timeout <= 0 or args.retries < 0 or args.retry_delay < 0 or args.wait < 0:
        parser.error(
            tr("--timeout must be positive, --retries, --retry-delay and --wait not negative")
        )
    for option, directory in (("--fio-target", args.fio_target), ("--shared-fs", args.shared_fs)):
        if directory and not os.path.isdir(directory):
            parser.error(
                tr(
                    "{option} must be an existing directory: the collector writes a "
                    "temporary file there and deletes it (never a device or a file)",
                    option=option,
                )
            )
    if args.fio_runtime < 1 or args.dcgm_timeout <= 0:
        parser.error(tr("--fio-runtime must be at least 1, --dcgm-timeout positive"))
    if args.nccl_tests and find_all_reduce(args.nccl_tests) is None:
        parser.error(
            tr("no executable all_reduce_perf in {dir} or {dir}/build", dir=args.nccl_tests)
        )
    if args.upload_only and not os.path.isfile(args.upload_only):
        parser.error(tr("no such bundle: {path}", path=args.upload_only))
    if args.rtt_count < 1 or args.rtt_count > 1000:
        parser.error(tr("--rtt-count must be 1..1000"))
    args.collectives = [c.strip() for c in args.collectives.split(",") if c.strip()]
    unknown = [c for c in args.collectives if c not in COLLECTIVE_BINARIES]
    if unknown:
        parser.error(
            tr(
                "unknown collective(s) {unknown} (known: {known})",
                unknown=listed(unknown),
                known=listed(list(COLLECTIVE_BINARIES)),
            )
        )
    if args.gpus_per_node is not None and args.gpus_per_node < 1:
        parser.error(tr("--gpus-per-node must be at least 1"))
    args.cluster = None
    if args.hostfile and args.slurm:
        parser.error(tr("--hostfile and --slurm exclude each other"))
    try:
        if args.hostfile:
            args.cluster = Cluster(parse_hostfile(args.hostfile), "hostfile")
        elif args.slurm:
            args.cluster = Cluster(slurm_nodes(), "slurm")
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    if args.cluster is not None:
        args.cluster.launcher = choose_launcher(args.launcher, args.cluster)
    return args


def warn_plain_http(portal: str, log: IO[str]) -> None:
    parsed = urllib.parse.urlsplit(portal)
    if parsed.scheme == "http" and parsed.hostname not in ("localhost", "127.0.0.1", "::1"):
        log.write(
            tr("warning: {portal} is plain HTTP: the token travels unencrypted", portal=portal)
            + "\n"
        )


# Where the nodes of a multi-node run came from, as the progress line names it.
CLUSTER_SOURCES = {"hostfile": N_("the hostfile"), "slurm": N_("the Slurm allocation")}


def main(argv: list[str] | None = None) -> int:
    use_language(language_from(sys.argv[1:] if argv is None else argv, os.environ))
    args = parse_args(argv)
    if args.tcping:
        # Its output is evidence the portal parses (like ping's): never translated.
        return tcping(args.tcping, args.rtt_count)
    if args.npu_smi_details:
        return npu_smi_details(args.npu_smi_details)
    log = sys.stderr
    hostname = socket.gethostname()
    if args.portal:
        warn_plain_http(args.portal, log)
    if args.upload_only:
        node = bundle_hostname(args.upload_only) or hostname
        return upload(args, args.upload_only, node, log)

    nonce = args.nonce
    if nonce is None and args.portal and args.token:
        nonce, why = fetch_nonce(args.portal, args.token, min(args.http_timeout, 30.0))
        if nonce is None:
            log.write(
                tr("warning: no nonce from the portal ({why}); continuing without one", why=why)
                + "\n"
            )
    elif nonce is None:
        log.write(tr("note: no nonce (pass --nonce from the portal to embed one)") + "\n")

    steps = plan_steps(args)
    started_at = utc_now()
    if args.cluster is not None:
        cluster = args.cluster
        log.write(
            tr(
                "multi-node mode: {count} node(s) from {source}, launcher {launcher}",
                count=len(cluster.nodes),
                source=tr(CLUSTER_SOURCES[cluster.source]),
                launcher=cluster.launcher,
            )
            + "\n"
        )
    outcomes = collect(steps, args.timeout, log)
    extra: dict[str, Any] = {}
    if args.cluster is not None:
        extra["nodes"] = node_progress(args, outcomes, log)
        extra["launcher"] = args.cluster.launcher
        if args.cluster.launcher == "print":
            outputs = {o.entry["output"]: o.stdout for o in outcomes if o.entry["output"]}
            print(tr("# no mpirun or srun here: run these on the cluster, then collect again"))
            for line in commands_to_print(args, outputs):
                print(line)
    manifest = build_manifest(outcomes, hostname, nonce, started_at, utc_now(), extra)
    path = args.out or default_bundle_name(hostname)
    try:
        write_bundle(path, manifest, outcomes)
    except OSError as exc:
        print(
            tr("error: cannot write the bundle {path}: {error}", path=path, error=exc),
            file=sys.stderr,
        )
        return EXIT_WRITE_FAILED
    collected = sum(1 for o in outcomes if o.entry["output"])
    missing = [o.entry["name"] for o in outcomes if o.entry.get("missing")]
    log.write(
        tr(
            "collected {collected} of {total} outputs into {path} ({size} bytes)",
            collected=collected,
            total=len(outcomes),
            path=path,
            size=os.path.getsize(path),
        )
        + "\n"
    )
    if missing:
        log.write(tr("not installed on this node: {names}", names=listed(missing)) + "\n")
    if args.no_upload:
        print(path)
        return EXIT_OK
    return upload(args, path, hostname, log)


# --------------------------------------------------------------------------- Chinese texts

# Every message above, by its English text (the key is what tr() and N_() are given; a test
# checks that each has its entry here and that the placeholders and option names agree).
# Full-width punctuation in Chinese text; tool, option and file names stay as they are.
ZH: dict[str, str] = {
    # command line
    "Collect GPU node evidence and upload it to the procurement portal.":
        "采集 GPU 节点的证据并上传到采购门户。",
    "portal base URL, e.g. https://portal.example": "门户的基础网址，例如 https://portal.example",
    "upload token (or set GPU_PORTAL_TOKEN)": "上传令牌（或设置环境变量 GPU_PORTAL_TOKEN）",
    "nonce to embed (default: asked from the portal)": "写入结果包的随机数（默认：向门户索取）",
    "nccl-tests directory to run from": "运行 nccl-tests 的目录",
    "directory on the local NVMe disk: fio sequential and random jobs there":
        "本地 NVMe 盘上的目录：在其中运行 fio 顺序和随机读写作业",
    "directory on the shared file system: the same fio jobs there":
        "共享文件系统上的目录：在其中运行同样的 fio 作业",
    "fio file size (default 1G)": "fio 文件大小（默认 1G）",
    "seconds per fio job at most (default 30)": "每个 fio 作业最多运行的秒数（默认 30）",
    "dcgmi diag -r level (default 3, as the POC plan requires)":
        "dcgmi diag -r 的级别（默认 3，即 POC 计划的要求）",
    "seconds allowed for dcgmi diag (default %(default)g)":
        "dcgmi diag 允许运行的秒数（默认 %(default)g）",
    "bundle path (default evidence-HOST-TIME.tar.gz)":
        "结果包路径（默认 evidence-HOST-TIME.tar.gz）",
    "only write the bundle": "只写结果包，不上传",
    "upload an existing bundle": "上传已有的结果包",
    "seconds allowed per command (default %(default)g)":
        "每条命令允许运行的秒数（默认 %(default)g）",
    "upload retries (default 5)": "上传重试次数（默认 5）",
    "first retry delay in seconds, doubled each time": "首次重试前等待的秒数，之后每次加倍",
    "seconds to wait for the portal to read the bundle and print what it found "
    "(default %(default)g; 0: do not wait)":
        "等待门户读取结果包并打印读取结果的秒数（默认 %(default)g；0 表示不等待）",
    "round-trip time to an endpoint: ping for HOST, TCP connect for HOST:PORT "
    "(repeat for several)":
        "测量到某个端点的往返时间：HOST 用 ping，HOST:PORT 用 TCP 连接（可重复给出多个）",
    "probes per endpoint (10)": "每个端点的探测次数（10）",
    "language of the collector's messages (default: LC_ALL, LC_MESSAGES or LANG; "
    "zh* is Chinese, else English)":
        "采集器消息的语言（默认依据 LC_ALL、LC_MESSAGES 或 LANG：zh* 为中文，其余为英文）",
    "multi-node mode": "多节点模式",
    "nodes to test (MPI hostfile)": "要测试的节点（MPI hostfile）",
    "test the nodes of the current Slurm allocation": "测试当前 Slurm 分配中的节点",
    "ranks per node (default: detected)": "每个节点的进程数（默认：自动检测）",
    "auto: mpirun, else srun in Slurm, else print the commands to run":
        "auto：优先 mpirun，在 Slurm 中其次 srun，都没有时打印要运行的命令",
    "nccl-tests collectives across the nodes (default all_reduce,alltoall)":
        "跨节点运行的 nccl-tests 集合通信（默认 all_reduce,alltoall）",
    "largest message size (8G)": "最大消息大小（8G）",
    # usage errors
    "--no-upload and --upload-only exclude each other": "--no-upload 与 --upload-only 不能同时使用",
    "--portal and --token are needed to upload (or pass --no-upload)":
        "上传需要 --portal 和 --token（或使用 --no-upload）",
    "--portal must be an http:// or https:// URL, got {value}":
        "--portal 必须是 http:// 或 https:// 网址，而不是 {value}",
    "--timeout must be positive, --retries, --retry-delay and --wait not negative":
        "--timeout 必须为正数，--retries、--retry-delay 和 --wait 不能为负数",
    "{option} must be an existing directory: the collector writes a temporary file there "
    "and deletes it (never a device or a file)":
        "{option} 必须是已存在的目录：采集器在其中写入一个临时文件，用后删除（不能是设备或文件）",
    "--fio-runtime must be at least 1, --dcgm-timeout positive":
        "--fio-runtime 至少为 1，--dcgm-timeout 必须为正数",
    "no executable all_reduce_perf in {dir} or {dir}/build":
        "{dir} 和 {dir}/build 中都没有可执行的 all_reduce_perf",
    "no such bundle: {path}": "结果包不存在：{path}",
    "--rtt-count must be 1..1000": "--rtt-count 必须在 1 到 1000 之间",
    "unknown collective(s) {unknown} (known: {known})":
        "未知的集合通信：{unknown}（可用：{known}）",
    "--gpus-per-node must be at least 1": "--gpus-per-node 至少为 1",
    "--hostfile and --slurm exclude each other": "--hostfile 与 --slurm 不能同时使用",
    "{path}: not a host name: {name}": "{path}：不是主机名：{name}",
    "{path}: no host listed": "{path}：没有列出任何主机",
    "--slurm: not inside a Slurm allocation (SLURM_JOB_NODELIST is unset)":
        "--slurm：当前不在 Slurm 分配中（SLURM_JOB_NODELIST 未设置）",
    # collecting
    "warning: {portal} is plain HTTP: the token travels unencrypted":
        "警告：{portal} 是明文 HTTP，令牌将以未加密的方式传输",
    "warning: no nonce from the portal ({why}); continuing without one":
        "警告：未能从门户获取随机数（{why}）；将不带随机数继续",
    "note: no nonce (pass --nonce from the portal to embed one)":
        "提示：没有随机数（用 --nonce 传入门户给出的随机数即可写入结果包）",
    "multi-node mode: {count} node(s) from {source}, launcher {launcher}":
        "多节点模式：{count} 个节点（来源：{source}），启动器 {launcher}",
    "the hostfile": "主机文件",
    "the Slurm allocation": "Slurm 分配",
    "ok {seconds}s": "成功 {seconds} 秒",
    "missing (not installed)": "缺失（未安装）",
    "timed out after {seconds}s": "{seconds} 秒后超时",
    "failed (exit {code}) {seconds}s": "失败（退出码 {code}）{seconds} 秒",
    "failed: could not start: {error}": "失败：无法启动：{error}",
    "skipped: {reason}": "已跳过：{reason}",
    "no mpirun or srun on this node: the command is printed at the end, run it there":
        "此节点上没有 mpirun 或 srun：命令会在最后打印出来，请到有启动器的地方运行",
    "GPUs per node unknown (pass --gpus-per-node)":
        "每个节点的 GPU 数未知（请用 --gpus-per-node 指定）",
    "npu-smi listed no NPU, so there is no chip to query":
        "npu-smi 没有列出 NPU，因此没有可查询的芯片",
    "nvidia-smi listed no GPU, so the GPU count for -g is unknown":
        "nvidia-smi 没有列出 GPU，因此 -g 所需的 GPU 数未知",
    "node {node}: {got}/{total} identity outputs ({names})":
        "节点 {node}：身份信息输出 {got}/{total}（{names}）",
    "none": "无",
    "# no mpirun or srun here: run these on the cluster, then collect again":
        "# 这里没有 mpirun 或 srun：请在集群上运行以下命令，然后重新采集",
    "# with {launcher}:": "# 使用 {launcher}：",
    "error: cannot write the bundle {path}: {error}": "错误：无法写入结果包 {path}：{error}",
    "collected {collected} of {total} outputs into {path} ({size} bytes)":
        "已将 {total} 项输出中的 {collected} 项写入 {path}（{size} 字节）",
    "not installed on this node: {names}": "此节点未安装：{names}",
    # the portal
    "(no message)": "（无消息）",
    "cannot reach the portal ({error})": "无法连接门户（{error}）",
    "HTTP {status}: {message}": "HTTP {status}：{message}",
    "the answer holds no nonce": "应答中没有随机数",
    "error: cannot read the bundle {path}: {error}": "错误：无法读取结果包 {path}：{error}",
    "uploading {name} ({size} bytes) to {url}, attempt {attempt}/{attempts} ... ":
        "正在上传 {name}（{size} 字节）到 {url}，第 {attempt}/{attempts} 次尝试…… ",
    "network error: {error}": "网络错误：{error}",
    "done (HTTP {status})": "完成（HTTP {status}）",
    "refused (HTTP {status})": "被拒绝（HTTP {status}）",
    " (check --portal: a redirect)": "（请检查 --portal：门户要求重定向）",
    "error: the portal refused the bundle (HTTP {status}): {message}{hint}":
        "错误：门户拒绝了结果包（HTTP {status}）：{message}{hint}",
    "the bundle is kept at {path}": "结果包保留在 {path}",
    "server error (HTTP {status}): {message}": "服务器错误（HTTP {status}）：{message}",
    "retrying in {delay}s": "{delay} 秒后重试",
    "error: upload failed after {attempts} attempts; the bundle is kept at {path}":
        "错误：尝试 {attempts} 次后上传仍失败；结果包保留在 {path}",
    "retry later with: {command}": "稍后可用以下命令重试：{command}",
    "this bundle was already imported (upload {id})": "此结果包已经导入过（上传 {id}）",
    "this bundle was received before and its import is not finished (upload {id})": (
        "此结果包之前已收到，其导入尚未完成（上传 {id}）"
    ),
    "bundle accepted: upload {id}, status {status}": "结果包已接收：上传 {id}，状态：{status}",
    "status: {link}": "状态：{link}",
    "queued": "排队中",
    "processing": "处理中",
    "done": "已完成",
    "failed": "失败",
    "unknown": "未知",
    "could not read the import's result; see the candidate's Upload evidence page":
        "无法读取导入结果；请查看该候选方案的“上传证据”页面",
    "the portal is still reading the bundle ({state}); its result will be on the "
    "candidate's Upload evidence page":
        "门户仍在读取结果包（{state}）；结果将显示在该候选方案的“上传证据”页面",
    "no reason given": "未给出原因",
    "import failed: {why}": "导入失败：{why}",
    "import done: read {kinds}": "导入完成，已读取：{kinds}",
    "nothing": "无",
    "  not read: {file}: {error}": "  未能读取：{file}：{error}",
    "interrupted": "已中断",
}  # fmt: skip

# argparse's own texts, by its msgids (Python 3.8 to 3.13; "optional arguments" before 3.10).
ARGPARSE_ZH: dict[str, str] = {
    "usage: ": "用法：",
    "options": "选项",
    "optional arguments": "选项",
    "positional arguments": "位置参数",
    "show this help message and exit": "显示此帮助信息并退出",
    "%(prog)s: error: %(message)s\n": "%(prog)s：错误：%(message)s\n",
    "argument %(argument_name)s: %(message)s": "参数 %(argument_name)s：%(message)s",
    "unrecognized arguments: %s": "无法识别的参数：%s",
    "expected one argument": "需要一个值",
    "invalid choice: %(value)r (choose from %(choices)s)":
        "无效的取值：%(value)r（可选：%(choices)s）",
    "invalid %(type)s value: %(value)r": "无效的 %(type)s 值：%(value)r",
    "ambiguous option: %(option)s could match %(matches)s":
        "选项不明确：%(option)s 可匹配 %(matches)s",
    "the following arguments are required: %s": "缺少以下参数：%s",
    "not allowed with argument %s": "不能与参数 %s 同时使用",
    "ignored explicit argument %r": "忽略了显式给出的值 %r",
}  # fmt: skip


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.stderr.write("\n" + tr("interrupted") + "\n")
        sys.exit(130)
