"""Decision robustness: weight changes that would flip the leader, and seeded rank stability.

Both work on the dimension scores already computed (no rescoring), over the qualified
candidates only: a disqualified candidate never leads.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from .ranking import Ranking
from .types import DIMENSIONS, CandidateResult, ScoringInputError
from .weights import normalise_weights


@dataclass(frozen=True)
class FlipThreshold:
    """The smallest change of one dimension's weight that swaps the leader and ``other_id``.

    The other weights are rescaled proportionally so the weights still sum to 1.
    ``change_pp`` is signed, in percentage points of that weight (e.g. +12.5 means from 30 %
    to 42.5 %); None means no weight within 0-100 % swaps them.
    """

    leader_id: int
    other_id: int
    dimension: str
    weight_pct: float
    change_pp: float | None
    new_weight_pct: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "leader_id": self.leader_id,
            "other_id": self.other_id,
            "dimension": self.dimension,
            "weight_pct": self.weight_pct,
            "change_pp": self.change_pp,
            "new_weight_pct": self.new_weight_pct,
        }


@dataclass(frozen=True)
class RankStability:
    """Share (0..1) of seeded random weight draws in which each candidate ranks first."""

    draws: int
    perturbation_pct: float
    seed: int
    first_share: Mapping[int, float]

    def as_dict(self) -> dict[str, Any]:
        return {
            "draws": self.draws,
            "perturbation_pct": self.perturbation_pct,
            "seed": self.seed,
            "first_share": {str(k): v for k, v in self.first_share.items()},
        }


@dataclass(frozen=True)
class Robustness:
    """Flip thresholds of the leader against every other qualified candidate, and stability."""

    leader_id: int | None
    flips: tuple[FlipThreshold, ...]
    stability: RankStability

    def as_dict(self) -> dict[str, Any]:
        return {
            "leader_id": self.leader_id,
            "flips": [f.as_dict() for f in self.flips],
            "stability": self.stability.as_dict(),
        }


def _qualified(results: Ranking | Sequence[CandidateResult]) -> list[CandidateResult]:
    items = results.results if isinstance(results, Ranking) else results
    qualified = [r for r in items if not r.disqualified]
    ids = [r.candidate_id for r in qualified]
    if len(set(ids)) != len(ids):
        raise ScoringInputError("a candidate_id appears twice in the results")
    return qualified


def _rows(qualified: list[CandidateResult]) -> list[tuple[float, ...]]:
    rows = []
    for result in qualified:
        scores = result.scores
        rows.append(tuple(scores[d] for d in DIMENSIONS))
    return rows


def _leader_index(rows: list[tuple[float, ...]], ids: list[int], w: list[float]) -> int:
    best = 0
    best_key = None
    for index, row in enumerate(rows):
        # Rounded like CandidateResult.total so the leader is the ranking's leader.
        key = (round(sum(a * b for a, b in zip(w, row, strict=True)), 4), -ids[index])
        if best_key is None or key > best_key:
            best, best_key = index, key
    return best


def _flip_point(delta: list[float], w: list[float], d: int) -> float | None:
    """The weight t of dimension d (others rescaled) at which the difference is zero."""
    wd = w[d]
    others = [k for k in range(len(w)) if k != d]
    if wd < 1.0 - 1e-12:
        rest = sum(w[k] * delta[k] for k in others) / (1.0 - wd)
    else:
        # All weight on d: lowering it spreads the freed weight evenly over the others.
        rest = sum(delta[k] for k in others) / len(others)
    # difference(t) = t x delta_d + (1 - t) x rest, linear in t.
    slope = delta[d] - rest
    if abs(slope) < 1e-12:
        return None
    t = rest / (rest - delta[d])
    if -1e-12 <= t <= 1.0 + 1e-12:
        return min(1.0, max(0.0, t))
    return None


def weight_flip_thresholds(
    results: Ranking | Sequence[CandidateResult], weights: Mapping[str, Any]
) -> tuple[FlipThreshold, ...]:
    """For the leader against each other qualified candidate and each dimension, the smallest
    single-weight change that swaps their order (see FlipThreshold). Ordered by the other
    candidate's current rank, then DIMENSIONS."""
    qualified = _qualified(results)
    if len(qualified) < 2:
        return ()
    normalised = normalise_weights(weights)
    return _flips(_rows(qualified), [r.candidate_id for r in qualified], normalised)


