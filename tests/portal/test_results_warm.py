"""Warming the results read model: changes that move an evaluation's results schedule one
warming task (deduplicated in Redis, a short delay after the last change), nothing is scheduled
without Redis, and what the task stores is what the dashboard renders, in every language and
for every member's role."""

from __future__ import annotations

import re
import time

import pytest
from celery.signals import before_task_publish
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache, caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from portal.celery import app
from portal.models import Evaluation, ResultsEntry, Role
from portal.services import results as results_service
from portal.services.evaluations import evaluation_weights_set
from portal.services.results import results_entries_clear
from portal.services.scores import candidate_refresh
from portal.tasks import results_warm_task

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
TASK = "portal.tasks.results_warm_task"
REDIS = "redis://127.0.0.1:6379/13"


@pytest.fixture
def published():
    """The warming tasks published to the broker: (evaluation id, countdown given)."""
    seen: list[tuple[int, float | None]] = []

    def record(sender=None, headers=None, body=None, **_kwargs):
        if sender == TASK:
            args = body[0] if isinstance(body, tuple | list) else headers.get("argsrepr")
            seen.append((args[0], headers.get("eta")))

    before_task_publish.connect(record, weak=False)
    yield seen
    before_task_publish.disconnect(record)


@pytest.fixture
def redis_cache(settings):
    """The Django cache on the real Redis (keys of this test run only, removed after)."""
    prefix = f"warm-{settings.RUN_ID}"
    settings.CACHES = {
        "default": {
            "BACKEND": "portal.cache.ResilientRedisCache",
            "LOCATION": REDIS,
            "KEY_PREFIX": prefix,
        }
    }
    results_service._noted.clear()
    backend = caches["default"]
    yield backend
    client = backend._cache.get_client(write=True)
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)
    results_service._noted.clear()


def _changes(evaluation: Evaluation, n: int, capture) -> None:
    """``n`` changes of the evaluation's results, each committed (its on-commit hooks run) as
    by a separate process (none of this process's notes kept)."""
    ids = list(evaluation.candidates.order_by("pk").values_list("pk", flat=True))
    for i in range(n):
        results_service._noted.clear()
        with capture(execute=True):
            candidate_refresh(candidate_id=ids[i % len(ids)])


def test_the_task_is_known_to_workers():
    # Workers load portal.tasks by autodiscovery: the task must be registered from there.
    app.loader.import_default_modules()
    app.autodiscover_tasks(force=True)
    assert TASK in app.tasks and app.tasks[TASK].__module__ == "portal.tasks"


