"""Signals of the PCI layout: the devices lspci lists (VM devices, DPU-emulated virtio, SR-IOV
virtual functions, Hyper-V vPCI, server devices), the GPUs' bus numbers (vm_like_gpu_layout)
and GPUs on bus 00 as nvidia-smi and nccl-tests show them."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from .._util import as_bool, as_int, as_list
from ..model import POINTS_TO_BARE_METAL, POINTS_TO_VIRTUAL, NodeEvidence, Signal
from .gpu_network import _gpu_names
from .weights import (
    _BMC,
    _BUS_ID,
    _INTEGRATED_GPU,
    PCI_LAYOUT_MAX_BUS,
    PCI_LAYOUT_MIN_GPUS,
    POINTS_TO_CONTEXT,
    W_DPU_VIRTIO,
    W_GPU_ROOT_BUS,
    W_GPU_ROOT_BUS_ONE,
    W_HYPERV_VPCI,
    W_HYPERV_VPCI_ONE,
    W_LSPCI_BMC,
    W_LSPCI_OTHER_PHYSICAL,
    W_LSPCI_VIRTUAL,
    W_PCI_LAYOUT,
    W_SRIOV_VF_ONLY,
    _sig,
)
from .zh import signal_zh


def _bus(slot: str) -> int | None:
    match = re.search(r"([0-9A-Fa-f]{2}):[0-9A-Fa-f]{2}\.[0-7]$", slot)
    return int(match.group(1), 16) if match else None


def vm_like_gpu_layout(slots: Sequence[str]) -> list[int] | None:
    """The GPU bus numbers when they look like a VM's emulated root ports, else None."""
    buses = sorted({b for b in (_bus(s) for s in slots) if b is not None})
    if len(slots) < PCI_LAYOUT_MIN_GPUS or not buses or buses[-1] > PCI_LAYOUT_MAX_BUS:
        return None
    if len(buses) == 1:  # all on one bus: QEMU i440FX puts every device on bus 00
        return buses if buses[0] == 0 else None
    # QEMU numbers root ports 01, 02, 03...; VMware's pciBridge ports give 04, 0b, 13, 1b.
    steps = [b - a for a, b in itertools.pairwise(buses)]
    return buses if max(steps) <= 8 else None


