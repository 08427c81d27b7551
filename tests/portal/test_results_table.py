"""The results read model's PostgreSQL tier: a result stored once is read back after the
Django cache is emptied (and put back in it), a result of inputs that are no longer current is
never served and is pruned, an entry that no longer unpickles is a miss, two viewers storing
the same result together both succeed, and the pages are served from the table while Redis is
down."""

from __future__ import annotations

import pickle
import re
import threading
import zlib

import pytest
from django.core.cache import cache
from django.db import connection, connections
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from portal import selectors
from portal.models import Evaluation, ResultsEntry
from portal.services.evaluations import evaluation_weights_set
from portal.services.results import results_entries_clear, results_entry_store
from portal.services.scores import candidate_refresh

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]

DEMO_EVALUATION = 1
DEAD_CACHE = {
    "default": {
        "BACKEND": "portal.cache.ResilientRedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
    }
}


def _evaluation() -> Evaluation:
    return Evaluation.objects.get(pk=DEMO_EVALUATION)


def _ranking_key(evaluation: Evaluation) -> str:
    return selectors.results_key(evaluation, "ranking-rows", selectors.weights_key(None))


def _manager() -> Client:
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.get(username="manager"))
    return client


def _page(client: Client) -> str:
    """The page's results and catalogue notice (the rest holds the request's CSRF token)."""
    response = client.get(reverse("evaluation-detail", args=[DEMO_EVALUATION]))
    assert response.status_code == 200
    html = response.content.decode()
    found = re.search(r'<div id="results">(.*?)</section>\s*</div>', html, re.S)
    assert found, "no results fragment on the page"
    return found.group(1)


def _fresh_page(client: Client) -> str:
    """The page as a computation from nothing renders it (both tiers emptied)."""
    cache.clear()
    results_entries_clear()
    return _page(client)


def _computed(queries) -> bool:
    """Whether the captured queries read the candidates' rows for scoring (the statement of
    selectors._postgresql_version_sql): the ranking was computed."""
    return any("'{}'::jsonb" in q["sql"] for q in queries.captured_queries)


def test_a_result_is_read_from_the_table_after_the_cache_is_emptied(demo):
    evaluation = _evaluation()
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    key = _ranking_key(evaluation)
    assert ResultsEntry.objects.filter(key=key, evaluation=evaluation).exists()
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        again, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    assert not _computed(queries)
    assert again.as_dict() == ranking.as_dict()
    assert set(candidates) == {r.candidate_id for r in ranking.results}
    # Put back in the Django cache: the next read costs no query of the table.
    assert cache.get(key) is not None
    with CaptureQueriesContext(connection) as queries:
        selectors.evaluation_ranking(evaluation=evaluation)
    table = ResultsEntry._meta.db_table
    assert not [q for q in queries.captured_queries if table in q["sql"]]


def test_the_dashboard_after_the_cache_is_emptied_is_the_fresh_render(demo):
    manager = _manager()
    first = _page(manager)
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        from_table = _page(manager)
    assert not _computed(queries)
    assert from_table == first
    assert from_table == _fresh_page(manager)


def test_a_result_of_inputs_no_longer_current_is_never_served(demo):
    manager = _manager()
    evaluation = _evaluation()
    first = _page(manager)
    old_key = _ranking_key(evaluation)
    evaluation_weights_set(
        evaluation=evaluation,
        weights={"cost": 60, "stability": 10, "network": 10, "storage": 10, "security": 10},
        by=None,
    )
    cache.clear()
    changed = _page(manager)
    assert _ranking_key(_evaluation()) != old_key
    assert changed != first
    assert changed == _fresh_page(manager)


