"""The vectorised robustness analysis gives exactly what a straightforward implementation gives.

The references below are the definitions written as plain Python loops (one candidate, one
dimension, one draw at a time). Random inputs include exact ties, duplicate score rows,
weights on a single dimension, zero and tiny weights, and spreads of 0 and 100 %.
Results are compared through repr() so that even the sign of a zero has to match.
"""

from __future__ import annotations

import itertools
import pickle
import random
import threading
from dataclasses import FrozenInstanceError, asdict, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.robustness import (
    FlipThreshold,
    _contenders,
    _round4,
    _uniform_numbers,
    rank_stability,
    robustness,
    weight_flip_thresholds,
)
from scoring.types import DIMENSIONS, CandidateResult, DimensionScore
from scoring.weights import normalise_weights

# --- references ------------------------------------------------------------------------------


def _total(w, row):
    return sum(a * b for a, b in zip(w, row, strict=True))


def _reference_flip_point(delta, w, d):
    others = [k for k in range(len(w)) if k != d]
    if w[d] < 1.0 - 1e-12:
        rest = sum(w[k] * delta[k] for k in others) / (1.0 - w[d])
    else:
        rest = sum(delta[k] for k in others) / len(others)
    if abs(delta[d] - rest) < 1e-12:
        return None
    t = rest / (rest - delta[d])
    if -1e-12 <= t <= 1.0 + 1e-12:
        return min(1.0, max(0.0, t))
    return None


def _tie(result):
    """The ranking's tie-break: fewer refuted claims, more verified claims, lower id."""
    return (result.refuted_claims, -result.verified_claims, result.candidate_id)


def reference_flips(results, weights):
    """Leader: the highest total rounded to 4 decimals, ties by _tie; the others in the same
    order (rounded total, highest first, then _tie); for each, each dimension's flip point
    and its rounding."""
    qualified = [r for r in results if not r.disqualified]
    if len(qualified) < 2:
        return []
    normalised = normalise_weights(weights)
    w = [normalised[d] for d in DIMENSIONS]
    rows = {r.candidate_id: [r.scores[d] for d in DIMENSIONS] for r in qualified}
    ties = {r.candidate_id: _tie(r) for r in qualified}
    order = sorted(rows, key=lambda i: (-round(_total(w, rows[i]), 4), ties[i]))
    leader, others = order[0], order[1:]
    flips = []
    for other in others:
        delta = [a - b for a, b in zip(rows[leader], rows[other], strict=True)]
        for d, dimension in enumerate(DIMENSIONS):
            t = _reference_flip_point(delta, w, d)
            flips.append(
                {
                    "leader_id": leader,
                    "other_id": other,
                    "dimension": dimension,
                    "weight_pct": round(w[d] * 100, 4),
                    "change_pp": None if t is None else round((t - w[d]) * 100, 4),
                    "new_weight_pct": None if t is None else round(t * 100, 4),
                }
            )
    return flips


def reference_first_shares(results, weights, draws, perturbation_pct, seed):
    """One draw at a time: each weight times (1 + u), u uniform in ±spread (a draw summing to
    <= 0 is the base weights), renormalised; the highest total ranks first, ties by _tie."""
    normalised = normalise_weights(weights)
    base = [normalised[d] for d in DIMENSIONS]
    spread = perturbation_pct / 100.0
    shares = {r.candidate_id: 0 for r in sorted(results, key=lambda r: r.candidate_id)}
    qualified = sorted((r for r in results if not r.disqualified), key=_tie)
    rng = random.Random(seed)  # noqa: S311 - the simulation's own generator
    for _ in range(draws):
        drawn = [x * (1.0 + rng.uniform(-spread, spread)) for x in base]
        if sum(drawn) <= 0:
            drawn = base
        best, best_total = None, None
        for result in qualified:
            total = _total(drawn, [result.scores[d] for d in DIMENSIONS])
            if best_total is None or total > best_total:
                best, best_total = result.candidate_id, total
        if best is not None:
            shares[best] += 1
    return {k: v / draws for k, v in shares.items()}