def _flips(
    rows: list[tuple[float, ...]], ids: list[int], normalised: Mapping[str, float]
) -> tuple[FlipThreshold, ...]:
    w = [normalised[d] for d in DIMENSIONS]
    leader = _leader_index(rows, ids, w)
    others = sorted(
        (i for i in range(len(rows)) if i != leader),
        key=lambda i: (-sum(a * b for a, b in zip(w, rows[i], strict=True)), ids[i]),
    )
    points = flip_points(rows[leader], [rows[i] for i in others], w)
    weight_pct = [round(x * 100, 4) for x in w]
    flips = []
    append = flips.append
    leader_id = ids[leader]
    for other, row in zip(others, points, strict=True):
        other_id = ids[other]
        for d, (dimension, t) in enumerate(zip(DIMENSIONS, row, strict=True)):
            append(
                FlipThreshold(
                    leader_id=leader_id,
                    other_id=other_id,
                    dimension=dimension,
                    weight_pct=weight_pct[d],
                    change_pp=None if t is None else round((t - w[d]) * 100, 4),
                    new_weight_pct=None if t is None else round(t * 100, 4),
                )
            )
    return tuple(flips)


def flip_points(
    leader: Sequence[float], others: Sequence[Sequence[float]], w: Sequence[float]
) -> list[list[float | None]]:
    """_flip_point of the leader against each other row for each dimension, vectorised with
    numpy: every sum is taken term by term in the same order as the plain function, so each
    result is the same float (tested against _flip_point)."""
    if not others:
        return []
    delta = np.array(leader, dtype=np.float64) - np.array(others, dtype=np.float64)
    size = len(w)
    columns = []
    for d in range(size):
        wd = w[d]
        rest = np.zeros(len(delta))
        if wd < 1.0 - 1e-12:
            for k in range(size):
                if k != d:
                    rest += w[k] * delta[:, k]
            rest /= 1.0 - wd
        else:
            for k in range(size):
                if k != d:
                    rest += delta[:, k]
            rest /= size - 1
        delta_d = delta[:, d]
        slope = delta_d - rest
        flat = np.abs(slope) < 1e-12
        with np.errstate(divide="ignore", invalid="ignore"):
            t = rest / np.where(flat, 1.0, rest - delta_d)
        inside = ~flat & (t >= -1e-12) & (t <= 1.0 + 1e-12)
        clamped = np.minimum(1.0, np.maximum(0.0, t))
        columns.append(
            [
                value if keep else None
                for value, keep in zip(clamped.tolist(), inside.tolist(), strict=True)
            ]
        )
    return [list(row) for row in zip(*columns, strict=True)]


