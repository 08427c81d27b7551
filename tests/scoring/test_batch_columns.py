"""Columns computed once per distinct key give what each candidate's own computation gives.

A ranking computes many per-candidate values once per distinct key (scoring.batching's
once_per_key): the derived facts of the dimension rubrics (facts.by_key) and the billing
terms of the TCO's float figures (tco.batch._float_inputs). A key that missed something the
computation reads would hand one candidate another's value, and only where two candidates
share the rest. So the pools here are crossovers of a few random parents: every child takes
each field from one parent, and the children share most of their fields while differing in
a few. Every fact column must equal the fact fetched candidate by candidate, and every float
TCO figure the exact TCO's.
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import fields, replace
from decimal import Decimal
from types import MappingProxyType

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.batching import item_columns, once_per_key
from scoring.dimensions import DeferredDimensionScore, clear_memo
from scoring.dimensions.batch import Batch, factorise
from scoring.dimensions.facts import FACTS, FactContext
from scoring.poc import DCGM_DIAG, NCCL_MULTI_ALL_REDUCE, RUN_FAILED, PocShortfall
from scoring.ranking import KERNEL_MIN_CANDIDATES, rank, score_candidate
from scoring.rubric import load_rubric
from scoring.tco import (
    FLOAT_MIN_CANDIDATES,
    PendingTco,
    TcoPlan,
    budget_ratio,
    compute_tco,
    effective_price_ratio,
    pending_tcos,
)
from scoring.tco.batch import _float_column
from scoring.types import (
    CandidateInput,
    MeasuredFacts,
    OfferingFacts,
    Price,
    ScoringInputError,
    VendorFacts,
)

try:
    from scoring_factories import candidate as plain_candidate
    from scoring_factories import candidates, evaluations
    from scoring_factories import evaluation as plain_evaluation
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate as plain_candidate
    from .scoring_factories import candidates, evaluations
    from .scoring_factories import evaluation as plain_evaluation

RUBRICS = (load_rubric("1"), load_rubric("2"))

# Shapes the random parents rarely or never have, applied to some children.
_SHAPES = (
    {},
    {"delivery_form": "mig", "gpu_model": "NVIDIA A100-SXM4-80GB", "mig_profile": "3g.40gb"},
    {"min_commitment_days": 400, "early_termination_fee": Decimal(1000)},
    {"releasable_hourly": True},
    {"releasable_hourly": False},
    {"vendor_managed": True},
    {"provisioning_time_min": 30},
    {"currency": "USD"},
    # Spot the cheapest model: whether it may be recommended decides the figures.
    {
        "prices": (
            Price("hourly", Decimal("9.00")),
            Price("spot", Decimal("3.00")),
            Price("monthly", Decimal("90000.00")),
        )
    },
)


def _mix(kind, parents, rng):
    """A ``kind`` instance whose every field comes from one of ``parents`` (the first
    parent where a mix is not valid)."""
    values = {f.name: getattr(rng.choice(parents), f.name) for f in fields(kind) if f.init}
    try:
        return kind(**values)
    except (ScoringInputError, ValueError, TypeError):
        return parents[0]


@st.composite
def crossover_pools(draw, size=24):
    parents = [draw(candidates(candidate_id=index)) for index in range(1, 4)]
    rng = draw(st.randoms(use_true_random=False))
    pool = []
    for candidate_id in range(1, size + 1):
        shape = rng.choice(_SHAPES)
        offering = _mix(OfferingFacts, [p.offering for p in parents], rng)
        with contextlib.suppress(ScoringInputError):
            offering = replace(offering, **shape)
        answers = {}
        for parent in parents:
            for key, status in parent.answers.items():
                if rng.random() < 0.5 or key not in answers:
                    answers[key] = status
        pool.append(
            CandidateInput(
                candidate_id=candidate_id,
                label=f"c{candidate_id}",
                vendor=_mix(VendorFacts, [p.vendor for p in parents], rng),
                offering=offering,
                # One node or several: what makes a job synchronous (spot not allowed).
                node_count=rng.choice((1, 2, 4, rng.choice(parents).node_count)),
                answers=answers,
                measured=_mix(MeasuredFacts, [p.measured for p in parents], rng),
            )
        )
    return pool


@settings(max_examples=20, deadline=None)
@given(pool=crossover_pools(), spec=evaluations)
def test_every_fact_column_is_the_fact_fetched_per_candidate(pool, spec):
    for rubric in RUBRICS:
        tcos = [compute_tco(c, spec, rubric) if c.effective_prices() else None for c in pool]
        contexts = [FactContext(c, spec, rubric, tco) for c, tco in zip(pool, tcos, strict=True)]
        batch = Batch(contexts)
        for name, source in FACTS.items():
            expected = [source.fetch(ctx) for ctx in contexts]
            assert batch.raw(name) == expected, name
            # Equal values of another type would score the same but show otherwise.
            assert list(map(type, batch.raw(name))) == list(map(type, expected)), name


@settings(max_examples=60, deadline=None)
@given(pool=crossover_pools(), spec=evaluations, days=st.sampled_from((30, 60, 200, 400)))
def test_float_tco_figures_of_candidates_sharing_terms_are_their_exact_figures(pool, spec, days):
    # Durations on both sides of a month, a year and the spot window of long jobs.
    spec = replace(spec, duration_days=days, expected_idle_days=min(spec.expected_idle_days, days))
    for rubric in RUBRICS:
        plan = TcoPlan(spec)
        found = pending_tcos(pool, spec, rubric, floats=True)
        for candidate, pending in zip(pool, found, strict=True):
            if not candidate.effective_prices():
                assert pending is None
                continue
            tco = compute_tco(candidate, spec, rubric, plan)
            assert isinstance(pending, PendingTco)
            assert repr(pending.budget_ratio) == repr(budget_ratio(tco, spec))
            price_ratio = effective_price_ratio(tco, candidate.offering.gpu_model, rubric)
            assert repr(pending.effective_price_ratio) == repr(price_ratio)
            budget = spec.budget_total
            # A spot-only quote the job cannot run on has no usable price: it cannot meet a
            # budget either (PendingTco.over_budget).
            over = (
                budget is not None
                and tco.currency == spec.budget_currency
                and (tco.spot_refused or tco.recommended_total > budget)
            )
            assert pending.over_budget is over
            assert pending.resolve() == tco


def test_once_per_key_computes_each_key_once_from_its_first_item():
    calls = []

    def compute(item):
        calls.append(item)
        return item * 10

    assert once_per_key(["a", "b", "a", "c", "b"], [1, 2, 3, 4, 5], compute) == [
        10,
        20,
        10,
        40,
        20,
    ]
    assert sorted(calls) == [1, 2, 4]
    assert once_per_key([], [], compute) == []


@settings(max_examples=20, deadline=None)
@given(pool=crossover_pools(size=32), spec=evaluations)
def test_the_kernel_ranks_candidates_sharing_values_as_the_per_candidate_engine(pool, spec):
    """Repeated values are scored once per distinct value (Batch.coded) by the kernel."""
    for rubric in RUBRICS:
        eager = rank(pool, spec, rubric, explain=True)
        kernel = rank(pool, spec, rubric, explain=False)
        assert kernel.as_dict() == eager.as_dict()
        for old, new in zip(eager.results, kernel.results, strict=True):
            assert repr(new.total) == repr(old.total)
            assert [repr(d.score) for d in new.dimensions] == [
                repr(d.score) for d in old.dimensions
            ]


# Regions and residencies: the data-residency must-have is judged once per key too.
_REGIONS = (
    {},
    {"region_country": "CN", "region_province": "Beijing"},
    {"region_country": "SG"},
    {"region": "cn-north-1"},
)


def _with_regions(pool, seed):
    rng = random.Random(seed)  # noqa: S311 - test data
    placed = []
    for candidate in pool:
        with contextlib.suppress(ScoringInputError):
            offering = replace(candidate.offering, **rng.choice(_REGIONS))
            candidate = replace(candidate, offering=offering)
        placed.append(candidate)
    return placed


@settings(max_examples=8, deadline=None)
@given(
    pool=crossover_pools(size=KERNEL_MIN_CANDIDATES + 6),
    spec=evaluations,
    residency=st.sampled_from(("none", "mainland_china")),
    seed=st.integers(0, 1000),
)
def test_a_batch_ranking_equals_scoring_each_candidate_alone(pool, spec, residency, seed):
    """rank() of a batch large enough for every batch path (the numpy kernel, the float TCO
    figures, the knockouts judged once per key) gives each candidate exactly the result
    score_candidate() gives it alone (the per-candidate engine, the exact TCO)."""
    assert len(pool) >= max(KERNEL_MIN_CANDIDATES, FLOAT_MIN_CANDIDATES)
    pool = _with_regions(pool, seed)
    spec = replace(spec, data_residency=residency)
    for rubric in RUBRICS:
        clear_memo(rubric)
        ranking = rank(pool, spec, rubric)
        assert isinstance(ranking.results[0].dimensions[0], DeferredDimensionScore)
        for candidate in pool:
            clear_memo(rubric)
            alone = score_candidate(candidate, spec, rubric, dict(ranking.weights))
            result = ranking.result(candidate.candidate_id)
            assert repr(result.total) == repr(alone.total)
            assert [repr(d.score) for d in result.dimensions] == [
                repr(d.score) for d in alone.dimensions
            ]
            assert result.knockouts == alone.knockouts
            assert result.disqualified is alone.disqualified
            assert result.as_dict() == alone.as_dict()


def _factorised_by_hashing(values):
    """factorise() as hashing every value computes it (its general path)."""
    try:
        distinct = list(dict.fromkeys(values))
    except TypeError:
        return None
    if len(distinct) * 4 > len(values):
        return None
    position = {value: index for index, value in enumerate(distinct)}
    return [position[value] for value in values], distinct


_FLAG_LIKE = (True, False, None, 0, 1, 0.0, -0.0, 1.0, Decimal(0), Decimal(1), "", "x")


@settings(max_examples=300, deadline=None)
@given(
    values=st.one_of(
        st.lists(st.booleans(), max_size=40),
        st.lists(st.none(), max_size=40),
        st.lists(st.sampled_from((None, False, 0, 0.0, Decimal(0), "")), max_size=40),
        st.lists(st.sampled_from(_FLAG_LIKE), max_size=40),
    ),
    first=st.sampled_from((None, True, False, "keep")),
)
def test_factorise_shortcuts_give_what_hashing_every_value_gives(values, first):
    """A column of flags or of unknowns is factorised by counting rather than hashing: the
    same codes and the same first-seen representatives (the very objects)."""
    if values and first != "keep":
        values[0] = first
    expected = _factorised_by_hashing(values)
    found = factorise(values)
    if expected is None:
        assert found is None
        return
    codes, distinct = found
    assert codes.dtype == np.intp
    assert codes.tolist() == expected[0]
    assert len(distinct) == len(expected[1])
    assert all(a is b for a, b in zip(distinct, expected[1], strict=True))


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.sampled_from(
            (Decimal("-0"), Decimal(0), Decimal("0.00"), Decimal("-0.0"), Decimal(10), None)
        ),
        min_size=8,
        max_size=48,
    )
)
def test_float_columns_keep_each_zeros_sign_where_equal_zeros_share_an_entry(values):
    """floats() converts each distinct value once; -0 and 0 are equal (one entry) but
    float() keeps their signs apart, so a zero's candidates are converted one by one."""
    spec = plain_evaluation()
    rubric = RUBRICS[1]
    base = plain_candidate()
    pool = [
        replace(
            base,
            candidate_id=index,
            offering=replace(base.offering, cross_rack_latency_us=value),
        )
        for index, value in enumerate(values, start=1)
    ]
    batch = Batch([FactContext(c, spec, rubric, None) for c in pool])
    column = batch.floats("offering.cross_rack_latency_us")
    expected = [0.0 if value is None else float(value) for value in values]
    assert [repr(x) for x in column.tolist()] == [repr(x) for x in expected]


