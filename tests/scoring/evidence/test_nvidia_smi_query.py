"""nvidia-smi -q and --query-gpu CSV parser: ECC layouts, remapped rows, excerpts, CSV forms."""

from __future__ import annotations

import pytest

from scoring.evidence import nvidia_smi_query
from scoring.evidence.base import EvidenceParseError


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
    assert m["gpu_count_partial"] == "excerpt"  # a lower bound, not the node's count


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


def test_csv_header_without_rows_is_an_error():
    with pytest.raises(EvidenceParseError, match="no --query-gpu CSV rows found"):
        nvidia_smi_query.parse("name, pci.bus_id, memory.total [MiB]\n")


def test_h200_passthrough_vm_full_q_driver550(sample):
    result = nvidia_smi_query.parse(sample("nvidia_smi_query/h200-vm-passthrough-driver550-q.txt"))
    m = result.metrics
    assert (m["format"], m["gpu_count"], m["gpus_shown"]) == ("q", 1, 1)
    assert (m["driver_version"], m["cuda_version"]) == ("550.90.12", "12.4")
    assert m["product_names"] == ["NVIDIA H200"]
    assert m["memory_total_mib"] == [143771]
    assert (m["virtualization_mode"], m["virtualized"]) == (["Pass-Through"], True)
    assert m["mig_mode"] == ["Disabled"]
    assert (m["ecc_volatile_uncorrected"], m["ecc_aggregate_corrected"]) == (0, 0)
    assert (m["remapped_rows_pending"], m["remapped_rows_failure"]) == (False, False)
    assert m["retired_pages"] is None
    assert result.warnings == ()


def test_mig_device_memory_does_not_shadow_the_gpu_memory(sample):
    m = nvidia_smi_query.parse(
        sample("nvidia_smi_query/rtxpro6000-blackwell-mig-q-trimmed.txt")
    ).metrics
    assert m["product_names"] == ["NVIDIA RTX PRO 6000 Blackwell Server Edition"]
    assert m["memory_total_mib"] == [97887]  # not the MIG device's 23680
    assert m["mig_mode"] == ["Enabled"]
    assert m["bus_ids"] == ["00000001:04:00.0"]
    assert (m["gpu_count"], m["driver_version"]) == (1, None)


def test_driver_section_before_the_gpus_is_no_gpu(sample):
    # "vGPU Driver Capability" and its indented line come before "Attached GPUs".
    result = nvidia_smi_query.parse(
        sample("nvidia_smi_query/h100nvl-vm-q-vgpu-capability-mig-enabled-cut.txt")
    )
    m = result.metrics
    assert (m["gpu_count"], m["gpus_shown"]) == (1, 1)
    assert m["product_names"] == ["NVIDIA H100 NVL"]
    assert m["mig_mode"] == ["Enabled"]
    assert m["driver_version"] == "550.127.06"
    assert m["cuda_version"] is None  # "Not Found"
    assert result.warnings == ()


def test_full_q_of_an_ada_gpu_driver550(sample):
    m = nvidia_smi_query.parse(
        sample("nvidia_smi_query/thamada-l40s-driver550-q-ada-full.txt")
    ).metrics
    assert m["format"] == "q"
    assert (m["driver_version"], m["cuda_version"]) == ("550.127.05", "12.4")
    assert (m["gpu_count"], m["gpus_shown"]) == (1, 1)
    assert m["product_names"] == ["NVIDIA L40S"]
    assert m["memory_total_mib"] == [46068]
    assert m["mig_mode"] == [None]
    assert (m["virtualization_mode"], m["virtualized"]) == (["None"], False)
    assert m["bus_ids"] == ["00000000:A1:00.0"]
    assert (m["ecc_volatile_uncorrected"], m["ecc_aggregate_corrected"]) == (0, 0)
    assert m["retired_pages"] is None
    assert (m["remapped_rows_pending"], m["remapped_rows_failure"]) == (False, False)


