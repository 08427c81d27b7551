"""NCCL network plugins are read from NCCL's own INFO/WARN lines only (issue #13, 3).

A real GPUDirect-TCPX write-up quotes the plugin's lines next to the author's note
"grep -c 'NET/Socket' -> 0"; the plugin reader used to report "Socket" from that note. The
strings below are quoted from public sources (named on each) and keep their original spacing;
the whole-sample checks run on the stored nccl-tests logs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import nccl
from scoring.evidence.base import EvidenceParseError
from scoring.evidence.nccl.net import _net_plugins
from scoring.verification.bare_metal import verify_bare_metal
from scoring.verification.model import Claims, NodeEvidence

SAMPLES = Path(__file__).parent / "samples"
NCCL_SAMPLES = sorted(p.name for p in (SAMPLES / "nccl_tests").glob("*.txt"))
CLAIMS = Claims(gpu_model="H100 SXM5 80GB", gpus_per_node=8, gpu_memory_gib=80)

# A GCP AI Hypercomputer networking reference (public GitHub markdown, "Pattern 3:
# GPUDirect-TCPX (A3 High ...) - measured, lab-18"): the plugin's lines as NCCL printed them,
# host prefix cut, with the author's annotations and a grep count of Socket lines.
TCPX_CAPTURE = (
    "NCCL INFO Using network GPUDirectTCPX_v7\n"
    "NCCL INFO NET/GPUDirectTCPX : ...            <- 920 lines across 16 ranks\n"
    "grep -c 'NET/Socket' -> 0                     <- the number that matters\n"
)
# Prose from the same reference: transports named in sentences and a table row, no log line.
PROSE = (
    "Look for lines prefixed with `NCCL INFO NET/...` during initialization.\n"
    "1. **Transport line:** must say `NET/IB` (RDMA families) or `NET/FastSocket` (A3 "
    "High/Mega), not `NET/Socket`.\n"
    "| `Using network Socket` on A3 High after TCPX DaemonSet install | TCPX library not "
    "loaded |\n"
    "**Smoking-gun absence:** If NCCL logs show `NET/Socket` after you've installed TCPX or "
    "configured RDMA, GPUDirect is not active.\n"
    "(gVNIC + TCPX/TCPXO is not RDMA - there is no `ibv_devinfo`, no `mlx5` device, and "
    "`NET/IB : No device found` is the *expected* line). Selected Provider is efa\n"
)
# NVIDIA/nccl issue 226 (AWS instances, NCCL 2.4.7): IB absent, sockets used.
IB_ABSENT = (
    "ip-172-31-0-11:45384:45384 [0] NCCL INFO NET/IB : No device found.\n"
    "NCCL version 2.4.7+cuda9.2\n"
    "ip-172-31-10-182:45407:45407 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.10.182<0>\n"
    "ip-172-31-10-182:45407:45407 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\n"
)
# NVIDIA/nccl issue 392 (RoCE, NCCL 2.5.7): the host part cut, the device bracket kept.
HOST_CUT = (
    " [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal "
    "implementation\n"
    " [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB br0:10.137.141.16<0>\n"
    " [0] NCCL INFO Ring 00 : 15[41000] -> 0[1b000] [receive] via NET/IB/0\n"
)
# NVIDIA/nccl-tests issue 82 and NVIDIA/nccl issue 257: WARN lines carry "<file>:<line>".
WARN_AND_SOCKET = (
    "jupyter-vmarkovtsev:15833:15833 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open "
    "libibverbs.so[.1]\n"
    "jupyter-vmarkovtsev:15833:15833 [0] NCCL INFO NET/Socket : Using [0]eth0:10.2.3.32<0>\n"
)


def test_tcpx_capture_with_the_authors_grep_note_names_tcpx_only() -> None:
    assert _net_plugins(TCPX_CAPTURE) == ["GCP GPUDirect-TCPX"]
    # In front of a real nccl-tests log that names no transport, through both parse paths.
    table = (SAMPLES / "nccl_tests" / "h100-2node-4gpu-each-g4.txt").read_text(encoding="utf-8")
    assert nccl.parse(table).metrics["net_plugins"] == []
    log = TCPX_CAPTURE + table
    plugins = nccl.parse(log).metrics["net_plugins"]
    assert plugins == ["GCP GPUDirect-TCPX"]
    assert nccl.parse_lines(nccl.iter_lines(log)).metrics["net_plugins"] == plugins
    verdict = verify_bare_metal(
        CLAIMS, [NodeEvidence("a3", 1, "nccl_tests", {"net_plugins": plugins})]
    )
    assert [s.name for s in verdict.signals] == ["nccl_cloud_plugin"]
    assert "GPUDirect-TCPX" in verdict.signals[0].explanation_en


def test_prose_that_names_transports_names_no_plugin() -> None:
    assert _net_plugins(PROSE) == []
    for line in PROSE.splitlines():
        assert _net_plugins(line) == [], line


def test_ib_reported_absent_is_not_infiniband() -> None:
    assert _net_plugins(IB_ABSENT) == ["Socket"]


def test_lines_without_host_and_warn_lines_still_count() -> None:
    assert _net_plugins(HOST_CUT) == ["InfiniBand"]
    assert _net_plugins(WARN_AND_SOCKET) == ["Socket"]


@pytest.mark.parametrize(
    ("line", "plugins"),
    [
        # The shape NCCL's src/debug.cc prints: an optional "[%F %T] " timestamp (on WARN by
        # default since NCCL 2.26), "<host>:<pid>:<tid> [<dev>] <file>:<line> (<func>) NCCL WARN".
        (
            "[2025-06-02 09:14:03] node-7:4121:4190 [3] net.cc:812 (ncclNetInit) NCCL WARN "
            "NET/OFI Selected Provider is efa",
            ["AWS EFA", "libfabric (OFI)"],
        ),
        # srun --label and mpirun --tag-output prefixes.
        ("0: node-7:4121:4190 [0] NCCL INFO Using network IB", ["InfiniBand"]),
        (
            "[1,3]<stdout>:node-7:4121:4190 [3] NCCL INFO Using network FasTrak",
            ["GCP GPUDirect-TCPXO"],
        ),
        # Not NCCL's shape: a shell command, a sentence, a markdown table cell.
        ("$ grep 'NCCL INFO NET/Socket' nccl.log | wc -l", []),
        ("We expected NET/IB but NCCL INFO lines said otherwise", []),
        ("| NET/Socket | 12.3 GB/s |", []),
    ],
)
def test_nccl_line_shapes(line: str, plugins: list[str]) -> None:
    assert _net_plugins(line) == plugins


@pytest.mark.parametrize("name", NCCL_SAMPLES)
def test_real_logs_keep_their_plugins_when_an_authors_note_is_added(name: str) -> None:
    text = (SAMPLES / "nccl_tests" / name).read_text(encoding="utf-8")
    try:
        whole = nccl.parse(text).metrics["net_plugins"]
    except EvidenceParseError as failed:  # an error case: streaming it fails the same way
        with pytest.raises(EvidenceParseError) as caught:
            nccl.parse_lines(nccl.iter_lines(text))
        assert caught.value.code == failed.code
        return
    streamed = nccl.parse_lines(nccl.iter_lines(text)).metrics["net_plugins"]
    assert whole == streamed
    noted = text + "\n" + PROSE
    assert nccl.parse(noted).metrics["net_plugins"] == whole
    assert nccl.parse_lines(nccl.iter_lines(noted)).metrics["net_plugins"] == whole


def test_real_efa_log_with_mpi_tags_names_efa() -> None:
    text = (SAMPLES / "nccl_tests" / "aws-p4d-a100-2node-efa-rank0-nccl-info-lines.txt").read_text(
        encoding="utf-8"
    )
    assert nccl.parse(text).metrics["net_plugins"] == ["AWS EFA", "libfabric (OFI)"]
