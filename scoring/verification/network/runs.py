"""The nccl-tests runs of one collective: which are usable, which set aside and why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...reference import (
    GpuNameFacts,
    GpuSpec,
    claimed_gpu_facts,
    gpu_name_differences,
    gpu_name_facts,
    nvlink_domain_size,
    run_in_nvlink_domain,
)
from .._util import as_float, as_int, as_list, num, of_kind, same_host
from ..model import Claims, NodeEvidence
from .bounds import ALL_REDUCE, _bound


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


@dataclass
class _Sorted:
    """The runs of one collective: usable, and set aside (en, zh) by reason."""

    usable: list[_Run]
    skipped: list[tuple[str, str]]
    foreign: list[tuple[str, str]]
    implausible: list[tuple[str, str]]


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
