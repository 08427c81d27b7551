"""Stored results are keyed by the model that computed them, not only by the stored facts.

The results read model is cached in the database by a fingerprint of its inputs. A new
scoring model (a changed rubric text, or scoring code that changes a figure for the same
inputs) must not serve the rankings an earlier model computed: the fingerprint reads the
digest of the evaluation's rubric text and scoring.MODEL_REVISION.
"""

from __future__ import annotations

import pytest

import scoring
from portal.api import ranking
from scoring.rubric import rubric_sha256, rubric_text


def test_the_fingerprint_reads_the_rubric_digest_and_the_model_revision(evaluation):
    key = ranking._model_key(evaluation.rubric_version)
    assert key[1] == scoring.MODEL_REVISION
    assert key[2] == rubric_sha256(rubric_text(evaluation.rubric_version))


@pytest.mark.django_db
def test_a_new_model_revision_moves_every_ranking_fingerprint(evaluation, monkeypatch):
    before = ranking.ranking_fingerprint(evaluation)
    assert ranking.ranking_fingerprint(evaluation) == before  # stable for the same model
    ranking._model_key.cache_clear()
    monkeypatch.setattr(ranking, "MODEL_REVISION", scoring.MODEL_REVISION + ".next")
    try:
        assert ranking.ranking_fingerprint(evaluation) != before
    finally:
        ranking._model_key.cache_clear()
