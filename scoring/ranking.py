"""Scoring one candidate end to end and ranking an evaluation's candidates.

A candidate's result depends only on its own input, the evaluation and the rubric, so adding
or removing a candidate never changes another candidate's scores or total; only the order
changes. The order: qualified candidates by weighted total (highest first), then every
disqualified one (also by total). Equal totals are ordered by what the evidence said of each
candidate's claims: fewer refuted (contradicted) checklist answers first, then more verified
ones, then the lower candidate_id (tie_key: the one rule the robustness analysis follows too).
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import attrgetter, eq, setitem
from types import MappingProxyType
from typing import Any

import numpy as np

from .dimensions import (
    score_dimensions_columns,
    score_dimensions_deferred,
    weighted_totals,
    weighted_totals_array,
)
from .knockouts import check_knockouts
from .rubric import Rubric, load_rubric
from .tco import pending_tcos
from .types import (
    DIMENSIONS,
    CandidateInput,
    CandidateResult,
    EvaluationSpec,
    ScoreBlock,
    ScoringInputError,
)
from .weights import normalise_weights


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a batch is scored.

    A batch allocates tens of thousands of small objects that all survive (contributions,
    dimension scores, results; none forms a reference cycle), so the collector's full
    passes, each walking every live object, would run over and over and make ranking grow
    faster than linearly with the candidates. Reference counting still frees everything; the
    collector is resumed (only if it was running) as soon as the batch is scored.
    """
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def evaluation_weights(evaluation: EvaluationSpec, rubric: Rubric) -> dict[str, float]:
    """The evaluation's weights normalised to sum 1, or its workload preset's when unset."""
    if evaluation.weights is None:
        return normalise_weights(rubric.preset_weights(evaluation.workload_profile))
    return normalise_weights(evaluation.weights)


