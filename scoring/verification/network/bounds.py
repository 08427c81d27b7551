"""What a collective run of the declared system should reach and can reach at most."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...reference import (
    NET_RDMA_EFFICIENCY,
    NET_TCP_EFFICIENCY,
    NO_P2P_FACTOR,
    NVLINK_RING_EFFICIENCY,
    PCIE_EFFICIENCY,
    SPANS_SOCKETS_FACTOR,
    ExpectedBusbw,
    GpuSpec,
    expected_busbw_gbyte_s,
    nvlink_domain_size,
    possible_nvlink_topology,
)
from .._util import as_int
from ..model import Claims, NodeEvidence

# The physical ceiling of a run: the line rate of the declared links with no protocol loss.
# NVLink SHARP all-reduce reaches 1.07 x the NVLink line rate (480 of 450 GB/s on 8 x H100,
# NVIDIA/nccl-tests#212), so its ceiling is 1.1 x; a further 10 % covers rounding and the
# timer noise of small runs. Above ceiling x margin no healthy run of the declared hardware
# can land: the run is implausible (another system, an edited log) and is never used.
NVLS_CEILING_FACTOR = 1.1
IMPLAUSIBLE_MARGIN = 1.1

ALL_REDUCE = "all_reduce"
ALLTOALL = "alltoall"
ALL_GATHER = "all_gather"
COLLECTIVES = (ALL_REDUCE, ALLTOALL, ALL_GATHER)
_COLLECTIVE_EN = {ALL_REDUCE: "all_reduce", ALLTOALL: "alltoall", ALL_GATHER: "all_gather"}


@dataclass(frozen=True)
class _Bound:
    """What a run of the declared system should reach (``expected``) and can reach at most."""

    expected: ExpectedBusbw | None
    ceiling_gbyte_s: float | None


def _intra_line(
    spec: GpuSpec, claims: Claims, collective: str, spans_sockets: bool = False
) -> tuple[float, float]:
    """(expected, ceiling) GB/s busbw inside one node for alltoall / all_gather (ring);
    ``spans_sockets``: the node's GPUs are on two CPU sockets (gpus_span_sockets), so a PCIe
    ring's hops between them are staged through host memory."""
    uni = spec.nvlink_uni_gbyte_s
    bridged_beyond_pair = spec.form_factor == "pcie" and claims.gpus_per_node > 2
    # What the GPU can have, not a topology its datasheet rules out (expected_busbw_gbyte_s).
    topology = possible_nvlink_topology(spec, claims.gpus_per_node, claims.nvlink_topology)
    nvlink = uni > 0 and topology in ("full_mesh", "grouped")
    if nvlink and not (topology == "grouped" and bridged_beyond_pair):
        return uni * NVLINK_RING_EFFICIENCY, uni
    pcie = spec.pcie_uni_gbyte_s
    staged = not spec.pcie_p2p or (spans_sockets and claims.gpus_per_node >= 2)
    factor = NO_P2P_FACTOR if not spec.pcie_p2p else SPANS_SOCKETS_FACTOR
    expected = pcie * PCIE_EFFICIENCY * (factor if staged else 1.0)
    return expected, pcie


def _net_factor(collective: str, ranks: int, gpus_per_node: int, nodes: int) -> float:
    """busbw / per-node network bandwidth at the network's physical bound, by collective: what
    no algorithm can exceed (the implausibility ceiling).

    all_reduce (tree): (N-1)n / (N(n-1)) (scoring.reference). all_gather: each node receives
    (N-g)/N of the output over its NICs, so busbw = algbw (N-1)/N <= B (N-1)/(N-g).
    alltoall: each node sends g (N-g)/N of a rank's buffer off-node, so busbw <= B (N-1)/(g(N-g)).
    """
    n, g = ranks, gpus_per_node
    if collective == ALL_REDUCE:
        return (n - 1) * nodes / (n * (nodes - 1))
    if collective == ALL_GATHER:
        return (n - 1) / (n - g)
    return (n - 1) / (g * (n - g))


def _expected_net_factor(collective: str, ranks: int, gpus_per_node: int, nodes: int) -> float:
    """busbw / per-node network bandwidth that NCCL's algorithm for ``collective`` reaches:
    the expectation, never above ``_net_factor``.

    all_gather with several GPUs per node runs as rings (one per NIC rail), each crossing the
    node's NICs once per step, so busbw <= B as for the ring all-reduce (scoring.reference):
    190 GB/s expected of 8 x HDR (x 0.95), not the 1.875 x B the bound allows at 2 x 8 GPUs
    (356 GB/s: a healthy run read 0.52 and uploading it lowered the score; the real 2 x 8 H200
    sample over 8 x 400G peaks at 332.6 GB/s, under the ring's 380; NVIDIA/nccl#1368: 8 x H100
    over 4 x 400G RoCE, ring 190 GB/s). With one GPU per node the bound is B too. alltoall is
    point-to-point sends, no ring: its bound is what a healthy fabric reaches.
    """
    if collective == ALL_GATHER:
        return 1.0
    return _net_factor(collective, ranks, gpus_per_node, nodes)


