"""The proposal explained in English and Chinese: summary, far-region notes and risks."""

from __future__ import annotations

from decimal import Decimal

from .model import Model
from .types import Note, Plan, Risk, _cents


def _money(value: Decimal) -> str:
    return f"{value:,.2f}"


def _summary(proposal: Plan, single: Plan | None, saving: Decimal) -> tuple[str, str]:
    placed_en = "; ".join(
        f"{line.workload_id} on {line.label} ({line.billing_model}, {_money(line.tco)})"
        for line in proposal.lines
    )
    placed_zh = "；".join(
        f"{line.workload_id} → {line.label}（{line.billing_model}，{_money(line.tco)}）"
        for line in proposal.lines
    )
    en = f"Proposal: {placed_en}. Total {_money(proposal.total)}."
    zh = f"建议：{placed_zh}。合计 {_money(proposal.total)}。"
    if single is None:
        en += " No single vendor can serve every workload."
        zh += " 没有单一供应商能承载全部工作负载。"
    elif saving > 0:
        who = single.vendors[0]
        en += f" It saves {_money(saving)} against the best single vendor, {who}."
        zh += f" 比最佳单一供应商 {who} 节省 {_money(saving)}。"
    else:
        en += " The best single vendor is as cheap: no saving from splitting."
        zh += " 最佳单一供应商同样便宜：拆分没有节省。"
    return en, zh


def _far_region_notes(model: Model, proposal: Plan) -> list[Note]:
    """Say when a workload placed outside the region of its nearest usable option saves money."""
    notes = []
    for wi, line in enumerate(proposal.lines):
        workload = model.workloads[wi]
        if not workload.accepts_far_region:
            continue
        others = [
            model.base[wi][ci][0]
            for ci in model.usable(wi)
            if model.candidates[ci].region != line.region
        ]
        if others and min(others) > line.tco:
            saving = _cents(min(others) - line.tco)
            notes.append(
                Note(
                    "far_region",
                    f"{workload.workload_id} accepts a farther region; running in {line.region} "
                    f"saves {_money(saving)} against the cheapest option elsewhere.",
                    f"{workload.workload_id} 接受较远区域；在 {line.region} 运行比其他区域最便宜的"
                    f"方案节省 {_money(saving)}。",
                    {"workload": workload.workload_id, "region": line.region, "saving": saving},
                )
            )
    return notes


def _risks(model: Model, proposal: Plan) -> tuple[Risk, ...]:
    risks = []
    if len(proposal.vendors) > 1:
        names = ", ".join(proposal.vendors)
        risks.append(
            Risk(
                "extra_vendor",
                f"{len(proposal.vendors)} vendors ({names}): more contracts, support channels "
                "and accounts to run.",
                f"{len(proposal.vendors)} 家供应商（{names}）：更多合同、支持渠道和账号需要管理。",
                {"vendors": proposal.vendors},
            )
        )
    if proposal.egress_cny > 0:
        risks.append(
            Risk(
                "egress",
                f"Egress between vendors or regions costs {_money(proposal.egress_cny)} and adds "
                "latency to data transfers.",
                f"跨供应商或跨区域的出网流量费用 {_money(proposal.egress_cny)}，"
                "并增加数据传输时延。",
                {"amount": proposal.egress_cny},
            )
        )
    self_managed = sorted(
        {
            line.label
            for line in proposal.lines
            if model.candidates[model.c_index[line.candidate_id]].self_managed
        }
    )
    if self_managed and model.problem.ops_capacity != "platform_team":
        risks.append(
            Risk(
                "ops_load",
                f"Self-managed bare metal ({', '.join(self_managed)}) with operations capacity "
                f"'{model.problem.ops_capacity}': {_money(proposal.ops_cny)} of operations staff "
                "is included.",
                f"自管裸金属（{', '.join(self_managed)}），"
                f"运维能力为“{model.problem.ops_capacity}”："
                f"已计入运维人员费用 {_money(proposal.ops_cny)}。",
                {
                    "offers": tuple(self_managed),
                    "ops_capacity": model.problem.ops_capacity,
                    "amount": proposal.ops_cny,
                },
            )
        )
    spot = [line.workload_id for line in proposal.lines if line.billing_model == "spot"]
    if spot:
        risks.append(
            Risk(
                "preemption",
                f"Spot capacity for {', '.join(spot)}: it can be pre-empted.",
                f"{', '.join(spot)} 使用竞价实例：可能被抢占。",
                {"workloads": tuple(spot)},
            )
        )
    return tuple(risks)
