"""NICs by the device id ibstat prints, the reference compute fabric of a GPU generation, and
NVLink domains larger than one node."""

from __future__ import annotations

# --- NICs: ibstat prints the PCI device id in decimal as "CA type: MT4129" --------------------
from .gpus import GpuSpec
from .names import match_declared_gpu

NIC_MAX_RATE_GBIT_S: dict[str, int] = {
    # Linux pci.ids (Mellanox vendor 15b3) device ids and the fastest port speed of each card.
    "MT4099": 56,  # 0x1003 ConnectX-3, FDR
    "MT4103": 56,  # 0x1007 ConnectX-3 Pro, FDR
    "MT4115": 100,  # 0x1013 ConnectX-4, EDR / 100GbE
    "MT4117": 50,  # 0x1015 ConnectX-4 Lx
    "MT4119": 100,  # 0x1017 ConnectX-5, EDR / 100GbE
    "MT4121": 100,  # 0x1019 ConnectX-5 Ex
    "MT4123": 200,  # 0x101b ConnectX-6, HDR
    "MT4125": 200,  # 0x101d ConnectX-6 Dx, 2x100 / 1x200 GbE
    "MT4127": 50,  # 0x101f ConnectX-6 Lx
    "MT4129": 400,  # 0x1021 ConnectX-7, NDR / 400GbE
    "MT4131": 800,  # 0x1023 ConnectX-8, XDR / 800GbE
    "MT41686": 200,  # 0xa2d6 BlueField-2
    "MT41692": 400,  # 0xa2dc BlueField-3
}
NIC_NAMES: dict[str, str] = {
    "MT4099": "ConnectX-3",
    "MT4103": "ConnectX-3 Pro",
    "MT4115": "ConnectX-4",
    "MT4117": "ConnectX-4 Lx",
    "MT4119": "ConnectX-5",
    "MT4121": "ConnectX-5 Ex",
    "MT4123": "ConnectX-6",
    "MT4125": "ConnectX-6 Dx",
    "MT4127": "ConnectX-6 Lx",
    "MT4129": "ConnectX-7",
    "MT4131": "ConnectX-8",
    "MT41686": "BlueField-2",
    "MT41692": "BlueField-3",
}


def nic_max_rate_gbit_s(ca_type: str | None) -> int | None:
    """The fastest port rate (Gb/s) of a Mellanox/NVIDIA card from ibstat's "CA type", or None."""
    if not ca_type:
        return None
    return NIC_MAX_RATE_GBIT_S.get(ca_type.strip().upper())


# --- the reference compute fabric of a GPU generation -----------------------------------------

# The east-west (compute) fabric NVIDIA builds its DGX systems of each generation with: one NIC
# rail per GPU at the generation's port rate, in Gb/s per GPU. A multi-node training job on a
# thinner fabric waits longer in its collectives (scoring/collectives.py prices that in the TCO).
# Families without a DGX/HGX multi-node system (PCIe inference and workstation cards) have no
# reference: their fabric's size is then not priced, and the TCO says so.
_DGX1 = "NVIDIA DGX-1 with V100 datasheet: 4 x 100 Gb/s EDR InfiniBand for 8 GPUs (50 per GPU)"
_DGXA100 = "NVIDIA DGX A100 datasheet: 8 x single-port ConnectX-6 200 Gb/s HDR, one per GPU"
_DGXH100 = "NVIDIA DGX H100/H200 datasheets: 8 x ConnectX-7 400 Gb/s NDR, one per GPU"
_DGXB200 = "NVIDIA DGX B200 datasheet: 8 x single-port ConnectX-7 400 Gb/s, one per GPU"
_DGXB300 = "NVIDIA DGX B300 datasheet: 8 x ConnectX-8 SuperNIC 800 Gb/s, one per GPU"
REFERENCE_FABRIC_GBIT_S_PER_GPU: dict[str, tuple[int, str]] = {
    "V100": (50, _DGX1),
    "A100": (200, _DGXA100),
    "A800": (200, _DGXA100 + " (A800: the same HGX board, China export SKU)"),
    "H100": (400, _DGXH100),
    "H800": (400, _DGXH100 + " (H800: the same HGX board, China export SKU)"),
    "H20": (400, _DGXH100 + " (HGX H20: the same HGX board, China export SKU)"),
    "H200": (400, _DGXH100),
    "GH200": (400, "NVIDIA DGX GH200: one ConnectX-7 400 Gb/s per superchip"),
    "B200": (400, _DGXB200),
    "GB200": (400, "NVIDIA GB200 NVL72 compute tray: one ConnectX-7 400 Gb/s per GPU"),
    "B300": (800, _DGXB300),
}

