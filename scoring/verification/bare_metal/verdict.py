"""The verdict: every node's signals collected (collect_signals) and weighed into a bare-metal
verdict with its confidence and its explanation in English and Chinese (combine_signals,
verify_bare_metal)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .._util import by_node, num, of_kind, per_node
from ..model import (
    POINTS_TO_BARE_METAL,
    POINTS_TO_VIRTUAL,
    VERDICT_BARE_METAL,
    VERDICT_UNCERTAIN,
    VERDICT_VIRTUALISED,
    BareMetalVerdict,
    Claims,
    NodeEvidence,
    Signal,
)
from .gpu_network import _gpu_mode_signals, _ibstat_signals, _nccl_signals, _topo_signals
from .host import (
    _cpu_signals,
    _dmi_signals,
    _kernel_log_signals,
    _oracle_server_correction,
    _virt_signals,
)
from .pci import _lspci_signals, _root_bus_signals
from .weights import _NVIDIA_SMI_KINDS, POINTS_TO_CONTEXT

VERDICT_THRESHOLD = 0.6
COUNTER_EVIDENCE_DISCOUNT = 0.6


def collect_signals(claims: Claims, evidence: Sequence[NodeEvidence]) -> list[Signal]:
    """Every bare-metal / virtualisation signal in the evidence, node by node, stable order."""
    signals: list[Signal] = []
    for node, evs in by_node(evidence).items():
        signals.extend(per_node("bare_metal", node, claims, lambda e=evs: _node_signals(claims, e)))
    return [_oracle_server_correction(s, evidence) for s in signals]


def _node_signals(claims: Claims, evs: Sequence[NodeEvidence]) -> tuple[Signal, ...]:
    """The signals of one node's evidence, in collect_signals' order."""
    signals: list[Signal] = []
    for ev in of_kind(evs, "cpu_info"):
        signals.extend(_cpu_signals(ev, claims))
    for ev in of_kind(evs, "dmi"):
        signals.extend(_dmi_signals(ev))
    for ev in of_kind(evs, "lspci"):
        signals.extend(_lspci_signals(ev))
    for ev in of_kind(evs, "virt"):
        signals.extend(_virt_signals(ev))
    for ev in of_kind(evs, "kernel_log"):
        signals.extend(_kernel_log_signals(ev))
    for ev in of_kind(evs, *_NVIDIA_SMI_KINDS):
        signals.extend(_gpu_mode_signals(ev))
    for ev in of_kind(evs, "ibstat"):
        signals.extend(_ibstat_signals(ev))
    for ev in of_kind(evs, "nvidia_smi_topo"):
        signals.extend(_topo_signals(ev))
    for ev in of_kind(evs, "nccl_tests"):
        signals.extend(_nccl_signals(ev))
    signals.extend(_root_bus_signals(of_kind(evs, *_NVIDIA_SMI_KINDS, "nccl_tests")))
    return tuple(signals)


def _side_probability(signals: Iterable[Signal], side: str) -> float:
    strongest: dict[str, float] = {}
    for s in signals:
        if s.points_to == side:
            strongest[s.name] = max(strongest.get(s.name, 0.0), min(max(s.weight, 0.0), 1.0))
    remaining = 1.0
    for weight in strongest.values():
        remaining *= 1 - weight
    return 1 - remaining


def combine_signals(signals: Sequence[Signal]) -> BareMetalVerdict:
    """Weigh signals into a verdict (see the package docstring). No signals: uncertain, 0."""
    p_bm = _side_probability(signals, POINTS_TO_BARE_METAL)
    p_vm = _side_probability(signals, POINTS_TO_VIRTUAL)
    bm_score = round(p_bm * (1 - p_vm), 4)
    vm_score = round(p_vm * (1 - COUNTER_EVIDENCE_DISCOUNT * p_bm), 4)
    ordered = tuple(sorted(signals, key=lambda s: (-s.weight, s.name, s.node_name or "")))
    in_container = sorted({s.node_name or "" for s in signals if s.name == "container"})
    if bm_score >= VERDICT_THRESHOLD and bm_score >= vm_score and not in_container:
        verdict, confidence, side = VERDICT_BARE_METAL, bm_score, POINTS_TO_BARE_METAL
    elif vm_score >= VERDICT_THRESHOLD:
        verdict, confidence, side = VERDICT_VIRTUALISED, vm_score, POINTS_TO_VIRTUAL
    else:
        verdict, confidence, side = VERDICT_UNCERTAIN, max(bm_score, vm_score), ""
    reasons = [
        s for s in ordered if s.points_to != POINTS_TO_CONTEXT and (not side or s.points_to == side)
    ][:3]
    because_en = " ".join(s.explanation_en for s in reasons)
    because_zh = "".join(s.explanation_zh for s in reasons)
    scores = f"bare-metal score {num(bm_score, 2)}, virtual score {num(vm_score, 2)}"
    scores_zh = f"裸金属得分 {num(bm_score, 2)}，虚拟化得分 {num(vm_score, 2)}"
    if not signals:
        en = "Uncertain: no evidence about virtualisation was uploaded (confidence 0)."
        zh = "无法判断：未上传任何与虚拟化相关的证据（置信度 0）。"
    elif verdict == VERDICT_BARE_METAL:
        en = f"Bare metal (confidence {num(confidence, 2)}; {scores}). {because_en}"
        zh = f"裸金属（置信度 {num(confidence, 2)}；{scores_zh}）。{because_zh}"
    elif verdict == VERDICT_VIRTUALISED:
        en = f"Virtualised (confidence {num(confidence, 2)}; {scores}). {because_en}"
        zh = f"虚拟化（置信度 {num(confidence, 2)}；{scores_zh}）。{because_zh}"
    elif in_container and p_vm == 0.0:
        nodes = ", ".join(n for n in in_container if n) or "?"
        en = (
            "Uncertain: the collector ran in a container; the host shows no hypervisor "
            f"(container on node {nodes}; {scores}). A container cannot show whether the "
            "machine is handed over whole: run the collector on the host itself to verify a "
            f"bare-metal claim. {because_en}"
        )
        zh = (
            "无法判断：采集器在容器中运行；宿主机未显示任何虚拟机监控程序"
            f"（容器位于节点 {nodes}；{scores_zh}）。容器内无法判断整机是否独占交付："
            f"请在宿主机上直接运行采集器以验证裸金属声明。{because_zh}"
        )
    else:
        en = (
            f"Uncertain: the signals are too weak or point both ways ({scores}; a verdict "
            f"needs {num(VERDICT_THRESHOLD, 2)}). {because_en}"
        )
        zh = (
            f"无法判断：信号过弱或相互矛盾（{scores_zh}；判定需达到 "
            f"{num(VERDICT_THRESHOLD, 2)}）。{because_zh}"
        )
    return BareMetalVerdict(verdict, confidence, ordered, bm_score, vm_score, en, zh)


def verify_bare_metal(claims: Claims, evidence: Sequence[NodeEvidence]) -> BareMetalVerdict:
    """The bare-metal verdict for all nodes together: a virtual signal on any node counts."""
    return combine_signals(collect_signals(claims, evidence))
