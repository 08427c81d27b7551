"""dcgmi diag parser: DCGM 2.x/3.x/4.x tables, per-GPU results, wrapped messages, all-skip runs."""

from __future__ import annotations

import pytest

from scoring.evidence import dcgm
from scoring.evidence.base import EvidenceParseError


def test_dcgm3_level4_persistence_failure_with_wrapped_error(sample):
    result = dcgm.parse(sample("dcgm_diag/memtest-r4-rtx2060-persistence-FAIL.txt"))
    m = result.metrics
    assert m["overall"] == "fail"
    assert m["level"] == 4
    assert m["failed_tests"] == ["Persistence Mode"]
    assert m["skipped_tests"] == [
        "PCIe",
        "GPU Memory",
        "Pulse Test",
        "Targeted Stress",
        "Targeted Power",
        "Memory Bandwidth",
    ]
    assert m["passed_tests"][-1] == "Memtest"
    assert len(m["passed_tests"]) == 9
    # DCGM cuts the text every 45 characters, mid-word: "disab" + "led." must rejoin.
    assert m["errors"] == [
        {
            "test": "Persistence Mode",
            "text": "Persistence mode for GPU 0 is currently disabled. The DCGM diagnostic "
            "requires peristence mode to be enabled. Enable persistence mode by running "
            '"nvidia-smi -i <gpuId> -pm 1 " as root.',
            "line": 12,
        }
    ]
    assert m["dcgm_version"] is None  # DCGM 3.x layout without the Metadata section
    tests = {t["name"]: t for t in m["tests"]}
    assert tests["PCIe"]["category"] == "Integration"
    assert tests["Memtest"]["category"] == "Stress"
    facts = {f.metric: f.value for f in result.facts}
    assert facts == {"dcgm_failed_tests": 1.0, "dcgm_failed_gpus": 0.0}


def test_dcgm4_per_gpu_lines_and_four_wrapped_warnings(sample):
    result = dcgm.parse(sample("dcgm_diag/dcgm-issue253-4.2.3-pcie-fail-wrapped-warnings.txt"))
    m = result.metrics
    assert m["overall"] == "fail"
    assert m["failed_tests"] == ["pcie"]
    assert m["passed_tests"] == ["software", "memory"]
    assert m["failed_gpus"] == []
    assert (m["dcgm_version"], m["driver_version"]) == ("4.2.3", "570.148.08")
    assert m["gpu_device_ids"] == ["26b9"] * 4
    tests = {t["name"]: t for t in m["tests"]}
    assert tests["pcie"]["gpus"] == {"0": "pass", "1": "pass", "2": "pass", "3": "pass"}
    assert tests["memory"]["category"] == "Hardware"
    assert [w["test"] for w in m["warnings"]] == ["pcie"] * 4
    assert m["warnings"][0]["text"] == (
        "There was an internal error during the test: 'A child process (152) exited with "
        "non-zero status 1' Check DCGM and system logs for errors. Reset GPU. Restart DCGM. "
        "Rerun diagnostics."
    )
    assert m["warnings"][3]["text"].endswith(
        "Check DCGM and system logs for errors. Reset GPU. Restart DCGM. Rerun diagnostics."
    )


def test_a_run_that_skipped_every_hardware_test_is_skip_not_pass(sample):
    result = dcgm.parse(sample("dcgm_diag/dgx-spark-gb10-dcgm4.4.2-r3-all-skipped.txt"))
    m = result.metrics
    assert m["overall"] == "skip"
    assert m["passed_tests"] == ["software"]
    assert m["skipped_tests"] == [
        "memory",
        "diagnostic",
        "nvbandwidth",
        "pcie",
        "memory_bandwidth",
        "targeted_stress",
        "targeted_power",
    ]
    assert m["dcgm_version"] == "4.4.2"
    assert m["gpu_device_ids"] == ["2e12"]
    assert "every hardware test was skipped: nothing was verified" in result.warnings


def test_dcgm2_level4_all_pass(sample):
    m = dcgm.parse(sample("dcgm_diag/meta-gcm-dcgm2-r4-all-pass-blacklist.txt")).metrics
    assert m["overall"] == "pass"
    assert m["level"] == 4
    assert len(m["passed_tests"]) == 18
    assert "Blacklist" in m["passed_tests"]
    assert "SM Stress" in m["passed_tests"]
    assert m["failed_tests"] == m["skipped_tests"] == m["warned_tests"] == []


