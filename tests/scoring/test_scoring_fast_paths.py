"""The scoring core's fast paths give exactly what the plain definitions give.

Batch scoring with shared columns and memoised contributions, the lazily built per-model TCO
breakdown, the shared TCO plan, the setup shortcut without setup days, and the slotted result
types with hand-written constructors.
"""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError, asdict, fields, replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.dimensions import (
    FactContext,
    clear_memo,
    evaluate_rule,
    score_dimensions,
    score_dimensions_batch,
)
from scoring.ranking import rank
from scoring.robustness import _flip_point, first_counts, first_counts_reference, flip_points
from scoring.rubric import load_rubric
from scoring.tco import ModelCost, Tco, TcoPlan, compute_tco
from scoring.types import Contribution, DimensionScore, MeasuredFacts, Price

try:
    from scoring_factories import candidate, candidate_lists, evaluation, evaluations, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import (
        candidate,
        candidate_lists,
        evaluation,
        evaluations,
        offering,
    )

RUBRIC = load_rubric()


def _tco_or_none(cand, spec):
    return compute_tco(cand, spec, RUBRIC) if cand.effective_prices() else None


# --- batch scoring --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(pool=candidate_lists(min_size=2, max_size=8), spec=evaluations)
def test_every_batch_contribution_is_the_rule_applied_by_its_definition(pool, spec):
    for rubric in (RUBRIC, load_rubric("2")):
        clear_memo(rubric)
        tcos = [compute_tco(c, spec, rubric) if c.effective_prices() else None for c in pool]
        batch = score_dimensions_batch(pool, spec, rubric, tcos)
        rules = _rules_in_order(rubric)
        for cand, tco, dimensions in zip(pool, tcos, batch, strict=True):
            ctx = FactContext(cand, spec, rubric, tco)
            contributions = [c for d in dimensions for c in d.contributions]
            assert [c.rule_id for c in contributions] == [r.id for r in rules]
            for rule, found in zip(rules, contributions, strict=True):
                expected = evaluate_rule(rule, ctx, general=True).as_dict()
                assert found.as_dict() == expected, rule.id


def _rules_in_order(rubric=RUBRIC):
    return [rule for dimension in rubric.by_dimension.values() for rule in dimension]


@settings(max_examples=40, deadline=None)
@given(pool=candidate_lists(min_size=2, max_size=6), spec=evaluations)
def test_a_candidate_scores_the_same_alone_in_a_batch_and_with_a_warm_memo(pool, spec):
    clear_memo(RUBRIC)
    tcos = [_tco_or_none(c, spec) for c in pool]
    cold = score_dimensions_batch(pool, spec, RUBRIC, tcos)
    warm = score_dimensions_batch(pool, spec, RUBRIC, tcos)
    for cand, tco, in_batch, again in zip(pool, tcos, cold, warm, strict=True):
        alone = score_dimensions(cand, spec, RUBRIC, tco)
        assert [d.as_dict() for d in in_batch] == [d.as_dict() for d in alone]
        assert [d.as_dict() for d in again] == [d.as_dict() for d in alone]


def test_equal_decimals_written_differently_stay_distinct_inside_one_batch():
    pool = [
        candidate(1, offering=offering(nvme_capacity_tib=Decimal("7.68"))),
        candidate(2, offering=offering(nvme_capacity_tib=Decimal("7.680"))),
        candidate(3, offering=offering(nvme_capacity_tib=Decimal("7.68"))),
    ]
    spec = evaluation()
    clear_memo(RUBRIC)
    batch = score_dimensions_batch(pool, spec, RUBRIC, [None, None, None])
    shown = [
        next(c for c in dims[2].contributions if c.rule_id == "storage.nvme.capacity").inputs
        for dims in batch
    ]
    assert [s["offering.nvme_capacity_tib"] for s in shown] == ["7.68", "7.680", "7.68"]


def test_an_evidence_reference_only_some_candidates_have_reaches_only_theirs():
    cited = MeasuredFacts(xid_errors=0, evidence_refs={"xid_errors": "upload 3 · dmesg line 9"})
    pool = [
        candidate(1, measured=MeasuredFacts(xid_errors=0)),
        candidate(2, measured=cited),
        candidate(3, measured=MeasuredFacts(xid_errors=0)),
    ]
    clear_memo(RUBRIC)
    batch = score_dimensions_batch(pool, evaluation(), RUBRIC, [None, None, None])
    refs = [
        next(
            c for c in dims[0].contributions if c.rule_id == "stability.measured.xid_errors"
        ).evidence_ref
        for dims in batch
    ]
    assert refs == [None, "upload 3 · dmesg line 9", None]