# Evidence and POC shapes beyond the pools' mixes (varied_pool).
_EVIDENCE_SHAPES = (
    {},
    {"node_count": 16},
    {"measured": {"busbw_fraction": 0.8}},
    {"measured": {"busbw_fraction": 0.8000000001}},
    {"measured": {"busbw_fraction": 0.7999999999}},
    {"measured": {"bare_metal_verdict": "virtualised", "bare_metal_confidence": 0.9}},
    {"measured": {"bare_metal_verdict": "bare_metal", "bare_metal_confidence": 0.95}},
    {"poc_shortfalls": (PocShortfall("multi", NCCL_MULTI_ALL_REDUCE, "missing"),)},
    {"poc_shortfalls": (PocShortfall("node-1", DCGM_DIAG, RUN_FAILED),)},
)


def _varied_pool():
    """Candidates that vary, each independently, what their TCO figures and must-haves read
    (prices, currency, node count, evidence, answers, POC shortfalls)."""
    axes = (
        ("node_count", (1, 2, 3, 16)),
        ("gpu_match", (None, "verified", "contradicted")),
        ("compliance", (None, "verified", "contradicted")),
        ("vendor", ({"mlps_level": 3, "xinchuang": True}, {"mlps_level": 2}, {"mlps_level": 3})),
        ("measured", tuple(shape.get("measured", {}) for shape in _EVIDENCE_SHAPES)),
        (
            "offering",
            (
                {},
                *_REGIONS[1:],
                *_SHAPES[1:],
                {"prices": ()},
                {"gpu_model": "NVIDIA H20 96GB", "gpu_memory_gib": 96},
            ),
        ),
        ("poc_shortfalls", ((), (), (), *(s["poc_shortfalls"] for s in _EVIDENCE_SHAPES[7:]))),
        ("busbw_fraction", (0.9, 0.8, 0.95, 0.7999999999, 0.8000000001, None, 1.0)),
    )
    rng = random.Random(3)  # noqa: S311 - test data
    pool = []
    for index in range(400):
        pick = {name: rng.choice(values) for name, values in axes}
        candidate = plain_candidate(candidate_id=index + 1, node_count=pick["node_count"])
        answers = {key: pick[key] for key in ("gpu_match", "compliance") if pick[key] is not None}
        offering = candidate.offering
        with contextlib.suppress(ScoringInputError):
            offering = replace(offering, **pick["offering"])
        measured = replace(
            candidate.measured, **{"busbw_fraction": pick["busbw_fraction"], **pick["measured"]}
        )
        pool.append(
            replace(
                candidate,
                answers=answers,
                vendor=replace(candidate.vendor, **pick["vendor"]),
                offering=offering,
                measured=measured,
                poc_shortfalls=pick["poc_shortfalls"],
            )
        )
    return pool