def test_snippets_with_a_failed_gpu_and_an_orphan_error(sample):
    result = dcgm.parse(sample("dcgm_diag/mlengineering-r2-r3-fail-snippets.txt"))
    m = result.metrics
    assert m["overall"] == "fail"
    assert m["failed_tests"] == ["GPU Memory"]
    assert m["failed_gpus"] == [0]
    tests = {t["name"]: t for t in m["tests"]}
    assert tests["GPU Memory"]["gpus"] == {
        "0": "fail",
        **{str(g): "pass" for g in range(1, 8)},
    }
    assert m["errors"][0]["text"] == (
        "GPU 3 has uncorrectable memory errors and row remappings are pending"
    )
    assert m["errors"][0]["test"] is None
    assert m["warnings"][0]["text"] == (
        "GPU 0 Thermal violations totaling 13.3 seconds started at 9.7 seconds into the test "
        "for GPU 0 Verify that the cooling on this machine is functional, including external, "
        "thermal material interface, fans, and any other components."
    )
    assert any("an Error row without its test" in w for w in result.warnings)


def test_deployment_failures_with_empty_categories(sample):
    path = "dcgm_diag/slurm-prolog-dcgm2-deployment-fail-empty-categories.txt"
    m = dcgm.parse(sample(path)).metrics
    assert m["overall"] == "fail"
    assert m["failed_tests"] == [
        "Persistence Mode",
        "Environment Variables",
        "Page Retirement",
        "Graphics Processes",
        "Inforom",
    ]
    assert m["level"] is None


def test_level_one_with_only_deployment_checks_is_a_pass():
    text = (
        "$ dcgmi diag -r short\n"
        "|-----  Deployment  --------+------------------------------------------------|\n"
        "| Denylist                  | Pass                                           |\n"
        "| NVML Library              | Pass                                           |\n"
        "+---------------------------+------------------------------------------------+\n"
    )
    m = dcgm.parse(text).metrics
    assert (m["overall"], m["level"]) == ("pass", 1)


def test_warn_results():
    text = (
        "+-----  Hardware  ----------+------------------------------------------------+\n"
        "| GPU Memory                | Pass - All                                     |\n"
        "| Diagnostic                | Warn - GPU: 2                                  |\n"
        "|                           | Pass - GPUs: 0, 1, 3                           |\n"
    )
    m = dcgm.parse(text).metrics
    assert m["overall"] == "warn"
    assert m["warned_tests"] == ["Diagnostic"]
    tests = {t["name"]: t for t in m["tests"]}
    assert tests["Diagnostic"]["gpus"] == {"0": "pass", "1": "pass", "2": "warn", "3": "pass"}


def test_tool_error_without_a_table_is_reported():
    text = "$ dcgmi diag -r 3\nError: unable to establish a connection to the specified host\n"
    with pytest.raises(EvidenceParseError) as caught:
        dcgm.parse(text)
    assert caught.value.line == 2
    assert "unable to establish a connection" in caught.value.reason


def test_whitespace_trimmed_copy_still_joins_text():
    text = (
        "| Persistence Mode | Fail |\n"
        "| Error | Persistence mode for GPU 0 is currently disab |\n"
        "| | led. |\n"
    )
    m = dcgm.parse(text).metrics
    assert m["failed_tests"] == ["Persistence Mode"]
    assert m["errors"][0]["text"].startswith("Persistence mode for GPU 0 is currently disab")


def test_r3_targeted_power_fails_on_one_gpu_with_info_rows(sample):
    result = dcgm.parse(
        sample("dcgm_diag/dcgm-3.3.9-r3-aws-4xa10g-targeted-power-fail-gpu1-info-rows.txt")
    )
    m = result.metrics
    assert (m["overall"], m["failed_tests"], m["failed_gpus"]) == ("fail", ["Targeted Power"], [1])
    assert m["skipped_tests"] == ["EUD Test"]
    assert len(m["passed_tests"]) == 14
    power = next(t for t in m["tests"] if t["name"] == "Targeted Power")
    assert power["category"] == "Stress"
    assert power["gpus"] == {"0": "pass", "1": "fail", "2": "pass", "3": "pass"}
    assert (m["dcgm_version"], m["driver_version"]) == ("3.3.9", "570.195.03")
    assert m["gpu_device_ids"] == ["2237", "2237", "2237", "2237"]
    # The Warning is wrapped every 45 characters mid-word; the Info rows are not warnings.
    assert [w["text"] for w in m["warnings"]] == [
        "GPU 1 Max power of 224.1 did not reach desired power minimum target_power_min_ratio "
        "of 224.2 for GPU 1 Verify that the clock speeds and GPU utilization are high."
    ]
    assert m["errors"] == []


