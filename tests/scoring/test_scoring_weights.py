"""Direct weights and AHP: normalisation, principal eigenvector, Saaty's consistency ratio."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scoring.weights
from scoring.types import DIMENSIONS, AhpError, AhpInconsistentError, WeightsError
from scoring.weights import (
    AhpResult,
    ahp,
    ahp_weights,
    matrix_from_weights,
    normalise_weights,
)

# The classic three-criteria example: 1 vs 2 = 3, 1 vs 3 = 5, 2 vs 3 = 3.
CLASSIC = [[1, 3, 5], [1 / 3, 1, 3], [1 / 5, 1 / 3, 1]]


def test_normalise_weights_sums_to_one_in_dimension_order():
    weights = normalise_weights({"cost": Decimal(30), "network": 10, "stability": 60})
    assert list(weights) == list(DIMENSIONS)
    assert weights == {
        "stability": 0.6,
        "network": 0.1,
        "storage": 0.0,
        "security": 0.0,
        "cost": 0.3,
        "support": 0.0,
    }


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({"stability": -1, "cost": 2}, "weight of stability must not be negative"),
        ({"stability": 0, "cost": 0}, "at least one dimension weight must be positive"),
        ({}, "at least one dimension weight must be positive"),
        ({"price": 1}, "unknown dimension\\(s\\) 'price'"),
        ({"cost": "high"}, "weight of cost must be a number"),
        ({"cost": float("inf")}, "weight of cost must be finite"),
        ([1, 2], "weights must map dimensions to numbers"),
    ],
)
def test_malformed_weights_raise(weights, message):
    with pytest.raises(WeightsError, match=message):
        normalise_weights(weights)


@settings(max_examples=200)
@given(st.dictionaries(st.sampled_from(DIMENSIONS), st.floats(0, 1e6), min_size=1))
def test_normalised_weights_are_non_negative_and_sum_to_one(raw):
    if not any(v > 0 for v in raw.values()):
        with pytest.raises(WeightsError):
            normalise_weights(raw)
        return
    weights = normalise_weights(raw)
    assert math.isclose(sum(weights.values()), 1.0)
    assert all(w >= 0 for w in weights.values())


def test_the_entry_point_is_scoring_weights_ahp():
    assert scoring.weights.ahp is ahp
    assert isinstance(ahp(CLASSIC), AhpResult)


def test_classic_example_weights_and_consistency():
    result = ahp(CLASSIC)
    assert [round(w, 3) for w in result.weights] == [0.637, 0.258, 0.105]
    assert round(result.lambda_max, 3) == 3.039
    assert round(result.consistency_ratio, 3) == 0.033
    assert result.is_consistent


@settings(max_examples=100)
@given(st.lists(st.floats(0.01, 100), min_size=1, max_size=10))
def test_consistent_matrix_gives_back_its_generating_weights_with_ratio_zero(raw):
    total = sum(raw)
    expected = [w / total for w in raw]
    result = ahp(matrix_from_weights(raw))
    assert result.consistency_ratio == 0.0
    for got, want in zip(result.weights, expected, strict=True):
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(result.lambda_max, len(raw), rel_tol=1e-9)


def test_six_by_six_with_fractions_and_strings():
    matrix = [[Fraction(1)] * 6 for _ in range(6)]
    matrix[0][1], matrix[1][0] = "3", "1/3"
    result = ahp(matrix)
    assert len(result.weights) == 6
    assert math.isclose(sum(result.weights), 1.0)
    assert result.weights[0] > result.weights[2] > result.weights[1]


def test_inconsistent_matrix_names_the_worst_comparison():
    # stability ≫ network ≫ storage, yet storage ≫ stability: a cycle.
    matrix = [[1.0] * 6 for _ in range(6)]
    for i, j, value in ((0, 1, 5), (1, 2, 5), (2, 0, 5)):
        matrix[i][j], matrix[j][i] = value, 1 / value
    result = ahp(matrix)
    assert result.consistency_ratio > 0.10
    assert not result.is_consistent
    i, j, _ = result.most_inconsistent
    assert {i, j} <= {0, 1, 2}
    message = result.inconsistency_message()
    assert "is above 0.10; the most inconsistent comparison is" in message
    assert f"{DIMENSIONS[i]} vs {DIMENSIONS[j]}" in message
    with pytest.raises(AhpInconsistentError, match="most inconsistent comparison"):
        ahp_weights(matrix)


def test_ahp_weights_keyed_by_dimension():
    weights = ahp_weights(matrix_from_weights([6, 5, 4, 3, 2, 1]))
    assert list(weights) == list(DIMENSIONS)
    assert math.isclose(weights["stability"], 6 / 21)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        ([], "the comparison matrix is empty"),
        ("abc", "must be a list of rows"),
        ([[1, 2], [0.5]], "not square: row 2 has 1 entries, not 2"),
        ([[1, 2, 3], [0.5, 1, 2]], "not square: row 1 has 3 entries, not 2"),
        ([[1, 0], [0, 1]], r"entry \(1, 2\) must be positive"),
        ([[1, -2], [-0.5, 1]], r"entry \(1, 2\) must be positive"),
        ([[1, 2], [2, 1]], r"not reciprocal: entry \(1, 2\) = 2 but \(2, 1\) = 2, expected 0.5"),
        ([[2, 1], [1, 1]], r"diagonal entry \(1, 1\) must be 1"),
        ([[1, "x"], ["1/x", 1]], r"entry \(1, 2\) is not a number"),
        ([[1, None], [1, 1]], r"entry \(1, 2\) must be a number"),
        ([[1, float("nan")], [1, 1]], "positive and finite"),
        ([[1.0] * 16 for _ in range(16)], "at most 15 criteria"),
    ],
)
def test_malformed_matrix_raises_ahp_error(matrix, message):
    with pytest.raises(AhpError, match=message):
        ahp(matrix)


def test_typed_one_third_is_accepted_as_reciprocal():
    result = ahp([[1, 3], [0.33, 1]])
    assert result.consistency_ratio == 0.0
    assert math.isclose(result.weights[0], 0.75, rel_tol=1e-2)
