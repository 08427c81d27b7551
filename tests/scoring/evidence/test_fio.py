"""Tests of the fio parser on real fio 3.33 runs made on the dev machine (json, text, mixed)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from scoring.evidence import fio
from scoring.evidence.base import EvidenceParseError, ParseResult

OLD_FIO2_TEXT = """seqread: (g=0): rw=read, bs=1M-1M/1M-1M/1M-1M, ioengine=libaio, iodepth=32
fio-2.2.10
Starting 1 process

seqread: (groupid=0, jobs=1): err= 0: pid=4242: Tue Mar  6 10:00:00 2018
  read : io=1024.0MB, bw=104857KB/s, iops=102, runt= 10000msec
    clat (usec): min=900, max=12000, avg=9750.50, stdev=300.00

Run status group 0 (all jobs):
   READ: io=1024.0MB, aggrb=104857KB/s, minb=104857KB/s, maxb=104857KB/s, mint=10000msec, \
maxt=10000msec
"""


def _facts(result: ParseResult) -> list[tuple[str, float, str, int | None]]:
    return [(f.metric, f.value, f.unit, f.line) for f in result.facts]


def test_sequential_read_text_uses_the_decimal_figure(sample: Callable[[str], str]) -> None:
    result = fio.parse(sample("fio/fio333-seqread-normal.txt"))
    metrics = result.metrics
    # "READ: bw=1063MiB/s (1115MB/s)": the MB/s figure in parentheses is taken as printed.
    assert metrics["read_bw_mbyte_s"] == 1115.0
    assert metrics["read_iops"] == 1062.0
    assert metrics["read_clat_mean_us"] == 884.03
    assert metrics["write_bw_mbyte_s"] is None
    assert metrics["write_iops"] is None
    assert metrics["format"] == "normal"
    assert metrics["fio_version"] == "fio-3.33"
    assert metrics["rw"] == ["read"]
    assert metrics["jobnames"] == ["seqread"]
    assert _facts(result) == [
        ("read_bw_mbyte_s", 1115.0, "MB/s", 28),
        ("read_iops", 1062.0, "IOPS", 28),
    ]
    assert result.warnings == ()


def test_sequential_write_json_converts_bytes_per_second(sample: Callable[[str], str]) -> None:
    result = fio.parse(sample("fio/fio333-seqwrite-json.txt"))
    metrics = result.metrics
    assert metrics["format"] == "json"
    assert metrics["write_bw_mbyte_s"] == 10220.603  # bw_bytes 10220602850
    assert metrics["write_iops"] == 9747.126  # iops 9747.126437
    assert metrics["read_bw_mbyte_s"] is None
    assert metrics["read_iops"] is None
    assert _facts(result)[0] == ("write_bw_mbyte_s", 10220.603, "MB/s", 1)


def test_mixed_random_read_write_text(sample: Callable[[str], str]) -> None:
    metrics = fio.parse(sample("fio/fio333-randrw-normal.txt")).metrics
    assert (metrics["read_bw_mbyte_s"], metrics["read_iops"]) == (39.6, 9664.0)
    assert (metrics["write_bw_mbyte_s"], metrics["write_iops"]) == (16.8, 4112.0)
    assert metrics["read_clat_mean_us"] == 93.231  # avg=93230.54 nsec, kept to 1 ns
    assert metrics["write_clat_mean_us"] == 8.32


def test_mixed_random_read_write_json(sample: Callable[[str], str]) -> None:
    metrics = fio.parse(sample("fio/fio333-randrw-json.txt")).metrics
    assert (metrics["read_bw_mbyte_s"], metrics["read_iops"]) == (31.665, 7730.635)
    assert (metrics["write_bw_mbyte_s"], metrics["write_iops"]) == (13.44, 3281.359)


def test_json_plus_is_read_like_json(sample: Callable[[str], str]) -> None:
    metrics = fio.parse(sample("fio/fio333-randrw-jsonplus.txt")).metrics
    assert metrics["format"] == "json"
    assert metrics["read_bw_mbyte_s"] is not None and metrics["write_bw_mbyte_s"] is not None


def test_four_jobs_without_group_reporting_are_summed(sample: Callable[[str], str]) -> None:
    result = fio.parse(sample("fio/fio333-4jobs-randread-nogroup-normal.txt"))
    metrics = result.metrics
    assert metrics["read_bw_mbyte_s"] == 235.0  # the group line, not a single job's 58.4
    assert metrics["read_iops"] == 57400.0  # 14.3k + 14.4k + 14.3k + 14.4k
    assert metrics["job_count"] == 4
    assert metrics["read_clat_mean_us"] is None  # four separate means: not averaged from text
    # fio prints a bare "..." under the header for numjobs > 1; it is not an excerpt marker.
    assert result.warnings == ()


def test_four_jobs_with_group_reporting(sample: Callable[[str], str]) -> None:
    metrics = fio.parse(sample("fio/fio333-4jobs-randread-group-normal.txt")).metrics
    assert (metrics["read_bw_mbyte_s"], metrics["read_iops"]) == (284.0, 69300.0)
    assert metrics["groups"] == [
        {
            "groupid": 0,
            "jobs": 1,
            "read_bw_mbyte_s": 284.0,
            "read_iops": 69300.0,
            "write_bw_mbyte_s": None,
            "write_iops": None,
        }
    ]
    assert metrics["read_clat_mean_us"] == 56.518


def test_three_json_jobs_are_summed(sample: Callable[[str], str]) -> None:
    metrics = fio.parse(sample("fio/fio333-3jobs-randwrite-nogroup-json.txt")).metrics
    # bw_bytes 355588477 + 345990204 + 372390060; iops 86813.59 + 84470.26 + 90915.54
    assert metrics["write_bw_mbyte_s"] == 1073.969
    assert metrics["write_iops"] == 262199.4
    assert metrics["job_count"] == 3
    assert metrics["groups"][0]["jobs"] == 3


def test_three_json_jobs_with_group_reporting(sample: Callable[[str], str]) -> None:
    metrics = fio.parse(sample("fio/fio333-3jobs-randwrite-group-json.txt")).metrics
    assert metrics["write_bw_mbyte_s"] == 1101.032  # bw_bytes 1101032079
    assert metrics["write_iops"] == 268806.66
    assert metrics["job_count"] == 1


def test_normal_and_json_in_one_file_prefers_the_json(sample: Callable[[str], str]) -> None:
    metrics = fio.parse(sample("fio/fio333-seqread-normal-json.txt")).metrics
    assert metrics["format"] == "normal+json"
    # JSON bw_bytes 850069354 (the text part says 850MB/s, rounded).
    assert metrics["read_bw_mbyte_s"] == 850.069
    assert metrics["read_iops"] == 810.689


def test_two_stonewalled_groups_text(sample: Callable[[str], str]) -> None:
    result = fio.parse(sample("fio/fio333-two-groups-stonewall-normal-echoed.txt"))
    metrics = result.metrics
    assert (metrics["read_bw_mbyte_s"], metrics["read_iops"]) == (1444.0, 11000.0)
    assert (metrics["write_bw_mbyte_s"], metrics["write_iops"]) == (5777.0, 44100.0)
    assert [g["groupid"] for g in metrics["groups"]] == [0, 1]
    assert metrics["jobnames"] == ["seqread", "seqwrite"]
    assert _facts(result)[2] == ("write_bw_mbyte_s", 5777.0, "MB/s", 55)


def test_two_stonewalled_groups_json_after_an_echoed_command(
    sample: Callable[[str], str],
) -> None:
    metrics = fio.parse(sample("fio/fio333-two-groups-stonewall-json-echoed.txt")).metrics
    assert metrics["read_bw_mbyte_s"] == 1326.883  # bw_bytes 1326883147
    assert metrics["write_bw_mbyte_s"] == 6985.528  # bw_bytes 6985528419
    assert metrics["groups"][1]["read_bw_mbyte_s"] is None


def test_same_direction_in_two_groups_is_not_added(sample: Callable[[str], str]) -> None:
    text = sample("fio/fio333-seqread-normal.txt")
    second = text.replace("(groupid=0", "(groupid=1").replace("group 0", "group 1")
    second = second.replace("(1115MB/s)", "(2000MB/s)")
    result = fio.parse(text + second)
    assert result.metrics["read_bw_mbyte_s"] == 2000.0
    assert "2 reporting groups ran reads: the headline is the best group" in result.warnings[0]


def test_fio2_text_uses_1024_based_units() -> None:
    result = fio.parse(OLD_FIO2_TEXT)
    # aggrb=104857KB/s with fio 2's kb_base=1024: 104857 * 1024 bytes/s.
    assert result.metrics["read_bw_mbyte_s"] == 107.374
    assert result.metrics["read_iops"] == 102.0
    assert result.metrics["read_clat_mean_us"] == 9750.5
    assert result.metrics["fio_version"] == "fio-2.2.10"


def test_truncated_json_is_an_error_with_its_line(sample: Callable[[str], str]) -> None:
    text = sample("fio/fio333-seqwrite-json.txt")[:3000]
    with pytest.raises(EvidenceParseError, match="fio JSON is unreadable") as err:
        fio.parse(text)
    assert err.value.line is not None and err.value.line > 1


def test_truncated_json_after_the_text_report_falls_back(sample: Callable[[str], str]) -> None:
    mixed = sample("fio/fio333-seqread-normal-json.txt")
    lines = mixed.splitlines(keepends=True)
    text_part = "".join(lines[273:])  # the normal report printed after the JSON
    result = fio.parse(text_part + "".join(lines[3:100]))
    assert result.metrics["format"] == "normal"
    assert result.metrics["read_bw_mbyte_s"] == 850.0
    assert result.warnings[0].startswith("the JSON part is unreadable")


def test_failed_job_is_reported(sample: Callable[[str], str]) -> None:
    text = sample("fio/fio333-randrw-normal.txt").replace("err= 0:", "err= 5:")
    result = fio.parse(text)
    assert result.metrics["errors"] == [{"job": "randrw", "error": 5}]
    assert "job randrw reported error 5" in result.warnings


def test_job_header_without_results() -> None:
    text = "seq: (groupid=0, jobs=1): err= 2: pid=1: Mon Nov 30 08:35:34 2026\n"
    with pytest.raises(EvidenceParseError, match="no read/write results") as err:
        fio.parse(text)
    assert err.value.line == 1


def test_terse_output_asks_for_json() -> None:
    with pytest.raises(EvidenceParseError, match="terse output is not supported"):
        fio.parse("3;fio-3.33;seqread;0;0;1661952;830145;810;2002;0;0;0.0\n")


def test_overflowing_figure_is_refused_with_its_line(sample: Callable[[str], str]) -> None:
    text = sample("fio/fio333-seqread-normal.txt").replace("IOPS=1062", "IOPS=" + "9" * 400)
    with pytest.raises(EvidenceParseError, match="number overflow") as err:
        fio.parse(text)
    assert err.value.line == 7


def test_json_without_jobs() -> None:
    with pytest.raises(EvidenceParseError, match="no 'jobs' list") as err:
        fio.parse('$ fio x.fio\n{\n  "fio version" : "fio-3.33"\n}\n')
    assert err.value.line == 2


def test_large_input_stays_linear(sample: Callable[[str], str]) -> None:
    text = sample("fio/fio333-4jobs-randread-nogroup-normal.txt") * 1500  # ~9 MB
    start = time.perf_counter()
    assert fio.parse(text).metrics["job_count"] == 6000
    assert time.perf_counter() - start < 30


def test_cut_report_of_four_processes_without_group_reporting(sample) -> None:
    # --numjobs=4 on the command line, but the paste stops inside the first process's block.
    result = fio.parse(
        sample(
            "fio/armbian-pr6368-fio333-nvme-tcp-randread-64k-numjobs4-no-group-reporting-cut.txt"
        )
    )
    (job,) = result.metrics["jobs"]
    assert (job["name"], job["rw"], job["bs_bytes"], job["iodepth"]) == (
        "read-phase",
        "randread",
        65536,
        4,
    )
    assert job["numjobs"] == 4
    assert result.metrics["read_bw_mbyte_s"] == 29.2
    assert result.metrics["read_iops"] == 445.0
    assert any("ran 4 processes but 1 reported" in w for w in result.warnings)
