"""Virtio devices a BlueField DPU emulates for a bare-metal host, against a VM's virtio devices.

A BlueField in DPU mode hands its host virtio-net (DOCA virtio-net controller) and virtio-blk
(SNAP) PCIe functions, vendor 1af4 like QEMU's. Such a host is physical: a virtio device is a VM
sign only while the listing does not tie it to the DPU (a Mellanox Subsystem, a function of the
BlueField's own PCI device, a place behind the PCIe switch that holds a BlueField function).

Real samples (see PROVENANCE.tsv): two outputs of a host with BlueField-2 cards, one a converged
card whose A100X sits behind the BlueField-2's own PCIe switch (nv-morpheus/Morpheus); the
"lspci | grep Virtio" outputs of a BlueField host from NVIDIA's vhost acceleration guide
(Mellanox/dpdk-vhost-vfe), where the grep left only the virtio lines; real VM listings.

No public output found shows a virtio device and the BlueField in one unfiltered listing, so the
rules that clear a virtio device are also tested on CONSTRUCTED listings, marked as such below:
each joins real lines of the two sources above (names and addresses as printed there), none is
stored as a sample.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import lspci
from scoring.verification.bare_metal import verify_bare_metal
from scoring.verification.model import Claims, NodeEvidence

CLAIMS = Claims(gpu_model="A100 PCIe 80GB", gpus_per_node=1, gpu_memory_gib=80)
TREE = "lspci/morpheus-doca-a100x-bluefield2-switch-lspci-tv-grep.txt"
PLAIN = "lspci/morpheus-doca-a100x-bluefield2-soc-bridges-lspci-grep-ella.txt"
VIRTIO_GREP = "lspci/mellanox-vhost-vfe-bluefield-host-grep-virtio-net-blk-pf-vf.txt"

BF2_PF = "Mellanox Technologies MT42822 BlueField-2 integrated ConnectX-6 Dx network controller"
BF2_BRIDGE = "Mellanox Technologies MT42822 Family [BlueField-2 SoC PCIe Bridge]"
VIRTIO_NET = "Red Hat, Inc. Virtio network device"
VIRTIO_BLK = "Red Hat, Inc. Virtio block device"


def _verdict(text: str):
    metrics = lspci.parse(text).metrics
    return verify_bare_metal(CLAIMS, [NodeEvidence("host", 1, "lspci", metrics, "lspci.txt", 1)])


# --- real samples -------------------------------------------------------------------------


def test_bluefield2_switch_tree_reads_the_bridges_and_stays_physical(sample) -> None:
    text = sample(TREE)
    metrics = lspci.parse(text).metrics
    assert metrics["nvidia_gpu_count"] == 1
    assert metrics["virtual"] is False
    assert metrics["virtual_signals"] == []
    assert metrics["physical_signals"] == ["Mellanox ConnectX physical function"]
    assert metrics["dpu_virtio"] == []
    devices: dict[str, lspci._Device] = {}
    for device in lspci._read_tree(text):  # the grep cut the second root bus line: first wins
        devices.setdefault(device.slot, device)
    # "\-02.0-[ca-cf]----00.0-[cb-cf]--+-00.0-[cc]--+-00.0  Mellanox ... BlueField-2 ..."
    assert devices["0000:ff:02.0"].bridge_range == (0xCA, 0xCF)
    assert devices["0000:ca:00.0"].bridge_range == (0xCB, 0xCF)
    assert devices["0000:ce:08.0"].bridge_range == (0xCF, 0xCF)
    assert devices["0000:cc:00.0"].bridge_range is None
    # The A100X (cf:00.0) and the BlueField-2 (cc:00.0) share the card's switch port ca:00.0.
    upstream = devices["0000:ca:00.0"]
    assert lspci._behind(upstream, lspci._bus_key("0000:cf:00.0"))
    assert lspci._behind(upstream, lspci._bus_key("0000:cc:00.0"))
    assert lspci._behind(devices["0000:ff:02.0"], lspci._bus_key(upstream.slot))


def test_bluefield2_soc_bridges_in_a_plain_listing_are_a_physical_host(sample) -> None:
    metrics = lspci.parse(sample(PLAIN)).metrics
    assert metrics["device_count"] == 12
    assert metrics["nvidia_gpu_count"] == 1
    assert metrics["virtual"] is False
    assert metrics["virtual_signals"] == []
    assert metrics["dpu_virtio"] == []


@pytest.mark.parametrize("path", [TREE, PLAIN])
def test_bluefield_hosts_are_never_judged_virtualised(sample, path: str) -> None:
    verdict = _verdict(sample(path))
    assert verdict.verdict != "virtualised"
    assert not [s for s in verdict.signals if s.points_to == "virtual"]


def test_virtio_lines_grepped_out_of_a_bluefield_host_still_count_as_vm_devices(sample) -> None:
    """The known limit: "lspci | grep Virtio" leaves nothing that ties the devices to the DPU,
    and QEMU's virtio-net and virtio-blk read the same, so they keep counting as VM devices."""
    metrics = lspci.parse(sample(VIRTIO_GREP)).metrics
    assert metrics["filtered"] is True
    assert metrics["device_count"] == 4
    assert metrics["dpu_virtio"] == []
    assert metrics["virtual"] is True
    assert metrics["virtual_signals"] == [
        f"virtio device ({VIRTIO_NET})",
        f"virtio device ({VIRTIO_BLK})",
    ]