# --- lazy per-model TCO breakdown --------------------------------------------------------------


def test_ranking_leaves_the_per_model_breakdown_unbuilt_until_read():
    ranking = rank([candidate(1), candidate(2, node_count=1)], evaluation(), RUBRIC)
    tco = ranking.result(1).tco
    assert type(vars(tco)["models"]) is not tuple
    hourly, monthly = tco.models
    assert type(vars(tco)["models"]) is tuple
    assert tco.models is tco.models
    # The figures of test_hourly_and_monthly_breakdown_by_hand (test_scoring_tco.py).
    assert (hourly.billing_model, hourly.total) == ("hourly", Decimal("633915.61"))
    assert (monthly.total, monthly.component("setup")) == (
        Decimal("594147.94"),
        Decimal("6312.33"),
    )
    assert tco.best is monthly


def test_a_lazy_tco_behaves_as_a_frozen_dataclass():
    lazy = compute_tco(candidate(), evaluation(), RUBRIC)
    eager = compute_tco(candidate(), evaluation(), RUBRIC)
    eager.models  # noqa: B018 - reading builds the breakdown
    assert lazy == eager and hash(lazy) == hash(eager)
    assert repr(lazy) == repr(eager) and "models=(ModelCost(billing_model='hourly'" in repr(lazy)
    assert [f.name for f in fields(Tco)][5] == "models"
    # 594147.94 spread over 90 days, i.e. 2.9589… months of 365/12 days.
    assert asdict(lazy)["models"][1]["monthly"] == Decimal("200800.00")
    unread = compute_tco(candidate(), evaluation(), RUBRIC)
    again = pickle.loads(pickle.dumps(unread))  # noqa: S301 - data this test just pickled
    assert again == lazy
    cheaper = replace(lazy, models=lazy.models[:1])
    assert [m.billing_model for m in cheaper.models] == ["hourly"]
    with pytest.raises(FrozenInstanceError):
        lazy.models = ()  # type: ignore[misc]
    assert isinstance(lazy.models[0], ModelCost)


# --- TCO plan and setup shortcut -------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    pool=candidate_lists(min_size=2, max_size=6),
    duration=st.integers(1, 800),
    idle_share=st.floats(0, 1),
)
def test_a_plan_shared_by_many_candidates_gives_each_its_own_tco(pool, duration, idle_share):
    spec = evaluation(duration_days=duration, expected_idle_days=int(duration * idle_share))
    plan = TcoPlan(spec)
    for cand in pool:
        if cand.effective_prices():
            shared = compute_tco(cand, spec, RUBRIC, plan)
            assert shared.as_dict() == compute_tco(cand, spec, RUBRIC).as_dict()


def test_setup_without_setup_days_is_the_fee_rounded_once_for_every_model():
    cand = candidate(
        offering=offering(
            setup_fee=Decimal("1234.565"),
            setup_days=0,
            prices=(
                Price("hourly", Decimal("20.00")),
                Price("spot", Decimal("9.50")),
                Price("monthly", Decimal("12000.00")),
                Price("yearly", Decimal("100000.00")),
            ),
        )
    )
    tco = compute_tco(cand, evaluation(), RUBRIC)
    # Half to even: 1234.565 -> 1234.56.
    assert [str(m.component("setup")) for m in tco.models] == ["1234.56"] * 4


def test_a_signed_zero_price_keeps_the_sign_the_day_rate_formula_gives():
    # Decimal("-0") passes the minimum of 0; with a "-0" fee the day-rate term decides the sign
    # of a zero setup, as (fee + day_rate x 0) rounds it.
    cand = candidate(
        offering=offering(
            setup_fee=Decimal("-0"),
            setup_days=0,
            prices=(Price("hourly", Decimal("-0")), Price("monthly", Decimal("12000.00"))),
        )
    )
    tco = compute_tco(cand, evaluation(), RUBRIC)
    assert [str(m.component("setup")) for m in tco.models] == ["-0.00", "0.00"]