# --- inputs ----------------------------------------------------------------------------------


def _result(candidate_id, scores, disqualified=False, refuted=0, verified=0):
    dimensions = tuple(DimensionScore(d, s, ()) for d, s in zip(DIMENSIONS, scores, strict=True))
    return CandidateResult(
        candidate_id, f"c{candidate_id}", dimensions, 0.0, disqualified, (), None, refuted, verified
    )


_scores = st.one_of(
    st.sampled_from((0.0, 10.0, 50.0, 55.0, 100.0, 33.33, 66.67)),
    st.floats(min_value=0, max_value=100, allow_nan=False),
)
_rows = st.tuples(*[_scores] * 6)


@st.composite
def result_lists(draw, min_size=2, max_size=25):
    rows = draw(st.lists(_rows, min_size=min_size, max_size=max_size))
    # Duplicate rows (exact ties in every weighting) under other ids.
    copies = draw(st.lists(st.sampled_from(rows), max_size=4))
    rows = rows + copies
    ids = draw(st.permutations(range(1, len(rows) + 1)))
    disqualified = draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    # Refuted and verified claim counts decide between equal totals (few values: many ties).
    claims = draw(
        st.lists(
            st.tuples(st.integers(0, 2), st.integers(0, 2)),
            min_size=len(rows),
            max_size=len(rows),
        )
    )
    return [
        _result(i, row, out and k % 3 == 0, *claim)
        for k, (i, row, out, claim) in enumerate(zip(ids, rows, disqualified, claims, strict=True))
    ]


_weights = st.one_of(
    st.fixed_dictionaries(
        {d: st.sampled_from((0, 0.05, 0.1, 0.2, 0.3, 1, 3, 1e-13)) for d in DIMENSIONS}
    ),
    st.fixed_dictionaries({d: st.floats(min_value=0, max_value=10) for d in DIMENSIONS}),
    st.sampled_from(DIMENSIONS).map(lambda d: {d: 1}),
    st.sampled_from(DIMENSIONS).map(lambda d: {d: 1, "cost": 1e-13}),
).filter(lambda w: sum(w.values()) > 0)


def _dicts(flips):
    return [f.as_dict() for f in flips]


# --- flip thresholds -------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(results=result_lists(), weights=_weights)
def test_flip_thresholds_are_the_reference_flip_thresholds(results, weights):
    assert repr(_dicts(weight_flip_thresholds(results, weights))) == repr(
        reference_flips(results, weights)
    )


def test_a_difference_in_one_dimension_flips_at_a_weight_of_plus_zero():
    # The other candidate is as good everywhere but stability: stability at 0 % ties them.
    leader = _result(1, (80.0, 50.0, 50.0, 50.0, 50.0, 50.0))
    other = _result(2, (60.0, 50.0, 50.0, 50.0, 50.0, 50.0))
    for weights in ({"stability": 1, "network": 1}, {"stability": 0, "network": 1}):
        stability = weight_flip_thresholds([leader, other], weights)[0]
        assert stability.dimension == "stability"
        assert repr(stability.new_weight_pct) == "0.0"
        assert repr(stability.as_dict()) == repr(reference_flips([leader, other], weights)[0])
    assert repr(stability.change_pp) == "0.0"


def test_equal_totals_list_the_lower_id_first_and_the_leader_is_the_rounded_best():
    # 50.00001 and 50.00004 round alike: the lower id leads (no claims either way); the rest
    # in ranking order, by rounded total.
    rows = {
        7: (50.00004,) * 6,
        3: (50.00001,) * 6,
        5: (40.0,) * 6,
        2: (40.0,) * 6,
        9: (45.0,) * 6,
    }
    results = [_result(i, row) for i, row in rows.items()]
    flips = weight_flip_thresholds(results, dict.fromkeys(DIMENSIONS, 1))
    assert {f.leader_id for f in flips} == {3}
    assert list(dict.fromkeys(f.other_id for f in flips)) == [7, 9, 2, 5]
    assert repr(_dicts(flips)) == repr(reference_flips(results, dict.fromkeys(DIMENSIONS, 1)))