def test_entries_under_an_old_fingerprint_are_pruned_on_write(demo):
    manager = _manager()
    _page(manager)
    evaluation = _evaluation()
    before = dict(ResultsEntry.objects.filter(evaluation=evaluation).values_list("kind", "key"))
    assert {"ranking-rows", "robustness", "results-html", "catalogue-html"} <= set(before)
    candidate_refresh(candidate_id=evaluation.candidates.order_by("pk").first().pk)
    cache.clear()
    _page(manager)
    after = list(ResultsEntry.objects.filter(evaluation=evaluation).values_list("kind", "key"))
    # One entry per kind (one role, one language): the old fingerprint's are gone...
    assert len(after) == len({kind for kind, _key in after})
    for kind, key in after:
        if kind != "catalogue-html":  # ...but the notice's, whose inputs did not change
            assert key != before[kind]
    current = selectors.results_fingerprint(_evaluation())
    assert all(current in key for kind, key in after if kind != "catalogue-html")


def test_an_entry_that_no_longer_unpickles_is_a_miss(demo):
    evaluation = _evaluation()
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    key = _ranking_key(evaluation)
    # A class the code no longer has, as after a release that renamed one.
    gone = pickle.dumps(ranking).replace(b"scoring.types", b"scoring.gone_")
    ResultsEntry.objects.filter(key=key).update(payload=zlib.compress(gone))
    cache.clear()
    assert selectors.cache_get(key) is None
    assert not ResultsEntry.objects.filter(key=key).exists()  # discarded, to be stored again
    # Bytes that do not even decompress: a miss too.
    selectors.evaluation_ranking(evaluation=evaluation)
    ResultsEntry.objects.filter(key=key).update(payload=b"not zlib")
    cache.clear()
    assert selectors.cache_get(key) is None
    assert not ResultsEntry.objects.filter(key=key).exists()
    again, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    assert again.as_dict() == ranking.as_dict()
    assert ResultsEntry.objects.filter(key=key).exists()
    # The same in the Django cache: a miss, answered by the table.
    cache.set(key, gone)
    assert selectors.cache_get(key)[0].as_dict() == ranking.as_dict()


def test_a_key_of_another_release_is_never_read(demo, monkeypatch):
    evaluation = _evaluation()
    selectors.evaluation_ranking(evaluation=evaluation)
    key = _ranking_key(evaluation)
    monkeypatch.setattr(selectors, "code_version", lambda: "another-release")
    assert _ranking_key(evaluation) != key


def test_what_if_weights_stay_out_of_the_table(demo):
    evaluation = _evaluation()
    weights = {"cost": 5, "stability": 1, "network": 1, "storage": 1, "security": 1, "support": 1}
    selectors.evaluation_ranking(evaluation=evaluation, weights=weights)
    kinds = set(ResultsEntry.objects.values_list("key", flat=True))
    what_if = selectors.results_key(evaluation, "ranking-rows", selectors.weights_key(weights))
    assert what_if not in kinds
    assert selectors.cache_get(what_if) is not None


@pytest.mark.django_db(transaction=True)
def test_viewers_storing_the_same_result_together_both_succeed(demo):
    evaluation = _evaluation()
    key = _ranking_key(evaluation)
    fingerprint = key.split(":")[2] + ":" + key.split(":")[3]
    barrier = threading.Barrier(4)
    errors = []

    def store(n: int) -> None:
        try:
            barrier.wait()
            results_entry_store(
                evaluation_id=evaluation.pk,
                key=key,
                kind="ranking-rows",
                fingerprint=fingerprint,
                payload=pickle.dumps(("same", n)),
            )
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=store, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert ResultsEntry.objects.filter(key=key).count() == 1


@override_settings(CACHES=DEAD_CACHE)
def test_with_redis_down_the_pages_are_served_from_the_table(demo):
    manager = _manager()
    first = _page(manager)  # computed, stored in the table (and the per-process fallback)
    assert ResultsEntry.objects.filter(evaluation_id=DEMO_EVALUATION).exists()
    cache.clear()  # the per-process fallback emptied
    with CaptureQueriesContext(connection) as queries:
        again = _page(manager)
    assert not _computed(queries)
    assert again == first
