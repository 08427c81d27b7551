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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal

EXACT_MAX_CANDIDATES = 10
EXACT_MAX_WORKLOADS = 4
OPS_CAPACITIES = ("none", "small_team", "platform_team")
OPS_FTE = {"none": Decimal(1), "small_team": Decimal("0.5"), "platform_team": Decimal(0)}
BILLING_MODELS = ("hourly", "spot", "monthly", "yearly")
DAYS_PER_MONTH = Decimal(365) / Decimal(12)
CENT = Decimal("0.01")
_ZERO = Decimal(0)


class PortfolioInputError(ValueError):
    """The portfolio problem is malformed (unknown ids, negative money, bad capacity...)."""


@dataclass(frozen=True)
class Workload:
    """One demand: ``gpus`` for ``duration_days``; ``min_score`` in 0..100."""

    workload_id: str
    gpus: int
    duration_days: int
    profile: str = "inference"
    tolerates_preemption: bool = False
    latency_sensitive: bool = False
    accepts_far_region: bool = False
    min_score: float = 0.0


@dataclass(frozen=True)
class Candidate:
    """An offering that can host workloads; ``self_managed`` = bare metal the buyer runs."""

    candidate_id: str
    vendor: str
    region: str
    self_managed: bool = False
    label: str = ""


@dataclass(frozen=True)
class Option:
    """What one candidate offers one workload: eligibility, score 0..100 and TCO per model."""

    workload_id: str
    candidate_id: str
    score: float
    tco_by_model: tuple[tuple[str, Decimal], ...] = ()
    eligible: bool = True
    knockout_en: str = ""
    knockout_zh: str = ""


@dataclass(frozen=True)
class DataFlow:
    """Data moved between two workloads (checkpoints, shared datasets), GiB per month."""

    workload_a: str
    workload_b: str
    gib_month: Decimal


@dataclass(frozen=True)
class PortfolioProblem:
    workloads: tuple[Workload, ...]
    candidates: tuple[Candidate, ...]
    options: tuple[Option, ...]
    flows: tuple[DataFlow, ...] = ()
    cross_vendor_cny_gib: Decimal = _ZERO
    cross_region_cny_gib: Decimal = _ZERO
    ops_capacity: str = "platform_team"
    ops_staff_cny_month: Decimal = _ZERO
    prefer_fewer_vendors_pct: Decimal = _ZERO
    # (region a, region b, CNY/GiB): overrides cross_region_cny_gib for that pair, either way
    region_rates: tuple[tuple[str, str, Decimal], ...] = ()


@dataclass(frozen=True)
class Line:
    """One workload's placement in a plan."""

    workload_id: str
    candidate_id: str
    vendor: str
    region: str
    billing_model: str
    tco: Decimal
    score: float
    label: str = ""


@dataclass(frozen=True)
class Plan:
    lines: tuple[Line, ...]
    workload_tco: Decimal
    egress_cny: Decimal
    ops_cny: Decimal
    total: Decimal
    vendors: tuple[str, ...]

    def line(self, workload_id: str) -> Line:
        return next(line for line in self.lines if line.workload_id == workload_id)


@dataclass(frozen=True)
class Risk:
    kind: str  # extra_vendor | egress | ops_load | far_region | preemption
    en: str
    zh: str


@dataclass(frozen=True)
class Unassignable:
    workload_id: str
    reasons_en: tuple[str, ...]
    reasons_zh: tuple[str, ...]


@dataclass(frozen=True)
class PortfolioResult:
    """``proposal`` is None when some workload has no usable option (see ``unassignable``).

    ``optimum`` is the cheapest plan found (equal to ``proposal`` unless fewer vendors were
    preferred); ``single`` is the cheapest plan on one candidate serving every workload, if any.
    ``saving_cny`` = single.total - proposal.total (0 when there is no single choice).
    """

    proposal: Plan | None
    optimum: Plan | None
    single: Plan | None
    saving_cny: Decimal
    risks: tuple[Risk, ...]
    unassignable: tuple[Unassignable, ...]
    method: str  # exact | heuristic
    nodes: int
    summary_en: str
    summary_zh: str
    notes: tuple[tuple[str, str], ...] = field(default=())


def burst_gpu_hours(
    *, gpus: int, peak_gpus: int, peak_hours_per_day: int, peak_days_per_week: int, days: int
) -> Decimal:
    """GPU-hours above the base demand: (peak - base) x hours a day x days a week, over
    ``days`` (weeks counted fractionally, 7 days each). 0 without a peak."""
    if peak_gpus <= gpus or not peak_hours_per_day or not peak_days_per_week:
        return _ZERO
    weeks = Decimal(days) / Decimal(7)
    return Decimal(peak_gpus - gpus) * peak_hours_per_day * peak_days_per_week * weeks


