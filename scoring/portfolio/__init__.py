"""Portfolio search: assign each workload to one candidate and billing model at the least TCO.

Pure Python, no Django. Money is Decimal in one currency (the caller converts first).

The cost of an assignment (workload -> candidate, billing model) is:

- the sum of each workload's TCO on its candidate under its cheapest *allowed* billing model
  (``spot`` only when the workload tolerates pre-emption);
- egress: for each data flow between two workloads on different candidates, GiB per month x
  months the flow lasts (the shorter workload) x the rate: ``cross_vendor_cny_gib`` when the
  vendors differ plus ``cross_region_cny_gib`` when the regions differ (leaving a vendor and
  crossing regions are paid separately, so both apply when both differ);
- operations: each vendor whose *self-managed* candidates are used (bare metal without a
  vendor-managed option) needs ``OPS_FTE[ops_capacity]`` operations engineers at
  ``ops_staff_cny_month`` for as many months as the longest workload on it. A platform team
  already exists (0 extra); a small team needs half an engineer more; none needs one.

Constraints: an option is usable only when eligible (no knockout) and its score is at least the
workload's ``min_score``. Among the feasible assignments the search finds, for every number of
vendors, the cheapest; it proposes the one with the fewest vendors whose cost is within
``prefer_fewer_vendors_pct`` % of the overall optimum (ties: lower cost, then candidate ids).

Exact branch and bound for up to ``EXACT_MAX_CANDIDATES`` x ``EXACT_MAX_WORKLOADS``; beyond that a
heuristic (see ``_heuristic``): start from the cheapest option of each workload and from each
vendor's best single-vendor assignment, then local search by single reassignment and by moving
every workload of one candidate to another, until no move improves. ``bench/portfolio.py``
measures its gap to the exact optimum on random instances.
"""

from __future__ import annotations

from decimal import Decimal

# One rule for "bare metal the buyer runs itself" (the TCO's): an unverified vendor-managed
# option keeps the operations staff cost in the portfolio too.
from ..tco import is_self_managed
from .explain import _far_region_notes, _money, _risks, _summary
from .model import Model
from .search import _better, _exact, _heuristic, _order_key, _single
from .types import (
    BILLING_MODELS,
    CENT,
    DAYS_PER_MONTH,
    EXACT_MAX_CANDIDATES,
    EXACT_MAX_WORKLOADS,
    OPS_CAPACITIES,
    OPS_FTE,
    Candidate,
    DataFlow,
    Line,
    Note,
    Option,
    Plan,
    PortfolioInputError,
    PortfolioProblem,
    PortfolioResult,
    Risk,
    Unassignable,
    Workload,
    burst_gpu_hours,
)

__all__ = [
    "BILLING_MODELS",
    "CENT",
    "DAYS_PER_MONTH",
    "EXACT_MAX_CANDIDATES",
    "EXACT_MAX_WORKLOADS",
    "OPS_CAPACITIES",
    "OPS_FTE",
    "Candidate",
    "DataFlow",
    "Line",
    "Note",
    "Option",
    "Plan",
    "PortfolioInputError",
    "PortfolioProblem",
    "PortfolioResult",
    "Risk",
    "Unassignable",
    "Workload",
    "burst_gpu_hours",
    "evaluate_assignment",
    "is_self_managed",
    "solve",
]

_ZERO = Decimal(0)


