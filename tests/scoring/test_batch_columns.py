"""Columns computed once per distinct key give what each candidate's own computation gives.

A ranking computes many per-candidate values once per distinct key (scoring.batching's
once_per_key): the derived facts of the dimension rubrics (facts.by_key) and the billing
terms of the TCO's float figures (tco._float_inputs). A key that missed something the
computation reads would hand one candidate another's value, and only where two candidates
share the rest. So the pools here are crossovers of a few random parents: every child takes
each field from one parent, and the children share most of their fields while differing in
a few. Every fact column must equal the fact fetched candidate by candidate, and every float
TCO figure the exact TCO's.
"""

from __future__ import annotations

import contextlib
from dataclasses import fields, replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.batching import once_per_key
from scoring.dimensions.batch import Batch
from scoring.dimensions.facts import FACTS, FactContext
from scoring.ranking import rank
from scoring.rubric import load_rubric
from scoring.tco import (
    PendingTco,
    TcoPlan,
    budget_ratio,
    compute_tco,
    effective_price_ratio,
    pending_tcos,
)
from scoring.types import (
    CandidateInput,
    MeasuredFacts,
    OfferingFacts,
    Price,
    ScoringInputError,
    VendorFacts,
)

try:
    from scoring_factories import candidates, evaluations
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidates, evaluations

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
            over = (
                budget is not None
                and tco.currency == spec.budget_currency
                and tco.recommended_total > budget
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