def is_self_managed(delivery_form: str, vendor_managed: bool) -> bool:
    """Bare metal the buyer must run itself: no vendor-managed (platform) option offered."""
    return delivery_form == "bare_metal" and not vendor_managed


def _cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_EVEN)


def _months(days: int) -> Decimal:
    return Decimal(days) / DAYS_PER_MONTH


class _Model:
    """The problem compiled to integer indices for a fast search."""

    def __init__(self, problem: PortfolioProblem) -> None:
        _validate(problem)
        self.problem = problem
        self.workloads = problem.workloads
        self.candidates = problem.candidates
        self.w_index = {w.workload_id: i for i, w in enumerate(self.workloads)}
        self.c_index = {c.candidate_id: i for i, c in enumerate(self.candidates)}
        nw, nc = len(self.workloads), len(self.candidates)
        # base[w][c] = (tco, billing model, score) or None when the option is unusable
        self.base: list[list[tuple[Decimal, str, float] | None]] = [[None] * nc for _ in range(nw)]
        self.rejections: list[list[tuple[str, str]]] = [[] for _ in range(nw)]
        seen: set[tuple[int, int]] = set()
        for option in problem.options:
            wi, ci = self.w_index[option.workload_id], self.c_index[option.candidate_id]
            seen.add((wi, ci))
            self.base[wi][ci] = self._usable(self.workloads[wi], self.candidates[ci], option, wi)
        for wi in range(nw):
            for ci in range(nc):
                if (wi, ci) not in seen:
                    cid = self.candidates[ci].candidate_id
                    self.rejections[wi].append(
                        (f"{cid}: no offer for this workload", f"{cid}：未对该工作负载报价")
                    )
        self.region_rates = {}
        for a, b, rate in problem.region_rates:
            self.region_rates[(a, b)] = self.region_rates[(b, a)] = rate
        self.vendor_of = [c.vendor for c in self.candidates]
        vendors = sorted(set(self.vendor_of))
        self.vendor_id = {v: i for i, v in enumerate(vendors)}
        self.cv = [self.vendor_id[c.vendor] for c in self.candidates]
        self.ops_fte = OPS_FTE[problem.ops_capacity]
        self.ops_rate = problem.ops_staff_cny_month * self.ops_fte
        self.flows = [
            (
                self.w_index[f.workload_a],
                self.w_index[f.workload_b],
                f.gib_month
                * min(
                    _months(self.workloads[self.w_index[f.workload_a]].duration_days),
                    _months(self.workloads[self.w_index[f.workload_b]].duration_days),
                ),
            )
            for f in problem.flows
        ]

    def _usable(
        self, workload: Workload, candidate: Candidate, option: Option, wi: int
    ) -> tuple[Decimal, str, float] | None:
        cid = candidate.candidate_id
        if not option.eligible:
            self.rejections[wi].append(
                (
                    f"{cid}: {option.knockout_en}",
                    f"{cid}：{option.knockout_zh or option.knockout_en}",
                )
            )
            return None
        if option.score < workload.min_score:
            self.rejections[wi].append(
                (
                    f"{cid}: score {option.score:.1f} below the minimum {workload.min_score:.1f}",
                    f"{cid}：得分 {option.score:.1f} 低于最低要求 {workload.min_score:.1f}",
                )
            )
            return None
        allowed = [
            (tco, model)
            for model, tco in option.tco_by_model
            if model != "spot" or workload.tolerates_preemption
        ]
        if not allowed:
            self.rejections[wi].append(
                (
                    f"{cid}: no billing model this workload can use",
                    f"{cid}：没有该工作负载可用的计费方式",
                )
            )
            return None
        tco, model = min(allowed, key=lambda pair: (pair[0], BILLING_MODELS.index(pair[1])))
        return (tco, model, option.score)

    def _entry(self, wi: int, ci: int) -> tuple[Decimal, str, float]:
        entry = self.base[wi][ci]
        if entry is None:
            raise PortfolioInputError("an assignment used an unusable option")
        return entry

    def egress_rate(self, ca: int, cb: int) -> Decimal:
        if ca == cb:
            return _ZERO
        a, b = self.candidates[ca], self.candidates[cb]
        rate = _ZERO
        if a.vendor != b.vendor:
            rate += self.problem.cross_vendor_cny_gib
        if a.region != b.region:
            rate += self.region_rates.get((a.region, b.region), self.problem.cross_region_cny_gib)
        return rate

    def cost(self, assign: Sequence[int]) -> tuple[Decimal, Decimal, Decimal]:
        """(workload TCO, egress, ops) of a complete assignment, unrounded."""
        tco = _ZERO
        for wi, ci in enumerate(assign):
            entry = self._entry(wi, ci)
            tco += entry[0]
        egress = sum(
            (gib * self.egress_rate(assign[a], assign[b]) for a, b, gib in self.flows), _ZERO
        )
        ops = _ZERO
        if self.ops_rate:
            months_by_vendor: dict[str, Decimal] = {}
            for wi, ci in enumerate(assign):
                if self.candidates[ci].self_managed:
                    vendor = self.vendor_of[ci]
                    months = _months(self.workloads[wi].duration_days)
                    months_by_vendor[vendor] = max(months_by_vendor.get(vendor, _ZERO), months)
            ops = sum(months_by_vendor.values(), _ZERO) * self.ops_rate
        return tco, egress, ops

    def total(self, assign: Sequence[int]) -> Decimal:
        return sum(self.cost(assign), _ZERO)

    def plan(self, assign: Sequence[int]) -> Plan:
        _, egress, ops = self.cost(assign)
        lines = []
        for wi, ci in enumerate(assign):
            entry = self._entry(wi, ci)
            cand = self.candidates[ci]
            lines.append(
                Line(
                    workload_id=self.workloads[wi].workload_id,
                    candidate_id=cand.candidate_id,
                    vendor=cand.vendor,
                    region=cand.region,
                    billing_model=entry[1],
                    tco=_cents(entry[0]),
                    score=entry[2],
                    label=cand.label or cand.candidate_id,
                )
            )
        workload_tco = sum((line.tco for line in lines), _ZERO)
        egress_c, ops_c = _cents(egress), _cents(ops)
        return Plan(
            lines=tuple(lines),
            workload_tco=workload_tco,
            egress_cny=egress_c,
            ops_cny=ops_c,
            total=workload_tco + egress_c + ops_c,
            vendors=tuple(sorted({line.vendor for line in lines})),
        )

    def n_vendors(self, assign: Sequence[int]) -> int:
        return len({self.cv[ci] for ci in assign})

    def usable(self, wi: int) -> list[int]:
        return [ci for ci in range(len(self.candidates)) if self.base[wi][ci] is not None]


