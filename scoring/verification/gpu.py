"""Checklist items 1 and 2: GPU model, count and memory; NVLink topology and link health."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..reference import (
    GpuNameFacts,
    GpuSpec,
    claimed_gpu_facts,
    ecc_reserved_share,
    gpu_family_of,
    gpu_name_differences,
    gpu_name_facts,
    match_declared_gpu,
    match_gpu,
    memory_figures_agree,
    normalise_gpu_name,
)
from ._util import (
    NodeResult,
    as_float,
    as_int,
    as_list,
    by_node,
    combine_nodes,
    first,
    num,
    of_kind,
    pct,
    pct_zh,
    per_node,
    same_host,
)
from .gpu_nodes import ascend_claimed
from .model import (
    STATUS_CONTRADICTED,
    STATUS_UNVERIFIABLE,
    STATUS_VERIFIED,
    Claims,
    ItemVerification,
    NodeEvidence,
)
from .npu import ascend_without_table, no_nvidia_gpu_listing, npu_node, npu_table
from .nvlink_links import grouped_links_down, topo_links_down

# nvidia-smi reports the usable frame buffer in MiB, a little under the marketing "80GB":
# 81559 MiB = 79.6 GiB on an H100 80GB HBM3, 40536 MiB = 39.6 GiB on some A100 40GB.
GPU_MEMORY_TOLERANCE = 0.05
# `nvidia-smi nvlink --status` prints the per-link signalling rate (26.562 GB/s on H100, 18
# links = 478 GB/s), slightly above the 450 GB/s data rate; 5 % covers rounding either way.
NVLINK_BANDWIDTH_TOLERANCE = 0.05

_TOPOLOGY_RANK = {"none": 0, "grouped": 1, "full_mesh": 2}
_TOPOLOGY_BY_RANK = {rank: name for name, rank in _TOPOLOGY_RANK.items()}


def worse_topology(a: str, b: str) -> str:
    """The less connected of two topologies."""
    return a if _TOPOLOGY_RANK[a] <= _TOPOLOGY_RANK[b] else b


def _degraded(topology: str) -> str:
    """One step less connected: what a mesh with NVLink links down delivers."""
    return _TOPOLOGY_BY_RANK[max(_TOPOLOGY_RANK[topology] - 1, 0)]


def _topo_reading(evs: Sequence[NodeEvidence]) -> str | None:
    for ev in evs:
        measured = _measured_topology(ev.metrics)
        gpus = as_int(ev.metrics.get("gpu_count"))
        if measured is not None and gpus is not None and gpus >= 2:
            return measured
    return None


_TOPOLOGY_EN = {
    "full_mesh": "an all-to-all NVLink mesh",
    "grouped": "grouped NVLink (not all-to-all)",
    "none": "no NVLink (PCIe only)",
}
_TOPOLOGY_ZH = {
    "full_mesh": "全互联 NVLink",
    "grouped": "分组 NVLink（非全互联）",
    "none": "无 NVLink（仅 PCIe）",
}
_MEMORY_IN_NAME = re.compile(r"^(\d{1,3})G(?:B|IB)?$")
_FORM_EN = {"sxm": "SXM", "pcie": "PCIe", "other": "other"}


def _names(metrics: Mapping[str, Any]) -> list[str]:
    raw = first(metrics, "gpu_names", "product_names", "names", "gpu_models")
    return [str(n) for n in as_list(raw) if isinstance(n, str) and n.strip()]


def _memory_mib(metrics: Mapping[str, Any]) -> float | None:
    raw = first(metrics, "memory_total_mib", "fb_memory_total_mib", "memory_mib")
    values = [v for v in (as_float(x) for x in as_list(raw)) if v is not None and v > 0]
    return min(values) if values else None


def _memory_from_name(name: str) -> int | None:
    for token in normalise_gpu_name(name):
        match = _MEMORY_IN_NAME.match(token)
        if match:
            return int(match.group(1))
    return None


# Why a parser's GPU count covers only part of the listing (its ``gpu_count_partial``): the
# count is then a lower bound, which can reach a claim but never fall short of one.
_PARTIAL_EN = {
    "excerpt": "the listing was cut (an excerpt marker hides rows)",
    "filter": "the command asked for some GPUs only (-i/--id)",
    "unread_rows": "rows of the listing could not be read",
    "no_total": "the excerpt lacks the 'Attached GPUs' total and shows only some GPU blocks",
    "index_gap": "GPU numbers are missing from the listing (rows hidden)",
    "cut": "the listing stops inside a GPU block",
    "cut_line": "the listing stops in the middle of a line (the rows after it are missing)",
}
_PARTIAL_ZH = {
    "excerpt": "输出被截断（省略标记隐藏了部分行）",
    "filter": "命令仅查询了部分 GPU（-i/--id）",
    "unread_rows": "列表中有无法读取的行",
    "no_total": "节选缺少 'Attached GPUs' 总数，仅显示部分 GPU",
    "index_gap": "列表中缺少部分 GPU 编号（有行被隐藏）",
    "cut": "列表在某个 GPU 块中途结束",
    "cut_line": "列表在某一行中途结束（其后的行缺失）",
}


def _observe(evs: Sequence[NodeEvidence]) -> dict[str, Any]:
    """What one node's evidence says about its GPUs; sources in order of trust.

    The count is the first complete listing's; when every listing is partial (an excerpt, a
    filtered query), the highest count shown, kept as a lower bound with the reason.
    """
    obs: dict[str, Any] = {
        "count": None,
        "count_ref": None,
        "count_partial": None,
        "names": [],
        "names_ref": None,
        "mib": None,
        "mib_ref": None,
    }
    lower: tuple[int, str, str] | None = None
    for kind, count_key in (
        ("nvidia_smi_query", "gpu_count"),
        ("nvidia_smi", "gpu_count"),
        ("lspci", "nvidia_gpu_count"),
        ("nvidia_smi_topo", "gpu_count"),
    ):
        for ev in of_kind(evs, kind):
            count = as_int(ev.metrics.get(count_key))
            partial = ev.metrics.get("gpu_count_partial")
            if count is not None and partial:
                if lower is None or count > lower[0]:
                    lower = (count, ev.ref, str(partial))
            elif obs["count"] is None and count is not None:
                obs["count"], obs["count_ref"] = count, ev.ref
            names = _names(ev.metrics)
            if not obs["names"] and names:
                obs["names"], obs["names_ref"] = names, ev.ref
            mib = _memory_mib(ev.metrics)
            if obs["mib"] is None and mib is not None:
                obs["mib"], obs["mib_ref"] = mib, ev.ref
    if obs["count"] is None and lower is not None:
        obs["count"], obs["count_ref"], obs["count_partial"] = lower
    return obs


# The listings that read the GPUs of the node itself (lspci's and the topology's names are
# spelled otherwise; nccl-tests runs that span hosts are judged by the POC rules).
_LISTING_KINDS = ("nvidia_smi_query", "nvidia_smi")
_DIFFERENCE_EN = {"model": "model", "memory": "memory", "form_factor": "form factor"}
_DIFFERENCE_ZH = {"model": "型号", "memory": "显存", "form_factor": "规格"}


def _card_facts(name: str) -> GpuNameFacts:
    """What an nvidia-smi GPU name says about the card: its own words, and where they are
    silent, the card the name denotes (nvidia-smi names each variant differently: "NVIDIA
    H100 80GB HBM3" is the SXM5 card, "NVIDIA H100 PCIe" the PCIe one)."""
    facts = gpu_name_facts(name)
    spec = match_gpu(name) if name else None
    if spec is None:
        return facts
    return GpuNameFacts(
        facts.model or spec.family,
        facts.memory_gb or spec.memory_gib,
        facts.form_factor or (spec.form_factor if spec.form_factor != "other" else None),
    )


def _listing_conflict(evs: Sequence[NodeEvidence]) -> tuple[str, str, str] | None:
    """(en, zh, ref) when two nvidia-smi listings of one node show different GPUs (model,
    memory or form factor): one machine cannot show both, so one of the files came from
    another machine or the node was changed between them. Compared with the node's first
    listing, in the order every check reads the node's files."""
    first_seen: tuple[NodeEvidence, str, float | None] | None = None  # (file, name, GiB)
    for ev in of_kind(evs, *_LISTING_KINDS):
        mib = _memory_mib(ev.metrics)
        gib = None if mib is None else mib / 1024
        for name in dict.fromkeys(_names(ev.metrics)) or [""]:
            if first_seen is None:
                if name or gib is not None:
                    first_seen = (ev, name, gib)
                continue
            seen, seen_name, seen_gib = first_seen
            found = gpu_name_differences(_card_facts(seen_name), _card_facts(name))
            if (
                "memory" not in found
                and gib is not None
                and seen_gib is not None
                and not memory_figures_agree(None, seen_gib, gib)
            ):
                found.append("memory")
            if not found:
                continue
            shown = [
                f"{label or 'GPUs'} ({num(g)} GiB)" if g is not None else (label or "GPUs")
                for label, g in ((seen_name, seen_gib), (name, gib))
            ]
            en = (
                f"its nvidia-smi outputs disagree on the GPU "
                f"{' and '.join(_DIFFERENCE_EN[d] for d in found)}: {seen.ref} shows {shown[0]}, "
                f"{ev.ref} shows {shown[1]}; one machine cannot show both, so a file comes "
                "from another machine (remove that upload) or the node was changed"
            )
            zh = (
                f"其 nvidia-smi 输出的 GPU {'与'.join(_DIFFERENCE_ZH[d] for d in found)}不一致："
                f"{seen.ref_zh} 显示 {shown[0]}，{ev.ref_zh} 显示 {shown[1]}；"
                "同一台机器不可能同时如此，说明有文件来自另一台机器（请删除该上传）或节点已被更换"
            )
            return en, zh, ev.ref
    return None


def _model_problem(claims: Claims, claimed: GpuSpec | None, name: str) -> tuple[str, str] | None:
    """(en, zh) when the measured name contradicts the claimed model; None when it fits."""
    measured = match_gpu(name)
    claimed_family = claimed.family if claimed else gpu_family_of(claims.gpu_model)
    measured_family = measured.family if measured else gpu_family_of(name)
    if claimed_family and measured_family and claimed_family != measured_family:
        return (
            f"the GPU is {name}, not the claimed {claims.gpu_model}",
            f"GPU 为 {name}，并非声明的 {claims.gpu_model}",
        )
    wanted_form = claims.gpu_form_factor if claims.gpu_form_factor != "other" else None
    if wanted_form is None and claimed is not None and claimed.form_factor != "other":
        wanted_form = claimed.form_factor
    if measured and wanted_form and measured.form_factor not in (wanted_form, "other"):
        return (
            f"{name} is the {_FORM_EN[measured.form_factor]} version, "
            f"not {_FORM_EN[wanted_form]} as claimed",
            f"{name} 为 {_FORM_EN[measured.form_factor]} 版本，而非声明的 {_FORM_EN[wanted_form]}",
        )
    return None


def _model_known(claims: Claims, claimed: GpuSpec | None, name: str) -> bool:
    """Whether the measured name can be compared with the claim at all."""
    claimed_family = claimed.family if claimed else gpu_family_of(claims.gpu_model)
    if claimed_family is None:
        wanted = set(normalise_gpu_name(claims.gpu_model))
        return bool(wanted) and wanted <= set(normalise_gpu_name(name))
    return (match_gpu(name) or gpu_family_of(name)) is not None


def _nccl_devices(
    node: str, evs: Sequence[NodeEvidence], claims: Claims
) -> list[tuple[bool, str, str, str]]:
    """(on this node, en, zh, ref) for each nccl-tests run filed under ``node`` whose device
    lines ("Rank 0 ... on <host> device 0 [0x..] NVIDIA A100-SXM4-40GB") name another GPU than
    the claimed one (model, memory or form factor; only what both state is compared).

    A run whose hosts include the node (or that names no host) measured this node's GPUs: it
    contradicts the claim. A run on other hosts only is a run on other machines filed under
    this node (the upload's node name is not the hostname in the file): it shows nothing of
    the node, but the node's evidence no longer all comes from one machine, so it cannot
    verify the claim either. The bus-bandwidth check sets such runs aside (foreign runs)."""
    claimed = claimed_gpu_facts(claims.gpu_model, claims.gpu_memory_gib, claims.gpu_form_factor)
    found: list[tuple[bool, str, str, str]] = []
    for ev in of_kind(evs, "nccl_tests"):
        names = [n for n in as_list(ev.metrics.get("gpu_names")) if isinstance(n, str) and n]
        hosts = [h for h in as_list(ev.metrics.get("hosts")) if isinstance(h, str) and h]
        for name in dict.fromkeys(names):
            measured = gpu_name_facts(name)
            differences = gpu_name_differences(claimed, measured)
            if not differences:
                continue
            parts_en, parts_zh = [], []
            for what in differences:
                if what == "model":
                    parts_en.append(f"model {measured.model}, not {claimed.model}")
                    parts_zh.append(f"型号 {measured.model}，并非 {claimed.model}")
                elif what == "memory":
                    parts_en.append(f"{measured.memory_gb} GB, not {claimed.memory_gb} GB")
                    parts_zh.append(f"显存 {measured.memory_gb} GB，并非 {claimed.memory_gb} GB")
                else:
                    got = _FORM_EN.get(measured.form_factor or "", measured.form_factor)
                    want = _FORM_EN.get(claimed.form_factor or "", claimed.form_factor)
                    parts_en.append(f"{got}, not {want}")
                    parts_zh.append(f"{got} 版本，并非 {want}")
            why_en, why_zh = "; ".join(parts_en), "；".join(parts_zh)
            on_node = not hosts or any(same_host(h, node) for h in hosts)
            shown_hosts = ", ".join(hosts)
            if on_node:
                where_en = f" on host {shown_hosts}" if hosts else ""
                where_zh = f"（主机 {shown_hosts}）" if hosts else ""
                en = (
                    f"the nccl-tests run {ev.ref} lists its devices{where_en} as {name} "
                    f"({why_en}), not the claimed {claims.gpu_model}"
                )
                zh = (
                    f"nccl-tests 结果 {ev.ref_zh}{where_zh}列出的设备为 {name}"
                    f"（{why_zh}），并非声明的 {claims.gpu_model}"
                )
            else:
                en = (
                    f"the nccl-tests run {ev.ref} ran on host(s) {shown_hosts}, not on node "
                    f"{node} (the upload's node name is not the hostname in the file), and its "
                    f"device lines name {name} ({why_en}), not the claimed {claims.gpu_model}: "
                    "a run on other machines and other GPUs, so the evidence filed under this "
                    "node does not all come from it (remove that upload or upload the node's "
                    "own run)"
                )
                zh = (
                    f"nccl-tests 结果 {ev.ref_zh}运行于主机 {shown_hosts}，而非节点 {node}"
                    f"（上传所填节点名与文件中的主机名不符），其设备行显示 {name}（{why_zh}），"
                    f"并非声明的 {claims.gpu_model}：这是在其他机器、其他 GPU 上的运行，"
                    "归入该节点的证据并非全部来自该节点（请删除该上传或上传该节点自己的运行结果）"
                )
            found.append((on_node, en, zh, ev.ref))
    return found


def _gpu_node(node: str, evs: Sequence[NodeEvidence], claims: Claims) -> NodeResult | None:
    obs = _observe(evs)
    nccl = _nccl_devices(node, evs, claims)
    if obs["count"] is None and not obs["names"] and obs["mib"] is None:
        if not nccl:
            return None
        # Only nccl-tests runs speak to this node's GPUs, and they name another GPU.
        contradicts = any(on_node for on_node, *_ in nccl)
        shown = [f for f in nccl if f[0]] if contradicts else nccl
        return NodeResult(
            node,
            STATUS_CONTRADICTED if contradicts else STATUS_UNVERIFIABLE,
            f"On node {node} " + "; ".join(f[1] for f in shown) + ".",
            f"节点 {node}：" + "；".join(f[2] for f in shown) + "。",
            shown[0][3],
            {"gpu_count": None, "gpu_names": [], "nccl_devices": [f[1] for f in nccl]},
        )
    claimed = match_gpu(claims.gpu_model)
    problems: list[tuple[str, str]] = []
    gaps: list[tuple[str, str]] = []
    names: list[str] = obs["names"]
    count: int | None = obs["count"]

    conflict = _listing_conflict(evs)
    if conflict is not None:
        problems.append(conflict[:2])
    nccl_ref = None
    for on_node, en, zh, nref in nccl:
        (problems if on_node else gaps).append((en, zh))
        nccl_ref = nccl_ref or nref
    if not names:
        gaps.append(("the GPU model is not shown", "未显示 GPU 型号"))
    for name in dict.fromkeys(names):
        problem = _model_problem(claims, claimed, name)
        if problem:
            problems.append(problem)
        elif not _model_known(claims, claimed, name):
            gaps.append(
                (f"the model name {name!r} is not recognised", f"无法识别型号名称 {name!r}")
            )
    partial = obs["count_partial"]
    count_short = 0
    if count is None:
        gaps.append(("the GPU count is not shown", "未显示 GPU 数量"))
    elif partial and count < claims.gpus_per_node:
        gaps.append(
            (
                f"only {count} GPU(s) are shown because "
                f"{_PARTIAL_EN.get(partial, 'the listing is partial')}: a partial listing "
                f"is a lower bound and cannot show fewer than the {claims.gpus_per_node} "
                "claimed",
                f"仅显示 {count} 块 GPU，因为{_PARTIAL_ZH.get(partial, '列表不完整')}："
                f"不完整的列表只是下限，不能证明少于声明的 {claims.gpus_per_node} 块",
            )
        )
    elif count < claims.gpus_per_node:
        problems.append(
            (
                f"only {count} GPU(s) are visible, fewer than the {claims.gpus_per_node} claimed",
                f"仅可见 {count} 块 GPU，少于声明的 {claims.gpus_per_node} 块",
            )
        )
        count_short = len(problems)  # the count is this node's only problem if none follows

    measured_gib: float | None = None
    memory_source = memory_source_zh = ""
    if obs["mib"] is not None:
        measured_gib = obs["mib"] / 1024
        memory_source = memory_source_zh = f"{num(obs['mib'], 0)} MiB"
    else:
        from_names = [m for m in (_memory_from_name(n) for n in names) if m is not None]
        if from_names:
            measured_gib = float(min(from_names))
            memory_source = f"{min(from_names)} GB in the model name"
            memory_source_zh = f"型号名称中的 {min(from_names)} GB"
    # A GDDR board with ECC on shows 15/16 of its datasheet memory (reference.ecc_reserved_share):
    # the claim is read as that visible share, and the explanation says so.
    card = claimed or next(filter(None, map(match_gpu, names)), None)
    ecc_share = ecc_reserved_share(card) if obs["mib"] is not None else 0.0
    visible_gib = claims.gpu_memory_gib * (1 - ecc_share)
    floor_gib = visible_gib * (1 - GPU_MEMORY_TOLERANCE)
    ecc_en = ecc_zh = ""
    if ecc_share and card is not None:
        parts = round(1 / ecc_share)
        shown_share = f"{parts - 1}/{parts}"
        ecc_en = (
            f" (the {card.display_name} keeps its ECC inline in GDDR memory: with ECC on "
            f"nvidia-smi shows {shown_share} of it, {num(visible_gib)} GiB)"
        )
        ecc_zh = (
            f"（{card.display_name} 的 ECC 校验位存于 GDDR 显存内：开启 ECC 时 nvidia-smi "
            f"只显示其 {shown_share}，即 {num(visible_gib)} GiB）"
        )
    if measured_gib is None:
        gaps.append(("the GPU memory is not shown", "未显示显存容量"))
    elif measured_gib < floor_gib:
        problems.append(
            (
                f"each GPU has {num(measured_gib)} GiB ({memory_source}), below the claimed "
                f"{claims.gpu_memory_gib} GiB{ecc_en} less {pct(GPU_MEMORY_TOLERANCE)}",
                f"每块 GPU 显存 {num(measured_gib)} GiB（{memory_source_zh}），低于声明的 "
                f"{claims.gpu_memory_gib} GiB{ecc_zh}（容差 {pct_zh(GPU_MEMORY_TOLERANCE)}）",
            )
        )

    shown_names = ", ".join(dict.fromkeys(names)) or "GPU"
    shown = f"{count if count is not None else '?'} × {shown_names}"
    if partial and count is not None and count >= claims.gpus_per_node:
        shown = f"at least {count} × {shown_names}"
    shown_zh = shown.replace("at least ", "至少 ")
    if memory_source:
        shown += f" ({memory_source})"
        shown_zh += f"（{memory_source_zh}）"
    claim_text = f"{claims.gpus_per_node} × {claims.gpu_model}"
    if _memory_from_name(claims.gpu_model) != claims.gpu_memory_gib:
        claim_text += f" {claims.gpu_memory_gib} GB"
    details = {
        "gpu_count": count,
        "gpu_count_partial": partial,
        "gpu_names": names,
        "memory_gib": None if measured_gib is None else round(measured_gib, 2),
        "memory_mib": obs["mib"],
    }
    ref = obs["names_ref"] or obs["count_ref"] or obs["mib_ref"]
    if conflict is not None:
        ref = conflict[2]
    if nccl:
        # The run naming another GPU is what keeps the node from verified: it is cited.
        details["nccl_devices"] = [f[1] for f in nccl]
        if conflict is None:
            ref = nccl_ref
    if problems:
        # The count alone falls short (model and memory as claimed): a GPU lost from a node
        # the fleet may carry as a fault (verify_gpu_match), unlike a different board.
        details["count_short_only"] = len(problems) == 1 and count_short == 1
        en = f"On node {node} " + "; ".join(p[0] for p in problems) + "."
        zh = f"节点 {node}：" + "；".join(p[1] for p in problems) + "。"
        return NodeResult(node, STATUS_CONTRADICTED, en, zh, ref, details)
    if gaps:
        en = (
            f"Node {node} shows {shown}, which fits the claim {claim_text} so far, but "
            + "; ".join(g[0] for g in gaps)
            + "."
        )
        zh = (
            f"节点 {node} 显示 {shown_zh}，与声明的 {claim_text} 暂无矛盾，但"
            + "；".join(g[1] for g in gaps)
            + "。"
        )
        return NodeResult(node, STATUS_UNVERIFIABLE, en, zh, ref, details)
    en = (
        f"Measured {shown} on node {node} matches the claim {claim_text}{ecc_en} "
        f"(tolerance {pct(GPU_MEMORY_TOLERANCE)})."
    )
    zh = (
        f"节点 {node} 实测 {shown_zh}，与声明的 {claim_text}{ecc_zh or ' '}相符"
        f"（容差 {pct_zh(GPU_MEMORY_TOLERANCE)}）。"
    )
    return NodeResult(node, STATUS_VERIFIED, en, zh, ref, details)


# A fleet whose nodes all show the claimed model and memory, where at most a quarter of the
# nodes lack a GPU and 95 % of the GPUs are seen, matches the claim: a GPU fallen off the bus
# (Xid 79) is a fault for repair, charged by the stability rules that read the kernel log,
# not a misstated board. Fewer nodes than four, or more missing, stay contradicted.
GPU_FAULT_NODE_SHARE = 0.25
GPU_FAULT_SEEN_SHARE = 0.95


def _gpu_faults_tolerated(results: list[NodeResult], claims: Claims) -> list[NodeResult]:
    """``results`` with the nodes that only lack GPUs verified as faults, when the fleet's
    shortfall is within the tolerance above (unchanged otherwise)."""
    short = [r for r in results if r.status == STATUS_CONTRADICTED]
    if not short or any(not r.details.get("count_short_only") for r in short):
        return results
    shortfall = {id(r) for r in short}
    seen = sum(
        min(r.details.get("gpu_count") or 0, claims.gpus_per_node)
        if id(r) in shortfall
        else claims.gpus_per_node
        for r in results
    )
    if len(short) > GPU_FAULT_NODE_SHARE * len(
        results
    ) or seen < GPU_FAULT_SEEN_SHARE * claims.gpus_per_node * len(results):
        return results
    faults = []
    for r in short:
        count = r.details.get("gpu_count")
        faults.append(
            NodeResult(
                r.node,
                STATUS_VERIFIED,
                f"Node {r.node} shows {count} of the {claims.gpus_per_node} GPUs claimed: "
                f"{len(short)} of {len(results)} nodes lack a GPU and {seen} of "
                f"{claims.gpus_per_node * len(results)} GPUs are seen, a fault for repair "
                "(the kernel log's Xid errors count in stability), not a misstated board.",
                f"节点 {r.node} 显示 {count} 块 GPU（声明 {claims.gpus_per_node} 块）："
                f"{len(results)} 个节点中有 {len(short)} 个缺少 GPU，共可见 {seen} / "
                f"{claims.gpus_per_node * len(results)} 块，属于待维修的硬件故障"
                "（内核日志中的 Xid 错误计入稳定性），而非虚假声明。",
                r.ref,
                {**r.details, "gpu_fault": True},
            )
        )
    # The fault nodes first: the item's explanation names its first nodes.
    return faults + [r for r in results if id(r) not in shortfall]


def _accelerator_node(node: str, evs: Sequence[NodeEvidence], claims: Claims) -> NodeResult | None:
    """Item 1 on a node of a candidate declared with a Huawei Ascend part: its npu-smi device
    table; without one, its NVIDIA listings that show GPUs (another part than the claimed);
    an lspci listing Ascend functions alone leaves the NPUs uncounted."""
    table = npu_table(evs)
    if table is not None:
        return npu_node(node, evs, claims, table)
    found = _gpu_node(node, [e for e in evs if not no_nvidia_gpu_listing(e)], claims)
    return found if found is not None else ascend_without_table(node, evs)


def verify_gpu_match(claims: Claims, evidence: Sequence[NodeEvidence]) -> ItemVerification:
    """Item 1: every node that reported GPUs must show the claimed model, count and memory
    (a GPU missing on a few nodes of a fleet is a fault: _gpu_faults_tolerated). A candidate
    declared with a Huawei Ascend part is read from npu-smi (npu.py)."""
    ascend = ascend_claimed(claims)
    judge = _accelerator_node if ascend else _gpu_node
    results = [
        r
        for node, evs in by_node(evidence).items()
        if (r := per_node("gpu_match", node, claims, lambda n=node, e=evs: judge(n, e, claims)))
    ]
    results = _gpu_faults_tolerated(results, claims)
    if ascend:
        no_evidence_en = (
            "No npu-smi device table (nor nvidia-smi or lspci output) was uploaded, so the NPU "
            "model, count and memory cannot be checked."
        )
        no_evidence_zh = (
            "未上传 npu-smi 设备表（也无 nvidia-smi 或 lspci 输出），"
            "无法核对 NPU 型号、数量与显存。"
        )
    else:
        no_evidence_en = (
            "No nvidia-smi, lspci or topology output was uploaded, so the GPU model, count and "
            "memory cannot be checked."
        )
        no_evidence_zh = "未上传 nvidia-smi、lspci 或拓扑输出，无法核对 GPU 型号、数量与显存。"
    return combine_nodes(
        "gpu_match",
        results,
        tolerance=(
            f"same model and form factor; count ≥ {claims.gpus_per_node} (a GPU missing on at "
            f"most {pct(GPU_FAULT_NODE_SHARE)} of the nodes, {pct(GPU_FAULT_SEEN_SHARE)} of "
            f"the GPUs seen, is a fault); memory ≥ claim − {pct(GPU_MEMORY_TOLERANCE)} "
            "(on a GDDR board with inline ECC, of the 15/16 of the claim nvidia-smi shows)"
        ),
        tolerance_zh=(
            f"型号与规格一致；数量 ≥ {claims.gpus_per_node}（至多 "
            f"{pct_zh(GPU_FAULT_NODE_SHARE)} 的节点缺少 GPU 且可见 GPU ≥ "
            f"{pct_zh(GPU_FAULT_SEEN_SHARE)} 时视为故障）；显存 ≥ 声明值 − "
            f"{pct(GPU_MEMORY_TOLERANCE)}（ECC 内嵌于 GDDR 显存的卡，以 nvidia-smi 显示的"
            "声明值 15/16 为准）"
        ),
        no_evidence_en=no_evidence_en,
        no_evidence_zh=no_evidence_zh,
    )


def _measured_topology(metrics: Mapping[str, Any]) -> str | None:
    """ "full_mesh", "grouped" or "none" from a topo matrix; None when it cannot tell."""
    full = metrics.get("full_nvlink_mesh")
    pairs = as_int(metrics.get("nvlink_pairs"))
    gpus = as_int(metrics.get("gpu_count"))
    if full is True:
        return "full_mesh"
    if pairs is None:
        return None
    if full is False:
        return "grouped" if pairs > 0 else "none"
    # Unknown mesh (a truncated matrix with missing cells): only a complete pair count speaks.
    if gpus is not None and pairs == gpus * (gpus - 1) // 2:
        return "full_mesh"
    return None


def _weakest_gpu(metrics: Mapping[str, Any], claims: Claims) -> tuple[str, int] | None:
    """The GPU with the fewest active NVLink links and its count, or None.

    ``links_per_gpu`` is the best GPU's count, so one GPU with links down on an otherwise
    healthy node would pass on it alone. Under a full mesh every GPU must have all its links;
    under NVLink pairs (bridges) a GPU with no active link at all is one left unbridged, which
    the topology matrix judges, so only a partly connected GPU counts here.
    """
    per_gpu = metrics.get("gpus")
    if not isinstance(per_gpu, Mapping):
        return None
    counted = []
    for key, entry in per_gpu.items():
        if not isinstance(entry, Mapping):
            continue
        active = as_int(entry.get("active_links"))
        if active is None:
            continue
        if claims.nvlink_topology != "full_mesh" and (
            active == 0 or entry.get("all_links_inactive")
        ):
            continue
        counted.append((active, str(key)))
    if not counted:
        return None
    active, key = min(counted, key=lambda pair: (pair[0], pair[1]))
    return key, active


def _nvlink_status_problem(
    metrics: Mapping[str, Any], spec: GpuSpec | None, claims: Claims
) -> tuple[str, str] | None:
    """A contradiction from `nvidia-smi nvlink` (links down, slow links), or None."""
    # Inactive links alone prove nothing: an H100 PCIe shows 18 links, of which its bridges
    # use 12. What counts is the active links per GPU against the model's own count.
    if claims.nvlink_topology == "none" or spec is None or spec.nvlink_links == 0:
        return None
    links = as_int(metrics.get("links_per_gpu"))
    inactive = as_int(metrics.get("inactive_links")) or 0
    if links is not None and links < spec.nvlink_links:
        return (
            f"only {links} of the {spec.nvlink_links} NVLink links of a {spec.display_name} "
            f"are active per GPU ({inactive} inactive link(s) listed)",
            f"每块 GPU 仅 {links} 条 NVLink 激活，{spec.display_name} 应有 {spec.nvlink_links} 条",
        )
    weakest = _weakest_gpu(metrics, claims)
    if weakest is not None and weakest[1] < spec.nvlink_links:
        gpu, active = weakest
        return (
            f"GPU {gpu} has only {active} of the {spec.nvlink_links} NVLink links of a "
            f"{spec.display_name} active",
            f"GPU {gpu} 仅 {active} 条 NVLink 激活，{spec.display_name} 应有 "
            f"{spec.nvlink_links} 条",
        )
    speed = as_float(metrics.get("link_gbyte_s"))
    slowest = as_float(metrics.get("link_gbyte_s_min"))
    if speed and slowest is not None and slowest < speed * (1 - NVLINK_BANDWIDTH_TOLERANCE):
        return (
            f"an NVLink link runs at {num(slowest, 3)} GB/s while the others run at "
            f"{num(speed, 3)} GB/s (a degraded link)",
            f"有 NVLink 链路仅以 {num(slowest, 3)} GB/s 运行，其余为 {num(speed, 3)} GB/s"
            "（链路降级）",
        )
    if links and speed:
        total = links * speed
        if total < spec.nvlink_uni_gbyte_s * (1 - NVLINK_BANDWIDTH_TOLERANCE):
            return (
                f"NVLink runs at {num(total)} GB/s per GPU ({links} × {num(speed, 3)} GB/s), "
                f"below the {num(spec.nvlink_uni_gbyte_s)} GB/s of a {spec.display_name}",
                f"NVLink 每 GPU {num(total)} GB/s（{links} × {num(speed, 3)} GB/s），低于 "
                f"{spec.display_name} 的 {num(spec.nvlink_uni_gbyte_s)} GB/s",
            )
    return None


def _topo_links_down(
    node: str,
    ev: NodeEvidence,
    measured: str,
    spec: GpuSpec | None,
    claims: Claims,
    details: dict[str, Any],
) -> NodeResult | None:
    """The verdict when the NVLink mesh or groups in ``ev`` show NVLinks down (nvlink_links),
    else None.

    A full mesh is held to the model's link count (topo_links_down), a grouped board to its
    own GPUs (grouped_links_down: a GPU whose NVLinks add up to fewer than the other GPUs of
    groups of its size). Either delivers one step less than it shows, as with links down in
    `nvidia-smi nvlink -s`: a full mesh with links down contradicts a full-mesh claim and still
    meets a grouped one (the GPUs are joined by NVLink), and the reason says which links are
    down; grouped NVLink with links down contradicts a grouped claim (a group is not
    complete). A claim of no NVLink is met by either.
    """
    if claims.nvlink_topology == "none":
        return None
    if measured == "full_mesh" and spec is not None:
        down = topo_links_down(ev.metrics, spec.nvlink_links)
        model = spec.display_name
    elif measured == "grouped":
        down = grouped_links_down(ev.metrics)
        model = ""
    else:
        return None
    if down is None:
        return None
    what_en, what_zh = down.described(model, ev.source or ev.kind)
    details["effective_topology"] = _degraded(measured)
    details["nvlink_links_down"] = dict(down.links)
    details["nvlink_links_expected"] = down.expected
    gpus = as_int(ev.metrics.get("gpu_count"))
    if measured == "grouped":
        return NodeResult(
            node,
            STATUS_CONTRADICTED,
            f"nvidia-smi topo -m on node {node} shows {_TOPOLOGY_EN['grouped']} between {gpus} "
            f"GPUs, but {what_en}, so the claimed grouped NVLink is not complete.",
            f"节点 {node} 的 nvidia-smi topo -m 显示 {gpus} 块 GPU 之间为"
            f"{_TOPOLOGY_ZH['grouped']}，但{what_zh}，声明的分组 NVLink 不完整。",
            ev.ref,
            details,
        )
    shown = f"nvidia-smi topo -m on node {node} shows NVLink between all {gpus} GPUs"
    shown_zh = f"节点 {node} 的 nvidia-smi topo -m 显示 {gpus} 块 GPU 之间均有 NVLink"
    if claims.nvlink_topology == "full_mesh":
        return NodeResult(
            node,
            STATUS_CONTRADICTED,
            f"{shown}, but {what_en}, so the claimed all-to-all NVLink mesh is not complete.",
            f"{shown_zh}，但{what_zh}，声明的全互联 NVLink 不完整。",
            ev.ref,
            details,
        )
    return NodeResult(
        node,
        STATUS_VERIFIED,
        f"{shown}, which meets the claimed {_TOPOLOGY_EN['grouped']}, though {what_en}.",
        f"{shown_zh}，满足声明的{_TOPOLOGY_ZH['grouped']}，但{what_zh}。",
        ev.ref,
        details,
    )


def _nvlink_node(node: str, evs: Sequence[NodeEvidence], claims: Claims) -> NodeResult | None:
    topo = of_kind(evs, "nvidia_smi_topo")
    links = of_kind(evs, "nvidia_smi_nvlink")
    if not topo and not links:
        return None
    spec = match_declared_gpu(claims.gpu_model, claims.gpu_form_factor, claims.gpu_memory_gib)
    claimed = claims.nvlink_topology
    details: dict[str, Any] = {"claimed": claimed}
    # What this node delivers, as scoring reads it (MeasuredFacts.nvlink_topology takes the
    # worst node's): the topo reading, one step less connected when NVLink links are down.
    seen = _topo_reading(topo)
    details["effective_topology"] = seen
    for ev in links:
        problem = _nvlink_status_problem(ev.metrics, spec, claims)
        details["links_per_gpu"] = as_int(ev.metrics.get("links_per_gpu"))
        details["link_gbyte_s"] = as_float(ev.metrics.get("link_gbyte_s"))
        details["inactive_links"] = as_int(ev.metrics.get("inactive_links"))
        if problem:
            details["effective_topology"] = _degraded(worse_topology(seen or claimed, claimed))
            return NodeResult(
                node,
                STATUS_CONTRADICTED,
                f"On node {node} {problem[0]}, so the claimed "
                f"{_TOPOLOGY_EN[claimed].removeprefix('an ')} is not complete.",
                f"节点 {node}：{problem[1]}，声明的{_TOPOLOGY_ZH[claimed]}不完整。",
                ev.ref,
                details,
            )
    for ev in topo:
        measured = _measured_topology(ev.metrics)
        gpus = as_int(ev.metrics.get("gpu_count"))
        details.update({"measured": measured, "gpu_count": gpus})
        if measured is None or gpus is None or gpus < 2:
            continue
        seen = f"{_TOPOLOGY_EN[measured]} between {gpus} GPUs"
        seen_zh = f" {gpus} 块 GPU 之间为{_TOPOLOGY_ZH[measured]}"
        if _TOPOLOGY_RANK[measured] < _TOPOLOGY_RANK[claimed]:
            return NodeResult(
                node,
                STATUS_CONTRADICTED,
                f"nvidia-smi topo -m on node {node} shows {seen}, not {_TOPOLOGY_EN[claimed]} "
                "as claimed.",
                f"节点 {node} 的 nvidia-smi topo -m 显示{seen_zh}，而非声明的"
                f"{_TOPOLOGY_ZH[claimed]}。",
                ev.ref,
                details,
            )
        down = _topo_links_down(node, ev, measured, spec, claims, details)
        if down is not None:
            return down
        if gpus < claims.gpus_per_node:
            return NodeResult(
                node,
                STATUS_UNVERIFIABLE,
                f"nvidia-smi topo -m on node {node} shows {seen}, but only {gpus} of the "
                f"{claims.gpus_per_node} claimed GPUs are visible, so the whole node's "
                "topology is not shown.",
                f"节点 {node} 的 nvidia-smi topo -m 显示{seen_zh}，但仅可见声明的 "
                f"{claims.gpus_per_node} 块中的 {gpus} 块，无法确认整机拓扑。",
                ev.ref,
                details,
            )
        if measured == claimed:
            en = f"nvidia-smi topo -m on node {node} shows {seen}, as claimed."
            zh = f"节点 {node} 的 nvidia-smi topo -m 显示{seen_zh}，与声明一致。"
        else:
            en = (
                f"nvidia-smi topo -m on node {node} shows {seen}, better than the claimed "
                f"{_TOPOLOGY_EN[claimed].removeprefix('an ')}."
            )
            zh = (
                f"节点 {node} 的 nvidia-smi topo -m 显示{seen_zh}，优于声明的"
                f"{_TOPOLOGY_ZH[claimed]}。"
            )
        return NodeResult(node, STATUS_VERIFIED, en, zh, ev.ref, details)
    ref = (topo or links)[0].ref
    return NodeResult(
        node,
        STATUS_UNVERIFIABLE,
        f"The NVLink evidence from node {node} does not show the connections between GPUs "
        "(nvidia-smi topo -m with at least two GPUs is needed).",
        f"节点 {node} 的 NVLink 证据未显示 GPU 之间的连接（需要至少两块 GPU 的 "
        "nvidia-smi topo -m 输出）。",
        ref,
        details,
    )


def verify_nvlink_topology(claims: Claims, evidence: Sequence[NodeEvidence]) -> ItemVerification:
    """Item 2: the NVLink mesh seen by `nvidia-smi topo -m`, and link health from `nvlink -s`.

    A richer topology than claimed verifies; a poorer one, or NVLink links down, contradicts.
    """
    results = [
        r
        for node, evs in by_node(evidence).items()
        if (
            r := per_node(
                "nvlink_topology", node, claims, lambda n=node, e=evs: _nvlink_node(n, e, claims)
            )
        )
    ]
    return combine_nodes(
        "nvlink_topology",
        results,
        tolerance=(
            "topology at least as connected as claimed; every NVLink link of the model active "
            f"(per-GPU bandwidth within {pct(NVLINK_BANDWIDTH_TOLERANCE)})"
        ),
        tolerance_zh=(
            "拓扑的互联程度不低于声明；该型号的每条 NVLink 链路均处于活动状态"
            f"（每 GPU 带宽偏差在 {pct(NVLINK_BANDWIDTH_TOLERANCE)} 以内）"
        ),
        no_evidence_en=(
            "No nvidia-smi topo -m or nvidia-smi nvlink output was uploaded, so the NVLink "
            "topology cannot be checked."
        ),
        no_evidence_zh=(
            "未上传 nvidia-smi topo -m 或 nvidia-smi nvlink 输出，无法核对 NVLink 拓扑。"
        ),
    )