def test_dimensions_in_another_order_are_read_by_name():
    rows = [(90.0, 50.0, 50.0, 50.0, 50.0, 50.0), (50.0, 80.0, 40.0, 45.0, 45.0, 45.0)]
    ordered = [_result(i, row) for i, row in enumerate(rows, start=1)]
    shuffled = [
        CandidateResult(
            r.candidate_id, r.label, tuple(reversed(r.dimensions)), 0.0, False, (), None
        )
        for r in ordered
    ]
    weights = {"stability": 3, "network": 2, "cost": 1}
    assert weight_flip_thresholds(shuffled, weights) == weight_flip_thresholds(ordered, weights)
    assert repr(_dicts(weight_flip_thresholds(shuffled, weights))) == repr(
        reference_flips(ordered, weights)
    )
    assert robustness(shuffled, weights, draws=50, seed=4) == robustness(
        ordered, weights, draws=50, seed=4
    )
    missing = CandidateResult(3, "c3", ordered[0].dimensions[:5], 0.0, False, (), None)
    with pytest.raises(KeyError):
        weight_flip_thresholds([*ordered, missing], weights)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.floats(min_value=-100, max_value=100, allow_nan=False),
            # Decimal halves (…5 in the fifth decimal) and their float neighbours.
            st.integers(min_value=-2_000_000, max_value=2_000_000).map(lambda n: (n + 0.5) / 1e4),
            st.integers(min_value=-2_000_000, max_value=2_000_000).map(
                lambda n: float(np.nextafter((n + 0.5) / 1e4, 0.0))
            ),
        ),
        min_size=1,
        max_size=50,
    )
)
def test_vectorised_rounding_is_pythons_rounding(values):
    rounded = _round4(np.array(values, dtype=np.float64)).tolist()
    assert repr(rounded) == repr([round(v, 4) for v in values])


def test_flip_thresholds_stay_frozen_dataclasses():
    flip = FlipThreshold(1, 2, "cost", 20.0, -5.5, 14.5)
    assert flip == FlipThreshold(1, 2, "cost", 20.0, -5.5, 14.5)
    assert hash(flip) == hash(FlipThreshold(1, 2, "cost", 20.0, -5.5, 14.5))
    assert replace(flip, change_pp=None).change_pp is None
    assert asdict(flip) == flip.as_dict()
    assert pickle.loads(pickle.dumps(flip)) == flip  # noqa: S301 - pickled just above
    with pytest.raises(FrozenInstanceError):
        flip.change_pp = 1.0  # type: ignore[misc]
    assert repr(flip) == (
        "FlipThreshold(leader_id=1, other_id=2, dimension='cost', weight_pct=20.0, "
        "change_pp=-5.5, new_weight_pct=14.5)"
    )


# --- rank stability --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    results=result_lists(min_size=1, max_size=20),
    weights=_weights,
    draws=st.integers(min_value=1, max_value=150),
    perturbation_pct=st.sampled_from((0, 1, 20, 60, 100)),
    seed=st.integers(min_value=-(2**40), max_value=2**64),
)
def test_rank_stability_is_the_reference_draw_by_draw(
    results, weights, draws, perturbation_pct, seed
):
    found = rank_stability(results, weights, draws, perturbation_pct, seed)
    expected = reference_first_shares(results, weights, draws, perturbation_pct, seed)
    assert repr(dict(found.first_share)) == repr(expected)
    assert list(found.first_share) == list(expected)


@settings(max_examples=60, deadline=None)
@given(results=result_lists(min_size=1, max_size=15), weights=_weights)
def test_robustness_combines_the_references(results, weights):
    report = robustness(results, weights, draws=40, perturbation_pct=30, seed=11)
    assert repr(_dicts(report.flips)) == repr(reference_flips(results, weights))
    assert repr(dict(report.stability.first_share)) == repr(
        reference_first_shares(results, weights, 40, 30, 11)
    )