def _validate(problem: PortfolioProblem) -> None:
    def unique(ids: Iterable[str], what: str) -> set[str]:
        ids = list(ids)
        if len(set(ids)) != len(ids):
            raise PortfolioInputError(f"duplicate {what} id")
        return set(ids)

    w_ids = unique((w.workload_id for w in problem.workloads), "workload")
    c_ids = unique((c.candidate_id for c in problem.candidates), "candidate")
    if not problem.workloads:
        raise PortfolioInputError("a portfolio needs at least one workload")
    if problem.ops_capacity not in OPS_CAPACITIES:
        raise PortfolioInputError(f"unknown ops capacity {problem.ops_capacity!r}")
    for name in (
        "cross_vendor_cny_gib",
        "cross_region_cny_gib",
        "ops_staff_cny_month",
        "prefer_fewer_vendors_pct",
    ):
        if getattr(problem, name) < 0:
            raise PortfolioInputError(f"{name} must not be negative")
    for w in problem.workloads:
        if w.gpus <= 0 or w.duration_days <= 0:
            raise PortfolioInputError(f"workload {w.workload_id}: GPUs and duration must be > 0")
    pairs = set()
    for option in problem.options:
        if option.workload_id not in w_ids or option.candidate_id not in c_ids:
            raise PortfolioInputError(
                f"option for unknown workload/candidate {option.workload_id}/{option.candidate_id}"
            )
        pair = (option.workload_id, option.candidate_id)
        if pair in pairs:
            raise PortfolioInputError(f"two options for {pair}")
        pairs.add(pair)
        for model, tco in option.tco_by_model:
            if model not in BILLING_MODELS:
                raise PortfolioInputError(f"unknown billing model {model!r}")
            if tco < 0:
                raise PortfolioInputError(f"negative TCO for {pair} {model}")
    if any(rate < 0 for _, _, rate in problem.region_rates):
        raise PortfolioInputError("a region egress rate must not be negative")
    for flow in problem.flows:
        if flow.workload_a not in w_ids or flow.workload_b not in w_ids:
            raise PortfolioInputError("data flow between unknown workloads")
        if flow.gib_month < 0:
            raise PortfolioInputError("data flow must not be negative")


