"""The results read model: the ranking and its robustness cached under the fingerprint of their
inputs, identical to a fresh computation, served when the cache is down, and what-if weights
that never rerun the stability draws."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import scoring.robustness
from portal import selectors
from portal.models import Answer, Evaluation

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]

DEMO_EVALUATION = 1


@pytest.fixture
def evaluation(demo) -> Evaluation:
    return Evaluation.objects.get(pk=DEMO_EVALUATION)


def _fresh(evaluation, weights=None):
    return selectors.evaluation_ranking(evaluation=evaluation, weights=weights, use_cache=False)


def test_a_cached_ranking_is_the_fresh_one_and_costs_one_query(evaluation):
    first, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    with CaptureQueriesContext(connection) as queries:
        again, again_candidates = selectors.evaluation_ranking(evaluation=evaluation)
    assert len(queries) == 1  # the fingerprint
    fresh, _ = _fresh(evaluation)
    assert again.as_dict() == fresh.as_dict() == first.as_dict()
    assert set(again_candidates) == set(candidates)


def test_what_if_weights_are_cached_apart_from_the_saved_ones(evaluation):
    what_if = {"cost": 90, "stability": 2, "network": 2, "storage": 2, "security": 2, "support": 2}
    saved, _ = selectors.evaluation_ranking(evaluation=evaluation)
    typed, _ = selectors.evaluation_ranking(evaluation=evaluation, weights=what_if)
    assert dict(typed.weights) != dict(saved.weights)
    assert typed.as_dict() == _fresh(evaluation, what_if)[0].as_dict()
    again, _ = selectors.evaluation_ranking(evaluation=evaluation)
    assert again.as_dict() == saved.as_dict()


def test_a_changed_input_changes_the_answer(evaluation):
    before, _ = selectors.evaluation_ranking(evaluation=evaluation)
    answer = Answer.objects.filter(candidate__evaluation=evaluation, status="verified").first()
    assert answer is not None
    answer.status = "contradicted"
    answer.save()
    after, _ = selectors.evaluation_ranking(evaluation=evaluation)
    assert after.as_dict() == _fresh(evaluation)[0].as_dict()
    assert after.as_dict() != before.as_dict()


@pytest.fixture
def cache_down(monkeypatch):
    """The read model's cache is a real Redis backend pointed at a closed loopback port."""
    from django.core.cache.backends.redis import RedisCache

    down = RedisCache(
        "redis://127.0.0.1:9/0",
        {"OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}},
    )
    monkeypatch.setattr(selectors, "cache", down)


def test_with_the_cache_down_the_answer_is_computed(evaluation, cache_down):
    with pytest.raises(Exception):  # noqa: B017 - really down: any error will do
        selectors.cache.get("probe")
    ranking, _ = selectors.evaluation_ranking(evaluation=evaluation)
    assert ranking.as_dict() == _fresh(evaluation)[0].as_dict()
    robustness = selectors.evaluation_robustness(
        evaluation=evaluation, ranking=ranking, draws=100, seed=1
    )
    assert robustness.stability.draws == 100


def test_what_if_keystrokes_never_rerun_the_stability_draws(evaluation, monkeypatch):
    runs = []
    real = scoring.robustness.first_counts

    def counted(*args, **kwargs):
        runs.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(scoring.robustness, "first_counts", counted)
    saved, _ = selectors.evaluation_ranking(evaluation=evaluation)
    base = selectors.evaluation_robustness(evaluation=evaluation, ranking=saved, seed=1)
    assert runs == [1000]
    for cost in (30, 35, 40, 45, 50):
        weights = {"cost": cost, "stability": 20, "network": 20, "storage": 10}
        weights |= {"security": 10, "support": 10}
        typed, _ = selectors.evaluation_ranking(evaluation=evaluation, weights=weights)
        answer = selectors.evaluation_robustness(
            evaluation=evaluation, ranking=typed, seed=1, what_if=True
        )
        assert answer.stability == base.stability
        fresh = scoring.robustness.weight_flip_thresholds(typed, typed.weights)
        assert answer.flips == fresh
    assert runs == [1000]
