"""Must-have checks that disqualify a candidate, each with its reason (EN/中文) and evidence line.

The must-haves come from the evaluation: total GPUs, GPU memory, the delivery form its scale
requires (bare metal from the rubric's threshold, 128 GPUs in v1), MLPS level, Xinchuang,
maximum budget and minimum measured bus-bandwidth fraction, and the POC plan's mandatory runs
(the multi-node fabric proof of a multi-node evaluation, a health diag that did not fail). A
must-have that the evidence cannot show yet (no bus-bandwidth measurement, no price against a
budget) also disqualifies, with a reason saying what is missing: a must-have is met only when it
is shown.
"""

from __future__ import annotations

from decimal import Decimal

from . import poc
from .reference import gpu_family_of, other_accelerator
from .region import Region, RegionError, residency_knockout
from .rubric import Rubric
from .tco import PendingTco, Tco
from .types import CandidateInput, EvaluationSpec, Knockout, ScoringInputError
from .types.inputs import parse_mig_profile

# How the reasons name billing models and delivery forms, in English and in Chinese.
BILLING_TERMS = {
    "hourly": ("hourly", "按小时"),
    "monthly": ("monthly", "包月"),
    "yearly": ("yearly", "包年"),
    "spot": ("spot", "竞价实例"),
}
DELIVERY_TERMS = {
    "bare_metal": ("bare metal", "裸金属"),
    "passthrough_vm": ("a PCIe passthrough VM", "PCIe 直通虚拟机"),
    "vgpu": ("vGPU", "vGPU"),
    "mig": ("a MIG instance", "MIG 实例"),
    "container": ("containers on shared GPUs", "共享 GPU 上的容器"),
}


# The virtualisation modes the NVIDIA driver reports inside a VM (nvidia-smi -q
# "Virtualization Mode"), by the delivery form each shows.
DRIVER_MODES = {
    "passthrough_vm": ("Pass-Through", "直通（Pass-Through）"),
    "vgpu": ("vGPU", "vGPU"),
}


def _term(terms: dict[str, tuple[str, str]], value: str) -> tuple[str, str]:
    return terms.get(value, (value, value))


def _pct(value: Decimal | float) -> str:
    return f"{float(value) * 100:.1f}".rstrip("0").rstrip(".") + " %"