CONTEST = [
    (90.0, 90.0, 90.0, 90.0, 90.0, 90.0),  # first under the base weights but for 4
    (10.0, 10.0, 10.0, 10.0, 10.0, 10.0),  # behind everyone in every dimension
    (90.0, 90.0, 90.0, 90.0, 90.0, 90.0),  # the twin of 1: ties, never beaten
    (100.0, 100.0, 100.0, 100.0, 100.0, 45.0),  # ahead of 1 under the base weights
    (100.0, 85.0, 85.0, 85.0, 85.0, 85.0),  # ahead of 1 only when stability weighs far more
]


@pytest.mark.parametrize(
    ("perturbation_pct", "expected"),
    [
        (0, [3]),
        (20, [0, 2, 3]),
        # 5 ties 1 at a corner of the box: -10 x 1/6 (1 + s) + 25 x 1/6 (1 - s) = 0 at s = 3/7.
        (300 / 7, [0, 2, 3, 4]),
        (60, [0, 2, 3, 4]),
        (100, [0, 1, 2, 3, 4]),
    ],
)
def test_only_candidates_beaten_in_every_draw_are_left_out(perturbation_pct, expected):
    base = [1 / 6] * 6
    found = _contenders(np.array(CONTEST), base, perturbation_pct / 100)
    assert found.tolist() == expected
    results = [_result(i, row) for i, row in enumerate(CONTEST, start=1)]
    weights = dict.fromkeys(DIMENSIONS, 1)
    shares = rank_stability(results, weights, 400, perturbation_pct, 5).first_share
    assert dict(shares) == reference_first_shares(results, weights, 400, perturbation_pct, 5)
    assert all(shares[i + 1] == 0 for i in range(len(CONTEST)) if i not in expected)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(_rows, min_size=2, max_size=12),
    weights=_weights,
    spread=st.sampled_from((0.0, 0.05, 0.2, 0.5, 0.9)),
)
def test_a_candidate_left_out_loses_at_every_corner_of_the_box(rows, weights, spread):
    # Totals are linear in the weights: losing at the 64 corners is losing everywhere.
    normalised = normalise_weights(weights)
    base = [normalised[d] for d in DIMENSIONS]
    corners = [
        [b * (1.0 + s * spread) for b, s in zip(base, signs, strict=True)]
        for signs in itertools.product((-1.0, 1.0), repeat=6)
    ]
    kept = set(_contenders(np.array(rows), base, spread).tolist())
    for j in set(range(len(rows))) - kept:
        assert any(
            all(_total(w, rows[i]) > _total(w, rows[j]) for w in corners) for i in range(len(rows))
        ), j


def test_a_hair_behind_in_every_draw_is_still_a_contender():
    # 1e-12 behind: within the rounding margin, so it is evaluated (and loses) draw by draw.
    results = [_result(1, (50.0,) * 6), _result(2, (50.0 - 1e-12,) * 6)]
    assert _contenders(np.array([(50.0,) * 6, (50.0 - 1e-12,) * 6]), [1 / 6] * 6, 0.2).tolist() == [
        0,
        1,
    ]
    found = rank_stability(results, dict.fromkeys(DIMENSIONS, 1), 100, 20, 3).first_share
    assert dict(found) == {1: 1.0, 2: 0.0}


@pytest.mark.parametrize("seed", [0, 1, 7, -5, 2**32, 12345678901234567890])
def test_numpys_twister_gives_pythons_random_numbers(seed):
    rng = random.Random(seed)  # noqa: S311 - the simulation's own generator
    expected = [rng.random() for _ in range(2001)]
    assert _uniform_numbers(seed, 2001).tolist() == expected


def test_threads_get_their_own_random_numbers():
    seeds = list(range(16))
    found: dict[int, list[float]] = {}

    def work(seed):
        for _ in range(20):
            found[seed] = _uniform_numbers(seed, 600).tolist()

    threads = [threading.Thread(target=work, args=(seed,)) for seed in seeds]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for seed in seeds:
        rng = random.Random(seed)  # noqa: S311 - the simulation's own generator
        assert found[seed] == [rng.random() for _ in range(600)]
