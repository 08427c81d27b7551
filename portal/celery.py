"""The Celery application: configured from Django settings (CELERY_* names)."""

import os
import sys

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Celery's Django fixup closes every database connection before and after each task (a new
# PostgreSQL backend per import: a fork on the server, a handshake and the session set-up),
# unless this is set, when it closes them every 2 x this many tasks instead. Set: the worker
# follows Django's own rules instead (below), as requests do: CONN_MAX_AGE and
# CONN_HEALTH_CHECKS, and a connection left broken or inside a transaction is dropped.
app.conf["CELERY_DB_REUSE_MAX"] = sys.maxsize
app.autodiscover_tasks()


def _close_old_connections(sender=None, **_kwargs) -> None:
    # A task run eagerly (the embedded default, tests) runs inside its caller's request or
    # transaction: its connection is the caller's to manage.
    if sender is None or getattr(sender.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


signals.task_prerun.connect(_close_old_connections, weak=False)
signals.task_postrun.connect(_close_old_connections, weak=False)


@signals.worker_init.connect(weak=False)
def _warm_up(**_kwargs) -> None:
    # In the worker's main process, before its pool forks: every process of the pool starts
    # with the URLs, catalogues and templates the results warming renders (portal.warmup).
    import django

    django.setup()
    from portal.warmup import warm_up

    warm_up()


# The URL schemes of a Redis server (the broker's, the cache's): what /readyz/ pings.
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def broker_queue_length() -> int | None:
    """Messages waiting in the default queue when the broker is Redis (LLEN of its list);
    None for another broker or an unreachable one (the readiness check's redis part says why)."""
    import logging

    import redis
    from django.conf import settings

    broker = settings.CELERY_BROKER_URL
    if not isinstance(broker, str) or not broker.startswith(REDIS_SCHEMES):
        return None
    client = redis.Redis.from_url(broker, socket_timeout=0.5, socket_connect_timeout=0.5)
    try:
        return int(client.llen(getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery")))
    except redis.RedisError as exc:
        logging.getLogger(__name__).debug("queue length unavailable: %s", exc)
        return None
    finally:
        client.close()