@pytest.mark.parametrize(
    ("path", "signal"),
    [
        ("lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt", "virtio device 1af4:1050"),
        ("lspci/fabric-testbed-kvm-vm-440fx-virtio-cx6-vf.txt", "virtio device"),
        ("lspci/devmachine-kvm-lspci-vv.txt", "virtio device"),
        ("lspci/devmachine-kvm-lspci-nn.txt", "virtio device 1af4:1041"),
    ],
)
def test_real_vms_keep_their_virtio_signals(
    sample: Callable[[str], str], path: str, signal: str
) -> None:
    metrics = lspci.parse(sample(path)).metrics
    assert metrics["virtual"] is True
    assert any(s.startswith(signal) for s in metrics["virtual_signals"])
    assert metrics["dpu_virtio"] == []
    assert _verdict(sample(path)).verdict == "virtualised"


# --- constructed listings (see the module docstring) ----------------------------------------

# The BlueField-2 PFs as the Morpheus host prints them, at the bus the NVIDIA guide's virtio PFs
# use (af:00.2, af:00.3): static virtio PFs are further functions of the DPU's device.
SAME_DEVICE = f"""\
af:00.0 Ethernet controller: {BF2_PF} (rev 01)
af:00.1 Ethernet controller: {BF2_PF} (rev 01)
af:00.2 Ethernet controller: {VIRTIO_NET} (rev 01)
af:00.3 Non-Volatile memory controller: {VIRTIO_BLK} (rev 01)
"""


def test_constructed_virtio_functions_of_the_bluefield_device_are_context() -> None:
    metrics = lspci.parse(SAME_DEVICE).metrics
    assert metrics["virtual_signals"] == []
    assert metrics["virtual"] is False
    assert metrics["dpu_virtio"] == [
        f"virtio device ({VIRTIO_NET}) at af:00.2 emulated by a BlueField DPU: a function of "
        "the BlueField device at af:00.0",
        f"virtio device ({VIRTIO_BLK}) at af:00.3 emulated by a BlueField DPU: a function of "
        "the BlueField device at af:00.0",
    ]
    verdict = _verdict(SAME_DEVICE)
    assert verdict.verdict != "virtualised"
    (context,) = [s for s in verdict.signals if s.name == "dpu_virtio"]
    assert context.points_to == "context" and context.weight == 0.0
    assert "BlueField" in context.explanation_en and "BlueField" in context.explanation_zh
    assert "lspci_devices" not in {s.name for s in verdict.signals if s.points_to == "virtual"}


def test_constructed_virtio_vfs_on_other_device_numbers_are_not_tied_by_a_plain_listing() -> None:
    """A plain listing shows no bridge, so SR-IOV VFs of an emulated PF (af:04.5) cannot be
    told from a VM's virtio NIC on a PCI bridge next to a passed-through DPU function."""
    text = SAME_DEVICE + f"af:04.5 Ethernet controller: {VIRTIO_NET}\n"
    metrics = lspci.parse(text).metrics
    assert len(metrics["dpu_virtio"]) == 2
    assert metrics["virtual_signals"] == [f"virtio device ({VIRTIO_NET})"]
    assert metrics["virtual"] is True


def test_constructed_mellanox_subsystem_ties_a_virtio_device_to_the_dpu() -> None:
    text = f"""\
cc:00.0 Ethernet controller: {BF2_PF} (rev 01)
\tSubsystem: Mellanox Technologies Device 0006
5e:00.0 Ethernet controller: {VIRTIO_NET} (rev 01)
\tSubsystem: Mellanox Technologies Device 0001
"""
    metrics = lspci.parse(text).metrics
    assert metrics["virtual_signals"] == []
    assert metrics["dpu_virtio"] == [
        f"virtio device ({VIRTIO_NET}) at 5e:00.0 emulated by a BlueField DPU: Subsystem "
        "Mellanox Technologies Device 0001"
    ]


