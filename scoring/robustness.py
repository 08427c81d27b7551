"""Decision robustness: weight changes that would flip the leader, and seeded rank stability.

Both work on the dimension scores already computed (no rescoring), over the qualified
candidates only: a disqualified candidate never leads.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import attrgetter
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from .ranking import Ranking, tie_key, tie_runs
from .types import DIMENSIONS, CandidateResult, ScoringInputError
from .types.results import build_slotted, slot_setters
from .weights import normalise_weights


@dataclass(frozen=True, slots=True, init=False)
class FlipThreshold:
    """The smallest change of one dimension's weight that swaps the leader and ``other_id``.

    The other weights are rescaled proportionally so the weights still sum to 1.
    ``change_pp`` is signed, in percentage points of that weight (e.g. +12.5 means from 30 %
    to 42.5 %); None means no weight within 0-100 % swaps them.

    Slotted with a hand-written constructor like the scoring results (robustness builds six
    per other candidate): fields, frozen assignment, eq, hash, repr and pickling behave as for
    any frozen dataclass.
    """

    leader_id: int
    other_id: int
    dimension: str
    weight_pct: float
    change_pp: float | None
    new_weight_pct: float | None

    def __init__(
        self,
        leader_id: int,
        other_id: int,
        dimension: str,
        weight_pct: float,
        change_pp: float | None,
        new_weight_pct: float | None,
    ) -> None:
        values = (leader_id, other_id, dimension, weight_pct, change_pp, new_weight_pct)
        for setter, value in zip(_FLIP_SLOTS, values, strict=True):
            setter(self, value)

    def as_dict(self) -> dict[str, Any]:
        return {
            "leader_id": self.leader_id,
            "other_id": self.other_id,
            "dimension": self.dimension,
            "weight_pct": self.weight_pct,
            "change_pp": self.change_pp,
            "new_weight_pct": self.new_weight_pct,
        }


_FLIP_SLOTS = slot_setters(FlipThreshold)


class FlipThresholds(Sequence[FlipThreshold]):
    """The flip thresholds of one analysis: a read-only sequence of FlipThreshold, equal to
    (and hashing, printing and comparing as) the tuple of them.

    An analysis of n candidates has 6 (n - 1) thresholds, and most callers read a few of them
    or none (a page charts the contenders; a cache stores the analysis). So they are kept as
    the columns they are computed as (numpy arrays) and built as FlipThreshold objects, all
    at once, the first time one is read. len() and as_dicts() read the columns; pickling
    stores the columns, never the objects.
    """

    __slots__ = ("_change_pp", "_inside", "_items", "_leader_id", "_new_pct", "_others", "_pct")

    def __init__(
        self,
        leader_id: int,
        other_ids: list[int],
        weight_pct: list[float],
        change_pp: Any,
        new_weight_pct: Any,
        inside: Any,
    ) -> None:
        """``other_ids`` in order; ``weight_pct`` per dimension (DIMENSIONS order); the
        others x dimensions arrays ``change_pp`` and ``new_weight_pct`` hold a value where
        ``inside`` (a weight within 0-100 % swaps the two), and are None elsewhere."""
        self._leader_id = leader_id
        self._others = other_ids
        self._pct = weight_pct
        self._change_pp = change_pp
        self._new_pct = new_weight_pct
        self._inside = inside
        self._items: tuple[FlipThreshold, ...] | None = None

    def _columns(self) -> tuple[Any, ...]:
        """The six fields as flat columns, one entry per threshold, in order."""
        size = len(DIMENSIONS)
        count = len(self._others) * size
        inside = self._inside
        return (
            repeat(self._leader_id, count),
            # The ids themselves, each repeated per dimension (no new int objects).
            chain.from_iterable(map(repeat, self._others, repeat(size))),
            DIMENSIONS * len(self._others),
            self._pct * len(self._others),
            np.where(inside, self._change_pp, None).ravel().tolist(),
            np.where(inside, self._new_pct, None).ravel().tolist(),
        )

    def _built(self) -> tuple[FlipThreshold, ...]:
        items = self._items
        if items is None:
            count = len(self)
            items = self._items = tuple(
                build_slotted(FlipThreshold, _FLIP_SLOTS, self._columns(), count)
            )
        return items

    def __len__(self) -> int:
        return len(self._others) * len(DIMENSIONS)

    def __getitem__(self, index: Any) -> Any:
        return self._built()[index]

    def __iter__(self) -> Iterator[FlipThreshold]:
        return iter(self._built())

    def __contains__(self, value: object) -> bool:
        return value in self._built()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FlipThresholds | tuple):
            return len(self) == len(other) and self._built() == tuple(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._built())

    def __repr__(self) -> str:
        return repr(self._built())

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            FlipThresholds,
            (
                self._leader_id,
                self._others,
                self._pct,
                self._change_pp,
                self._new_pct,
                self._inside,
            ),
        )

    def as_dicts(self) -> list[dict[str, Any]]:
        """[f.as_dict() for f in self], read from the columns (no FlipThreshold built)."""
        if self._items is not None:
            return [f.as_dict() for f in self._items]
        names = ("leader_id", "other_id", "dimension", "weight_pct", "change_pp", "new_weight_pct")
        rows = zip(*self._columns(), strict=True)
        return [dict(zip(names, row, strict=True)) for row in rows]


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
    flips: Sequence[FlipThreshold]
    stability: RankStability

    def as_dict(self) -> dict[str, Any]:
        flips = self.flips
        return {
            "leader_id": self.leader_id,
            "flips": (
                flips.as_dicts()
                if isinstance(flips, FlipThresholds)
                else [f.as_dict() for f in flips]
            ),
            "stability": self.stability.as_dict(),
        }


class _Candidates(NamedTuple):
    """The qualified results, their candidate ids, and the ids of every result."""

    qualified: list[CandidateResult]
    ids: list[int]
    every_id: list[int]


def _candidates(results: Ranking | Sequence[CandidateResult]) -> _Candidates:
    items = results.results if isinstance(results, Ranking) else results
    every_id = list(map(_candidate_id_of, items))
    keep = [not flag for flag in map(_disqualified_of, items)]
    ids = list(compress(every_id, keep))
    if len(set(ids)) != len(ids):
        raise ScoringInputError("a candidate_id appears twice in the results")
    return _Candidates(list(compress(items, keep)), ids, every_id)


def _score_matrix(qualified: list[CandidateResult]) -> Any:
    """The candidates x DIMENSIONS scores of ``qualified`` as a float64 array."""
    size = len(DIMENSIONS)
    blocks = list(map(_score_block_of, qualified))
    if blocks and blocks[0] is not None and blocks.count(blocks[0]) == len(blocks):
        # Results of one ranking: their rows of its ScoreBlock, the same floats as their
        # DimensionScores. (count() compares by identity: a block defines no equality.)
        rows = np.fromiter(map(_score_index_of, qualified), dtype=np.intp, count=len(blocks))
        return blocks[0].matrix[rows]
    items = list(chain.from_iterable(map(_dimensions_of, qualified)))
    if list(map(_dimension_of, items)) == list(DIMENSIONS) * len(qualified):
        # Every result lists its dimensions in DIMENSIONS order (as scoring builds them).
        flat = np.fromiter(map(_score_of, items), dtype=np.float64, count=len(items))
        return flat.reshape(len(qualified), size)
    rows = []
    for result in qualified:
        scores = result.scores
        rows.append([scores[d] for d in DIMENSIONS])
    return np.array(rows, dtype=np.float64).reshape(len(rows), size)


_candidate_id_of = attrgetter("candidate_id")
_disqualified_of = attrgetter("disqualified")
_dimensions_of = attrgetter("dimensions")
_score_block_of = attrgetter("_score_block")
_score_index_of = attrgetter("_score_index")
_dimension_of = attrgetter("dimension")
_score_of = attrgetter("score")


def _totals(matrix: Any, w: Sequence[float]) -> Any:
    """Each row's weighted total, summed term by term in DIMENSIONS order like sum()."""
    totals = np.zeros(len(matrix))
    for d, weight in enumerate(w):
        totals += weight * matrix[:, d]
    return totals


