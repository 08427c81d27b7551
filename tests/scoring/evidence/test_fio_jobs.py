"""The fio parser's per-job rows: what each job was asked to run (rw, block size, queue depth,
job count) and what it measured, the same in the JSON and the text forms."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import fio

# The fio 2.x report of test_fio.py: header "bs=1M-1M/...", iodepth=32, aggrb in KiB/s.
OLD_FIO2_TEXT = """seqread: (g=0): rw=read, bs=1M-1M/1M-1M/1M-1M, ioengine=libaio, iodepth=32
fio-2.2.10
Starting 1 process

seqread: (groupid=0, jobs=1): err= 0: pid=4242: Tue Mar  6 10:00:00 2018
  read : io=1024.0MB, bw=104857KB/s, iops=102, runt= 10000msec

Run status group 0 (all jobs):
   READ: io=1024.0MB, aggrb=104857KB/s, minb=104857KB/s, maxb=104857KB/s
"""

SHAPE = ("name", "groupid", "rw", "bs_bytes", "iodepth", "numjobs")


def _shape(row: dict) -> tuple:
    return tuple(row[key] for key in SHAPE)


def test_a_write_only_job_reads_zero_in_json_and_text(sample: Callable[[str], str]) -> None:
    # The same two stonewalled jobs (128 KiB sequential read, then write), run once with
    # --output-format=json and once with the normal report.
    json_jobs = fio.parse(sample("fio/fio333-two-groups-stonewall-json-echoed.txt")).metrics["jobs"]
    text_jobs = fio.parse(sample("fio/fio333-two-groups-stonewall-normal-echoed.txt")).metrics[
        "jobs"
    ]
    assert (
        [_shape(j) for j in json_jobs]
        == [_shape(j) for j in text_jobs]
        == [
            ("seqread", 0, "read", 131072, 1, 1),
            ("seqwrite", 1, "write", 131072, 1, 1),
        ]
    )
    for jobs in (json_jobs, text_jobs):
        read_job, write_job = jobs
        assert (write_job["read_bw_mbyte_s"], write_job["read_iops"]) == (0.0, 0.0)
        assert (read_job["write_bw_mbyte_s"], read_job["write_iops"]) == (0.0, 0.0)
    assert json_jobs[1]["write_bw_mbyte_s"] == 6985.528  # bw_bytes 6985528419
    assert text_jobs[1]["write_bw_mbyte_s"] == 5777.0  # "WRITE: bw=5509MiB/s (5777MB/s)"


def test_the_json_and_text_halves_of_one_run_agree(sample: Callable[[str], str]) -> None:
    # --output-format=normal,json prints both reports of one run: split them and parse each.
    lines = sample("fio/fio333-seqread-normal-json.txt").splitlines(keepends=True)
    as_json = fio.parse("".join(lines[3:273])).metrics
    as_text = fio.parse("".join(lines[:3] + lines[273:])).metrics
    assert (as_json["format"], as_text["format"]) == ("json", "normal")
    (json_job,) = as_json["jobs"]
    (text_job,) = as_text["jobs"]
    assert _shape(json_job) == _shape(text_job) == ("seqread", 0, "read", 1048576, 1, 1)
    assert json_job["read_bw_mbyte_s"] == 850.069
    assert text_job["read_bw_mbyte_s"] == 850.0  # printed rounded: "(850MB/s)"
    assert json_job["write_bw_mbyte_s"] == text_job["write_bw_mbyte_s"] == 0.0
    assert json_job["write_iops"] == text_job["write_iops"] == 0.0


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("fio/fio333-seqwrite-json.txt", ("seqwrite", 0, "write", 1048576, 1, 1)),
        ("fio/fio333-randrw-normal.txt", ("randrw", 0, "randrw", 4096, 1, 1)),
        # numjobs=3 without group_reporting: three JSON entries, one row, figures summed
        ("fio/fio333-3jobs-randwrite-nogroup-json.txt", ("multi", 0, "randwrite", 4096, 1, 3)),
        ("fio/fio333-3jobs-randwrite-group-json.txt", ("multi", 0, "randwrite", 4096, 1, 3)),
        # four "jobs=1" blocks in the text, or one "jobs=4" block with group_reporting
        ("fio/fio333-4jobs-randread-nogroup-normal.txt", ("multi", 0, "randread", 4096, 1, 4)),
        ("fio/fio333-4jobs-randread-group-normal.txt", ("multi", 0, "randread", 4096, 1, 4)),
    ],
)
def test_each_job_reports_what_it_ran(
    sample: Callable[[str], str], rel: str, expected: tuple
) -> None:
    (job,) = fio.parse(sample(rel)).metrics["jobs"]
    assert _shape(job) == expected


def test_summed_job_figures_match_the_headline(sample: Callable[[str], str]) -> None:
    metrics = fio.parse(sample("fio/fio333-3jobs-randwrite-nogroup-json.txt")).metrics
    (job,) = metrics["jobs"]
    assert job["write_bw_mbyte_s"] == metrics["write_bw_mbyte_s"] == 1073.969
    assert job["write_iops"] == pytest.approx(262199.4)
    assert job["read_bw_mbyte_s"] == 0.0


def test_fio2_header_gives_the_block_size_and_queue_depth() -> None:
    (job,) = fio.parse(OLD_FIO2_TEXT).metrics["jobs"]
    assert _shape(job) == ("seqread", 0, "read", 1048576, 32, 1)
    assert job["read_bw_mbyte_s"] == 107.374


def test_json_options_split_read_and_write_block_sizes() -> None:
    text = """{
  "fio version" : "fio-3.33",
  "global options" : {"iodepth" : "32", "bs" : "4k,256k"},
  "jobs" : [
    {
      "jobname" : "w", "groupid" : 0, "error" : 0,
      "job options" : {"name" : "w", "rw" : "write", "numjobs" : "2"},
      "read" : {"io_bytes" : 0, "bw_bytes" : 0, "iops" : 0.0, "runtime" : 0, "total_ios" : 0},
      "write" : {"io_bytes" : 1000, "bw_bytes" : 2000000000, "iops" : 7629.3,
                 "runtime" : 10, "total_ios" : 40}
    }
  ]
}
"""
    (job,) = fio.parse(text).metrics["jobs"]
    assert _shape(job) == ("w", 0, "write", 262144, 32, 2)
    assert (job["write_bw_mbyte_s"], job["read_bw_mbyte_s"]) == (2000.0, 0.0)


def _header(name: str, rw: str) -> str:
    return (
        f"{name}: (g=0): rw={rw}, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, "
        "ioengine=libaio, iodepth=64\n"
    )


_READ_REPORT = (
    "fio-3.25\n"
    "Starting 1 process\n"
    "\n"
    "read_iops: (groupid=0, jobs=1): err= 0: pid=4242: Mon Jul 11 10:00:00 2022\n"
    "  read: IOPS=332k, BW=1299MiB/s (1362MB/s)(19.0GiB/15001msec)\n"
    "\n"
    "Run status group 0 (all jobs):\n"
    "   READ: bw=1299MiB/s (1362MB/s), 1299MiB/s-1299MiB/s (1362MB/s-1362MB/s), "
    "io=19.0GiB (20.4GB), run=15001-15001msec\n"
)


def test_a_job_header_after_the_last_result_with_no_result_is_flagged() -> None:
    # A script's second fio run, cut after its header line: nothing says so otherwise.
    text = (
        _header("read_iops", "randread") + _READ_REPORT + "\n" + _header("write_iops", "randwrite")
    )
    result = fio.parse(text)
    assert (result.metrics["read_iops"], result.metrics["write_iops"]) == (332000.0, None)
    assert result.warnings == (
        "line 11: job write_iops printed its header after the last result and no result of "
        "its own (the output was cut there, or the job failed)",
    )


def test_group_reporting_headers_before_the_results_are_not_flagged() -> None:
    # Under group_reporting only the first job of a group prints a block: the others' headers
    # precede the results and are no sign of a cut.
    text = _header("read_iops", "randread") + _header("second", "randread") + _READ_REPORT
    assert fio.parse(text).warnings == ()


def test_the_cut_write_job_of_batch8_is_flagged(sample: Callable[[str], str]) -> None:
    # "Testing Write IOPS..." then the write job's header, where the paste was cut.
    result = fio.parse(
        sample(
            "fio/cloud-hypervisor-issue4387-fio325-echo-lines-randread-332k-iops-then-write-job-header-cut.txt"
        )
    )
    assert result.metrics["write_iops"] is None
    assert any(
        "job write_iops printed its header after the last result" in w for w in result.warnings
    )
