"""Dependencies that go away: Redis down, PostgreSQL unreachable, readiness per component."""

import time
import uuid
from datetime import timedelta

import pytest
import redis
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError
from django.test import override_settings
from django.utils import timezone

from portal.celery import app as celery_app
from portal.models import EvidenceUpload, UploadStatus, WorkerHeartbeat

from .conftest import sample_bytes


def _named(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


pytestmark = pytest.mark.django_db
DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1
DEAD_CACHE = {"default": {"BACKEND": "portal.cache.ResilientRedisCache", "LOCATION": DEAD_REDIS}}


@pytest.fixture
def broker_down(monkeypatch, settings):
    """Point the Celery app's publisher at a port where nothing listens. Celery reads the
    CELERY_BROKER_URL environment variable (the test settings set it) before its own conf,
    so setting conf.broker_url alone left these tests publishing to the live Redis."""
    monkeypatch.setenv("CELERY_BROKER_URL", DEAD_REDIS)
    settings.CELERY_BROKER_URL = DEAD_REDIS
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    assert celery_app.conf.broker_url == DEAD_REDIS
    yield
    monkeypatch.undo()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@override_settings(CACHES=DEAD_CACHE)
def test_uploads_are_accepted_and_queued_while_redis_is_down(
    client, upload_token, broker_down, django_capture_on_commit_callbacks
):
    _token, raw = upload_token
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/v1/evidence/",
            {"file": _named("nccl.txt", sample_bytes("nccl-a100-8gpu.txt"))},
            HTTP_AUTHORIZATION=f"Bearer {raw}",
        )
    elapsed = time.monotonic() - started
    assert response.status_code == 202, response.content
    assert EvidenceUpload.objects.get().status == UploadStatus.QUEUED
    assert elapsed < 5, f"the upload waited {elapsed:.1f} s for Redis"


@override_settings(
    CACHES=DEAD_CACHE, REST_FRAMEWORK={"DEFAULT_THROTTLE_RATES": {"evidence_upload": "2/min"}}
)
def test_the_upload_throttle_limits_per_process_while_redis_is_down(
    client, upload_token, broker_down
):
    from rest_framework.settings import api_settings

    api_settings.reload()
    try:
        _token, raw = upload_token
        codes = [
            client.post(
                "/api/v1/evidence/",
                {"file": _named(f"f{i}.txt", f"file {i}".encode())},
                HTTP_AUTHORIZATION=f"Bearer {raw}",
            ).status_code
            for i in range(3)
        ]
    finally:
        api_settings.reload()
    assert codes == [202, 202, 429]


@override_settings(CACHES=DEAD_CACHE)
def test_the_ranking_and_pages_work_while_redis_is_down(client, members, candidate):
    client.force_login(members["engineer"])
    evaluation = candidate.evaluation
    started = time.monotonic()
    ranking = client.get(f"/api/v1/evaluations/{evaluation.pk}/ranking/")
    assert ranking.status_code == 200, ranking.content
    assert client.get(f"/api/v1/evaluations/{evaluation.pk}/ranking/").status_code == 200
    assert client.get(f"/evaluations/{evaluation.pk}/").status_code == 200
    assert time.monotonic() - started < 5
    assert cache.get("anything") is None  # answered by the per-process fallback


def test_a_database_error_in_a_view_is_a_503(client, members, monkeypatch):
    from portal.api import views

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(views.EvaluationList, "get_queryset", down)
    client.force_login(members["engineer"])
    response = client.get("/api/v1/evaluations/")
    assert response.status_code == 503
    assert response["Retry-After"]
    assert "database" in response.json()["detail"]


@pytest.mark.django_db(transaction=True)
def test_an_unreachable_database_is_a_fast_503_and_recovers(client, members, settings):
    from django.db import connection

    client.force_login(members["engineer"])
    good = connection.settings_dict.copy()
    # The next connection goes to a port where nothing listens.
    connection.close()
    connection.settings_dict["PORT"] = "1"
    try:
        started = time.monotonic()
        page = client.get("/", HTTP_ACCEPT="text/html")
        api = client.get("/api/v1/evaluations/")
        elapsed = time.monotonic() - started
    finally:
        connection.close()
        connection.settings_dict.update(good)
        connection.connect()
    assert page.status_code == 503, page.content[:300]
    assert b"database" in page.content
    assert api.status_code == 503
    assert elapsed < 5
    assert client.get("/api/v1/evaluations/").status_code == 200


def test_readyz_reports_each_component(client, settings):
    WorkerHeartbeat.objects.create(hostname="w1", seen_at=timezone.now())
    body = client.get("/readyz/").json()
    assert body["database"]["ok"] is True
    assert body["redis"]["ok"] is True
    assert body["worker"]["ok"] is True
    assert body["status"] == "ready"

    assert body["beat"]["ok"] is True
    assert body["imports"]["ok"] is True
    assert body["imports"]["overdue"] == {"queued": 0, "processing": 0}
    assert (body["imports"]["queued"], body["imports"]["oldest_queued_s"]) == (0, None)

    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(minutes=10))
    stale = client.get("/readyz/")
    assert stale.status_code == 503
    # Beat schedules the heartbeat: a stale one is beat's fault unless no worker answers either
    # (whether one does depends on the run's shared worker, tested with it below).
    assert stale.json()["beat"]["ok"] is False
    assert client.get("/readyz/?require=database,redis").status_code == 200

    settings.CELERY_BROKER_URL = DEAD_REDIS
    down = client.get("/readyz/?require=database,redis")
    assert down.status_code == 503
    assert down.json()["redis"]["ok"] is False
    assert down.json()["database"]["ok"] is True


