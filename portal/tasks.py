"""Celery tasks: thin interfaces that take ids, call one service and carry the retry policy."""

import socket

from celery import shared_task
from django.utils import timezone

from .models import WorkerHeartbeat


@shared_task(name="portal.tasks.worker_heartbeat_task")
def worker_heartbeat_task() -> str:
    """Record that a worker on this host is alive (scheduled by beat; read by /healthz/)."""
    hostname = socket.gethostname()
    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"seen_at": timezone.now()}
    )
    return hostname