def test_many_changes_schedule_one_warming(
    demo, redis_cache, published, django_capture_on_commit_callbacks
):
    assert not app.conf.task_always_eager
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    _changes(evaluation, 5, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        evaluation_weights_set(
            evaluation=evaluation,
            weights={"cost": 40, "stability": 20, "network": 20, "storage": 20},
            by=None,
        )
    assert [pk for pk, _eta in published] == [DEMO_EVALUATION]
    assert published[0][1] is not None  # a delay, not at once


def test_a_run_of_changes_in_one_process_writes_to_redis_once_a_second(
    demo, redis_cache, published, django_capture_on_commit_callbacks
):
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    client = redis_cache._cache.get_client(write=True)
    last = redis_cache.make_key(results_service.LAST_CHANGE_KEY.format(DEMO_EVALUATION))
    ids = list(evaluation.candidates.values_list("pk", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        candidate_refresh(candidate_id=ids[0])
    noted = client.get(last)
    for candidate_id in ids[1:]:
        with django_capture_on_commit_callbacks(execute=True):
            candidate_refresh(candidate_id=candidate_id)
    assert client.get(last) == noted
    assert len(published) == 1


def test_the_warming_waits_for_the_last_change(demo, redis_cache, published, settings):
    settings.RESULTS_WARM_DELAY_S = 5.0
    client = redis_cache._cache.get_client(write=True)
    last = redis_cache.make_key(results_service.LAST_CHANGE_KEY.format(DEMO_EVALUATION))
    due = redis_cache.make_key(results_service.DUE_KEY.format(DEMO_EVALUATION))
    now = time.time()
    client.set(due, repr(now - 3))
    client.set(last, repr(now - 1))  # a change a second ago: four more seconds to wait
    assert results_service.results_warm_due(evaluation_id=DEMO_EVALUATION) == "deferred"
    assert [pk for pk, _eta in published] == [DEMO_EVALUATION]
    assert client.get(due) is not None  # still due: changes meanwhile schedule nothing more
    assert not ResultsEntry.objects.exists()
    client.set(last, repr(now - 6))
    assert results_service.results_warm_due(evaluation_id=DEMO_EVALUATION) == "warmed"
    assert client.get(due) is None  # from now a change schedules another warming
    assert ResultsEntry.objects.filter(evaluation_id=DEMO_EVALUATION).exists()


def test_a_long_run_of_changes_is_warmed_at_the_latest_after_the_maximum_delay(
    demo, redis_cache, settings
):
    settings.RESULTS_WARM_MAX_DELAY_S = 30.0
    client = redis_cache._cache.get_client(write=True)
    now = time.time()
    client.set(redis_cache.make_key(results_service.DUE_KEY.format(DEMO_EVALUATION)), now - 31)
    client.set(redis_cache.make_key(results_service.LAST_CHANGE_KEY.format(DEMO_EVALUATION)), now)
    assert results_service.results_warm_due(evaluation_id=DEMO_EVALUATION) == "warmed"


def test_without_redis_nothing_is_scheduled(demo, published, django_capture_on_commit_callbacks):
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    # The local-memory cache (the embedded install): no warming, the views compute.
    _changes(evaluation, 2, django_capture_on_commit_callbacks)
    assert published == []


def test_with_redis_down_nothing_is_scheduled_and_nothing_fails(
    demo, settings, published, django_capture_on_commit_callbacks
):
    settings.CACHES = {
        "default": {
            "BACKEND": "portal.cache.ResilientRedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
        }
    }
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    _changes(evaluation, 2, django_capture_on_commit_callbacks)
    assert published == []
    assert results_service.results_warm_due(evaluation_id=DEMO_EVALUATION) == "warmed"


def test_a_deleted_evaluation_is_not_warmed(demo):
    assert results_service.results_warm_due(evaluation_id=987_654) == "gone"


def _results(client: Client) -> str:
    response = client.get(reverse("evaluation-detail", args=[DEMO_EVALUATION]))
    assert response.status_code == 200
    found = re.search(
        r'<div id="results">(.*?)</section>\s*</div>', response.content.decode(), re.S
    )
    assert found
    return found.group(1)


def test_the_warmed_fragments_are_what_the_views_render(demo, empty_cache):
    clients = {}
    for role in (Role.MANAGER, Role.VIEWER):
        clients[role] = Client()
        clients[role].force_login(get_user_model().objects.get(username=role.value))
    # As a worker runs it (the local-memory cache: no debounce keys to read).
    assert results_warm_task.apply(args=[DEMO_EVALUATION]).get() == "warmed"
    warmed = {}
    for language, _name in settings.LANGUAGES:
        for role, client in clients.items():
            client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
            cache.clear()  # from the table, as another process reads it
            with CaptureQueriesContext(connection) as queries:
                warmed[language, role] = _results(client)
            assert not any("'{}'::jsonb" in q["sql"] for q in queries.captured_queries), (
                language,
                role,
            )
    assert "验证矩阵" in warmed["zh-hans", Role.MANAGER]
    assert "Verification matrix" in warmed["en", Role.VIEWER]
    for (language, role), html in warmed.items():
        cache.clear()
        results_entries_clear()
        clients[role].cookies[settings.LANGUAGE_COOKIE_NAME] = language
        assert _results(clients[role]) == html, (language, role)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_warms_the_results_after_a_change(
    celery_worker_process, redis_cache, settings, candidate, members
):
    """End to end: a rescore in this process schedules the task on the real broker, and the
    worker process (which knows the task from portal.tasks) stores the results in
    PostgreSQL, from which a view in this process then reads them without computing."""
    settings.RESULTS_WARM_DELAY_S = 0.2
    evaluation_id = candidate.evaluation_id
    candidate_refresh(candidate_id=candidate.pk)  # autocommit: its on-commit hook runs now
    deadline = time.monotonic() + 60
    kinds: set[str] = set()
    while time.monotonic() < deadline and "results-html" not in kinds:
        time.sleep(0.2)
        kinds = set(
            ResultsEntry.objects.filter(evaluation_id=evaluation_id).values_list("kind", flat=True)
        )
    assert {"ranking-rows", "robustness", "api-ranking-payload", "results-html"} <= kinds
    assert celery_worker_process.process.poll() is None
    client = Client()
    client.force_login(members[Role.MANAGER])
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("evaluation-detail", args=[evaluation_id]))
    assert response.status_code == 200
    assert not any("'{}'::jsonb" in q["sql"] for q in queries.captured_queries)
