"""The results read model keeps its cached candidates small without losing anything: what the
pages read survives, the rest loads again when asked for, and saving such a candidate never
writes a truncated verification."""

from __future__ import annotations

import pickle

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from portal import selectors
from portal.models import Candidate, Evaluation

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1


@pytest.fixture
def evaluation(demo) -> Evaluation:
    cache.clear()
    yield Evaluation.objects.get(pk=DEMO_EVALUATION)
    cache.clear()


def test_cached_candidates_keep_the_curve_and_reload_the_verification(evaluation):
    stored = {c.pk: c.verification for c in Candidate.objects.filter(evaluation=evaluation)}
    assert any((v or {}).get("busbw_curve") for v in stored.values())
    selectors.evaluation_ranking(evaluation=evaluation)
    _ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)  # from the cache
    for pk, candidate in candidates.items():
        assert selectors.busbw_curve(candidate) == (stored[pk] or {}).get("busbw_curve")
        assert "verification" in candidate.get_deferred_fields()
    candidate = next(iter(candidates.values()))
    with CaptureQueriesContext(connection) as queries:
        assert candidate.verification == stored[candidate.pk]
    assert len(queries) == 1


def test_saving_a_read_model_candidate_leaves_its_verification_alone(evaluation):
    _ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    pk, candidate = next(iter(candidates.items()))
    before = Candidate.objects.get(pk=pk).verification
    candidate.notes = "checked against the read model"
    with CaptureQueriesContext(connection) as queries:
        candidate.save()
    update = next(q["sql"] for q in queries if q["sql"].startswith("UPDATE"))
    assert '"verification"' not in update
    again = Candidate.objects.get(pk=pk)
    assert again.verification == before
    assert again.notes == "checked against the read model"


def test_the_cached_pair_pickles_without_each_pinned_version(evaluation):
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
    for candidate in candidates.values():
        assert "offering_version" not in candidate._state.fields_cache
        assert candidate.offering.vendor.name  # the pinned facts stay
    blob = pickle.dumps((ranking, candidates))
    again, again_candidates = pickle.loads(blob)  # noqa: S301 - pickled just above
    assert again.as_dict() == ranking.as_dict()
    assert set(again_candidates) == set(candidates)
