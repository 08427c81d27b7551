"""The ranking kernel: every rule's points for a whole batch as numpy columns.

Ranking needs each candidate's six dimension scores and weighted total; the contributions that
explain them (one immutable Contribution per rule and candidate) are wanted only for the
candidates a page shows. So the kernel compiles each rubric rule once into column operations
(its table as np.searchsorted/np.where over the facts as float columns, its claim factor by
checklist status) and scores the batch from those; the contributions of a dimension are built
by the columnar runners (see engine) the first time any result of the batch is asked for them,
for the whole batch at once, and are then the same objects the eager path builds.

Results are bit-identical to the eager path: every float operation is the one the eager path
performs, in the same order (numpy's float64 arithmetic is IEEE like Python's), and rounding
and summation follow Python's round() and sum() exactly (see py_round and py_sum). The kernel
reads the rules generically: a rule of a shape or with values it cannot vectorise (a table
kind it does not know, a NaN) is scored per candidate through the table's own points().
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ..rubric.model import BooleanTable, ChoiceTable, LinearTable, StepTable
from ..types import DIMENSIONS, DeferredRows, DimensionScore
from .batch import per_value
from .facts import FACTS, may_claim
from .rounding import py_round, py_sum

if TYPE_CHECKING:
    from ..rubric import Rule
    from ..types import Contribution
    from .batch import Batch


def _table_arrays(table: Any) -> tuple[np.ndarray, ...]:
    """A StepTable's or LinearTable's numbers as float arrays, as _steps and _linear read
    them (compiled once per rule)."""
    if isinstance(table, StepTable):
        steps = table.step_points
        if table.direction == "higher":
            # Indexed by bisect_right: 0 (below every threshold) is "otherwise".
            steps = (table.otherwise, *steps)
        else:
            # Indexed by bisect_left: len(thresholds) (beyond every threshold) is "otherwise".
            steps = (*steps, table.otherwise)
        return np.array(table.thresholds, dtype=float), np.array(steps, dtype=float)
    if isinstance(table, LinearTable):
        return np.array(table.xs, dtype=float), np.array(table.ys, dtype=float)
    return ()


def _table_points(
    table: Any, arrays: tuple[np.ndarray, ...], batch: Batch, name: str
) -> np.ndarray:
    """table.points(value) of fact ``name`` for every candidate (anything where unknown),
    vectorised by table kind; per candidate through points() when it cannot be. ``arrays``
    are the table's _table_arrays."""
    if isinstance(table, StepTable | LinearTable):
        x = batch.floats(name)
        if x is not None:
            if isinstance(table, StepTable):
                return _steps(table, arrays, x)
            return _linear(arrays, x)
    values = batch.values(name)
    count = len(values)
    if isinstance(table, BooleanTable):
        truth = per_value(values, batch.coded(name), bool, bool)
        return np.where(truth, table.points_true, table.points_false)
    if isinstance(table, ChoiceTable):
        choices, default = table.choices, table.default
        if None not in choices:
            # An unknown value (None) takes the default, as any value not listed does.
            return per_value(values, batch.coded(name), choices.get, float, default)
        return np.fromiter(
            (default if v is None else choices.get(v, default) for v in values), float, count
        )
    points = table.points
    known = batch.known(name).tolist()
    return np.fromiter(
        (points(v) if k else 0.0 for v, k in zip(values, known, strict=True)), float, count
    )


def _steps(table: StepTable, arrays: tuple[np.ndarray, ...], x: np.ndarray) -> np.ndarray:
    thresholds, steps = arrays
    side = "right" if table.direction == "higher" else "left"
    return steps[np.searchsorted(thresholds, x, side=side)]


def _linear(arrays: tuple[np.ndarray, ...], x: np.ndarray) -> np.ndarray:
    xs, ys = arrays
    if len(xs) < 2:
        return np.full(len(x), ys[0])
    i = np.clip(np.searchsorted(xs, x, side="right"), 1, len(xs) - 1)
    x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
    # The same operations in the same order as LinearTable.points.
    inner = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return np.where(x <= xs[0], ys[0], np.where(x >= xs[-1], ys[-1], inner))


