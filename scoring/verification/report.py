"""verify_candidate: every verifier run over one candidate's claims and evidence."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from ._util import _NODE_MEMO, NodeMemo, evidence_sort_key, first, of_kind
from .bare_metal import verify_bare_metal
from .gpu import verify_gpu_match, verify_nvlink_topology
from .gpu_nodes import ascend_claimed, npu_nodes, set_aside_note, split_gpu_nodes
from .health import health_faults
from .model import (
    ITEM_KEYS,
    STATUS_UNVERIFIABLE,
    BareMetalVerdict,
    Claims,
    ItemVerification,
    NodeEvidence,
    VerificationInputError,
    VerificationReport,
)
from .network import ALL_GATHER, ALL_REDUCE, ALLTOALL, verify_collective, verify_fabric
from .storage import verify_distributed_storage, verify_local_nvme

_NOT_MEASURABLE = {
    "compliance": (
        "MLPS and Xinchuang certification are documents, not something a node can measure.",
        "等保与信创认证属于文件资质，无法通过节点测量核实。",
    ),
    "sla": (
        "SLA commitments and compensation terms are contract terms, not measurable on a node.",
        "SLA 承诺与赔偿条款属于合同条款，无法在节点上测量。",
    ),
    "control": (
        "Control over OS install, images and drivers is not proven by one POC node's outputs.",
        "操作系统安装、镜像与驱动的控制权无法仅凭 POC 节点输出证明。",
    ),
    "monthly_cost": (
        "The monthly cost is a commercial figure; no evidence file can measure it.",
        "月度成本是商务数据，无法由证据文件测量。",
    ),
    "poc_window": (
        "The POC window is an agreement; uploaded evidence shows that a POC ran, not its terms.",
        "POC 窗口属于约定事项；上传的证据只能说明进行过 POC，无法证明其条款。",
    ),
}


def _not_measurable(key: str, evidence: Sequence[NodeEvidence]) -> ItemVerification:
    en, zh = _NOT_MEASURABLE[key]
    details: dict[str, object] = {}
    if key == "control":
        drivers = sorted(
            {
                str(v)
                for ev in of_kind(evidence, "nvidia_smi", "nvidia_smi_query")
                if (v := first(ev.metrics, "driver_version")) is not None
            }
        )
        details["driver_versions"] = drivers
    return ItemVerification(key, STATUS_UNVERIFIABLE, en, zh, None, None, details)


def _check(evidence: Sequence[NodeEvidence]) -> list[NodeEvidence]:
    checked = []
    for index, ev in enumerate(evidence):
        if not isinstance(ev, NodeEvidence):
            raise VerificationInputError(
                f"evidence item {index} is a {type(ev).__name__}, not a NodeEvidence"
            )
        if not isinstance(ev.metrics, Mapping):
            raise VerificationInputError(
                f"evidence item {index} ({ev.ref}) has metrics of type "
                f"{type(ev.metrics).__name__}; a mapping of metric names to values is needed"
            )
        checked.append(ev)
    return sorted(checked, key=evidence_sort_key)


def verify_candidate(
    claims: Claims,
    evidence: Sequence[NodeEvidence],
    *,
    memo: NodeMemo | None = None,
    node_keys: Mapping[str, Hashable] | None = None,
) -> VerificationReport:
    """Check a candidate's claims against all its parsed evidence.

    ``evidence`` may come from any number of nodes and uploads, in any order (the result does
    not depend on it). Every one of the ten checklist keys gets an item; items no evidence can
    speak to are "unverifiable" with the reason. Pure: no I/O, no clock.

    Incremental use: with a ``memo`` kept between calls and ``node_keys`` (node name -> a key
    that the caller guarantees changes whenever that node's evidence does), the per-node
    verdicts of a node whose key and claims are unchanged are taken from the memo instead of
    computed again; a node without a key is computed. The report is the same either way.
    """
    if not isinstance(claims, Claims):
        raise VerificationInputError(f"claims must be a Claims, not {type(claims).__name__}")
    if memo is None or not node_keys:
        return _verify(claims, _check(evidence))
    token = _NODE_MEMO.set((memo, node_keys))
    try:
        return _verify(claims, _check(evidence))
    finally:
        _NODE_MEMO.reset(token)


_Noted = TypeVar("_Noted", ItemVerification, BareMetalVerdict)


def _with_note(found: _Noted, nodes: tuple[str, ...], npu: bool) -> _Noted:
    """``found`` (an item or the bare-metal verdict) naming the nodes set aside; an item
    lists them in its details too."""
    en, zh = set_aside_note(nodes, npu=npu)
    changes: dict[str, Any] = {
        "explanation_en": f"{found.explanation_en} {en}".strip(),
        "explanation_zh": f"{found.explanation_zh}{zh}",
    }
    if isinstance(found, ItemVerification):
        changes["details"] = {**(found.details or {}), "set_aside_nodes": list(nodes)}
    return replace(found, **changes)


def _verify(claims: Claims, all_evs: list[NodeEvidence]) -> VerificationReport:
    # A node that shows no NVIDIA GPU (a collector run on the wrong machine) says nothing about
    # the offering's GPU nodes: its hypervisor would judge the delivery and its 0 GPUs the GPU
    # count. It is left out of every verdict below and named in the explanations instead. The
    # NPU nodes of a candidate declared with an Ascend part are its accelerator nodes: kept.
    npu = npu_nodes(claims, all_evs)
    evs, aside = split_gpu_nodes(all_evs, npu)
    report = _verify_gpu_nodes(claims, evs)
    if npu:
        report = replace(report, npu_nodes=npu)
    if not aside:
        return report
    ascend = ascend_claimed(claims)
    noted = {key: _with_note(report.items[key], aside, ascend) for key in _PER_NODE_ITEMS}
    return replace(
        report,
        items={key: noted.get(key, item) for key, item in report.items.items()},
        busbw=_with_note(report.busbw, aside, ascend),
        collectives={k: _with_note(v, aside, ascend) for k, v in report.collectives.items()},
        bare_metal=_with_note(report.bare_metal, aside, ascend),
        set_aside_nodes=aside,
    )


# The items a node's evidence speaks to (the others are not measurable on any node).
_PER_NODE_ITEMS = ("gpu_match", "nvlink_topology", "fabric", "local_nvme", "distributed_storage")


def _verify_gpu_nodes(claims: Claims, evs: list[NodeEvidence]) -> VerificationReport:
    fabric, port_faults = verify_fabric(claims, evs)
    items = {
        "gpu_match": verify_gpu_match(claims, evs),
        "nvlink_topology": verify_nvlink_topology(claims, evs),
        "fabric": fabric,
        "local_nvme": verify_local_nvme(claims, evs),
        "distributed_storage": verify_distributed_storage(claims, evs),
    }
    for key in ITEM_KEYS:
        if key not in items:
            items[key] = _not_measurable(key, evs)
    all_reduce = verify_collective(claims, evs, ALL_REDUCE)
    collectives = {}
    for collective in (ALLTOALL, ALL_GATHER):
        if any(e.metrics.get("collective") == collective for e in of_kind(evs, "nccl_tests")):
            collectives[collective] = verify_collective(claims, evs, collective).item
    faults = tuple(port_faults) + tuple(health_faults(evs))
    return VerificationReport(
        items={key: items[key] for key in ITEM_KEYS},
        busbw=all_reduce.item,
        busbw_fraction=all_reduce.fraction,
        expected_busbw=all_reduce.expected,
        bare_metal=verify_bare_metal(claims, evs),
        faults=faults,
        nvlink_busbw_fraction=all_reduce.one_node_fraction,
        collectives=collectives,
        nvlink_busbw_ref=all_reduce.one_node_ref,
        node_count=claims.node_count,
    )


def _dated(
    found: ItemVerification, evidence: Sequence[NodeEvidence], max_age_days: int | None
) -> ItemVerification:
    """``found`` with the measurement date of each upload its reference cites, and the
    evaluation's age rule, added to both explanations; unchanged without a dated reference."""
    cited = found.evidence_ref
    if not cited:
        return found
    dates: dict[str, str] = {}
    for ev in evidence:
        if ev.measured_at and ev.upload_id is not None and ev.ref in cited:
            key = str(ev.upload_id)
            day = ev.measured_at[:10]
            dates[key] = min(dates.get(key, day), day)
    if not dates:
        return found
    ordered = sorted(dates.items(), key=lambda kv: (kv[1], kv[0]))
    en = "; ".join(f"{day} (upload {upload})" for upload, day in ordered)
    zh = "；".join(f"{day}（上传 {upload}）" for upload, day in ordered)
    if max_age_days:
        rule_en = f"within the evaluation's maximum evidence age of {max_age_days} days"
        rule_zh = f"在该评估规定的证据最长有效期 {max_age_days} 天之内"
    else:
        rule_en = "the evaluation sets no maximum evidence age, so evidence of any age is used"
        rule_zh = "该评估未设定证据最长有效期，任何时间测得的证据均被采用"
    return replace(
        found,
        explanation_en=f"{found.explanation_en} Evidence measured on {en}; {rule_en}.",
        explanation_zh=f"{found.explanation_zh}证据测量于 {zh}；{rule_zh}。",
        details={**(found.details or {}), "measured_on": dict(ordered)},
    )


def with_measured_dates(
    report: VerificationReport,
    evidence: Sequence[NodeEvidence],
    *,
    max_age_days: int | None,
) -> VerificationReport:
    """``report`` with every verdict that cites evidence saying when that evidence was
    measured (``NodeEvidence.measured_at``, the day in UTC) and what the evaluation's maximum
    evidence age (``max_age_days``; None or 0: no maximum) allows, so that a reader sees a
    verdict resting on old evidence (a 2023 output accepted in 2026) where it is used."""
    return replace(
        report,
        items={k: _dated(v, evidence, max_age_days) for k, v in report.items.items()},
        busbw=_dated(report.busbw, evidence, max_age_days),
        collectives={k: _dated(v, evidence, max_age_days) for k, v in report.collectives.items()},
    )