def rank_stability(
    results: Ranking | Sequence[CandidateResult],
    weights: Mapping[str, Any],
    draws: int = 1000,
    perturbation_pct: float = 20.0,
    seed: int = 0,
) -> RankStability:
    """Share of ``draws`` seeded random weight draws in which each candidate ranks first.

    Each draw multiplies every weight by (1 + u), u uniform in ±perturbation_pct %, and
    renormalises; ties go to the lower candidate_id. Disqualified candidates get 0.
    Deterministic for a given seed (random.Random(seed)).
    """
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise ScoringInputError(f"draws must be a positive integer, got {draws!r}")
    if not isinstance(perturbation_pct, int | float) or not 0 <= perturbation_pct <= 100:
        raise ScoringInputError(f"perturbation_pct must be in 0..100, got {perturbation_pct!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScoringInputError(f"seed must be an integer, got {seed!r}")
    items = results.results if isinstance(results, Ranking) else results
    qualified = sorted(_qualified(results), key=lambda r: r.candidate_id)
    shares = {r.candidate_id: 0.0 for r in sorted(items, key=lambda r: r.candidate_id)}
    if not qualified:
        return RankStability(draws, float(perturbation_pct), seed, MappingProxyType(shares))
    normalised = normalise_weights(weights)
    base = [normalised[d] for d in DIMENSIONS]
    columns = list(zip(*_rows(qualified), strict=True))
    ids = [r.candidate_id for r in qualified]
    counts = first_counts(base, columns, draws, perturbation_pct / 100.0, seed)
    for candidate_id, count in zip(ids, counts, strict=True):
        shares[candidate_id] = count / draws
    return RankStability(draws, float(perturbation_pct), seed, MappingProxyType(shares))


def robustness(
    results: Ranking | Sequence[CandidateResult],
    weights: Mapping[str, Any],
    draws: int = 1000,
    perturbation_pct: float = 20.0,
    seed: int = 0,
) -> Robustness:
    """Flip thresholds and rank stability together."""
    stability = rank_stability(results, weights, draws, perturbation_pct, seed)
    qualified = _qualified(results)
    leader_id = None
    flips: tuple[FlipThreshold, ...] = ()
    if qualified:
        normalised = normalise_weights(weights)
        w = [normalised[d] for d in DIMENSIONS]
        rows = _rows(qualified)
        ids = [r.candidate_id for r in qualified]
        leader_id = ids[_leader_index(rows, ids, w)]
        if len(qualified) >= 2:
            flips = _flips(rows, ids, normalised)
    return Robustness(leader_id=leader_id, flips=flips, stability=stability)


def _draws(base: list[float], draws: int, spread: float, seed: int) -> list[list[float]]:
    """The seeded weight draws: every weight times (1 + u), u uniform in ±spread, drawn from
    random.Random(seed) in draw order then DIMENSIONS order; a draw summing to <= 0 is base."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible simulation, not cryptography
    uniform = rng.uniform
    result = []
    for _ in range(draws):
        drawn = [w * (1.0 + uniform(-spread, spread)) for w in base]
        result.append(base if sum(drawn) <= 0 else drawn)
    return result


def _draws_array(base: list[float], draws: int, spread: float, seed: int) -> Any:
    """_draws as a draws x dimensions numpy array: the same random() numbers in the same
    order, through the same float operations as random.Random.uniform (a + (b - a) x r)."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible simulation, not cryptography
    size = len(base)
    r = np.array([rng.random() for _ in range(draws * size)]).reshape(draws, size)
    u = -spread + (spread - -spread) * r
    drawn = np.array(base, dtype=np.float64) * (1.0 + u)
    total = np.zeros(draws)
    for d in range(size):
        total += drawn[:, d]
    drawn[total <= 0] = base
    return drawn


# Totals differ between summation orders by far less than this (scores 0..100, weights ~1).
_NEAR = 1e-9


def first_counts(
    base: list[float],
    columns: Sequence[Sequence[float]],
    draws: int,
    spread: float,
    seed: int,
) -> list[int]:
    """How often each candidate (columns: one score column per dimension, candidates sorted
    by id) ranks first over the seeded draws, vectorised with numpy.

    The totals come from one matrix product; a draw whose best total is within _NEAR of
    another candidate's (a near tie that the summation order could decide) is summed again
    dimension by dimension in DIMENSIONS order, exactly as the plain loop
    (first_counts_reference) does, so argmax (the first maximum: the lower candidate_id on
    ties) picks the same candidate. Renormalising a draw divides every total by the same
    positive sum, which cannot change who ranks first, so the argmax is taken on the
    unnormalised draw.
    """
    count = len(columns[0])
    weights = _draws_array(base, draws, spread, seed)
    # Candidates with equal scores tie in every draw and the first of them wins: keep the
    # first of each distinct score row, in candidate order.
    distinct, first = np.unique(np.array(columns, dtype=np.float64).T, axis=0, return_index=True)
    order = np.argsort(first)
    scores, first = distinct[order].T.copy(), first[order]
    count_distinct = len(first)
    winners = np.empty(draws, dtype=np.intp)
    # Blocks of draws keep the draws x candidates matrix small whatever the sizes.
    block = max(1, 262_144 // max(count_distinct, 1))
    for start in range(0, draws, block):
        w = weights[start : start + block]
        totals = w @ scores
        best = totals.argmax(axis=1)
        top = totals[np.arange(len(w)), best]
        near = (totals >= (top - _NEAR * np.maximum(1.0, np.abs(top)))[:, None]).sum(axis=1) > 1
        if near.any():
            exact_w = w[near]
            exact = exact_w[:, 0:1] * scores[0]
            for d in range(1, len(DIMENSIONS)):
                exact += exact_w[:, d : d + 1] * scores[d]
            best[near] = exact.argmax(axis=1)
        winners[start : start + len(w)] = best
    return np.bincount(first[winners], minlength=count).tolist()


def first_counts_reference(
    base: list[float],
    columns: Sequence[Sequence[float]],
    draws: int,
    spread: float,
    seed: int,
) -> list[int]:
    """first_counts in plain Python: the specification the numpy kernel is tested against."""
    indices = range(len(columns[0]))
    counts = [0] * len(indices)
    for drawn in _draws(base, draws, spread, seed):
        w0, w1, w2, w3, w4, w5 = drawn
        c0, c1, c2, c3, c4, c5 = columns
        totals = [
            w0 * c0[i] + w1 * c1[i] + w2 * c2[i] + w3 * c3[i] + w4 * c4[i] + w5 * c5[i]
            for i in indices
        ]
        counts[max(indices, key=totals.__getitem__)] += 1
    return counts