def _gpu_knockouts(
    candidate: CandidateInput, evaluation: EvaluationSpec, rubric: Rubric
) -> list[Knockout]:
    found = []
    offering, measured = candidate.offering, candidate.measured
    have, need = candidate.gpu_count, evaluation.required_total_gpus
    fraction = 1.0
    if offering.mig_profile:
        try:
            fraction = rubric.gpu_fraction(offering.gpu_model, offering.mig_profile)
        except ScoringInputError as exc:
            # The portal validates profiles when they are saved; a profile that no longer
            # fits (the GPU model changed) disqualifies instead of breaking the ranking.
            return [
                Knockout(
                    "mig_profile",
                    f"the MIG profile does not fit the GPU: {exc}",
                    f"MIG 规格与 GPU 不匹配：{exc}",
                    f"offering: mig_profile = {offering.mig_profile}, gpu_model = "
                    f"{offering.gpu_model}",
                )
            ]
    if fraction != 1.0:
        # Rubric v2: MIG slices meet a requirement in full-GPU equivalents.
        equivalents = have * fraction
        if equivalents + 1e-9 < need:
            found.append(
                Knockout(
                    "total_gpus",
                    f"offers {have} MIG slices ({offering.mig_profile}) = {equivalents:.2f} "
                    f"full-GPU equivalents, the evaluation needs {need}",
                    f"提供 {have} 个 MIG 实例（{offering.mig_profile}）= {equivalents:.2f} "
                    f"张整卡当量，评估要求 {need} 张",
                    measured.ref("gpu_match") or f"offering: mig_profile = {offering.mig_profile}",
                )
            )
        have = max(have, need)
    nodes, per_node = candidate.node_count, offering.gpus_per_node
    memory, need_memory = offering.gpu_memory_gib, evaluation.required_gpu_memory_gib
    slice_memory = None
    if offering.mig_profile and rubric.v2 is not None:
        # Rubric v2: a MIG slice holds only its own memory (slices never pool it), so the
        # "N GPUs x M GiB" requirement is checked against the slice.
        slice_memory = parse_mig_profile(offering.mig_profile)[1]
        memory = min(memory, slice_memory)
    accepted = evaluation.accepted_gpu_families
    if accepted and gpu_family_of(offering.gpu_model) not in accepted:
        # Checklist item 1: the GPU model must match the requirement; the buyer names the
        # families it accepts (a pre-training buyer may exclude inference parts such as H20).
        found.append(
            Knockout(
                "gpu_model",
                f"offers {offering.gpu_model}, the evaluation accepts only {', '.join(accepted)}",
                f"提供 {offering.gpu_model}，评估仅接受 {'、'.join(accepted)}",
                measured.ref("gpu_match") or f"offering: gpu_model = {offering.gpu_model}",
            )
        )
    contradicted = candidate.answers.get("gpu_match") == "contradicted"
    if have >= need and memory >= need_memory and not contradicted:
        return found
    claim_ref = measured.ref("gpu_match")
    if have < need:
        found.append(
            Knockout(
                "total_gpus",
                f"offers {have} GPUs ({nodes} nodes × {per_node}), the evaluation needs {need}",
                f"提供 {have} 张 GPU（{nodes} 个节点 × {per_node} 张），评估要求 {need} 张",
                claim_ref or f"offering: {per_node} GPUs per node × {nodes} nodes",
            )
        )
    if memory < need_memory and slice_memory is not None:
        found.append(
            Knockout(
                "gpu_memory",
                # The profile names NVIDIA's memory size ("10gb"); it is counted in GiB, as
                # the offering's GPU memory ("80GB" cards as 80 GiB) and the requirement are.
                f"{memory} GiB per MIG slice ({offering.mig_profile}), the evaluation needs "
                f"{need_memory} GiB per GPU",
                f"每个 MIG 实例（{offering.mig_profile}）显存 {memory} GiB，评估要求每张 GPU "
                f"{need_memory} GiB",
                claim_ref or f"offering: mig_profile = {offering.mig_profile}",
            )
        )
    elif memory < need_memory:
        found.append(
            Knockout(
                "gpu_memory",
                f"{memory} GiB per GPU, the evaluation needs {need_memory} GiB",
                f"每张 GPU 显存 {memory} GiB，评估要求 {need_memory} GiB",
                claim_ref or f"offering: {offering.gpu_model}, gpu_memory_gib = {memory}",
            )
        )
    if contradicted:
        found.append(
            Knockout(
                "gpu_match_contradicted",
                "the evidence contradicts the claimed GPU model, count or memory",
                "证据与声明的 GPU 型号、数量或显存不符",
                claim_ref,
            )
        )
    return found


def _delivery_knockouts(
    candidate: CandidateInput, evaluation: EvaluationSpec, rubric: Rubric, need: int
) -> list[Knockout]:
    threshold = rubric.scale.bare_metal_required_min_gpus
    offering, measured = candidate.offering, candidate.measured
    if offering.delivery_form != "bare_metal":
        form_en, form_zh = _term(DELIVERY_TERMS, offering.delivery_form)
        return [
            Knockout(
                "delivery_form",
                f"{need} GPUs need bare metal (from {threshold} GPUs bare metal is practically "
                f"required); offered: {form_en}",
                f"{need} 张 GPU 的规模需要裸金属（{threshold} 张及以上实际上必须使用裸金属），"
                f"提供的是{form_zh}",
                f"offering: delivery_form = {offering.delivery_form}",
            )
        ]
    seen = measured.delivery_form_seen
    form, basis = rubric.observed_delivery_form(
        offering.delivery_form, measured.bare_metal_verdict, measured.bare_metal_confidence, seen
    )
    if form == "bare_metal" or basis != "measured":
        return []
    confidence = measured.bare_metal_confidence or 0.0
    if seen == form and seen in DRIVER_MODES:
        # The NVIDIA driver itself names the VM's mode: no confidence figure is needed.
        mode_en, mode_zh = DRIVER_MODES[seen]
        shows_en = f"the NVIDIA driver on a node reports {mode_en} mode (a virtual machine)"
        shows_zh = f"某节点上的 NVIDIA 驱动报告为{mode_zh}模式（虚拟机）"
    else:
        shows_en = f"the evidence shows a virtualised host (confidence {confidence:.2f})"
        shows_zh = f"证据显示为虚拟化主机（置信度 {confidence:.2f}）"
    return [
        Knockout(
            "delivery_form",
            f"{need} GPUs need bare metal; bare metal was claimed but {shows_en}",
            f"{need} 张 GPU 的规模需要裸金属；声明为裸金属，但{shows_zh}",
            measured.ref("delivery_form_seen", "bare_metal_verdict"),
        )
    ]


