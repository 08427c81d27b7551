"""The TCO figures a ranking reads, from float columns, equal those of the exact Decimal TCO.

A ranking reads three figures from each candidate's TCO (the budget ratio and the effective
price ratio, both rounded to 3 decimals, and whether the recommended total exceeds the budget).
tco.pending_tcos computes them for a whole batch in float arithmetic, settling a figure only
away from every rounding boundary, and reads the exact TCO for the rest; the exact TCO, the
money shown, is built when a result's TCO is first read. Every figure, score, total, knockout
and TCO must be the one the exact TCO gives, in both rubric versions.
"""

from __future__ import annotations

import copy
import importlib.util
import pickle
import random
from dataclasses import asdict, replace
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.dimensions import score_dimensions_columns
from scoring.knockouts import check_knockouts
from scoring.ranking import evaluation_weights, order_key, rank, weighted_total
from scoring.rubric import load_rubric
from scoring.tco import (
    PendingTco,
    Tco,
    TcoPlan,
    budget_ratio,
    compute_tco,
    effective_price_ratio,
    pending_tcos,
)
from scoring.types import DIMENSIONS, EvaluationSpec, Price

try:
    from scoring_factories import candidate, candidate_lists, evaluation, evaluations, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, candidate_lists, evaluation, evaluations, offering

RUBRICS = (load_rubric("1"), load_rubric("2"))


def _exact_figures(pool, spec, rubric):
    plan = TcoPlan(spec)
    figures = []
    for item in pool:
        if not item.effective_prices():
            figures.append(None)
            continue
        tco = compute_tco(item, spec, rubric, plan)
        budget = spec.budget_total
        figures.append(
            (
                repr(budget_ratio(tco, spec)),
                repr(effective_price_ratio(tco, item.offering.gpu_model, rubric)),
                budget is not None
                and tco.currency == spec.budget_currency
                and (tco.spot_refused or tco.recommended_total > budget),
                tco,
            )
        )
    return figures


def _assert_figures(pool, spec, rubric):
    # The float columns whatever the size (a small batch reads its exact TCOs by default).
    pending = pending_tcos(pool, spec, rubric, floats=True)
    for item, got, expected in zip(pool, pending, _exact_figures(pool, spec, rubric), strict=True):
        if expected is None:
            assert got is None
            continue
        ratio, price_ratio, over, tco = expected
        assert isinstance(got, PendingTco)
        assert repr(got.budget_ratio) == ratio, item.candidate_id
        assert repr(got.effective_price_ratio) == price_ratio, item.candidate_id
        assert got.over_budget is over
        assert got.currency == tco.currency
        assert got.resolve() == tco
    return pending


@settings(max_examples=60, deadline=None)
@given(pool=candidate_lists(min_size=1, max_size=10), spec=evaluations)
def test_float_figures_equal_the_exact_tco_on_random_candidates(pool, spec):
    for rubric in RUBRICS:
        _assert_figures(pool, spec, rubric)


@settings(max_examples=40, deadline=None)
@given(
    pool=candidate_lists(min_size=1, max_size=6),
    spec=evaluations,
    index=st.integers(0, 5),
    cents=st.integers(-2, 2),
)
def test_a_budget_next_to_a_recommended_total_is_judged_exactly(pool, spec, index, cents):
    """A budget equal to a candidate's recommended total, or a cent either side of it."""
    item = pool[index % len(pool)]
    for rubric in RUBRICS:
        total = compute_tco(item, spec, rubric).recommended_total
        near = replace(spec, budget_total=max(Decimal("0.01"), total + Decimal(cents) / 100))
        _assert_figures(pool, near, rubric)