class RuleKernel:
    """One rule compiled to column operations: points and max points of every candidate.

    Semantics (the runners' and ``reference``'s): the first input whose value is known is
    read; none known is "missing" (0 points; max 0 when the rule excludes missing facts;
    under a contradicted claim item of a rubric whose contradicted factor takes each rule's
    maximum, that factor of the maximum, as for a stated value);
    an only_if condition not met is "not applicable" (0 of the rule's maximum), an applies_if
    condition not met is "not applicable" and leaves the maximum (0 of 0), a measurable_if
    condition not met is "missing" whatever was measured (0 of the rule's maximum, or of 0
    when the rule excludes missing facts); otherwise the
    table's points, scaled for a claimed value by the factor of the claim item's status (or
    "no_item" without one), at most the factor of ``unbacked_at_most`` where the rule's
    ``backed_by`` fact backs nothing, rounded to 4 decimals."""

    __slots__ = (
        "applies",
        "arrays",
        "backing",
        "claim_item",
        "conditions",
        "exclude",
        "inputs",
        "max_points",
        "measurable",
        "on_max",
        "table",
        "unstated_costs",
    )

    def __init__(self, rule: Rule) -> None:
        self.inputs = tuple((name, FACTS[name]) for name in rule.inputs)
        self.conditions = rule.only_if
        self.claim_item = rule.claim_item
        self.table = rule.table
        self.arrays = _table_arrays(rule.table)
        self.max_points = float(rule.max_points)
        self.on_max = rule.contradicted_on_max
        # Whether an unstated fact under a contradicted item costs the factor of the maximum
        # (runners._contradicted_unstated): a claim item that an input may be a claim of.
        self.unstated_costs = self.on_max and may_claim(rule)
        self.exclude = rule.if_missing == "exclude"
        self.applies = rule.applies_if
        self.measurable = rule.measurable_if
        # (backing fact, the factor an unbacked claim counts at most at) or None.
        self.backing = (
            None
            if rule.backed_by is None or rule.claim_item is None
            else (rule.backed_by, rule.unbacked_at_most, rule.backed_from)
        )

    def run(self, batch: Batch, factors: Mapping[str, float]) -> tuple[np.ndarray, np.ndarray]:
        """Points (before their rounding to 4 decimals: see score_batch) and max points."""
        count = len(batch.ctxs)
        table = self.table
        name, _ = self.inputs[0]
        known = batch.known(name)
        points = _table_points(table, self.arrays, batch, name)
        claimed = batch.claimed(name)
        for name, _ in self.inputs[1:]:
            # Candidates whose earlier inputs are all unknown read this one.
            take = batch.known(name) & ~known
            if not take.any():
                continue
            points = np.where(take, _table_points(table, self.arrays, batch, name), points)
            here = batch.claimed(name)
            if isinstance(claimed, bool) and isinstance(here, bool) and claimed == here:
                pass
            else:
                claimed = np.where(take, here, claimed)
            known = known | take
        if claimed is not False and (claimed is True or claimed.any()):
            if self.claim_item is None:
                factor: np.ndarray | float = factors["no_item"]
            else:
                factor = batch.factors(self.claim_item, factors)
            if self.backing is not None:
                backing, at_most, minimum = self.backing
                cap = factors[at_most]
                # min(factor, cap) where nothing backs the claim, as the runners' builder.
                factor = np.where(batch.backed(backing, minimum), factor, np.minimum(factor, cap))
            if claimed is not True:
                factor = np.where(claimed, factor, 1.0)
            negative: Any = False
            if self.on_max:
                # A contradicted item costs the factor of the rule's maximum (the runners').
                negative = factor < 0.0
                if negative is not False and negative is not True:
                    negative = negative if negative.any() else False
            if negative is False:
                points = points * factor
            else:
                points = np.where(negative, factor * self.max_points, points * factor)
        unstated_contradicted: Any = False
        if self.unstated_costs:
            # None of the inputs known under a contradicted item: the factor of the maximum,
            # as any stated value (runners._contradicted_unstated).
            item_factor = batch.factors(self.claim_item, factors)  # type: ignore[arg-type]
            unstated_contradicted = ~known & (item_factor < 0.0)
            if unstated_contradicted.any():
                points = np.where(unstated_contradicted, item_factor * self.max_points, points)
            else:
                unstated_contradicted = False
        # Rounded by score_batch; masking first is the same, as 0.0 rounds to itself.
        applicable = known if unstated_contradicted is False else known | unstated_contradicted
        for name, allowed in self.conditions:
            applicable = applicable & batch.allowed(name, allowed)
        points = np.where(applicable, points, 0.0)
        if self.exclude:
            counted = known if unstated_contradicted is False else known | unstated_contradicted
            max_points = np.where(counted, self.max_points, 0.0)
        else:
            max_points = np.full(count, self.max_points)
        if self.measurable:
            # A fact no measurement can settle: missing, whatever was read (runners._unmeasurable).
            measurable = np.ones(count, dtype=bool)
            for name, allowed in self.measurable:
                measurable = measurable & batch.allowed(name, allowed)
            points = np.where(measurable, points, 0.0)
            if self.exclude:
                max_points = np.where(measurable, max_points, 0.0)
        if self.applies:
            # A rule that does not concern the candidate: 0 of 0 (runners._inapplicable).
            concerned = np.ones(count, dtype=bool)
            for name, allowed in self.applies:
                concerned = concerned & batch.allowed(name, allowed)
            points = np.where(concerned, points, 0.0)
            max_points = np.where(concerned, max_points, 0.0)
        return points, max_points


