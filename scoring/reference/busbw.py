"""The all-reduce bus bandwidth a declared system should reach.

How the expected bus bandwidth is derived (see :func:`expected_busbw_gbyte_s`)
-----------------------------------------------------------------------------
nccl-tests reports ``busbw = algbw * 2(n-1)/n`` for all-reduce, chosen so that it can be compared
with the per-rank, one-direction bandwidth of the slowest link a ring crosses ("The bus bandwidth
should reflect the speed of the hardware bottleneck: NVLink, PCI, QPI, or network" —
NVIDIA/nccl-tests doc/PERFORMANCE.md). So the expected busbw is the smaller of two bounds:

* intra-node: the GPU's own link in one direction (NVLink, or PCIe when there is no NVLink)
  times the fraction NCCL's protocol delivers. NVIDIA puts that at ~80 %: "450GB/s is the line
  rate. With the protocol overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s"
  (sjeaugey, NVIDIA/nccl-tests#212); the 8 x A100-SXM4-40GB sample measures 232.2 GB/s against
  300 GB/s (0.77).
* inter-node: the node's whole network, ``nics_per_node * rate_gbit_s / 8`` GB/s, not a
  per-GPU share. NCCL runs one ring (channel) per NIC rail and splits the buffer over them, so
  every NIC carries ``2(N-1)/N * S / nics`` and busbw is bounded by the sum of the NICs: "On an
  Nvidia DGX-A100 system we have 8x200Gbit/s IB cards and we measure 192GB/s AllReduce BusBW"
  (AddyLaddy, NVIDIA/nccl#812, quoted in NVIDIA/nccl#1576) — 192 of 8 x 25 = 200 GB/s.

Both are the ring algorithm's bounds: what any healthy system reaches whichever algorithm NCCL
picks or the tester forces (NVIDIA recommends NCCL_ALGO=RING to benchmark two nodes:
NVIDIA/nccl-tests#196, #319). Faster algorithms exceed them, so they are never the expectation
(expert review: judging a ring run against them found healthy hardware wanting): NVLink SHARP
all-reduce in the NVSwitch ("On 8 GPUs, you should reach a peak busBw of ~480GB/s" for H100,
NVIDIA/nccl-tests#212; only from NCCL 2.17, and no gain at 2-4 GPUs, NVIDIA/nccl#1455), and
on few nodes tree/NVLS-tree, which reduces inside the node first so that busbw "can indeed go
beyond the network bottleneck" (sjeaugey, NVIDIA/nccl-tests#196) by up to ``(N-1)n / (N(n-1))``
(1.875 for 2 x 8 GPUs: the OCI 2 x 8 x H100 sample's 464.6 GB/s over a 400 GB/s network).
A run above the expectation counts as 1.0; those algorithms' higher bounds set the
implausibility ceiling instead (scoring.verification.network), above which a run is set aside.

The oversubscription of the fabric is not modelled: a POC's few nodes sit under one leaf switch.
"""

from __future__ import annotations

from dataclasses import dataclass

from .datasheet import possible_nvlink_topology
from .efficiency import (
    NET_RDMA_EFFICIENCY,
    NET_TCP_EFFICIENCY,
    NO_P2P_FACTOR,
    NVLINK_RING_EFFICIENCY,
    PCIE_EFFICIENCY,
    SPANS_SOCKETS_FACTOR,
)
from .fabric import nvlink_domain_size, run_in_nvlink_domain
from .gpus import GpuSpec

# --- expected all-reduce bus bandwidth ---------------------------------------------------------

NVLINK_TOPOLOGIES = ("full_mesh", "grouped", "none")
FABRICS = ("infiniband", "roce", "ethernet", "none")


@dataclass(frozen=True)
class ExpectedBusbw:
    """The all-reduce busbw (GB/s) a declared system should reach, and why.

    ``bound`` names the bottleneck ("intra_node", "inter_node", or "nvlink_domain" for a run
    across nodes of one NVLink domain, bounded by NVLink); the two component bounds are
    kept (None where not applicable) so that a page can show the arithmetic.
    """

    value_gbyte_s: float
    basis: str
    basis_zh: str
    bound: str
    intra_node_gbyte_s: float | None
    inter_node_gbyte_s: float | None


