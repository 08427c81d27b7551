"""``nvidia-smi -q -x``: the XML report, read with defusedxml-like care (stdlib only)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import nvidia_smi_xml, registry
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]
QUADRO = "nvidia_smi_xml/csharp-monitor-quadro-p620-driver515-gpu-block-duplicated.xml.txt"
L4_CUT = "nvidia_smi_xml/go-exporter-2x-l4-driver555-cut-after-remapped-rows.xml.txt"


def test_reduced_report_with_an_author_duplicated_gpu(sample: Sample) -> None:
    text = sample(QUADRO)
    assert registry.detect_kind(text) == "nvidia_smi_xml"
    result = nvidia_smi_xml.parse(text)
    metrics = result.metrics
    assert (metrics["driver_version"], metrics["cuda_version"]) == ("515.65.01", "11.7")
    assert metrics["dtd"] == "nvsmi_device_v11.dtd"
    assert metrics["gpu_count"] == 2
    assert metrics["memory_total_mib"] == [2048, 2048]
    assert metrics["bus_ids"] == ["00000000:01:00.0", "00000000:02:00.0"]
    assert metrics["duplicate_uuids"] == ["GPU-31296037-cc98-cba3-11c0-26666ebb762c"]
    assert [g["temperature_c"] for g in metrics["gpus"]] == [33, 83]
    assert "attached_gpus says 1 but 2 complete <gpu> elements" in result.warnings


def test_cut_report_keeps_what_is_complete(sample: Sample) -> None:
    result = nvidia_smi_xml.parse(sample(L4_CUT))
    metrics = result.metrics
    assert (metrics["driver_version"], metrics["attached_gpus"], metrics["gpu_count"]) == (
        "555.42.06",
        2,
        0,
    )
    assert any("cut or broken" in w for w in result.warnings)


def test_gpu_fields_of_the_l4_once_its_elements_are_closed(sample: Sample) -> None:
    closed = sample(L4_CUT) + "        </temperature>\n    </gpu>\n</nvidia_smi_log>\n"
    result = nvidia_smi_xml.parse(closed)
    gpu = result.metrics["gpus"][0]
    assert gpu["name"] == "NVIDIA L4"
    assert gpu["uuid"] == "GPU-c5533cd4-5a60-059e-348d-b6d7466932e4"
    assert (gpu["memory_total_mib"], gpu["virtualization_mode"], gpu["ecc_mode"]) == (
        23034,
        "None",
        "Enabled",
    )
    assert (gpu["ecc_uncorrected_volatile"], gpu["ecc_uncorrected_aggregate"]) == (0, 0)
    assert (gpu["remapped_rows_pending"], gpu["temperature_c"]) == (False, 45)
    assert "attached_gpus says 2 but 1 complete <gpu> elements" in result.warnings


@pytest.mark.parametrize(
    "evil",
    [
        # billion laughs
        '<?xml version="1.0"?><!DOCTYPE nvidia_smi_log [<!ENTITY a "aaaa">'
        '<!ENTITY b "&a;&a;&a;&a;">]><nvidia_smi_log><driver_version>&b;</driver_version>'
        "</nvidia_smi_log>",
        # external entity
        '<?xml version="1.0"?><!DOCTYPE nvidia_smi_log [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        "<nvidia_smi_log><driver_version>&x;</driver_version></nvidia_smi_log>",
        # internal subset without entities
        '<?xml version="1.0"?><!DOCTYPE nvidia_smi_log [<!ELEMENT a ANY>]><nvidia_smi_log/>',
        # someone else's DOCTYPE
        '<?xml version="1.0"?><!DOCTYPE html SYSTEM "x.dtd"><nvidia_smi_log/>',
    ],
)
def test_dtd_tricks_are_refused(evil: str) -> None:
    with pytest.raises(EvidenceParseError) as caught:
        nvidia_smi_xml.parse(evil)
    assert caught.value.kind == "nvidia_smi_xml"


def test_not_xml_is_refused() -> None:
    with pytest.raises(EvidenceParseError, match="no <nvidia_smi_log>"):
        nvidia_smi_xml.parse("GPU 0: NVIDIA L4 (UUID: GPU-1)\n")


TELEGRAF_A100 = "nvidia_smi_xml/telegraf-a100-sxm4-80gb-mig-driver535-v12.xml.txt"
MARKDOWN_GTX1070 = "nvidia_smi_xml/markdown-gtx1070-driver418-v10-fenced.xml.txt"


def test_a100_with_mig_on_and_fewer_gpus_than_attached(sample: Sample) -> None:
    result = nvidia_smi_xml.parse(sample(TELEGRAF_A100))
    metrics = result.metrics
    assert (metrics["driver_version"], metrics["cuda_version"], metrics["dtd"]) == (
        "535.54.03",
        "12.2",
        "nvsmi_device_v12.dtd",
    )
    assert (metrics["attached_gpus"], metrics["gpu_count"]) == (4, 1)
    assert result.warnings == ("attached_gpus says 4 but 1 complete <gpu> elements",)
    (gpu,) = metrics["gpus"]
    assert (gpu["name"], gpu["memory_total_mib"], gpu["mig_mode"]) == (
        "NVIDIA A100-SXM4-80GB",
        81920,  # the GPU's own fb_memory_usage, not a MIG device's 19968 MiB
        "Enabled",
    )
    assert (gpu["ecc_mode"], gpu["ecc_uncorrected_volatile"], gpu["virtualization_mode"]) == (
        "Enabled",
        0,
        "None",
    )
    assert (gpu["temperature_c"], gpu["power_limit_w"]) == (27, 500.0)


def test_markdown_fences_around_an_old_report_are_ignored(sample: Sample) -> None:
    text = sample(MARKDOWN_GTX1070)
    assert text.startswith("Example output") and text.rstrip().endswith("```")
    result = nvidia_smi_xml.parse(text)
    assert result.warnings == ()
    metrics = result.metrics
    assert (metrics["driver_version"], metrics["cuda_version"], metrics["dtd"]) == (
        "418.56",
        "10.1",
        "nvsmi_device_v10.dtd",
    )
    (gpu,) = metrics["gpus"]
    assert (gpu["name"], gpu["memory_total_mib"]) == ("GeForce GTX 1070", 8119)
    assert gpu["mig_mode"] is None
    # Pre-R450 ECC layout, every counter N/A: no uncorrectable count rather than 0.
    assert (gpu["ecc_mode"], metrics["ecc_volatile_uncorrected"]) == ("N/A", None)
    assert (gpu["temperature_c"], gpu["power_limit_w"]) == (49, 151.0)  # power_readings/power_limit


# --- PCIe link width ------------------------------------------------------------------------

TESLA_M10 = (
    "nvidia_smi_xml/nagios-check-tesla-m10-host-vgpu-driver390-x8-of-x16-cut-in-gpu1.xml.txt"
)


@pytest.mark.parametrize(
    ("path", "widest", "current", "line"),
    [
        (MARKDOWN_GTX1070, [16], [16], [61]),
        (TELEGRAF_A100, [16], [16], [201]),
        # A Tesla M10 (four GPUs on one board) whose GPU 0 reads x8 of x16; GPU 1, cut after
        # its <pci>, is not complete and not read.
        (TESLA_M10, [16], [8], [53]),
        # A GRID vGPU in a VM: the link is not the guest's to read.
        ("nvidia_smi_xml/telegraf-grid-p4-1q-vgpu-windows-wddm-driver513-v11.xml.txt",
         [None], [None], [None]),
        # A reduced report without a <pci> section.
        (QUADRO, [None, None], [None, None], [None, None]),
    ],
)  # fmt: skip
def test_pcie_link_width_from_link_widths(sample, path, widest, current, line) -> None:
    metrics = nvidia_smi_xml.parse(sample(path)).metrics
    assert (metrics["pcie_link_width_max"], metrics["pcie_link_width_current"]) == (
        widest,
        current,
    )
    assert [g["pcie_link_width_line"] for g in metrics["gpus"]] == line


def test_pcie_link_width_lines_follow_each_gpu(sample: Sample) -> None:
    # Two GPUs of the same report, the second narrower, the first without a link figure:
    # each line is its own GPU's, never the next one's.
    text = sample(MARKDOWN_GTX1070)
    block = text[text.index("\t<gpu ") : text.index("</gpu>") + len("</gpu>\n")]
    no_link = block.replace("<current_link_width>16x</current_link_width>", "")
    narrow = block.replace(
        "<current_link_width>16x</current_link_width>",
        "<current_link_width>4x</current_link_width>",
    ).replace("00000000:01:00.0", "00000000:02:00.0")
    assert no_link != block and narrow != block
    two = text.replace(block, no_link + narrow)
    metrics = nvidia_smi_xml.parse(two).metrics
    assert metrics["pcie_link_width_current"] == [None, 4]
    lines = [g["pcie_link_width_line"] for g in metrics["gpus"]]
    assert lines[0] is None
    assert two.splitlines()[lines[1] - 1].strip() == "<current_link_width>4x</current_link_width>"
    assert lines[1] > two.count("\n", 0, two.index('<gpu id="00000000:02:00.0"'))


def test_multigpu_board_and_board_id_of_each_gpu(sample: Sample) -> None:
    m10 = nvidia_smi_xml.parse(sample(TESLA_M10)).metrics["gpus"]
    assert [(g["multigpu_board"], g["board_id"]) for g in m10] == [(True, "0x1800")]
    gtx = nvidia_smi_xml.parse(sample(MARKDOWN_GTX1070)).metrics["gpus"]
    assert [(g["multigpu_board"], g["board_id"]) for g in gtx] == [(False, "0x100")]
    # A reduced report without the element: unknown, not False.
    bare = '<nvidia_smi_log><gpu id="00000000:01:00.0"><product_name>X</product_name></gpu>'
    assert (
        nvidia_smi_xml.parse(bare + "</nvidia_smi_log>").metrics["gpus"][0]["multigpu_board"]
        is None
    )