class DimensionKernel:
    """A dimension's compiled rules; ``possible`` as in engine._Dimension."""

    __slots__ = ("items", "name", "names", "possible", "rules")

    def __init__(self, name: str, rules: Sequence[Rule]) -> None:
        self.name = name
        self.rules = tuple(RuleKernel(rule) for rule in rules)
        # Every fact the dimension's rules read (inputs and only_if conditions).
        self.names = frozenset(
            name
            for rule in self.rules
            for name, _ in (*rule.inputs, *rule.conditions, *rule.applies, *rule.measurable)
        ) | frozenset(rule.backing[0] for rule in self.rules if rule.backing is not None)
        excludable = any(rule.if_missing == "exclude" or rule.applies_if for rule in rules)
        self.possible = None if excludable else sum(tuple(r.max_points for r in rules))
        # Every checklist item whose status the rules read: claim items and answer facts.
        self.items = frozenset(
            {rule.claim_item for rule in self.rules if rule.claim_item is not None}
            | {name.removeprefix("answer.") for name in self.names if name.startswith("answer.")}
        )

    def share(
        self, points: Sequence[np.ndarray], maxima: Sequence[np.ndarray], count: int
    ) -> np.ndarray:
        """100 x Σ points / Σ max points, clamped to 0..100 (engine._score, vectorised, before
        its rounding to 2 decimals) from the rules' rounded points and max points."""
        if not self.rules:
            return np.zeros(count)
        earned = py_sum(points, count)
        if self.possible is None:
            possible = py_sum(maxima, count)
        else:
            possible = np.full(count, float(self.possible))
        with np.errstate(invalid="ignore", divide="ignore"):
            share = 100.0 * earned / possible
        share = np.where(share > 0.0, share, 0.0)  # NaN falls to 0.0 as in _score
        share = np.where(share < 100.0, share, 100.0)
        return np.where(possible > 0, share, 0.0)


def _round_rows(rows: Sequence[np.ndarray], digits: int, count: int) -> np.ndarray:
    """py_round of each row, as the rows of one array (one py_round for all of them)."""
    if not rows:
        return np.zeros((0, count))
    matrix = np.array(rows, dtype=float)
    return py_round(matrix.ravel(), digits).reshape(matrix.shape)


def score_batch(
    kernels: Sequence[DimensionKernel], batch: Batch, factors: Mapping[str, float]
) -> list[np.ndarray]:
    """Each kernel's dimension scores (0..100, rounded to 2 decimals) of every candidate of
    the batch. Every rule's points are rounded to 4 decimals, and then every score to 2, in
    one py_round each: rounding is elementwise, so batching it changes no value."""
    count = len(batch.ctxs)
    runs = [[rule.run(batch, factors) for rule in kernel.rules] for kernel in kernels]
    rounded = iter(_round_rows([points for run in runs for points, _ in run], 4, count))
    shares = [
        kernel.share([next(rounded) for _ in run], [maximum for _, maximum in run], count)
        for kernel, run in zip(kernels, runs, strict=True)
    ]
    return list(_round_rows(shares, 2, count))


def weighted_totals_array(scores: Sequence[np.ndarray], weights: Sequence[float]) -> np.ndarray:
    """round(Σ weight x score, 4) per candidate (engine.weighted_totals, vectorised)."""
    count = len(scores[0]) if scores else 0
    products = [weight * column for weight, column in zip(weights, scores, strict=True)]
    return py_round(py_sum(products, count), 4)


# --- contributions on demand -----------------------------------------------------------------

_CONTRIBUTIONS = DimensionScore.__dict__["contributions"]
_get_contributions: Callable[[DimensionScore], Any] = _CONTRIBUTIONS.__get__
_set_contributions = _CONTRIBUTIONS.__set__


