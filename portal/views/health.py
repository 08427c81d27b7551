"""Readiness: the database, Redis and the Celery worker's heartbeat, each reported apart."""

import logging
import time
from datetime import timedelta

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from ..middleware import DATABASE_DOWN
from ..models import WorkerHeartbeat

COMPONENTS = ("database", "redis", "worker")
logger = logging.getLogger(__name__)


def _timed(name: str, check) -> dict:
    started = time.perf_counter()
    try:
        result = check()
    except Exception as exc:
        # The text names internal hosts and ports: logged, and shown to staff only (readyz).
        logger.warning("readiness check %s failed: %s: %s", name, type(exc).__name__, exc)
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"ok": True}


def _redis_url() -> str | None:
    for url in (settings.CELERY_BROKER_URL, settings.CACHES["default"].get("LOCATION", "")):
        if isinstance(url, str) and url.startswith(("redis://", "rediss://", "unix://")):
            return url
    return None


def _redis() -> dict:
    url = _redis_url()
    if url is None:
        return {"ok": True, "detail": "not used (embedded mode)"}
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        client.ping()
    finally:
        client.close()
    return {"ok": True}


def _worker() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "detail": "tasks run in process (embedded mode)"}
    try:
        last = (
            WorkerHeartbeat.objects.order_by("-seen_at").values_list("seen_at", flat=True).first()
        )
    except DATABASE_DOWN:
        return {"ok": False, "error": "unknown: the database is unavailable"}
    stale = timedelta(seconds=settings.WORKER_HEARTBEAT_STALE_S)
    ok = last is not None and timezone.now() - last <= stale
    return {"ok": ok, "last_heartbeat": last.isoformat() if last else None}


def _is_staff(request: HttpRequest) -> bool:
    try:
        return bool(request.user.is_authenticated and request.user.is_staff)
    except Exception:
        return False


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when every required component is ready, else 503; the body reports each one.

    ``?require=database,redis`` limits which components decide the status code (all three by
    default): the web container's health check needs the database, the worker's its heartbeat.
    Why a check failed (an exception naming internal hosts and ports) is logged, and shown to
    staff only; anyone else reads ``"error": "unavailable"``.
    """
    checks = {"database": _database, "redis": _redis, "worker": _worker}
    report = {name: _timed(name, check) for name, check in checks.items()}
    if not _is_staff(request):
        for result in report.values():
            if "error" in result:
                result["error"] = "unavailable"
    required = [
        name for name in request.GET.get("require", ",".join(COMPONENTS)).split(",") if name
    ]
    ready = all(report[name]["ok"] for name in required if name in report)
    return JsonResponse(
        {"status": "ready" if ready else "unavailable", "required": required, **report},
        status=200 if ready else 503,
    )
