"""Equal totals are ordered by what the evidence said of each candidate's claims: fewer
refuted (contradicted) checklist answers first, then more verified ones, then the lower
candidate_id, whatever order the candidates come in. The ranking, the robustness analysis
(leader, flips, rank stability) and the results' own counts agree."""

from __future__ import annotations

import dataclasses
import itertools
import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.ranking import order_key, rank, score_candidate, sort_results, tie_key
from scoring.robustness import rank_stability, robustness, weight_flip_thresholds
from scoring.types import CHECKLIST_KEYS, DIMENSIONS, CandidateResult, DimensionScore

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering

EVALUATION = evaluation()
# No fabric, no NVLink: the checklist items about them are claims about nothing scored.
BASE = candidate(
    1,
    answers={},
    offering=offering(fabric="none", nvlink_topology="none", fabric_rate_gbit_s=0, nics_per_node=0),
)


def _unscored_items() -> list[str]:
    """The checklist items whose status changes nothing in BASE's result (the facts they
    would be claims about are not read for it): answers there leave the total alone."""
    plain = score_candidate(BASE, EVALUATION)
    free = []
    for item in CHECKLIST_KEYS:
        for status in ("contradicted", "verified", "claimed"):
            other = score_candidate(dataclasses.replace(BASE, answers={item: status}), EVALUATION)
            if (other.total, other.scores, other.knockouts) != (
                plain.total,
                plain.scores,
                plain.knockouts,
            ):
                break
        else:
            free.append(item)
    return free


FREE = _unscored_items()


def test_the_fixture_has_items_that_leave_the_total_alone():
    # Without two such items the tests below could not build equal totals.
    assert len(FREE) >= 2


_statuses = st.sampled_from(("contradicted", "verified", "claimed", "unanswered"))


@st.composite
def tied_candidates(draw):
    count = draw(st.integers(min_value=2, max_value=8))
    ids = draw(st.lists(st.integers(1, 10_000), min_size=count, max_size=count, unique=True))
    made = []
    for candidate_id in ids:
        answers = {item: draw(_statuses) for item in FREE}
        made.append(dataclasses.replace(BASE, candidate_id=candidate_id, answers=answers))
    return made


def _expected(candidates):
    def key(c):
        statuses = list(c.answers.values())
        return (statuses.count("contradicted"), -statuses.count("verified"), c.candidate_id)

    return [c.candidate_id for c in sorted(candidates, key=key)]


@settings(max_examples=40, deadline=None)
@given(candidates=tied_candidates(), data=st.data())
def test_equal_totals_order_by_refuted_then_verified_claims_in_any_input_order(candidates, data):
    shuffled = data.draw(st.permutations(candidates))
    ranking = rank(shuffled, EVALUATION)
    assert len({r.total for r in ranking.results}) == 1
    assert [r.candidate_id for r in ranking.results] == _expected(candidates)
    by_id = {c.candidate_id: c for c in candidates}
    for result in ranking.results:
        statuses = list(by_id[result.candidate_id].answers.values())
        assert result.refuted_claims == statuses.count("contradicted")
        assert result.verified_claims == statuses.count("verified")
    # The same order through the per-candidate engine, and the same results.
    assert rank(shuffled, EVALUATION, explain=True).results == ranking.results
    if not ranking.results[0].disqualified:
        weights = dict(ranking.weights)
        report = robustness(list(reversed(ranking.results)), weights, draws=30, seed=2)
        assert report.leader_id == ranking.results[0].candidate_id
        others = list(dict.fromkeys(f.other_id for f in report.flips))
        assert others == [r.candidate_id for r in ranking.results[1:]]
        # Equal scores tie in every draw: the ranking's first wins every one.
        assert report.stability.first_share[ranking.results[0].candidate_id] == 1.0


def _result(candidate_id, total, disqualified, refuted, verified, row=None):
    row = row or (total,) * len(DIMENSIONS)
    dims = tuple(DimensionScore(d, s, ()) for d, s in zip(DIMENSIONS, row, strict=True))
    return CandidateResult(
        candidate_id, f"c{candidate_id}", dims, total, disqualified, (), None, refuted, verified
    )


@st.composite
def result_lists(draw):
    count = draw(st.integers(min_value=0, max_value=30))
    ids = draw(st.lists(st.integers(1, 500), min_size=count, max_size=count, unique=True))
    return [
        _result(
            i,
            draw(st.sampled_from((0.0, 40.0, 55.5, 55.5001, 90.0))),
            draw(st.booleans()),
            draw(st.integers(0, 3)),
            draw(st.integers(0, 3)),
        )
        for i in ids
    ]


@settings(max_examples=200, deadline=None)
@given(results=result_lists(), data=st.data())
def test_sorting_is_the_order_key_whatever_the_input_order(results, data):
    shuffled = list(data.draw(st.permutations(results)))
    sort_results(shuffled)
    assert shuffled == sorted(results, key=order_key)
    for before, after in itertools.pairwise(shuffled):
        if (before.disqualified, before.total) == (after.disqualified, after.total):
            assert tie_key(before) < tie_key(after)


@settings(max_examples=100, deadline=None)
@given(results=result_lists(), data=st.data())
def test_robustness_follows_the_same_tie_break(results, data):
    shuffled = list(data.draw(st.permutations(results)))
    qualified = sorted((r for r in results if not r.disqualified), key=order_key)
    weights = dict.fromkeys(DIMENSIONS, 1)
    report = robustness(shuffled, weights, draws=20, seed=5)
    if not qualified:
        assert report.leader_id is None
        return
    assert report.leader_id == qualified[0].candidate_id
    assert [f.other_id for f in report.flips[:: len(DIMENSIONS)]] == [
        r.candidate_id for r in qualified[1:]
    ]
    assert weight_flip_thresholds(shuffled, weights) == report.flips
    # Every row is flat, so totals tie exactly in a draw only between equal rows: the first
    # by the order key among the best wins every draw.
    shares = rank_stability(shuffled, weights, draws=20, seed=5).first_share
    assert shares[qualified[0].candidate_id] == 1.0


def test_counts_are_counted_once_and_kept_by_copies_and_pickles():
    answers = {FREE[0]: "contradicted", FREE[1]: "verified"}
    result = score_candidate(dataclasses.replace(BASE, answers=answers), EVALUATION)
    assert (result.refuted_claims, result.verified_claims) == (1, 1)
    again = pickle.loads(pickle.dumps(result))  # noqa: S301 - pickled just above
    assert again == result
    assert (again.refuted_claims, again.verified_claims) == (1, 1)
    assert dataclasses.replace(result, total=1.0).refuted_claims == 1
    plain = _result(3, 50.0, False, 0, 2)
    assert (plain.refuted_claims, plain.verified_claims) == (0, 2)