# Rounding a total to 4 decimals moves it by at most 0.00005: only the candidates this close to
# the highest total can be the leader.
_LEADER_MARGIN = 1e-3


def _leader_index(
    matrix: Any, qualified: list[CandidateResult], w: list[float], totals: Any
) -> int:
    """The ranking's leader: the highest total rounded like CandidateResult.total, ties by
    tie_key (the ranking's). Only the candidates near the highest total are compared, on the
    plain sum() of their row."""
    top = float(totals.max())
    near = np.flatnonzero(totals >= top - _LEADER_MARGIN * max(1.0, abs(top))).tolist()
    rounded = [
        round(sum(a * b for a, b in zip(w, matrix[index].tolist(), strict=True)), 4)
        for index in near
    ]
    best = max(rounded)
    tied = [index for index, total in zip(near, rounded, strict=True) if total == best]
    if len(tied) == 1:
        return tied[0]
    return min(tied, key=lambda index: tie_key(qualified[index]))


def _in_rank_order(rows: Any, rounded: Any, qualified: list[CandidateResult]) -> Any:
    """``rows`` (indices into ``qualified``) in ranking order: rounded total (``rounded``,
    per row of ``qualified``) highest first, equal totals by tie_key."""
    rows = rows[np.argsort(-rounded[rows], kind="stable")]
    values = rounded[rows]
    ties = np.flatnonzero(values[1:] == values[:-1])
    if not len(ties):
        return rows
    order = rows.tolist()
    for start, end in tie_runs(ties.tolist()):
        order[start:end] = sorted(order[start:end], key=lambda i: tie_key(qualified[i]))
    return np.array(order, dtype=np.intp)


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
) -> Sequence[FlipThreshold]:
    """For the leader against each other qualified candidate and each dimension, the smallest
    single-weight change that swaps their order (see FlipThreshold). Ordered by the other
    candidate's current rank, then DIMENSIONS."""
    qualified, ids, _every_id = _candidates(results)
    if len(qualified) < 2:
        return ()
    normalised = normalise_weights(weights)
    w = [normalised[d] for d in DIMENSIONS]
    matrix = _score_matrix(qualified)
    totals = _totals(matrix, w)
    return _flips(matrix, qualified, ids, w, totals, _leader_index(matrix, qualified, w, totals))


