"""Python's round() and sum() of float columns, bit for bit, vectorised with numpy."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

_NEUMAIER_SUM = sys.version_info >= (3, 12)
# |x * 10**digits| below this: one float product is off by far less than the 1e-6 margin
# py_round keeps from a rounding boundary (its ulp there is 2**-22).
_EXACT_SCALED = float(2**30)
_HALF_MARGIN = 1e-6


def py_round(values: np.ndarray, digits: int) -> np.ndarray:
    """Python's round(x, digits) of every element, bit for bit.

    round() rounds the exact binary value to the nearest multiple of 10**-digits (ties to
    even) and returns the double nearest that decimal, which is fl(k / 10**digits) for the
    integer k. numpy's rint(x * 10**digits) finds the same k unless the product lies within
    its own rounding error of a half (or is huge, or not finite): those few elements are
    rounded by round() itself."""
    scale = 10.0**digits
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = values * scale
        nearest = np.rint(scaled)
        # Settled: farther than the margin from a half (the distance to the nearest integer
        # is NaN for an infinite or NaN product, and NaN compares False) and not huge.
        distance = scaled - nearest
        np.abs(distance, out=distance)
        settled = (distance < 0.5 - _HALF_MARGIN) & (np.abs(nearest) < _EXACT_SCALED)
        # NaN (an unknown figure in a column) rounds to NaN either way: settled too, so a
        # column with many unknowns is not rounded element by element.
        settled |= np.isnan(scaled)
        result = nearest / scale
    if not settled.all():
        where = np.flatnonzero(~settled)
        result[where] = [round(float(v), digits) for v in values[where]]
    return result


def py_sum(columns: Sequence[np.ndarray], count: int) -> np.ndarray:
    """sum() of each row of ``columns`` (one float per column, in column order), bit for bit:
    left-to-right addition before Python 3.12, Neumaier's compensated summation since."""
    total = np.zeros(count)
    if not columns:
        return total
    total = total + columns[0]
    if not _NEUMAIER_SUM:
        for column in columns[1:]:
            total = total + column
        return total
    compensation = np.zeros(count)
    with np.errstate(invalid="ignore", over="ignore"):
        for column in columns[1:]:
            t = total + column
            compensation += np.where(
                np.abs(total) >= np.abs(column), (total - t) + column, (column - t) + total
            )
            total = t
        fix = (compensation != 0.0) & np.isfinite(compensation)
    return np.where(fix, total + compensation, total)
