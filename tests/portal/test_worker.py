"""A task sent through Redis to a real Celery worker process writes to PostgreSQL."""

import time

import pytest

from portal.models import WorkerHeartbeat
from portal.tasks import worker_heartbeat_task


def _wait_for(predicate, timeout_s: float = 20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"condition not met within {timeout_s}s")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_task_sent_through_redis_is_run_by_a_worker_process(celery_worker_process, settings):
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert not settings.CELERY_TASK_ALWAYS_EAGER
    assert not WorkerHeartbeat.objects.exists()

    worker_heartbeat_task.delay()

    beat = _wait_for(lambda: WorkerHeartbeat.objects.first())
    assert beat.hostname
    assert celery_worker_process.process.poll() is None