def _flips(
    matrix: Any,
    qualified: list[CandidateResult],
    ids: list[int],
    w: list[float],
    totals: Any,
    leader: int,
) -> FlipThresholds:
    """The flip thresholds of candidate ``leader`` against every other row of ``matrix``,
    the others in ranking order (total rounded like CandidateResult.total, highest first;
    equal totals by tie_key)."""
    others = _in_rank_order(np.delete(np.arange(len(matrix)), leader), _round4(totals), qualified)
    t, inside = _flip_arrays(matrix[leader] - matrix[others], w)
    return FlipThresholds(
        ids[leader],
        [ids[i] for i in others.tolist()],
        [round(x * 100, 4) for x in w],
        _round4((t - np.array(w)) * 100.0),
        _round4(t * 100.0),
        inside,
    )


def _flip_arrays(delta: Any, w: Sequence[float]) -> tuple[Any, Any]:
    """_flip_point for every row of ``delta`` (leader minus other, per dimension) and every
    dimension at once: the clamped flip weights (rows x dimensions) and where there is one.
    Every sum is taken term by term in the same order as _flip_point, and the clamping and
    the tests are the same comparisons, so each weight is the same float."""
    size = len(w)
    # A dimension holding (nearly) all the weight spreads the freed weight evenly instead.
    full = [not wd < 1.0 - 1e-12 for wd in w]
    factors = np.array([[1.0 if full[d] else w[k] for d in range(size)] for k in range(size)])
    divisors = np.array([size - 1.0 if full[d] else 1.0 - w[d] for d in range(size)])
    rest = np.zeros(delta.shape)
    for k in range(size):
        # Term k adds to the rest of every dimension but k itself.
        np.add(rest, delta[:, k : k + 1] * factors[k], out=rest, where=_OFF[size][k])
    rest /= divisors
    # difference(t) = t x delta_d + (1 - t) x rest, linear in t.
    flat = np.abs(delta - rest) < 1e-12
    t = rest / np.where(flat, 1.0, rest - delta)
    inside = ~flat & (t >= -1e-12) & (t <= 1.0 + 1e-12)
    # min(1.0, max(0.0, t)): max keeps 0.0 unless t is greater, min keeps 1.0 unless less.
    t = np.where(t > 0.0, t, 0.0)
    t = np.where(t < 1.0, t, 1.0)
    return t, inside


