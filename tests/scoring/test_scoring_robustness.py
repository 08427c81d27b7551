"""Decision robustness: single-weight flip thresholds and seeded rank stability."""

from __future__ import annotations

import pytest

from scoring.robustness import rank_stability, robustness, weight_flip_thresholds
from scoring.types import DIMENSIONS, CandidateResult, DimensionScore, ScoringInputError

EQUAL = dict.fromkeys(DIMENSIONS, 1)


def _result(candidate_id: int, scores: tuple[float, ...], disqualified: bool = False):
    dimensions = tuple(DimensionScore(d, s, ()) for d, s in zip(DIMENSIONS, scores, strict=True))
    total = round(sum(scores) / len(scores), 4)
    return CandidateResult(
        candidate_id, f"c{candidate_id}", dimensions, total, disqualified, (), None
    )


A = _result(1, (90, 50, 50, 50, 50, 50))  # total 56.667
B = _result(2, (50, 80, 40, 45, 45, 45))  # total 50.833


def test_flip_thresholds_by_hand():
    flips = {f.dimension: f for f in weight_flip_thresholds([B, A], EQUAL)}
    assert {f.leader_id for f in flips.values()} == {1}
    assert {f.other_id for f in flips.values()} == {2}
    # Stability down from 16.67 % to 1/41 = 2.44 %: the others share 40/41, and both totals
    # become 2090/41.
    assert flips["stability"].weight_pct == 16.6667
    assert flips["stability"].change_pp == -14.2276
    assert flips["stability"].new_weight_pct == 2.439
    # Network up to 13/43 = 30.23 %: both totals become 2390/43.
    assert flips["network"].change_pp == 13.5659
    assert flips["network"].new_weight_pct == 30.2326
    # Storage, security, cost and support favour the leader: no weight in 0-100 % swaps them.
    for dimension in ("storage", "security", "cost", "support"):
        assert flips[dimension].change_pp is None
        assert flips[dimension].new_weight_pct is None


def test_flip_thresholds_skip_disqualified_and_need_two_candidates():
    out = _result(3, (100, 100, 100, 100, 100, 100), disqualified=True)
    flips = weight_flip_thresholds([A, B, out], EQUAL)
    assert {f.other_id for f in flips} == {2}
    assert weight_flip_thresholds([A, out], EQUAL) == ()


def test_all_weight_on_one_dimension_spreads_evenly_when_lowered():
    weights = {"stability": 1}
    flips = {f.dimension: f for f in weight_flip_thresholds([A, B], weights)}
    # difference(t) = 40 t + (1 - t) x mean(-30, 10, 5, 5, 5) = 40 t - (1 - t) = 0 at t = 1/41
    assert flips["stability"].new_weight_pct == 2.439
    # network from 0: difference(t) = -30 t + 40 (1 - t) = 0 at t = 4/7
    assert flips["network"].change_pp == 57.1429
    assert flips["storage"].change_pp is None


def test_rank_stability_is_seeded_and_shares_sum_to_one():
    c = _result(3, (60, 60, 60, 45, 45, 45))  # total 52.5
    first = rank_stability([A, B, c], EQUAL, draws=500, perturbation_pct=60, seed=7)
    again = rank_stability([A, B, c], EQUAL, draws=500, perturbation_pct=60, seed=7)
    assert first == again
    assert sum(first.first_share.values()) == pytest.approx(1.0)
    assert first.first_share[1] > first.first_share[3]
    assert list(first.first_share) == [1, 2, 3]


def test_without_perturbation_the_leader_always_ranks_first():
    shares = rank_stability([A, B], EQUAL, draws=50, perturbation_pct=0, seed=1).first_share
    assert dict(shares) == {1: 1.0, 2: 0.0}


def test_ties_go_to_the_lower_candidate_id():
    twin = _result(9, (90, 50, 50, 50, 50, 50))
    shares = rank_stability([twin, A], EQUAL, draws=20, perturbation_pct=10, seed=3).first_share
    assert dict(shares) == {1: 1.0, 9: 0.0}


def test_disqualified_candidates_never_rank_first():
    out = _result(3, (100, 100, 100, 100, 100, 100), disqualified=True)
    shares = rank_stability([A, out], EQUAL, draws=20, seed=0).first_share
    assert dict(shares) == {1: 1.0, 3: 0.0}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"draws": 0}, "draws must be a positive integer"),
        ({"perturbation_pct": 150}, "perturbation_pct must be in 0..100"),
        ({"seed": "x"}, "seed must be an integer"),
    ],
)
def test_malformed_stability_arguments(kwargs, message):
    with pytest.raises(ScoringInputError, match=message):
        rank_stability([A, B], EQUAL, **kwargs)


def test_robustness_combines_both():
    report = robustness([A, B], EQUAL, draws=100, seed=2)
    assert report.leader_id == 1
    assert len(report.flips) == 6
    assert report.as_dict()["stability"]["first_share"]["1"] >= 0.5
