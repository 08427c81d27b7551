"""Tests of the perftest (ib_*_bw / ib_*_lat) parser on real reports."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from scoring.evidence import perftest
from scoring.evidence.base import EvidenceParseError


def test_mbyte_per_second_is_two_to_the_twenty_bytes() -> None:
    # perftest divides by 0x100000 for MB/sec: 1 MB/sec = 1048576 * 8 bits/s.
    assert round(perftest.MBYTE_PER_S_TO_GBIT_S, 12) == 0.008388608


def test_bidirectional_duration_run_without_peak(sample: Callable[[str], str]) -> None:
    result = perftest.parse(sample("perftest/roce100g-ib_write_bw-bidir-cpufreq-warning.txt"))
    metrics = result.metrics
    assert metrics["test_type"] == "bandwidth"
    assert metrics["test"] == "ib_write_bw"
    assert metrics["title"] == "RDMA_Write Bidirectional BW Test"
    assert metrics["bidirectional"] is True
    assert metrics["report_unit"] == "Gb/sec"
    assert metrics["bw_avg_gbit_s"] == 98.02
    assert metrics["bw_peak_gbit_s"] is None
    assert metrics["peak_measured"] is False
    assert (metrics["device"], metrics["link_type"], metrics["gid_index"]) == (
        "mlx5_0",
        "Ethernet",
        4,
    )
    assert (metrics["mtu_bytes"], metrics["qps"], metrics["connection_type"]) == (4096, 1, "RC")
    assert metrics["cpu_freq_warnings"] == 1
    assert metrics["sweep"] == [
        {
            "size_bytes": 65536,
            "iterations": 560845,
            "bw_peak_gbit_s": None,
            "bw_avg_gbit_s": 98.02,
            "msg_rate_mpps": 0.18695,
        }
    ]
    assert result.warnings == (
        "1 'Conflicting CPU frequency' warning(s): CPU not at max frequency, results may be low",
        "perftest did not measure the BW peak (duration mode): peak is null",
    )
    (fact,) = result.facts
    assert (fact.metric, fact.value, fact.unit, fact.line) == (
        "perftest_bw_avg_gbit_s",
        98.02,
        "Gbit/s",
        26,
    )
    assert fact.details == {"size_bytes": 65536, "test": "ib_write_bw", "bidirectional": True}


def test_size_sweep_in_mbyte_per_second(sample: Callable[[str], str]) -> None:
    result = perftest.parse(sample("perftest/stmatengss-mlx4-ib_write_bw-a-sweep-mbps.txt"))
    metrics = result.metrics
    assert metrics["report_unit"] == "MB/sec"
    assert metrics["device"] == "mlx4_0"
    assert metrics["link_type"] == "IB"
    assert len(metrics["sweep"]) == 23
    assert [r["size_bytes"] for r in metrics["sweep"]][:3] == [2, 4, 8]
    assert metrics["max_size_bytes"] == 8388608
    # Best average 3666.12 MB/sec (at 1 MiB), best peak 3666.33, at 8 MiB 3665.25 MB/sec.
    assert metrics["bw_avg_gbit_s"] == pytest.approx(30.753644, abs=1e-6)
    assert metrics["bw_peak_gbit_s"] == pytest.approx(30.755405, abs=1e-6)
    assert metrics["bw_avg_gbit_s_at_max_size"] == pytest.approx(30.746345, abs=1e-6)
    assert metrics["msg_rate_mpps"] == 0.003666
    assert len(result.facts) == 23
    assert result.facts[0].line == 20
    assert result.warnings == ()


def test_sweep_with_a_cpu_frequency_warning_before_every_row(
    sample: Callable[[str], str],
) -> None:
    result = perftest.parse(
        sample("perftest/hdr200-ib_write_bw-a-mbps-cpufreq-warning-every-row.txt")
    )
    metrics = result.metrics
    assert len(metrics["sweep"]) == 23
    assert metrics["cpu_freq_warnings"] == 23
    # 10787.86 MB/sec avg and 10788.20 peak at 8 MiB.
    assert metrics["bw_avg_gbit_s"] == pytest.approx(90.495129, abs=1e-6)
    assert metrics["bw_peak_gbit_s"] == pytest.approx(90.497981, abs=1e-6)
    assert metrics["sweep"][0] == {
        "size_bytes": 2,
        "iterations": 5000,
        "bw_peak_gbit_s": pytest.approx(4.26 * 0.008388608, abs=1e-6),
        "bw_avg_gbit_s": pytest.approx(3.88 * 0.008388608, abs=1e-6),
        "msg_rate_mpps": 2.036842,
    }
    assert result.warnings[0].startswith("23 'Conflicting CPU frequency' warning(s)")


def test_report_gbits_sweep_over_roce(sample: Callable[[str], str]) -> None:
    metrics = perftest.parse(
        sample("perftest/roce200g-ib_write_bw-a-report-gbits-sweep.txt")
    ).metrics
    assert metrics["report_unit"] == "Gb/sec"
    assert metrics["link_type"] == "Ethernet"
    assert metrics["gid_index"] == 3
    assert metrics["bw_avg_gbit_s"] == 196.07
    assert metrics["bw_peak_gbit_s"] == 196.07
    assert metrics["sweep"][0]["bw_peak_gbit_s"] == 0.090062
    assert metrics["sweep"][0]["bw_avg_gbit_s"] == 0.088598
    assert metrics["sweep"][12] == {
        "size_bytes": 8192,
        "iterations": 5000,
        "bw_peak_gbit_s": 194.71,
        "bw_avg_gbit_s": 194.57,
        "msg_rate_mpps": 2.968878,
    }


def test_latency_test_is_parsed_as_latency(sample: Callable[[str], str]) -> None:
    result = perftest.parse(sample("perftest/stmatengss-mlx4-ib_write_lat-a-latency.txt"))
    metrics = result.metrics
    assert metrics["test_type"] == "latency"
    assert metrics["test"] == "ib_write_lat"
    assert metrics["bw_avg_gbit_s"] is None
    assert metrics["bw_peak_gbit_s"] is None
    assert (metrics["lat_typical_us"], metrics["lat_avg_us"]) == (0.98, 1.03)
    assert metrics["sweep"][0] == {
        "size_bytes": 2,
        "iterations": 20000,
        "t_min_us": 0.88,
        "t_max_us": 6.84,
        "t_typical_us": 0.98,
        "t_avg_us": 1.03,
        "t_stdev_us": 0.20,
        "p99_us": 1.21,
        "p999_us": 5.42,
    }
    assert metrics["sweep"][-1]["t_typical_us"] == 2302.01
    assert {f.metric for f in result.facts} == {"perftest_lat_typical_us"}
    assert "latency test: it has no bandwidth figures" in result.warnings


def test_zero_peak_without_the_duration_warning_is_null() -> None:
    text = (
        "                    Send BW Test\n Link type       : Ethernet\n"
        "-" * 87 + "\n"
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
        " 65536      1000             0.00               552.05             0.008833\n"
        + "-" * 87
        + "\n"
    )
    result = perftest.parse(text)
    assert result.metrics["test"] == "ib_send_bw"
    assert result.metrics["bw_peak_gbit_s"] is None
    assert result.metrics["bw_avg_gbit_s"] == pytest.approx(552.05 * 0.008388608, abs=1e-6)
    assert "BW peak printed as 0.00 on every row: peak is null" in result.warnings


def test_connection_failure_is_quoted_in_the_error() -> None:
    text = (
        "$ ib_write_bw -d mlx5_0 10.0.0.2\n"
        "Couldn't connect to 10.0.0.2:18515\n"
        "Unable to open file descriptor for socket connection Unable to init the socket "
        "connection\n"
    )
    with pytest.raises(EvidenceParseError) as err:
        perftest.parse(text)
    assert err.value.line == 2
    assert "Couldn't connect to 10.0.0.2:18515" in str(err.value)


def test_header_without_rows(sample: Callable[[str], str]) -> None:
    lines = sample("perftest/roce200g-ib_write_bw-a-report-gbits-sweep.txt").splitlines()
    with pytest.raises(EvidenceParseError, match="no result rows") as err:
        perftest.parse("\n".join(lines[:23]))
    assert err.value.line == 3


def test_truncated_table_keeps_its_rows(sample: Callable[[str], str]) -> None:
    lines = sample("perftest/roce200g-ib_write_bw-a-report-gbits-sweep.txt").splitlines()
    result = perftest.parse("\n".join(lines[:30]))
    assert len(result.metrics["sweep"]) == 7
    assert "the result table has no closing line: output may be truncated" in result.warnings


def test_two_reports_in_one_file_use_the_first(sample: Callable[[str], str]) -> None:
    text = sample("perftest/roce200g-ib_write_bw-a-report-gbits-sweep.txt") + sample(
        "perftest/stmatengss-mlx4-ib_write_lat-a-latency.txt"
    )
    result = perftest.parse(text)
    assert result.metrics["bw_avg_gbit_s"] == 196.07
    assert result.warnings[0].startswith("2 perftest reports in this file")


def test_short_row_names_its_line(sample: Callable[[str], str]) -> None:
    text = sample("perftest/roce100g-ib_write_bw-bidir-cpufreq-warning.txt").replace(
        "65536      560845           0.00               98.02                0.186950",
        "65536      560845           0.00",
    )
    with pytest.raises(EvidenceParseError, match="bandwidth row has 3 columns") as err:
        perftest.parse(text)
    assert err.value.line == 26


def test_large_input_stays_linear(sample: Callable[[str], str]) -> None:
    text = sample("perftest/hdr200-ib_write_bw-a-mbps-cpufreq-warning-every-row.txt") * 2000
    start = time.perf_counter()
    result = perftest.parse(text)
    assert len(result.metrics["sweep"]) == 23
    assert time.perf_counter() - start < 30


def test_newest_header_bidirectional_four_qps_in_gbits(sample: Callable[[str], str]) -> None:
    result = perftest.parse(
        sample("perftest/amd-ainic-ib_write_bw-bidir-4qp-a-gbits-server-newest.txt")
    )
    m = result.metrics
    assert (m["test"], m["bidirectional"], m["qps"]) == ("ib_write_bw", True, 4)
    assert (m["device"], m["link_type"], m["gid_index"]) == ("ionic_7", "Ethernet", 1)
    assert (m["report_unit"], m["value_unit"]) == ("Gb/sec", "Gb/sec")
    assert (m["bw_avg_gbit_s"], m["bw_peak_gbit_s"]) == (779.21, 779.21)
    assert (m["max_size_bytes"], len(m["sweep"])) == (8388608, 23)
    assert m["sweep"][0] == {
        "size_bytes": 2,
        "iterations": 20000,
        "bw_peak_gbit_s": 0.147331,
        "bw_avg_gbit_s": 0.146472,
        "msg_rate_mpps": 9.154486,
    }
    assert m["peak_measured"] is True
    assert result.warnings == ()


def test_gpudirect_run_in_mib_per_second(sample: Callable[[str], str]) -> None:
    result = perftest.parse(
        sample("perftest/amd-ainic-mi355x-ib_write_bw-rocm-gdr-a-mib-client.txt")
    )
    m = result.metrics
    assert (m["test"], m["bidirectional"], m["qps"]) == ("ib_write_bw", False, 1)
    assert m["report_unit"] == "MiB/sec"
    # 19871.68 MiB/s at 8 KiB is the best average: 19871.68 * 2**20 * 8 / 1e9 Gbit/s.
    assert m["bw_avg_gbit_s"] == pytest.approx(19871.68 * 1048576 * 8 / 1e9, abs=1e-5)
    assert m["bw_avg_gbit_s_at_max_size"] == pytest.approx(19044.43 * 1048576 * 8 / 1e9, abs=1e-5)
    assert m["max_size_bytes"] == 8388608
    assert [row["size_bytes"] for row in m["sweep"]][-2:] == [4194304, 8388608]


def test_rdma_cm_gpudirect_server_with_warnings_inside_the_header(
    sample: Callable[[str], str],
) -> None:
    result = perftest.parse(sample("perftest/k8s-t4-gdr-ib_write_bw-rdma-cm-server-cuda-lines.txt"))
    m = result.metrics
    assert (m["test"], m["rdma_cm"], m["tos"]) == ("ib_write_bw", True, None)
    assert (m["device"], m["link_type"], m["mtu_bytes"], m["gid_index"]) == (
        "mlx5_0",
        "Ethernet",
        1024,
        3,
    )
    assert (m["bw_peak_gbit_s"], m["bw_avg_gbit_s"], m["max_size_bytes"]) == (10.46, 10.42, 65536)
    assert m["msg_rate_mpps"] == 0.019882
    assert result.warnings == ()


def test_soft_roce_send_latency_over_rdma_cm(sample: Callable[[str], str]) -> None:
    result = perftest.parse(
        sample("perftest/rxe-soft-roce-ib_send_lat-rdma-cm-server-client-labels.txt")
    )
    m = result.metrics
    assert (m["test_type"], m["test"], m["device"], m["rdma_cm"]) == (
        "latency",
        "ib_send_lat",
        "rxe1",
        True,
    )
    assert (m["lat_typical_us"], m["lat_avg_us"], m["lat_min_us"], m["lat_max_us"]) == (
        7.92,
        10.23,
        6.64,
        725.77,
    )
    assert (m["lat_p99_us"], m["lat_p999_us"], m["lat_stdev_us"]) == (25.91, 725.77, 24.62)
    assert m["bw_avg_gbit_s"] is None


def test_rdma_cm_off_and_a_traffic_class(sample: Callable[[str], str]) -> None:
    m = perftest.parse(
        sample("perftest/amd-ainic-ib_write_bw-bidir-4qp-a-gbits-server-newest.txt")
    ).metrics
    assert (m["rdma_cm"], m["tos"]) == (False, None)
    text = (
        "                    RDMA_Write BW Test\n"
        " Number of qps   : 4\t\tTransport type : IB\n"
        " rdma_cm QPs\t : ON\n"
        " Data ex. method : rdma_cm \tTOS    : 41\n"
        "---------------------------------------------------------------------------------------\n"
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        " 65536      5000             92.11              91.87  \t\t   0.175234\n"
        "---------------------------------------------------------------------------------------\n"
    )
    m = perftest.parse(text).metrics
    assert (m["rdma_cm"], m["tos"], m["qps"], m["bw_avg_gbit_s"]) == (True, 41, 4, 91.87)


def test_post_list_test_with_unmeasured_peak(sample):
    m = perftest.parse(sample("perftest/ib_write_bw-post-list-8b-gbits-peak-zero-tabs.txt")).metrics
    assert m["test_type"] == "bandwidth"
    assert m["bw_avg_gbit_s"] == 0.48
    assert m["bw_peak_gbit_s"] is None


def test_read_sweep_without_separators_cut_mid_table(sample):
    result = perftest.parse(sample("perftest/ib_read_bw-a-mbps-no-separators-iterations-cut.txt"))
    assert result.metrics["link_type"] == "IB"
    # 310.05 MB/sec at 128 bytes, the last row kept; perftest's MB is 2^20 bytes.
    assert result.metrics["bw_avg_gbit_s"] == pytest.approx(310.05 * 2**20 * 8 / 1e9, abs=1e-5)
    assert any("no closing line" in w for w in result.warnings)


def test_server_and_client_interleaved_in_one_log(sample: Callable[[str], str]) -> None:
    # A loopback run: both sides print their title block and '#bytes' header into one log.
    text = sample("perftest/superbench-ib_write_bw-loopback-server-client-interleaved-mb.txt")
    metrics = perftest.parse(text).metrics
    assert (metrics["test"], metrics["title"]) == ("ib_write_bw", "RDMA_Write BW Test")
    assert (metrics["device"], metrics["link_type"], metrics["mtu_bytes"]) == ("ib0", "IB", 4096)
    assert metrics["value_unit"] == "MB/sec"
    assert len(metrics["sweep"]) == 23  # 2 B .. 8 MiB, the repeat after the closing line dropped
    assert metrics["bw_avg_gbit_s"] == round(23277.91 * perftest.MBYTE_PER_S_TO_GBIT_S, 6)
    assert metrics["bw_peak_gbit_s"] == round(23330.56 * perftest.MBYTE_PER_S_TO_GBIT_S, 6)
    assert metrics["max_size_bytes"] == 8388608


def test_roce_report_gbits_indented_with_gid_lines(sample: Callable[[str], str]) -> None:
    path = "perftest/gpu-operator-docs-ib_write_bw-roce-gid5-report-gbits-rst-indented.txt"
    metrics = perftest.parse(sample(path)).metrics
    assert (metrics["link_type"], metrics["gid_index"], metrics["rdma_cm"]) == (
        "Ethernet",
        5,
        False,
    )
    assert (metrics["value_unit"], metrics["mtu_bytes"]) == ("Gb/sec", 1024)
    assert metrics["bw_avg_gbit_s"] == 92.46
    assert metrics["bw_peak_gbit_s"] == 92.46
    assert metrics["bw_avg_gbit_s_at_max_size"] == 92.39
    assert len(metrics["sweep"]) == 23


def test_broadcom_roce_three_qps_duration_run(sample: Callable[[str], str]) -> None:
    path = "perftest/scc24-broadcom-bnxt-re-roce-3qp-rdma-cm-duration-peak-zero.txt"
    result = perftest.parse(sample(path))
    metrics = result.metrics
    assert (metrics["device"], metrics["qps"], metrics["gid_index"]) == ("bnxt_re0", 3, 3)
    assert (metrics["link_type"], metrics["rdma_cm"]) == ("Ethernet", True)
    assert metrics["bw_avg_gbit_s"] == 363.47
    # Duration mode printed 0.00 as the peak: not a measured peak of zero.
    assert (metrics["bw_peak_gbit_s"], metrics["peak_measured"]) == (None, False)
    assert result.warnings == ("BW peak printed as 0.00 on every row: peak is null",)


def test_send_bw_over_roce_on_a_netdev_named_device(sample: Callable[[str], str]) -> None:
    metrics = perftest.parse(
        sample("perftest/drbd-rdma-ib_send_bw-roce-gid3-ibv-wr-off-10g.txt")
    ).metrics
    assert (metrics["test"], metrics["device"]) == ("ib_send_bw", "rocep18s0f0")
    assert (metrics["link_type"], metrics["gid_index"], metrics["mtu_bytes"]) == (
        "Ethernet",
        3,
        4096,
    )
    assert (metrics["bw_avg_gbit_s"], metrics["bw_peak_gbit_s"]) == (9.81, 9.81)


def test_figures_bolded_in_markdown_are_read(sample) -> None:
    # Two pasted results; the poster wrapped each BW average in "**...**".
    result = perftest.parse(
        sample("perftest/perftest-issue65-arm-ib_send_bw-1024b-two-cases-bold-avg-no-title.txt")
    )
    assert result.metrics["test_type"] == "bandwidth"
    assert result.metrics["bw_avg_gbit_s"] == pytest.approx(5544.28 * 1048576 * 8 / 1e9)
    assert result.metrics["max_size_bytes"] == 1024
    assert result.metrics["bw_peak_gbit_s"] is None
    assert any("2 perftest reports" in w for w in result.warnings)


_RULE = "-" * 87 + "\n"
_OVERFLOW_HEAD = (
    "                    Send BW Test\n"
    " Link type       : Ethernet\n"
    + _RULE
    + " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
)


def test_a_negative_bandwidth_is_no_figure() -> None:
    # perftest issue #82: very long -D runs printed a negative BW average (a counter overflow).
    text = _OVERFLOW_HEAD + " 65536      1000    0.00    -2.35    -0.004478\n" + _RULE
    with pytest.raises(EvidenceParseError) as caught:
        perftest.parse(text)
    assert caught.value.code == "perftest.no_rows"
    assert caught.value.line == 5


def test_negative_rows_are_dropped_beside_valid_ones() -> None:
    text = (
        _OVERFLOW_HEAD
        + " 4096       1000    0.00    -1.10    -0.03\n"
        + " 65536      1000    0.00    92.40    0.176\n"
        + _RULE
    )
    result = perftest.parse(text)
    assert result.metrics["bw_avg_gbit_s"] == 92.40
    assert [row["size_bytes"] for row in result.metrics["sweep"]] == [65536]
    assert any("negative figure" in w for w in result.warnings)


def test_a_negative_latency_is_no_figure() -> None:
    text = (
        "                    Send Latency Test\n"
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]\n"
        " 2       1000          0.98          4.05         1.07                -1.08\n"
    )
    with pytest.raises(EvidenceParseError) as caught:
        perftest.parse(text)
    assert caught.value.code == "perftest.no_rows"
