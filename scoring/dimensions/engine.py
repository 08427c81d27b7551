"""Applying the rubric's rules to a batch of candidates: contributions and dimension scores.

Rules are compiled once per rubric (see runners) and score a whole batch column-wise: the
facts, statuses and references they read are fetched once per batch (see batch), and finished
contributions are memoised on their rule, so candidates with equal facts share one immutable
Contribution. A candidate's result never depends on the rest of the batch: every step works
on its own facts only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter, mul
from typing import TYPE_CHECKING

import numpy as np

from ..types import DIMENSIONS, CandidateInput, DimensionScore, EvaluationSpec
from .batch import Batch
from .facts import FactContext
from .kernel import BatchScores, compiled_kernels, score_batch
from .runners import BatchRunner, compile_rule, reference

if TYPE_CHECKING:
    from ..rubric import Rubric, Rule
    from ..tco import Tco
    from ..types import Contribution

_POINTS = attrgetter("points")
_MAX_POINTS = attrgetter("max_points")


class _Dimension:
    """A dimension's compiled rules and, when no rule can be excluded, the constant sum of
    their maximum points (every contribution then carries its rule's maximum)."""

    __slots__ = ("name", "possible", "runners")

    def __init__(self, name: str, rules: Sequence[Rule], factors: Mapping[str, float]) -> None:
        self.name = name
        self.runners: tuple[BatchRunner, ...] = tuple(compile_rule(r, factors) for r in rules)
        excludable = any(rule.if_missing == "exclude" or rule.applies_if for rule in rules)
        # Summed as a tuple in rule order, exactly as a candidate's row would be.
        self.possible = None if excludable else sum(tuple(r.max_points for r in rules))


_COMPILED: dict[int, tuple[Rubric, tuple[_Dimension, ...]]] = {}


def _compiled(rubric: Rubric) -> tuple[_Dimension, ...]:
    entry = _COMPILED.get(id(rubric))
    # The entry keeps its rubric alive, so an id is never reused while it is cached.
    if entry is not None and entry[0] is rubric:
        return entry[1]
    factors = rubric.status_factors
    compiled = tuple(_Dimension(d, rubric.by_dimension[d], factors) for d in DIMENSIONS)
    if len(_COMPILED) >= 16:
        _COMPILED.clear()
    _COMPILED[id(rubric)] = (rubric, compiled)
    return compiled


def evaluate_rule(rule: Rule, ctx: FactContext, *, general: bool = False) -> Contribution:
    """Apply one rule to one candidate's facts.

    By default through the compiled runner (sharing the rule's memo); ``general`` evaluates
    the rule straight from its definition instead, so tests can check that both agree.
    """
    factors = ctx.rubric.status_factors
    if general:
        return reference(rule, factors, ctx)
    return compile_rule(rule, factors)(Batch([ctx]))[0]


def _score(earned: float, possible: float) -> float:
    """Σ points / Σ max points as 0..100, clamped and rounded to 2 decimals."""
    if possible <= 0:
        return 0.0
    share = 100.0 * earned / possible
    # min(100.0, max(0.0, share)) spelled as comparisons; NaN falls to 0.0 as with max().
    if not share > 0.0:
        share = 0.0
    elif not share < 100.0:
        share = 100.0
    return round(share, 2)


def _dimension(
    dimension: _Dimension, batch: Batch, count: int
) -> tuple[list[DimensionScore], list[float]]:
    """The dimension's score of every candidate of the batch, and the bare scores."""
    columns = [run(batch) for run in dimension.runners]
    if not columns:
        scores = [0.0] * count
        return DimensionScore.many(dimension.name, scores, [()] * count), scores
    rows = list(zip(*columns, strict=True))
    earned = list(map(sum, zip(*[list(map(_POINTS, c)) for c in columns], strict=True)))
    possible = dimension.possible
    if possible is None:
        possibles = map(sum, zip(*[list(map(_MAX_POINTS, c)) for c in columns], strict=True))
        scores = list(map(_score, earned, possibles))
    else:
        # Earned points repeat between candidates, and the score is a function of them.
        by_earned: dict[float, float] = {}
        scores = []
        append = scores.append
        for points in earned:
            score = by_earned.get(points)
            if score is None:
                score = by_earned[points] = _score(points, possible)
            append(score)
    return DimensionScore.many(dimension.name, scores, rows), scores


def score_dimensions_columns(
    candidates: Sequence[CandidateInput],
    evaluation: EvaluationSpec,
    rubric: Rubric,
    tcos: Sequence[Tco | None],
) -> tuple[list[tuple[DimensionScore, ...]], list[list[float]]]:
    """score_dimensions_batch's result, and the bare scores as one list per dimension
    (DIMENSIONS order) for computing weighted totals without unpacking the results."""
    batch = Batch(
        [
            FactContext(candidate, evaluation, rubric, tco)
            for candidate, tco in zip(candidates, tcos, strict=True)
        ]
    )
    count = len(batch.ctxs)
    per_dimension = [_dimension(d, batch, count) for d in _compiled(rubric)]
    results = list(zip(*[scores for scores, _ in per_dimension], strict=True))
    return results, [bare for _, bare in per_dimension]


def _rows(dimension: _Dimension) -> Callable[[Batch], list[tuple[Contribution, ...]]]:
    """The function building every candidate's contributions to ``dimension`` in a batch."""

    def run(batch: Batch) -> list[tuple[Contribution, ...]]:
        columns = [run(batch) for run in dimension.runners]
        if not columns:
            return [()] * len(batch.ctxs)
        return list(zip(*columns, strict=True))

    return run


def score_dimensions_deferred(
    candidates: Sequence[CandidateInput],
    evaluation: EvaluationSpec,
    rubric: Rubric,
    tcos: Sequence[Tco | None],
) -> tuple[BatchScores, list[np.ndarray]]:
    """score_dimensions_columns's result through the numpy kernel: the same scores, bit for
    bit, as a sequence whose rows (DeferredDimensionScores) are built when first read, each
    dimension's contributions on first access (for the whole batch, by the same runners),
    and the bare scores as one float64 array per dimension."""
    batch = Batch.of(candidates, evaluation, rubric, tcos)
    factors = rubric.status_factors
    kernels = compiled_kernels(rubric)
    batch.prefetch(frozenset().union(*(kernel.names for kernel in kernels)))
    batch.prefetch_statuses(frozenset().union(*(kernel.items for kernel in kernels)))
    arrays = score_batch(kernels, batch, factors)
    dimensions = _compiled(rubric)
    rows = BatchScores(
        [dimension.name for dimension in dimensions],
        [scores.tolist() for scores in arrays],
        batch,
        [_rows(dimension) for dimension in dimensions],
    )
    return rows, arrays


def score_dimensions_batch(
    candidates: Sequence[CandidateInput],
    evaluation: EvaluationSpec,
    rubric: Rubric,
    tcos: Sequence[Tco | None],
) -> list[tuple[DimensionScore, ...]]:
    """The six dimension scores of each candidate (DIMENSIONS order), with their reasons.

    Each dimension scores 100 x Σ points / Σ max_points over its rules, clamped to 0..100 and
    rounded to 2 decimals. A candidate's scores depend only on its own input, its TCO, the
    evaluation and the rubric, never on the other candidates of the batch.
    """
    return score_dimensions_columns(candidates, evaluation, rubric, tcos)[0]


def weighted_totals(columns: Sequence[Sequence[float]], weights: Sequence[float]) -> list[float]:
    """Σ weight x score per candidate, rounded to 4 decimals, from score columns in
    DIMENSIONS order (the weights in the same order)."""
    return [round(sum(map(mul, weights, row)), 4) for row in zip(*columns, strict=True)]


def score_dimensions(
    candidate: CandidateInput,
    evaluation: EvaluationSpec,
    rubric: Rubric,
    tco: Tco | None,
) -> tuple[DimensionScore, ...]:
    """The six dimension scores of one candidate (see score_dimensions_batch)."""
    return score_dimensions_batch([candidate], evaluation, rubric, [tco])[0]


def clear_memo(rubric: Rubric) -> None:
    """Forget the memoised contributions of a rubric's rules (benchmarks start cold with it)."""
    for rule in rubric.rules:
        rule.memo.clear()