def test_a_rankings_tco_ratio_columns_are_the_exact_tcos_figures():
    """The budget and price ratio columns a ranking reads from its PendingTcos (None
    without a price) are the figures of each candidate's exact TCO."""
    pool = _varied_pool()[: KERNEL_MIN_CANDIDATES + 16]
    assert not all(c.offering.prices for c in pool)
    spec = plain_evaluation(required_total_gpus=8, budget_total=Decimal(400_000))
    for rubric in RUBRICS:
        for floats in (True, False):
            pending = pending_tcos(pool, spec, rubric, floats=floats)
            batch = Batch.of(pool, spec, rubric, pending)
            exact = [compute_tco(c, spec, rubric) if c.effective_prices() else None for c in pool]
            assert batch.raw("derived.budget_ratio") == [budget_ratio(t, spec) for t in exact]
            assert batch.raw("derived.effective_price_ratio") == [
                effective_price_ratio(t, c.offering.gpu_model, rubric)
                for c, t in zip(pool, exact, strict=True)
            ]


def test_a_ranking_with_unpriced_and_foreign_currency_candidates_scores_each_alone():
    """The TCO figures the cost rules read (budget and price ratios) come from a ranking's
    PendingTcos; a candidate without a price or priced in another currency has none or its
    own, exactly as scoring it alone gives."""
    pool = _varied_pool()[: KERNEL_MIN_CANDIDATES + 16]
    assert not all(c.offering.prices for c in pool)
    assert {c.offering.currency for c in pool} == {"CNY", "USD"}
    spec = plain_evaluation(required_total_gpus=8, budget_total=Decimal(400_000))
    for rubric in RUBRICS:
        clear_memo(rubric)
        ranking = rank(pool, spec, rubric)
        for candidate in pool:
            alone = score_candidate(candidate, spec, rubric, dict(ranking.weights))
            assert ranking.result(candidate.candidate_id).as_dict() == alone.as_dict()