def weighted_total(scores: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """Σ weight x dimension score (weights summing to 1), rounded to 4 decimals: 0..100."""
    return round(sum(weights[d] * scores[d] for d in DIMENSIONS), 4)


# Below this many candidates the per-candidate engine (memoised contributions, no numpy call
# per rule) is cheaper than the kernel's fixed cost of some twenty numpy calls per rule.
KERNEL_MIN_CANDIDATES = 64


def score_candidates_batch(
    candidates: Sequence[CandidateInput],
    evaluation: EvaluationSpec,
    rubric: Rubric,
    weights: Mapping[str, float],
    *,
    explain: bool | None = None,
) -> list[CandidateResult]:
    """Score candidates (in input order): TCO, six dimension scores with contributions,
    knockouts and the weighted total. Each result depends only on its own candidate.

    ``explain`` True builds every contribution now (the per-candidate engine, memoised per
    rule): for a caller that reads or stores them all. False scores through the numpy kernel
    and builds a batch's contributions when one is first read. None (the default) takes the
    kernel from KERNEL_MIN_CANDIDATES candidates on. Both give identical results."""
    # The figures the scores and knockouts read; each exact TCO is built when first read.
    tcos = pending_tcos(candidates, evaluation, rubric)
    ordered = [weights[d] for d in DIMENSIONS]
    if explain is None:
        explain = len(candidates) < KERNEL_MIN_CANDIDATES
    if explain:
        dimensions, columns = score_dimensions_columns(candidates, evaluation, rubric, tcos)
        totals = weighted_totals(columns, ordered)
        matrix = np.array(columns, dtype=np.float64).reshape(len(DIMENSIONS), -1).T
    else:
        # The numpy kernel scores the batch; each dimension's contributions (the
        # explanations) are built from the same rules the first time one of them is read.
        rows, arrays = score_dimensions_deferred(candidates, evaluation, rubric, tcos)
        # Each result holds the batch's rows and builds its own tuple when first read.
        dimensions: Iterable[Any] = repeat(rows, len(candidates))
        totals = weighted_totals_array(arrays, ordered).tolist()
        matrix = np.column_stack(arrays) if arrays else np.zeros((len(candidates), 0))
    knockouts = list(map(check_knockouts, candidates, repeat(evaluation), repeat(rubric), tcos))
    answers = list(map(_answers_of, candidates))
    matrix.flags.writeable = False
    return _results(
        {
            "candidate_id": list(map(_candidate_id_of, candidates)),
            "label": list(map(_label_of, candidates)),
            "dimensions": dimensions,
            "total": totals,
            "disqualified": list(map(bool, knockouts)),
            "knockouts": knockouts,
            "tco": tcos,
            # Counted when first read: the order reads them only where totals tie.
            "refuted_claims": answers,
            "verified_claims": answers,
            # The batch's scores as one array, and each result's row (see ScoreBlock).
            "_score_block": repeat(ScoreBlock(matrix)),
            "_score_index": range(len(candidates)),
        },
        len(candidates),
    )


def _results(columns: Mapping[str, Iterable[Any]], count: int) -> list[CandidateResult]:
    """``count`` CandidateResults, result i's attribute ``name`` set to item i of
    ``columns[name]``: what CandidateResult(...) of each sets, with no Python-level call per
    result (the instance dicts are filled column by column)."""
    made = list(map(object.__new__, repeat(CandidateResult, count)))
    dicts = list(map(_dict_of, made))
    for name, values in columns.items():
        # map() runs the item assignments in C; the deque only drains it.
        deque(map(setitem, dicts, repeat(name), values), maxlen=0)
    return made


_dict_of = attrgetter("__dict__")
_answers_of = attrgetter("answers")
_candidate_id_of = attrgetter("candidate_id")
_label_of = attrgetter("label")


def score_candidate(
    candidate: CandidateInput,
    evaluation: EvaluationSpec,
    rubric: Rubric | None = None,
    weights: Mapping[str, float] | None = None,
) -> CandidateResult:
    """Score one candidate: the same result it gets inside rank().

    ``weights`` (normalised to sum 1) default to the evaluation's.
    """
    rubric = rubric or load_rubric()
    if weights is None:
        weights = evaluation_weights(evaluation, rubric)
    return score_candidates_batch([candidate], evaluation, rubric, weights)[0]


def tie_key(result: CandidateResult) -> tuple[int, int, int]:
    """How results with equal totals are ordered (lowest key first): fewer refuted claims
    (checklist answers the evidence contradicted), then more verified claims, then the lower
    candidate_id, so the order never depends on the order the candidates came in."""
    return (result.refuted_claims, -result.verified_claims, result.candidate_id)


def order_key(result: CandidateResult) -> tuple[bool, float, int, int, int]:
    """Sort key: qualified first, higher total first, then tie_key."""
    return (result.disqualified, -result.total, *tie_key(result))


_total_of = attrgetter("total")
_disqualified_of = attrgetter("disqualified")


def sort_results(results: list[CandidateResult]) -> None:
    """Sort ``results`` in place by order_key, reading the claim counts of tied results only.

    Two stable sorts on plain attributes (total, highest first; then qualified first) give
    the order up to ties; each run of equal totals is then sorted by tie_key."""
    results.sort(key=_total_of, reverse=True)  # stable: equal totals keep their order
    results.sort(key=_disqualified_of)
    totals = list(map(_total_of, results))
    same = list(map(eq, totals, islice(totals, 1, None)))
    if True not in same:
        return  # no two neighbours tie
    for start, end in tie_runs(list(compress(range(len(same)), same))):
        run = results[start:end]
        run.sort(key=tie_key if len(set(map(_disqualified_of, run))) == 1 else order_key)
        results[start:end] = run


def tie_runs(ties: list[int]) -> Iterator[tuple[int, int]]:
    """The runs [start, end) of tied neighbours, given the ascending positions i at which
    item i ties with item i + 1."""
    index = 0
    while index < len(ties):
        start = ties[index]
        while index + 1 < len(ties) and ties[index + 1] == ties[index] + 1:
            index += 1
        yield start, ties[index] + 2
        index += 1


@dataclass(frozen=True)
class Ranking:
    """Ranked results with the normalised weights and rubric version used."""

    results: tuple[CandidateResult, ...]
    weights: Mapping[str, float]
    rubric_version: str
    workload_profile: str

    @property
    def leader(self) -> CandidateResult | None:
        """The first qualified candidate, or None when every candidate is disqualified."""
        if self.results and not self.results[0].disqualified:
            return self.results[0]
        return None

    @property
    def qualified(self) -> tuple[CandidateResult, ...]:
        return tuple(r for r in self.results if not r.disqualified)

    def result(self, candidate_id: int) -> CandidateResult:
        for item in self.results:
            if item.candidate_id == candidate_id:
                return item
        raise KeyError(candidate_id)

    def position(self, candidate_id: int) -> int:
        """1-based place in the ranking."""
        for index, item in enumerate(self.results, start=1):
            if item.candidate_id == candidate_id:
                return index
        raise KeyError(candidate_id)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rubric_version": self.rubric_version,
            "workload_profile": self.workload_profile,
            "weights": dict(self.weights),
            "results": [r.as_dict() for r in self.results],
        }


def rank(
    candidates: Iterable[CandidateInput],
    evaluation: EvaluationSpec,
    rubric: Rubric | None = None,
    *,
    explain: bool | None = None,
) -> Ranking:
    """Score and order every candidate of an evaluation (see the module docstring).

    ``explain``: see score_candidates_batch. Raises ScoringInputError when two candidates
    share a candidate_id.
    """
    rubric = rubric or load_rubric()
    weights = evaluation_weights(evaluation, rubric)
    candidates = list(candidates)
    # Checked over the whole list in C; the first offending candidate is then looked for.
    if not all(map(isinstance, candidates, repeat(CandidateInput))) or len(
        set(map(_candidate_id_of, candidates))
    ) < len(candidates):
        seen: set[int] = set()
        for candidate in candidates:
            if not isinstance(candidate, CandidateInput):
                raise ScoringInputError(f"expected CandidateInput, got {type(candidate).__name__}")
            if candidate.candidate_id in seen:
                raise ScoringInputError(f"candidate_id {candidate.candidate_id} appears twice")
            seen.add(candidate.candidate_id)
    with _no_cyclic_gc():
        results = score_candidates_batch(candidates, evaluation, rubric, weights, explain=explain)
    sort_results(results)
    return Ranking(
        results=tuple(results),
        weights=MappingProxyType(dict(weights)),
        rubric_version=rubric.version,
        workload_profile=evaluation.workload_profile,
    )
