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
    return [tuple(r.score(d) for d in DIMENSIONS) for r in qualified]


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
    w = [normalised[d] for d in DIMENSIONS]
    rows = _rows(qualified)
    ids = [r.candidate_id for r in qualified]
    leader = _leader_index(rows, ids, w)
    others = sorted(
        (i for i in range(len(rows)) if i != leader),
        key=lambda i: (-sum(a * b for a, b in zip(w, rows[i], strict=True)), ids[i]),
    )
    flips = []
    for other in others:
        delta = [a - b for a, b in zip(rows[leader], rows[other], strict=True)]
        for d, dimension in enumerate(DIMENSIONS):
            t = _flip_point(delta, w, d)
            flips.append(
                FlipThreshold(
                    leader_id=ids[leader],
                    other_id=ids[other],
                    dimension=dimension,
                    weight_pct=round(w[d] * 100, 4),
                    change_pp=None if t is None else round((t - w[d]) * 100, 4),
                    new_weight_pct=None if t is None else round(t * 100, 4),
                )
            )
    return tuple(flips)


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
    qualified = _qualified(results)
    leader_id = None
    if qualified:
        normalised = normalise_weights(weights)
        w = [normalised[d] for d in DIMENSIONS]
        rows = _rows(qualified)
        ids = [r.candidate_id for r in qualified]
        leader_id = ids[_leader_index(rows, ids, w)]
    return Robustness(
        leader_id=leader_id,
        flips=weight_flip_thresholds(results, weights),
        stability=rank_stability(results, weights, draws, perturbation_pct, seed),
    )


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


def first_counts(
    base: list[float],
    columns: Sequence[Sequence[float]],
    draws: int,
    spread: float,
    seed: int,
) -> list[int]:
    """How often each candidate (columns: one score column per dimension, candidates sorted
    by id) ranks first over the seeded draws, vectorised with numpy.

    Totals are summed dimension by dimension in DIMENSIONS order, exactly as the plain loop
    (first_counts_reference) does, so every total is the same float and argmax (the first
    maximum: the lower candidate_id on ties) picks the same candidate. Renormalising a draw
    divides every total by the same positive sum, which cannot change who ranks first, so
    the argmax is taken on the unnormalised draw.
    """
    count = len(columns[0])
    weights = np.array(_draws(base, draws, spread, seed), dtype=np.float64)
    scores = np.array(columns, dtype=np.float64)
    # Blocks of draws keep the draws x candidates matrix small whatever the sizes.
    block = max(1, 262_144 // max(count, 1))
    winners = np.empty(draws, dtype=np.intp)
    for start in range(0, draws, block):
        w = weights[start : start + block]
        totals = w[:, 0:1] * scores[0]
        for d in range(1, len(DIMENSIONS)):
            totals += w[:, d : d + 1] * scores[d]
        winners[start : start + block] = totals.argmax(axis=1)
    return np.bincount(winners, minlength=count).tolist()


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