class _Pending:
    """One dimension of one batch whose contributions are not built yet. It holds no
    reference to the scores that read it (no reference cycle: a discarded ranking is freed
    by reference counting alone, never left to the cyclic garbage collector)."""

    __slots__ = ("batch", "rows", "run")

    def __init__(
        self, batch: Batch, run: Callable[[Batch], list[tuple[Contribution, ...]]]
    ) -> None:
        self.batch: Batch | None = batch
        self.run: Callable[[Batch], list[tuple[Contribution, ...]]] | None = run
        self.rows: list[tuple[Contribution, ...]] | None = None

    def row(self, index: int) -> tuple[Contribution, ...]:
        rows = self.rows
        if rows is None:
            assert self.run is not None and self.batch is not None  # noqa: S101 - set together
            rows = self.rows = self.run(self.batch)
            self.batch = self.run = None
        return rows[index]


class DeferredDimensionScore(DimensionScore):
    """A DimensionScore whose contributions are built on first access (for its whole batch).

    It equals, hashes, prints and pickles as the DimensionScore with the same fields (pickling
    and copying give a plain DimensionScore)."""

    __slots__ = ("_index", "_pending")

    @property  # type: ignore[override]
    def contributions(self) -> tuple[Contribution, ...]:
        try:
            return _get_contributions(self)
        except AttributeError:
            row = self._pending.row(self._index)
            _set_contributions(self, row)
            return row

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DimensionScore):
            return NotImplemented
        return (self.dimension, self.score, self.contributions) == (
            other.dimension,
            other.score,
            other.contributions,
        )

    def __hash__(self) -> int:
        return hash((self.dimension, self.score, self.contributions))

    def __reduce__(self) -> tuple[Any, ...]:
        return (DimensionScore, (self.dimension, self.score, self.contributions))


_DEFERRED_SLOTS = (
    DimensionScore.__dict__["dimension"].__set__,
    DimensionScore.__dict__["score"].__set__,
    DeferredDimensionScore.__dict__["_pending"].__set__,
    DeferredDimensionScore.__dict__["_index"].__set__,
)


class BatchScores(DeferredRows, Sequence[tuple[DimensionScore, ...]]):
    """The dimension scores of a batch: row i is candidate i's DeferredDimensionScores (in
    DIMENSIONS order), built when first asked for; each dimension's contributions are built,
    for the whole batch, when any of them is first read (``runs[d](batch)`` builds them)."""

    __slots__ = ("names", "pending", "scores")

    def __init__(
        self,
        names: Sequence[str],
        scores: Sequence[list[float]],
        batch: Batch,
        runs: Sequence[Callable[[Batch], list[tuple[Contribution, ...]]]],
    ) -> None:
        self.names = tuple(names)
        self.scores = tuple(scores)
        self.pending = tuple(_Pending(batch, run) for run in runs)

    def row(self, index: int) -> tuple[DeferredDimensionScore, ...]:
        set_dimension, set_score, set_pending, set_index = _DEFERRED_SLOTS
        found = []
        for name, scores, pending in zip(self.names, self.scores, self.pending, strict=True):
            score = object.__new__(DeferredDimensionScore)
            set_dimension(score, name)
            set_score(score, scores[index])
            set_pending(score, pending)
            set_index(score, index)
            found.append(score)
        return tuple(found)

    def __len__(self) -> int:
        return len(self.scores[0]) if self.scores else 0

    @overload
    def __getitem__(self, index: int) -> tuple[DeferredDimensionScore, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[DeferredDimensionScore, ...]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self.row(i) for i in range(*index.indices(len(self)))]
        count = len(self)
        if not -count <= index < count:
            raise IndexError(index)
        return self.row(index % count)


_compiled_kernels: dict[int, tuple[Any, tuple[DimensionKernel, ...]]] = {}


def compiled_kernels(rubric: Any) -> tuple[DimensionKernel, ...]:
    """The rubric's DimensionKernels in DIMENSIONS order, compiled once per rubric."""
    entry = _compiled_kernels.get(id(rubric))
    # The entry keeps its rubric alive, so an id is never reused while it is cached.
    if entry is not None and entry[0] is rubric:
        return entry[1]
    kernels = tuple(DimensionKernel(d, rubric.by_dimension[d]) for d in DIMENSIONS)
    if len(_compiled_kernels) >= 16:
        _compiled_kernels.clear()
    _compiled_kernels[id(rubric)] = (rubric, kernels)
    return kernels


__all__ = [
    "BatchScores",
    "DeferredDimensionScore",
    "DimensionKernel",
    "RuleKernel",
    "compiled_kernels",
    "py_round",
    "py_sum",
    "score_batch",
    "weighted_totals_array",
]