def test_readyz_checks_the_cache_redis_apart_from_the_broker(client, settings, django_user_model):
    # operator review (stop 34): CACHE_URL may name another Redis than the broker's, and
    # /readyz/ pinged only the first one it found.
    WorkerHeartbeat.objects.create(hostname="w1", seen_at=timezone.now())
    assert client.get("/readyz/?require=redis").json()["redis"]["servers"] == ["broker"]
    settings.CACHES = DEAD_CACHE
    down = client.get("/readyz/?require=redis")
    assert down.status_code == 503
    assert (down.json()["redis"]["ok"], down.json()["redis"]["error"]) == (False, "unavailable")
    staff = django_user_model.objects.create_user("ops", password="x", is_staff=True)
    client.force_login(staff)
    error = client.get("/readyz/?require=redis").json()["redis"]["error"]
    assert "cache: ConnectionError" in error and "broker" not in error
    assert client.get("/readyz/?require=database").status_code == 200


def test_a_stale_heartbeat_with_a_worker_answering_blames_beat(
    celery_worker_process, client, settings
):
    # operator review (stop 34): with beat stopped the heartbeat went stale and /readyz/ said
    # the worker was down, though it ran every import; the worker answers a ping.
    WorkerHeartbeat.objects.create(hostname="w1", seen_at=timezone.now() - timedelta(hours=1))
    settings.CELERY_TASK_ALWAYS_EAGER = False
    response = client.get("/readyz/?require=worker")
    body = response.json()
    assert body["worker"]["ok"] is True, body
    assert body["worker"]["answered_ping"] >= 1
    assert "see beat" in body["worker"]["detail"]
    assert body["beat"]["ok"] is False
    assert response.status_code == 200
    # Beat decides the status by default, and when required (the beat container's check).
    assert client.get("/readyz/?require=beat").status_code == 503


def test_a_stale_heartbeat_with_the_broker_down_leaves_the_worker_unknown(
    client, settings, broker_down
):
    # operator review: with Redis down no ping can be sent, and /readyz/ said "answered_ping":
    # 0, as if every worker had stopped. No worker answering with the broker up is
    # tests/deploy/test_outages_as_an_operator_sees_them.py (a Redis of its own, no worker).
    WorkerHeartbeat.objects.create(hostname="w1", seen_at=timezone.now() - timedelta(hours=1))
    settings.CELERY_TASK_ALWAYS_EAGER = False
    body = client.get("/readyz/?require=worker").json()
    assert body["worker"]["ok"] is False
    assert body["worker"]["answered_ping"] is None
    assert body["worker"]["detail"].startswith("unknown: the broker (Redis) does not answer")
    assert body["beat"]["detail"].startswith("unknown: the heartbeat beat schedules")
    assert body["status"] == "unavailable"


def test_overdue_imports_are_reported_but_decide_nothing_unless_required(
    client, candidate, settings
):
    WorkerHeartbeat.objects.create(hostname="w1", seen_at=timezone.now())
    upload = EvidenceUpload.objects.create(
        candidate=candidate, sha256="b" * 64, size_bytes=1, original_name="late.tar.gz"
    )
    EvidenceUpload.objects.filter(pk=upload.pk).update(
        status=UploadStatus.QUEUED,
        created_at=timezone.now() - timedelta(hours=1),
        queued_at=timezone.now() - timedelta(hours=1),
    )
    EvidenceUpload.objects.create(
        candidate=candidate, sha256="c" * 64, size_bytes=1, original_name="fresh.tar.gz"
    )
    # The broker's queue, read from a queue of this test's own on the real Redis (the shared
    # worker consumes the default one): three messages wait in it.
    settings.CELERY_TASK_DEFAULT_QUEUE = f"readyz-depth-{uuid.uuid4().hex}"
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.lpush(settings.CELERY_TASK_DEFAULT_QUEUE, "a", "b", "c")
    try:
        response = client.get("/readyz/")
    finally:
        broker.delete(settings.CELERY_TASK_DEFAULT_QUEUE)
        broker.close()
    assert response.status_code == 200
    imports = response.json()["imports"]
    assert imports["ok"] is False
    assert imports["overdue"] == {"queued": 1, "processing": 0}
    # The depth beside it: both waiting uploads, the oldest's wait, the broker's messages.
    assert (imports["queued"], imports["processing"]) == (2, 0)
    assert 3600 <= imports["oldest_queued_s"] < 3700
    assert imports["broker_queue"] == 3
    assert client.get("/readyz/?require=imports").status_code == 503


def test_the_killed_worker_budget_is_under_two_minutes(settings):
    lease = settings.EVIDENCE_IMPORT_LEASE_S
    assert lease > settings.CELERY_TASK_TIME_LIMIT
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] <= lease
    assert lease + settings.EVIDENCE_SWEEP_INTERVAL_S < 120


def test_the_sweeper_requeues_an_import_held_past_the_lease(settings, candidate):
    from portal.services.evidence import evidence_sweep

    upload = EvidenceUpload.objects.create(
        candidate=candidate,
        sha256="a" * 64,
        size_bytes=1,
        original_name="x",
        status=UploadStatus.PROCESSING,
        task_id="dead-worker-task",
    )
    held = timezone.now() - timedelta(seconds=settings.EVIDENCE_IMPORT_LEASE_S + 1)
    EvidenceUpload.objects.filter(pk=upload.pk).update(started_at=held, created_at=held)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert upload.pk in evidence_sweep()
    upload.refresh_from_db()
    assert upload.status == UploadStatus.QUEUED
