"""Is the delivery really bare metal? Signals from the evidence, weighed into a verdict.

Each signal points to "bare_metal" or "virtual" with a weight in 0..1 (how much it alone
would convince). Per side the weights combine like independent evidence (noisy-OR:
``p = 1 - prod(1 - w)``), the same signal repeated on several nodes counting once at its
strongest. Then::

    bare_metal_score = p_bm * (1 - p_virtual)
    virtual_score    = p_virtual * (1 - COUNTER_EVIDENCE_DISCOUNT * p_bm)

so a virtual signal always lowers the bare-metal score, and physical signals only partly
offset a virtual one: a hypervisor can hide its CPUID bit or pass the host's DMI strings
through, but no physical host shows a virtio GPU. A verdict needs its score at or above
VERDICT_THRESHOLD; otherwise it is "uncertain". One weak signal is never enough.

A container (systemd-detect-virt "docker", "podman", "lxc"...) is no hypervisor: an engineer
who runs the collector in Docker on a physical host sees the host's CPU, DMI and PCI devices.
Its signal points to CONTEXT and weighs on neither side, so it can never make a verdict
"virtualised" (issue #10: a physical machine must never be judged virtualised); MIG mode, a
GPU partition physical hosts use too, weighs on neither side either. A container does keep a
"bare metal" verdict at "uncertain": from inside a container nobody can tell whether the
machine is handed over whole, so only a run on the host itself can verify a bare-metal claim.
A container inside a VM is still a VM: when the same evidence names the hypervisor under the
container (``systemd-detect-virt --vm``, or a second run), both signals are kept and the VM
counts against bare metal like any other.

A virtio net or block device is a VM's device, except where a BlueField DPU emulates it for the
bare-metal host it sits in (DOCA virtio-net, SNAP virtio-blk; bare-metal GPU clouds deliver
network and disks this way). When the lspci listing itself ties the device to the DPU, the
parser lists it apart (``dpu_virtio``) and it becomes a CONTEXT signal; without such a link it
still counts as a VM device, and a virtio GPU always does.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

from ._util import as_bool, as_int, as_list, by_node, first, num, of_kind, per_node
from .model import (
    POINTS_TO_BARE_METAL,
    POINTS_TO_VIRTUAL,
    VERDICT_BARE_METAL,
    VERDICT_UNCERTAIN,
    VERDICT_VIRTUALISED,
    BareMetalVerdict,
    Claims,
    NodeEvidence,
    Signal,
)

VERDICT_THRESHOLD = 0.6
COUNTER_EVIDENCE_DISCOUNT = 0.6

# Signal weights. Virtual signals are near-proof; physical ones are softer because a
# hypervisor can hide or fake them (KVM `kvm=off` hides the CPUID bit for GPU passthrough,
# QEMU `-smbios type=1` copies the host's DMI product; full-board passthrough shows NVSwitches,
# which therefore count for neither side).
W_HYPERVISOR_FLAG = 0.9
W_NO_HYPERVISOR_FLAG = 0.3
W_DMI_VIRTUAL = 0.9
# A cloud whose bare-metal machines print the same DMI strings as its VMs: Google Compute
# Engine's metal machines (C3 metal...) say "Google Compute Engine" too, and their SMBIOS VM bit
# is unset on VMs as well (systemd/systemd#38125), so the product alone cannot tell them apart.
W_DMI_CLOUD_ALSO_METAL = 0.5
_DMI_CLOUD_ALSO_METAL = re.compile(r"Google Compute Engine", re.IGNORECASE)
W_DMI_SERVER_VENDOR = 0.5
W_DMI_OTHER_PHYSICAL = 0.25
W_LSPCI_VIRTUAL = 0.85
W_LSPCI_BMC = 0.4
W_LSPCI_OTHER_PHYSICAL = 0.2
W_DETECT_VIRT_VM = 0.9
W_DETECT_VIRT_NONE = 0.35
# A container signal weighs nothing on either side (see the module docstring).
W_CONTAINER = 0.0
# Points to neither side: a container says nothing about a hypervisor under the host.
POINTS_TO_CONTEXT = "context"
W_VGPU = 0.95
W_PASSTHROUGH = 0.95
W_HOST_VGPU = 0.5
W_VIRT_MODE_NONE = 0.3
# MIG partitions a GPU, on physical hosts too (a DGX A100 runs it bare metal): context, like a
# container, never weight towards a hypervisor. As a 0.5 virtual signal it made "MIG enabled"
# plus a few CPUs held back (0.3) a "virtualised" verdict (0.65) on a physical host.
W_MIG = 0.0
# Virtio devices a BlueField DPU emulates for the host it sits in (the lspci parser ties each one
# to the DPU from the same listing): context only. A virtio device with no such link still counts
# as a VM device at W_LSPCI_VIRTUAL, and a virtio GPU always does.
W_DPU_VIRTIO = 0.0
W_CPU_SLICE = 0.5
W_CPU_SHORT = 0.3
W_CPU_MATCH = 0.15
# Sharper signals (issue #13). Each is weak or strong for a stated reason:
# - GPUs on low, closely spaced bus numbers (all under 0x40, at most 8 apart): how QEMU and
#   VMware number the emulated root ports a passed-through GPU sits behind; a physical server
#   spreads GPUs over its root complexes (e.g. 1b, 43, 52, 61, 9d...). A workstation behind
#   one PCIe switch can look alike, hence a weak weight, and never with only 1-3 GPUs.
# - SR-IOV virtual functions of the HCA/NIC without their physical function: what a VM given a
#   VF sees (a host with SR-IOV on lists PFs and VFs together).
# - nvidia-smi topo -m with 8+ GPUs, every one on the same NUMA node, and no NIC: a VM's flat
#   virtual NUMA; single-socket physical 8-GPU boxes exist, hence weak.
# - NCCL network plugins that exist only in one cloud's VMs (GCP GPUDirect-TCPX/TCPXO); AWS EFA
#   is mostly VMs but also on .metal instances, hence weaker; libfabric/OFI alone says nothing
#   (Slingshot HPC is bare metal).
# - Hyper-V's vPCI layout (lspci): passed-through devices each alone on bus 00 of a non-zero PCI
#   domain, no bridge above them. A physical multi-segment host puts root ports on bus 00 and
#   its endpoints behind them, so two such domains are near-proof; one is weaker (a single line
#   such as Azure NC's "0001:00:00.0 3D controller" is thin evidence on its own).
# - GPUs on bus 00 of their PCI domain, as nvidia-smi ("00000001:00:00.0") and the nccl-tests
#   device list ("[0x00]", "[0002:00:01]") print them: a discrete GPU in a physical server sits
#   behind a root port, on bus 01 or higher; bus 00 is where a hypervisor's virtual PCI bus puts
#   a passed-through GPU (Hyper-V vPCI on Azure, a QEMU or Nitro root bus). Two or more GPUs
#   there are near-proof; one alone is weaker (an integrated GPU, not on PCIe, can report 0).
W_GPU_ROOT_BUS = 0.8
W_GPU_ROOT_BUS_ONE = 0.5
W_PCI_LAYOUT = 0.35
W_HYPERV_VPCI = 0.8
W_HYPERV_VPCI_ONE = 0.5
W_SRIOV_VF_ONLY = 0.75
W_HCA_VF = 0.7
W_TOPO_FLAT = 0.3
W_NCCL_GCP_TCPX = 0.75
W_NCCL_AWS_EFA = 0.4
# systemd-detect-virt says "oracle" (VirtualBox) on some physical Oracle servers (systemd issue
# 21100); when DMI names an Oracle server and not VirtualBox, the word counts for little.
W_DETECT_VIRT_ORACLE_SERVER = 0.15
# "oracle" alone: VirtualBox is not how GPU clouds deliver machines, and systemd has misread
# physical Oracle servers as VirtualBox, so the word alone cannot make a verdict.
W_DETECT_VIRT_ORACLE = 0.5
PCI_LAYOUT_MIN_GPUS = 4
PCI_LAYOUT_MAX_BUS = 0x40
# ConnectX virtual functions as ibstat prints their PCI device id (CA type MTxxxx, decimal):
# 0x1014 CX-4, 0x1016 CX-4 Lx, 0x1018 CX-5, 0x101a CX-5 Ex, 0x101c CX-6, 0x101e mlx5Gen VF.
_HCA_VF_TYPES = {"MT4116", "MT4118", "MT4120", "MT4122", "MT4124", "MT4126"}
# Logical CPUs as a share of the claim: at most half is a VM slice; 90 % or more is the whole
# machine (a hypervisor host typically keeps a few cores back).
CPU_SLICE_AT_MOST = 0.5
CPU_MATCH_FROM = 0.9

_SERVER_VENDORS = re.compile(
    r"DGX|HGX|PowerEdge|ProLiant|Apollo|Inspur|NF\d{4}|Supermicro|Super Micro|SYS-\d|AS -\d|"
    r"ThinkSystem|Lenovo|UniServer|H3C|xFusion|FusionServer|Huawei|Gigabyte|G\d{3}-|ASUS|ESC\d|"
    r"Sugon|Nettrix|Quanta|Wiwynn|Foxconn|Fujitsu|PRIMERGY|Cisco|UCS|NVIDIA|Dell",
    re.IGNORECASE,
)
_BMC = re.compile(r"ASPEED|Matrox|iLO|BMC|iDRAC|XCC", re.IGNORECASE)
# GPUs built into an SoC, not on PCIe: their bus number says nothing about a hypervisor.
_BUS_ID = re.compile(r"(?:[0-9A-Fa-f]{4,8}:)?([0-9A-Fa-f]{2}):[0-9A-Fa-f]{2}\.[0-7]")
_INTEGRATED_GPU = re.compile(r"Orin|Xavier|Thor|Tegra|Jetson", re.IGNORECASE)
# The nvidia-smi outputs that name each GPU, its bus id and the driver's virtualisation mode
# (the table, -q and --query-gpu, -q -x).
_NVIDIA_SMI_KINDS = ("nvidia_smi", "nvidia_smi_query", "nvidia_smi_xml")
_VGPU_NAME = re.compile(r"\bGRID\b|[-_ ]\d{1,3}[QCAB]\b", re.IGNORECASE)


# The parsers name what they found in English (scoring/evidence/dmi.py, lspci.py): a Chinese
# explanation names the dmidecode field and the kind of device in Chinese, and keeps the
# values read from the node and the products' names as printed.
_DMI_FIELDS_ZH = {
    "System Product Name": "系统产品名称",
    "System Version": "系统版本",
    "System Family": "系统系列",
    "System Manufacturer": "系统制造商",
    "BIOS Vendor": "BIOS 厂商",
    "BIOS Version": "BIOS 版本",
    "Processor Manufacturer": "处理器制造商",
    "Chassis Manufacturer": "机箱制造商",
    "Chassis Version": "机箱版本",
}
_DMI_SIGNAL_RE = re.compile(r"^(?P<field>[A-Za-z ]+?) (?P<value>'.*'|\".*\") \((?P<label>.*)\)$")
_DEVICE_SIGNAL_RE = re.compile(
    r"^(?P<label>.*?) (?P<ids>[0-9a-f]{4}:[0-9a-f]{4} )?\((?P<name>.*)\)$"
)
# Generic words of the parsers' labels; what is left is a product's or a tool's name.
_LABEL_WORDS_ZH = (
    (
        re.compile(r"^SR-IOV virtual function without its physical function$"),
        "缺少物理功能的 SR-IOV 虚拟功能",
    ),
    (re.compile(r" firmware \((.*)\)$"), r" 固件（\1）"),
    (re.compile(r" machine$"), " 机型"),
    (re.compile(r"^emulated (.*) chipset$"), r"模拟的 \1 芯片组"),
    (re.compile(r"^emulated (.*)$"), r"模拟的 \1"),
    (re.compile(r" standard VGA$"), " 标准 VGA"),
    (re.compile(r" platform device$"), " 平台设备"),
    (re.compile(r" virtual device$"), " 虚拟设备"),
    (re.compile(r" device$"), " 设备"),
    (re.compile(r" physical function$"), " 物理功能"),
    (re.compile(r" virtual function$"), " 虚拟功能"),
    (re.compile(r"^GRID/vGPU model$"), "GRID/vGPU 型号"),
    (re.compile(r" bridge$"), " 桥接器"),
)


def _label_zh(label: str) -> str:
    for pattern, zh in _LABEL_WORDS_ZH:
        shown, count = pattern.subn(zh, label)
        if count:
            return shown
    return label


_DPU_SIGNAL_RE = re.compile(
    r"^(?P<device>.*\)) at (?P<slot>\S+) emulated by a BlueField DPU: (?P<link>.*)$"
)
_DPU_LINKS_ZH = (
    (re.compile(r"^Subsystem (.*)$"), r"子系统 \1"),
    (
        re.compile(r"^a function of the BlueField device at (\S+)$"),
        r"为 \1 处 BlueField 设备的一个功能",
    ),
    (
        re.compile(r"^behind the PCIe switch of the BlueField at (\S+) \(bridge (\S+)\)$"),
        r"位于 \1 处 BlueField 的 PCIe 交换机之后（桥接器 \2）",
    ),
)


def signal_zh(signal: str) -> str:
    """A parser's signal ("BIOS Vendor 'SeaBIOS' (SeaBIOS firmware (QEMU/KVM))", "virtio device
    1af4:1050 (Red Hat, Inc. Virtio 1.0 GPU)", "NVSwitch bridge") worded in Chinese: the field
    and the kind of device translated, values and product names as read."""
    dpu = _DPU_SIGNAL_RE.match(signal)
    if dpu:
        link = dpu["link"]
        for pattern, zh in _DPU_LINKS_ZH:
            link = pattern.sub(zh, link)
        return f"{signal_zh(dpu['device'])}，位于 {dpu['slot']}，由 BlueField DPU 模拟：{link}"
    dmi = _DMI_SIGNAL_RE.match(signal)
    if dmi and dmi["field"] in _DMI_FIELDS_ZH:
        return f"{_DMI_FIELDS_ZH[dmi['field']]} {dmi['value']}（{_label_zh(dmi['label'])}）"
    device = _DEVICE_SIGNAL_RE.match(signal)
    if device:
        ids = f" {device['ids'].strip()}" if device["ids"] else ""
        return f"{_label_zh(device['label'])}{ids}（{device['name']}）"
    return _label_zh(signal)


def _sig(ev: NodeEvidence, name: str, points_to: str, weight: float, en: str, zh: str) -> Signal:
    return Signal(name, points_to, weight, ev.ref, en, zh, ev.node_name)


def _cpu_signals(ev: NodeEvidence, claims: Claims) -> list[Signal]:
    m, node, out = ev.metrics, ev.node_name, []
    hyper = as_bool(m.get("hypervisor"))
    vendor = m.get("hypervisor_vendor")
    if hyper or vendor:
        who = f" ({vendor})" if vendor else ""
        out.append(
            _sig(
                ev,
                "cpu_hypervisor_flag",
                POINTS_TO_VIRTUAL,
                W_HYPERVISOR_FLAG,
                f"The CPU on node {node} reports running under a hypervisor{who}.",
                f"节点 {node} 的 CPU 报告运行于虚拟机监控程序之下{who}。",
            )
        )
    elif hyper is False:
        out.append(
            _sig(
                ev,
                "cpu_hypervisor_flag",
                POINTS_TO_BARE_METAL,
                W_NO_HYPERVISOR_FLAG,
                f"The CPU on node {node} shows no hypervisor flag (a hypervisor can hide it).",
                f"节点 {node} 的 CPU 无 hypervisor 标志（虚拟化层可隐藏该标志）。",
            )
        )
    cpus = as_int(m.get("logical_cpus"))
    claimed = claims.logical_cpus_per_node
    if cpus is not None and claimed:
        share = cpus / claimed
        seen = f"{cpus} logical CPUs on node {node} against {claimed} claimed"
        seen_zh = f"节点 {node} 有 {cpus} 个逻辑 CPU（声明 {claimed} 个）"
        if share <= CPU_SLICE_AT_MOST:
            out.append(
                _sig(
                    ev,
                    "cpu_count",
                    POINTS_TO_VIRTUAL,
                    W_CPU_SLICE,
                    f"{seen}: a slice of the machine, as a VM gets.",
                    f"{seen_zh}：仅为整机的一部分，符合虚拟机特征。",
                )
            )
        elif share < CPU_MATCH_FROM:
            out.append(
                _sig(
                    ev,
                    "cpu_count",
                    POINTS_TO_VIRTUAL,
                    W_CPU_SHORT,
                    f"{seen}: some CPUs are held back, as a hypervisor host does.",
                    f"{seen_zh}：部分 CPU 被保留，类似虚拟化宿主机。",
                )
            )
        else:
            out.append(
                _sig(
                    ev,
                    "cpu_count",
                    POINTS_TO_BARE_METAL,
                    W_CPU_MATCH,
                    f"{seen}: the whole machine's CPUs are visible.",
                    f"{seen_zh}：可见整机全部 CPU。",
                )
            )
    return out


def _dmi_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    products = [str(p) for p in as_list(m.get("products")) if p]
    makers = [str(p) for p in as_list(m.get("manufacturers")) if p]
    shown = ", ".join(products or makers) or "unnamed product"
    shown_zh = ", ".join(products or makers) or "未命名产品"
    virtual = as_bool(m.get("virtual"))
    if virtual:
        found = [str(v) for v in as_list(m.get("virtual_signals")) if v]
        shown = "; ".join(found) or shown
        shown_zh = "；".join(signal_zh(v) for v in found) or shown_zh
        also_metal = bool(found) and all(_DMI_CLOUD_ALSO_METAL.search(v) for v in found)
        if also_metal:
            return [
                _sig(
                    ev,
                    "dmi_product",
                    POINTS_TO_VIRTUAL,
                    W_DMI_CLOUD_ALSO_METAL,
                    f"DMI on node {node} names a cloud machine: {shown}. The cloud's bare-metal "
                    "machines print the same product, so it is mostly, not surely, a VM.",
                    f"节点 {node} 的 DMI 信息为云主机：{shown_zh}。该云的裸金属机器也显示相同的"
                    "产品名，因此多半是虚拟机，但不能确定。",
                )
            ]
        return [
            _sig(
                ev,
                "dmi_product",
                POINTS_TO_VIRTUAL,
                W_DMI_VIRTUAL,
                f"DMI on node {node} names a virtual machine: {shown}.",
                f"节点 {node} 的 DMI 信息为虚拟机：{shown_zh}。",
            )
        ]
    if virtual is False:
        if any(_SERVER_VENDORS.search(text) for text in products + makers):
            return [
                _sig(
                    ev,
                    "dmi_product",
                    POINTS_TO_BARE_METAL,
                    W_DMI_SERVER_VENDOR,
                    f"DMI on node {node} names a physical GPU server: {shown}.",
                    f"节点 {node} 的 DMI 信息为物理 GPU 服务器：{shown_zh}。",
                )
            ]
        return [
            _sig(
                ev,
                "dmi_product",
                POINTS_TO_BARE_METAL,
                W_DMI_OTHER_PHYSICAL,
                f"DMI on node {node} names no hypervisor: {shown}.",
                f"节点 {node} 的 DMI 信息未显示虚拟化：{shown_zh}。",
            )
        ]
    return []


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


def _ibstat_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    types = [str(t).upper() for t in as_list(m.get("ca_types")) if t]
    if types and all(t in _HCA_VF_TYPES for t in types):
        shown = ", ".join(dict.fromkeys(types))
        return [
            _sig(
                ev,
                "hca_virtual_function",
                POINTS_TO_VIRTUAL,
                W_HCA_VF,
                f"Every InfiniBand/RoCE adapter on node {node} is a ConnectX virtual function "
                f"({shown}): a VM given SR-IOV slices of the HCAs.",
                f"节点 {node} 的所有 InfiniBand/RoCE 适配器均为 ConnectX 虚拟功能（{shown}）："
                "这是分到 HCA SR-IOV 切片的虚拟机。",
            )
        ]
    return []


def _topo_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    gpus, nics = as_int(m.get("gpu_count")), as_int(m.get("nic_count"))
    numa = [str(n) for n in as_list(m.get("numa_nodes")) if n not in (None, "", "N/A")]
    if gpus is not None and gpus >= 8 and nics == 0 and len(numa) == 1:
        return [
            _sig(
                ev,
                "topo_flat_numa",
                POINTS_TO_VIRTUAL,
                W_TOPO_FLAT,
                f"nvidia-smi topo -m on node {node} shows {gpus} GPUs all on NUMA node "
                f"{numa[0]} and no NIC: the flat layout of a VM (a physical 8-GPU server "
                "usually has two NUMA nodes and its NICs in the matrix).",
                f"节点 {node} 的 nvidia-smi topo -m 显示 {gpus} 块 GPU 全在 NUMA 节点 "
                f"{numa[0]} 且无网卡：符合虚拟机的扁平布局（物理 8 卡服务器通常有两个 NUMA "
                "节点，且网卡出现在拓扑中）。",
            )
        ]
    return []


def _nccl_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    plugins = [str(p) for p in as_list(m.get("net_plugins")) if p]
    gcp = [p for p in plugins if p.startswith("GCP ")]
    if gcp:
        return [
            _sig(
                ev,
                "nccl_cloud_plugin",
                POINTS_TO_VIRTUAL,
                W_NCCL_GCP_TCPX,
                f"NCCL on node {node} used {gcp[0]}, a network plugin that exists only in "
                "Google Cloud A3 virtual machines.",
                f"节点 {node} 的 NCCL 使用了 {gcp[0]}，该网络插件仅存在于 Google Cloud A3 "
                "虚拟机中。",
            )
        ]
    if "AWS EFA" in plugins:
        return [
            _sig(
                ev,
                "nccl_cloud_plugin",
                POINTS_TO_VIRTUAL,
                W_NCCL_AWS_EFA,
                f"NCCL on node {node} used AWS EFA (aws-ofi-nccl), found mostly on AWS virtual "
                "instances (EFA also exists on .metal instances).",
                f"节点 {node} 的 NCCL 使用了 AWS EFA（aws-ofi-nccl），多见于 AWS 虚拟实例"
                "（.metal 裸金属实例也可能有 EFA）。",
            )
        ]
    return []


def _virt_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    word = str(m.get("virt") or "").strip()
    virtual = as_bool(m.get("virtual"))
    if as_bool(m.get("container")):
        out = [
            _sig(
                ev,
                "container",
                POINTS_TO_CONTEXT,
                W_CONTAINER,
                f"systemd-detect-virt on node {node} reports a container ({word}): the "
                "collector ran in a container, which is no hypervisor; whether the host is "
                "handed over whole cannot be seen from inside it.",
                f"节点 {node} 的 systemd-detect-virt 报告运行于容器（{word}）：采集器在容器中"
                "运行，容器不是虚拟机监控程序；从容器内部无法判断整机是否独占交付。",
            )
        ]
        if virtual:
            # A container inside a VM is still a VM (`systemd-detect-virt --vm`, or a second
            # run, named the hypervisor under the container): the VM counts against bare metal.
            vm_word = str(m.get("vm_virt") or "").strip()
            out.append(_detect_virt_vm_signal(ev, vm_word, under_container=True))
        return out
    if virtual or (word and word.lower() != "none" and virtual is None):
        # "virt" shows a container's word when one run printed it, even when another plain run
        # contradicts it with a hypervisor; "vm_virt" names the hypervisor itself.
        vm_word = str(m.get("vm_virt") or word).strip()
        return [_detect_virt_vm_signal(ev, vm_word, under_container=False)]
    if word.lower() == "none" or virtual is False:
        return [
            _sig(
                ev,
                "systemd_detect_virt",
                POINTS_TO_BARE_METAL,
                W_DETECT_VIRT_NONE,
                f"systemd-detect-virt on node {node} detects no virtualisation.",
                f"节点 {node} 的 systemd-detect-virt 未检测到虚拟化。",
            )
        ]
    return []


def _detect_virt_vm_signal(ev: NodeEvidence, word: str, *, under_container: bool) -> Signal:
    """systemd-detect-virt's hypervisor ``word`` ("" when only known to be some VM), seen
    directly or under the container the collector ran in."""
    node = ev.node_name
    if not under_container:
        en = f"systemd-detect-virt on node {node} reports the hypervisor {word!r}."
        zh = f"节点 {node} 的 systemd-detect-virt 报告虚拟化类型 {word!r}。"
    elif word:
        en = (
            f"systemd-detect-virt on node {node} reports the hypervisor {word!r} under the "
            "container: the container runs in a virtual machine."
        )
        zh = (
            f"节点 {node} 的 systemd-detect-virt 报告容器之下的虚拟化类型 {word!r}："
            "容器运行于虚拟机中。"
        )
    else:
        en = (
            f"systemd-detect-virt on node {node} reports a hypervisor under the container: the "
            "container runs in a virtual machine."
        )
        zh = (
            f"节点 {node} 的 systemd-detect-virt 报告容器之下存在虚拟机监控程序："
            "容器运行于虚拟机中。"
        )
    weight = W_DETECT_VIRT_ORACLE if word.lower() == "oracle" else W_DETECT_VIRT_VM
    return _sig(ev, "systemd_detect_virt", POINTS_TO_VIRTUAL, weight, en, zh)


def _gpu_mode_signals(ev: NodeEvidence) -> list[Signal]:
    m, node, out = ev.metrics, ev.node_name, []
    names = [str(n) for n in as_list(first(m, "gpu_names", "product_names")) if n]
    vgpu_names = [n for n in names if _VGPU_NAME.search(n)]
    if as_bool(m.get("vgpu")) or vgpu_names:
        shown = ", ".join(dict.fromkeys(vgpu_names)) or "a vGPU"
        shown_zh = ", ".join(dict.fromkeys(vgpu_names)) or "vGPU"
        out.append(
            _sig(
                ev,
                "nvidia_vgpu",
                POINTS_TO_VIRTUAL,
                W_VGPU,
                f"nvidia-smi on node {node} shows a virtual GPU ({shown}).",
                f"节点 {node} 的 nvidia-smi 显示虚拟 GPU（{shown_zh}）。",
            )
        )
    modes = {
        str(v).strip().lower().replace("-", "").replace(" ", "")
        for v in as_list(m.get("virtualization_mode"))
        if v
    }
    if "passthrough" in modes:
        out.append(
            _sig(
                ev,
                "gpu_virtualization_mode",
                POINTS_TO_VIRTUAL,
                W_PASSTHROUGH,
                f"The NVIDIA driver on node {node} reports its GPUs passed through to a VM.",
                f"节点 {node} 的 NVIDIA 驱动报告 GPU 以直通方式分配给虚拟机。",
            )
        )
    elif "vgpu" in modes:
        out.append(
            _sig(
                ev,
                "gpu_virtualization_mode",
                POINTS_TO_VIRTUAL,
                W_VGPU,
                f"The NVIDIA driver on node {node} reports vGPU mode.",
                f"节点 {node} 的 NVIDIA 驱动报告 vGPU 模式。",
            )
        )
    elif "hostvgpu" in modes:
        out.append(
            _sig(
                ev,
                "gpu_virtualization_mode",
                POINTS_TO_VIRTUAL,
                W_HOST_VGPU,
                f"The GPUs on node {node} are set up as a vGPU host, to be shared out to VMs.",
                f"节点 {node} 的 GPU 配置为 vGPU 宿主，用于分配给虚拟机共享。",
            )
        )
    elif modes == {"none"}:
        out.append(
            _sig(
                ev,
                "gpu_virtualization_mode",
                POINTS_TO_BARE_METAL,
                W_VIRT_MODE_NONE,
                f"The NVIDIA driver on node {node} reports no GPU virtualisation.",
                f"节点 {node} 的 NVIDIA 驱动报告 GPU 未虚拟化。",
            )
        )
    if any(as_bool(v) is True for v in as_list(m.get("mig_mode"))):
        out.append(
            _sig(
                ev,
                "mig_mode",
                POINTS_TO_CONTEXT,
                W_MIG,
                f"MIG is enabled on node {node}: the GPUs are partitioned into instances (a "
                "GPU feature physical hosts use too, no sign of a hypervisor).",
                f"节点 {node} 已启用 MIG：GPU 被划分为多个实例（物理主机同样可用的 GPU 功能，"
                "并非虚拟化迹象）。",
            )
        )
    return out


def _root_bus(bus_id: str) -> bool | None:
    """Whether an nvidia-smi bus id ("00000001:00:00.0") is on bus 00; None if unreadable."""
    match = _BUS_ID.fullmatch(bus_id.strip())
    return int(match.group(1), 16) == 0 if match else None


def _root_bus_signals(evs: Sequence[NodeEvidence]) -> list[Signal]:
    """One signal per node when every GPU whose PCI bus its evidence shows sits on bus 00."""
    for ev in evs:
        m = ev.metrics
        names = [str(n) for n in as_list(first(m, "gpu_names", "product_names")) if n]
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


def collect_signals(claims: Claims, evidence: Sequence[NodeEvidence]) -> list[Signal]:
    """Every bare-metal / virtualisation signal in the evidence, node by node, stable order."""
    signals: list[Signal] = []
    for node, evs in by_node(evidence).items():
        signals.extend(per_node("bare_metal", node, claims, lambda e=evs: _node_signals(claims, e)))
    return [_oracle_server_correction(s, evidence) for s in signals]


def _node_signals(claims: Claims, evs: Sequence[NodeEvidence]) -> tuple[Signal, ...]:
    """The signals of one node's evidence, in collect_signals' order."""
    signals: list[Signal] = []
    for ev in of_kind(evs, "cpu_info"):
        signals.extend(_cpu_signals(ev, claims))
    for ev in of_kind(evs, "dmi"):
        signals.extend(_dmi_signals(ev))
    for ev in of_kind(evs, "lspci"):
        signals.extend(_lspci_signals(ev))
    for ev in of_kind(evs, "virt"):
        signals.extend(_virt_signals(ev))
    for ev in of_kind(evs, *_NVIDIA_SMI_KINDS):
        signals.extend(_gpu_mode_signals(ev))
    for ev in of_kind(evs, "ibstat"):
        signals.extend(_ibstat_signals(ev))
    for ev in of_kind(evs, "nvidia_smi_topo"):
        signals.extend(_topo_signals(ev))
    for ev in of_kind(evs, "nccl_tests"):
        signals.extend(_nccl_signals(ev))
    signals.extend(_root_bus_signals(of_kind(evs, *_NVIDIA_SMI_KINDS, "nccl_tests")))
    return tuple(signals)


def _oracle_server_correction(signal: Signal, evidence: Sequence[NodeEvidence]) -> Signal:
    """systemd-detect-virt's "oracle" on a node whose DMI names an Oracle server, not VirtualBox."""
    if signal.name != "systemd_detect_virt" or signal.points_to != POINTS_TO_VIRTUAL:
        return signal
    if "'oracle'" not in signal.explanation_en:
        return signal
    for ev in evidence:
        if ev.node_name != signal.node_name or ev.kind != "dmi":
            continue
        texts = [
            str(t) for key in ("products", "manufacturers") for t in as_list(ev.metrics.get(key))
        ]
        joined = " ".join(texts).lower()
        if (
            "oracle" in joined
            and "virtualbox" not in joined
            and not as_bool(ev.metrics.get("virtual"))
        ):
            node = signal.node_name
            return Signal(
                signal.name,
                signal.points_to,
                W_DETECT_VIRT_ORACLE_SERVER,
                signal.evidence_ref,
                f"systemd-detect-virt on node {node} says 'oracle' (VirtualBox), but DMI names "
                "an Oracle server: systemd is known to misread Oracle hardware this way.",
                f"节点 {node} 的 systemd-detect-virt 报告 'oracle'（VirtualBox），但 DMI 显示为 "
                "Oracle 服务器：systemd 已知会如此误判 Oracle 硬件。",
                node,
            )
    return signal


