"""Adversarial long lines: every detector and parser stays linear in the length of a line.

A 10 KB upload once held a worker for minutes: cpu_info's lscpu regex, a lazy label before
"\\s*:", tried a 64 KB line of blanks again from each of its positions (19.7 s for one loose file,
97.5 s for a tar.gz of five). The registry runs every detector on the head of every file and
bundle member, so each must stay linear whatever the text, and so must the parser it picks.

Each case is timed at 64 K characters; when that takes SMALL_S or more it is timed again (a busy
machine) and at 16 K, and must be at most RATIO times the 16 K time (quadratic is 16 times) and
under a ceiling. The cases:

- one long line, for each detector: a prefix real formats start lines with, then N blanks (or
  tabs, blank-tab pairs, "a " pairs), then a last character with or without ":" / "=" after it;
  the parser runs when its detector accepts the line;
- the same inside a real sample of each kind, where a parser reads it: the line keeps the head
  of one of the sample's own lines ("Model name:", " Dual-port", "Device 0:"...);
- the shapes the review found beyond blanks: blank lines, digit and dot runs, one word
  repeated over a line ("nvidia-smi", "#bytes", "dcgmi diag", "seq=") and so on;
- a bundle of such members, through the bundle path.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import tarfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from scoring.evidence import PARSERS, registry
from scoring.evidence.base import UNKNOWN, EvidenceParseError
from scoring.evidence.bundle import parse_evidence

SAMPLES = Path(__file__).parent / "samples"

SMALL, BIG = 16_000, 64_000
SMALL_S = 0.2  # below this at 64 K: nothing to compare (timer noise)
RATIO = 6  # 4 times the text: linear is about 4, quadratic 16
DETECT_CEILING_S = 0.5  # one detector (or all of them) on a 64 KB text
PARSE_CEILING_S = 1.0
DEADLINE_S = 10.0  # a call still running then is reported, not waited for

Build = Callable[[int], str]


class _Overdue(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (the re module checks for signals as it runs), so
    that a quadratic regression fails in seconds instead of hanging the suite."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def overdue(*_: object) -> None:
        raise _Overdue

    previous = signal.signal(signal.SIGALRM, overdue)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _seconds(run: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    try:
        with _deadline(DEADLINE_S):
            run(text)
    except _Overdue:
        return float("inf")
    except EvidenceParseError:
        pass  # a refusal is an answer: what it took is what counts
    return time.perf_counter() - start


def _assert_linear(label: str, run: Callable[[str], object], build: Build, ceiling: float) -> None:
    big = _seconds(run, build(BIG))
    if big < SMALL_S:
        return
    big = min(big, _seconds(run, build(BIG)))
    small = _seconds(run, build(SMALL))
    assert big < SMALL_S or big <= RATIO * small, (
        f"{label}: {small:.3f} s for 16 K characters, {big:.3f} s for 64 K: not linear"
    )
    assert big < ceiling, f"{label}: {big:.3f} s for 64 K characters (ceiling {ceiling} s)"


def _repeat(prefix: str, fill: str, end: str) -> Build:
    return lambda n: prefix + fill * max(1, (n - len(prefix)) // len(fill)) + end


# ------------------------------------------------------------------ one long line, every detector

PREFIXES = ("#", "a", "GPU 0", "|", "key", "  ", "12345", "Port 1", "[", "ib_write_bw", "\t")
FILLS = (" ", "\t", " \t", "a ")
ENDS = ("x", "x:", "x=")


@pytest.mark.parametrize("kind", sorted(PARSERS))
def test_a_detector_stays_linear_on_one_long_line(kind: str) -> None:
    module = PARSERS[kind]
    for prefix in PREFIXES:
        for fill in FILLS:
            for end in ENDS:
                build = _repeat(prefix, fill, end)
                label = f"{kind}.detect({prefix!r} + {fill!r} * N + {end!r})"
                _assert_linear(label, module.detect, build, DETECT_CEILING_S)
                if module.detect(build(BIG)) > 0:
                    _assert_linear(
                        label.replace("detect", "parse"), module.parse, build, PARSE_CEILING_S
                    )


# ------------------------------------------------------------------ inside a real sample

# kind -> (sample, heads): the long run goes into the first line of the sample that starts with
# one of the heads (after its indentation), right after the head, and the rest of that line
# is kept or dropped; a head the sample does not have is put in a line of its own after the
# first line.
EMBEDDED: dict[str, tuple[str, tuple[str, ...]]] = {
    "cpu_info": (
        "cpu_info/kvm-vagrant-vm-lscpu-hypervisor-flag-wrapped-mid-word.txt",
        ("Model name:", "Flags:", "CPU(s):"),
    ),
    "dcgm_diag": (
        "dcgm_diag/autopilot-issue68-kubectl-exec-dcgm3.3.5-r3-4x20b5-cut-in-deployment.txt",
        ("| DCGM Version", "dcgmi diag -r", "GPU 0's MIG configuration is"),
    ),
    "dmi": ("dmi/dgx1-v100-physical-dmidecode-t1.txt", ("Product Name:", "Handle", "#")),
    "fio": (
        "fio/fio-issue1620-fio335-dev-readwrite-cut-after-read-block.txt",
        ("$ ./fio", "test: (g=0): rw=rw,", "clat (usec):", "read:"),
    ),
    "ibstat": (
        "ibstat/ibv_devinfo-tf-gdr-mlx4-cx3-2port-roce.txt",
        ("transport:", "state:", "hca_id:"),
    ),
    "kernel_log": (
        "kernel_log/nvidia-docker-issue849-dmesg-T-xid48-dbe-xid63-page-retired.txt",
        ("[", "NVRM: Xid", "nvidia-nvswitch0:"),
    ),
    "lspci": ("lspci/devmachine-kvm-lspci.txt", ("00:02.0", "00:03.0 Ethernet controller:")),
    "nccl_tests": (
        "nccl_tests/eks-p5-2node-16rank-nvls-single-size-mpi-tags-excerpt.txt",
        ("[1,0]<stdout>:#", "[1,10]<stdout>:", "  ", "#  Rank  0 Group  0 Pid"),
    ),
    "nvbandwidth": (
        "nvbandwidth/nvbw-issue13-v0.2-2x2080ti-write-ce-waiving.txt",
        ("Device 0:", "Process 0 (node-1): device 0:", "SUM"),
    ),
    "npu_smi": (
        "npu_smi/mindcluster-faultdiag-npu-info-before-23.0.5-table-health-ecc-board-usages-"
        "elided.txt",
        ("| 0     xxx", "Health Status", "HBM Double Bit Error Count", "/usr/local/bin/npu-smi"),
    ),
    "nvidia_smi": ("nvidia_smi/gtx1650-driver610-kmd-umd-header.txt", ("|   0", "| NVIDIA-SMI")),
    "nvidia_smi_list": (
        "nvidia_smi_list/go-dcgm-issue30-a100-pcie-one-2g20gb-prompts.txt",
        ("GPU 0:", "MIG 2g.20gb"),
    ),
    "nvidia_smi_mig": ("nvidia_smi_mig/alcf-thetagpu-a100-lgi-2x3g20gb.txt", ("|", "+")),
    "nvidia_smi_nvlink": (
        "nvidia_smi_nvlink/microway-dgx1-v100-status-capabilities-snip.txt",
        ("GPU 0:", "Link 0:", "Link 0, P2P is supported:"),
    ),
    "nvidia_smi_query": (
        "nvidia_smi_query/h100nvl-vm-q-vgpu-capability-mig-enabled-cut.txt",
        ("Product Name", "GPU 00000000:", "Driver Version"),
    ),
    "nvidia_smi_topo": (
        "nvidia_smi_topo/rtx-a6000-3gpu-nv4-bridge-pair-one-numa.txt",
        ("GPU0", "NIC0:"),
    ),
    "nvidia_smi_xml": (
        "nvidia_smi_xml/go-exporter-2x-l4-driver555-cut-after-remapped-rows.xml.txt",
        ("<product_name>", "<driver_version>"),
    ),
    "perftest": (
        "perftest/perftest-issue234-ib_write_bw-D10-server-cut-in-result-row.txt",
        ("Dual-port", "#bytes", "ib_write_bw"),
    ),
    "rtt": (
        "rtt/cisco-don-issue14-linux-ping-ctrl-c.txt",
        ("--- 172.25.30.2", "64 bytes from", "2 packets transmitted,"),
    ),
    "virt": ("virt/devmachine-echoed-command-kvm.txt", ("$ systemd-detect-virt", "kvm")),
}
# (word, run, end, keep the rest of the line): the run right after the head, with no colon or
# no value after it, or after a word (inside a value, the line's own cells after it).
EMBEDDED_SHAPES = (
    ("", " ", "x", False),
    ("", " ", ":", False),
    ("", " \t", "x=", False),
    ("", "a ", "x:", False),
    (" a", " ", ")", True),
)


def _embedded(text: str, head: str, word: str, fill: str, end: str, keep: bool) -> Build:
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.lstrip().startswith(head)), None)
    if at is None:
        before, after, start, rest = lines[:1], lines[1:], head, ""
    else:
        line = lines[at]
        cut = len(line) - len(line.lstrip()) + len(head)
        before, after, start, rest = lines[:at], lines[at + 1 :], line[:cut], line[cut:]

    def build(n: int) -> str:
        long_line = start + word + fill * max(1, n // len(fill)) + end + (rest if keep else "")
        return "\n".join([*before, long_line, *after])

    return build


@pytest.mark.parametrize("kind", sorted(EMBEDDED))
def test_a_parser_stays_linear_on_a_long_line_in_its_own_output(kind: str) -> None:
    sample, heads = EMBEDDED[kind]
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    module = PARSERS[kind]
    assert module.detect(text) > 0, f"{sample} is not {kind}"
    for head in heads:
        for word, fill, end, keep in EMBEDDED_SHAPES:
            build = _embedded(text, head, word, fill, end, keep)
            label = (
                f"{kind}: {head + word!r} + {fill!r} * N + {end!r}{' + rest' * keep} in {sample}"
            )
            _assert_linear(f"detect {label}", module.detect, build, DETECT_CEILING_S)
            _assert_linear(f"parse {label}", module.parse, build, PARSE_CEILING_S)


def test_every_kind_is_tried_inside_its_own_output() -> None:
    assert set(EMBEDDED) == set(PARSERS)


# ------------------------------------------------------------------ the other shapes found


def _lines(line: str) -> Build:
    return lambda n: line * max(1, n // len(line))


def _in_sample(sample: str, line: Build) -> Build:
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    return lambda n: text + "\n" + line(n) + "\n" + text


# name -> text; each through every detector, then the parser of the kind detected.
SHAPES: dict[str, Build] = {
    "blank lines": _lines("\n"),
    "blank lines with blanks": _lines(" \n"),
    "blank lines after (UUID:": lambda n: "GPU 0: A (UUID: GPU-1)" + "\n" * n + "x",
    "nvidia-smi lines": _lines("nvidia-smi\n"),
    "nvidia-smi words": _lines("nvidia-smi "),
    "#bytes words": _lines(" #bytes"),
    "dcgmi diag words": _lines("dcgmi diag "),
    "dcgmi diag -r then blanks": _repeat("dcgmi diag -r", " ", "!"),
    "GPU refusal then blanks": _repeat(
        "GPU 0's MIG configuration is incompatible with the diagnostic a", " ", "b"
    ),
    "device entries then a line": lambda n: "Rank 0 on h device 0 [0] " * (n // 25) + "\nx",
    "device entries without ]": _lines("Rank 0 on h device 0 ["),
    "a ping and digits": lambda n: "PING h\n" + "1" * n + " x",
    "a ping and seq= words": lambda n: "PING h\n" + "seq=" * (n // 4),
    "a ping and zh counts": lambda n: "PING h\n已发送 1 个包，已接收 1 个包" + "，+1x" * (n // 4),
    "a ping and bytes from words": lambda n: "PING h\n" + "bytes from " * (n // 11),
    "SXid after blanks": _repeat("", " ", "SXid (PCI:0"),
    "latency words": _in_sample(
        "nvbandwidth/nvbw-issue13-v0.2-2x2080ti-write-ce-waiving.txt", _lines("latency ")
    ),
    "dots in nvlink": _in_sample(
        "nvidia_smi_nvlink/microway-dgx1-v100-status-capabilities-snip.txt",
        _repeat("", ".", "x"),
    ),
    "read block sizes in fio": _in_sample(
        "fio/fio-issue1620-fio335-dev-readwrite-cut-after-read-block.txt",
        _repeat("t: (g=0): rw=rw, ", "bs=(R)1B-", "x"),
    ),
    "brackets in lspci": _in_sample(
        "lspci/devmachine-kvm-lspci.txt", _repeat("00:09.0 VGA compatible controller: N", "[", "")
    ),
    "NCCL WARN words in nccl": _in_sample(
        "nccl_tests/eks-p5-2node-16rank-nvls-single-size-mpi-tags-excerpt.txt",
        _lines("NCCL WARN "),
    ),
    "NET/IB words in nccl": _in_sample(
        "nccl_tests/eks-p5-2node-16rank-nvls-single-size-mpi-tags-excerpt.txt",
        _lines("x NET/IB "),
    ),
    "device entries in nccl": _in_sample(
        "nccl_tests/eks-p5-2node-16rank-nvls-single-size-mpi-tags-excerpt.txt",
        _lines("#  Rank  0 Group  0 Pid 1 on h device  0 ["),
    ),
    "latency columns in perftest": lambda n: (
        " RDMA_Write Latency Test\n #bytes #iterations    t_min[usec]  t_avg[usec] "
        + "a" * n
        + "\n 2 1000 1.0 1.0"
    ),
    "unquoted json member in perftest": lambda n: (
        "{\n test_info: {\n  test: RDMA_Write_BW_Test,\n  device: a" + " " * n + "b,\n }\n"
    ),
    "fio- words in log lines": lambda n: ("fio-3.1" * 140 + "\n") * max(1, n // 980),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_detection_and_parse_stay_linear_on_other_shapes(name: str) -> None:
    build = SHAPES[name]
    _assert_linear(f"detect_kind: {name}", registry.detect_kind, build, DETECT_CEILING_S)
    kind = registry.detect_kind(build(BIG))
    if kind != UNKNOWN:
        _assert_linear(f"{kind}.parse: {name}", PARSERS[kind].parse, build, PARSE_CEILING_S)


# ------------------------------------------------------------------ the bundle path


def test_a_bundle_of_long_lines_is_read_in_linear_time() -> None:
    # The review's upload: a tar.gz of a few long lines, each member detected by every detector
    # and parsed by the bundle path (members the manifest does not list are parsed all the same).
    manifest = {
        "collector_version": "1.0.0",
        "hostname": "node-1",
        "started_at": "2026-11-30T08:00:00Z",
        "finished_at": "2026-11-30T08:02:00Z",
        "commands": [],
    }
    members = {
        "manifest.json": json.dumps(manifest),
        "lscpu.txt": "#" + " " * BIG + "x",
        "query.txt": "nvidia-smi\n" * (BIG // 11),
        "blank.txt": "\n" * BIG,
        "nccl.txt": " " * BIG + ":",
        "ping.txt": "PING h\n" + "1" * BIG,
        "dots.txt": "GPU 0: A\n" + "." * BIG,
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    upload = buffer.getvalue()
    assert len(upload) < 10_000
    start = time.perf_counter()
    with _deadline(DEADLINE_S):
        results = parse_evidence("upload.tar.gz", upload)
    elapsed = time.perf_counter() - start
    assert {result.file for result in results} == set(members) - {"manifest.json"}
    assert elapsed < len(members) * PARSE_CEILING_S, f"{elapsed:.2f} s for the bundle"