@pytest.fixture(scope="module")
def bench_pool():
    """The benchmark's realistic random candidates."""
    path = Path(__file__).resolve().parents[2] / "bench" / "scoring.py"
    spec = importlib.util.spec_from_file_location("bench_scoring", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(7)  # noqa: S311 - test data
    return [module.make_candidate(rng, i) for i in range(1, 601)]


@pytest.mark.parametrize("budget", [None, Decimal(300_000), Decimal(5_000_000)])
@pytest.mark.parametrize("profile", ["pretraining", "inference"])
def test_float_figures_equal_the_exact_tco_on_the_bench_candidates(bench_pool, budget, profile):
    spec = EvaluationSpec(
        workload_profile=profile,
        required_total_gpus=8,
        required_gpu_memory_gib=48,
        duration_days=90,
        expected_idle_days=10,
        budget_total=budget,
    )
    for rubric in RUBRICS:
        _assert_figures(bench_pool, spec, rubric)
        # The float path settles nearly every candidate: only a figure next to a rounding
        # boundary reads the exact TCO up front (resolve() above built the rest).
        exact = sum(p._tco is not None for p in pending_tcos(bench_pool, spec, rubric))
        assert exact <= len(bench_pool) // 20
        # A small batch reads its exact TCOs at once: the same figures.
        small = pending_tcos(bench_pool[:5], spec, rubric)
        assert all(p._tco is not None for p in small)
        assert [(p.budget_ratio, p.effective_price_ratio, p.over_budget) for p in small] == [
            (p.budget_ratio, p.effective_price_ratio, p.over_budget)
            for p in pending_tcos(bench_pool[:5], spec, rubric, floats=True)
        ]


def test_shapes_left_to_the_exact_tco_give_the_same_figures():
    spec = evaluation(budget_total=Decimal(2_000_000), duration_days=30)
    pool = [
        candidate(1, offering=offering(min_commitment_days=90)),
        candidate(
            2, offering=offering(min_commitment_days=365, early_termination_fee=Decimal(1000))
        ),
        candidate(
            3,
            offering=offering(
                delivery_form="mig", gpu_model="NVIDIA A100-SXM4-80GB", mig_profile="3g.40gb"
            ),
        ),
        # Only spot is priced, and a 30-day pre-training job on two nodes cannot be interrupted.
        candidate(4, offering=offering(prices=(Price("spot", Decimal("9.99")),))),
        candidate(5, offering=offering(prices=())),
        candidate(6, offering=offering(setup_days=0, setup_fee=Decimal("0.005"))),
        candidate(7, offering=offering(currency="USD")),
        candidate(8, quoted_prices=(Price("monthly", Decimal("9000.00")),)),
    ]
    for rubric in RUBRICS:
        pending = _assert_figures(pool, spec, rubric)
        assert pending[4] is None
        # A minimum commitment beyond the duration is priced by the exact TCO alone.
        assert pending[0]._tco is not None


def test_a_ratio_on_a_tie_reads_the_exact_tco():
    """A budget making the recommended total 0.1235 of it puts the budget ratio on a tie of
    its rounding to 3 decimals: the float path leaves it to the exact TCO."""
    for rubric in RUBRICS:
        item = candidate(1)
        spec = evaluation()
        total = compute_tco(item, spec, rubric).recommended_total
        tied = replace(spec, budget_total=total / Decimal("0.1235"))
        expected = budget_ratio(compute_tco(item, tied, rubric), tied)
        (pending,) = pending_tcos([item], tied, rubric, floats=True)
        assert pending._tco is not None  # the exact TCO was read up front
        assert repr(pending.budget_ratio) == repr(expected)


@pytest.mark.parametrize("rubric", RUBRICS, ids=["v1", "v2"])
def test_rankings_equal_the_ranking_from_exact_tcos(bench_pool, rubric):
    spec = EvaluationSpec(
        workload_profile="finetuning",
        required_total_gpus=16,
        required_gpu_memory_gib=48,
        duration_days=60,
        expected_idle_days=5,
        budget_total=Decimal(1_200_000),
    )
    plan = TcoPlan(spec)
    tcos = [compute_tco(c, spec, rubric, plan) for c in bench_pool]
    rows, _columns = score_dimensions_columns(bench_pool, spec, rubric, tcos)
    weights = evaluation_weights(spec, rubric)
    expected = []
    for item, tco, scores in zip(bench_pool, tcos, rows, strict=True):
        totals = weighted_total({s.dimension: s.score for s in scores}, weights)
        knockouts = check_knockouts(item, spec, rubric, tco)
        # Equal totals: fewer refuted claims, then more verified ones, then the lower id.
        answers = list(item.answers.values())
        claims = (answers.count("contradicted"), -answers.count("verified"))
        expected.append((item.candidate_id, totals, scores, knockouts, tco, claims))
    expected.sort(key=lambda row: (bool(row[3]), -row[1], *row[5], row[0]))
    for explain in (False, True):
        ranking = rank(bench_pool, spec, rubric, explain=explain)
        assert [r.candidate_id for r in ranking.results] == [row[0] for row in expected]
        assert sorted(ranking.results, key=order_key) == list(ranking.results)
        for result, (_id, total, scores, knockouts, tco, _claims) in zip(
            ranking.results, expected, strict=True
        ):
            assert repr(result.total) == repr(total)
            assert [repr(result.score(d)) for d in DIMENSIONS] == [repr(s.score) for s in scores]
            assert result.dimensions == scores
            assert result.knockouts == knockouts
            assert result.tco == tco


def test_a_result_builds_its_exact_tco_when_first_read(bench_pool):
    spec = evaluation(budget_total=Decimal(900_000))
    rubric = RUBRICS[1]
    ranking = rank(bench_pool[:80], spec, rubric)
    result = next(r for r in ranking.results if not r.knockouts)
    pending = result.__dict__["tco"]
    assert isinstance(pending, PendingTco)
    assert pending._tco is None  # not computed by the ranking
    item = next(c for c in bench_pool if c.candidate_id == result.candidate_id)
    tco = result.tco
    assert type(tco) is Tco
    assert tco == compute_tco(item, spec, rubric)
    assert result.__dict__["tco"] is tco  # kept in place
    assert result.tco is tco


def test_results_with_pending_tcos_copy_pickle_and_compare_with_their_exact_tco(bench_pool):
    spec = evaluation(budget_total=Decimal(900_000))
    ranking = rank(bench_pool[:30], spec, RUBRICS[0])
    first = ranking.results[0]
    assert isinstance(first.__dict__["tco"], PendingTco)
    for twin in (
        pickle.loads(pickle.dumps(first)),  # noqa: S301 - our own data
        copy.copy(first),
        copy.deepcopy(first),
    ):
        assert type(twin.__dict__["tco"]) is Tco
        assert twin == first
    # Pickling resolved the original in place: what was pickled is what it shows.
    assert type(first.__dict__["tco"]) is Tco
    second = ranking.results[1]
    assert asdict(second)["tco"] == asdict(second.tco)
    assert replace(ranking.results[2], total=0.0).tco == ranking.results[2].tco
    assert pickle.loads(pickle.dumps(ranking)).as_dict() == ranking.as_dict()  # noqa: S301


def test_an_over_budget_knockout_reads_the_exact_total(bench_pool):
    spec = evaluation(budget_total=Decimal(150_000))
    rubric = RUBRICS[1]
    ranking = rank(bench_pool[:60], spec, rubric)
    over = [r for r in ranking.results if any(k.code == "budget" for k in r.knockouts)]
    assert over
    for result in over:
        item = next(c for c in bench_pool if c.candidate_id == result.candidate_id)
        tco = compute_tco(item, spec, rubric)
        assert result.knockouts == check_knockouts(item, spec, rubric, tco)
        assert f"{tco.recommended_total:,.2f}" in next(
            k.reason_en for k in result.knockouts if k.code == "budget"
        )