def _side_probability(signals: Iterable[Signal], side: str) -> float:
    strongest: dict[str, float] = {}
    for s in signals:
        if s.points_to == side:
            strongest[s.name] = max(strongest.get(s.name, 0.0), min(max(s.weight, 0.0), 1.0))
    remaining = 1.0
    for weight in strongest.values():
        remaining *= 1 - weight
    return 1 - remaining


def combine_signals(signals: Sequence[Signal]) -> BareMetalVerdict:
    """Weigh signals into a verdict (see the module docstring). No signals: uncertain, 0."""
    p_bm = _side_probability(signals, POINTS_TO_BARE_METAL)
    p_vm = _side_probability(signals, POINTS_TO_VIRTUAL)
    bm_score = round(p_bm * (1 - p_vm), 4)
    vm_score = round(p_vm * (1 - COUNTER_EVIDENCE_DISCOUNT * p_bm), 4)
    ordered = tuple(sorted(signals, key=lambda s: (-s.weight, s.name, s.node_name or "")))
    in_container = sorted({s.node_name or "" for s in signals if s.name == "container"})
    if bm_score >= VERDICT_THRESHOLD and bm_score >= vm_score and not in_container:
        verdict, confidence, side = VERDICT_BARE_METAL, bm_score, POINTS_TO_BARE_METAL
    elif vm_score >= VERDICT_THRESHOLD:
        verdict, confidence, side = VERDICT_VIRTUALISED, vm_score, POINTS_TO_VIRTUAL
    else:
        verdict, confidence, side = VERDICT_UNCERTAIN, max(bm_score, vm_score), ""
    reasons = [
        s for s in ordered if s.points_to != POINTS_TO_CONTEXT and (not side or s.points_to == side)
    ][:3]
    because_en = " ".join(s.explanation_en for s in reasons)
    because_zh = "".join(s.explanation_zh for s in reasons)
    scores = f"bare-metal score {num(bm_score, 2)}, virtual score {num(vm_score, 2)}"
    scores_zh = f"裸金属得分 {num(bm_score, 2)}，虚拟化得分 {num(vm_score, 2)}"
    if not signals:
        en = "Uncertain: no evidence about virtualisation was uploaded (confidence 0)."
        zh = "无法判断：未上传任何与虚拟化相关的证据（置信度 0）。"
    elif verdict == VERDICT_BARE_METAL:
        en = f"Bare metal (confidence {num(confidence, 2)}; {scores}). {because_en}"
        zh = f"裸金属（置信度 {num(confidence, 2)}；{scores_zh}）。{because_zh}"
    elif verdict == VERDICT_VIRTUALISED:
        en = f"Virtualised (confidence {num(confidence, 2)}; {scores}). {because_en}"
        zh = f"虚拟化（置信度 {num(confidence, 2)}；{scores_zh}）。{because_zh}"
    elif in_container and p_vm == 0.0:
        nodes = ", ".join(n for n in in_container if n) or "?"
        en = (
            "Uncertain: the collector ran in a container; the host shows no hypervisor "
            f"(container on node {nodes}; {scores}). A container cannot show whether the "
            "machine is handed over whole: run the collector on the host itself to verify a "
            f"bare-metal claim. {because_en}"
        )
        zh = (
            "无法判断：采集器在容器中运行；宿主机未显示任何虚拟机监控程序"
            f"（容器位于节点 {nodes}；{scores_zh}）。容器内无法判断整机是否独占交付："
            f"请在宿主机上直接运行采集器以验证裸金属声明。{because_zh}"
        )
    else:
        en = (
            f"Uncertain: the signals are too weak or point both ways ({scores}; a verdict "
            f"needs {num(VERDICT_THRESHOLD, 2)}). {because_en}"
        )
        zh = (
            f"无法判断：信号过弱或相互矛盾（{scores_zh}；判定需达到 "
            f"{num(VERDICT_THRESHOLD, 2)}）。{because_zh}"
        )
    return BareMetalVerdict(verdict, confidence, ordered, bm_score, vm_score, en, zh)


