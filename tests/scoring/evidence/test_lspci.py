"""Tests of the lspci parser: real host/VM listings, including this dev machine (a KVM guest)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from scoring.evidence import lspci, registry

VIRTIO_DEVICES = [
    ("1045", "Red Hat, Inc. Virtio 1.0 memory balloon"),
    ("1042", "Red Hat, Inc. Virtio 1.0 block device"),
    ("1041", "Red Hat, Inc. Virtio 1.0 network device"),
    ("1053", "Red Hat, Inc. Virtio 1.0 socket"),
    ("1044", "Red Hat, Inc. Virtio 1.0 RNG"),
]


def test_hgx_h100_bare_metal_host(sample: Callable[[str], str]) -> None:
    result = lspci.parse(sample("lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt"))
    metrics = result.metrics
    assert metrics["nvidia_gpu_count"] == 8
    assert metrics["gpu_models"] == ["H100 SXM5 80GB"]
    assert metrics["gpus"][0] == {
        "slot": "0000:1b:00.0",
        "model": "H100 SXM5 80GB",
        "pci_id": "10de:2330",
        "virtual_function": False,
        # No -vv block: no link widths.
        "pcie_link_width_max": None,
        "pcie_link_width_current": None,
        "pcie_link_width_line": None,
    }
    assert [g["slot"] for g in metrics["gpus"]][-1] == "0000:df:00.0"
    assert metrics["virtual"] is False
    assert metrics["virtual_signals"] == []
    assert metrics["physical_signals"] == ["ASPEED BMC VGA", "NVSwitch bridge"]
    assert metrics["nvswitch_count"] == 4
    assert metrics["device_count"] == 13
    assert metrics["filtered"] is True
    assert result.warnings == (
        "the listing was filtered with grep: devices that reveal a VM may be hidden",
    )
    (fact,) = result.facts
    assert (fact.metric, fact.value, fact.unit, fact.line) == ("nvidia_gpu_count", 8.0, "count", 7)


def test_kvm_guest_with_passed_through_h100s(sample: Callable[[str], str]) -> None:
    result = lspci.parse(sample("lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt"))
    metrics = result.metrics
    assert metrics["nvidia_gpu_count"] == 4
    assert metrics["gpu_models"] == ["H100 SXM5 80GB"]
    assert [g["slot"] for g in metrics["gpus"]] == [
        "0000:09:00.0",
        "0000:0a:00.0",
        "0000:0b:00.0",
        "0000:0c:00.0",
    ]
    assert metrics["virtual"] is True
    assert metrics["virtual_signals"] == ["virtio device 1af4:1050 (Red Hat, Inc. Virtio 1.0 GPU)"]
    assert metrics["physical_signals"] == []
    assert result.warnings == ()


@pytest.mark.parametrize(
    ("path", "with_ids"),
    [
        ("lspci/devmachine-kvm-lspci.txt", False),
        ("lspci/devmachine-kvm-lspci-nn.txt", True),
        ("lspci/devmachine-kvm-lspci-Dnn.txt", True),
        ("lspci/devmachine-kvm-lspci-vv.txt", False),
    ],
)
def test_this_dev_machine_is_a_virtio_guest(
    sample: Callable[[str], str], path: str, with_ids: bool
) -> None:
    result = lspci.parse(sample(path))
    metrics = result.metrics
    assert metrics["nvidia_gpu_count"] == 0
    assert metrics["gpu_models"] == []
    assert metrics["device_count"] == 6
    assert metrics["virtual"] is True
    expected = [
        f"virtio device 1af4:{dev} ({name})" if with_ids else f"virtio device ({name})"
        for dev, name in VIRTIO_DEVICES
    ]
    assert metrics["virtual_signals"] == expected
    assert metrics["physical_signals"] == []
    assert result.facts[0].value == 0.0


def test_vmware_guest_with_commented_lines(sample: Callable[[str], str]) -> None:
    result = lspci.parse(sample("lspci/vmware-vm-4x2080ti-passthrough-grep-vga.txt"))
    metrics = result.metrics
    assert metrics["nvidia_gpu_count"] == 4
    assert metrics["gpu_models"] == ["GeForce RTX 2080 Ti"]
    assert metrics["virtual"] is True
    assert metrics["virtual_signals"] == ["VMware device (VMware SVGA II Adapter)"]
    assert metrics["filtered"] is True


CX6_PF = (
    "0000:3b:00.0 Ethernet controller [0200]: Mellanox Technologies MT28908 Family [ConnectX-6] "
    "[15b3:101b]"
)
CX6_VF = (
    "0000:3b:00.1 Ethernet controller [0200]: Mellanox Technologies MT28908 Family "
    "[ConnectX-6 Virtual Function] [15b3:101c]"
)


def test_virtual_function_alone_betrays_a_vm() -> None:
    metrics = lspci.parse(CX6_VF + "\n").metrics
    assert metrics["virtual"] is True
    assert metrics["virtual_signals"] == [
        "SR-IOV virtual function without its physical function "
        "(Mellanox Technologies MT28908 Family [ConnectX-6 Virtual Function])"
    ]


def test_virtual_functions_next_to_their_physical_function_are_a_host() -> None:
    metrics = lspci.parse(f"{CX6_PF}\n{CX6_VF}\n").metrics
    assert metrics["virtual"] is False
    assert metrics["virtual_signals"] == []
    assert metrics["physical_signals"] == ["Mellanox ConnectX physical function"]
    assert metrics["mellanox_functions"] == 2


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        (
            "0000:00:08.0 VGA compatible controller: Microsoft Corporation Hyper-V virtual VGA",
            "Microsoft Hyper-V device (Microsoft Corporation Hyper-V virtual VGA)",
        ),
        (
            "00:00.0 Host bridge: Intel Corporation 440FX - 82441FX PMC [Natoma] (rev 02)",
            "emulated Intel 440FX chipset",
        ),
        (
            "00:00.0 Host bridge [0600]: Intel Corporation 82G33/G31/P35/P31 Express DRAM "
            "Controller [8086:29c0]",
            "emulated Intel Q35 chipset",
        ),
        (
            "00:03.0 Unassigned class [ff80]: XenSource, Inc. Xen Platform Device (rev 01)",
            "Xen platform device (XenSource, Inc. Xen Platform Device)",
        ),
        (
            "00:05.0 VGA compatible controller: NVIDIA Corporation GK104GL [GRID K2] (rev a1)",
            "GRID/vGPU model (GRID K2)",
        ),
        (
            "00:06.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 40GB Virtual Function]",
            "NVIDIA virtual function",
        ),
    ],
)
def test_virtual_signals(line: str, signal: str) -> None:
    metrics = lspci.parse(line + "\n").metrics
    assert metrics["virtual"] is True
    assert signal in metrics["virtual_signals"]


def test_matrox_bmc_vga_is_a_physical_signal() -> None:
    line = (
        "0b:00.0 VGA compatible controller: Matrox Electronics Systems Ltd. MGA G200e [Pilot] "
        "ServerEngines (SEP1) (rev 02)"
    )
    metrics = lspci.parse(line).metrics
    assert metrics["virtual"] is False
    assert metrics["physical_signals"] == ["Matrox G200 BMC VGA"]


def test_vmm_records_are_read() -> None:
    text = (
        "Slot:\t00:02.0\nClass:\tVGA compatible controller [0300]\n"
        "Vendor:\tRed Hat, Inc. [1af4]\nDevice:\tVirtio 1.0 GPU [1050]\nRev:\t01\n\n"
        "Slot:\t00:05.0\nClass:\t3D controller [0302]\nVendor:\tNVIDIA Corporation [10de]\n"
        "Device:\tGH100 [H100 SXM5 80GB] [2330]\n"
    )
    metrics = lspci.parse(text).metrics
    assert metrics["nvidia_gpu_count"] == 1
    assert metrics["gpus"][0]["pci_id"] == "10de:2330"
    assert metrics["virtual_signals"] == ["virtio device 1af4:1050 (Red Hat, Inc. Virtio 1.0 GPU)"]


def test_listing_without_any_signal_cannot_tell() -> None:
    result = lspci.parse(
        "01:00.0 3D controller: NVIDIA Corporation GA100 [A100 SXM4 80GB] (rev a1)\n"
    )
    assert result.metrics["virtual"] is None
    assert result.metrics["gpu_models"] == ["A100 SXM4 80GB"]
    assert "no virtual or physical signal in this listing: cannot tell VM or host" in (
        result.warnings
    )


def test_truncated_listing_keeps_what_is_there(sample: Callable[[str], str]) -> None:
    text = sample("lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt")[:900]
    metrics = lspci.parse(text).metrics
    assert 0 < metrics["nvidia_gpu_count"] < 8


def test_large_input_stays_linear(sample: Callable[[str], str]) -> None:
    text = sample("lspci/devmachine-kvm-lspci-vv.txt") * 1000  # ~5 MB
    start = time.perf_counter()
    assert lspci.parse(text).metrics["device_count"] == 6000
    assert time.perf_counter() - start < 30


def test_h20_host_excerpt_with_author_comments(sample) -> None:
    path = "lspci/blog-h20-amd-host-pex890xx-gen5-cx6lx-arrow-comments-cut.txt"
    m = lspci.parse(sample(path)).metrics
    assert (m["nvidia_gpu_count"], m["gpu_count_partial"]) == (1, "excerpt")
    assert m["gpu_models"] == ["Device 2329"]
    assert m["device_count"] == 8
    assert m["mellanox_functions"] == 2
    assert m["virtual"] is False and m["virtual_signals"] == []


def test_oc_debug_pod_banner_around_an_hgx_listing(sample) -> None:
    path = "lspci/openshift-oc-debug-hgx-h100-lspci-d10de-pod-banner.txt"
    m = lspci.parse(sample(path)).metrics
    assert (m["nvidia_gpu_count"], m["nvswitch_count"], m["device_count"]) == (8, 4, 12)
    assert m["gpu_models"] == ["H100 SXM5 80GB"]
    assert m["gpus"][0]["slot"] == "18:00.0" and m["gpus"][-1]["slot"] == "db:00.0"
    assert m["virtual"] is False


def test_aws_p5_vm_shows_passed_through_nvswitches(sample) -> None:
    # A Nitro VM: lspci alone (grep-filtered) shows no hypervisor device, and the NVSwitch
    # bridges came along with the GPUs.
    result = lspci.parse(sample("lspci/aws-p5-48xlarge-vm-grep-h100-nvswitch-passed-through.txt"))
    m = result.metrics
    assert (m["nvidia_gpu_count"], m["nvswitch_count"]) == (8, 4)
    assert m["filtered"] is True and m["virtual_signals"] == []
    assert any("filtered with grep" in w for w in result.warnings)


def test_gvnic_vm_excerpt_with_a_note_on_the_elision_line(sample) -> None:
    result = lspci.parse(sample("lspci/gcp-a3-vm-gvnic-h100-excerpt-note-line.txt"))
    m = result.metrics
    assert (m["nvidia_gpu_count"], m["gpu_count_partial"]) == (2, "excerpt")  # 8 in truth
    assert m["virtual"] is True
    assert m["virtual_signals"][0].startswith("Google Compute Engine virtual device")
    assert "excerpt marker at line 3: the output was cut" in result.warnings


def test_lspci_tv_tree_gpus_slots_and_bmc(sample) -> None:
    # The tree shows names, not classes; each device's bus comes from the bridge above it.
    text = sample("lspci/stelline-asus-esc8000a-e12-lspci-tv-4x-rtx6000ada-cx7-aspeed.txt")
    assert registry.detect_kind(text) == "lspci"
    metrics = lspci.parse(text).metrics
    assert metrics["nvidia_gpu_count"] == 4  # the HD Audio functions are not GPUs
    assert [g["slot"] for g in metrics["gpus"]] == [
        "0000:01:00.0", "0000:41:00.0", "0000:c1:00.0", "0000:e1:00.0"
    ]  # fmt: skip
    assert metrics["gpu_models"] == ["RTX 6000 Ada Generation"]
    assert metrics["mellanox_functions"] == 4
    assert "ASPEED BMC VGA" in metrics["physical_signals"]
    assert metrics["virtual"] is False


def test_lspci_tv_bus_of_a_device_deep_in_a_bridge_chain(sample) -> None:
    text = sample("lspci/stelline-asus-esc8000a-e12-lspci-tv-4x-rtx6000ada-cx7-aspeed.txt")
    devices, _, _ = lspci._read_devices(text)
    slots = {d.slot: d.description for d in devices}
    assert slots["0000:75:00.0"].startswith("ASPEED")
    assert slots["0000:65:00.0"].startswith("Samsung")
    assert "0000:64:1c.0" in slots  # a bridge in the chain: counted, unnamed
    assert slots["0000:71:00.0"].startswith("HighPoint")


def test_lspci_t_without_names_is_not_read_as_a_listing() -> None:
    text = "-[0000:00]-+-00.0\n           +-01.1-[01]--+-00.0\n           |            \\-00.1\n"
    assert registry.detect_kind(text) == "unknown"


# Two GPU blocks of `lspci -vv` filtered to the link lines, from a public GitHub note whose
# script printed, per GeForce card, `lspci -s $C` then `lspci -vv -s $C | grep -i gt`: both RTX
# 2060 cards at x8 of x16, at their full 8GT/s. Kept verbatim but for the script's "Card: "
# prefix before each device line and its "====" separators, which are not lspci's.
RTX2060_X8_VV = """\
01:00.0 VGA compatible controller: NVIDIA Corporation TU106 [GeForce RTX 2060 Rev. A] (rev a1)
\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <1us, L1 <4us
\t\tLnkSta:\tSpeed 8GT/s (ok), Width x8 (downgraded)
\t\tLnkCtl2: Target Link Speed: 8GT/s, EnterCompliance- SpeedDis-
02:00.0 VGA compatible controller: NVIDIA Corporation TU106 [GeForce RTX 2060 Rev. A] (rev a1)
\t\tLnkCap:\tPort #1, Speed 8GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <1us, L1 <4us
\t\tLnkSta:\tSpeed 8GT/s (ok), Width x8 (downgraded)
\t\tLnkCtl2: Target Link Speed: 8GT/s, EnterCompliance- SpeedDis-
"""


def test_vv_link_width_of_each_gpu_from_lnkcap_and_lnksta() -> None:
    gpus = lspci.parse(RTX2060_X8_VV).metrics["gpus"]
    widths = [
        (
            g["slot"],
            g["pcie_link_width_max"],
            g["pcie_link_width_current"],
            g["pcie_link_width_line"],
        )
        for g in gpus
    ]
    assert widths == [("01:00.0", 16, 8, 3), ("02:00.0", 16, 8, 7)]


def test_vv_of_a_vm_without_gpu_reads_no_link_width(sample: Callable[[str], str]) -> None:
    # The virtio devices of this guest have no PCIe link capability at all.
    metrics = lspci.parse(sample("lspci/devmachine-kvm-lspci-vv.txt")).metrics
    assert metrics["gpus"] == []


GPU_LINE = (
    "0000:1b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] "
    "(rev a1)"
)


def test_a_grep_for_the_gpus_cannot_count_mellanox_functions(sample) -> None:
    # The demo's HGX node: `lspci -Dnn | egrep -i "nvidia|vga"` keeps no NIC, while ibstat on
    # the same node lists 9 ConnectX HCAs. No count, rather than "0 Mellanox functions".
    m = lspci.parse(sample("lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt")).metrics
    assert m["filtered"] is True and m["nvidia_gpu_count"] == 8
    assert m["mellanox_functions"] is None


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('lspci -Dnn | egrep -i "nvidia|vga"', None),
        ("lspci | grep H100", None),
        ("lspci -nn -d 10de:", None),
        ('lspci | grep -iE "mellanox|nvidia"', 0),  # the grep would have kept them: none there
        ("lspci | grep ella", 0),
        ("lspci -nn", 0),  # the whole listing
    ],
)
def test_no_mellanox_function_is_a_count_only_where_the_listing_could_show_one(
    command, expected
) -> None:
    assert lspci.parse(f"$ {command}\n{GPU_LINE}\n").metrics["mellanox_functions"] == expected


def test_mellanox_functions_in_a_filtered_listing_are_counted() -> None:
    text = f'$ lspci -nn | grep -iE "mellanox|nvidia"\n{GPU_LINE}\n{CX6_PF}\n'
    assert lspci.parse(text).metrics["mellanox_functions"] == 1


def test_an_excerpt_without_mellanox_functions_cannot_count_them() -> None:
    assert lspci.parse(f"{GPU_LINE}\n[...]\n").metrics["mellanox_functions"] is None


_H200 = "19:00.0 3D controller: NVIDIA Corporation GH100 [H200 SXM 141GB] (rev a1)"


@pytest.mark.parametrize(
    ("last", "partial"),
    [
        ("86:00.0 Bridge: NVIDIA Corporation GH100 [H100 N", "cut_line"),
        ("86:00.0 Bridge: NVIDIA Corporation GH100 [H100 NVSwitch] (rev a", "cut_line"),
        ("86:00.0 Bridge: NVIDIA Corporation GH100 [H100 NVSwitch] (rev a1)", None),
    ],
)
def test_a_listing_ending_inside_a_device_name_is_a_lower_bound(last, partial) -> None:
    # lspci closes every bracket it opens: a last line that does not was cut by the paste,
    # and the GPUs on the buses after it are missing.
    result = lspci.parse(f"$ lspci -d 10de:\n{_H200}\n{last}\n")
    assert (result.metrics["nvidia_gpu_count"], result.metrics["gpu_count_partial"]) == (
        1,
        partial,
    )
    assert any("ends inside a device's name" in w for w in result.warnings) == bool(partial)