# MLPS (等保) levels as a Chinese reader names them: 等保三级 (level 3).
_MLPS_ZH = {1: "一", 2: "二", 3: "三", 4: "四"}
# The makers whose accelerators can sit in a Xinchuang (信创) stack: domestic ones. A GPU the
# reference table names from another maker (NVIDIA's whole table; AMD Instinct) is foreign.
DOMESTIC_ACCELERATOR_MAKERS = frozenset({"Huawei"})


def _mlps_zh(level: int) -> str:
    return f"等保{_MLPS_ZH.get(level, str(level))}级"


def _foreign_accelerator(gpu_model: str) -> str | None:
    """The maker of a GPU the reference table names and that is not domestic ("NVIDIA",
    "AMD"), or None: a domestic part, or a name the table does not know (judged on the
    vendor's word, as before)."""
    if gpu_family_of(gpu_model) is None:
        return None
    other = other_accelerator(gpu_model)
    if other is None:
        return "NVIDIA"
    return None if other.vendor in DOMESTIC_ACCELERATOR_MAKERS else other.vendor


def _compliance_knockouts(
    candidate: CandidateInput, evaluation: EvaluationSpec, rubric: Rubric
) -> list[Knockout]:
    found: list[Knockout] = []
    vendor = candidate.vendor
    need = evaluation.required_mlps_level
    if need == 0 and not evaluation.require_xinchuang:
        return found
    ref = candidate.measured.ref("compliance")
    if vendor.mlps_level < need:
        if vendor.mlps_level == 0:
            # 0 is no level stated, not a level: MLPS grades run from 1 (等保一级) up.
            reason_en = (
                f"no MLPS (等保) level stated; the evaluation requires level {need} or above"
            )
            reason_zh = f"未声明等保定级；评估要求{_mlps_zh(need)}及以上"
        else:
            reason_en = (
                f"MLPS (等保) level {vendor.mlps_level}, below the level {need} the evaluation "
                "requires"
            )
            reason_zh = f"{_mlps_zh(vendor.mlps_level)}，低于评估要求的{_mlps_zh(need)}"
        found.append(
            Knockout(
                "mlps_level",
                reason_en,
                reason_zh,
                ref or f"vendor: mlps_level = {vendor.mlps_level}",
            )
        )
    if evaluation.require_xinchuang and not vendor.xinchuang:
        found.append(
            Knockout(
                "xinchuang",
                "the vendor does not state Xinchuang (信创) compliance, which the evaluation "
                "requires",
                "供应商未声明信创合规，而评估要求信创",
                ref or "vendor: xinchuang = false",
            )
        )
    maker = _foreign_accelerator(candidate.offering.gpu_model)
    if rubric.v2 is not None and evaluation.require_xinchuang and maker is not None:
        # Xinchuang (信创) replaces the stack with domestic parts; the vendor's certificate
        # covers its own platform, not an imported accelerator it resells.
        model = candidate.offering.gpu_model
        found.append(
            Knockout(
                "xinchuang_gpu",
                f"{model} is made by {maker}, not a domestic accelerator: the evaluation "
                "requires Xinchuang (信创), and the vendor's own Xinchuang status does not "
                "extend to an imported GPU",
                f"{model} 由 {maker} 生产，并非国产加速卡：评估要求信创，"
                "供应商自身的信创资质不覆盖进口 GPU",
                f"offering: gpu_model = {model}",
            )
        )
    required = need > 0 or evaluation.require_xinchuang
    if required and candidate.answers.get("compliance") == "contradicted":
        found.append(
            Knockout(
                "compliance_contradicted",
                "the evidence contradicts the claimed MLPS (等保) / Xinchuang (信创) status",
                "证据与声明的等保 / 信创资质不符",
                ref,
            )
        )
    return found


