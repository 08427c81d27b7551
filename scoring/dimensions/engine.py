"""Applying the rubric's rules to candidates' facts: contributions and the six dimension scores.

Rules are compiled once per rubric into functions that score a whole batch of candidates,
rule by rule (column-wise), so the per-candidate work is mostly C-level lookups. A candidate's
result never depends on the rest of the batch: every step works on its own facts only.
Finished contributions are memoised on their rule, keyed by everything they show (the fact
read, its displayed value, the checklist status and the evidence reference), so candidates
with equal facts share one immutable Contribution.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from operator import attrgetter, methodcaller
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..types import DIMENSIONS, CandidateInput, Contribution, DimensionScore, EvaluationSpec
from .facts import CLAIMED, FACTS, MEASURED, UNANSWERED, FactContext, FactSource

if TYPE_CHECKING:
    from ..rubric import Rubric, Rule
    from ..tco import Tco

_MEMO_LIMIT = 8192
_POINTS = attrgetter("points")
_MAX_POINTS = attrgetter("max_points")


class Batch:
    """The candidates scored together, with the columns every rule reads."""

    __slots__ = ("answers", "ctxs", "refs")

    def __init__(self, ctxs: list[FactContext]) -> None:
        self.ctxs = ctxs
        self.answers = [ctx.answers for ctx in ctxs]
        self.refs = [ctx.refs for ctx in ctxs]


BatchRunner = Callable[[Batch], list[Contribution]]


def _contribution(
    rule: Rule,
    inputs: dict[str, Any],
    points: float,
    max_points: float,
    basis: str,
    ref: str | None,
) -> Contribution:
    return Contribution(
        rule.id,
        rule.label_en,
        rule.label_zh,
        MappingProxyType(inputs),
        round(points, 4),
        max_points,
        basis,
        ref,
    )


def _shown(value: Any, exact_text: bool) -> Any:
    return str(value) if exact_text and value is not None else value


class _Compiler:
    """Everything one rule's runners share: its memo, the missing case and the builder."""

    def __init__(self, rule: Rule, factors: Mapping[str, float]) -> None:
        self.rule = rule
        self.factors = factors
        self.memo = rule.memo
        excluded = rule.if_missing == "exclude"
        self.missing = _contribution(
            rule,
            dict.fromkeys(rule.inputs),
            0.0,
            0.0 if excluded else rule.max_points,
            "excluded" if excluded else "missing",
            None,
        )

    def build(
        self, name: str, shown: Any, value: Any, basis: str, status: str | None, ref: str | None
    ) -> Contribution:
        rule = self.rule
        points = rule.table.points(value)
        inputs = {name: shown}
        if basis == CLAIMED:
            factor = self.factors["no_item" if status is None else status]
            if status is not None:
                inputs[f"answer.{rule.claim_item}"] = status
            if factor != 1.0:
                inputs["factor"] = factor
            points *= factor
        return _contribution(rule, inputs, points, rule.max_points, basis, ref)

    def store(self, key: Any, found: Contribution) -> Contribution:
        memo = self.memo
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        memo[key] = found
        return found

    def general(self) -> BatchRunner:
        """The general case: several inputs (the first one present wins), only_if conditions,
        a basis that depends on the evidence. Facts are fetched column-wise, then each
        candidate's contribution is looked up or built."""
        rule = self.rule
        sources = tuple((name, FACTS[name]) for name in rule.inputs)
        conditions = tuple((name, FACTS[name], allowed) for name, allowed in rule.only_if)
        item, memo, missing = rule.claim_item, self.memo, self.missing
        max_points, build, store = rule.max_points, self.build, self.store

        def run(batch: Batch) -> list[Contribution]:
            ctxs = batch.ctxs
            columns = [(name, source, list(map(source.fetch, ctxs))) for name, source in sources]
            condition_columns = [
                (name, source, allowed, list(map(source.fetch, ctxs)))
                for name, source, allowed in conditions
            ]
            found: list[Contribution] = []
            for i, (answers, refs) in enumerate(zip(batch.answers, batch.refs, strict=True)):
                # name and source stay bound to the input that was found (used after the loop).
                for name, source, column in columns:  # noqa: B007
                    if source.basis is None:
                        value, basis = column[i]
                    else:
                        value, basis = column[i], source.basis
                    if value is not None:
                        break
                else:
                    found.append(missing)
                    continue
                shown = _shown(value, source.exact_text)
                for condition, condition_source, allowed, column in condition_columns:
                    current = column[i]
                    if current not in allowed:
                        current = _shown(current, condition_source.exact_text)
                        key = ("n/a", name, shown, condition, current)
                        hit = memo.get(key)
                        if hit is None:
                            inputs = {name: shown, condition: current}
                            hit = store(
                                key,
                                _contribution(
                                    rule, inputs, 0.0, max_points, "not_applicable", None
                                ),
                            )
                        found.append(hit)
                        break
                else:
                    status = ref = None
                    if basis == CLAIMED:
                        if item is not None:
                            status = answers.get(item, UNANSWERED)
                            ref = refs.get(item) if refs else None
                    elif refs and basis == MEASURED:
                        ref = next(filter(None, map(refs.get, source.ref_names)), None)
                    key = (name, basis, shown, status, ref)
                    hit = memo.get(key)
                    if hit is None:
                        hit = store(key, build(name, shown, value, basis, status, ref))
                    found.append(hit)
            return found

        return run

    def batch(self) -> BatchRunner:
        """The runner for a batch: the column fast path for one fixed-basis input without
        conditions, else the general runner."""
        rule = self.rule
        source = FACTS[rule.inputs[0]]
        if len(rule.inputs) > 1 or rule.only_if or source.basis is None:
            return self.general()
        return self._column(rule.inputs[0], source)

    def _column(self, name: str, source: FactSource) -> BatchRunner:
        fetch, basis, exact = source.fetch, source.basis, source.exact_text
        item, memo, missing = self.rule.claim_item, self.memo, self.missing
        build, store = self.build, self.store
        assert basis is not None  # noqa: S101 - guarded by batch()
        claimed_item = basis == CLAIMED and item is not None
        status_of = methodcaller("get", item, UNANSWERED)
        item_ref_of = methodcaller("get", item)
        ref_names = source.ref_names if basis == MEASURED else ()
        measured_ref_of = methodcaller("get", ref_names[0]) if ref_names else None

        def run(batch: Batch) -> list[Contribution]:
            values = list(map(fetch, batch.ctxs))
            shown = [None if v is None else str(v) for v in values] if exact else values
            if claimed_item:
                statuses = list(map(status_of, batch.answers))
                refs = list(map(item_ref_of, batch.refs))
            elif measured_ref_of is not None:
                statuses = [None] * len(values)
                refs = list(map(measured_ref_of, batch.refs))
                if len(ref_names) > 1:
                    refs = [
                        ref or next(filter(None, map(r.get, ref_names[1:])), None)
                        for ref, r in zip(refs, batch.refs, strict=True)
                    ]
            else:
                statuses = refs = [None] * len(values)
            # Keys are (shown, status, ref) triples here and 5-tuples in the general runner,
            # so the two never collide in the rule's memo.
            keys = list(zip(shown, statuses, refs, strict=True))
            found = list(map(memo.get, keys))
            for i in [i for i, f in enumerate(found) if f is None]:
                value = values[i]
                if value is None:
                    found[i] = missing
                    continue
                key = keys[i]
                # An earlier candidate of this batch may have filled the memo meanwhile.
                hit = memo.get(key)
                found[i] = (
                    hit
                    if hit is not None
                    else store(key, build(name, key[0], value, basis, key[1], key[2]))
                )
            return found

        return run