def test_table_cut_before_its_closing_border_is_incomplete_not_pass(sample):
    # Only the Deployment rows survive the cut (all Pass); the failures the thread reports are
    # below it. A cut table proves no pass.
    result = dcgm.parse(sample("dcgm_diag/dcgm-3.3.1-r2-table-cut-after-deployment-rows.txt"))
    m = result.metrics
    assert m["overall"] == "incomplete"
    assert m["level"] == 2
    assert (m["dcgm_version"], m["driver_version"]) == ("3.3.1", "535.129.03")
    assert m["gpu_device_ids"] == ["1eb8"]
    assert len(m["passed_tests"]) == 8 and m["failed_tests"] == []
    assert any("closing border" in w for w in result.warnings)


def test_closed_table_keeps_its_pass(sample):
    text = sample("dcgm_diag/meta-gcm-dcgm2-r4-all-pass-blacklist.txt")
    assert dcgm.parse(text).metrics["overall"] == "pass"
    # The same table with its last rows and border cut off: incomplete.
    cut = "\n".join(text.splitlines()[:-3])
    assert dcgm.parse(cut).metrics["overall"] == "incomplete"


def test_fail_on_all_gpus_names_each_gpu_from_its_warnings(sample) -> None:
    path = "dcgm_diag/nccl-tests-issue264-dcgm3.3.8-r3-h100-gpu-memory-fail-all-cuinit.txt"
    result = dcgm.parse(sample(path))
    m = result.metrics
    assert m["overall"] == "fail"
    assert m["failed_tests"] == ["GPU Memory"]
    assert m["skipped_tests"] == ["PCIe", "Memory Bandwidth", "EUD Test"]
    # "Fail - All" and one Warning per GPU: every GPU 0..7 failed.
    assert m["failed_gpus"] == list(range(8))
    assert [f.value for f in result.facts] == [1.0, 8.0]
    assert len(m["warnings"]) == 8
    assert "system not yet initialized" in m["warnings"][7]["text"]
    assert m["warnings"][7]["text"].startswith("GPU 7 Error using CUDA API cuInit")
    assert (m["level"], m["dcgm_version"], m["driver_version"]) == (3, "3.3.8", "560.35.03")
    assert m["gpu_device_ids"] == ["2330"] * 8


def test_single_plugin_run_has_metadata_rows_without_a_heading(sample) -> None:
    m = dcgm.parse(sample("dcgm_diag/blog-h200-dcgm3.3.9-r-eud-no-headings.txt")).metrics
    assert m["overall"] == "pass"
    assert m["passed_tests"] == ["EUD Test"]  # "EUD Test Version" is metadata, not a test
    assert (m["dcgm_version"], m["driver_version"]) == ("3.3.9", "550.90.07")
    assert m["gpu_device_ids"] == ["2330"] * 8


def test_two_tables_in_one_file_are_flagged(sample) -> None:
    path = "dcgm_diag/slurm-on-aws-dcgm3.3.9-r3-2x-2bb5-two-tables-all-skip.txt"
    result = dcgm.parse(sample(path))
    m = result.metrics
    assert m["overall"] == "skip"
    assert m["failed_tests"] == [] and m["skipped_tests"].count("GPU Memory") == 2
    assert (m["level"], m["dcgm_version"], m["driver_version"]) == (3, "3.3.9", "570.172.08")
    assert m["gpu_device_ids"] == ["2bb5", "2bb5"]
    assert result.warnings == (
        "2 dcgmi diag tables in this file (several runs or nodes): the test lists hold the "
        "tests of every table",
        "every hardware test was skipped: nothing was verified",
    )