def _order_key(model: _Model, assign: Sequence[int]) -> tuple[str, ...]:
    return tuple(model.candidates[ci].candidate_id for ci in assign)


def _better(
    model: _Model, cost: Decimal, assign: Sequence[int], incumbent: tuple[Decimal, list[int]] | None
) -> bool:
    if incumbent is None:
        return True
    if cost != incumbent[0]:
        return cost < incumbent[0]
    return _order_key(model, assign) < _order_key(model, incumbent[1])


def _exact(model: _Model) -> tuple[dict[int, tuple[Decimal, list[int]]], int]:
    """Branch and bound: the cheapest assignment for every number of distinct vendors.

    Egress and ops are never negative, so the partial cost of the placed workloads' TCO plus the
    cheapest remaining TCOs is a valid lower bound; a node is cut when that bound is no better
    than the incumbent of every vendor count it can still reach.
    """
    nw = len(model.workloads)
    usable = [
        sorted(model.usable(wi), key=lambda ci, wi=wi: model.base[wi][ci][0]) for wi in range(nw)
    ]
    # branch on the most constrained workloads first
    order = sorted(range(nw), key=lambda wi: (len(usable[wi]), wi))
    rest_min = [_ZERO] * (nw + 1)
    for depth in range(nw - 1, -1, -1):
        wi = order[depth]
        rest_min[depth] = rest_min[depth + 1] + model.base[wi][usable[wi][0]][0]
    best: dict[int, tuple[Decimal, list[int]]] = {}
    assign = [-1] * nw
    nodes = 0
    max_vendors = len(model.vendor_id)

    def reachable_incumbents(vendors: int, remaining: int) -> Decimal | None:
        worst: Decimal | None = None
        for k in range(vendors, min(vendors + remaining, max_vendors) + 1):
            if k not in best:
                return None
            if worst is None or best[k][0] > worst:
                worst = best[k][0]
        return worst

    def visit(depth: int, tco: Decimal, vendor_count: dict[int, int]) -> None:
        nonlocal nodes
        nodes += 1
        if depth == nw:
            cost = model.total(assign)
            k = len(vendor_count)
            if _better(model, cost, assign, best.get(k)):
                best[k] = (cost, list(assign))
            return
        wi = order[depth]
        for ci in usable[wi]:
            entry = model.base[wi][ci]
            new_tco = tco + entry[0]
            v = model.cv[ci]
            vendor_count[v] = vendor_count.get(v, 0) + 1
            bound = new_tco + rest_min[depth + 1]
            limit = reachable_incumbents(len(vendor_count), nw - depth - 1)
            # ties are kept (>) so the stable tie-break on candidate ids stays exact
            if limit is None or bound <= limit:
                assign[wi] = ci
                visit(depth + 1, new_tco, vendor_count)
                assign[wi] = -1
            vendor_count[v] -= 1
            if not vendor_count[v]:
                del vendor_count[v]

    visit(0, _ZERO, {})
    return best, nodes


def _local_search(model: _Model, assign: list[int]) -> tuple[Decimal, list[int], int]:
    nw = len(model.workloads)
    cost = model.total(assign)
    moves = 0
    improved = True
    while improved:
        improved = False
        for wi in range(nw):
            for ci in model.usable(wi):
                if ci == assign[wi]:
                    continue
                trial = list(assign)
                trial[wi] = ci
                moves += 1
                trial_cost = model.total(trial)
                if trial_cost < cost:
                    assign, cost, improved = trial, trial_cost, True
        # consolidation: move every workload on candidate a to candidate b where usable
        for a in sorted(set(assign)):
            for b in range(len(model.candidates)):
                if a == b:
                    continue
                trial = [
                    b if ci == a and model.base[wi][b] is not None else ci
                    for wi, ci in enumerate(assign)
                ]
                if trial == assign:
                    continue
                moves += 1
                trial_cost = model.total(trial)
                if trial_cost < cost:
                    assign, cost, improved = trial, trial_cost, True
    return cost, assign, moves