def _budget_knockouts(
    candidate: CandidateInput, evaluation: EvaluationSpec, tco: Tco | PendingTco | None
) -> list[Knockout]:
    budget = evaluation.budget_total
    if budget is None:
        return []
    budget_currency = evaluation.budget_currency
    if tco is None:
        return [
            Knockout(
                "budget_unknown",
                "no price for any billing model, so the maximum budget cannot be checked",
                "没有任何计费方式的报价，无法核对预算上限",
                None,
            )
        ]
    if tco.currency != budget_currency:
        return [
            Knockout(
                "budget_currency",
                f"priced in {tco.currency} but the budget is in {budget_currency}: no currency "
                f"conversion is done; enter a quote in {budget_currency}",
                f"报价币种为 {tco.currency}，预算币种为 {budget_currency}：系统不做汇率换算，"
                f"请录入 {budget_currency} 报价",
                None,
            )
        ]
    if type(tco) is PendingTco:
        # A ranking's TCO says whether it is over budget; only then is it computed exactly.
        if not tco.over_budget:
            return []
        tco = tco.resolve()
    if tco.spot_refused:
        return [
            Knockout(
                "budget_unknown",
                "only spot is priced and this job cannot run on spot, so the maximum budget "
                "cannot be checked: ask for another billing model",
                "仅有竞价实例报价，而该任务不能使用竞价实例，无法核对预算上限：请索取其他计费方式报价",
                f"TCO: spot billing over {tco.duration_days} days",
            )
        ]
    # The cheapest fields, not tco.best: reading a model's breakdown would build them all.
    # Rubric v2 judges the recommended billing model (v1: the cheapest, the same fields).
    total, model = tco.recommended_total, tco.recommended
    if total > budget:
        model_en, model_zh = _term(BILLING_TERMS, model)
        return [
            Knockout(
                "budget",
                f"{'cheapest' if model == tco.cheapest else 'recommended'} total "
                f"{total:,.2f} {tco.currency} ({model_en} billing) "
                f"exceeds the budget of {budget:,.2f} {budget_currency}",
                f"{'最低' if model == tco.cheapest else '推荐方案'}总成本 {total:,.2f} "
                f"{tco.currency}（{model_zh}计费）"
                f"超出预算 {budget:,.2f} {budget_currency}",
                f"TCO: {model} billing over {tco.duration_days} days",
            )
        ]
    return []


# What the bus-bandwidth must-have is (README, Knockouts): a health check of the candidate's own
# system, measured / what that system should reach. The size of the fabric is not judged here:
# the cost (efficiency against the reference fabric) and network (bandwidth per GPU) dimensions
# price it, so a thin fabric healthy at its small expectation passes and a wide one measured
# below 80 % of its own does not.
_BUSBW_MUST_HAVE_EN = (
    "the must-have asks at least {minimum} of its own declared system's expectation (a health "
    "check; the size of the fabric is priced by the cost and network dimensions)"
)
_BUSBW_MUST_HAVE_ZH = (
    "该必备条件要求至少达到其自身所声明系统期望值的 {minimum}"
    "（健康检查；网络规模由成本与网络维度计价）"
)


def _busbw_system(candidate: CandidateInput) -> tuple[str, str]:
    """(en, zh) naming the system the measured all-reduce was judged against: its fabric (NICs
    per node x rate per port, from the judged run's expectation, else the offering's) and the
    nodes the run spanned."""
    measured, offering = candidate.measured, candidate.offering
    nodes = measured.busbw_nodes
    nics, rate = measured.busbw_nics_per_node, measured.busbw_rate_gbit_s
    if nics is None or rate is None:
        # A summary stored before the fabric was recorded: the expectation was the claim's.
        nics, rate = offering.nics_per_node, float(offering.fabric_rate_gbit_s)
        if offering.fabric == "none" or nics <= 0 or rate <= 0:
            nics = None
    if nodes is not None and nodes < 2:
        gpus = offering.gpus_per_node
        return (
            f"the declared system ({gpus} GPUs in one node)",
            f"所声明系统（单节点 {gpus} 块 GPU）",
        )
    if nics is None or rate is None:
        return "the declared system", "所声明系统"
    on = f", {nodes} nodes" if nodes else ""
    on_zh = f"，{nodes} 个节点" if nodes else ""
    declared = (offering.nics_per_node, float(offering.fabric_rate_gbit_s))
    if (nics, rate) != declared:
        # ibstat showed a wider or faster fabric than claimed on every node: judged against it.
        return (
            f"the system as ibstat showed it ({nics} x {rate:g} Gb/s per node, the declared "
            f"{declared[0]} x {declared[1]:g}{on})",
            f"ibstat 所示系统（每节点 {nics} × {rate:g} Gb/s，声明为 {declared[0]} × "
            f"{declared[1]:g}{on_zh}）",
        )
    return (
        f"the declared system ({nics} x {rate:g} Gb/s per node{on})",
        f"所声明系统（每节点 {nics} × {rate:g} Gb/s{on_zh}）",
    )