def verify_bare_metal(claims: Claims, evidence: Sequence[NodeEvidence]) -> BareMetalVerdict:
    """The bare-metal verdict for all nodes together: a virtual signal on any node counts."""
    return combine_signals(collect_signals(claims, evidence))


# The delivery forms from most to least favourable (isolation and efficiency, issue #10 §1):
# a claim is contradicted when the evidence shows a less favourable one.
FORMS_BY_FAVOUR = ("bare_metal", "passthrough_vm", "mig", "vgpu", "container")
# Only a hypervisor was seen: the form under it is unknown.
SEEN_VIRTUALISED = "virtualised"


def _node_forms(evs: Sequence[NodeEvidence]) -> set[str]:
    """The specific virtualised forms one node's evidence names (a container is none: see
    delivery_form_seen)."""
    forms: set[str] = set()
    for ev in evs:
        m = ev.metrics
        if ev.kind in _NVIDIA_SMI_KINDS:
            names = [str(n) for n in as_list(first(m, "gpu_names", "product_names")) if n]
            modes = {
                str(v).strip().lower().replace("-", "").replace(" ", "")
                for v in as_list(m.get("virtualization_mode"))
                if v
            }
            if as_bool(m.get("vgpu")) or any(_VGPU_NAME.search(n) for n in names):
                forms.add("vgpu")
            if "vgpu" in modes:
                forms.add("vgpu")
            if "passthrough" in modes:
                forms.add("passthrough_vm")
    return forms


def delivery_form_seen(verdict: BareMetalVerdict, evidence: Sequence[NodeEvidence]) -> str | None:
    """The delivery form the evidence shows, judged on the least favourable node: "bare_metal"
    for a bare-metal verdict; for a virtualised one the specific form a node names (a container,
    a vGPU, GPUs passed through) or "virtualised" when only a hypervisor shows; None while the
    verdict is uncertain. A container is never a form seen: it is where the collector ran (an
    engineer's Docker on a physical host or in a VM), not how the vendor delivers the machine,
    so a container inside a VM shows the VM ("virtualised")."""
    if verdict.verdict == VERDICT_BARE_METAL:
        return "bare_metal"
    if verdict.verdict != VERDICT_VIRTUALISED:
        return None
    seen = SEEN_VIRTUALISED
    for evs in by_node(evidence).values():
        for form in _node_forms(evs):
            if seen == SEEN_VIRTUALISED or FORMS_BY_FAVOUR.index(form) > FORMS_BY_FAVOUR.index(
                seen
            ):
                seen = form
    return seen
