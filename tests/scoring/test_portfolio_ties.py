"""Plans of equal cost are decided as the ranking decides equal totals: the candidate with
fewer refuted claims, then more verified claims, then the lower candidate_id."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.portfolio import Candidate, Option, PortfolioProblem, Workload, solve


def _problem(candidates):
    workloads = (Workload("train", 8, 30, "pre_training"), Workload("serve", 8, 30))
    options = tuple(
        Option(w.workload_id, c.candidate_id, 80.0, (("monthly", Decimal(100_000)),))
        for w in workloads
        for c in candidates
    )
    return PortfolioProblem(workloads, tuple(candidates), options)


@pytest.mark.parametrize("method", ["exact", "heuristic"])
@settings(max_examples=60, deadline=None)
@given(
    claims=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=2, max_size=5),
    data=st.data(),
)
def test_equal_costs_go_to_fewer_refuted_then_more_verified_claims(method, claims, data):
    # Same vendor and region, same price: every plan costs the same.
    candidates = [
        Candidate(f"c{k}", "OneCo", "CN-Shanghai", refuted_claims=r, verified_claims=v)
        for k, (r, v) in enumerate(claims)
    ]
    shuffled = data.draw(st.permutations(candidates))
    result = solve(_problem(shuffled), method=method)
    best = min(candidates, key=lambda c: (c.refuted_claims, -c.verified_claims, c.candidate_id))
    assert {line.candidate_id for line in result.proposal.lines} == {best.candidate_id}
    assert {line.candidate_id for line in result.single.lines} == {best.candidate_id}


def test_without_claims_the_lower_id_decides_as_before():
    candidates = [Candidate("b", "OneCo", "CN-Shanghai"), Candidate("a", "OneCo", "CN-Shanghai")]
    result = solve(_problem(candidates))
    assert {line.candidate_id for line in result.proposal.lines} == {"a"}
    refuted = [Candidate("a", "OneCo", "CN-Shanghai", refuted_claims=1), candidates[0]]
    assert {line.candidate_id for line in solve(_problem(refuted)).proposal.lines} == {"b"}


@pytest.mark.parametrize("method", ["exact", "heuristic"])
def test_numeric_ids_tie_in_number_order_as_the_ranking_orders_them(method):
    """The portal passes primary keys as text: candidate 9 comes before candidate 10, as in
    the ranking, not after it as text order would have it."""
    candidates = [Candidate("10", "OneCo", "CN-Shanghai"), Candidate("9", "OneCo", "CN-Shanghai")]
    result = solve(_problem(candidates), method=method)
    assert {line.candidate_id for line in result.proposal.lines} == {"9"}
    assert {line.candidate_id for line in result.single.lines} == {"9"}
