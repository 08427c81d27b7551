"""nvidia-smi -q and --query-gpu CSV parser: ECC layouts, remapped rows, excerpts, CSV forms."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.evidence import nvidia_smi_query
from scoring.evidence.base import EvidenceParseError, ParseResult

SAMPLES = [
    "nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt",
    "nvidia_smi_query/hyperstack-rtx-a4000-vm-q-grep-virtualization.txt",
    "nvidia_smi_query/hyperstack-rtx-a4000-vm-query-gpu-csv-units.txt",
    "nvidia_smi_query/microway-v100-pcie-q-driver410-single-double-bit.txt",
    "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt",
    "nvidia_smi_query/mlengineering-h100-query-gpu-vbios-csv.txt",
]
OTHER_KINDS = [
    "nvidia_smi/quadro-rtx8000-x10-driver470-oldformat.txt",
    "nvidia_smi_nvlink/mlengineering-h100-nvlink-e-and-status.txt",
    "dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt",
    "cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt",
    "nccl_tests/oci-h100-2node-roce-nccl2215.txt",
]


def test_a100_excerpt_with_corrected_ecc_and_pending_row_remap(sample):
    path = "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt"
    result = nvidia_smi_query.parse(sample(path))
    m = result.metrics
    assert m["format"] == "q"
    assert (m["driver_version"], m["cuda_version"]) == ("510.73.08", "11.6")
    assert m["gpu_count"] == 8  # "Attached GPUs : 8" although one block is shown
    assert m["gpus_shown"] == 1
    assert m["product_names"] == ["NVIDIA A100-SXM4-80GB"]
    assert m["bus_ids"] == ["00000000:10:1C.0"]
    assert (m["ecc_volatile_uncorrected"], m["ecc_volatile_corrected"]) == (0, 177)
    assert (m["ecc_aggregate_uncorrected"], m["ecc_aggregate_corrected"]) == (0, 177)
    assert m["retired_pages"] is None  # N/A on A100: row remapping replaced page retirement
    assert m["retired_pages_pending"] is None
    assert m["remapped_rows_pending"] is True
    assert m["remapped_rows_failure"] is False
    assert (m["remapped_rows_correctable"], m["remapped_rows_uncorrectable"]) == (1, 0)
    assert m["memory_total_mib"] == [None]  # cut by "[...]"
    assert "row remapping pending: the GPU needs a reset" in result.warnings
    assert "1 of 8 attached GPUs shown (excerpt or -i filter)" in result.warnings
    assert any(w.startswith("line 8: the output was cut") for w in result.warnings)


def test_old_single_double_bit_layout_bare_metal(sample):
    path = "nvidia_smi_query/microway-v100-pcie-q-driver410-single-double-bit.txt"
    m = nvidia_smi_query.parse(sample(path)).metrics
    assert m["gpu_count"] == 4
    assert m["driver_version"] == "410.48"
    assert m["cuda_version"] is None
    assert m["product_names"] == ["Tesla V100-PCIE-32GB"]
    assert m["memory_total_mib"] == [32480]
    assert m["virtualization_mode"] == ["None"]
    assert m["virtualized"] is False
    assert m["ecc_volatile_uncorrected"] == 0
    assert m["ecc_aggregate_corrected"] == 0
    assert m["retired_pages"] == 0
    assert m["retired_pages_pending"] is False
    assert m["remapped_rows_pending"] is None  # the section does not exist on V100
    assert m["gpus"][0]["ecc_mode"] == "Enabled"


def test_new_sram_dram_layout_in_a_passthrough_vm(sample):
    path = "nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt"
    result = nvidia_smi_query.parse(sample(path))
    m = result.metrics
    assert (m["gpu_count"], m["gpus_shown"]) == (1, 1)
    assert (m["driver_version"], m["cuda_version"]) == ("535.247.01", "12.2")
    assert m["product_names"] == ["NVIDIA A10G"]
    assert m["memory_total_mib"] == [23028]
    assert m["mig_mode"] == [None]
    assert m["virtualization_mode"] == ["Pass-Through"]
    assert m["virtualized"] is True
    # Volatile: all zero. Aggregate: DRAM Correctable 1; the "Aggregate Uncorrectable SRAM
    # Sources" breakdown is not added a second time.
    assert (m["ecc_volatile_uncorrected"], m["ecc_volatile_corrected"]) == (0, 0)
    assert (m["ecc_aggregate_uncorrected"], m["ecc_aggregate_corrected"]) == (0, 1)
    assert m["remapped_rows_pending"] is False
    assert m["remapped_rows_uncorrectable"] == 0
    assert result.warnings == ()
    facts = {f.metric: (f.value, f.line) for f in result.facts}
    assert facts["gpu_count"] == (1.0, 10)
    assert facts["ecc_volatile_uncorrected"] == (0.0, 10)


def test_grep_excerpt_without_gpu_header(sample):
    path = "nvidia_smi_query/hyperstack-rtx-a4000-vm-q-grep-virtualization.txt"
    result = nvidia_smi_query.parse(sample(path))
    m = result.metrics
    assert m["gpu_count"] is None
    assert m["virtualization_mode"] == ["Pass-Through"]
    assert m["virtualized"] is True
    assert "the excerpt does not say how many GPUs there are" in result.warnings


def test_csv_with_units_and_echoed_command(sample):
    path = "nvidia_smi_query/hyperstack-rtx-a4000-vm-query-gpu-csv-units.txt"
    m = nvidia_smi_query.parse(sample(path)).metrics
    assert m["format"] == "csv"
    assert m["gpu_count"] == 1
    assert m["product_names"] == ["NVIDIA RTX A4000"]
    assert m["memory_total_mib"] == [15352]
    assert m["driver_version"] == "535.183.06"


def test_csv_excerpt_counts_only_the_rows_shown(sample):
    path = "nvidia_smi_query/mlengineering-h100-query-gpu-vbios-csv.txt"
    result = nvidia_smi_query.parse(sample(path))
    m = result.metrics
    assert m["gpu_count"] == 2
    assert m["bus_ids"] == ["00000000:04:00.0", "00000000:8B:00.0"]
    assert m["product_names"] == ["NVIDIA H100 80GB HBM3"] * 2
    assert "rows hidden by the excerpt: gpu_count counts only the rows shown" in result.warnings


def test_csv_noheader_nounits_named_by_the_command_line():
    text = (
        "$ nvidia-smi --query-gpu=index,gpu_name,memory.total,ecc.errors.uncorrected.volatile"
        ".total,remapped_rows.pending,mig.mode.current --format=csv,noheader,nounits\n"
        "0, NVIDIA H100 80GB HBM3, 81559, 0, No, Disabled\n"
        "1, NVIDIA H100 80GB HBM3, 81559, 2, Yes, Disabled\n"
    )
    result = nvidia_smi_query.parse(text)
    m = result.metrics
    assert m["gpu_count"] == 2
    assert m["memory_total_mib"] == [81559, 81559]
    assert m["ecc_volatile_uncorrected"] == 2
    assert m["remapped_rows_pending"] is True
    assert m["mig_mode"] == ["Disabled", "Disabled"]
    assert "uncorrectable ECC errors reported" in result.warnings


def test_csv_without_header_or_command_keeps_count_and_names():
    result = nvidia_smi_query.parse("NVIDIA A100-SXM4-80GB, 81920\nNVIDIA A100-SXM4-80GB, 81920\n")
    assert result.metrics["gpu_count"] == 2
    assert result.metrics["product_names"] == ["NVIDIA A100-SXM4-80GB"] * 2
    assert any("columns unknown" in w for w in result.warnings)


def test_csv_not_supported_values_are_none():
    text = "name, retired_pages.pending, remapped_rows.failure\nTesla T4, [N/A], [Not Supported]\n"
    m = nvidia_smi_query.parse(text).metrics
    assert (m["retired_pages_pending"], m["remapped_rows_failure"]) == (None, None)


def test_several_gpus_are_summed():
    block = (
        "GPU 00000000:{bus}.0\n"
        "    Product Name                          : NVIDIA H100 80GB HBM3\n"
        "    ECC Errors\n"
        "        Volatile\n"
        "            SRAM Correctable              : 0\n"
        "            SRAM Uncorrectable Parity     : {parity}\n"
        "            SRAM Uncorrectable SEC-DED    : 0\n"
        "            DRAM Correctable              : 3\n"
        "            DRAM Uncorrectable            : {dram}\n"
        "    Remapped Rows\n"
        "        Pending                           : {pending}\n"
    )
    text = (
        "Attached GPUs                             : 2\n"
        + block.format(bus="18:00", parity=0, dram=1, pending="No")
        + block.format(bus="2A:00", parity=2, dram=0, pending="Yes")
    )
    m = nvidia_smi_query.parse(text).metrics
    assert m["gpu_count"] == 2
    assert m["bus_ids"] == ["00000000:18:00.0", "00000000:2A:00.0"]
    assert m["ecc_volatile_uncorrected"] == 3
    assert m["ecc_volatile_corrected"] == 6
    assert m["remapped_rows_pending"] is True


@pytest.mark.parametrize("text", ["", "hello\n", "\x00\x01", "Timestamp\n"])
def test_nothing_recognisable_is_an_error(text):
    with pytest.raises(EvidenceParseError, match=r"no nvidia-smi -q values found"):
        nvidia_smi_query.parse(text)


def test_csv_header_without_rows_is_an_error():
    with pytest.raises(EvidenceParseError, match="no --query-gpu CSV rows found"):
        nvidia_smi_query.parse("name, pci.bus_id, memory.total [MiB]\n")


@pytest.mark.parametrize("path", OTHER_KINDS)
def test_other_tools_are_rejected_or_scored_low(sample, path):
    assert nvidia_smi_query.detect(sample(path)) < 30


@pytest.mark.parametrize("path", SAMPLES)
def test_every_sample_is_detected(sample, path):
    assert nvidia_smi_query.detect(sample(path)) > 0


@pytest.mark.parametrize("path", SAMPLES)
def test_registry_detects_every_sample_as_query(sample, path):
    registry = pytest.importorskip("scoring.evidence.registry")
    assert registry.detect_kind(sample(path)) == "nvidia_smi_query"


def _check(text: str) -> None:
    assert 0 <= nvidia_smi_query.detect(text) <= 100
    try:
        result = nvidia_smi_query.parse(text)
    except EvidenceParseError as exc:
        assert exc.kind == "nvidia_smi_query"
        return
    assert isinstance(result, ParseResult)
    json.dumps(result.metrics, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_fuzz_random_text(text):
    _check(text)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(SAMPLES),
    st.lists(
        st.tuples(st.integers(0, 10**5), st.integers(0, 30), st.text(max_size=10)), max_size=6
    ),
)
def test_fuzz_mutated_samples(sample, path, edits):
    text = sample(path)
    for position, width, insert in edits:
        position %= len(text) + 1
        text = text[:position] + insert + text[position + width :]
    _check(text)


@pytest.mark.parametrize("piece", [" ", "\n", "1", "    a ", ":", "a,", "GPU 0:1:0\n", "  x :"])
def test_pathological_long_lines_stay_fast(piece):
    started = time.perf_counter()
    _check(piece * (300000 // len(piece)))
    assert time.perf_counter() - started < 5
