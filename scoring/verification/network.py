"""Checklist item 3 (fabric type, port rate and state) and the all-reduce bus bandwidth check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..reference import (
    NIC_NAMES,
    ExpectedBusbw,
    expected_busbw_gbyte_s,
    match_gpu,
    nic_max_rate_gbit_s,
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


def _rail_ports(ports: list[_Port], claims: Claims) -> list[_Port]:
    """The ports built for the claimed rate: on a card that can run it, or seen running it.

    Slower NICs (a 100 GbE management card next to 400G rails) are left out, so that their
    state does not count for or against the compute fabric.
    """
    rate = claims.fabric_rate_gbit_s
    layers = _LAYERS_ACCEPTED[claims.fabric]
    capable_types = {
        p.ca_type for p in ports if p.ca_type and (p.rate_gbit_s or 0) >= rate and rate > 0
    }
    rails = []
    for p in ports:
        if p.link_layer.lower() not in layers:
            continue
        cap = nic_max_rate_gbit_s(p.ca_type)
        card_capable = cap >= rate if cap is not None else (p.rate_gbit_s or 0) >= rate
        if card_capable or p.ca_type in capable_types:
            rails.append(p)
    return rails


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
        rails = _rail_ports(ports, claims)
        good = [p for p in rails if _is_good(p, rate)]
        bad = [p for p in rails if not _is_good(p, rate)]
        faults.extend(_port_fault(node, ev, p, rate) for p in bad)
        details = {
            "ports_total": len(ports),
            "rail_ports": [p.label for p in rails],
            "good_ports": [p.label for p in good],
            "faulty_ports": [p.describe() for p in bad],
            "link_layers": sorted({p.link_layer for p in ports}),
        }
        if len(good) >= wanted:
            extra = ""
            extra_zh = ""
            if bad:
                extra = " Faulty extra ports: " + "; ".join(p.describe() for p in bad) + "."
                extra_zh = "另有故障端口：" + "；".join(p.describe(zh=True) for p in bad) + "。"
            layer = good[0].link_layer
            return NodeResult(
                node,
                STATUS_VERIFIED,
                f"ibstat on node {node} shows {len(good)} {layer} port(s) Active at "
                f"≥ {num(rate)} Gb/s, meeting the claim {claim_en}.{extra}",
                f"节点 {node} 的 ibstat 显示 {len(good)} 个 {layer} 端口以 ≥ {num(rate)} Gb/s "
                f"处于 Active，满足声明的 {wanted} × {num(rate)} Gb/s {fabric}。{extra_zh}",
                ev.ref,
                details,
            )
        if not rails:
            layers = ", ".join(details["link_layers"]) or "unknown"
            best = max((p.rate_gbit_s or 0 for p in ports), default=0)
            return NodeResult(
                node,
                STATUS_CONTRADICTED,
                f"ibstat on node {node} shows no {fabric} port able to run {num(rate)} Gb/s "
                f"(link layers: {layers}; fastest port {num(best)} Gb/s), against the claim "
                f"{claim_en}.",
                f"节点 {node} 的 ibstat 未显示可运行 {num(rate)} Gb/s 的 {fabric} 端口"
                f"（链路层：{layers}；最快端口 {num(best)} Gb/s），与声明的 "
                f"{wanted} × {num(rate)} Gb/s {fabric} 不符。",
                ev.ref,
                details,
            )
        listed = "; ".join(p.describe() for p in bad)
        listed_zh = "；".join(p.describe(zh=True) for p in bad)
        return NodeResult(
            node,
            STATUS_CONTRADICTED,
            f"ibstat on node {node} shows only {len(good)} of the {wanted} claimed "
            f"{num(rate)} Gb/s ports Active at full rate; faulty: {listed}.",
            f"节点 {node} 的 ibstat 显示声明的 {wanted} 个 {num(rate)} Gb/s 端口中仅 "
            f"{len(good)} 个以全速处于 Active；故障端口：{listed_zh}。",
            ev.ref,
            details,
        )
    for ev in of_kind(evs, "perftest"):
        bw = as_float(ev.metrics.get("bw_avg_gbit_s"))
        if bw is None or rate <= 0:
            continue
        share = bw / rate
        details = {"bw_avg_gbit_s": bw, "fraction_of_rate": round(share, 3)}
        if share < PERFTEST_CONTRADICTS_BELOW:
            return NodeResult(
                node,
                STATUS_CONTRADICTED,
                f"ib_write_bw from node {node} averages {num(bw, 2)} Gb/s, under "
                f"{pct(PERFTEST_CONTRADICTS_BELOW)} of the claimed {num(rate)} Gb/s per port.",
                f"节点 {node} 的 ib_write_bw 平均 {num(bw, 2)} Gb/s，不足声明的每端口 "
                f"{num(rate)} Gb/s 的 {pct_zh(PERFTEST_CONTRADICTS_BELOW)}。",
                ev.ref,
                details,
            )
        fits = "fits" if share >= PERFTEST_SUPPORTS_FROM else "is below"
        fits_zh = "符合" if share >= PERFTEST_SUPPORTS_FROM else "低于"
        return NodeResult(
            node,
            STATUS_UNVERIFIABLE,
            f"ib_write_bw from node {node} averages {num(bw, 2)} Gb/s, which {fits} one "
            f"{num(rate)} Gb/s port, but without ibstat the number, type and state of the "
            "ports are not shown.",
            f"节点 {node} 的 ib_write_bw 平均 {num(bw, 2)} Gb/s，{fits_zh}单个 {num(rate)} Gb/s "
            "端口，但缺少 ibstat，无法确认端口数量、类型与状态。",
            ev.ref,
            details,
        )
    return None


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
        item = ItemVerification(
            "fabric",
            STATUS_UNVERIFIABLE,
            "No compute fabric (type and per-port rate) is claimed, so there is nothing to "
            "verify against the port listing.",
            "未声明计算网络（类型与每端口速率），无可核对的内容。",
            None,
            None,
            {"claimed_fabric": claims.fabric},
        )
        return item, faults
    results = [
        r
        for node, evs in by_node(evidence).items()
        if (r := _fabric_node(node, evs, claims, faults))
    ]
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


# --- all-reduce bus bandwidth -----------------------------------------------------------------


@dataclass(frozen=True)
class _Run:
    ev: NodeEvidence
    peak_gbyte_s: float
    ranks: int
    nodes: int


def _runs(
    claims: Claims, evidence: Sequence[NodeEvidence]
) -> tuple[list[_Run], list[tuple[str, str]]]:
    """All-reduce runs with correct results at the declared GPUs per node; and why others
    were set aside."""
    usable: list[_Run] = []
    skipped: list[tuple[str, str]] = []
    for ev in of_kind(evidence, "nccl_tests"):
        m = ev.metrics
        if m.get("collective") != "all_reduce":
            name = m.get("collective") or "unknown"
            skipped.append((f"{ev.ref}: collective {name}", f"{ev.ref}：集合通信为 {name}"))
            continue
        ranks = as_int(m.get("ranks"))
        peak = as_float(m.get("peak_busbw_gbyte_s"))
        if ranks is None or peak is None:
            skipped.append((f"{ev.ref}: no rank count or busbw", f"{ev.ref}：缺少 rank 数或 busbw"))
            continue
        if (as_int(m.get("wrong_total")) or 0) > 0 or m.get("out_of_bounds_ok") is False:
            skipped.append((f"{ev.ref}: wrong results", f"{ev.ref}：结果错误"))
            continue
        hosts = [h for h in as_list(m.get("hosts")) if isinstance(h, str) and h]
        nodes = len(hosts) if hosts else max(ranks // claims.gpus_per_node, 1)
        if ranks != claims.gpus_per_node * nodes:
            skipped.append(
                (
                    f"{ev.ref}: {ranks} ranks on {nodes} node(s), not "
                    f"{claims.gpus_per_node} per node",
                    f"{ev.ref}：{nodes} 个节点共 {ranks} 个 rank，并非每节点 "
                    f"{claims.gpus_per_node} 个",
                )
            )
            continue
        usable.append(_Run(ev, peak, ranks, nodes))
    return usable, skipped


def verify_busbw(
    claims: Claims, evidence: Sequence[NodeEvidence]
) -> tuple[ItemVerification, float | None, ExpectedBusbw | None]:
    """Measured all-reduce busbw against the value expected for the declared system.

    Uses nccl-tests all_reduce runs whose ranks fill whole nodes of ``gpus_per_node`` GPUs
    (runs with wrong results are set aside). The run on the most nodes is judged (closest to
    the declared scale), then the highest peak; the expectation is computed for that node
    count. Returns (check, fraction measured/expected or None, expected or None).
    """
    runs, skipped = _runs(claims, evidence)
    tolerance = (
        f"verified at ≥ {pct(BUSBW_VERIFIED_FROM)} of expected, contradicted below "
        f"{pct(BUSBW_CONTRADICTED_BELOW)}"
    )
    tolerance_zh = (
        f"≥ 期望值的 {pct(BUSBW_VERIFIED_FROM)} 为证实，低于 {pct(BUSBW_CONTRADICTED_BELOW)} 为矛盾"
    )
    details: dict[str, Any] = {"skipped_runs": [en for en, _ in skipped]}
    spec = match_gpu(claims.gpu_model)
    if not runs:
        reason = "; ".join(en for en, _ in skipped) or "no nccl-tests output was uploaded"
        reason_zh = "；".join(zh for _, zh in skipped) or "未上传 nccl-tests 输出"
        return (
            ItemVerification(
                "busbw",
                STATUS_UNVERIFIABLE,
                "No usable nccl-tests all_reduce run at the declared "
                f"{claims.gpus_per_node} GPUs per node ({reason}).",
                f"没有可用的每节点 {claims.gpus_per_node} 块 GPU 的 nccl-tests all_reduce 结果"
                f"（{reason_zh}）。",
                None,
                tolerance,
                details,
                tolerance_zh,
            ),
            None,
            None,
        )
    best = sorted(
        runs,
        key=lambda r: (-r.nodes, -r.peak_gbyte_s, str(r.ev.upload_id), r.ev.source, r.ev.ref),
    )[0]
    details.update(
        {"measured_gbyte_s": best.peak_gbyte_s, "ranks": best.ranks, "tested_nodes": best.nodes}
    )
    expected = None
    if spec is not None:
        expected = expected_busbw_gbyte_s(
            spec,
            claims.gpus_per_node,
            best.nodes,
            claims.nvlink_topology,
            claims.fabric,
            claims.fabric_rate_gbit_s,
            claims.nics_per_node,
        )
    measured = (
        f"{num(best.peak_gbyte_s, 2)} GB/s peak busbw on {best.ranks} GPUs ({best.nodes} node(s))"
    )
    measured_zh = (
        f" {best.ranks} 块 GPU（{best.nodes} 个节点）上峰值 busbw {num(best.peak_gbyte_s, 2)} GB/s"
    )
    if expected is None or expected.value_gbyte_s <= 0:
        why = (
            f"the GPU model {claims.gpu_model!r} is not in the reference table"
            if spec is None
            else "the declared system gives no bound (one GPU, or no network for several nodes)"
        )
        return (
            ItemVerification(
                "busbw",
                STATUS_UNVERIFIABLE,
                f"Measured {measured}, but no expected value can be derived: {why}.",
                f"实测{measured_zh}，但无法推算期望值："
                + ("参考表中没有该 GPU 型号。" if spec is None else "所声明的系统没有可用上限。"),
                best.ev.ref,
                tolerance,
                details,
                tolerance_zh,
            ),
            None,
            None,
        )
    fraction = round(best.peak_gbyte_s / expected.value_gbyte_s, 3)
    details.update({"expected_gbyte_s": expected.value_gbyte_s, "fraction": fraction})
    if fraction >= BUSBW_VERIFIED_FROM:
        status, verdict_en, verdict_zh = STATUS_VERIFIED, "which confirms", "证实了所声明的互联"
    elif fraction < BUSBW_CONTRADICTED_BELOW:
        status, verdict_en = STATUS_CONTRADICTED, "which contradicts"
        verdict_zh = "与所声明的互联不符"
    else:
        status = STATUS_UNVERIFIABLE
        verdict_en = "which neither confirms nor refutes"
        verdict_zh = "既不能证实也不能否定所声明的互联"
    en = (
        f"Measured {measured} is {pct(fraction)} of the {num(expected.value_gbyte_s)} GB/s "
        f"expected, {verdict_en} the declared interconnect ({tolerance}). "
        f"Expected: {expected.basis}."
    )
    zh = (
        f"实测{measured_zh}，为期望值 {num(expected.value_gbyte_s)} GB/s 的 {pct_zh(fraction)}，"
        f"{verdict_zh}（≥ {pct_zh(BUSBW_VERIFIED_FROM)} 为证实，"
        f"< {pct_zh(BUSBW_CONTRADICTED_BELOW)} 为矛盾）。期望值：{expected.basis_zh}。"
    )
    return (
        ItemVerification("busbw", status, en, zh, best.ev.ref, tolerance, details, tolerance_zh),
        fraction,
        expected,
    )
