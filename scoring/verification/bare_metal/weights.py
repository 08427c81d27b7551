"""What each bare-metal signal weighs, the thresholds and patterns the signal readers apply, and
_sig, which makes one signal of a node's evidence."""

from __future__ import annotations

import re

from ..model import NodeEvidence, Signal

# Signal weights. Virtual signals are near-proof; physical ones are softer because a
# hypervisor can hide or fake them (KVM `kvm=off` hides the CPUID bit for GPU passthrough,
# QEMU `-smbios type=1` copies the host's DMI product; full-board passthrough shows NVSwitches,
# which therefore count for neither side).
W_HYPERVISOR_FLAG = 0.9
# The kernel log's "Hypervisor detected: NAME" (x86 init_hypervisor_platform, from the same CPUID
# hypervisor leaf as the flag): a guest's line, as strong as the flag. A Xen host's own dom0 runs
# under Xen and prints "Xen PV" / "Xen HVM" on the physical machine (a Qubes dom0 on a Dell
# Latitude in the samples), so a Xen name alone cannot make a verdict.
W_KERNEL_HYPERVISOR = 0.9
W_KERNEL_HYPERVISOR_XEN = 0.5
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
# A container signal weighs nothing on either side (see the package docstring).
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


def _sig(ev: NodeEvidence, name: str, points_to: str, weight: float, en: str, zh: str) -> Signal:
    return Signal(name, points_to, weight, ev.ref, en, zh, ev.node_name)
