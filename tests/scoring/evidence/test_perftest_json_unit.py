"""The unit of a perftest ``--out_json`` report, read from its own figures.

perftest writes BW_peak/BW_average in the unit the text report would print (MB/sec = 2**20 B/s
by default, Gb/sec with --report_gbits) and never names it. It derives BW and MsgRate from one
message count over one time (print_report_bw, perftest_parameters.c), so BW_average / (MsgRate
* MsgSize) is 10**6 / 0x100000 = 0.9537 in MB/sec and 10**6 / 125000000 = 0.008 in Gb/sec.
"""

from __future__ import annotations

import pytest

from scoring.evidence import PARSERS, perftest, registry
from scoring.evidence.base import EvidenceParseError
from tests.scoring.evidence.conftest import read_sample

# NVIDIA/doca-platform's example of `ib_write_bw --out_json` (RoCE, mlx5_11), the JSON file alone:
# 2229.27 / (0.035668 * 65536) = 0.95368, so MB/sec (2**20 B/s).
DOCA = "perftest/doca-platform-ib_write_bw-out-json-alone-mib-figures-roce-mlx5_11.txt"


def test_a_json_report_alone_is_read_in_the_unit_its_figures_show() -> None:
    text = read_sample(DOCA)
    assert registry.detect_kind(text) == "perftest"
    result = perftest.parse(text)
    metrics = result.metrics
    assert (metrics["test"], metrics["device"], metrics["link_type"]) == (
        "ib_write_bw",
        "mlx5_11",
        "Ethernet",
    )
    assert (metrics["value_unit"], metrics["report_unit"]) == ("MB/sec", "MB/sec")
    # 2229.27 MiB/s * 1048576 * 8 / 1e9 and 5293.52 MiB/s likewise, in Gbit/s.
    assert (metrics["bw_avg_gbit_s"], metrics["bw_peak_gbit_s"]) == (18.700472, 44.405264)
    assert (metrics["max_size_bytes"], metrics["msg_rate_mpps"]) == (65536, 0.035668)
    [fact] = result.facts
    assert (fact.metric, fact.value, fact.unit, fact.line) == (
        "perftest_bw_avg_gbit_s",
        18.700472,
        "Gbit/s",
        23,
    )
    assert result.warnings == ()


def test_the_figures_outweigh_a_command_line_that_says_otherwise() -> None:
    # The same repository runs `ib_write_bw <ip> --report_gbit --out_json` and reads the JSON as
    # Gbit/s; its example's figures are MiB/s all the same. "--report_gbit" is getopt_long's
    # abbreviation of --report_gbits.
    command = "ib_write_bw 10.0.0.2 --report_gbit --out_json --out_json_file=result\n"
    result = perftest.parse(command + read_sample(DOCA))
    assert result.metrics["bw_avg_gbit_s"] == 18.700472
    assert result.warnings == (
        "the command line asks for Gb/sec but the JSON figures are in MB/sec "
        "(BW_average / (MsgRate x MsgSize) = 0.9537): read as MB/sec",
    )


def test_figures_that_fit_neither_unit_are_refused() -> None:
    text = read_sample(DOCA).replace('"BW_average": 2229.27', '"BW_average": 222.93')
    with pytest.raises(EvidenceParseError) as caught:
        perftest.parse(text)
    assert (caught.value.code, caught.value.line, caught.value.params) == (
        "perftest.json_figures",
        26,
        {"ratio": "0.09537"},
    )
    assert "do not fit together" in caught.value.reason


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("$ ib_write_bw -d mlx5_11 -x 1 --out_json 10.0.0.2\n", 5293.52 * 0.008388608),
        ("$ ib_write_bw -d mlx5_11 -x 1 --report_gbit --out_json 10.0.0.2\n", 5293.52),
        ("$ ib_write_bw -d mlx5_11 -x 1 --report_gbits --out_json 10.0.0.2\n", 5293.52),
    ],
)
def test_without_a_message_rate_the_command_line_decides(command: str, expected: float) -> None:
    # MsgRate printed as 0 leaves the ratio undefined: perftest's default is MB/sec, the
    # command's --report_gbits (or its abbreviation) makes it Gb/sec.
    text = read_sample(DOCA).replace('"MsgRate": 0.035668', '"MsgRate": 0.000000')
    with pytest.raises(EvidenceParseError) as caught:
        perftest.parse(text)
    assert (caught.value.code, caught.value.line) == ("perftest.json_unit", 1)
    metrics = perftest.parse(command + text).metrics
    assert metrics["bw_peak_gbit_s"] == pytest.approx(expected, abs=1e-6)


def test_a_file_named_after_the_tool_is_not_its_command_line() -> None:
    text = read_sample(DOCA).replace('"MsgRate": 0.035668', '"MsgRate": 0.000000')
    with pytest.raises(EvidenceParseError) as caught:
        PARSERS["perftest"].parse("$ cat /tmp/ib_write_bw.json\n" + text)
    assert caught.value.code == "perftest.json_unit"