# The stand-in an accelerator without NVIDIA's figures (reference.OTHER_ACCELERATORS: Huawei
# Ascend, AMD Instinct) has its declared fabric judged against in the TCO: no datasheet states
# the fabric its vendor's cluster is built for to the portal's standard, and a class guess (by
# memory, by generation) would rate a declared fabric higher than an NVIDIA GPU of a faster
# generation is rated on it. The most demanding reference of the table (the fastest NIC rail
# per GPU), with no NVLink bound, rates a declared fabric no higher than any NVIDIA GPU's
# reference would: an unreferenced part never pays less per effective GPU-hour than an NVIDIA
# one on the same fabric. It follows the table: a faster generation added raises it.
STAND_IN_FABRIC_FAMILY, (STAND_IN_FABRIC_GBIT_S_PER_GPU, STAND_IN_FABRIC_SOURCE) = max(
    REFERENCE_FABRIC_GBIT_S_PER_GPU.items(), key=lambda item: (item[1][0], item[0])
)


def reference_fabric(
    gpu_model: str | None, form_factor: str | None = None, memory_gib: float | None = None
) -> tuple[GpuSpec, int, str] | None:
    """(the GPU, its generation's reference Gb/s per GPU, the source) or None without one; the
    GPU is the declared ``form_factor``'s card where the name states none
    (match_declared_gpu: an "H100 80GB" declared PCIe is the PCIe card, bounded by PCIe)."""
    spec = match_declared_gpu(gpu_model, form_factor, memory_gib)
    if spec is None:
        return None
    found = REFERENCE_FABRIC_GBIT_S_PER_GPU.get(spec.family)
    return None if found is None else (spec, *found)


# --- NVLink domains larger than one node ------------------------------------------------------

# A rack-scale system joins the GPUs of several nodes (trays) in one NVLink domain through its
# NVSwitch trays: GB200 NVL72 (72 GPUs, 18 trays of 4), GH200 NVL32 (32 superchips, one per
# node). NCCL then runs a collective among GPUs of one domain over NVLink (multi-node NVLink,
# NCCL 2.19+), at NVLink's bandwidth rather than the compute fabric's.


def nvlink_domain_size(declared: int | None, gpus_per_node: int) -> int:
    """The GPUs of one NVLink domain: ``declared`` where the offering states one (a multiple
    of ``gpus_per_node``, at least it), else (None or 0) the node's GPUs."""
    return declared if declared else gpus_per_node


def nvlink_domain_problem(
    declared: int | None, gpus_per_node: int, nvlink_topology: str | None = None
) -> tuple[str, str] | None:
    """Why ``declared`` GPUs cannot be an NVLink domain of ``gpus_per_node``-GPU nodes, as
    (en, zh), or None when it can (None or 0: the node itself). A domain joins whole nodes, so
    it is a multiple of the node's GPUs and at least one node; one larger than a node needs
    NVLink (``nvlink_topology`` not "none", where given)."""
    if not declared:
        return None
    if isinstance(declared, bool) or not isinstance(declared, int) or declared < 0:
        return (
            f"the NVLink domain must be a whole number of GPUs, got {declared!r}",
            f"NVLink 域必须是整数个 GPU，收到 {declared!r}",
        )
    if declared < gpus_per_node or declared % gpus_per_node:
        return (
            f"the NVLink domain ({declared} GPUs) must be a multiple of the {gpus_per_node} GPUs "
            "per node, at least one node",
            f"NVLink 域（{declared} 块 GPU）必须是每节点 {gpus_per_node} 块 GPU 的整数倍，"
            "且至少为一个节点",
        )
    if declared > gpus_per_node and nvlink_topology == "none":
        return (
            f"an NVLink domain of {declared} GPUs across nodes needs an NVLink topology, not none",
            f"跨节点的 {declared} GPU NVLink 域需要 NVLink 拓扑，不能为“无”",
        )
    return None


def run_in_nvlink_domain(gpus_per_node: int, node_count: int, domain_gpus: int | None) -> bool:
    """Whether a run on ``node_count`` nodes of ``gpus_per_node`` GPUs spans more than one node
    yet fits in one NVLink domain of ``domain_gpus`` (nvlink_domain_size), so that NCCL can
    keep its traffic on NVLink."""
    domain = nvlink_domain_size(domain_gpus, gpus_per_node)
    return node_count >= 2 and gpus_per_node * node_count <= domain