_OFF = {len(DIMENSIONS): ~np.eye(len(DIMENSIONS), dtype=bool)}


def _round4(values: Any) -> Any:
    """round(v, 4) of every value (|v| well under 10^9): the same floats as Python's round.

    Python rounds the exact binary value to 4 decimals and returns the float nearest to that
    decimal; rint(v x 10^4) / 10^4 gives the same float (the division is correctly rounded)
    unless v x 10^4 lies within a hair of a half, where its own rounding could pick the other
    integer: those few values are rounded by Python."""
    scaled = values * 1e4
    rounded = np.rint(scaled) / 1e4
    halfway = np.flatnonzero(np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6)
    if len(halfway):
        flat_values, flat_rounded = values.reshape(-1), rounded.reshape(-1)
        for index in halfway.tolist():
            flat_rounded[index] = round(float(flat_values[index]), 4)
    return rounded


def flip_points(
    leader: Sequence[float], others: Sequence[Sequence[float]], w: Sequence[float]
) -> list[list[float | None]]:
    """_flip_point of the leader against each other row for each dimension, vectorised with
    numpy (see _flip_arrays): each result is the same float (tested against _flip_point)."""
    if not others:
        return []
    delta = np.array(leader, dtype=np.float64) - np.array(others, dtype=np.float64)
    t, inside = _flip_arrays(delta, w)
    return np.where(inside, t, None).tolist()


