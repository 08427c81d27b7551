"""Hyper-V's virtual PCI layout in lspci, and physical multi-segment hosts that must not match.

Azure VMs see each passed-through device alone on bus 00 of a PCI domain of its own ("0001",
"3532", "c05b"...). Physical machines with several PCI segments put root ports on bus 00 and
their endpoints behind them. The samples are real (see PROVENANCE.tsv); the quoted lines name
their source.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import lspci
from scoring.verification.bare_metal import verify_bare_metal
from scoring.verification.model import Claims, NodeEvidence

SAMPLES = Path(__file__).parent / "samples" / "lspci"
CLAIMS = Claims(gpu_model="A100 SXM4 80GB", gpus_per_node=8, gpu_memory_gib=80)
AZURE = {
    "azure-nc12s-v3-2xv100-vpci-grep-nvidia.txt": ["0001", "0002"],
    "azure-ngads-v620-vpci-msft-nvme-cx4lx-vf.txt": ["0002", "175c", "6e2b"],
    "azure-nv36ads-a10-v5-one-gpu-vpci-grep.txt": ["0002"],
    "azure-nc6s-v3-gen1-440bx-hyperv-vga-notebook.txt": ["0001"],
    "azure-vm-cx6-ib-vf-cx4lx-vf-msft-nvme-commented.txt": ["0101", "3532", "78a8", "cc4c"],
}
# Physical machines, two of them with several PCI domains (GH200, PowerMac G5).
PHYSICAL = (
    "gh200-baremetal-cx7-pf-gpu-domain0009-grep.txt",
    "powermac-g5-physical-two-domains-markdown-bold.txt",
    "rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
    "sriov-host-cx6-pf-and-vf-lspci-v-grep-mellanox.txt",
)


def _text(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def _device_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if lspci._DEVICE_RE.match(lspci._clean(line))]


@pytest.mark.parametrize("name", sorted(AZURE))
def test_azure_vms_show_the_vpci_layout(name: str) -> None:
    metrics = lspci.parse(_text(name)).metrics
    assert metrics["vpci_domains"] == AZURE[name]
    assert metrics["virtual"] is True
    assert any(s.startswith("Hyper-V vPCI layout") for s in metrics["virtual_signals"])


@pytest.mark.parametrize("name", sorted(AZURE))
def test_a_grep_keeps_the_layout_of_each_remaining_device(name: str) -> None:
    for line in _device_lines(_text(name)):
        domain = lspci._clean(line).split(":")[0]
        if domain in AZURE[name]:
            assert lspci.parse(line).metrics["vpci_domains"] == [domain], line


@pytest.mark.parametrize("name", PHYSICAL)
def test_physical_hosts_never_show_it_whole_or_grepped_line_by_line(name: str) -> None:
    text = _text(name)
    assert lspci.parse(text).metrics["vpci_domains"] == []
    for line in _device_lines(text):
        assert lspci.parse(line).metrics["vpci_domains"] == [], line
    verdict = verify_bare_metal(
        CLAIMS, [NodeEvidence("host", 1, "lspci", lspci.parse(text).metrics, name, 1)]
    )
    assert verdict.verdict != "virtualised"
    assert "hyperv_vpci" not in {s.name for s in verdict.signals}


def test_markdown_bold_device_lines_are_read() -> None:
    metrics = lspci.parse(_text("powermac-g5-physical-two-domains-markdown-bold.txt")).metrics
    assert metrics["device_count"] == 23
    assert [g["slot"] for g in metrics["gpus"]] == ["0000:0a:00.0"]
    assert metrics["gpu_models"] == ["GeForce 6600 LE"]


def test_nvswitch_passed_into_a_vm_counts_but_a_grace_root_port_does_not() -> None:
    # Lines quoted in leptonai/gpud's lspci helpers: an A100 board's NVSwitch ("Bridge" [0680])
    # and GPU on bus 00 of their own domains, and a GB200's root port ("PCI bridge" [0604]).
    vm = (
        "000a:00:00.0 Bridge: NVIDIA Corporation Device 1af1 (rev a1)\n"
        "000b:00:00.0 3D controller: NVIDIA Corporation GA100 [A100 SXM4 80GB] (rev a1)\n"
    )
    assert lspci.parse(vm).metrics["vpci_domains"] == ["000a", "000b"]
    # An OCI health-check script's expected lspci lines for a bare-metal GB200 (public GitHub
    # code): the GPUs sit on bus 01 of domains 0008-0019, behind such root ports.
    gb200 = (
        "0018:00:00.0 PCI bridge [0604]: NVIDIA Corporation Device [10de:22b1]\n"
        "0008:01:00.0 3D controller: NVIDIA Corporation Device 2941 (rev a1)\n"
        "0009:01:00.0 3D controller: NVIDIA Corporation Device 2941 (rev a1)\n"
        "0018:01:00.0 3D controller: NVIDIA Corporation Device 2941 (rev a1)\n"
        "0019:01:00.0 3D controller: NVIDIA Corporation Device 2941 (rev a1)\n"
    )
    assert lspci.parse(gb200).metrics["vpci_domains"] == []


def test_root_complex_parts_on_bus_00_of_a_segment_are_not_vpci() -> None:
    # Built, not captured: real root-complex device names (an AMD EPYC root complex and IOMMU,
    # the Intel 09a2 peripheral of gpud's lspci-vvv testdata) on segments 0001/0002, as a
    # multi-segment host seen through a grep shows them. Bus 00 of a segment holds such parts,
    # never the endpoints a cloud passes into a VM.
    host = (
        "0001:00:00.0 Host bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse Root "
        "Complex\n"
        "0001:00:00.2 IOMMU: Advanced Micro Devices, Inc. [AMD] Starship/Matisse IOMMU\n"
        "0002:00:00.0 System peripheral: Intel Corporation Device 09a2 (rev 20)\n"
    )
    assert lspci.parse(host).metrics["vpci_domains"] == []
    # One endpoint behind a root port in the same domain makes the segment physical.
    mixed = (
        "0003:00:00.0 3D controller: NVIDIA Corporation GA100 [A100 SXM4 80GB] (rev a1)\n"
        "0003:01:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
    )
    assert lspci.parse(mixed).metrics["vpci_domains"] == []


def test_microsoft_counts_as_the_devices_vendor_not_as_an_oem_subsystem() -> None:
    vm = "6e2b:00:02.0 Non-Volatile memory controller: Microsoft Corporation Device b111\n"
    assert (
        "Microsoft Hyper-V device (Microsoft Corporation Device b111)"
        in (lspci.parse(vm).metrics["virtual_signals"])
    )
    oem = (
        "81:00.0 Ethernet controller: Mellanox Technologies MT27520 Family [ConnectX-3 Pro]\n"
        "\tSubsystem: Microsoft Corporation Device 0010\n"
    )
    metrics = lspci.parse(oem).metrics
    assert metrics["virtual_signals"] == []
    assert metrics["virtual"] is False


def test_one_vpci_domain_is_weaker_than_two() -> None:
    weights = {}
    for name in (
        "azure-nv36ads-a10-v5-one-gpu-vpci-grep.txt",
        "azure-nc12s-v3-2xv100-vpci-grep-nvidia.txt",
    ):
        metrics = lspci.parse(_text(name)).metrics
        verdict = verify_bare_metal(CLAIMS, [NodeEvidence("vm", 1, "lspci", metrics, name, 1)])
        (signal,) = verdict.signals
        assert signal.name == "hyperv_vpci"
        assert "Hyper-V" in signal.explanation_en and "Hyper-V" in signal.explanation_zh
        weights[len(metrics["vpci_domains"])] = (signal.weight, verdict.verdict)
    assert weights == {1: (0.5, "uncertain"), 2: (0.8, "virtualised")}