def _lspci_signals(ev: NodeEvidence) -> list[Signal]:
    m, node, out = ev.metrics, ev.node_name, []
    virtual = as_bool(m.get("virtual"))
    virtual_signals = [str(s) for s in as_list(m.get("virtual_signals")) if s]
    physical = [str(s) for s in as_list(m.get("physical_signals")) if s]
    dpu_virtio = [str(s) for s in as_list(m.get("dpu_virtio")) if s]
    if dpu_virtio:
        # Virtio-net/-blk emulated by a BlueField DPU (how bare-metal clouds deliver network and
        # disks): DPU hardware, context like a container, never weight for a hypervisor.
        shown = "; ".join(dpu_virtio)
        shown_zh = "；".join(signal_zh(v) for v in dpu_virtio)
        out.append(
            _sig(
                ev,
                "dpu_virtio",
                POINTS_TO_CONTEXT,
                W_DPU_VIRTIO,
                f"lspci on node {node} shows virtio devices emulated by a BlueField DPU "
                f"({shown}): DPU hardware that bare-metal hosts use, no sign of a hypervisor.",
                f"节点 {node} 的 lspci 显示由 BlueField DPU 模拟的 virtio 设备（{shown_zh}）："
                "这是裸金属主机同样使用的 DPU 硬件，并非虚拟化迹象。",
            )
        )
    vf_only = [s for s in virtual_signals if s.lower().startswith("sr-iov virtual function")]
    if vf_only:
        out.append(
            _sig(
                ev,
                "sriov_virtual_function",
                POINTS_TO_VIRTUAL,
                W_SRIOV_VF_ONLY,
                f"lspci on node {node} shows SR-IOV virtual functions without their physical "
                f"function ({'; '.join(vf_only)}): a VM given a slice of the NIC.",
                f"节点 {node} 的 lspci 只显示 SR-IOV 虚拟功能而无对应物理功能"
                f"（{'; '.join(vf_only)}）：这是分到网卡切片的虚拟机。",
            )
        )
        virtual_signals = [s for s in virtual_signals if s not in vf_only]
        virtual = bool(virtual_signals)
    vpci = [s for s in virtual_signals if s.startswith("Hyper-V vPCI layout")]
    domains = [str(d) for d in as_list(m.get("vpci_domains")) if d]
    if vpci:
        shown = ", ".join(domains) or vpci[0]
        out.append(
            _sig(
                ev,
                "hyperv_vpci",
                POINTS_TO_VIRTUAL,
                W_HYPERV_VPCI if len(domains) >= 2 else W_HYPERV_VPCI_ONE,
                f"lspci on node {node} shows devices each alone on bus 00 of its own PCI domain "
                f"({shown}) with no bridge above them: the layout of Hyper-V's virtual PCI bus "
                "(Azure VMs); a physical server puts its devices behind root ports.",
                f"节点 {node} 的 lspci 显示设备各自独占一个 PCI 域（{shown}）的 00 号总线，"
                "上方没有任何桥：这是 Hyper-V 虚拟 PCI 总线（Azure 虚拟机）的布局；"
                "物理服务器的设备位于根端口之下。",
            )
        )
        virtual_signals = [s for s in virtual_signals if s not in vpci]
        virtual = bool(virtual_signals)
    slots = [
        str(g.get("slot"))
        for g in as_list(m.get("gpus"))
        if isinstance(g, dict) and g.get("slot") and not g.get("virtual_function")
    ]
    buses = vm_like_gpu_layout(slots)
    if buses is not None:
        shown = ", ".join(f"{b:02x}" for b in buses)
        out.append(
            _sig(
                ev,
                "pci_layout",
                POINTS_TO_VIRTUAL,
                W_PCI_LAYOUT,
                f"The {len(slots)} GPUs on node {node} sit on low, evenly numbered PCI buses "
                f"({shown}), as behind a hypervisor's emulated root ports; a GPU server spreads "
                "them over its root complexes.",
                f"节点 {node} 的 {len(slots)} 块 GPU 位于编号低且连续的 PCI 总线（{shown}），"
                "类似虚拟化层模拟的根端口；物理 GPU 服务器的 GPU 分布在多个根复合体上。",
            )
        )
    # NVSwitches prove nothing either way: the clouds' 8-GPU VMs (AWS p5, GCP A3, Azure ND)
    # are given the whole HGX board, its NVSwitches included, on spread-out buses like a
    # physical server's (a real p5.48xlarge listing and a KVM guest with all 18 NVLinks per
    # GPU up are in the corpus).
    physical = [p for p in physical if "nvswitch" not in p.lower()]
    if virtual or virtual_signals:
        shown = "; ".join(virtual_signals) or "virtual devices"
        shown_zh = "；".join(signal_zh(v) for v in virtual_signals) or "虚拟设备"
        return [
            *out,
            _sig(
                ev,
                "lspci_devices",
                POINTS_TO_VIRTUAL,
                W_LSPCI_VIRTUAL,
                f"lspci on node {node} lists devices only a VM has: {shown}.",
                f"节点 {node} 的 lspci 列出仅虚拟机才有的设备：{shown_zh}。",
            ),
        ]
    if physical:
        bmc = any(_BMC.search(s) for s in physical)
        shown = "; ".join(physical)
        shown_zh = "；".join(signal_zh(p) for p in physical)
        return [
            *out,
            _sig(
                ev,
                "lspci_devices",
                POINTS_TO_BARE_METAL,
                W_LSPCI_BMC if bmc else W_LSPCI_OTHER_PHYSICAL,
                f"lspci on node {node} lists physical-server devices: {shown}.",
                f"节点 {node} 的 lspci 列出物理服务器设备：{shown_zh}。",
            ),
        ]
    return out


def _root_bus(bus_id: str) -> bool | None:
    """Whether an nvidia-smi bus id ("00000001:00:00.0") is on bus 00; None if unreadable."""
    match = _BUS_ID.fullmatch(bus_id.strip())
    return int(match.group(1), 16) == 0 if match else None


def _root_bus_signals(evs: Sequence[NodeEvidence]) -> list[Signal]:
    """One signal per node when every GPU whose PCI bus its evidence shows sits on bus 00."""
    for ev in evs:
        m = ev.metrics
        names = _gpu_names(m)
        if any(_INTEGRATED_GPU.search(n) for n in names):
            continue
        if ev.kind == "nccl_tests":
            shown, on_root = as_int(m.get("bus_ids_shown")), as_int(m.get("root_bus_ranks"))
            where = "the nccl-tests device list"
            where_zh = "nccl-tests 设备列表"
        else:
            flags = [_root_bus(str(b)) for b in as_list(m.get("bus_ids")) if b]
            known = [f for f in flags if f is not None]
            shown, on_root = len(known), sum(known)
            where, where_zh = "nvidia-smi", "nvidia-smi"
        if not shown or on_root != shown:
            continue
        node = ev.node_name
        return [
            _sig(
                ev,
                "gpu_root_bus",
                POINTS_TO_VIRTUAL,
                W_GPU_ROOT_BUS if shown >= 2 else W_GPU_ROOT_BUS_ONE,
                f"{where} on node {node} shows {'every one of its ' if shown >= 2 else 'its '}"
                f"{shown} GPU{'s' if shown >= 2 else ''} on PCI bus 00: where a hypervisor's "
                "virtual PCI bus puts a passed-through GPU; in a physical server a GPU sits "
                "behind a root port, on bus 01 or higher.",
                f"节点 {node} 的 {where_zh} 显示{'全部 ' if shown >= 2 else ''}{shown} 块 GPU "
                "位于 PCI 00 号总线："
                "这是虚拟化层的虚拟 PCI 总线放置直通 GPU 的位置；物理服务器的 GPU 位于根端口"
                "之下，总线号为 01 或更高。",
            )
        ]
    return []