# --- slotted result types --------------------------------------------------------------------


def test_contributions_and_dimension_scores_stay_frozen_dataclasses():
    item = Contribution("r.x", "X", "某项", {"a": 1}, 2.0, 4.0, "measured")
    assert item.evidence_ref is None
    assert replace(item, points=3.0).points == 3.0
    with pytest.raises(FrozenInstanceError):
        item.points = 1.0  # type: ignore[misc]
    score = DimensionScore("storage", 55.5, ())
    assert pickle.loads(pickle.dumps(score)) == score  # noqa: S301 - pickled just above
    assert asdict(score) == {"dimension": "storage", "score": 55.5, "contributions": ()}


def test_many_dimension_scores_equal_one_by_one_construction():
    item = Contribution("r.x", "X", "某项", {}, 2.0, 4.0, "measured")
    made = DimensionScore.many("network", [10.0, 20.5], [(item,), ()])
    assert made == [DimensionScore("network", 10.0, (item,)), DimensionScore("network", 20.5, ())]
    with pytest.raises(ValueError, match="one tuple of contributions per score"):
        DimensionScore.many("network", [1.0], [])


# --- rank stability kernel ------------------------------------------------------------------

_score_values = st.one_of(
    st.sampled_from((0.0, 50.0, 100.0, 33.33, 66.67)),
    st.floats(min_value=0, max_value=100, allow_nan=False),
)


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(st.tuples(*[_score_values] * 6), min_size=1, max_size=40),
    raw_weights=st.tuples(*[st.floats(min_value=0, max_value=1)] * 6).filter(lambda w: sum(w) > 0),
    draws=st.integers(min_value=1, max_value=300),
    spread=st.sampled_from((0.0, 0.1, 0.2, 0.6, 1.0)),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_the_numpy_stability_kernel_counts_exactly_what_the_plain_loop_counts(
    rows, raw_weights, draws, spread, seed
):
    total = sum(raw_weights)
    base = [w / total for w in raw_weights]
    columns = list(zip(*rows, strict=True))
    assert first_counts(base, columns, draws, spread, seed) == first_counts_reference(
        base, columns, draws, spread, seed
    )


def test_the_stability_kernel_breaks_exact_ties_towards_the_first_candidate():
    columns = [(70.0, 70.0, 10.0)] * 6
    base = [1 / 6] * 6
    assert first_counts(base, columns, 50, 0.3, 4) == [50, 0, 0]
    # Blocks of draws: more draws than one block holds for this many candidates.
    many = [tuple(float(i % 7) for i in range(3000))] * 6
    assert first_counts(base, many, 200, 0.2, 1) == first_counts_reference(base, many, 200, 0.2, 1)


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(st.tuples(*[_score_values] * 6), min_size=2, max_size=30),
    raw_weights=st.tuples(*[st.sampled_from((0.0, 0.05, 0.1, 0.2, 0.3, 1.0))] * 6).filter(
        lambda w: sum(w) > 0
    ),
)
def test_the_numpy_flip_points_are_the_plain_flip_points(rows, raw_weights):
    total = sum(raw_weights)
    w = [x / total for x in raw_weights]
    leader, others = rows[0], rows[1:]
    expected = [
        [_flip_point([a - b for a, b in zip(leader, other, strict=True)], w, d) for d in range(6)]
        for other in others
    ]
    assert flip_points(leader, others, w) == expected


def test_all_weight_on_one_dimension_gives_the_plain_flip_points():
    leader, other = (90.0, 10.0, 50.0, 50.0, 20.0, 0.0), (10.0, 90.0, 50.0, 40.0, 30.0, 100.0)
    w = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    delta = [a - b for a, b in zip(leader, other, strict=True)]
    assert flip_points(leader, [other], w) == [[_flip_point(delta, w, d) for d in range(6)]]


def test_ranking_pauses_the_cyclic_collector_and_resumes_it():
    import gc

    from scoring.ranking import _no_cyclic_gc

    assert gc.isenabled()
    with _no_cyclic_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), _no_cyclic_gc():
        raise RuntimeError("scoring failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with _no_cyclic_gc():
            pass
        # Left as the caller had it: disabled.
        assert not gc.isenabled()
    finally:
        gc.enable()