def _heuristic(model: _Model) -> tuple[dict[int, tuple[Decimal, list[int]]], int]:
    """Greedy starts + local search; returns the best plan found per vendor count."""
    nw = len(model.workloads)
    starts = [
        [min(model.usable(wi), key=lambda ci, wi=wi: model.base[wi][ci][0]) for wi in range(nw)]
    ]
    for _vendor, vid in sorted(model.vendor_id.items()):
        start = []
        for wi in range(nw):
            own = [ci for ci in model.usable(wi) if model.cv[ci] == vid]
            if not own:
                break
            start.append(min(own, key=lambda ci, wi=wi: model.base[wi][ci][0]))
        else:
            # each vendor's cheapest single-vendor plan is a start, so consolidation is explored
            starts.append(start)
    best: dict[int, tuple[Decimal, list[int]]] = {}
    work = 0

    def offer(cost: Decimal, assign: list[int]) -> None:
        k = model.n_vendors(assign)
        if _better(model, cost, assign, best.get(k)):
            best[k] = (cost, list(assign))

    for start in starts:
        offer(model.total(start), start)
        cost, assign, moves = _local_search(model, start)
        work += moves
        offer(cost, assign)
    return best, work


def _single(model: _Model) -> list[int] | None:
    """The cheapest plan that puts every workload on one candidate."""
    nw = len(model.workloads)
    best: tuple[Decimal, list[int]] | None = None
    for ci in range(len(model.candidates)):
        if all(model.base[wi][ci] is not None for wi in range(nw)):
            assign = [ci] * nw
            cost = model.total(assign)
            if _better(model, cost, assign, best):
                best = (cost, assign)
    return best[1] if best else None


def _money(value: Decimal) -> str:
    return f"{value:,.2f}"


def solve(problem: PortfolioProblem, *, method: str = "auto") -> PortfolioResult:
    """Propose the portfolio. ``method``: auto (exact within the limits), exact or heuristic."""
    if method not in ("auto", "exact", "heuristic"):
        raise PortfolioInputError(f"unknown method {method!r}")
    model = _Model(problem)
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
    single = model.plan(single_assign) if single_assign else None
    if unassignable:
        names = ", ".join(u.workload_id for u in unassignable)
        return PortfolioResult(
            proposal=None,
            optimum=None,
            single=single,
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
    optimum_cost, optimum_assign = min(
        best.values(), key=lambda pair: (pair[0], _order_key(model, pair[1]))
    )
    threshold = optimum_cost * (1 + problem.prefer_fewer_vendors_pct / 100)
    chosen_k = min(k for k, (cost, _) in best.items() if cost <= threshold)
    proposal = model.plan(best[chosen_k][1])
    optimum = model.plan(optimum_assign)
    notes: list[tuple[str, str]] = []
    if proposal.total != optimum.total:
        extra = proposal.total - optimum.total
        notes.append(
            (
                f"Fewer vendors preferred: {len(proposal.vendors)} instead of "
                f"{len(optimum.vendors)} costs {_money(extra)} more, within the "
                f"{problem.prefer_fewer_vendors_pct}% threshold.",
                f"优先减少供应商：{len(proposal.vendors)} 家代替 {len(optimum.vendors)} 家，"
                f"多花 {_money(extra)}，在 {problem.prefer_fewer_vendors_pct}% 阈值以内。",
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
        en += " No single candidate can serve every workload."
        zh += " 没有单一候选方案能承载全部工作负载。"
    elif saving > 0:
        who = single.lines[0].label
        en += f" It saves {_money(saving)} against the best single choice {who}."
        zh += f" 比最佳单一方案 {who} 节省 {_money(saving)}。"
    else:
        en += " The best single choice is as cheap: no saving from splitting."
        zh += " 最佳单一方案同样便宜：拆分没有节省。"
    return en, zh


def _far_region_notes(model: _Model, proposal: Plan) -> list[tuple[str, str]]:
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
                (
                    f"{workload.workload_id} accepts a farther region; running in {line.region} "
                    f"saves {_money(saving)} against the cheapest option elsewhere.",
                    f"{workload.workload_id} 接受较远区域；在 {line.region} 运行比其他区域最便宜的"
                    f"方案节省 {_money(saving)}。",
                )
            )
    return notes


def _risks(model: _Model, proposal: Plan) -> tuple[Risk, ...]:
    risks = []
    if len(proposal.vendors) > 1:
        names = ", ".join(proposal.vendors)
        risks.append(
            Risk(
                "extra_vendor",
                f"{len(proposal.vendors)} vendors ({names}): more contracts, support channels "
                "and accounts to run.",
                f"{len(proposal.vendors)} 家供应商（{names}）：更多合同、支持渠道和账号需要管理。",
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
            )
        )
    spot = [line.workload_id for line in proposal.lines if line.billing_model == "spot"]
    if spot:
        risks.append(
            Risk(
                "preemption",
                f"Spot capacity for {', '.join(spot)}: it can be pre-empted.",
                f"{', '.join(spot)} 使用竞价实例：可能被抢占。",
            )
        )
    return tuple(risks)
