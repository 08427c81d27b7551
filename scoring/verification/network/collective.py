"""The bus bandwidth check of one collective (all_reduce, alltoall, all_gather)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...reference import (
    NET_RDMA_EFFICIENCY,
    NET_TCP_EFFICIENCY,
    ExpectedBusbw,
    GpuSpec,
    match_declared_gpu,
    nvlink_domain_size,
)
from .._util import as_float, as_list, num, of_kind, pct, pct_zh, size_text
from ..model import (
    STATUS_CONTRADICTED,
    STATUS_UNVERIFIABLE,
    STATUS_VERIFIED,
    Claims,
    ItemVerification,
    NodeEvidence,
)
from .bounds import _COLLECTIVE_EN, ALL_REDUCE, _bound, _net_factor, gpus_span_sockets
from .fabric import rail_layers
from .runs import (
    PEAK_MIN_BYTES,
    _best,
    _largest_size,
    _Run,
    _sort_runs,
    _swept_to_peak,
    candidate_in_nvlink_domain,
)

# busbw fraction bands (measured / expected); see scoring.reference for the expected value.
BUSBW_VERIFIED_FROM = 0.8
BUSBW_CONTRADICTED_BELOW = 0.5


SCOPE_MULTI_NODE = "multi_node"
SCOPE_ONE_NODE = "one_node"


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


def _fraction(
    claims: Claims,
    spec: GpuSpec | None,
    collective: str,
    run: _Run | None,
    spans_sockets: bool = False,
) -> float | None:
    if run is None:
        return None
    expected = _bound(
        claims, spec, collective, run.judged_nodes, run.via_nvlink, spans_sockets
    ).expected
    if expected is None:
        return None
    return round(run.peak_gbyte_s / expected.value_gbyte_s, 3)


def _tree_note(
    claims: Claims, run: _Run, collective: str, details: dict[str, Any]
) -> tuple[str, str]:
    """(en, zh) saying how much of the fabric a multi-node all-reduce shows when its peak is
    beyond what any ring over the fabric carries (the nodes' NICs at line rate): NCCL reduced
    inside each node first (tree, NVLS-tree), sending only a share of the data between nodes,
    so the run shows the fabric carried peak / the algorithm's gain ((N-1)n / (N(n-1)), 1.875
    on 2 x 8 GPUs) per node, not its full rate. Empty otherwise. A 2 x 8 H100 run at 464.79
    GB/s over 8 x 400G shows 248 GB/s per node of the 380 a ring should carry: "confirms the
    declared interconnect" overstated it (GPU expert review)."""
    if collective != ALL_REDUCE or run.nodes < 2 or run.via_nvlink or claims.fabric == "none":
        return "", ""
    node_gbyte_s = claims.nics_per_node * claims.fabric_rate_gbit_s / 8
    if node_gbyte_s <= 0 or run.peak_gbyte_s <= node_gbyte_s:
        return "", ""
    gain = _net_factor(collective, run.ranks, claims.gpus_per_node, run.nodes)
    shown = run.peak_gbyte_s / gain
    eff = NET_TCP_EFFICIENCY if claims.fabric == "ethernet" else NET_RDMA_EFFICIENCY
    ring = node_gbyte_s * eff
    details["fabric_shown_gbyte_s"] = round(shown, 1)
    share = pct(shown / ring)
    return (
        f" Of the fabric the run shows less: its peak is beyond what a ring over the nodes' "
        f"{claims.nics_per_node} × {claims.fabric_rate_gbit_s} Gb/s ({num(node_gbyte_s)} GB/s) "
        f"can carry, so NCCL reduced inside each node first (tree or NVLS-tree) and sent only "
        f"a share between nodes: the fabric carried at least {num(shown)} GB/s per node "
        f"({share} of the {num(ring)} GB/s a ring over it should reach), not its full rate. "
        "A run with NCCL_ALGO=Ring, or ib_write_bw on each rail, shows the fabric's rate.",
        f"该测试对网络的证明有限：其峰值超过节点 {claims.nics_per_node} × "
        f"{claims.fabric_rate_gbit_s} Gb/s（{num(node_gbyte_s)} GB/s）上环形算法所能承载的带宽，"
        f"说明 NCCL 先在节点内归约（树形或 NVLS 树形），节点间只传输部分数据：网络至少承载了每节点 "
        f"{num(shown)} GB/s（为其环形应达 {num(ring)} GB/s 的 {pct_zh(shown / ring)}），"
        "而非其满速率。设置 NCCL_ALGO=Ring 的测试或每条轨道的 ib_write_bw 可证明网络速率。",
    )