def _intra_node_bound(
    gpu: GpuSpec, gpus_per_node: int, nvlink_topology: str, spans_sockets: bool = False
) -> tuple[float, str, str]:
    uni = gpu.nvlink_uni_gbyte_s
    pcie = gpu.pcie_uni_gbyte_s * PCIE_EFFICIENCY
    # The reference row is named: a name without a variant word reads as the family's first
    # row or the declared form factor's (match_declared_gpu), an assumption the reader sees.
    card = gpu.display_name
    pcie_en = (
        f"{card}: PCIe Gen{gpu.pcie_gen} x16 {gpu.pcie_uni_gbyte_s:g} GB/s x {PCIE_EFFICIENCY:g}"
    )
    pcie_zh = (
        f"{card}：PCIe Gen{gpu.pcie_gen} x16 {gpu.pcie_uni_gbyte_s:g} GB/s × {PCIE_EFFICIENCY:g}"
    )
    if not gpu.pcie_p2p:
        pcie *= NO_P2P_FACTOR
        pcie_en += f" x {NO_P2P_FACTOR:g} (no PCIe peer-to-peer, staged through host memory)"
        pcie_zh += f" × {NO_P2P_FACTOR:g}（无 PCIe P2P，经主机内存中转）"
    elif spans_sockets and gpus_per_node >= 2:
        pcie *= SPANS_SOCKETS_FACTOR
        pcie_en += (
            f" x {SPANS_SOCKETS_FACTOR:g} (nvidia-smi topo -m shows the GPUs on two CPU sockets, "
            "SYS: the ring's hops between the sockets are staged through host memory)"
        )
        pcie_zh += (
            f" × {SPANS_SOCKETS_FACTOR:g}（nvidia-smi topo -m 显示 GPU 分属两个 CPU 插槽（SYS）："
            "环在插槽之间的传输经主机内存中转）"
        )
    nvlink_usable = uni > 0 and nvlink_topology in ("full_mesh", "grouped")
    # PCIe cards joined in bridged pairs: with more than two GPUs the ring must cross PCIe.
    bridged_beyond_pair = gpu.form_factor == "pcie" and gpus_per_node > 2
    if nvlink_usable and not (nvlink_topology == "grouped" and bridged_beyond_pair):
        # The ring's bound, NVLink SHARP or not (see the module docstring).
        value = uni * NVLINK_RING_EFFICIENCY
        return (
            value,
            f"{card}: NVLink {uni:g} GB/s per direction x {NVLINK_RING_EFFICIENCY:g} "
            "(NCCL protocol share)",
            f"{card}：NVLink 单向 {uni:g} GB/s × {NVLINK_RING_EFFICIENCY:g}（NCCL 协议效率）",
        )
    return pcie, pcie_en, pcie_zh


