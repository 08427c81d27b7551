"""fio outputs from public sources (fio 2.x and 3.x, JSON, text and both in one file).

Every expectation is read off the file: fio 2 prints KiB/s as "KB/s" and JSON ``bw`` in KiB/s,
fio 3 prints the decimal MB/s in parentheses and JSON ``bw_bytes`` in bytes/s.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from scoring.evidence import fio, registry

Sample = Callable[[str], str]
FIO2_JSON = "fio/fio2210-xvda-write-only-json-blog.txt"
FIO2_TEXT = "fio/fio2-st4000-read-normal-aggrb-md-fenced.txt"
FIO31_WRITE = "fio/fio31-aws-ec2-micro-write-normal-echoed.txt"
FIO31_READ = "fio/fio31-gcloud-micro-read-normal-echoed.txt"
FIO342_MIXED = "fio/fio342-nvme-randwrite-header-json-normal.txt"


def _job(metrics: dict) -> dict:
    (job,) = metrics["jobs"]
    return job


def test_fio2_json_write_only_job(sample: Sample) -> None:
    text = sample(FIO2_JSON)
    assert registry.detect_kind(text) == "fio"
    result = fio.parse(text)
    metrics = result.metrics
    assert (metrics["format"], metrics["fio_version"]) == ("json", "fio-2.2.10")
    assert metrics["write_bw_mbyte_s"] == 63.999  # "bw" : 62499 KiB/s
    assert metrics["write_iops"] == 15624.7
    assert metrics["write_clat_mean_us"] == 8151.19  # fio 2 "clat" is in usec
    assert (metrics["read_bw_mbyte_s"], metrics["read_iops"]) == (None, None)
    job = _job(metrics)
    # fio 2.x JSON lists no options: the block size is unknown, the depth is latency_depth.
    assert (job["rw"], job["bs_bytes"], job["iodepth"], job["numjobs"]) == (None, None, 32, 1)
    assert (job["read_bw_mbyte_s"], job["read_iops"]) == (0.0, 0.0)
    assert result.warnings == ()


def test_fio2_text_in_markdown_fences_without_header(sample: Sample) -> None:
    result = fio.parse(sample(FIO2_TEXT))
    metrics = result.metrics
    assert metrics["format"] == "normal"
    assert metrics["read_bw_mbyte_s"] == 503.011  # aggrb=491222KB/s, 1 KB = 1024 bytes in fio 2
    assert (metrics["read_iops"], metrics["read_clat_mean_us"]) == (122805.0, 122.8)
    assert metrics["write_bw_mbyte_s"] is None
    assert metrics["fio_version"] is None  # the paste starts at "Starting 1 process"
    job = _job(metrics)
    assert (job["name"], job["rw"], job["bs_bytes"]) == ("file1", None, None)
    assert job["iodepth"] == 16  # "latency : target=0, window=0, percentile=100.00%, depth=16"
    assert (job["write_bw_mbyte_s"], job["write_iops"]) == (0.0, 0.0)
    assert result.warnings == ()


def test_fio31_text_write_and_read_runs(sample: Sample) -> None:
    write = fio.parse(sample(FIO31_WRITE)).metrics
    assert (write["write_bw_mbyte_s"], write["write_iops"]) == (12.6, 3068.0)  # (12.6MB/s)
    assert write["write_clat_mean_us"] == 1294.12
    assert write["read_bw_mbyte_s"] is None
    assert write["fio_version"] == "fio-3.1"
    assert _job(write) == {
        "name": "myjob",
        "groupid": 0,
        "rw": "write",
        "bs_bytes": 4096,
        "iodepth": 4,
        "numjobs": 1,
        "read_bw_mbyte_s": 0.0,
        "read_iops": 0.0,
        "write_bw_mbyte_s": 12.6,
        "write_iops": 3068.0,
        # From the echoed command line (--direct=1 --size=4G --filename=test4K-aio), the
        # header (ioengine=libaio) and "(4106MiB/341704msec)".
        "direct": True,
        "ioengine": "libaio",
        "file_size_bytes": 4 * 1024**3,
        "runtime_s": 341.704,
        "target": "test4K-aio",
        "error": None,  # "err= 0": the job completed
    }
    assert write["disks"] == ["xvda"]  # "Disk stats (read/write): xvda: ios=..."
    read = fio.parse(sample(FIO31_READ)).metrics
    assert (read["read_bw_mbyte_s"], read["read_iops"]) == (15.8, 3846.0)
    assert read["read_clat_mean_us"] == 1023.88
    assert (read["write_bw_mbyte_s"], _job(read)["write_bw_mbyte_s"]) == (None, 0.0)


def test_fio342_header_json_and_text_in_one_file(sample: Sample) -> None:
    result = fio.parse(sample(FIO342_MIXED))
    metrics = result.metrics
    assert (metrics["format"], metrics["fio_version"]) == ("normal+json", "fio-3.42-6-g219f")
    assert metrics["write_bw_mbyte_s"] == 13.117  # bw_bytes 13116864
    assert metrics["write_iops"] == 3201.66
    assert metrics["write_clat_mean_us"] == 2486.019  # clat_ns mean 2486019.03
    assert metrics["read_bw_mbyte_s"] is None
    job = _job(metrics)
    assert (job["name"], job["rw"], job["bs_bytes"], job["iodepth"]) == (
        "/dev/nvme8n6",
        "randwrite",
        4096,
        8,
    )


def test_idle_direction_and_depth_agree_between_json_and_text(sample: Sample) -> None:
    # The same job's JSON and normal reports, separated: both read 0 and depth 8.
    lines = sample(FIO342_MIXED).splitlines(keepends=True)
    start = lines.index("{\n")
    data, end = json.JSONDecoder().raw_decode("".join(lines[start:]))
    assert data["jobs"][0]["read"]["io_bytes"] == 0
    json_text = "".join(lines[start:])[:end]
    text_only = "".join(lines[:start]) + "".join(lines[start:])[end:]
    from_json = _job(fio.parse(json_text).metrics)
    from_text = _job(fio.parse(text_only).metrics)
    for job in (from_json, from_text):
        assert (job["read_bw_mbyte_s"], job["read_iops"], job["iodepth"]) == (0.0, 0.0, 8)
        assert (job["rw"], job["bs_bytes"]) == ("randwrite", 4096)
    assert from_text["write_bw_mbyte_s"] == 13.1  # "(13.1MB/s)" as printed
    assert abs(from_json["write_bw_mbyte_s"] - from_text["write_bw_mbyte_s"]) < 0.05


def test_json_after_a_note_line_with_global_options(sample) -> None:
    path = "fio/lkml-fio333-falloc-write-json-note-line-global-options.txt"
    m = fio.parse(sample(path)).metrics
    assert (m["format"], m["fio_version"]) == ("json", "fio-3.33")
    assert m["write_bw_mbyte_s"] == 1950.18  # bw_bytes 1950180255 / 10**6
    assert m["write_iops"] == 476118.226
    assert m["read_bw_mbyte_s"] is None  # a write-only job
    job = m["jobs"][0]
    assert (job["rw"], job["bs_bytes"], job["ioengine"], job["iodepth"]) == (
        "write",
        4096,
        "falloc",
        32,
    )
    assert job["file_size_bytes"] == 137438953472
    assert m["disks"] == ["sdb"]


def test_terse_v3_line_alone(sample) -> None:
    result = fio.parse(sample("fio/rust-probe-fio336-terse-v3-randrw-nvme-one-line.txt"))
    m = result.metrics
    assert (m["format"], m["fio_version"]) == ("terse", "fio-3.36")
    # Terse bandwidth is KiB/s: 62125 KiB/s = 63.616 MB/s.
    assert (m["read_bw_mbyte_s"], m["read_iops"]) == (63.616, 15531.0)
    assert (m["write_bw_mbyte_s"], m["write_iops"]) == (67.456, 16468.0)
    assert m["read_clat_mean_us"] == 62.556
    assert m["jobnames"] == ["probe"]
    assert m["jobs"][0]["rw"] is None and m["jobs"][0]["bs_bytes"] is None  # not in terse
    assert [(f.metric, f.value) for f in result.facts][:2] == [
        ("read_bw_mbyte_s", 63.616),
        ("read_iops", 15531.0),
    ]


def test_terse_line_beside_the_normal_report_reads_the_normal_report(sample) -> None:
    m = fio.parse(sample("fio/cn-blog-fio332-terse-line-then-normal-rw-prompt.txt")).metrics
    assert (m["format"], m["fio_version"]) == ("normal", "fio-3.32")
    assert (m["read_bw_mbyte_s"], m["write_bw_mbyte_s"]) == (6.716, 6.714)
    assert (m["read_iops"], m["write_iops"]) == (1639.0, 1639.0)
    assert m["jobs"][0]["rw"] == "rw" and m["jobs"][0]["bs_bytes"] == 4096
    assert m["disks"] == ["vda"]
