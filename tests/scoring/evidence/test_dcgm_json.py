"""``dcgmi diag -j``: the JSON form of the DCGM diagnostic (DCGM 3.x and 4.x layouts)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from scoring.evidence import dcgm, registry
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]


def test_dcgm_3_json_with_nulls_and_a_warning_line(sample: Sample) -> None:
    text = sample("dcgm_diag/dcgm-3.1.0-json-8gpu-pass-nulls-warning-line.txt")
    assert registry.detect_kind(text) == "dcgm_diag"
    metrics = dcgm.parse(text).metrics
    assert metrics["format"] == "json"
    assert metrics["overall"] == "pass"
    assert metrics["dcgm_version"] == "3.1.0"
    assert len(metrics["passed_tests"]) == 10
    assert metrics["tests"][0] == {
        "name": "Denylist",
        "category": "Deployment",
        "status": "pass",
        "gpus": {},
        "line": 2,
    }
    assert metrics["tests"][-1]["gpus"] == {str(g): "pass" for g in range(8)}


def _v4(memory_status: str) -> str:
    # DCGM 4.x layout: "DCGM Diagnostic" root, per-entity results and a per-test summary.
    return json.dumps(
        {
            "DCGM Diagnostic": {
                "tests": [
                    {
                        "name": "software",
                        "results": [{"entity_group": "GPU", "entity_id": 0, "status": "Pass"}],
                        "test_summary": {"status": "Pass"},
                    },
                    {
                        "name": "memory",
                        "results": [
                            {"entity_group": "GPU", "entity_id": 0, "status": "Pass"},
                            {
                                "entity_group": "GPU",
                                "entity_id": 1,
                                "status": memory_status,
                                "warnings": [{"warning": "GPU 1 has uncorrectable memory errors"}],
                            },
                        ],
                        "test_summary": {"status": memory_status},
                    },
                ],
                "metadata": {"DCGM Version": "4.2.3", "Driver Version Detected": "570.124.06"},
            }
        },
        indent=4,
    )


def test_dcgm_4_json_failure_names_the_gpu() -> None:
    metrics = dcgm.parse(_v4("Fail")).metrics
    assert metrics["overall"] == "fail"
    assert metrics["failed_tests"] == ["memory"]
    assert metrics["failed_gpus"] == [1]
    assert metrics["errors"][0]["text"] == "GPU 1 has uncorrectable memory errors"
    assert (metrics["dcgm_version"], metrics["driver_version"]) == ("4.2.3", "570.124.06")


def test_dcgm_4_json_pass() -> None:
    assert dcgm.parse(_v4("Pass")).metrics["overall"] == "pass"


def test_json_without_tests_is_an_error() -> None:
    with pytest.raises(EvidenceParseError, match="without any test result"):
        dcgm.parse('{"DCGM GPU Diagnostic": {"version": "4.2.3"}}')


def test_truncated_json_keeps_the_tests_it_shows_and_is_never_a_pass(sample: Sample) -> None:
    text = sample("dcgm_diag/dcgm-3.1.0-json-8gpu-pass-nulls-warning-line.txt")
    metrics = dcgm.parse(text[: len(text) // 2]).metrics
    # Every test shown passed, but the cut may hide a failure: incomplete, not pass.
    assert metrics["overall"] == "incomplete"
    assert metrics["format"] == "json"
    assert metrics["passed_tests"][:3] == ["Denylist", "NVML Library", "CUDA Main Library"]
    assert metrics["failed_tests"] == []


def test_json_shortened_by_hand_with_a_placeholder_is_read_test_by_test(sample: Sample) -> None:
    # The reporter replaced the Deployment category by {"..."} and the paste is cut.
    text = sample("dcgm_diag/dcgm-issue139-json-r3-t400-elided-category-cut.txt")
    assert registry.detect_kind(text) == "dcgm_diag"
    metrics = dcgm.parse(text).metrics
    assert metrics["overall"] == "incomplete"
    assert metrics["skipped_tests"] == [
        "PCIe", "GPU Memory", "Diagnostic", "EUD Test", "Targeted Stress"
    ]  # fmt: skip
    assert metrics["tests"][0]["category"] == "Integration"
    assert metrics["tests"][0]["gpus"] == {"0": "skip"}


def test_a_json_fragment_without_any_status_is_still_refused() -> None:
    with pytest.raises(EvidenceParseError):
        dcgm.parse('{"DCGM GPU Diagnostic" : {"test_categories" : [{"category" : "Deplo')


def test_dcgm4_json_fail_with_metadata_beside_the_diagnostic(sample: Callable[[str], str]) -> None:
    text = sample("dcgm_diag/dcgm-4.2.3-json-gb10-r1-software-fail-persistence.txt")
    assert registry.detect_kind(text) == "dcgm_diag"
    result = dcgm.parse(text)
    m = result.metrics
    assert (m["format"], m["overall"]) == ("json", "fail")
    assert (m["failed_tests"], m["failed_gpus"]) == (["software"], [0])
    assert m["tests"][0]["category"] == "Deployment"
    assert m["tests"][0]["gpus"] == {"0": "fail"}
    # "metadata" and "entity_groups" sit next to "DCGM Diagnostic", not inside it.
    assert (m["dcgm_version"], m["driver_version"]) == ("4.2.3", "580.82.09")
    assert m["gpu_device_ids"] == ["2e12"]
    assert len(m["errors"]) == 1
    assert m["errors"][0]["test"] == "software"
    assert m["errors"][0]["text"].startswith("Persistence Mode: Persistence mode for GPU 0")
    assert '"nvidia-smi -i <gpuId> -pm 1 "' in m["errors"][0]["text"]
    facts = {f.metric: f.value for f in result.facts}
    assert facts == {"dcgm_failed_tests": 1.0, "dcgm_failed_gpus": 1.0}


def test_dcgm4_entity_groups_give_the_device_ids_in_order() -> None:
    doc = {
        "DCGM Diagnostic": {
            "test_categories": [
                {
                    "category": "Hardware",
                    "tests": [{"name": "memory", "results": [{"entity_id": 1, "status": "Pass"}]}],
                }
            ]
        },
        "entity_groups": [
            {"entity_group": "CPU", "entities": [{"device_id": "cpu0", "entity_id": 0}]},
            {
                "entity_group": "GPU",
                "entities": [
                    {"device_id": "2330", "entity_id": 0},
                    {"device_id": "2330", "entity_id": 1},
                    {"device_id": "26b9", "entity_id": 2},
                ],
            },
        ],
    }
    m = dcgm.parse(json.dumps(doc)).metrics
    assert m["gpu_device_ids"] == ["2330", "26b9"]
    assert m["overall"] == "pass"
