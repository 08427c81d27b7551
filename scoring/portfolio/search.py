"""The searches: exact branch and bound, the heuristic, and the best single candidate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from .model import Model
from .types import Candidate

_ZERO = Decimal(0)


def _order_key(
    model: Model, assign: Sequence[int]
) -> tuple[tuple[int, int, tuple[int, int | str]], ...]:
    """Between plans of equal cost, workload by workload: the candidate with fewer refuted
    claims, then more verified claims, then the lower candidate_id (the ranking's tie rule,
    scoring.ranking.tie_key)."""
    return tuple(_tie_key(model.candidates[ci]) for ci in assign)


def _tie_key(candidate: Candidate) -> tuple[int, int, tuple[int, int | str]]:
    return (candidate.refuted_claims, -candidate.verified_claims, _id_key(candidate.candidate_id))


def _id_key(candidate_id: str) -> tuple[int, int | str]:
    """A portfolio's candidate ids are text: numeric ones (the portal's primary keys) in number
    order, as the ranking orders them ("9" before "10"), then any other in text order."""
    return (0, int(candidate_id)) if candidate_id.isdigit() else (1, candidate_id)


def _better(
    model: Model, cost: Decimal, assign: Sequence[int], incumbent: tuple[Decimal, list[int]] | None
) -> bool:
    if incumbent is None:
        return True
    if cost != incumbent[0]:
        return cost < incumbent[0]
    return _order_key(model, assign) < _order_key(model, incumbent[1])


def _exact(model: Model) -> tuple[dict[int, tuple[Decimal, list[int]]], int]:
    """Branch and bound: the cheapest assignment for every number of distinct vendors.

    Egress and ops are never negative, so the placed workloads' TCO plus the egress between
    placed workloads plus the cheapest remaining TCOs is a valid lower bound; a node is cut when
    that bound is no better than the incumbent of every vendor count it can still reach.
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
    # flows of each workload with the ones placed before it in the branching order
    position = {wi: depth for depth, wi in enumerate(order)}
    earlier: list[list[tuple[int, Decimal]]] = [[] for _ in range(nw)]
    for a, b, gib in model.flows:
        if a != b and gib:
            first, last = sorted((a, b), key=position.__getitem__)
            earlier[last].append((first, gib))
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

    def visit(depth: int, partial: Decimal, vendor_count: dict[int, int]) -> None:
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
            new_partial = partial + entry[0]
            for other, gib in earlier[wi]:
                new_partial += gib * model.egress_rate(ci, assign[other])
            v = model.cv[ci]
            vendor_count[v] = vendor_count.get(v, 0) + 1
            bound = new_partial + rest_min[depth + 1]
            limit = reachable_incumbents(len(vendor_count), nw - depth - 1)
            # ties are kept (>) so the stable tie-break on candidate ids stays exact
            if limit is None or bound <= limit:
                assign[wi] = ci
                visit(depth + 1, new_partial, vendor_count)
                assign[wi] = -1
            vendor_count[v] -= 1
            if not vendor_count[v]:
                del vendor_count[v]

    visit(0, _ZERO, {})
    return best, nodes


def _local_search(
    model: Model, assign: list[int], seen: Callable[[Decimal, list[int]], None]
) -> tuple[Decimal, list[int], int]:
    """First-improvement descent; every plan evaluated is passed to ``seen`` (so each vendor
    count keeps its cheapest plan found). Moves: one workload to another candidate; every
    workload of one candidate to another."""
    nw, nc = len(model.workloads), len(model.candidates)
    cost = model.total(assign)
    moves = 0

    def try_(trial: list[int]) -> bool:
        nonlocal assign, cost, moves
        moves += 1
        trial_cost = model.total(trial)
        seen(trial_cost, trial)
        if trial_cost < cost:
            assign, cost = trial, trial_cost
            return True
        return False

    improved = True
    while improved:
        improved = False
        for wi in range(nw):
            for ci in model.usable(wi):
                if ci != assign[wi]:
                    trial = list(assign)
                    trial[wi] = ci
                    improved |= try_(trial)
        for a in sorted(set(assign)):
            for b in range(nc):
                trial = [
                    b if ci == a and model.base[wi][b] is not None else ci
                    for wi, ci in enumerate(assign)
                ]
                if a != b and trial != assign:
                    improved |= try_(trial)
    return cost, assign, moves


def _heuristic(model: Model) -> tuple[dict[int, tuple[Decimal, list[int]]], int]:
    """Multi-start local search; returns the best plan found per vendor count.

    Starts: each workload's cheapest option; then, for every vendor, every region and every
    (vendor, region) pair, each workload's cheapest option inside that group (its cheapest
    overall when the group has none). Egress makes co-located plans local optima that single
    moves cannot leave, so the group starts put one in reach of each region and vendor.
    """
    nw = len(model.workloads)

    def cheapest(wi: int, allowed) -> int:
        usable = model.usable(wi)
        inside = [ci for ci in usable if allowed(ci)] or usable
        return min(inside, key=lambda ci: (model.base[wi][ci][0], ci))

    groups: list = [lambda ci: True]
    vendors = sorted(set(model.cv))
    regions = sorted({c.region for c in model.candidates})
    groups += [lambda ci, v=v: model.cv[ci] == v for v in vendors]
    groups += [lambda ci, r=r: model.candidates[ci].region == r for r in regions]
    groups += [
        lambda ci, v=v, r=r: model.cv[ci] == v and model.candidates[ci].region == r
        for v in vendors
        for r in regions
    ]
    starts: list[list[int]] = []
    for allowed in groups:
        start = [cheapest(wi, allowed) for wi in range(nw)]
        if start not in starts:
            starts.append(start)
    best: dict[int, tuple[Decimal, list[int]]] = {}
    work = 0

    def offer(cost: Decimal, assign: list[int]) -> None:
        k = model.n_vendors(assign)
        if _better(model, cost, assign, best.get(k)):
            best[k] = (cost, list(assign))

    for start in starts:
        offer(model.total(start), start)
        cost, assign, moves = _local_search(model, start, offer)
        work += moves
        offer(cost, assign)
    return best, work


def _single(model: Model) -> list[int] | None:
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