def expected_busbw_gbyte_s(
    gpu: GpuSpec,
    gpus_per_node: int,
    node_count: int,
    nvlink_topology: str,
    fabric: str,
    fabric_rate_gbit_s: float,
    nics_per_node: int,
    nvlink_domain_gpus: int | None = None,
    gpus_span_sockets: bool = False,
) -> ExpectedBusbw | None:
    """The all-reduce busbw (GB/s) the declared system should reach at its best message size.

    ``gpus_per_node`` >= 1 and ``node_count`` >= 1 describe the run being judged (the nodes the
    POC tested), ``nvlink_topology`` and ``fabric`` are the claimed values, ``fabric_rate_gbit_s``
    the claimed rate per port and ``nics_per_node`` the compute rails. ``nvlink_domain_gpus``
    is the claimed NVLink domain (None or 0: the node): a multi-node run whose GPUs fit in one
    domain is bounded by NVLink, as inside a node (bound "nvlink_domain"), not by the fabric.
    ``gpus_span_sockets``: the evidence shows a node's GPUs on two CPU sockets (SYS between
    GPUs in nvidia-smi topo -m), so a ring over PCIe runs at the staged rate
    (SPANS_SOCKETS_FACTOR); without it every GPU is taken to reach the others by PCIe P2P.
    Returns None when no bound applies (one GPU on one node) or a multi-node run outside one
    NVLink domain has no declared network to bound it (fabric "none" or rate/NIC count 0). See
    the module docstring for the derivation; a healthy system measures 0.8-1.05 of the value.
    """
    if gpus_per_node < 1 or node_count < 1:
        raise ValueError("gpus_per_node and node_count must be at least 1")
    if nvlink_topology not in NVLINK_TOPOLOGIES:
        raise ValueError(f"unknown nvlink_topology {nvlink_topology!r}")
    if fabric not in FABRICS:
        raise ValueError(f"unknown fabric {fabric!r}")
    # A topology the datasheet rules out sets no expectation: what the GPU can have does.
    nvlink_topology = possible_nvlink_topology(gpu, gpus_per_node, nvlink_topology)
    intra: float | None = None
    intra_en = intra_zh = ""
    if gpus_per_node >= 2:
        intra, intra_en, intra_zh = _intra_node_bound(
            gpu, gpus_per_node, nvlink_topology, gpus_span_sockets
        )
    if run_in_nvlink_domain(gpus_per_node, node_count, nvlink_domain_gpus):
        intra, intra_en, intra_zh = _intra_node_bound(
            gpu, gpus_per_node, nvlink_topology, gpus_span_sockets
        )
        ranks = gpus_per_node * node_count
        domain = nvlink_domain_size(nvlink_domain_gpus, gpus_per_node)
        return ExpectedBusbw(
            value_gbyte_s=round(intra, 2),
            basis=(
                f"{intra:.1f} GB/s bounded by NVLink: the run's {ranks} GPUs on {node_count} "
                f"nodes fit in one {domain}-GPU NVLink domain: {intra_en}"
            ),
            basis_zh=(
                f"{intra:.1f} GB/s，受 NVLink 限制：该测试 {node_count} 个节点共 {ranks} 块 GPU"
                f"位于同一个 {domain} GPU 的 NVLink 域内：{intra_zh}"
            ),
            bound="nvlink_domain",
            intra_node_gbyte_s=round(intra, 2),
            inter_node_gbyte_s=None,
        )
    inter: float | None = None
    inter_en = inter_zh = ""
    if node_count >= 2:
        if fabric == "none" or fabric_rate_gbit_s <= 0 or nics_per_node <= 0:
            return None
        node_gbyte_s = nics_per_node * fabric_rate_gbit_s / 8
        eff = NET_TCP_EFFICIENCY if fabric == "ethernet" else NET_RDMA_EFFICIENCY
        # The ring's bound over the node's rails (see the module docstring): a tree on few
        # nodes may exceed it, which the implausibility ceiling allows for.
        inter = node_gbyte_s * eff
        inter_en = (
            f"network {nics_per_node} x {fabric_rate_gbit_s:g} Gb/s = {node_gbyte_s:g} GB/s per "
            f"node x {eff:g} (ring all-reduce over {node_count} nodes; a tree may exceed it)"
        )
        inter_zh = (
            f"网络 {nics_per_node} × {fabric_rate_gbit_s:g} Gb/s = 每节点 {node_gbyte_s:g} GB/s"
            f" × {eff:g}（{node_count} 节点环形 all-reduce；树形算法可能超出）"
        )
    if intra is not None and (inter is None or intra <= inter):
        return ExpectedBusbw(
            value_gbyte_s=round(intra, 2),
            basis=f"{intra:.1f} GB/s bounded inside the node: {intra_en}",
            basis_zh=f"{intra:.1f} GB/s，受节点内互联限制：{intra_zh}",
            bound="intra_node",
            intra_node_gbyte_s=round(intra, 2),
            inter_node_gbyte_s=None if inter is None else round(inter, 2),
        )
    if inter is None:
        return None
    return ExpectedBusbw(
        value_gbyte_s=round(inter, 2),
        basis=f"{inter:.1f} GB/s bounded by the network: {inter_en}",
        basis_zh=f"{inter:.1f} GB/s，受节点间网络限制：{inter_zh}",
        bound="inter_node",
        intra_node_gbyte_s=None if intra is None else round(intra, 2),
        inter_node_gbyte_s=round(inter, 2),
    )