def _busbw_knockouts(candidate: CandidateInput, evaluation: EvaluationSpec) -> list[Knockout]:
    minimum = evaluation.min_busbw_fraction
    if minimum is None or evaluation.required_total_gpus < 2:
        # one GPU runs no collective: there is no bus bandwidth to require or to measure
        return []
    measured = candidate.measured
    fraction = measured.busbw_fraction
    must_en = _BUSBW_MUST_HAVE_EN.format(minimum=_pct(minimum))
    must_zh = _BUSBW_MUST_HAVE_ZH.format(minimum=_pct(minimum))
    if fraction is None:
        aside = measured.busbw_runs_set_aside
        other = other_accelerator(candidate.offering.gpu_model)
        if other is not None:
            # An Ascend or Instinct part: the reference table holds no nccl-tests expectation
            # for it, so no run (nccl-tests cannot run on Ascend; an HCCL or RCCL figure has
            # nothing to be divided by) can show this must-have. Asking for nccl-tests would
            # send the buyer after a measurement that cannot settle it.
            return [
                Knockout(
                    "busbw_unreferenced",
                    f"the rubric has no expected bus bandwidth for {other.display_name} "
                    "(NVIDIA's reference figures do not apply to it), so no measurement can "
                    f"meet this must-have: {must_en}; judge its collective bandwidth (HCCL / "
                    "RCCL tests) outside the rubric, or drop the must-have for this evaluation",
                    f"评分细则没有 {other.display_name} 的期望总线带宽"
                    "（NVIDIA 参考数据对其不适用），"
                    f"任何实测都无法满足此必备条件：{must_zh}；"
                    "请在评分细则之外评判其集合通信带宽"
                    "（HCCL / RCCL 测试），或在本次评估中取消此必备条件",
                    None,
                )
            ]
        if aside:
            # Runs were uploaded but none is this candidate's measurement: say so, or "no
            # measured bus bandwidth yet" reads as if nothing had been run.
            lead_en = (
                f"no usable measured bus bandwidth: {aside} nccl-tests all_reduce run(s) "
                "uploaded were set aside (on other GPUs than claimed, more nodes than the "
                "candidate has, or above what the declared hardware can reach; the bus "
                "bandwidth verification names each)"
            )
            lead_zh = (
                f"没有可用的实测总线带宽：已上传的 {aside} 个 nccl-tests all_reduce 结果被剔除"
                "（运行于与声明不同的 GPU、节点数多于该候选，或超出所声明硬件的上限；"
                "总线带宽核验中逐一列出）"
            )
        elif measured.nvlink_busbw_fraction is not None:
            # A one-node run measured NVLink only: say so, or "no measured bus bandwidth yet"
            # reads as if the uploaded run had been lost (manager review, stop 34).
            lead_en = (
                f"no bus bandwidth measured across nodes: the all_reduce run uploaded ran "
                f"inside one node ({_pct(measured.nvlink_busbw_fraction)} of what NVLink "
                f"should reach), which says nothing of the fabric between the "
                f"{candidate.node_count} nodes (a run spanning at least two nodes is needed)"
            )
            lead_zh = (
                f"尚无跨节点的实测总线带宽：已上传的 all_reduce 测试仅在单个节点内运行"
                f"（为 NVLink 应达值的 {_pct(measured.nvlink_busbw_fraction)}），不能说明 "
                f"{candidate.node_count} 个节点之间的网络（需要跨至少两个节点的测试）"
            )
        else:
            lead_en, lead_zh = "no measured bus bandwidth yet", "尚无实测总线带宽"
        return [
            Knockout(
                "busbw_unmeasured",
                f"{lead_en}; {must_en} (run nccl-tests all_reduce_perf in the POC)",
                f"{lead_zh}；{must_zh}（请在 POC 中运行 nccl-tests all_reduce_perf）",
                measured.ref("nvlink_busbw_fraction"),
            )
        ]
    if Decimal(repr(fraction)) >= minimum:
        return []
    system_en, system_zh = _busbw_system(candidate)
    if measured.peak_busbw_gbyte_s is not None and measured.expected_busbw_gbyte_s is not None:
        peak, expected = measured.peak_busbw_gbyte_s, measured.expected_busbw_gbyte_s
        reason_en = (
            f"measured {peak:g} GB/s = {_pct(fraction)} of the {expected:g} GB/s {system_en} "
            f"should reach; {must_en}"
        )
        reason_zh = (
            f"实测 {peak:g} GB/s，为{system_zh}应达到的 {expected:g} GB/s 的 {_pct(fraction)}；"
            f"{must_zh}"
        )
    else:
        reason_en = (
            f"measured bus bandwidth is {_pct(fraction)} of what {system_en} should reach; "
            f"{must_en}"
        )
        reason_zh = f"实测总线带宽为{system_zh}应达到值的 {_pct(fraction)}；{must_zh}"
    return [
        Knockout(
            "busbw_fraction",
            reason_en,
            reason_zh,
            measured.ref("busbw_fraction", "peak_busbw_gbyte_s"),
        )
    ]


