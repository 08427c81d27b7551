"""The numpy ranking kernel gives bit for bit what the per-candidate engine gives.

Random candidates go through the eager columnar path (memoised Contributions per rule, the
path every contribution is tested against its rule's definition with) and through the kernel
(rules as numpy column operations, contributions built on first access): totals, dimension
scores and contributions must be identical, in both rubric versions. Python's round() and
sum() are reproduced exactly, including ties and values a float product puts next to a half.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import pickle
import random
from dataclasses import asdict, replace
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.dimensions import (
    DeferredDimensionScore,
    clear_memo,
    py_round,
    py_sum,
    score_dimensions_columns,
    score_dimensions_deferred,
    weighted_totals,
    weighted_totals_array,
)
from scoring.ranking import evaluation_weights, rank
from scoring.rubric import load_rubric
from scoring.tco import TcoPlan, compute_tco
from scoring.types import DIMENSIONS, DimensionScore, MeasuredFacts

try:
    from scoring_factories import candidate_lists, evaluations
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate_lists, evaluations

RUBRICS = (load_rubric("1"), load_rubric("2"))


def _both_paths(pool, spec, rubric):
    plan = TcoPlan(spec)
    tcos = [compute_tco(c, spec, rubric, plan) if c.effective_prices() else None for c in pool]
    clear_memo(rubric)
    eager, eager_columns = score_dimensions_columns(pool, spec, rubric, tcos)
    clear_memo(rubric)
    deferred, arrays = score_dimensions_deferred(pool, spec, rubric, tcos)
    return eager, eager_columns, deferred, arrays


def _assert_same(eager, eager_columns, deferred, arrays, weights):
    for old_row, new_row in zip(eager, deferred, strict=True):
        for old, new in zip(old_row, new_row, strict=True):
            assert isinstance(new, DeferredDimensionScore)
            assert new.dimension == old.dimension
            # Same float, bit for bit (repr distinguishes -0.0 and the last digit).
            assert repr(new.score) == repr(old.score)
            assert type(new.score) is float
    for column, array in zip(eager_columns, arrays, strict=True):
        assert [repr(x) for x in column] == [repr(x) for x in array.tolist()]
    ordered = [weights[d] for d in DIMENSIONS]
    old_totals = weighted_totals(eager_columns, ordered)
    new_totals = weighted_totals_array(arrays, ordered).tolist()
    assert [repr(x) for x in old_totals] == [repr(x) for x in new_totals]
    # Contributions last: reading them builds them (for the whole batch).
    for old_row, new_row in zip(eager, deferred, strict=True):
        for old, new in zip(old_row, new_row, strict=True):
            assert new.contributions == old.contributions
            assert new == old and old == new


@settings(max_examples=40, deadline=None)
@given(pool=candidate_lists(min_size=1, max_size=12), spec=evaluations)
def test_kernel_equals_the_eager_engine_on_random_candidates(pool, spec):
    for rubric in RUBRICS:
        weights = evaluation_weights(spec, rubric)
        _assert_same(*_both_paths(pool, spec, rubric), weights)


@pytest.fixture(scope="module")
def bench_pool():
    """The benchmark's realistic random candidates (continuous measurements, all rules)."""
    path = Path(__file__).resolve().parents[2] / "bench" / "scoring.py"
    spec = importlib.util.spec_from_file_location("bench_scoring", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(15)  # noqa: S311 - test data
    return [module.make_candidate(rng, i) for i in range(1, 401)]


def test_kernel_equals_the_eager_engine_on_the_bench_candidates(bench_pool):
    from scoring.types import EvaluationSpec

    spec = EvaluationSpec(
        workload_profile="pretraining",
        required_total_gpus=8,
        required_gpu_memory_gib=48,
        duration_days=90,
        expected_idle_days=10,
        budget_total=Decimal(5_000_000),
    )
    for rubric in RUBRICS:
        _assert_same(*_both_paths(bench_pool, spec, rubric), evaluation_weights(spec, rubric))


def test_ranking_results_keep_their_explanations_with_evidence(bench_pool):
    from scoring.types import EvaluationSpec

    spec = EvaluationSpec(workload_profile="finetuning", required_total_gpus=8)
    ranking = rank(bench_pool[:50], spec, RUBRICS[1], explain=False)
    refs = [
        c.evidence_ref
        for result in ranking.results
        for dimension in result.dimensions
        for c in dimension.contributions
        if c.evidence_ref
    ]
    # make_candidate records an nccl evidence line for every candidate's busbw_fraction.
    assert any("nccl_tests all_reduce.txt" in ref for ref in refs)
    first = ranking.results[0]
    for dimension in first.dimensions:
        earned = sum(c.points for c in dimension.contributions)
        possible = sum(c.max_points for c in dimension.contributions)
        expected = 0.0 if possible <= 0 else round(min(100.0, max(0.0, 100 * earned / possible)), 2)
        assert dimension.score == expected


def test_deferred_scores_pickle_copy_and_compare_as_plain_dimension_scores(bench_pool):
    from scoring.types import EvaluationSpec

    spec = EvaluationSpec(workload_profile="inference", required_total_gpus=1)
    ranking = rank(bench_pool[:5], spec, RUBRICS[0], explain=False)
    deferred = ranking.results[0].dimensions[0]
    assert isinstance(deferred, DeferredDimensionScore)
    plain = DimensionScore(deferred.dimension, deferred.score, deferred.contributions)
    for twin in (pickle.loads(pickle.dumps(deferred)), copy.deepcopy(deferred)):  # noqa: S301
        assert type(twin) is DimensionScore
        assert twin == plain == deferred
    assert replace(deferred, score=1.0).score == 1.0
    assert asdict(deferred)["contributions"] == asdict(plain)["contributions"]
    assert repr(deferred).startswith("DeferredDimensionScore(dimension=")
    assert deferred != DimensionScore(deferred.dimension, deferred.score + 1, ())
    # The whole ranking survives a pickle round trip (the results read model is cached).
    assert pickle.loads(pickle.dumps(ranking)).as_dict() == ranking.as_dict()  # noqa: S301


def test_a_nan_measurement_is_rejected_before_it_reaches_the_kernel():
    with pytest.raises(Exception, match="busbw_fraction"):
        MeasuredFacts(busbw_fraction=math.nan)


# --- Python's round() and sum(), vectorised --------------------------------------------------

_TIES = [0.5, 1.5, 2.5, 0.125, 0.00005, 0.00015, 1.00005, 2.675, 0.285, 1.0005, -0.00005, -2.5]


@pytest.mark.parametrize("digits", [2, 3, 4])
def test_py_round_is_round_on_ties_and_near_ties(digits):
    values = []
    for tie in _TIES:
        for k in range(-3, 4):
            values.append(np.nextafter(tie, np.inf) if k > 0 else tie)
            values.append(tie + k * 10.0 ** -(digits + 1))
    values += [0.0, -0.0, math.inf, -math.inf, math.nan, 1e300, -1e300, 5e-324]
    array = np.array(values, dtype=float)
    got = py_round(array, digits).tolist()
    assert [repr(x) for x in got] == [repr(round(float(v), digits)) for v in values]


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.floats(allow_nan=True, allow_infinity=True, width=64) | st.floats(-200, 200),
        min_size=1,
        max_size=40,
    ),
    digits=st.sampled_from([2, 3, 4]),
)
def test_py_round_is_round_on_any_floats(values, digits):
    got = py_round(np.array(values, dtype=float), digits).tolist()
    assert [repr(x) for x in got] == [repr(round(v, digits)) for v in values]


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.lists(
            st.floats(-1e6, 1e6) | st.sampled_from([0.1, 0.2, 0.3, -0.0]), min_size=4, max_size=4
        ),
        min_size=1,
        max_size=20,
    )
)
def test_py_sum_is_sum_row_by_row(rows):
    columns = [np.array(column, dtype=float) for column in zip(*rows, strict=True)]
    got = py_sum(columns, len(rows)).tolist()
    assert [repr(x) for x in got] == [repr(sum(tuple(row))) for row in rows]