@settings(max_examples=100, deadline=None)
@given(
    mappings=st.lists(
        st.dictionaries(st.sampled_from("abcd"), st.sampled_from(("x", "y", None))).map(
            lambda d: MappingProxyType(d)
        ),
        max_size=12,
    ),
    keys=st.lists(st.sampled_from("abcde"), min_size=2, max_size=4),
)
def test_item_columns_are_each_keys_get(mappings, keys):
    """item_columns reads all keys of a mapping at once and one missing key at a time."""
    keys = tuple(keys)
    assert item_columns(mappings, keys, "?") == [[m.get(k, "?") for m in mappings] for k in keys]


_TEXTS = (None, Decimal(0), Decimal("-0"), Decimal("0.00"), Decimal("7.68"), Decimal("7.680"))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.sampled_from(_TEXTS), min_size=1, max_size=80))
def test_a_decimal_column_is_coded_by_exact_text(values):
    """A column of Decimals (and None) is factorised by each value's text: every entry
    stands for values of the very same text (so for the same value and exponent), and the
    entries of unequal values are distinct."""
    if all(value is None for value in values):
        return
    found = factorise(values)
    if found is None:
        assert len({str(value) for value in values}) * 4 > len(values)
        return
    codes, distinct = found
    assert [str(distinct[code]) for code in codes.tolist()] == [str(v) for v in values]
    assert len({str(value) for value in distinct}) == len(distinct)


@settings(max_examples=200, deadline=None)
@given(
    values=st.one_of(
        st.lists(st.sampled_from(_TEXTS[1:]), min_size=64, max_size=100),
        st.lists(
            st.one_of(
                st.sampled_from(_TEXTS[1:]),
                st.decimals(allow_nan=False, allow_infinity=False, places=2),
            ),
            min_size=64,
            max_size=100,
        ),
    )
)
def test_float_columns_of_decimals_are_float_of_each(values):
    """_float_column converts repeated Decimals once per text: the very floats float() gives
    each, signed zeros included."""
    expected = np.array([float(value) for value in values])
    found = _float_column(values)
    assert found.tobytes() == expected.tobytes()