def _residency_knockouts(candidate: CandidateInput, evaluation: EvaluationSpec) -> list[Knockout]:
    """Rubric v2: data residency judged on the offering's structured region (ISO country)."""
    offering = candidate.offering
    region = None
    if offering.region_country:
        try:
            region = Region(offering.region_country, offering.region_province, offering.region_zone)
        except RegionError:
            region = None
    reason = residency_knockout(evaluation.data_residency, region)
    if reason is None:
        return []
    where = region.key if region else (offering.region or "-")
    return [Knockout("data_residency", reason[0], reason[1], f"offering: region = {where}")]


def _poc_knockouts(candidate: CandidateInput) -> list[Knockout]:
    """The POC plan's mandatory runs: the multi-node all_reduce/alltoall of a multi-node plan
    (only such plans require them) failed or still missing at the deadline, and a
    ``dcgmi diag`` that reported a failure on a sampled node."""
    found: list[Knockout] = []
    fabric = [s for s in candidate.poc_shortfalls if s.kind in poc.FABRIC_PROOF_RUNS]
    if fabric:
        found.append(
            Knockout(
                "poc_fabric_unproven",
                "the evaluation spans several nodes but the POC did not prove the fabric: "
                + "; ".join(s.explanation_en for s in fabric),
                "评估需要跨多个节点运行，但 POC 未能证明节点间网络："
                + "；".join(s.explanation_zh for s in fabric),
                next((s.evidence_ref for s in fabric if s.evidence_ref), None)
                or f"POC plan: {', '.join(s.run_key for s in fabric)}",
                tuple(fabric),
            )
        )
    health = [
        s
        for s in candidate.poc_shortfalls
        if s.kind == poc.DCGM_DIAG and s.reason == poc.RUN_FAILED
    ]
    if health:
        found.append(
            Knockout(
                "poc_health_failed",
                "the GPU health diagnostic failed in the POC: "
                + "; ".join(s.explanation_en for s in health),
                "POC 中 GPU 健康诊断未通过：" + "；".join(s.explanation_zh for s in health),
                next((s.evidence_ref for s in health if s.evidence_ref), None),
                tuple(health),
            )
        )
    return found


def check_knockouts(
    candidate: CandidateInput,
    evaluation: EvaluationSpec,
    rubric: Rubric,
    tco: Tco | PendingTco | None,
) -> tuple[Knockout, ...]:
    """Every failed must-have of ``candidate``, in a fixed order; empty when it qualifies."""
    found = _gpu_knockouts(candidate, evaluation, rubric)
    # Must-haves the evaluation does not set are skipped; each check returns [] for them.
    # Bare metal: judged on the requirement, and in rubric v2 also on the candidate's delivered
    # GPUs (node_count x gpus_per_node), whichever is larger.
    scale_gpus = evaluation.required_total_gpus
    if rubric.v2 is not None:
        delivered = candidate.gpu_count
        if candidate.offering.mig_profile:
            # MIG slices count as the full GPUs they add up to, not one each.
            try:
                fraction = rubric.gpu_fraction(
                    candidate.offering.gpu_model, candidate.offering.mig_profile
                )
            except ScoringInputError:
                fraction = 1.0  # the mig_profile knockout above already says why
            delivered = int(delivered * fraction)
        scale_gpus = max(scale_gpus, delivered)
    if scale_gpus >= rubric.scale.bare_metal_required_min_gpus:
        found += _delivery_knockouts(candidate, evaluation, rubric, scale_gpus)
    if evaluation.required_mlps_level or evaluation.require_xinchuang:
        found += _compliance_knockouts(candidate, evaluation, rubric)
    if evaluation.budget_total is not None:
        found += _budget_knockouts(candidate, evaluation, tco)
    if evaluation.min_busbw_fraction is not None:
        found += _busbw_knockouts(candidate, evaluation)
    if rubric.v2 is not None and evaluation.data_residency != "none":
        found += _residency_knockouts(candidate, evaluation)
    if candidate.poc_shortfalls:
        found += _poc_knockouts(candidate)
    return tuple(found)