def test_a_discarded_ranking_leaves_no_cyclic_garbage(bench_pool):
    """Deferred contributions hold no cycle: a ranking nobody reads is freed by reference
    counting, never left for the cyclic collector (which would make ranking grow faster than
    linearly with the candidates)."""
    import gc

    from scoring.types import EvaluationSpec

    spec = EvaluationSpec(workload_profile="pretraining", required_total_gpus=8)
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for read in (False, True):
            ranking = rank(bench_pool[:100], spec, RUBRICS[1], explain=False)
            if read:
                assert ranking.results[0].dimensions[0].contributions
            del ranking
            assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def test_either_path_ranks_the_same(bench_pool):
    from scoring.ranking import KERNEL_MIN_CANDIDATES
    from scoring.types import EvaluationSpec

    spec = EvaluationSpec(workload_profile="pretraining", required_total_gpus=8)
    for rubric in RUBRICS:
        for pool in (bench_pool[:3], bench_pool[: KERNEL_MIN_CANDIDATES + 6]):
            eager = rank(pool, spec, rubric, explain=True)
            deferred = rank(pool, spec, rubric, explain=False)
            default = rank(pool, spec, rubric)
            assert eager.as_dict() == deferred.as_dict() == default.as_dict()
            assert not isinstance(eager.results[0].dimensions[0], DeferredDimensionScore)
            assert isinstance(deferred.results[0].dimensions[0], DeferredDimensionScore)
            big = len(pool) >= KERNEL_MIN_CANDIDATES
            assert isinstance(default.results[0].dimensions[0], DeferredDimensionScore) is big


def test_fields_read_in_one_pass_are_the_attributes():
    """Batch.prefetch reads plain fields from each object's __dict__; a property, a slot, a
    custom attribute look-up or a mix of classes is read as attributes."""
    from scoring.dimensions.batch import _read_fields

    class Plain:
        def __init__(self, a, b):
            self.a, self.b = a, b

    class Shadowed(Plain):
        @property
        def b(self):
            return "property"

        @b.setter
        def b(self, value):
            self.__dict__["b"] = value

    class Slotted:
        __slots__ = ("a", "b")

        def __init__(self, a, b):
            self.a, self.b = a, b

    class Looked(Plain):
        def __getattribute__(self, name):
            return "looked" if name == "a" else object.__getattribute__(self, name)

    assert _read_fields([Plain(1, 2), Plain(3, 4)], ("a", "b")) == [(1, 2), (3, 4)]
    assert _read_fields([Shadowed(1, 2)], ("a", "b")) == [(1, "property")]
    assert _read_fields([Slotted(1, 2)], ("a", "b")) == [(1, 2)]
    assert _read_fields([Looked(1, 2)], ("a", "b")) == [("looked", 2)]
    assert _read_fields([Plain(1, 2), Shadowed(3, 4)], ("a", "b")) == [(1, 2), (3, "property")]
    missing = Plain(1, 2)
    del missing.b
    with pytest.raises(AttributeError):
        _read_fields([missing], ("a", "b"))
