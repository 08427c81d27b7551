"""The portfolio problem validated and compiled to integer indices, and a plan's cost."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from .types import (
    BILLING_MODELS,
    OPS_CAPACITIES,
    OPS_FTE,
    Candidate,
    Line,
    Option,
    Plan,
    PortfolioInputError,
    PortfolioProblem,
    Workload,
    _cents,
    _months,
)

_ZERO = Decimal(0)


class Model:
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
