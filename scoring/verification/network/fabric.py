"""Checklist item 3: the compute fabric's type, port rate and port state (ibstat, perftest)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...evidence.perftest import bw_avg_each_way_gbit_s
from ...reference import NIC_NAMES, nic_max_rate_gbit_s
from .._util import (
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
)
from ..model import (
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


def _cut_port(ports: Sequence[_Port]) -> _Port | None:
    """The listing's last port when the listing ends inside it: neither its rate nor its link
    layer shown while an earlier port shows both (ibstat prints every port's rate and link
    layer, so a block without them is an output cut short), else None. A cut listing shows
    the node's ports up to that point, not how many it has."""
    if len(ports) < 2:
        return None
    last = ports[-1]
    whole = [p for p in ports[:-1] if p.rate_gbit_s is not None and p.link_layer]
    if last.rate_gbit_s is None and not last.link_layer and whole:
        return last
    return None


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
        cut = _cut_port(ports)
        # A port the listing was cut inside is named as cut, not as another network's.
        shown = raw_ports[:-1] if cut is not None else raw_ports
        left_out, left_en, left_zh = left_out_text(shown, rail_layer, claims.fabric)
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
        if cut is not None:
            # A listing cut short (a pasted excerpt, a terminal's scrollback) shows the ports up
            # to the cut, not that the others are missing: the 8 x H20 node's ibstat ending
            # inside its third CA contradicted a claim of four NICs with "faulty: ." (GPU
            # expert review).
            return NodeResult(
                node,
                STATUS_UNVERIFIABLE,
                f"ibstat on node {node} shows {len(good)} of the {wanted} claimed "
                f"{num(rate)} Gb/s ports Active at full rate, but the listing ends inside "
                f"{cut.ca} (its rate and link layer are not shown), so the node's other ports "
                f"are not shown; the whole ibstat output is needed.{left_en}",
                f"节点 {node} 的 ibstat 显示声明的 {wanted} 个 {num(rate)} Gb/s 端口中 "
                f"{len(good)} 个以全速处于 Active，但输出在 {cut.ca} 处中断"
                f"（未显示其速率与链路层），节点的其余端口未显示；需要完整的 ibstat 输出。"
                f"{left_zh}",
                ev.ref,
                {**details, "listing_cut_at": cut.label},
            )
        missing_en = f"faulty: {listed}" if bad else "the others are not listed"
        missing_zh = f"故障端口：{listed_zh}" if bad else "其余端口未列出"
        return NodeResult(
            node,
            STATUS_CONTRADICTED,
            f"ibstat on node {node} shows only {len(good)} of the {wanted} claimed "
            f"{num(rate)} Gb/s ports Active at full rate; {missing_en}.{left_en}",
            f"节点 {node} 的 ibstat 显示声明的 {wanted} 个 {num(rate)} Gb/s 端口中仅 "
            f"{len(good)} 个以全速处于 Active；{missing_zh}。{left_zh}",
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
