"""Dimension weights: direct weights normalised to sum 1, or AHP from pairwise comparisons.

AHP (Saaty): the weights are the principal eigenvector of the comparison matrix, normalised
to sum 1; λmax its eigenvalue; CI = (λmax - n) / (n - 1); CR = CI / RI(n) with Saaty's random
index. Portals usually refuse CR > 0.10.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .types import DIMENSIONS, AhpError, AhpInconsistentError, WeightsError

# Saaty's random consistency index by matrix size (n = 1..10 from Saaty 1980; 11..15 from
# his extended table). RI is 0 for n <= 2 because such matrices are always consistent.
RANDOM_INDEX = (
    0.0,
    0.0,
    0.58,
    0.90,
    1.12,
    1.24,
    1.32,
    1.41,
    1.45,
    1.49,
    1.51,
    1.48,
    1.56,
    1.57,
    1.59,
)
MAX_CONSISTENCY_RATIO = 0.10
# a_ij x a_ji must be 1 within this tolerance: users type 0.33 for 1/3.
RECIPROCAL_TOLERANCE = 0.011


def _weight(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | Fraction):
        raise WeightsError(
            f"weight of {name} must be a number, got {value!r}",
            code="weights.not_number",
            params={"dimension": name, "value": value},
        )
    result = float(value)
    if not math.isfinite(result):
        raise WeightsError(
            f"weight of {name} must be finite, got {value!r}",
            code="weights.not_number",
            params={"dimension": name, "value": value},
        )
    if result < 0:
        raise WeightsError(
            f"weight of {name} must not be negative, got {value}",
            code="weights.negative",
            params={"dimension": name, "value": value},
        )
    return result


def normalise_weights(weights: Mapping[str, Any]) -> dict[str, float]:
    """Dimension -> weight as floats summing to 1, in DIMENSIONS order.

    Missing dimensions weigh 0. Raises WeightsError on an unknown dimension, a negative or
    non-numeric weight, or when every weight is zero.
    """
    if not isinstance(weights, Mapping):
        raise WeightsError(f"weights must map dimensions to numbers, got {type(weights).__name__}")
    unknown = [key for key in weights if key not in DIMENSIONS]
    if unknown:
        raise WeightsError(
            f"unknown dimension(s) {', '.join(map(repr, unknown))}; "
            f"the dimensions are {', '.join(DIMENSIONS)}",
            code="weights.unknown",
            params={"unknown": [str(key) for key in unknown]},
        )
    raw = {d: _weight(weights.get(d, 0), d) for d in DIMENSIONS}
    total = math.fsum(raw.values())
    if total <= 0:
        raise WeightsError(
            "at least one dimension weight must be positive", code="weights.none_positive"
        )
    return {d: v / total for d, v in raw.items()}


@dataclass(frozen=True)
class AhpResult:
    """AHP weights (in the order of the matrix rows, summing to 1) and their consistency.

    ``most_inconsistent`` is (i, j, ratio): the comparison a_ij (i < j, 0-based rows) that
    departs most from what the weights imply, ratio = a_ij x w_j / w_i (1 = consistent).
    """

    weights: tuple[float, ...]
    consistency_ratio: float
    consistency_index: float
    lambda_max: float
    most_inconsistent: tuple[int, int, float] | None
    matrix: tuple[tuple[float, ...], ...]

    @property
    def is_consistent(self) -> bool:
        return self.consistency_ratio <= MAX_CONSISTENCY_RATIO

    def as_mapping(self, names: Sequence[str] = DIMENSIONS) -> dict[str, float]:
        """The weights keyed by the row names."""
        if len(names) != len(self.weights):
            raise AhpError(f"{len(names)} names for {len(self.weights)} rows")
        return dict(zip(names, self.weights, strict=True))

    def inconsistency_message(self, names: Sequence[str] = DIMENSIONS) -> str:
        """A sentence naming the most inconsistent comparison, for the user to revise."""
        if self.most_inconsistent is None:
            return f"consistency ratio {self.consistency_ratio:.3f}"
        i, j, _ = self.most_inconsistent
        implied = self.weights[i] / self.weights[j]
        return (
            f"consistency ratio {self.consistency_ratio:.3f} is above "
            f"{MAX_CONSISTENCY_RATIO:.2f}; the most inconsistent comparison is "
            f"{names[i]} vs {names[j]}: entered {judgement_label(self.matrix[i][j])}, "
            f"the other comparisons imply about {judgement_label(implied)}"
        )


def judgement_label(value: float) -> str:
    """A pairwise judgement as the scale writes it: 3, 1/3, 2.5."""
    if value >= 1:
        return f"{value:.3g}"
    return f"1/{1 / value:.3g}"


def _entry(value: Any, i: int, j: int) -> float:
    if isinstance(value, str):
        try:
            value = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise AhpError(f"entry ({i + 1}, {j + 1}) is not a number: {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | Fraction):
        raise AhpError(f"entry ({i + 1}, {j + 1}) must be a number, got {value!r}")
    result = float(value)
    if not math.isfinite(result) or result <= 0:
        raise AhpError(f"entry ({i + 1}, {j + 1}) must be positive and finite, got {value!r}")
    return result


def _validated(matrix: Any) -> list[list[float]]:
    if isinstance(matrix, str | bytes) or not isinstance(matrix, Sequence):
        raise AhpError("the comparison matrix must be a list of rows")
    n = len(matrix)
    if n == 0:
        raise AhpError("the comparison matrix is empty")
    if n > len(RANDOM_INDEX):
        raise AhpError(f"at most {len(RANDOM_INDEX)} criteria are supported, got {n}")
    rows = []
    for i, row in enumerate(matrix):
        if isinstance(row, str | bytes) or not isinstance(row, Sequence) or len(row) != n:
            size = len(row) if isinstance(row, Sequence) else "no"
            raise AhpError(f"the matrix is not square: row {i + 1} has {size} entries, not {n}")
        rows.append([_entry(value, i, j) for j, value in enumerate(row)])
    for i in range(n):
        if abs(rows[i][i] - 1.0) > 1e-9:
            raise AhpError(f"diagonal entry ({i + 1}, {i + 1}) must be 1, got {rows[i][i]:g}")
        for j in range(i + 1, n):
            if abs(rows[i][j] * rows[j][i] - 1.0) > RECIPROCAL_TOLERANCE:
                raise AhpError(
                    f"the matrix is not reciprocal: entry ({i + 1}, {j + 1}) = {rows[i][j]:g} "
                    f"but ({j + 1}, {i + 1}) = {rows[j][i]:g}, expected {1 / rows[i][j]:.4g}"
                )
    return rows


def _principal_eigenvector(rows: list[list[float]]) -> list[float]:
    n = len(rows)
    # Squaring the matrix a few times first makes the power iteration converge in a handful
    # of steps: the ratio of the two largest eigenvalues is raised to the 8th power.
    power = rows
    for _ in range(3):
        power = [
            [sum(a * power[k][j] for k, a in enumerate(row)) for j in range(n)] for row in power
        ]
        scale = max(max(row) for row in power)
        power = [[value / scale for value in row] for row in power]
    vector = [1.0 / n] * n
    for _ in range(200):
        product = [sum(a * v for a, v in zip(row, vector, strict=True)) for row in power]
        total = sum(product)
        product = [value / total for value in product]
        if max(abs(a - b) for a, b in zip(product, vector, strict=True)) < 1e-15:
            return product
        vector = product
    return vector


def ahp(matrix: Sequence[Sequence[Any]]) -> AhpResult:
    """AHP weights from a positive reciprocal pairwise-comparison matrix.

    ``matrix[i][j]`` says how much more important criterion i is than j (Saaty's 1..9 scale;
    numbers or strings such as "1/3"). Raises AhpError when the matrix is not square, has a
    non-positive entry, a diagonal other than 1, or a_ij x a_ji departs from 1 by more than
    RECIPROCAL_TOLERANCE.
    """
    rows = _validated(matrix)
    n = len(rows)
    weights = _principal_eigenvector(rows)
    lambda_max = (
        sum(
            sum(a * w for a, w in zip(row, weights, strict=True)) / weights[i]
            for i, row in enumerate(rows)
        )
        / n
    )
    consistency_index = max(0.0, (lambda_max - n) / (n - 1)) if n > 2 else 0.0
    random_index = RANDOM_INDEX[n - 1]
    ratio = consistency_index / random_index if random_index > 0 else 0.0
    if ratio < 1e-12:
        ratio = 0.0
        consistency_index = 0.0
    worst = None
    worst_deviation = 1.0
    for i in range(n):
        for j in range(i + 1, n):
            implied = rows[i][j] * weights[j] / weights[i]
            deviation = max(implied, 1.0 / implied)
            if deviation > worst_deviation + 1e-12:
                worst, worst_deviation = (i, j, implied), deviation
    return AhpResult(
        weights=tuple(weights),
        consistency_ratio=ratio,
        consistency_index=consistency_index,
        lambda_max=lambda_max,
        most_inconsistent=worst,
        matrix=tuple(tuple(row) for row in rows),
    )


def ahp_weights(
    matrix: Sequence[Sequence[Any]],
    names: Sequence[str] = DIMENSIONS,
    max_ratio: float = MAX_CONSISTENCY_RATIO,
) -> dict[str, float]:
    """AHP weights keyed by ``names``; AhpInconsistentError (with a message naming the most
    inconsistent comparison) when the consistency ratio is above ``max_ratio``."""
    result = ahp(matrix)
    if len(names) != len(result.weights):
        raise AhpError(
            f"{len(names)} names for a {len(result.weights)}×{len(result.weights)} matrix"
        )
    if result.consistency_ratio > max_ratio:
        params: dict[str, Any] = {"ratio": result.consistency_ratio, "max_ratio": max_ratio}
        if result.most_inconsistent is not None:
            i, j, _ = result.most_inconsistent
            params |= {
                "a": names[i],
                "b": names[j],
                "entered": judgement_label(result.matrix[i][j]),
                "implied": judgement_label(result.weights[i] / result.weights[j]),
            }
        raise AhpInconsistentError(
            result.inconsistency_message(names), code="ahp.inconsistent", params=params
        )
    return result.as_mapping(names)


def matrix_from_weights(weights: Sequence[float]) -> list[list[float]]:
    """The perfectly consistent comparison matrix a_ij = w_i / w_j of positive weights."""
    if not weights or any(w <= 0 for w in weights):
        raise WeightsError("weights must be positive to build a comparison matrix")
    return [[wi / wj for wj in weights] for wi in weights]
