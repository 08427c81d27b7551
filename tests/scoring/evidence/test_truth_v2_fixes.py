"""Issue #13 section 1: what the parsers missed on outputs they had never seen.

Each expectation is read from the sample file (line quoted in the comment), not tuned.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from scoring.evidence import ibstat, nccl, nvidia_smi, perftest
from scoring.evidence.base import strip_annotation

Sample = Callable[[str], str]


# --- nvidia-smi R6xx header ------------------------------------------------------------------


def test_r610_header_kmd_and_cuda_umd_versions(sample: Sample) -> None:
    # "| NVIDIA-SMI 610.57.04   KMD Version: 610.57.04   CUDA UMD Version: 13.3 |"
    text = sample("nvidia_smi/gtx1650-driver610-kmd-umd-header.txt")
    assert nvidia_smi.detect(text) >= 90
    result = nvidia_smi.parse(text)
    assert result.metrics["driver_version"] == "610.57.04"
    assert result.metrics["cuda_version"] == "13.3"
    assert result.metrics["gpu_names"] == ["NVIDIA GeForce GTX 1650"]
    assert result.metrics["memory_total_mib"] == [4096]
    assert result.warnings == ()


def test_r5xx_header_still_reads(sample: Sample) -> None:
    result = nvidia_smi.parse(sample("nvidia_smi/autodl-2x2080ti-driver550-container.txt"))
    assert (result.metrics["driver_version"], result.metrics["cuda_version"]) == (
        "550.90.07",
        "12.4",
    )


# --- perftest headings and units -------------------------------------------------------------


def test_mib_per_second_heading_of_perftest_4_5(sample: Sample) -> None:
    # " #bytes  #iterations  BW peak[MiB/sec]  BW average[MiB/sec]  MsgRate[Mpps]"
    # " 65536      1000             46567.34            46557.03\t\t     0.744912"
    result = perftest.parse(sample("perftest/csegpu-ndr-send-bw-mib-then-lat-then-read-gbits.txt"))
    metrics = result.metrics
    assert metrics["test"] == "ib_send_bw"
    assert metrics["report_unit"] == "MiB/sec"
    assert metrics["value_unit"] == "MB/sec"
    assert metrics["bw_avg_gbit_s"] == round(46557.03 * 1048576 * 8 / 1e9, 6)
    assert metrics["bw_peak_gbit_s"] == round(46567.34 * 1048576 * 8 / 1e9, 6)


def test_report_gbits_on_a_later_command_does_not_rescale_the_first_table(
    sample: Sample,
) -> None:
    # The file's 3rd command has --report_gbits; the 1st table (MiB/sec) must stay MiB/sec.
    text = sample("perftest/csegpu-ndr-send-bw-mib-then-lat-then-read-gbits.txt")
    assert perftest.parse(text).metrics["bw_avg_gbit_s"] > 300
    read_bw = text[text.index("vyl@csegpu1:~$ ib_read_bw") :]
    metrics = perftest.parse(read_bw).metrics
    assert (metrics["test"], metrics["report_unit"], metrics["bw_avg_gbit_s"]) == (
        "ib_read_bw",
        "Gb/sec",
        328.61,
    )


def test_mb_heading_with_report_gbits_command_is_read_as_gbits(sample: Sample) -> None:
    # Same real run, heading written as some builds print it with --report_gbits.
    text = sample("perftest/csegpu-ndr-send-bw-mib-then-lat-then-read-gbits.txt")
    read_bw = text[text.index("vyl@csegpu1:~$ ib_read_bw") :]
    relabelled = read_bw.replace(
        "BW peak[Gb/sec]    BW average[Gb/sec]", "BW peak[MB/sec]    BW average[MB/sec]"
    )
    result = perftest.parse(relabelled)
    assert result.metrics["bw_avg_gbit_s"] == 328.61
    assert any("--report_gbits" in w for w in result.warnings)
    # Without the command line nothing says Gb/sec: the heading wins.
    no_command = "\n".join(relabelled.splitlines()[1:])
    assert perftest.parse(no_command).metrics["bw_avg_gbit_s"] == round(
        328.61 * 1048576 * 8 / 1e9, 6
    )


@pytest.mark.parametrize(
    "heading",
    [
        "#bytes     #iterations    BW_peak[Gb/sec]    BW_average[Gb/sec]   MsgRate[Mpps]",
        "#  #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
        "#bytes     #iterations    BW peak[Gbps]    BW average[Gbps]   MsgRate[Mpps]",
    ],
)
def test_other_bandwidth_headings(sample: Sample, heading: str) -> None:
    text = sample("perftest/csegpu-ndr-send-bw-mib-then-lat-then-read-gbits.txt")
    read_bw = text[text.index("vyl@csegpu1:~$ ib_read_bw") :]
    changed = re.sub(r"(?m)^ #bytes .*$", heading, read_bw)
    assert perftest.parse(changed).metrics["bw_avg_gbit_s"] == 328.61


def test_unknown_unit_is_a_clear_error(sample: Sample) -> None:
    text = sample("perftest/csegpu-ndr-send-bw-mib-then-lat-then-read-gbits.txt")
    read_bw = text[text.index("vyl@csegpu1:~$ ib_read_bw") :]
    changed = read_bw.replace("[Gb/sec]", "[KB/sec]")
    with pytest.raises(perftest.EvidenceParseError, match="unknown bandwidth unit"):
        perftest.parse(changed)


def test_table_pasted_without_title_block() -> None:
    # From a public RoCE write-up: only the heading and row were pasted, both commented out.
    text = (
        "#  #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n"
        "#  65536      279928           0.00               5830.79               0.093293\n"
    )
    metrics = perftest.parse(text).metrics
    assert metrics["test"] is None
    assert metrics["bw_avg_gbit_s"] == round(5830.79 * 1048576 * 8 / 1e9, 6)
    assert metrics["bw_peak_gbit_s"] is None


def test_latency_percentiles(sample: Sample) -> None:
    # " 2  1000  1.24  5.19  1.27  1.27  0.00  1.37  5.19" (tabs between the last cells)
    metrics = perftest.parse(sample("perftest/csegpu-ndr-ib_send_lat-tabs-cpufreq.txt")).metrics
    assert metrics["test"] == "ib_send_lat"
    assert (metrics["lat_min_us"], metrics["lat_max_us"]) == (1.24, 5.19)
    assert (metrics["lat_typical_us"], metrics["lat_avg_us"]) == (1.27, 1.27)
    assert (metrics["lat_p99_us"], metrics["lat_p999_us"]) == (1.37, 5.19)
    assert metrics["cpu_freq_warnings"] == 2


# --- annotations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("State: Active   # otherwise Down", "State: Active"),
        ("Rate: 100 <-- HDR100", "Rate: 100"),
        ("Rate: 400 -> was 200 before the swap", "Rate: 400"),
        ("Physical state: LinkUp  \u2190 good", "Physical state: LinkUp"),
        (
            "  65536  1000  328.64  328.61  0.626777   // best run",
            "  65536  1000  328.64  328.61  0.626777",
        ),
        ("#bytes  #iterations  BW peak[Gb/sec]", "#bytes  #iterations  BW peak[Gb/sec]"),
        (
            "#  Rank  0 Group  0 Pid 1 on host device  0 [0x07] NVIDIA A100",
            "#  Rank  0 Group  0 Pid 1 on host device  0 [0x07] NVIDIA A100",
        ),
        ("busbw #wrong     time", "busbw #wrong     time"),
    ],
)
def test_strip_annotation(line: str, expected: str) -> None:
    assert strip_annotation(line) == expected


def test_annotated_ibstat_values_do_not_leak(sample: Sample) -> None:
    text = sample("ibstat/hpc-login-cx6-mt4123-hdr100.txt")
    annotated = (
        text.replace("State: Active", "State: Active   # otherwise Down")
        .replace("Rate: 100", "Rate: 100 <-- HDR100")
        .replace("Link layer: InfiniBand", "Link layer: InfiniBand   -> IB, not RoCE")
    )
    assert ibstat.parse(annotated).metrics == ibstat.parse(text).metrics


def test_annotated_perftest_row_is_kept(sample: Sample) -> None:
    text = sample("perftest/csegpu-ndr-send-bw-mib-then-lat-then-read-gbits.txt")
    annotated = text.replace("46557.03\t\t     0.744912", "46557.03\t\t     0.744912   <-- NDR")
    assert perftest.parse(annotated).metrics == perftest.parse(text).metrics


def test_annotated_nccl_rows_are_kept(sample: Sample) -> None:
    text = sample("nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt")
    annotated = "\n".join(
        line + "   # peak" if line.strip().startswith("10737418240") else line
        for line in text.splitlines()
    )
    assert nccl.parse(annotated).metrics == nccl.parse(text).metrics


# --- nccl-tests without the collective line ---------------------------------------------------

_NAMES = re.compile(
    r"(all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|sendrecv|gather|scatter)"
    r"_perf|Collective test starting: \S+|Collective test concluded: \S+"
)


def _unnamed(text: str) -> str:
    return _NAMES.sub("", text)


@pytest.mark.parametrize(
    ("path", "collective", "candidates", "ranks"),
    [
        # 8 GPUs, busbw 232.20 / algbw 132.69 = 1.75 = 2*7/8
        ("nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt", "all_reduce", ["all_reduce"], 8),
        # 16 ranks: 1.875 = 2*15/16
        ("nccl_tests/oci-h100-2node-roce-nccl2215.txt", "all_reduce", ["all_reduce"], 16),
        ("nccl_tests/h100-2node-4gpu-each-g4.txt", "all_reduce", ["all_reduce"], 8),
        # 256 ranks: the ratio 1.992 says all_reduce but cannot pin n down
        (
            "nccl_tests/issue78-v100-256gpu-allreduce-nccl284-NA-truncated.txt",
            "all_reduce",
            ["all_reduce"],
            None,
        ),
        # alltoall, redop none, root -1, size/count/4 = 4 ranks, ratio 0.75: all_gather fits too
        (
            "nccl_tests/nccl-issue2169-h100-alltoall-v2.17.8-truncated.txt",
            None,
            ["all_gather", "alltoall"],
            4,
        ),
        # old all_gather (busbw == algbw in that version), size/count/4 = 8
        (
            "nccl_tests/issue37-dgx1-v100-allgather-oldformat-FAILED.txt",
            None,
            ["all_gather", "alltoall"],
            8,
        ),
        # 2 ranks: all_reduce's 2(n-1)/n is 1, like sendrecv's
        ("nccl_tests/autodl-2x2080ti-pcie-container.txt", None, ["all_reduce", "sendrecv"], 2),
    ],
)
def test_collective_inferred_when_not_named(
    sample: Sample, path: str, collective: str | None, candidates: list[str], ranks: int | None
) -> None:
    text = _unnamed(sample(path))
    result = nccl.parse(text)
    assert result.metrics["collective"] == collective
    assert result.metrics["collective_inferred"] is (collective is not None)
    assert result.metrics["collective_candidates"] == candidates
    assert result.metrics["ranks_inferred"] == ranks
    assert any("does not name the collective" in w for w in result.warnings)


def test_named_collective_is_not_second_guessed(sample: Sample) -> None:
    metrics = nccl.parse(sample("nccl_tests/a100-8gpu-nvlink-sendrecv-g8-NA-inplace.txt")).metrics
    assert metrics["collective"] == "sendrecv"
    assert metrics["collective_inferred"] is False
    assert metrics["collective_candidates"] == []


def _table(redop: str, root: int, count_div: int, ratio: float, ranks: int) -> str:
    head = "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
    rows = []
    for size in (1048576, 16777216, 268435456):
        algbw = 100.0
        rows.append(
            f"  {size}  {size // 4 // count_div}  float  {redop}  {root}  "
            f"100.0  {algbw:.2f}  {algbw * ratio:.2f}  0\n"
        )
    devices = "".join(
        f"#  Rank {r} Group 0 Pid 1 on node device {r} [0x07] NVIDIA H100\n" for r in range(ranks)
    )
    return devices + head + "".join(rows)


@pytest.mark.parametrize(
    ("redop", "root", "count_div", "ratio", "expected"),
    [
        ("sum", -1, 8, 7 / 8, ["reduce_scatter"]),
        ("none", 0, 1, 1.0, ["broadcast"]),
        ("sum", 0, 1, 1.0, ["reduce"]),
        ("sum", -1, 1, 7 / 4, ["all_reduce"]),
        ("none", -1, 8, 7 / 8, ["all_gather", "alltoall"]),
        ("sum", -1, 1, 1.0, ["sendrecv"]),  # 8 ranks: an all_reduce would show 1.75
    ],
)
def test_redop_and_root_narrow_the_inference(
    redop: str, root: int, count_div: int, ratio: float, expected: list[str]
) -> None:
    metrics = nccl.parse(_table(redop, root, count_div, ratio, 8)).metrics
    assert metrics["collective_candidates"] == expected