def _check_stability_arguments(draws: Any, perturbation_pct: Any, seed: Any) -> None:
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise ScoringInputError(f"draws must be a positive integer, got {draws!r}")
    if not isinstance(perturbation_pct, int | float) or not 0 <= perturbation_pct <= 100:
        raise ScoringInputError(f"perturbation_pct must be in 0..100, got {perturbation_pct!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScoringInputError(f"seed must be an integer, got {seed!r}")


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
    _check_stability_arguments(draws, perturbation_pct, seed)
    qualified, ids, every_id = _candidates(results)
    return _stability(
        every_id, qualified, ids, _score_matrix(qualified), weights, draws, perturbation_pct, seed
    )


def _stability(
    every_id: list[int],
    qualified: list[CandidateResult],
    ids: list[int],
    matrix: Any,
    weights: Mapping[str, Any],
    draws: int,
    perturbation_pct: float,
    seed: int,
) -> RankStability:
    """rank_stability of the qualified candidates ``qualified`` (their ``ids``, score rows
    ``matrix``) among the candidates ``every_id``."""
    shares = dict.fromkeys(sorted(every_id), 0.0)
    if ids:
        normalised = normalise_weights(weights)
        base = [normalised[d] for d in DIMENSIONS]
        id_array = np.array(ids, dtype=np.int64)
        by_id = np.argsort(id_array, kind="stable")
        in_id_order = [qualified[i] for i in by_id.tolist()]

        def tie_order(indices: Any) -> Any:
            keys = [tie_key(in_id_order[i]) for i in indices.tolist()]
            return indices[sorted(range(len(keys)), key=keys.__getitem__)]

        spread = perturbation_pct / 100.0
        counts = np.array(first_counts(base, matrix[by_id].T, draws, spread, seed, tie_order))
        # Integer counts over an integer: the same correctly rounded quotients as count / draws.
        shares.update(zip(id_array[by_id].tolist(), (counts / draws).tolist(), strict=True))
    return RankStability(draws, float(perturbation_pct), seed, MappingProxyType(shares))


def robustness(
    results: Ranking | Sequence[CandidateResult],
    weights: Mapping[str, Any],
    draws: int = 1000,
    perturbation_pct: float = 20.0,
    seed: int = 0,
) -> Robustness:
    """Flip thresholds and rank stability together."""
    _check_stability_arguments(draws, perturbation_pct, seed)
    qualified, ids, every_id = _candidates(results)
    matrix = _score_matrix(qualified)
    stability = _stability(every_id, qualified, ids, matrix, weights, draws, perturbation_pct, seed)
    leader_id = None
    flips: Sequence[FlipThreshold] = ()
    if qualified:
        normalised = normalise_weights(weights)
        w = [normalised[d] for d in DIMENSIONS]
        totals = _totals(matrix, w)
        leader = _leader_index(matrix, qualified, w, totals)
        leader_id = ids[leader]
        if len(qualified) >= 2:
            flips = _flips(matrix, qualified, ids, w, totals, leader)
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


# One Mersenne Twister per thread, given random.Random(seed)'s state for each set of draws.
_twisters = threading.local()


def _uniform_numbers(seed: int, count: int) -> Any:
    """The first ``count`` numbers of random.Random(seed).random(), as a numpy array.

    numpy's MT19937 is the same generator as Python's, and its doubles are made the same way
    from two 32-bit outputs ((a >> 5) x 2^26 + (b >> 6)) / 2^53, so started from Python's
    state it gives the same numbers (tested against random.Random) without a Python-level
    call per number."""
    state = random.Random(seed).getstate()[1]  # noqa: S311 - a reproducible simulation
    twister = getattr(_twisters, "generator", None)
    if twister is None:
        twister = _twisters.generator = np.random.MT19937(0)
    # A tuple key: the state setter reads it item by item (an array would be slower).
    twister.state = {
        "bit_generator": "MT19937",
        "state": {"key": state[:624], "pos": state[624]},
    }
    return np.random.Generator(twister).random(count)


def _draws_array(base: list[float], draws: int, spread: float, seed: int) -> Any:
    """_draws as a draws x dimensions numpy array: the same random() numbers in the same
    order, through the same float operations as random.Random.uniform (a + (b - a) x r)."""
    size = len(base)
    r = _uniform_numbers(seed, draws * size).reshape(draws, size)
    u = -spread + (spread - -spread) * r
    drawn = np.array(base, dtype=np.float64) * (1.0 + u)
    total = np.zeros(draws)
    for d in range(size):
        total += drawn[:, d]
    drawn[total <= 0] = base
    return drawn


# Totals differ between summation orders by far less than this (scores 0..100, weights ~1).
_NEAR = 1e-9


def _first_of_each_row(rows: Any) -> Any:
    """The index of the first of each group of equal rows, ascending (one stable lexsort)."""
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    starts = np.ones(len(rows), dtype=bool)
    starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    return np.sort(order[starts])


# The few candidates with the highest totals under the base weights that every other candidate
# is checked against (see _contenders).
_CHAMPIONS = 8


def _contenders(candidates: Any, base: Sequence[float], spread: float) -> Any:
    """The indices (ascending) of the candidates (rows of scores) that can rank first in some
    draw of the weights within ±spread of ``base``.

    A candidate j never ranks first when another candidate i beats it in every draw: when the
    smallest weighted difference i - j over the draws' box of weights (each weight at the end
    of its range that counts against i) stays above a margin far wider than the rounding of
    any total, i's total is the higher one in every draw however it is summed. Each
    candidate is checked against the few with the highest totals under the base weights.
    """
    count = len(candidates)
    weights = np.array(base, dtype=np.float64)
    magnitudes = np.abs(weights)
    wide = spread + 1e-9
    base_totals = candidates @ weights
    # Each candidate's share of the margin: its scores' size under the widest weights.
    sizes = 1e-9 * (0.5 + (1.0 + wide) * (np.abs(candidates) @ magnitudes))
    champions = np.argpartition(-base_totals, min(count, _CHAMPIONS) - 1)[:_CHAMPIONS]
    alive = np.arange(count)
    # The strongest first: most candidates fall to the first champion.
    for champion in champions[np.argsort(-base_totals[champions], kind="stable")].tolist():
        if len(alive) < 2:
            break
        if champion not in alive:
            # Whoever left it out beats every candidate it would.
            continue
        rows = candidates if len(alive) == count else candidates[alive]
        spreads = np.abs(rows - candidates[champion]) @ magnitudes
        low = (base_totals[champion] - base_totals[alive]) - wide * spreads
        alive = alive[~(low > sizes[champion] + sizes[alive])]
    return alive


def first_counts(
    base: list[float],
    columns: Sequence[Sequence[float]] | Any,
    draws: int,
    spread: float,
    seed: int,
    tie_order: Callable[[Any], Any] | None = None,
) -> list[int]:
    """How often each candidate (columns: one score column per dimension, candidates sorted
    by id) ranks first over the seeded draws, vectorised with numpy. Of candidates whose
    totals tie in a draw the first ranks first: the first in ``tie_order`` (given an array of
    candidate indices, the same indices in the ranking's tie order; see _stability), or else
    the lower index.

    Only the contenders (_contenders: the candidates no other beats in every draw) are
    summed. Their totals come from one matrix product; a draw whose best total is within _NEAR of
    another candidate's (a near tie that the summation order could decide) is summed again
    dimension by dimension in DIMENSIONS order, exactly as the plain loop
    (first_counts_reference) does, so argmax (the first maximum, in tie order) picks the
    same candidate. Renormalising a draw divides every total by the same
    positive sum, which cannot change who ranks first, so the argmax is taken on the
    unnormalised draw.
    """
    candidates = np.asarray(columns, dtype=np.float64).T
    count = len(candidates)
    if not count:
        return []
    weights = _draws_array(base, draws, spread, seed)
    # Only the contenders can rank first; of candidates with equal scores (they tie in every
    # draw) the first wins: keep the first of each distinct score row, in candidate order.
    contenders = _contenders(candidates, base, spread)
    if tie_order is not None and len(contenders) > 1:
        # In tie order: argmax and _first_of_each_row both keep the first.
        contenders = tie_order(contenders)
    first = contenders[_first_of_each_row(candidates[contenders])]
    scores = candidates[first].T.copy()
    winners = np.empty(draws, dtype=np.intp)
    # Blocks of draws keep the draws x candidates matrix small whatever the sizes.
    block = max(1, 262_144 // len(first))
    for start in range(0, draws, block):
        w = weights[start : start + block]
        totals = w @ scores
        best = totals.argmax(axis=1)
        if len(first) > 1:
            rows = np.arange(len(w))
            top = totals[rows, best]
            # The runner-up: the best total once each draw's best is taken out.
            totals[rows, best] = -np.inf
            near = totals.max(axis=1) >= top - _NEAR * np.maximum(1.0, np.abs(top))
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
    tie_order: Callable[[Any], Any] | None = None,
) -> list[int]:
    """first_counts in plain Python: the specification the numpy kernel is tested against."""
    indices = range(len(columns[0]))
    # The first maximum wins: the candidates are looked at in tie order.
    ordered = indices if tie_order is None else tie_order(np.arange(len(indices))).tolist()
    counts = [0] * len(indices)
    for drawn in _draws(base, draws, spread, seed):
        w0, w1, w2, w3, w4, w5 = drawn
        c0, c1, c2, c3, c4, c5 = columns
        totals = [
            w0 * c0[i] + w1 * c1[i] + w2 * c2[i] + w3 * c3[i] + w4 * c4[i] + w5 * c5[i]
            for i in indices
        ]
        counts[max(ordered, key=totals.__getitem__)] += 1
    return counts