def _bound(
    claims: Claims,
    spec: GpuSpec | None,
    collective: str,
    nodes: int,
    via_nvlink: bool = False,
    spans_sockets: bool = False,
) -> _Bound:
    """What a run on ``nodes`` nodes should reach and can reach at most; ``via_nvlink``: a run
    across nodes of one NVLink domain (run_in_nvlink_domain), bounded by NVLink as inside a
    node, not by the fabric; ``spans_sockets``: the evidence shows a node's GPUs on two CPU
    sockets (gpus_span_sockets), which lowers a PCIe ring's expectation, never its ceiling."""
    if spec is None:
        return _Bound(None, None)
    g = claims.gpus_per_node
    ranks = g * nodes
    net_ok = claims.fabric != "none" and claims.fabric_rate_gbit_s > 0 and claims.nics_per_node > 0
    inter_line = inter_reached = None
    if nodes >= 2 and net_ok and not via_nvlink:
        node_gbyte_s = claims.nics_per_node * claims.fabric_rate_gbit_s / 8
        inter_line = node_gbyte_s * _net_factor(collective, ranks, g, nodes)
        inter_reached = node_gbyte_s * _expected_net_factor(collective, ranks, g, nodes)
    if collective == ALL_REDUCE:
        expected = expected_busbw_gbyte_s(
            spec,
            g,
            nodes,
            claims.nvlink_topology,
            claims.fabric,
            claims.fabric_rate_gbit_s,
            claims.nics_per_node,
            claims.nvlink_domain_gpus if via_nvlink else None,
            spans_sockets,
        )
        intra_line = None
        if g >= 2 or via_nvlink:
            _, intra_line = _intra_line(spec, claims, collective)
            uses_nvls = (
                claims.nvlink_topology == "full_mesh" and spec.nvls and spec.form_factor != "pcie"
            )
            if uses_nvls:
                intra_line *= NVLS_CEILING_FACTOR
    else:
        expected = None
        intra_expected = intra_line = None
        if g >= 2 or via_nvlink:
            intra_expected, intra_line = _intra_line(spec, claims, collective, spans_sockets)
        inter_expected = None
        if inter_reached is not None:
            eff = NET_TCP_EFFICIENCY if claims.fabric == "ethernet" else NET_RDMA_EFFICIENCY
            inter_expected = inter_reached * eff
        if nodes >= 2 and inter_expected is None and not via_nvlink:
            return _Bound(None, None)
        values = [v for v in (intra_expected, inter_expected) if v is not None]
        nics, rate = claims.nics_per_node, claims.fabric_rate_gbit_s
        if values:
            value = round(min(values), 2)
            bound = "intra_node" if value == round(intra_expected or -1, 2) else "inter_node"
            ring = collective == ALL_GATHER
            where = (
                "inside the node (NVLink/PCIe ring)"
                if bound == "intra_node"
                else (
                    f"by the network ({nics} × {rate} Gb/s per node over {nodes} nodes"
                    + ("; a ring crosses each node's NICs once per step)" if ring else ")")
                )
            )
            where_zh = (
                "受节点内互联限制（NVLink/PCIe 环）"
                if bound == "intra_node"
                else (
                    f"受节点间网络限制（每节点 {nics} × {rate} Gb/s，{nodes} 个节点"
                    + ("；环形算法每步经过每个节点的网卡一次）" if ring else "）")
                )
            )
            if via_nvlink:
                domain = nvlink_domain_size(claims.nvlink_domain_gpus, g)
                bound = "nvlink_domain"
                where = f"by NVLink ({nodes} nodes of one {domain}-GPU NVLink domain)"
                where_zh = f"受 NVLink 限制（同一 {domain} GPU NVLink 域内的 {nodes} 个节点）"
            expected = ExpectedBusbw(
                value_gbyte_s=value,
                basis=f"{value:g} GB/s {_COLLECTIVE_EN[collective]} bounded {where}",
                basis_zh=f"{value:g} GB/s，{_COLLECTIVE_EN[collective]} {where_zh}",
                bound=bound,
                intra_node_gbyte_s=None if intra_expected is None else round(intra_expected, 2),
                inter_node_gbyte_s=None if inter_expected is None else round(inter_expected, 2),
            )
    lines = [v for v in (intra_line, inter_line) if v is not None]
    if nodes >= 2 and inter_line is None and not via_nvlink:
        lines = []
    ceiling = round(min(lines) * IMPLAUSIBLE_MARGIN, 2) if lines else None
    if expected is not None and expected.value_gbyte_s <= 0:
        expected = None
    return _Bound(expected, ceiling)


def gpus_span_sockets(evidence: Sequence[NodeEvidence]) -> bool:
    """Whether an nvidia-smi topo -m of the candidate shows two of a node's GPUs joined through
    the CPUs' socket interconnect (SYS: "traversing PCIe as well as the SMP interconnect
    between NUMA nodes"), the layout of a dual-socket PCIe server. NVLinked GPUs show NV#
    instead, so only GPUs a ring must join over PCIe are counted."""
    for ev in evidence:
        if ev.kind != "nvidia_smi_topo":
            continue
        pairs = ev.metrics.get("gpu_pair_links")
        if isinstance(pairs, Mapping) and (as_int(pairs.get("SYS")) or 0) > 0:
            return True
    return False