def test_constructed_mellanox_subsystem_alone_is_enough() -> None:
    # "lspci -nnvv | grep -A1 -i virtio": QEMU gives its virtio devices Red Hat's subsystem
    # (1af4), so a Mellanox one is DPU hardware even with the BlueField filtered out.
    text = (
        f"5e:00.0 Ethernet controller [0200]: {VIRTIO_NET} [1af4:1041] (rev 01)\n"
        "\tSubsystem: Mellanox Technologies Device [15b3:0001]\n"
    )
    metrics = lspci.parse(text).metrics
    assert metrics["virtual_signals"] == []
    assert metrics["virtual"] is None
    assert metrics["dpu_virtio"] == [
        f"virtio device 1af4:1041 ({VIRTIO_NET}) at 5e:00.0 emulated by a BlueField DPU: "
        "Subsystem Mellanox Technologies Device [15b3:0001]"
    ]


def test_constructed_mellanox_bridge_range_in_vv_ties_a_virtio_device_to_the_dpu() -> None:
    text = f"""\
ca:00.0 PCI bridge: {BF2_BRIDGE} (rev 01)
\tBus: primary=ca, secondary=cb, subordinate=cf, sec-latency=0
cc:00.0 Ethernet controller: {BF2_PF} (rev 01)
cf:00.0 Ethernet controller: {VIRTIO_NET} (rev 01)
\tSubsystem: Red Hat, Inc. Device 0001
"""
    metrics = lspci.parse(text).metrics
    assert metrics["virtual_signals"] == []
    assert metrics["dpu_virtio"] == [
        f"virtio device ({VIRTIO_NET}) at cf:00.0 emulated by a BlueField DPU: behind the PCIe "
        "switch of the BlueField at cc:00.0 (bridge ca:00.0)"
    ]


def test_constructed_tree_virtio_behind_the_bluefield_switch_is_context(sample) -> None:
    # The real tree with the A100X leaf renamed to a virtio NIC: cf:00.0 behind ca:00.0.
    text = sample(TREE).replace("NVIDIA Corporation Device 20b9", VIRTIO_NET)
    metrics = lspci.parse(text).metrics
    assert metrics["virtual_signals"] == []
    assert metrics["dpu_virtio"] == [
        f"virtio device ({VIRTIO_NET}) at 0000:cf:00.0 emulated by a BlueField DPU: behind the "
        "PCIe switch of the BlueField at 0000:cc:00.0 (bridge 0000:ca:00.0)"
    ]


def test_constructed_tree_sharing_only_a_root_bus_bridge_stays_virtual() -> None:
    # A Kata/libvirt-style guest: a PCI bridge on the root bus holds a hot-plugged virtio NIC and
    # a passed-through BlueField function. The bridge is no switch below a root port.
    text = f"""\
-[0000:00]-+-00.0  Intel Corporation 82G33/G31/P35/P31 Express DRAM Controller
           +-02.0-[01]--+-01.0  {VIRTIO_NET}
           |            \\-02.0  {BF2_PF}
           \\-1f.0  Intel Corporation 82801IB (ICH9) LPC Interface Controller
"""
    metrics = lspci.parse(text).metrics
    assert metrics["dpu_virtio"] == []
    assert f"virtio device ({VIRTIO_NET})" in metrics["virtual_signals"]


def test_constructed_bluefield_elsewhere_does_not_clear_a_vms_virtio_nic() -> None:
    # A VM given a BlueField PF next to QEMU's own virtio NIC: presence alone proves nothing.
    text = f"""\
00:03.0 Ethernet controller: {VIRTIO_NET}
00:05.0 Ethernet controller: {BF2_PF} (rev 01)
"""
    metrics = lspci.parse(text).metrics
    assert metrics["dpu_virtio"] == []
    assert metrics["virtual_signals"] == [f"virtio device ({VIRTIO_NET})"]
    assert _verdict(text).verdict == "virtualised"


@pytest.mark.parametrize(
    "virtio_gpu",
    [
        "af:00.2 VGA compatible controller [0300]: Red Hat, Inc. Virtio 1.0 GPU [1af4:1050]\n"
        "\tSubsystem: Mellanox Technologies Device [15b3:0001]\n",
        "af:00.2 Display controller: Red Hat, Inc. Virtio GPU (rev 01)\n",
    ],
)
def test_constructed_virtio_gpu_is_never_a_dpu_device(virtio_gpu: str) -> None:
    text = f"af:00.0 Ethernet controller [0200]: {BF2_PF} [15b3:a2d6] (rev 01)\n" + virtio_gpu
    metrics = lspci.parse(text).metrics
    assert metrics["dpu_virtio"] == []
    assert metrics["virtual"] is True
    assert metrics["virtual_signals"][0].startswith("virtio device")