def _sockets_unknown(
    claims: Claims,
    spec: GpuSpec | None,
    collective: str,
    run: _Run,
    evidence: Sequence[NodeEvidence],
    spans_sockets: bool,
) -> bool:
    """Whether ``run`` is below the contradiction band only because no nvidia-smi topo -m
    shows the GPUs' sockets: its expectation is a PCIe ring that two sockets would halve
    (reference.SPANS_SOCKETS_FACTOR), and against that it is not below the band."""
    if spans_sockets or of_kind(evidence, "nvidia_smi_topo"):
        return False
    staged = _bound(claims, spec, collective, run.judged_nodes, run.via_nvlink, True).expected
    direct = _bound(claims, spec, collective, run.judged_nodes, run.via_nvlink).expected
    if staged is None or direct is None or staged.value_gbyte_s >= direct.value_gbyte_s:
        return False
    return run.peak_gbyte_s >= BUSBW_CONTRADICTED_BELOW * staged.value_gbyte_s


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


def _raised_fabric_note(declared: Claims, judged: Claims, run: _Run) -> tuple[str, str]:
    """(en, zh) saying that the expectation is the fabric ibstat showed, faster or wider than
    the claim (_with_measured_fabric), for a run across nodes over that fabric; empty
    otherwise. Without it a manager reads an expectation of ports the offering never claimed,
    and a must-have missed against a better fabric than claimed looks like an error."""
    if judged == declared or run.nodes < 2 or run.via_nvlink:
        return "", ""
    shown = f"{judged.nics_per_node} × {judged.fabric_rate_gbit_s} Gb/s"
    claimed = f"{declared.nics_per_node} × {declared.fabric_rate_gbit_s} Gb/s"
    return (
        f" ibstat showed {shown} per node on every node, more than the claimed {claimed}: "
        "the expectation is that of the ports the nodes have, so that understating the fabric "
        "earns no higher fraction (a run that reaches only what the claimed ports carry is "
        "below what these ports should carry).",
        f"ibstat 显示每个节点均为每节点 {shown}，高于声明的 {claimed}：期望值按节点实际端口计算，"
        "以免低报网络而获得更高比例（只达到声明端口所能承载水平的测试，低于这些端口应达到的水平）。",
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
    # The declared form factor's card where the name states none ("H100 80GB" declared PCIe).
    spec = match_declared_gpu(claims.gpu_model, claims.gpu_form_factor, claims.gpu_memory_gib)
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
    # A dual-socket PCIe node's ring is staged between the sockets: judged at the rate it can
    # reach (reference.SPANS_SOCKETS_FACTOR), where the topology shows it.
    spans_sockets = gpus_span_sockets(evidence)
    one_node = _best([r for r in runs.usable if r.nodes == 1])
    one_node_fraction = _fraction(claims, spec, collective, one_node, spans_sockets)
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
    expected = _bound(
        claims, spec, collective, best.judged_nodes, best.via_nvlink, spans_sockets
    ).expected
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
    elif fraction < BUSBW_CONTRADICTED_BELOW and _sockets_unknown(
        claims, spec, collective, best, evidence, spans_sockets
    ):
        # Without the topology the GPUs' sockets are unknown: a dual-socket PCIe node reaching
        # its staged rate is healthy, so it cannot be called a contradiction.
        status = STATUS_UNVERIFIABLE
        verdict_en = (
            f"which cannot refute {what}: no nvidia-smi topo -m shows whether the GPUs share one "
            "CPU socket (the expectation assumes PCIe peer-to-peer between all of them); on two "
            "sockets the ring is staged through host memory and expects half as much"
        )
        verdict_zh = (
            f"但不能据此否定{what_zh}：未上传 nvidia-smi topo -m，无法确认 GPU 是否位于同一 CPU "
            "插槽（期望值假定所有 GPU 之间可 PCIe P2P）；若分属两个插槽，"
            "环经主机内存中转，期望值减半"
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
    raised_en, raised_zh = _raised_fabric_note(declared, claims, best)
    tree_en, tree_zh = _tree_note(claims, best, collective, details)
    en = (
        f"Measured {measured} is {pct(fraction)} of the {num(expected.value_gbyte_s)} GB/s "
        f"expected, {verdict_en} ({tolerance}). Expected: {expected.basis}.{raised_en}"
        f"{tree_en}{scope_en}{aside_en}"
    )
    zh = (
        f"实测{measured_zh}，为期望值 {num(expected.value_gbyte_s)} GB/s 的 {pct_zh(fraction)}，"
        f"{verdict_zh}（≥ {pct_zh(BUSBW_VERIFIED_FROM)} 为证实，"
        f"< {pct_zh(BUSBW_CONTRADICTED_BELOW)} 为矛盾）。期望值：{expected.basis_zh}。"
        f"{raised_zh}{tree_zh}{scope_zh}{aside_zh}"
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
