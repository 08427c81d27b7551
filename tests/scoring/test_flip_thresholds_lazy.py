"""Flip thresholds are kept as columns and built as objects when first read: the sequence
behaves as the tuple of FlipThreshold it stands for (eq, hash, repr, slicing, pickling)."""

from __future__ import annotations

import pickle

from scoring.robustness import FlipThreshold, FlipThresholds, robustness, weight_flip_thresholds
from scoring.types import DIMENSIONS, CandidateResult, DimensionScore

ROWS = {
    1: (90.0, 50.0, 50.0, 50.0, 50.0, 50.0),
    2: (50.0, 80.0, 40.0, 45.0, 45.0, 45.0),
    3: (60.0, 60.0, 60.0, 60.0, 20.0, 20.0),
}
WEIGHTS = {"stability": 3, "network": 2, "cost": 1}


def _results():
    return [
        CandidateResult(
            i,
            f"c{i}",
            tuple(DimensionScore(d, s, ()) for d, s in zip(DIMENSIONS, row, strict=True)),
            0.0,
            False,
            (),
            None,
        )
        for i, row in ROWS.items()
    ]


def test_the_columns_stand_for_the_tuple_of_thresholds():
    flips = weight_flip_thresholds(_results(), WEIGHTS)
    assert isinstance(flips, FlipThresholds)
    # len() and as_dicts() read the columns: nothing is built yet.
    assert len(flips) == 2 * len(DIMENSIONS)
    dicts = flips.as_dicts()
    assert flips._items is None
    built = tuple(flips)
    assert all(type(f) is FlipThreshold for f in built)
    assert dicts == [f.as_dict() for f in built]
    assert flips == built
    assert built == flips
    assert not flips != built  # noqa: SIM202 - the reflected operator is what is tested
    assert hash(flips) == hash(built)
    assert repr(flips) == repr(built)
    assert flips[1:3] == built[1:3]
    assert flips[-1] is built[-1]
    assert built[0] in flips
    assert flips != built[:-1]
    assert flips != list(built)  # a list is not a tuple, as for a tuple
    assert {f.other_id for f in flips} == {2, 3}


def test_pickling_keeps_the_columns_and_the_same_thresholds():
    flips = weight_flip_thresholds(_results(), WEIGHTS)
    again = pickle.loads(pickle.dumps(flips))  # noqa: S301 - pickled just above
    assert again._items is None
    assert again == flips
    assert repr(again.as_dicts()) == repr(flips.as_dicts())
    report = robustness(_results(), WEIGHTS, draws=20, seed=3)
    restored = pickle.loads(pickle.dumps(report))  # noqa: S301 - pickled just above
    assert restored == report
    assert restored.as_dict() == report.as_dict()
    assert report.as_dict()["flips"] == [f.as_dict() for f in report.flips]
