"""Tests of the nvbandwidth parser on real outputs from the tool's issue tracker."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import nvbandwidth, registry
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]


def test_gpu_to_gpu_matrix_with_na_diagonal(sample: Sample) -> None:
    text = sample("nvbandwidth/nvbw-issue50-6x-a6000-d2d-read-ce-v0.8.txt")
    assert registry.detect_kind(text) == "nvbandwidth"
    metrics = nvbandwidth.parse(text).metrics
    case = metrics["testcases"]["device_to_device_memcpy_read_ce"]
    assert case["sum_gbyte_s"] == 715.53
    assert case["cells"] == 30  # 6x6 minus the N/A diagonal
    assert case["matrix"][0][:2] == [None, 26.34]
    assert (metrics["d2d_min_gbyte_s"], case["max_gbyte_s"]) == (21.8, 26.35)
    assert abs(case["mean_gbyte_s"] * 30 - 715.53) < 0.1  # the tool's SUM is the cell total
    assert (metrics["nvbandwidth_version"], metrics["driver_version"]) == ("v0.8", "580.95.05")


def test_single_gpu_host_to_device(sample: Sample) -> None:
    result = nvbandwidth.parse(sample("nvbandwidth/nvbw-issue42-a100-h2d-sm-b512-v0.8.txt"))
    metrics = result.metrics
    assert metrics["h2d_gbyte_s"] == 25.13
    assert metrics["device_names"] == ["NVIDIA A100-SXM4-40GB"]
    assert metrics["devices"][0]["bus_id"] == "00000000:99:00"
    assert [(f.metric, f.value) for f in result.facts] == [("nvbandwidth_sum_gbyte_s", 25.13)]
    assert result.warnings == ()


def test_quoted_excerpt_without_sum(sample: Sample) -> None:
    text = sample("nvbandwidth/nvbw-issue24-h100-h2d-d2h-sm-no-indent.txt")
    assert registry.detect_kind(text) == "nvbandwidth"
    result = nvbandwidth.parse(text)
    assert result.metrics["testcase_names"] == [
        "host_to_device_memcpy_sm",
        "device_to_host_memcpy_sm",
    ]
    assert result.metrics["h2d_gbyte_s"] == round(
        (35.19 + 35.25 + 35.30 + 35.03 + 35.25 + 35.32 + 35.39 + 35.06) / 8, 3
    )
    assert result.metrics["d2h_gbyte_s"] == round((52.77 * 5 + 52.78 * 2 + 52.76) / 8, 3)
    assert sum("no SUM line" in w for w in result.warnings) == 2


def test_assert_stops_the_run_with_a_clear_error(sample: Sample) -> None:
    text = sample("nvbandwidth/nvbw-issue34-8x-a100-d2d-read-ce-assert.txt")
    assert registry.detect_kind(text) == "nvbandwidth"
    with pytest.raises(EvidenceParseError, match="measured nothing") as caught:
        nvbandwidth.parse(text)
    assert caught.value.kind == "nvbandwidth"


def test_foreign_text() -> None:
    assert nvbandwidth.detect("hello") == 0
    with pytest.raises(EvidenceParseError):
        nvbandwidth.parse("hello\n")


def test_latency_test_is_nanoseconds_not_bandwidth(sample: Sample) -> None:
    text = sample("nvbandwidth/nvbw-v0.8-rtx3050-laptop-all-tests-latency-ns-local-copy.txt")
    assert registry.detect_kind(text) == "nvbandwidth"
    result = nvbandwidth.parse(text)
    metrics = result.metrics
    latency = metrics["testcases"]["host_device_latency_sm"]
    assert latency["unit"] == "ns"
    assert (latency["sum_ns"], latency["mean_ns"]) == (613.22, 613.22)
    assert latency["sum_gbyte_s"] is None and latency["mean_gbyte_s"] is None
    # 613.22 ns is never reported as a copy bandwidth.
    assert all(f.metric == "nvbandwidth_sum_gbyte_s" for f in result.facts)
    assert 613.22 not in [f.value for f in result.facts]
    assert len(result.facts) == len(metrics["testcase_names"]) - 1 == 17
    assert metrics["testcases"]["device_local_copy"]["sum_gbyte_s"] == 84.33
    assert (metrics["h2d_gbyte_s"], metrics["d2h_gbyte_s"]) == (12.98, 13.17)
    assert metrics["waived"] == 17
    assert metrics["device_names"] == ["NVIDIA GeForce RTX 3050 Laptop GPU"]
    assert (metrics["nvbandwidth_version"], metrics["driver_version"]) == ("v0.8", "572.83")
    assert result.warnings == ()


def test_a_run_whose_only_test_was_waived_says_so(sample: Sample) -> None:
    text = sample("nvbandwidth/nvbw-issue13-v0.2-2x2080ti-write-ce-waiving.txt")
    assert registry.detect_kind(text) == "nvbandwidth"
    with pytest.raises(
        EvidenceParseError, match="Waiving device_to_device_memcpy_write_ce"
    ) as caught:
        nvbandwidth.parse(text)
    assert caught.value.code == "nvbandwidth.failed"
    assert caught.value.params["error"] == "line 15: Waiving device_to_device_memcpy_write_ce."


def test_waived_tests_are_named_when_the_run_measured_others() -> None:
    text = (
        "nvbandwidth Version: v0.2\n\nDevice 0: NVIDIA GeForce RTX 2080 Ti\n\n"
        "Waiving device_to_device_memcpy_write_ce.\n"
        "Running host_to_device_memcpy_ce.\n"
        "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
        "          0\n0     12.50\n\nSUM host_to_device_memcpy_ce 12.50\n"
    )
    metrics = nvbandwidth.parse(text).metrics
    assert metrics["waived"] == 1
    assert metrics["waived_testcases"] == ["device_to_device_memcpy_write_ce"]
    assert metrics["h2d_gbyte_s"] == 12.5