def solve(problem: PortfolioProblem, *, method: str = "auto") -> PortfolioResult:
    """Propose the portfolio. ``method``: auto (exact within the limits), exact or heuristic."""
    if method not in ("auto", "exact", "heuristic"):
        raise PortfolioInputError(f"unknown method {method!r}")
    model = Model(problem)
    nw = len(model.workloads)
    unassignable = tuple(
        Unassignable(
            model.workloads[wi].workload_id,
            tuple(en for en, _ in model.rejections[wi]),
            tuple(zh for _, zh in model.rejections[wi]),
        )
        for wi in range(nw)
        if not model.usable(wi)
    )
    if method == "auto":
        small = len(model.candidates) <= EXACT_MAX_CANDIDATES and nw <= EXACT_MAX_WORKLOADS
        method = "exact" if small else "heuristic"
    single_assign = _single(model)
    if unassignable:
        names = ", ".join(u.workload_id for u in unassignable)
        return PortfolioResult(
            proposal=None,
            optimum=None,
            single=None,
            saving_cny=_ZERO,
            risks=(),
            unassignable=unassignable,
            method=method,
            nodes=0,
            summary_en=f"No candidate can serve: {names}.",
            summary_zh=f"没有候选方案能承载：{names}。",
        )
    best, nodes = _exact(model) if method == "exact" else _heuristic(model)
    if single_assign is not None:
        # a single candidate is always a valid one-vendor plan; the heuristic may miss it
        cost = model.total(single_assign)
        if _better(model, cost, single_assign, best.get(1)):
            best[1] = (cost, single_assign)
    # the best single-vendor plan: every workload with one vendor (one or more of its offerings)
    single = model.plan(best[1][1]) if 1 in best else None
    optimum_cost, optimum_assign = min(
        best.values(), key=lambda pair: (pair[0], _order_key(model, pair[1]))
    )
    threshold = optimum_cost * (1 + problem.prefer_fewer_vendors_pct / 100)
    chosen_k = min(k for k, (cost, _) in best.items() if cost <= threshold)
    proposal = model.plan(best[chosen_k][1])
    optimum = model.plan(optimum_assign)
    notes: list[Note] = []
    if proposal.total != optimum.total:
        extra = proposal.total - optimum.total
        notes.append(
            Note(
                "fewer_vendors",
                f"Fewer vendors preferred: {len(proposal.vendors)} instead of "
                f"{len(optimum.vendors)} costs {_money(extra)} more, within the "
                f"{problem.prefer_fewer_vendors_pct}% threshold.",
                f"优先减少供应商：{len(proposal.vendors)} 家代替 {len(optimum.vendors)} 家，"
                f"多花 {_money(extra)}，在 {problem.prefer_fewer_vendors_pct}% 阈值以内。",
                {
                    "vendors": len(proposal.vendors),
                    "optimum_vendors": len(optimum.vendors),
                    "extra": extra,
                    "threshold_pct": problem.prefer_fewer_vendors_pct,
                },
            )
        )
    notes.extend(_far_region_notes(model, proposal))
    saving = single.total - proposal.total if single else _ZERO
    risks = _risks(model, proposal)
    summary_en, summary_zh = _summary(proposal, single, saving)
    return PortfolioResult(
        proposal=proposal,
        optimum=optimum,
        single=single,
        saving_cny=saving,
        risks=risks,
        unassignable=(),
        method=method,
        nodes=nodes,
        summary_en=summary_en,
        summary_zh=summary_zh,
        notes=tuple(notes),
    )


def evaluate_assignment(
    problem: PortfolioProblem, assignment: dict[str, tuple[str, str | None]]
) -> tuple[Plan, tuple[Risk, ...]]:
    """The plan and risks of an assignment chosen by hand: workload id -> (candidate id,
    billing model or None for the cheapest usable one). Every workload must be assigned to a
    usable option (knockouts, minimum score; spot only where pre-emption is tolerated) and a
    billing model the option prices; otherwise ``PortfolioInputError`` names the problem."""
    model = Model(problem)
    missing = [w.workload_id for w in model.workloads if w.workload_id not in assignment]
    unknown = sorted(set(assignment) - set(model.w_index))
    if missing or unknown:
        shown_missing = ", ".join(missing) or "-"
        shown_unknown = ", ".join(unknown) or "-"
        raise PortfolioInputError(
            f"assign every workload once: missing {shown_missing}, unknown {shown_unknown}",
            f"每个工作负载须且只能分配一次：缺少 {shown_missing}，未知 {shown_unknown}",
        )
    options = {(o.workload_id, o.candidate_id): o for o in problem.options}
    assign = []
    for wi, workload in enumerate(model.workloads):
        cid, billing = assignment[workload.workload_id]
        if cid not in model.c_index:
            raise PortfolioInputError(
                f"{workload.workload_id}: unknown candidate {cid!r}",
                f"{workload.workload_id}：未知候选方案 {cid!r}",
            )
        ci = model.c_index[cid]
        entry = model.base[wi][ci]
        if entry is None:
            reasons = [(en, zh) for en, zh in model.rejections[wi] if en.startswith(f"{cid}:")]
            why_en = "; ".join(en for en, _ in reasons)
            why_zh = "；".join(zh for _, zh in reasons)
            raise PortfolioInputError(
                f"{workload.workload_id}: candidate {cid} cannot serve it ({why_en})",
                f"{workload.workload_id}：候选方案 {cid} 无法承载（{why_zh}）",
            )
        if billing and billing != entry[1]:
            if billing == "spot" and not workload.tolerates_preemption:
                raise PortfolioInputError(
                    f"{workload.workload_id}: spot needs a workload that tolerates pre-emption",
                    f"{workload.workload_id}：竞价实例只适用于能容忍抢占的工作负载",
                )
            prices = dict(options[(workload.workload_id, cid)].tco_by_model)
            if billing not in prices:
                raise PortfolioInputError(
                    f"{workload.workload_id}: candidate {cid} has no {billing} price",
                    f"{workload.workload_id}：候选方案 {cid} 没有 {billing} 计费的报价",
                )
            model.base[wi][ci] = (prices[billing], billing, entry[2])
        assign.append(ci)
    plan = model.plan(assign)
    return plan, _risks(model, plan)
