"""A ranking's results keep their batch's scores as one array (ScoreBlock): robustness reads
them from there, and gets exactly what it gets from the DimensionScores themselves."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings

from scoring.ranking import rank
from scoring.robustness import _score_matrix, robustness
from scoring.types import DIMENSIONS

try:
    from scoring_factories import candidate, candidate_lists, evaluation, evaluations
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, candidate_lists, evaluation, evaluations


def _from_objects(results):
    return np.array([[r.score(d) for d in DIMENSIONS] for r in results], dtype=np.float64)


@pytest.mark.parametrize("explain", [True, False])
@settings(max_examples=25, deadline=None)
@given(candidates=candidate_lists(min_size=1, max_size=8), evaluation=evaluations)
def test_the_block_holds_the_dimension_scores(explain, candidates, evaluation):
    ranking = rank(candidates, evaluation, explain=explain)
    results = list(ranking.results)
    assert all(r._score_block is results[0]._score_block for r in results)
    assert not results[0]._score_block.matrix.flags.writeable
    block = _score_matrix(results)
    assert repr(block.tolist()) == repr(_from_objects(results).tolist())
    # A copy or a pickle leaves the block out and reads the objects: the same analysis.
    copies = pickle.loads(pickle.dumps(results))  # noqa: S301 - pickled just above
    assert all(r._score_block is None for r in copies)
    assert all(copy.copy(r)._score_block is None for r in results)
    weights = dict(ranking.weights)
    fresh = robustness(results, weights, draws=25, seed=7)
    assert fresh == robustness(copies, weights, draws=25, seed=7)
    assert repr(fresh.as_dict()) == repr(robustness(copies, weights, draws=25, seed=7).as_dict())


def test_results_of_two_rankings_are_read_from_their_objects():
    first = rank([candidate(1), candidate(2, node_count=4)], evaluation()).results
    second = rank([candidate(3, node_count=2)], evaluation(duration_days=30)).results
    mixed = [*first, *second]
    assert first[0]._score_block is not second[0]._score_block
    assert repr(_score_matrix(mixed).tolist()) == repr(_from_objects(mixed).tolist())
