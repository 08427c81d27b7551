"""Checklist item 3 (fabric type, port rate and state) and the all-reduce bus bandwidth check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..evidence.perftest import bw_avg_each_way_gbit_s
from ..reference import (
    NET_RDMA_EFFICIENCY,
    NET_TCP_EFFICIENCY,
    NIC_NAMES,
    NO_P2P_FACTOR,
    NVLINK_RING_EFFICIENCY,
    PCIE_EFFICIENCY,
    ExpectedBusbw,
    GpuNameFacts,
    GpuSpec,
    claimed_gpu_facts,
    expected_busbw_gbyte_s,
    gpu_name_differences,
    gpu_name_facts,
    match_gpu,
    nic_max_rate_gbit_s,
    nvlink_domain_size,
    possible_nvlink_topology,
    run_in_nvlink_domain,
)
from ._util import (
    NodeResult,
    as_float,
    as_int,
    as_list,
    by_node,
    combine_nodes,
    num,
    of_kind,
    pct,
    pct_zh,
    per_node,
    same_host,
    size_text,
)
from .model import (
    SEVERITY_ERROR,
    STATUS_CONTRADICTED,
    STATUS_UNVERIFIABLE,
    STATUS_VERIFIED,
    Claims,
    Fault,
    ItemVerification,
    NodeEvidence,
)

# A point-to-point ib_write_bw run below half the port rate cannot be a healthy port of that
# rate; above 85 % it is (the 100 GbE sample reaches 98.02 Gb/s).
PERFTEST_CONTRADICTS_BELOW = 0.5
PERFTEST_SUPPORTS_FROM = 0.85
# busbw fraction bands (measured / expected); see scoring.reference for the expected value.
BUSBW_VERIFIED_FROM = 0.8
BUSBW_CONTRADICTED_BELOW = 0.5

_LAYERS_ACCEPTED = {
    "infiniband": {"infiniband"},
    # RoCE and plain Ethernet run on Ethernet ports; an InfiniBand port is better, not worse.
    "roce": {"ethernet", "infiniband"},
    "ethernet": {"ethernet", "infiniband"},
}
_FABRIC_EN = {"infiniband": "InfiniBand", "roce": "RoCE", "ethernet": "Ethernet", "none": "none"}


@dataclass(frozen=True)
class _Port:
    ca: str
    port: int | None
    state: str
    physical_state: str
    rate_gbit_s: float | None
    link_layer: str
    ca_type: str

    @property
    def label(self) -> str:
        return self.ca if self.port in (None, 1) else f"{self.ca} port {self.port}"

    def describe(self, zh: bool = False) -> str:
        state = self.state + (f"/{self.physical_state}" if self.physical_state else "")
        rate = "?" if self.rate_gbit_s is None else num(self.rate_gbit_s)
        card = NIC_NAMES.get(self.ca_type.upper(), self.ca_type) or "?"
        if zh:
            return f"{self.label}（{card}）{state}，速率 {rate}"
        return f"{self.label} ({card}) {state} at rate {rate}"


def _ports(metrics: Mapping[str, Any]) -> list[_Port]:
    ports = []
    for raw in as_list(metrics.get("ports")):
        if not isinstance(raw, Mapping):
            continue
        ports.append(
            _Port(
                ca=str(raw.get("ca") or "?"),
                port=as_int(raw.get("port")),
                state=str(raw.get("state") or "?"),
                physical_state=str(raw.get("physical_state") or ""),
                rate_gbit_s=as_float(raw.get("rate_gbit_s")),
                link_layer=str(raw.get("link_layer") or ""),
                ca_type=str(raw.get("ca_type") or ""),
            )
        )
    return ports


# The link layer the compute rails of a claimed fabric run on. A port of another layer is a
# different network (the Ethernet bond of an InfiniBand node carries front-end and storage
# traffic), never a rail of the claimed fabric.
_LAYER_OF_FABRIC = {"infiniband": "infiniband", "roce": "ethernet", "ethernet": "ethernet"}


def rail_layers(ports: Sequence[Mapping[str, Any]], fabric: str) -> set[str] | None:
    """The link layer (lower case, one) whose ports are compute rails, from ibstat's ``ports``.

    An InfiniBand claim: InfiniBand. A RoCE or Ethernet claim runs on Ethernet, but an
    InfiniBand port serves it too (better, not worse): of the two, the layer of the fastest
    active port (Ethernet on a tie). Without a claim: the layer of the fastest active port
    (InfiniBand on a tie). Either way one layer, so a node's second network (the Ethernet
    bond beside InfiniBand rails) never counts as a rail. None when no port names its layer.
    """
    layers = {str(p.get("link_layer") or "").lower() for p in ports} - {""}
    if not layers:
        return None
    allowed = set(_LAYERS_ACCEPTED.get(fabric, layers))
    own = _LAYER_OF_FABRIC.get(fabric, "infiniband")
    active = [
        (as_float(p.get("rate_gbit_s")) or 0.0, layer != own, layer)
        for p in ports
        if p.get("state") == "Active"
        and (layer := str(p.get("link_layer") or "").lower()) in allowed
    ]
    if not active:
        if own in layers:
            return {own}
        within = allowed & layers
        return {min(within)} if within else ({own} if fabric in _LAYER_OF_FABRIC else layers)
    # Fastest first; on a tie the claimed fabric's own layer (InfiniBand without a claim).
    return {min(active, key=lambda a: (-a[0], a[1], a[2]))[2]}


def left_out_text(
    ports: Sequence[Mapping[str, Any]], layers: set[str] | None, fabric: str
) -> tuple[list[str], str, str]:
    """(labels, en, zh) naming the ports of another link layer and why they are not rails;
    empty texts when none is left out."""
    if layers is None:
        return [], "", ""
    out = [p for p in ports if str(p.get("link_layer") or "").lower() not in layers]
    if not out:
        return [], "", ""
    labels = [f"{p.get('ca') or '?'} port {p.get('port') or '?'}" for p in out]
    shown = "; ".join(
        f"{p.get('ca') or '?'} ({p.get('link_layer') or 'link layer not shown'}, "
        f"{p.get('state') or '?'}, rate {num(as_float(p.get('rate_gbit_s')) or 0)})"
        for p in out
    )
    shown_zh = "；".join(
        f"{p.get('ca') or '?'}（{p.get('link_layer') or '未显示链路层'}，"
        f"{p.get('state') or '?'}，速率 {num(as_float(p.get('rate_gbit_s')) or 0)}）"
        for p in out
    )
    kept = " and ".join(_FABRIC_EN.get(layer, layer) for layer in sorted(layers))
    why = (
        f"the rails of the claimed {_FABRIC_EN[fabric]} fabric are its {kept} ports"
        if fabric in _LAYER_OF_FABRIC
        else f"no fabric is claimed and the fastest active ports are {kept}"
    )
    why_zh = (
        f"声明的 {_FABRIC_EN[fabric]} 网络的计算端口为 {kept} 端口"
        if fabric in _LAYER_OF_FABRIC
        else f"未声明网络，最快的活动端口为 {kept}"
    )
    return (
        labels,
        f" Left out as not compute rails (another link layer; {why}): {shown}.",
        f"以下端口链路层不同，不计为计算网络端口（{why_zh}）：{shown_zh}。",
    )


def _split_rail_ports(
    ports: list[_Port], claims: Claims, layers: set[str] | None
) -> tuple[list[_Port], list[_Port]]:
    """(rails, front-end ports). The rails: the ports built for the claimed rate, of the
    rails' link layer (``rail_layers``), on a card that can run the rate or seen running it.
    Slower NICs (a 100 GbE management card next to 400G rails) and ports of another link
    layer are left out, so that their state does not count for or against the compute fabric.

    A card model none of whose ports runs the claimed rate, on a node where cards of another
    model supply the claimed rails Active at that rate, is a second network (the dual-port
    ConnectX-6 Dx 100 GbE front-end/storage cards beside a node's ConnectX-7 400G RoCE rails):
    counted as rails "running slow", it made the fabric item list four healthy 100 GbE ports
    as faulty, and the slowest-rail figure (100 Gb/s) the network rule and the cost model read
    came from them while the rails ran at 400. A card of the rails' own model at a lower rate
    stays a faulty rail (a 400G card at 100 is a fault).
    """
    rate = claims.fabric_rate_gbit_s
    capable_types = {
        p.ca_type for p in ports if p.ca_type and (p.rate_gbit_s or 0) >= rate and rate > 0
    }
    rails = []
    for p in ports:
        # No port naming its link layer (ibstatus, older ibstat): every port may be a rail.
        if layers is not None and p.link_layer.lower() not in layers:
            continue
        cap = nic_max_rate_gbit_s(p.ca_type)
        card_capable = cap >= rate if cap is not None else (p.rate_gbit_s or 0) >= rate
        if card_capable or p.ca_type in capable_types:
            rails.append(p)
    at_rate = [p for p in rails if p.ca_type in capable_types and _is_good(p, rate)]
    if not capable_types or len(at_rate) < max(claims.nics_per_node, 1):
        return rails, []
    front = [p for p in rails if p.ca_type and p.ca_type not in capable_types]
    return [p for p in rails if p not in front], front


def _front_end_text(front: Sequence[_Port], rails: Sequence[_Port]) -> tuple[str, str]:
    """(en, zh) naming the ports ``_split_rail_ports`` left out as another network."""
    if not front:
        return "", ""
    cards = ", ".join(dict.fromkeys(_card(p) for p in rails)) or "?"
    shown = "; ".join(p.describe() for p in front)
    shown_zh = "；".join(p.describe(zh=True) for p in front)
    return (
        f" Left out as not compute rails (another card model, none of its ports at the claimed "
        f"rate, beside the {cards} rails: a front-end or storage network): {shown}.",
        f"以下端口不计为计算网络端口（另一型号网卡，无端口达到声明速率，与 {cards} 计算端口并存："
        f"属于前端或存储网络）：{shown_zh}。",
    )


def _card(p: _Port) -> str:
    return NIC_NAMES.get(p.ca_type.upper(), p.ca_type) or "?"


def _is_good(p: _Port, rate: float) -> bool:
    return p.state.lower() == "active" and p.rate_gbit_s is not None and p.rate_gbit_s >= rate


def _port_fault(node: str, ev: NodeEvidence, p: _Port, rate: float) -> Fault:
    if p.state.lower() != "active":
        kind = "port_down"
        en = (
            f"Port {p.describe()} on node {node} is not Active: a compute-fabric port that "
            "carries no traffic."
        )
        zh = (
            f"节点 {node} 的端口 {p.describe(zh=True)} 未处于 Active 状态："
            "该计算网络端口无法传输数据。"
        )
    else:
        kind = "port_rate_low"
        en = (
            f"Port {p.describe()} on node {node} runs below the claimed {num(rate)} Gb/s: "
            "the card negotiated a slower link."
        )
        zh = (
            f"节点 {node} 的端口 {p.describe(zh=True)} 低于声明的 {num(rate)} Gb/s："
            "链路协商速率偏低。"
        )
    details = {
        "ca": p.ca,
        "port": p.port,
        "state": p.state,
        "physical_state": p.physical_state,
        "rate_gbit_s": p.rate_gbit_s,
        "ca_type": p.ca_type,
        "claimed_rate_gbit_s": rate,
    }
    return Fault(kind, node, SEVERITY_ERROR, ev.ref, en, zh, details)


def _fabric_node(
    node: str, evs: Sequence[NodeEvidence], claims: Claims, faults: list[Fault]
) -> NodeResult | None:
    rate = float(claims.fabric_rate_gbit_s)
    wanted = max(claims.nics_per_node, 1)
    fabric = _FABRIC_EN[claims.fabric]
    claim_en = f"{wanted} × {num(rate)} Gb/s {fabric}"
    for ev in of_kind(evs, "ibstat"):
        ports = _ports(ev.metrics)
        if not ports:
            continue
        raw_ports = [p for p in as_list(ev.metrics.get("ports")) if isinstance(p, Mapping)]
        rail_layer = rail_layers(raw_ports, claims.fabric)
        left_out, left_en, left_zh = left_out_text(raw_ports, rail_layer, claims.fabric)
        rails, front = _split_rail_ports(ports, claims, rail_layer)
        front_en, front_zh = _front_end_text(front, rails)
        left_out = left_out + [f"{p.ca} port {p.port or '?'}" for p in front]
        left_en, left_zh = left_en + front_en, left_zh + front_zh
        good = [p for p in rails if _is_good(p, rate)]
        bad = [p for p in rails if not _is_good(p, rate)]
        faults.extend(_port_fault(node, ev, p, rate) for p in bad)
        details = {
            "ports_total": len(ports),
            "rail_ports": [p.label for p in rails],
            # The rails carrying traffic at any rate (a slow one is the rate rule's concern):
            # measured_facts reads the fewest of any node as the rails the fabric delivers.
            "active_rail_ports": sum(p.state.lower() == "active" for p in rails),
            "good_ports": [p.label for p in good],
            "faulty_ports": [p.describe() for p in bad],
            "link_layers": sorted({p.link_layer for p in ports}),
            "left_out_ports": left_out,
        }
        if len(good) >= wanted:
            extra = ""
            extra_zh = ""
            if bad:
                extra = " Faulty extra ports: " + "; ".join(p.describe() for p in bad) + "."
                extra_zh = "另有故障端口：" + "；".join(p.describe(zh=True) for p in bad) + "。"
            layer = good[0].link_layer
            slowest = min(p.rate_gbit_s or rate for p in good)
            at = f" (the slowest at {num(slowest)} Gb/s)" if slowest > rate else ""
            at_zh = f"（最慢 {num(slowest)} Gb/s）" if slowest > rate else ""
            counted = min(len(good), wanted)
            per_gpu = counted * slowest / max(claims.gpus_per_node, 1)
            # What the network rules read of this node (facts._rails and facts._fabric): the
            # rails Active, at most the claimed NICs, at the slowest rail's rate; the cost
            # model (collectives.declared_fabric) takes a measured rate only below the claim.
            scored_en = (
                f" The network rules count {counted} rail(s) (at most the {wanted} claimed) at "
                f"the slowest rail's rate: {counted} × {num(slowest)} Gb/s per node, "
                f"{num(per_gpu)} Gb/s per GPU."
            )
            scored_zh = (
                f"网络评分计入 {counted} 个计算端口（至多为声明的 {wanted} 个），按最慢端口速率计："
                f"每节点 {counted} × {num(slowest)} Gb/s，每 GPU {num(per_gpu)} Gb/s。"
            )
            if slowest > rate:
                scored_en += (
                    f" The cost model counts the same rails at the claimed {num(rate)} Gb/s "
                    f"({counted} × {num(rate)} Gb/s per node): it takes a measured rate only "
                    "below the claim."
                )
                scored_zh += (
                    f"成本模型按声明速率 {num(rate)} Gb/s 计入同样的端口（每节点 {counted} × "
                    f"{num(rate)} Gb/s）：实测速率仅在低于声明时才被采用。"
                )
            return NodeResult(
                node,
                STATUS_VERIFIED,
                f"ibstat on node {node} shows {len(good)} {layer} port(s) Active at "
                f"≥ {num(rate)} Gb/s{at}, meeting the claim {claim_en}.{extra}{left_en}"
                f"{scored_en}",
                f"节点 {node} 的 ibstat 显示 {len(good)} 个 {layer} 端口以 ≥ {num(rate)} Gb/s "
                f"处于 Active{at_zh}，满足声明的 {wanted} × {num(rate)} Gb/s {fabric}。"
                f"{extra_zh}{left_zh}{scored_zh}",
                ev.ref,
                details,
            )
        listed = "; ".join(p.describe() for p in bad)
        listed_zh = "；".join(p.describe(zh=True) for p in bad)
        if len(rails) >= wanted:
            # The claimed rails are there (cards built for the rate, on the claimed fabric);
            # some are down or slow. A fault for the vendor to repair, not a misstated claim:
            # the rails and rate the rules read are what ibstat measured (the fewest rails
            # Active on a node, the slowest rail), so the fault is charged there, once.
            return NodeResult(
                node,
                STATUS_VERIFIED,
                f"ibstat on node {node} shows the {len(rails)} {num(rate)} Gb/s-capable "
                f"{fabric} rail port(s) of the claim {claim_en}, {len(good)} Active at full "
                f"rate; faulty: {listed}. A hardware fault, not a misstated claim: the scores "
                f"count the rails and rate measured.{left_en}",
                f"节点 {node} 的 ibstat 显示声明 {wanted} × {num(rate)} Gb/s {fabric} 所需的 "
                f"{len(rails)} 个可运行 {num(rate)} Gb/s 的端口，其中 {len(good)} 个以全速处于 "
                f"Active；故障端口：{listed_zh}。这是硬件故障而非虚假声明：评分按实测的端口数与"
                f"速率计算。{left_zh}",
                ev.ref,
                {**details, "faulty_rails": True},
            )
        if not rails:
            layers = ", ".join(details["link_layers"]) or "unknown"
            best = max((p.rate_gbit_s or 0 for p in ports), default=0)
            return NodeResult(
                node,
                STATUS_CONTRADICTED,
                f"ibstat on node {node} shows no {fabric} port able to run {num(rate)} Gb/s "
                f"(link layers: {layers}; fastest port {num(best)} Gb/s), against the claim "
                f"{claim_en}.{left_en}",
                f"节点 {node} 的 ibstat 未显示可运行 {num(rate)} Gb/s 的 {fabric} 端口"
                f"（链路层：{layers}；最快端口 {num(best)} Gb/s），与声明的 "
                f"{wanted} × {num(rate)} Gb/s {fabric} 不符。{left_zh}",
                ev.ref,
                details,
            )
        return NodeResult(
            node,
            STATUS_CONTRADICTED,
            f"ibstat on node {node} shows only {len(good)} of the {wanted} claimed "
            f"{num(rate)} Gb/s ports Active at full rate; faulty: {listed}.{left_en}",
            f"节点 {node} 的 ibstat 显示声明的 {wanted} 个 {num(rate)} Gb/s 端口中仅 "
            f"{len(good)} 个以全速处于 Active；故障端口：{listed_zh}。{left_zh}",
            ev.ref,
            details,
        )
    for ev in of_kind(evs, "perftest"):
        bw = as_float(ev.metrics.get("bw_avg_gbit_s"))
        each = bw_avg_each_way_gbit_s(ev.metrics)
        if bw is None or each is None or rate <= 0:
            continue
        share = each / rate
        tool = _perftest_tool(ev.metrics)
        bidirectional = ev.metrics.get("bidirectional") is True
        details = {
            "bw_avg_gbit_s": bw,
            "bidirectional": bidirectional,
            "bw_avg_each_way_gbit_s": each,
            "fraction_of_rate": round(share, 3),
        }
        if bidirectional:
            # perftest -b prints the sum of both directions; a port's rate is one direction.
            measured = (
                f"{tool} from node {node} is a bidirectional run: {num(bw, 2)} Gb/s both ways, "
                f"{num(each, 1)} Gb/s each way"
            )
            measured_zh = (
                f"节点 {node} 的 {tool} 为双向测试：双向合计 {num(bw, 2)} Gb/s，单向 "
                f"{num(each, 1)} Gb/s"
            )
        else:
            measured = f"{tool} from node {node} averages {num(bw, 2)} Gb/s"
            measured_zh = f"节点 {node} 的 {tool} 平均 {num(bw, 2)} Gb/s"
        if share < PERFTEST_CONTRADICTS_BELOW:
            return NodeResult(
                node,
                STATUS_CONTRADICTED,
                f"{measured}, under {pct(PERFTEST_CONTRADICTS_BELOW)} of the claimed "
                f"{num(rate)} Gb/s per port.",
                f"{measured_zh}，不足声明的每端口 {num(rate)} Gb/s 的 "
                f"{pct_zh(PERFTEST_CONTRADICTS_BELOW)}。",
                ev.ref,
                details,
            )
        fits = "fits" if share >= PERFTEST_SUPPORTS_FROM else "is below"
        fits_zh = "符合" if share >= PERFTEST_SUPPORTS_FROM else "低于"
        return NodeResult(
            node,
            STATUS_UNVERIFIABLE,
            f"{measured}, which {fits} one {num(rate)} Gb/s port, but without ibstat the "
            "number, type and state of the ports are not shown.",
            f"{measured_zh}，{fits_zh}单个 {num(rate)} Gb/s 端口，但缺少 ibstat，无法确认端口数量、"
            "类型与状态。",
            ev.ref,
            details,
        )
    return None


def _perftest_tool(metrics: Mapping[str, Any]) -> str:
    """The perftest binary the parser recognised from the report title ("ib_send_bw"...), or
    "perftest" for a table pasted without its title."""
    test = metrics.get("test")
    return test if isinstance(test, str) and test else "perftest"


def _fabric_node_faults(
    node: str, evs: Sequence[NodeEvidence], claims: Claims
) -> tuple[NodeResult | None, tuple[Fault, ...]]:
    """``_fabric_node`` with the port faults it finds returned rather than appended."""
    faults: list[Fault] = []
    return _fabric_node(node, evs, claims, faults), tuple(faults)


def verify_fabric(
    claims: Claims, evidence: Sequence[NodeEvidence]
) -> tuple[ItemVerification, list[Fault]]:
    """Item 3: enough compute-fabric ports of the claimed type Active at the claimed rate.

    Returns the item and the port faults found (a port Down/Polling/Disabled, or a card
    capable of the claimed rate running slower: "a 400G card at rate 100 is a fault").
    """
    faults: list[Fault] = []
    tolerance = (
        f"≥ {max(claims.nics_per_node, 1)} {_FABRIC_EN[claims.fabric]} port(s) Active at "
        f"≥ {claims.fabric_rate_gbit_s} Gb/s (rate exact or higher); oversubscription is not "
        "measurable from a node"
    )
    tolerance_zh = (
        f"≥ {max(claims.nics_per_node, 1)} 个 {_FABRIC_EN[claims.fabric]} 端口处于 Active 状态，"
        f"速率 ≥ {claims.fabric_rate_gbit_s} Gb/s（速率须相同或更高）；收敛比无法在节点上测量"
    )
    if claims.fabric == "none" or claims.fabric_rate_gbit_s <= 0:
        # The slowest-rail figure is still read (facts.py), on the fastest port's link layer:
        # the ports of another layer it leaves out are named here.
        en = (
            "No compute fabric (type and per-port rate) is claimed, so there is nothing to "
            "verify against the port listing."
        )
        zh = "未声明计算网络（类型与每端口速率），无可核对的内容。"
        left: dict[str, list[str]] = {}
        for node, evs in by_node(evidence).items():
            for ev in of_kind(evs, "ibstat"):
                raw = [p for p in as_list(ev.metrics.get("ports")) if isinstance(p, Mapping)]
                labels, left_en, left_zh = left_out_text(raw, rail_layers(raw, "none"), "none")
                if labels and node not in left:
                    left[node] = labels
                    en += f" On node {node}:{left_en}"
                    zh += f"节点 {node}：{left_zh}"
        item = ItemVerification(
            "fabric",
            STATUS_UNVERIFIABLE,
            en,
            zh,
            None,
            None,
            {"claimed_fabric": claims.fabric, "left_out_ports": left},
        )
        return item, faults
    results = []
    for node, evs in by_node(evidence).items():
        result, node_faults = per_node(
            "fabric", node, claims, lambda n=node, e=evs: _fabric_node_faults(n, e, claims)
        )
        faults.extend(node_faults)
        if result:
            results.append(result)
    item = combine_nodes(
        "fabric",
        results,
        tolerance=tolerance,
        tolerance_zh=tolerance_zh,
        no_evidence_en=(
            "No ibstat or ib_write_bw output was uploaded, so the fabric type, port rate and "
            "port states cannot be checked."
        ),
        no_evidence_zh="未上传 ibstat 或 ib_write_bw 输出，无法核对网络类型、端口速率与状态。",
        extra={
            "claimed_fabric": claims.fabric,
            "claimed_rate_gbit_s": claims.fabric_rate_gbit_s,
            "claimed_nics_per_node": claims.nics_per_node,
        },
    )
    return item, faults


# --- collective bus bandwidth (all_reduce, alltoall, all_gather) ------------------------------

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

SCOPE_MULTI_NODE = "multi_node"
SCOPE_ONE_NODE = "one_node"


@dataclass(frozen=True)
class _Run:
    ev: NodeEvidence
    peak_gbyte_s: float
    ranks: int
    nodes: int
    # Judged as a run inside one NVLink domain across nodes (_via_nvlink): against NVLink.
    via_nvlink: bool = False
    # Across several declared NVLink domains, faster than the fabric alone carries: judged
    # against one whole domain's NVLink (its nodes: bound_nodes), never against the fabric.
    spans_domains: bool = False
    bound_nodes: int | None = None

    @property
    def judged_nodes(self) -> int:
        """The nodes its expected and highest bus bandwidth are computed on."""
        return self.bound_nodes or self.nodes


# The smallest largest-message a run needs before a low bus bandwidth can refute a claim:
# busbw grows with the message size into the GiB range on NVLink and across nodes; the
# collector's own sweep ends at 1 GiB (-e 1G).
PEAK_MIN_BYTES = 1024**3


def _largest_size(run: _Run) -> int | None:
    """The largest message size the run swept (None when the output does not say)."""
    metrics = run.ev.metrics
    largest = as_int(metrics.get("max_size_bytes"))
    if largest is None:
        sizes = [
            as_int(point.get("size_bytes"))
            for point in as_list(metrics.get("curve"))
            if isinstance(point, Mapping)
        ]
        largest = max((size for size in sizes if size is not None), default=None)
    return largest


def _swept_to_peak(run: _Run) -> bool:
    """Whether the run swept messages large enough for its peak to judge the hardware (an
    output that does not say how far it swept is taken at its word)."""
    largest = _largest_size(run)
    return largest is None or largest >= PEAK_MIN_BYTES


@dataclass(frozen=True)
class _Bound:
    """What a run of the declared system should reach (``expected``) and can reach at most."""

    expected: ExpectedBusbw | None
    ceiling_gbyte_s: float | None


@dataclass
class _Sorted:
    """The runs of one collective: usable, and set aside (en, zh) by reason."""

    usable: list[_Run]
    skipped: list[tuple[str, str]]
    foreign: list[tuple[str, str]]
    implausible: list[tuple[str, str]]


@dataclass(frozen=True)
class CollectiveCheck:
    """The verdict on one collective's bus bandwidth and the fractions scoring may use.

    ``fraction`` is measured / expected of the judged run when that run covers the candidate's
    interconnect (at least two nodes for a candidate of two or more); ``one_node_fraction`` is
    the best one-node run's, which measures NVLink (or PCIe) inside a node only.
    """

    item: ItemVerification
    fraction: float | None
    expected: ExpectedBusbw | None
    one_node_fraction: float | None
    measured_gbyte_s: float | None
    nodes: int | None
    # The run ``one_node_fraction`` was read from (its evidence reference).
    one_node_ref: str | None = None


_FORM_NAMES = {"sxm": "SXM", "pcie": "PCIe", "nvl": "NVL"}


def _claimed_gpu(claims: Claims) -> GpuNameFacts:
    return claimed_gpu_facts(claims.gpu_model, claims.gpu_memory_gib, claims.gpu_form_factor)


def _difference(what: str, claimed: GpuNameFacts, measured: GpuNameFacts) -> tuple[str, str]:
    """(en, zh) naming one point where a device name departs from the claimed GPU."""
    if what == "model":
        return (
            f"model {measured.model}, not {claimed.model}",
            f"型号 {measured.model}，并非 {claimed.model}",
        )
    if what == "memory":
        return (
            f"{measured.memory_gb} GB, not {claimed.memory_gb} GB",
            f"显存 {measured.memory_gb} GB，并非 {claimed.memory_gb} GB",
        )
    measured_form = _FORM_NAMES[measured.form_factor or ""]
    claimed_form = _FORM_NAMES[claimed.form_factor or ""]
    return (f"{measured_form}, not {claimed_form}", f"{measured_form} 版本，并非 {claimed_form}")


def _foreign_reason(
    claims: Claims, m: Mapping[str, Any], ranks: int, nodes: int
) -> tuple[str, str] | None:
    """Why a run cannot come from this candidate, or None: more nodes or ranks than it has,
    or device names stating another GPU than the claimed one — another model (H800 for H100,
    A800 for A100), another memory size (40 GB for 80 GB) or another form factor (PCIe for
    SXM). Only what both the claim and the device name state is compared: a device line
    reading just "A100" is no reason to set an A100-SXM4-80GB run aside."""
    claimed_gpus = claims.gpus_per_node * claims.node_count
    if nodes > claims.node_count or ranks > claimed_gpus:
        return (
            f"{ranks} ranks on {nodes} node(s), larger than the candidate's "
            f"{claims.node_count} node(s) × {claims.gpus_per_node} GPUs",
            f"{nodes} 个节点共 {ranks} 个 rank，超出该候选的 {claims.node_count} 个节点 × "
            f"{claims.gpus_per_node} 块 GPU",
        )
    claimed = _claimed_gpu(claims)
    names = [n for n in as_list(m.get("gpu_names")) if isinstance(n, str) and n.strip()]
    for name in dict.fromkeys(names):
        measured = gpu_name_facts(name)
        differences = gpu_name_differences(claimed, measured)
        if differences:
            parts = [_difference(what, claimed, measured) for what in differences]
            return (
                f"ran on {name}, not the claimed {claims.gpu_model} "
                f"({'; '.join(en for en, _ in parts)})",
                f"运行于 {name}，并非声明的 {claims.gpu_model}"
                f"（{'；'.join(zh for _, zh in parts)}）",
            )
    return None


def _intra_line(spec: GpuSpec, claims: Claims, collective: str) -> tuple[float, float]:
    """(expected, ceiling) GB/s busbw inside one node for alltoall / all_gather (ring)."""
    uni = spec.nvlink_uni_gbyte_s
    bridged_beyond_pair = spec.form_factor == "pcie" and claims.gpus_per_node > 2
    # What the GPU can have, not a topology its datasheet rules out (expected_busbw_gbyte_s).
    topology = possible_nvlink_topology(spec, claims.gpus_per_node, claims.nvlink_topology)
    nvlink = uni > 0 and topology in ("full_mesh", "grouped")
    if nvlink and not (topology == "grouped" and bridged_beyond_pair):
        return uni * NVLINK_RING_EFFICIENCY, uni
    pcie = spec.pcie_uni_gbyte_s
    expected = pcie * PCIE_EFFICIENCY * (1.0 if spec.pcie_p2p else NO_P2P_FACTOR)
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
    claims: Claims, spec: GpuSpec | None, collective: str, nodes: int, via_nvlink: bool = False
) -> _Bound:
    """What a run on ``nodes`` nodes should reach and can reach at most; ``via_nvlink``: a run
    across nodes of one NVLink domain (run_in_nvlink_domain), bounded by NVLink as inside a
    node, not by the fabric."""
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
            intra_expected, intra_line = _intra_line(spec, claims, collective)
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


def _sort_runs(
    claims: Claims, evidence: Sequence[NodeEvidence], collective: str, spec: GpuSpec | None
) -> _Sorted:
    """Runs of ``collective`` with correct results at the declared GPUs per node, on no more
    nodes than the candidate has, on its GPU model and below the physical ceiling; and why
    the others were set aside."""
    out = _Sorted([], [], [], [])
    for ev in of_kind(evidence, "nccl_tests"):
        m = ev.metrics
        if m.get("collective") != collective:
            if collective == ALL_REDUCE:
                name = m.get("collective") or "unknown"
                out.skipped.append(
                    (f"{ev.ref}: collective {name}", f"{ev.ref_zh}：集合通信为 {name}")
                )
            continue
        ranks = as_int(m.get("ranks"))
        peak = as_float(m.get("peak_busbw_gbyte_s"))
        if ranks is None or peak is None or ranks < 1:
            out.skipped.append(
                (f"{ev.ref}: no rank count or busbw", f"{ev.ref_zh}：缺少 rank 数或 busbw")
            )
            continue
        if (as_int(m.get("wrong_total")) or 0) > 0 or m.get("out_of_bounds_ok") is False:
            # Cited where the first wrong result is (the parser sums every table of a file).
            line = as_int(m.get("wrong_line"))
            at = ev.at_line(line)
            out.skipped.append((f"{at.ref}: wrong results", f"{at.ref_zh}：结果错误"))
            continue
        hosts = [h for h in as_list(m.get("hosts")) if isinstance(h, str) and h]
        listed = as_int(m.get("devices_listed"))
        nodes = len(hosts) if hosts else max(-(-ranks // claims.gpus_per_node), 1)
        if hosts and listed is not None and listed < ranks:
            # A per-node or cut log ("Rank 71" alone) names some hosts only: the run spans at
            # least as many nodes as its ranks fill at the declared GPUs per node.
            nodes = max(nodes, -(-ranks // claims.gpus_per_node))
        foreign = _foreign_reason(claims, m, ranks, nodes)
        if foreign:
            where_en = where_zh = ""
            if hosts and not any(same_host(h, ev.node_name) for h in hosts):
                # The upload's node name is not a hostname the file shows: say so, as the
                # portal does where a bundle's hostname differs from its token's node.
                shown = ", ".join(hosts)
                where_en = f", on host(s) {shown}, not node {ev.node_name}"
                where_zh = f"，运行于主机 {shown}，并非节点 {ev.node_name}"
            out.foreign.append(
                (
                    f"{ev.ref}: {foreign[0]}{where_en}",
                    f"{ev.ref_zh}：{foreign[1]}{where_zh}",
                )
            )
            continue
        if ranks != claims.gpus_per_node * nodes:
            out.skipped.append(
                (
                    f"{ev.ref}: {ranks} ranks on {nodes} node(s), not "
                    f"{claims.gpus_per_node} per node",
                    f"{ev.ref_zh}：{nodes} 个节点共 {ranks} 个 rank，并非每节点 "
                    f"{claims.gpus_per_node} 个",
                )
            )
            continue
        # A run that fits in one NVLink domain may have stayed on NVLink: its ceiling is NVLink's.
        in_domain = run_in_nvlink_domain(claims.gpus_per_node, nodes, claims.nvlink_domain_gpus)
        ceiling = _bound(claims, spec, collective, nodes, in_domain).ceiling_gbyte_s
        domain = nvlink_domain_size(claims.nvlink_domain_gpus, claims.gpus_per_node)
        domain_nodes = domain // claims.gpus_per_node
        spans = domain > claims.gpus_per_node and nodes > domain_nodes
        fabric_ceiling = ceiling
        if spans:
            # Across several declared NVLink domains (racks) NCCL reduces inside each domain
            # over NVLink and sends each GPU's 1/domain share over the fabric between them:
            # such a run may go as fast as one domain (CoreWeave's two GB200 NVL72 racks,
            # 820 GB/s), never set aside for it.
            whole = _bound(claims, spec, collective, domain_nodes, True)
            if whole.ceiling_gbyte_s is not None:
                ceiling = max(ceiling or 0.0, whole.ceiling_gbyte_s)
        if ceiling is not None and peak > ceiling:
            out.implausible.append(
                (
                    f"{ev.ref}: {num(peak, 2)} GB/s on {nodes} node(s) is above the "
                    f"{num(ceiling)} GB/s the declared hardware can physically reach",
                    f"{ev.ref_zh}：{nodes} 个节点上 {num(peak, 2)} GB/s，超过所声明硬件的物理上限 "
                    f"{num(ceiling)} GB/s",
                )
            )
            continue
        if spans and fabric_ceiling is not None and peak > fabric_ceiling:
            # Faster than the fabric alone carries: the domains' NVLink set its speed, and the
            # fabric moved a 1/domain share (a tenth of the claimed rate would show about as
            # fast): judged against one domain's NVLink, it shows nothing of the fabric's rate.
            out.usable.append(_Run(ev, peak, ranks, nodes, True, True, domain_nodes))
            continue
        via_nvlink = in_domain and _via_nvlink(claims, spec, collective, nodes, peak)
        out.usable.append(_Run(ev, peak, ranks, nodes, via_nvlink))
    return out


def candidate_in_nvlink_domain(claims: Claims) -> bool:
    """Whether all the candidate's nodes fit in one NVLink domain larger than a node."""
    return run_in_nvlink_domain(claims.gpus_per_node, claims.node_count, claims.nvlink_domain_gpus)


def _via_nvlink(
    claims: Claims, spec: GpuSpec | None, collective: str, nodes: int, peak: float
) -> bool:
    """Whether a run across nodes that fits in one NVLink domain is judged against NVLink.

    Where all the candidate's nodes share one domain, every such run stays on NVLink. Where
    the candidate spans several domains, a run on a few nodes may have crossed two of them
    (over the fabric) or stayed in one: it is judged against NVLink only when it is faster
    than the fabric can carry (above the fabric's ceiling), else against the fabric, so a
    healthy run between two racks is never taken for a slow NVLink domain."""
    if candidate_in_nvlink_domain(claims):
        return True
    fabric_ceiling = _bound(claims, spec, collective, nodes).ceiling_gbyte_s
    return fabric_ceiling is None or peak > fabric_ceiling


def _best(runs: list[_Run]) -> _Run | None:
    if not runs:
        return None
    return sorted(
        runs,
        key=lambda r: (-r.nodes, -r.peak_gbyte_s, str(r.ev.upload_id), r.ev.source, r.ev.ref),
    )[0]


def _fraction(
    claims: Claims, spec: GpuSpec | None, collective: str, run: _Run | None
) -> float | None:
    if run is None:
        return None
    expected = _bound(claims, spec, collective, run.judged_nodes, run.via_nvlink).expected
    if expected is None:
        return None
    return round(run.peak_gbyte_s / expected.value_gbyte_s, 3)


def _with_measured_fabric(claims: Claims, evidence: Sequence[NodeEvidence]) -> Claims:
    """``claims`` with the port rate and rail count raised to what ibstat measured on every
    node (the worst node's count of Active compute-rail ports at its fastest rate), never
    lowered: a measured fabric faster than the claim sets the expected bus bandwidth, a
    slower one is the fabric check's finding, not a smaller expectation.

    Only ports of the rails' link layer count (rail_layers: a BlueField's Ethernet ports
    beside InfiniBand rails are another network), and never more rails than one per GPU
    beyond the claim: storage ports of the same layer and rate (a DGX's two storage HCAs next
    to its eight compute rails) carry no collective traffic, and counting them raised the
    expectation by a quarter, so more hardware and more evidence scored lower."""
    if claims.fabric == "none":
        return claims
    per_node: dict[str, tuple[float, int]] = {}
    for ev in of_kind(evidence, "ibstat"):
        ports = [p for p in as_list(ev.metrics.get("ports")) if isinstance(p, Mapping)]
        layers = rail_layers(ports, claims.fabric)
        rates = [
            as_float(p.get("rate_gbit_s"))
            for p in ports
            if str(p.get("state", "")).lower() == "active"
            and (layers is None or str(p.get("link_layer") or "").lower() in layers)
        ]
        rates = [r for r in rates if r is not None and r > 0]
        if not rates:
            continue
        fastest = max(rates)
        rails = sum(1 for r in rates if r == fastest)
        rate, count = per_node.get(ev.node_name, (fastest, rails))
        per_node[ev.node_name] = (max(rate, fastest), max(count, rails))
    if not per_node:
        return claims
    rate = min(r for r, _ in per_node.values())
    count = min(
        min(c for _, c in per_node.values()), max(claims.nics_per_node, claims.gpus_per_node)
    )
    faster = rate > claims.fabric_rate_gbit_s
    wider = count > claims.nics_per_node and rate >= claims.fabric_rate_gbit_s
    if not (faster or wider):
        return claims
    return replace(
        claims,
        fabric_rate_gbit_s=int(max(rate, claims.fabric_rate_gbit_s)),
        nics_per_node=max(count, claims.nics_per_node) if wider else claims.nics_per_node,
    )


def verify_collective(
    claims: Claims, evidence: Sequence[NodeEvidence], collective: str = ALL_REDUCE
) -> CollectiveCheck:
    """Measured bus bandwidth of one nccl-tests collective against the declared system.

    Runs with wrong results, runs not at ``gpus_per_node`` ranks per node, foreign runs (more
    nodes or ranks than the candidate has, another GPU model) and implausible runs (above the
    physical ceiling of the declared links) are set aside and named. Of the rest, the run on
    the most nodes is judged (then the highest peak), against the value expected for its node
    count. For a candidate of two or more nodes a one-node run verifies NVLink only: the
    interconnect between nodes needs a run spanning at least two nodes.
    """
    key = "busbw" if collective == ALL_REDUCE else f"{collective}_busbw"
    name = _COLLECTIVE_EN[collective]
    spec = match_gpu(claims.gpu_model)
    # Judge against what the nodes have when ibstat shows more than was claimed: a vendor who
    # claims a slower fabric must not earn a higher fraction (and a higher score) by it.
    declared = claims
    claims = _with_measured_fabric(claims, evidence)
    runs = _sort_runs(claims, evidence, collective, spec)
    tolerance = (
        f"verified at ≥ {pct(BUSBW_VERIFIED_FROM)} of expected, contradicted below "
        f"{pct(BUSBW_CONTRADICTED_BELOW)}"
    )
    tolerance_zh = (
        f"≥ 期望值的 {pct(BUSBW_VERIFIED_FROM)} 为证实，低于 {pct(BUSBW_CONTRADICTED_BELOW)} 为矛盾"
    )
    details: dict[str, Any] = {
        "collective": collective,
        "skipped_runs": [en for en, _ in runs.skipped],
        "foreign_runs": [en for en, _ in runs.foreign],
        "implausible_runs": [en for en, _ in runs.implausible],
    }
    aside_en = "".join(
        f" {label}: " + "; ".join(en for en, _ in group) + "."
        for label, group in (
            ("Foreign runs set aside", runs.foreign),
            ("Implausible runs set aside", runs.implausible),
        )
        if group
    )
    aside_zh = "".join(
        f"{label}：" + "；".join(zh for _, zh in group) + "。"
        for label, group in (
            ("不属于该候选的结果已剔除", runs.foreign),
            ("不可信的结果已剔除", runs.implausible),
        )
        if group
    )
    one_node = _best([r for r in runs.usable if r.nodes == 1])
    one_node_fraction = _fraction(claims, spec, collective, one_node)
    best = _best(runs.usable)
    if best is None:
        reasons = runs.skipped + runs.foreign + runs.implausible
        reason = "; ".join(en for en, _ in reasons) or "no nccl-tests output was uploaded"
        reason_zh = "；".join(zh for _, zh in reasons) or "未上传 nccl-tests 输出"
        item = ItemVerification(
            key,
            STATUS_UNVERIFIABLE,
            f"No usable nccl-tests {name} run at the declared "
            f"{claims.gpus_per_node} GPUs per node ({reason}).",
            f"没有可用的每节点 {claims.gpus_per_node} 块 GPU 的 nccl-tests {name} 结果"
            f"（{reason_zh}）。",
            None,
            tolerance,
            details,
            tolerance_zh,
        )
        return CollectiveCheck(item, None, None, None, None, None)
    scope = SCOPE_MULTI_NODE if best.nodes >= 2 else SCOPE_ONE_NODE
    # A run that stayed in one NVLink domain proves NVLink between its nodes, and the
    # candidate's interconnect only where all its nodes share that domain.
    in_one_domain = best.via_nvlink and not candidate_in_nvlink_domain(claims)
    covers = (best.nodes >= 2 or claims.node_count == 1) and not in_one_domain
    details.update(
        {
            "measured_gbyte_s": best.peak_gbyte_s,
            "ranks": best.ranks,
            "tested_nodes": best.nodes,
            "scope": scope,
            "covers_interconnect": covers,
            "via_nvlink_domain": best.via_nvlink,
        }
    )
    expected = _bound(claims, spec, collective, best.judged_nodes, best.via_nvlink).expected
    measured = (
        f"{num(best.peak_gbyte_s, 2)} GB/s peak {name} busbw on {best.ranks} GPUs "
        f"({best.nodes} node(s))"
        if collective != ALL_REDUCE
        else f"{num(best.peak_gbyte_s, 2)} GB/s peak busbw on {best.ranks} GPUs "
        f"({best.nodes} node(s))"
    )
    measured_zh = (
        f" {best.ranks} 块 GPU（{best.nodes} 个节点）上{name}峰值 busbw "
        f"{num(best.peak_gbyte_s, 2)} GB/s"
    )
    if expected is None:
        why = (
            f"the GPU model {claims.gpu_model!r} is not in the reference table"
            if spec is None
            else "the declared system gives no bound (one GPU, or no network for several nodes)"
        )
        item = ItemVerification(
            key,
            STATUS_UNVERIFIABLE,
            f"Measured {measured}, but no expected value can be derived: {why}.{aside_en}",
            f"实测{measured_zh}，但无法推算期望值："
            + ("参考表中没有该 GPU 型号。" if spec is None else "所声明的系统没有可用上限。")
            + aside_zh,
            best.ev.ref,
            tolerance,
            details,
            tolerance_zh,
        )
        return CollectiveCheck(item, None, None, None, best.peak_gbyte_s, best.nodes)
    fraction = round(best.peak_gbyte_s / expected.value_gbyte_s, 3)
    details.update({"expected_gbyte_s": expected.value_gbyte_s, "fraction": fraction})
    if best.nodes >= 2 and not best.via_nvlink and claims.fabric != "none":
        # The fabric the expectation was computed for, as a must-have reason names it.
        details.update(
            {
                "expected_nics_per_node": claims.nics_per_node,
                "expected_rate_gbit_s": claims.fabric_rate_gbit_s,
                "fabric_from_ibstat": claims != declared,
            }
        )
    what = "the declared interconnect" if covers else "NVLink inside one node only"
    what_zh = "所声明的互联" if covers else "仅单节点内的 NVLink"
    if in_one_domain:
        what, what_zh = "NVLink inside one NVLink domain only", "仅单个 NVLink 域内的 NVLink"
        if best.spans_domains:
            what, what_zh = "NVLink inside the NVLink domains only", "仅各 NVLink 域内的 NVLink"
    if fraction >= BUSBW_VERIFIED_FROM:
        status, verdict_en, verdict_zh = (
            STATUS_VERIFIED,
            f"which confirms {what}",
            f"证实了{what_zh}",
        )
        if fraction > 1.0:
            # Above the ring's bound yet under the physical ceiling (a run above it was set
            # aside before): say why that is plausible, or a manager cannot answer why 129 %
            # is fine here while another candidate's run was set aside (walk, stop 30).
            verdict_en += (
                " (above the expected value, which bounds a ring all-reduce: NCCL's tree and "
                "NVLS algorithms exceed it on a few nodes (NVIDIA/nccl-tests#196) while staying "
                "under the physical ceiling of the declared hardware; it counts as 100 %)"
            )
            verdict_zh += (
                "（高于期望值：期望值是环形 all-reduce 的上限，NCCL 的树形与 NVLS 算法在少量节点上"
                "可以超过它（NVIDIA/nccl-tests#196），但仍低于所声明硬件的物理上限；按 100 % 计）"
            )
    elif fraction < BUSBW_CONTRADICTED_BELOW and _swept_to_peak(best):
        status, verdict_en = STATUS_CONTRADICTED, f"which contradicts {what}"
        verdict_zh = f"与{what_zh}不符"
    elif fraction < BUSBW_CONTRADICTED_BELOW:
        # Bus bandwidth keeps rising with the message size well past a few hundred MiB
        # ("256M is too small to reach peak bandwidth": sjeaugey, NVIDIA/nccl-tests#212).
        status = STATUS_UNVERIFIABLE
        largest = size_text(_largest_size(best) or 0)
        verdict_en = (
            f"which cannot refute {what}: the run stopped at {largest} messages, short of the "
            f"{size_text(PEAK_MIN_BYTES)} a bus bandwidth needs to reach its peak"
        )
        verdict_zh = (
            f"但不能据此否定{what_zh}：该测试最大消息仅 {largest}，未达到测得峰值所需的 "
            f"{size_text(PEAK_MIN_BYTES)}"
        )
    else:
        status = STATUS_UNVERIFIABLE
        verdict_en = f"which neither confirms nor refutes {what}"
        verdict_zh = f"既不能证实也不能否定{what_zh}"
    scope_en = scope_zh = ""
    partial = covers and best.nodes < claims.node_count
    details["covers_all_nodes"] = not partial and covers
    if partial:
        # Honest about the extrapolation: a run on some nodes says nothing of the switch tiers
        # and oversubscription the full fleet's traffic crosses.
        scope_en = (
            f" Tested on {best.nodes} of the candidate's {claims.node_count} nodes: the fabric "
            "at full scale (more switch tiers, oversubscription between leaves) is assumed to "
            "perform as measured."
        )
        scope_zh = (
            f"仅在该候选 {claims.node_count} 个节点中的 {best.nodes} 个上测试：假定全规模下的网络"
            "（更多交换层级、叶交换机之间的收敛比）与实测表现一致。"
        )
        if expected.bound == "nvlink_domain":
            # Every node of the candidate shares the run's NVLink domain: no fabric is crossed.
            scope_en = (
                f" Tested on {best.nodes} of the candidate's {claims.node_count} nodes, all in "
                "one NVLink domain: the domain at its full size is assumed to perform as measured."
            )
            scope_zh = (
                f"仅在该候选 {claims.node_count} 个节点中的 {best.nodes} 个上测试，这些节点同属一个"
                " NVLink 域：假定整个域的表现与实测一致。"
            )
        if expected.bound == "intra_node":
            scope_en += (
                " The expected value is bounded inside the node, so the run shows the fabric "
                "carried the traffic that rate needs, not the fabric's full rate."
            )
            scope_zh += (
                "期望值受节点内互联限制，因此该测试只表明网络承载了该速率所需的流量，"
                "而非网络的满速率。"
            )
    if not covers:
        # A one-node run never proves the fabric of a multi-node candidate.
        if status == STATUS_VERIFIED:
            status = STATUS_UNVERIFIABLE
        scope_en = (
            f" The fabric between the candidate's {claims.node_count} nodes is not verified: "
            "a run spanning at least two nodes is needed."
        )
        scope_zh = (
            f"该候选 {claims.node_count} 个节点之间的网络未被核实：需要跨至少两个节点的测试。"
        )
        if in_one_domain:
            domain = nvlink_domain_size(claims.nvlink_domain_gpus, claims.gpus_per_node)
            scope_en = (
                f" The run stayed inside one {domain}-GPU NVLink domain (faster than the fabric "
                f"can carry); the fabric between the NVLink domains of the candidate's "
                f"{claims.node_count} nodes is not verified: a run spanning two domains is needed."
            )
            scope_zh = (
                f"该测试未离开单个 {domain} GPU 的 NVLink 域（快于网络所能承载）；该候选 "
                f"{claims.node_count} 个节点所在各 NVLink 域之间的网络未被核实："
                "需要跨两个域的测试。"
            )
            if best.spans_domains:
                scope_en = (
                    f" The run spans several {domain}-GPU NVLink domains, faster than the "
                    "fabric alone can carry: NCCL reduced inside each domain over NVLink and "
                    f"sent a 1/{domain} share over the fabric, so the run shows the domains' "
                    "NVLink, not the fabric between them at its rate (a fabric at a fraction "
                    "of it would show about as fast). The fabric between the NVLink domains "
                    f"of the candidate's {claims.node_count} nodes is not verified: "
                    "ib_write_bw between two domains, or a run with NCCL_MNNVL_ENABLE=0, "
                    "is needed."
                )
                scope_zh = (
                    f"该测试跨多个 {domain} GPU 的 NVLink 域，快于网络单独所能承载：NCCL 在各域内"
                    f"经 NVLink 归约，只有 1/{domain} 的数据经网络传输，因此该测试只表明各域内的 "
                    "NVLink，而非域间网络的速率（网络即使只有其一小部分速率也会测得相近结果）。"
                    f"该候选 {claims.node_count} 个节点所在各 NVLink 域之间的网络未被核实："
                    "需要两个域之间的 ib_write_bw，或设置 NCCL_MNNVL_ENABLE=0 的测试。"
                )
    en = (
        f"Measured {measured} is {pct(fraction)} of the {num(expected.value_gbyte_s)} GB/s "
        f"expected, {verdict_en} ({tolerance}). Expected: {expected.basis}.{scope_en}{aside_en}"
    )
    zh = (
        f"实测{measured_zh}，为期望值 {num(expected.value_gbyte_s)} GB/s 的 {pct_zh(fraction)}，"
        f"{verdict_zh}（≥ {pct_zh(BUSBW_VERIFIED_FROM)} 为证实，"
        f"< {pct_zh(BUSBW_CONTRADICTED_BELOW)} 为矛盾）。期望值：{expected.basis_zh}。"
        f"{scope_zh}{aside_zh}"
    )
    item = ItemVerification(key, status, en, zh, best.ev.ref, tolerance, details, tolerance_zh)
    return CollectiveCheck(
        item,
        fraction if covers else None,
        expected,
        one_node_fraction,
        best.peak_gbyte_s,
        best.nodes,
        one_node.ev.ref if one_node is not None and one_node_fraction is not None else None,
    )


def verify_busbw(
    claims: Claims, evidence: Sequence[NodeEvidence]
) -> tuple[ItemVerification, float | None, ExpectedBusbw | None]:
    """The all_reduce check as (item, fraction covering the interconnect or None, expected)."""
    check = verify_collective(claims, evidence, ALL_REDUCE)
    return check.item, check.fraction, check.expected