# "GPU Link Info / Link Width" of each real -q sample that prints it: (max, current, line of
# Current), read from the files. The link generation beside it is not read.
@pytest.mark.parametrize(
    ("path", "widest", "current", "line"),
    [
        ("aws-a10g-vm-q-driver535-passthrough.txt", 16, 8, 72),
        ("kr-isaac-notes-rtx5080-laptop-blackwell-q-driver580-unrepairable-na-remapped-na.txt",
         16, 8, 81),
        ("gcp-a3-h100-vm-pod-q-passthrough-driver535.txt", 16, 16, 72),
        ("h200-vm-passthrough-driver550-q.txt", 16, 16, 75),
        ("microway-v100-pcie-q-driver410-single-double-bit.txt", 16, 16, 49),
        ("nix-notes-rtx3090ti-vm-q-driver580-channel-tpc-repair-no-without-unrepairable-row.txt",
         16, 16, 81),
        ("thamada-l40s-driver550-q-ada-full.txt", 16, 16, 75),
    ],
)  # fmt: skip
def test_pcie_link_width_from_q(sample, path, widest, current, line):
    m = nvidia_smi_query.parse(sample(f"nvidia_smi_query/{path}")).metrics
    assert (m["pcie_link_width_max"], m["pcie_link_width_current"]) == ([widest], [current])
    assert m["gpus"][0]["pcie_link_width_line"] == line


def test_pcie_link_width_absent_from_an_excerpt_is_none(sample):
    path = "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt"
    m = nvidia_smi_query.parse(sample(path)).metrics
    assert (m["pcie_link_width_max"], m["pcie_link_width_current"]) == ([None], [None])


def test_pcie_link_width_of_a_gpu_trained_at_x8(sample):
    # A variant of thamada-l40s-driver550-q-ada-full.txt: its "Link Width / Current : 16x"
    # changed to 8x, as nvidia-smi prints a GPU whose link trained narrower.
    text = sample("nvidia_smi_query/thamada-l40s-driver550-q-ada-full.txt")
    narrow = text.replace(
        "            Link Width\n                Max                       : 16x\n"
        "                Current                   : 16x",
        "            Link Width\n                Max                       : 16x\n"
        "                Current                   : 8x",
    )
    assert narrow != text
    m = nvidia_smi_query.parse(narrow).metrics
    assert (m["pcie_link_width_max"], m["pcie_link_width_current"]) == ([16], [8])


def test_pcie_link_width_from_query_gpu_csv():
    # The pcie.link fields as `nvidia-smi --help-query-gpu` names them, CSV without units;
    # "[N/A]" where the driver cannot read the link.
    text = (
        "$ nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,"
        "pcie.link.width.current,pcie.link.width.max --format=csv,noheader\n"
        "0, 00000000:18:00.0, 1, 5, 16, 16\n"
        "1, 00000000:2A:00.0, 1, 5, 8, 16\n"
        "2, 00000000:3A:00.0, [N/A], [N/A], [N/A], [N/A]\n"
    )
    m = nvidia_smi_query.parse(text).metrics
    assert m["format"] == "csv"
    assert m["pcie_link_width_current"] == [16, 8, None]
    assert m["pcie_link_width_max"] == [16, 16, None]
    assert [g["pcie_link_width_line"] for g in m["gpus"]] == [2, 3, None]


def test_multigpu_board_and_board_id_from_q(sample):
    path = "nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt"
    (gpu,) = nvidia_smi_query.parse(sample(path)).metrics["gpus"]
    assert (gpu["multigpu_board"], gpu["board_id"]) == (False, "0x1e")
    # An excerpt without the rows: unknown.
    excerpt = "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt"
    (gpu,) = nvidia_smi_query.parse(sample(excerpt)).metrics["gpus"]
    assert (gpu["multigpu_board"], gpu["board_id"]) == (None, None)


# A document about the tools (the portal's own README, uploaded by a new user) quotes the
# command: its prose lines, split at their commas, were read as 937 GPUs of no name, enough to
# meet a GPU-count claim.
DOCUMENT = """# Collecting evidence

Run `nvidia-smi --query-gpu=name,pci.bus_id,memory.total --format=csv` on each node, then
upload the file. The collector does this for you, with nvidia-smi -q, topo -m and ibstat.
It keeps the outputs in one bundle, names each file by its command, and sends it.
Procurement, engineers and managers read the result on the candidate page.
"""


def test_a_document_quoting_the_command_has_no_gpus():
    assert nvidia_smi_query.detect(DOCUMENT) >= 50  # it does name the command
    with pytest.raises(EvidenceParseError) as refused:
        nvidia_smi_query.parse(DOCUMENT)
    assert refused.value.code == "nvidia_smi_query.no_csv_rows"


def test_the_rows_under_a_quoted_command_are_still_read():
    rows = [f"NVIDIA H100 80GB HBM3, 00000000:{bus}:00.0, 81559 MiB\n" for bus in ("18", "2A")]
    text = DOCUMENT + "".join(rows)
    metrics = nvidia_smi_query.parse(text).metrics
    assert metrics["gpu_count"] == 2
    assert metrics["gpus"][0]["memory_total_mib"] == 81559
