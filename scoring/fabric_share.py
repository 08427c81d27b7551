"""The declared compute fabric as the TCO's efficiency counts it (rubric v2).

Across nodes, when no all-reduce was measured there, the bandwidth a job's collectives get is
the all-reduce fraction of the declared system times the declared fabric's share of the
reference (scoring.collectives). That share is counted here: both fabrics as what a ring
reaches over them on the GPU, bounded inside the node by NVLink (on H800, a ring's 160 GB/s,
4 x 400 Gb/s carries all a ring uses, as 8 x 400 does); never below the front-end port every
node has (one 25 Gb/s Ethernet port at TCP's share: NCCL falls back to its sockets); and a
claim until checklist item 3 ("fabric") is verified: only the part above a fabric-less node
counts, scaled by the item's claim factor, as the SLA's availability does. ibstat's slower
port rate and its down ports (at least ceil(down / nodes) on the worst node) replace the claim
where they are worse.

scoring/ stays free of Django: this module reads the scoring inputs and the rubric only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .reference import NET_RDMA_EFFICIENCY, NET_TCP_EFFICIENCY
from .rubric import Rubric
from .types import CandidateInput

# A node with no declared compute fabric still has a front-end Ethernet port; 25 Gb/s is the
# common server NIC (rubric estimate, no single authoritative figure), at TCP's share.
NO_FABRIC_GBIT_S = 25

_TRANSPORTS = {
    "infiniband": ("InfiniBand", "InfiniBand"),
    "roce": ("RoCE", "RoCE"),
    "ethernet": ("Ethernet without RDMA", "无 RDMA 的以太网"),
}
_STATUSES = {
    "verified": ("verified", "已核实"),
    "claimed": ("claimed", "仅声明"),
    "unanswered": ("unanswered", "未作答"),
    "unverifiable": ("unverifiable", "无法核实"),
    "contradicted": ("contradicted", "被证据否定"),
}


@dataclass(frozen=True)
class Fabric:
    """The declared fabric against the reference, as counted (a job spanning nodes).

    ``nics`` and ``rate_gbit_s`` are what counted (ibstat's down ports and slower rate
    applied; 0 NICs: no fabric, the front-end port assumed); ``share`` its bandwidth share of
    the reference (at most 1), ``counted`` the share after the claim factor of checklist
    item 3 (``status``). ``nvlink_gbyte_s`` is the GPU's ring bound inside a node where it
    is below what the reference fabric carries (both fabrics were counted up to it), else None."""

    transport: str
    nics: int
    rate_gbit_s: float
    measured_rate: bool
    ports_down: int
    share: float
    counted: float
    status: str
    nvlink_gbyte_s: float | None = None

    def described(self) -> tuple[str, str]:
        """(English, Chinese) naming the fabric as counted: NICs x rate per node and
        transport (or the front-end port assumed), whether ibstat set it, the NVLink bound
        and the claim factor where they changed the count."""
        status_en, status_zh = _STATUSES.get(self.status, (self.status,) * 2)
        if self.nics:
            transport_en, transport_zh = _TRANSPORTS.get(self.transport, (self.transport,) * 2)
            what_en = f"{self.nics} x {self.rate_gbit_s:g} Gb/s per node ({transport_en})"
            what_zh = f"每节点 {self.nics} × {self.rate_gbit_s:g} Gb/s（{transport_zh}）"
            if self.measured_rate or self.ports_down:
                what_en += ", as ibstat showed it"
                what_zh += "，按 ibstat 所示"
        elif self.ports_down:
            # The claim named a fabric and ibstat showed none of its rails Active on the
            # worst node: say so, or "no compute fabric" reads as the vendor's own claim.
            transport_en, transport_zh = _TRANSPORTS.get(self.transport, (self.transport,) * 2)
            what_en = (
                f"none of the {self.ports_down} claimed {transport_en} rails Active on "
                "ibstat's worst node (a port of another link layer is another network; the "
                "fabric check names the ports it showed): no compute fabric counted, one "
                f"{NO_FABRIC_GBIT_S} Gb/s Ethernet port assumed"
            )
            what_zh = (
                f"ibstat 显示最差节点上所声明的 {self.ports_down} 条 {transport_zh} 链路均未激活"
                "（其他链路层的端口属于另一个网络；网络核验列出了所示端口）：不计计算网络，"
                f"假定一个 {NO_FABRIC_GBIT_S} Gb/s 以太网端口"
            )
        else:
            what_en = f"no compute fabric: one {NO_FABRIC_GBIT_S} Gb/s Ethernet port assumed"
            what_zh = f"无计算网络：假定一个 {NO_FABRIC_GBIT_S} Gb/s 以太网端口"
        if self.nvlink_gbyte_s is not None:
            what_en += (
                f"; a ring on this GPU is bounded by NVLink at {self.nvlink_gbyte_s:.1f} GB/s, "
                "so neither fabric counts beyond it"
            )
            what_zh += (
                f"；该 GPU 上的环形 all-reduce 受 NVLink 限制为 {self.nvlink_gbyte_s:.1f} GB/s，"
                "两种网络超出该值的部分均不计入"
            )
        if self.counted != self.share:
            what_en += f", counted as {self.counted:.1%} while item 3 is {status_en}"
            what_zh += f"，检查项 3 为{status_zh}，按 {self.counted:.1%} 计"
        return what_en, what_zh


def declared_fabric(
    candidate: CandidateInput,
    rubric: Rubric,
    reference: float,
    nvlink_gbyte_s: float | None = None,
) -> Fabric:
    """The declared fabric as counted against ``reference`` (Shape.reference: Gb/s per node
    at RDMA's share). Both are counted as the all-reduce a ring reaches over them, bounded
    inside the node by ``nvlink_gbyte_s`` (Shape.nvlink_gbyte_s, GB/s; None: unbounded): on an
    H800 (NVLink 400 GB/s) 4 x 400 Gb/s carries all a ring can use, as 8 x 400 does."""
    offering, measured = candidate.offering, candidate.measured
    transport = offering.fabric
    nics, rate = offering.nics_per_node, float(offering.fabric_rate_gbit_s)
    measured_rate = False
    down = 0
    if transport != "none" and nics > 0 and rate > 0:
        slowest = measured.ib_rate_gbit_s_min
        if slowest is not None and slowest < rate:
            # A rail measured at 0 is no faster than one measured at 1 Gb/s: both replace
            # the claim (a 0 left the claim standing, so a faster measurement cost more).
            rate, measured_rate = float(slowest), True
        if measured.ib_rails_min is not None:
            # The rails ibstat showed Active on the worst node (at most the NICs claimed).
            down = max(nics - measured.ib_rails_min, 0)
            nics -= down
        elif measured.ib_ports_down:
            # A summary stored before the rails were counted: the down ports were counted
            # over the nodes ibstat ran on, at most all of them, so the worst node lost at
            # least this many rails.
            down = math.ceil(measured.ib_ports_down / max(candidate.node_count, 1))
            nics = max(nics - down, 0)

    def ring(node_gbit_s: float) -> float:
        # The ring's bound over a node's fabric (GB/s), at most NVLink's inside the node.
        fabric_gbyte_s = node_gbit_s / 8
        return fabric_gbyte_s if nvlink_gbyte_s is None else min(nvlink_gbyte_s, fabric_gbyte_s)

    whole = ring(reference)
    none_share = min(1.0, ring(NO_FABRIC_GBIT_S * NET_TCP_EFFICIENCY) / whole)
    if transport == "none" or nics <= 0 or rate <= 0:
        share = none_share
        nics, rate = 0, 0.0
    else:
        efficiency = NET_TCP_EFFICIENCY if transport == "ethernet" else NET_RDMA_EFFICIENCY
        # Never below the front-end port every node has: a fabric slower than it is not
        # used (NCCL falls back to its sockets).
        share = max(none_share, min(1.0, ring(nics * rate * efficiency) / whole))
    status = candidate.answers.get("fabric", "unanswered")
    if status == "verified" or share <= none_share:
        counted = share
    elif status == "contradicted":
        counted = none_share
    else:
        factor = max(0.0, rubric.status_factors.get(status, 0.0))
        counted = none_share + factor * (share - none_share)
    bounded = nvlink_gbyte_s if whole < reference / 8 else None
    return Fabric(transport, nics, rate, measured_rate, down, share, counted, status, bounded)
