"""Huawei Ascend npu-smi: the device table, -t health and -t ecc, from real outputs (figures read
by hand from each file; provenance in samples/PROVENANCE.tsv) and malformed input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scoring.evidence import npu_smi, registry
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]

COLLECTION = (
    "npu_smi/mindcluster-faultdiag-npu-info-before-23.0.5-table-health-ecc-board-usages-elided.txt"
)
HEALTH_ONLY = "npu_smi/mindcluster-faultdiag-npu-smi-t-health-chip-leading-space-no-ids.txt"
ECC_910 = "npu_smi/mindcluster-faultdiag-npu-smi-t-ecc-npu1-ddr-hbm-chip-count.txt"
ECC_950 = "npu_smi/ascend-npu-smi-doc-atlas350-t-ecc-i0-hbm-next-isolated-tab-indented.txt"
ONE_PANEL = "npu_smi/1panel-issue9472-npu-smi-24.1.1-info-prompt-910b4-32g-cut-in-border.txt"
A3_WIDE = "npu_smi/vllm-ascend-issue12980-npu-smi-26.0.rc2-wide-a3-head-two-chips-cut.txt"
A3_TAIL = (
    "npu_smi/vllm-ascend-issue12980-npu-smi-26.0.rc2-wide-a3-tail-no-heads-processes-container-"
    "column-cut.txt"
)
B3_CUT = "npu_smi/vllm-ascend-issue1130-npu-smi-info-no-banner-910b3-cut-in-npu3-row.txt"
A3_UCM = "npu_smi/modelengine-ucm-issue748-npu-smi-25.2.1-a3-no-top-border-cut.txt"
MASKED = (
    "npu_smi/hami-webui-issue47-npu-smi-25.2.0-info-2x-910b4-1-bus-id-masked-bottom-border-"
    "missing.txt"
)
NPU7 = "npu_smi/mindcluster-faultdiag-npu-smi-24.1.rc1-info-npu7-only-elided-processes.txt"
COMPLETE_8 = "npu_smi/kata-ascend-npu-doc-npu-smi-23.0.rc3-info-8x-910b4-32g-complete-prompt.txt"

EXPECTED: list[tuple[str, dict[str, Any]]] = [
    (
        COLLECTION,
        {
            "npu_smi_version": "23.0.5",
            "npu_count": 2,
            "chip_count": 2,
            "device_count_partial": "excerpt",  # rows elided with "..."
            "npu_names": ["xxx"],
            "worst_health": "OK",
            "ecc_volatile_uncorrected": [0],
            "ecc_volatile_uncorrected_total": 0,
            "ecc_aggregate_uncorrected_total": 0,
        },
    ),
    (
        HEALTH_ONLY,
        {
            "npu_count": None,
            "worst_health": "OK",
            "health_checks": [
                {"npu": None, "chip": None, "health": "OK", "error_codes": [], "error_info": []}
            ],
            "ecc_volatile_uncorrected_total": None,
        },
    ),
    (ECC_910, {"npu_count": None, "worst_health": None, "ecc_volatile_uncorrected": [0]}),
    (ECC_950, {"ecc_volatile_uncorrected_total": 0, "ecc_aggregate_uncorrected_total": 0}),
    (
        ONE_PANEL,
        {
            "npu_smi_version": "24.1.1",
            "npu_count": 2,
            "chip_count": 2,
            "device_count_partial": "cut",  # ends inside the border after NPU 1
            "npu_names": ["910B4"],
        },
    ),
    (
        A3_WIDE,
        {
            "npu_smi_version": "26.0.rc2",
            "npu_count": 1,
            "chip_count": 2,
            "device_count_partial": "cut",
            "npu_names": ["Ascend910"],
        },
    ),
    (A3_TAIL, {"npu_count": 1, "chip_count": 1, "device_count_partial": "excerpt"}),
    (B3_CUT, {"npu_smi_version": None, "npu_count": 4, "device_count_partial": "cut"}),
    (A3_UCM, {"npu_smi_version": "25.2.1", "npu_count": 2, "chip_count": 3}),
    (MASKED, {"npu_smi_version": "25.2.0", "npu_count": 2, "npu_names": ["910B4-1"]}),
    (NPU7, {"npu_smi_version": "24.1.rc1", "npu_count": 1, "device_count_partial": "excerpt"}),
    # The whole table of an 8-NPU host after its prompt: a count item 1 can verify.
    (
        COMPLETE_8,
        {
            "npu_smi_version": "23.0.rc3",
            "npu_count": 8,
            "chip_count": 8,
            "device_count_partial": None,
            "npu_names": ["910B4"],
            "worst_health": "OK",
        },
    ),
]


@pytest.mark.parametrize(("path", "expected"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_real_outputs_yield_their_figures(
    sample: Sample, path: str, expected: dict[str, Any]
) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == "npu_smi"
    metrics = registry.parse_text(text).metrics
    assert {key: metrics[key] for key in expected} == expected


def test_the_chips_of_a_table_are_read_cell_by_cell(sample: Sample) -> None:
    chips = npu_smi.parse(sample(A3_UCM)).metrics["chips"]
    assert chips[1] == {
        "npu": 0,
        "chip": 1,
        "phy_id": 1,
        "name": "Ascend910",
        "health": "OK",
        "bus_id": "0000:9F:00.0",
        "power_w": None,  # "-": the card's second chip reports no power of its own
        "temperature_c": 37.0,
        "hbm_used_mb": 2886,
        "hbm_total_mb": 65536,
    }
    # "26838/ 32768": no blank before the slash.
    panel = npu_smi.parse(sample(ONE_PANEL)).metrics["chips"]
    assert [(c["hbm_used_mb"], c["hbm_total_mb"], c["bus_id"]) for c in panel] == [
        (26838, 32768, "0000:C1:00.0"),
        (29356, 32768, "0000:C2:00.0"),
    ]


def test_a_collection_file_names_the_devices_its_command_lines_name(sample: Sample) -> None:
    metrics = npu_smi.parse(sample(COLLECTION)).metrics
    assert [(c["npu"], c["chip"], c["health"]) for c in metrics["health_checks"]] == [
        (0, 0, "OK"),
        (0, 0, "OK"),
    ]
    (ecc,) = metrics["ecc"]
    assert (ecc["npu"], ecc["chip"]) == (0, 0)
    assert ecc["hbm_double_bit_errors"] == 0 and ecc["ddr_double_bit_isolated_pages"] == 0
    # The board and usages outputs are read past, not taken for ECC counts.
    assert set(ecc) == {"npu", "chip"} | {
        f"{memory}_{bits}_bit_{what}"
        for memory in ("ddr", "hbm")
        for bits in ("single", "double")
        for what in ("errors", "total", "isolated_pages")
    }
    facts = {f.metric: f.value for f in npu_smi.parse(sample(COLLECTION)).facts}
    assert facts == {"npu_count": 2.0, "chip_count": 2.0, "ecc_volatile_uncorrected_total": 0}


def _with_health(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("state", ["Warning", "Alarm", "Critical"])
def test_an_unhealthy_chip_is_named(sample: Sample, state: str) -> None:
    # The states npu-smi's source treats as unhealthy (is_unhealthy_state), in a real table.
    row = "| 1     910B4               | OK     "
    text = _with_health(sample(ONE_PANEL), row, row.replace("OK     ", f"{state:<7}"))
    result = npu_smi.parse(text)
    assert result.metrics["worst_health"] == state
    assert result.metrics["unhealthy_devices"] == [
        {"npu": 1, "chip": 0, "health": state, "source": "table"}
    ]
    assert f"NPU 1 chip 0: health {state}" in result.warnings


def test_a_health_output_with_error_codes_is_the_worse_of_the_two(sample: Sample) -> None:
    # npu-smi prints each code as %04X after "Error Code :" and the information after it.
    text = sample(COLLECTION).replace(
        "Health Status                  : OK\nError Code                     : NA\n"
        "Error Information              : NA",
        "Health Status                  : Alarm\nError Code                     : 80E18402\n"
        "Error Information              : node type=HBM",
        1,
    )
    metrics = npu_smi.parse(text).metrics
    assert metrics["health_checks"][0] == {
        "npu": 0,
        "chip": 0,
        "health": "Alarm",
        "error_codes": ["80E18402"],
        "error_info": ["node type=HBM"],
    }
    # The table says OK for NPU 0 chip 0; the health output's Alarm is the device's state.
    assert {(d["npu"], d["chip"]): d["health"] for d in metrics["health_by_device"]} == {
        (0, 0): "Alarm",
        (7, 0): "OK",
    }


def test_uncorrectable_errors_are_the_current_double_bit_counts(sample: Sample) -> None:
    text = (
        sample(ECC_910)
        .replace("HBM Double Bit Error Count               : 0", "HBM Double Bit Error Count  : 2")
        .replace(
            "DDR Double Bit Aggregate Total Err Cnt   : 0",
            "DDR Double Bit Aggregate Total Err Cnt   : 5",
        )
    )
    metrics = npu_smi.parse(text).metrics
    assert metrics["ecc_volatile_uncorrected"] == [2]
    assert metrics["ecc_aggregate_uncorrected_total"] == 5


@pytest.mark.parametrize(
    "text",
    [
        "",
        "npu-smi info\n",
        "+------+\n| NPU |\n+------+\n",
        "Health Status : OK\n",  # no Error Code line: not an -t health output
        "\x00\x01\x02garbage",
    ],
)
def test_malformed_input_gives_a_clear_error(text: str) -> None:
    with pytest.raises(EvidenceParseError) as caught:
        registry.parse_text(text, "npu_smi")
    assert caught.value.code in ("npu_smi.nothing", "file.empty")


def test_truncated_table_lines_are_warned_about_not_fatal(sample: Sample) -> None:
    lines = sample(B3_CUT).splitlines()
    result = npu_smi.parse("\n".join([*lines[:6], "| 2     910B3   |"]))
    assert (result.metrics["npu_count"], result.metrics["device_count_partial"]) == (1, "cut")
    assert any("cut short" in warning for warning in result.warnings)


def test_counts_printed_again_under_one_npu_id_are_not_dropped(sample: Sample) -> None:
    # No real output of a two-chip NPU's -t ecc was found: were the counts printed twice under
    # one "NPU ID", the second set is kept as its own entry rather than read past.
    lines = sample(ECC_910).splitlines()
    counts = [line for line in lines if line.startswith(("DDR ", "HBM "))]
    doubled = [
        line.replace(": 0", ": 4") if "HBM Double Bit Error" in line else line for line in counts
    ]
    metrics = npu_smi.parse("\n".join([*lines, *doubled])).metrics
    assert metrics["ecc_volatile_uncorrected"] == [0, 4]
    assert metrics["ecc_volatile_uncorrected_total"] == 4