_COMPILED: dict[int, tuple[Rubric, tuple[tuple[str, tuple[BatchRunner, ...]], ...]]] = {}


def _compiled(rubric: Rubric) -> tuple[tuple[str, tuple[BatchRunner, ...]], ...]:
    entry = _COMPILED.get(id(rubric))
    # The entry keeps its rubric alive, so an id is never reused while it is cached.
    if entry is not None and entry[0] is rubric:
        return entry[1]
    factors = rubric.status_factors
    compiled = tuple(
        (d, tuple(_Compiler(rule, factors).batch() for rule in rubric.by_dimension[d]))
        for d in DIMENSIONS
    )
    if len(_COMPILED) >= 16:
        _COMPILED.clear()
    _COMPILED[id(rubric)] = (rubric, compiled)
    return compiled


def evaluate_rule(rule: Rule, ctx: FactContext, *, general: bool = False) -> Contribution:
    """Apply one rule to one candidate's facts (uncompiled; for tests and tools).

    ``general`` forces the general runner even where the column fast path applies, so tests
    can check that both give the same contribution.
    """
    compiler = _Compiler(rule, ctx.rubric.status_factors)
    runner = compiler.general() if general else compiler.batch()
    return runner(Batch([ctx]))[0]


def _dimension(
    dimension: str, columns: list[list[Contribution]], count: int
) -> list[DimensionScore]:
    rows = list(zip(*columns, strict=True)) if columns else [()] * count
    earned = list(map(sum, zip(*[list(map(_POINTS, c)) for c in columns], strict=True)))
    possible = list(map(sum, zip(*[list(map(_MAX_POINTS, c)) for c in columns], strict=True)))
    if not columns:
        earned = possible = [0.0] * count
    # Σ points / Σ max points, clamped to 0..100 and rounded to 2 decimals.
    scores = [
        0.0 if p <= 0 else round(min(100.0, max(0.0, 100.0 * e / p)), 2)
        for e, p in zip(earned, possible, strict=True)
    ]
    return list(map(DimensionScore, repeat(dimension), scores, rows))


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
    batch = Batch(
        [
            FactContext(candidate, evaluation, rubric, tco)
            for candidate, tco in zip(candidates, tcos, strict=True)
        ]
    )
    count = len(batch.ctxs)
    per_dimension = [
        _dimension(dimension, [run(batch) for run in runners], count)
        for dimension, runners in _compiled(rubric)
    ]
    return list(zip(*per_dimension, strict=True))


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
