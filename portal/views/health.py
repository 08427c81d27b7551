"""Liveness (/healthz/: the process answers) and readiness (/readyz/: the database, Redis, the
Celery worker, beat and overdue imports, each reported apart). Both answer JSON whatever is
down: portal.middleware.HealthCheckMiddleware runs them before any middleware that could read
the database."""

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

from ..celery import REDIS_SCHEMES, broker_queue_length
from ..middleware import DATABASE_DOWN
from ..models import WorkerHeartbeat
from ..selectors import import_backlog, overdue_uploads

COMPONENTS = ("database", "redis", "worker", "beat", "imports")
# What decides the status code without ?require=: a backlog of imports is reported, not a
# reason to call the portal unready.
REQUIRED_BY_DEFAULT = ("database", "redis", "worker", "beat")
# How long a worker may take to answer a ping, asked only when the heartbeat is stale.
PING_TIMEOUT_S = 1.0
logger = logging.getLogger(__name__)


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for load balancers, orchestrators and compose: this process answers requests.
    It reads nothing, the database least of all: a liveness probe that failed while PostgreSQL
    was down would have every web process restarted, which mends nothing (/readyz/ says what
    is unavailable)."""
    return JsonResponse({"status": "ok", "time": timezone.now().isoformat()})


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


def _redis_urls() -> dict[str, str]:
    """The Redis servers the portal uses, by role: the Celery broker and the cache (CACHE_URL
    may name another server than the broker's; a list of cache servers counts each)."""
    found = {}
    broker = settings.CELERY_BROKER_URL
    if isinstance(broker, str) and broker.startswith(REDIS_SCHEMES):
        found["broker"] = broker
    location = settings.CACHES["default"].get("LOCATION", "")
    locations = location if isinstance(location, list | tuple) else str(location).split(",")
    servers = [url.strip() for url in locations if url.strip().startswith(REDIS_SCHEMES)]
    for number, url in enumerate(servers, start=1):
        found["cache" if len(servers) == 1 else f"cache {number}"] = url
    return found


def _redis() -> dict:
    """Every Redis server the portal uses answers a ping (each server once); a failure names
    the role of each server that did not (the cache's falls back per process, but the portal
    then runs without its shared cache and upload throttle)."""
    urls = _redis_urls()
    if not urls:
        return {"ok": True, "detail": "not used (embedded mode)"}
    answered: dict[str, str | None] = {}
    failed = []
    for role, url in urls.items():
        if url not in answered:
            client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
            try:
                client.ping()
                answered[url] = None
            except Exception as exc:
                answered[url] = f"{type(exc).__name__}: {exc}"
            finally:
                client.close()
        if answered[url] is not None:
            failed.append(f"{role}: {answered[url]}")
    if failed:
        raise ConnectionError("; ".join(failed))
    return {"ok": True, "servers": sorted(urls)}


# What a check says when the database cannot be read: no address in it, so shown to anyone.
DATABASE_UNKNOWN = "unknown: the database is unavailable (see database)"


def _fresh(last) -> bool:
    stale = timedelta(seconds=settings.WORKER_HEARTBEAT_STALE_S)
    return last is not None and timezone.now() - last <= stale


def _pinged_workers() -> list[str] | None:
    """The Celery workers that answer a ping within PING_TIMEOUT_S; None when the ping could
    not be sent (the broker is away: the redis check says so), which tells nothing of them."""
    from ..celery import app

    try:
        replies = app.control.ping(timeout=PING_TIMEOUT_S) or []
    except Exception as exc:
        logger.warning("worker ping failed: %s: %s", type(exc).__name__, exc)
        return None
    return sorted(name for reply in replies for name in reply)


class _Workers:
    """What the worker and the beat check both read: the heartbeat, and the workers' ping
    (sent at most once per request); neither is asked of a database or a broker the checks
    before found away: each attempt would wait its connect timeout again
    (DATABASE_CONNECT_TIMEOUT per read), and compose's health check gives /readyz/ 6 s."""

    def __init__(self, *, database_ok: bool, broker_ok: bool):
        self.database_ok = database_ok
        self.broker_ok = broker_ok
        self._pinged: list[str] | bool | None = False

    def pinged(self) -> list[str] | None:
        if self._pinged is False:
            self._pinged = _pinged_workers() if self.broker_ok else None
        return self._pinged

    def _heartbeat(self) -> tuple[dict | None, dict]:
        """(the result to report when the heartbeat cannot be read, else None; the
        heartbeat's fields: its time and whether it is fresh)."""
        if not self.database_ok:
            return {"ok": False, "detail": DATABASE_UNKNOWN}, {}
        try:
            last = (
                WorkerHeartbeat.objects.order_by("-seen_at")
                .values_list("seen_at", flat=True)
                .first()
            )
        except DATABASE_DOWN:
            self.database_ok = False
            return {"ok": False, "detail": DATABASE_UNKNOWN}, {}
        return None, {"last_heartbeat": last.isoformat() if last else None, "fresh": _fresh(last)}

    def imports(self) -> dict:
        if not self.database_ok:
            return {"ok": False, "detail": DATABASE_UNKNOWN}
        return _imports()

    def worker(self) -> dict:
        """A worker runs tasks: its heartbeat task ran lately, or (the heartbeat is scheduled
        by beat, so a stale one may be beat's fault) it answers a ping."""
        if settings.CELERY_TASK_ALWAYS_EAGER:
            return {"ok": True, "detail": "tasks run in process (embedded mode)"}
        unread, heartbeat = self._heartbeat()
        if unread is not None:
            return unread
        result = {"last_heartbeat": heartbeat["last_heartbeat"]}
        if heartbeat["fresh"]:
            return {"ok": True, **result}
        answered = self.pinged()
        if answered is None:
            return {
                "ok": False,
                **result,
                "answered_ping": None,
                "detail": "unknown: the broker (Redis) does not answer, so no worker can be "
                "asked and none gets tasks (see redis)",
            }
        if answered:
            return {
                "ok": True,
                **result,
                "answered_ping": len(answered),
                "detail": "the heartbeat is stale but a worker answers: see beat",
            }
        return {
            "ok": False,
            **result,
            "answered_ping": 0,
            "detail": f"no worker answered a ping and no heartbeat in the last "
            f"{settings.WORKER_HEARTBEAT_STALE_S} s: no worker is running",
        }

    def beat(self) -> dict:
        """Beat schedules the heartbeat every 30 s: a fresh one shows beat (and a worker)
        running; a stale one while a worker answers its ping shows beat stopped; while no worker
        answers, nobody runs the heartbeat and beat's state is unknown."""
        if settings.CELERY_TASK_ALWAYS_EAGER:
            return {"ok": True, "detail": "no scheduler in embedded mode"}
        unread, heartbeat = self._heartbeat()
        if unread is not None:
            return unread
        result = {"ok": heartbeat["fresh"], "last_heartbeat": heartbeat["last_heartbeat"]}
        if heartbeat["fresh"]:
            return result
        if self.pinged():
            result["detail"] = "no heartbeat while a worker answers: beat is not running"
        else:
            result["detail"] = (
                "unknown: the heartbeat beat schedules is run by a worker, and none answers "
                "(see worker)"
            )
        return result


def _imports() -> dict:
    """Uploads the sweeper should have sent again by now (portal_evidence_uploads_overdue)
    decide; the queue's depth is reported beside them: the uploads waiting and processing
    (with the oldest one's wait) and the messages in the broker's queue, so that a backlog
    is seen before it becomes overdue."""
    try:
        overdue = overdue_uploads()
        backlog = import_backlog()
    except DATABASE_DOWN:
        return {"ok": False, "detail": DATABASE_UNKNOWN}
    return {
        "ok": not any(overdue.values()),
        "overdue": overdue,
        **backlog,
        "broker_queue": broker_queue_length(),
    }


def _is_staff(request: HttpRequest) -> bool:
    try:
        return bool(request.user.is_authenticated and request.user.is_staff)
    except Exception:
        return False


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when every required component is ready, else 503; the body reports each one.

    ``?require=database,redis`` limits which components decide the status code
    (REQUIRED_BY_DEFAULT otherwise: overdue imports are reported but decide nothing unless
    required): the web container's health check needs the database, beat's its heartbeat.
    Why a check failed (an exception naming internal hosts and ports) is logged, and shown to
    staff only; anyone else reads ``"error": "unavailable"``.
    """
    report = {"database": _timed("database", _database), "redis": _timed("redis", _redis)}
    workers = _Workers(
        database_ok=report["database"]["ok"],
        # The broker's failure is named "broker: …" (_redis); a cache server's alone leaves
        # the workers reachable.
        broker_ok="broker:" not in report["redis"].get("error", ""),
    )
    for name, check in (
        ("worker", workers.worker),
        ("beat", workers.beat),
        ("imports", workers.imports),
    ):
        report[name] = _timed(name, check)
    required = [
        name
        for name in request.GET.get("require", ",".join(REQUIRED_BY_DEFAULT)).split(",")
        if name
    ]
    ready = all(report[name]["ok"] for name in required if name in report)
    if not ready:
        # One line to grep for, naming each required component that failed and why (the log
        # may name addresses; the body shows anyone but staff "unavailable" instead).
        logger.warning(
            "readyz unavailable: %s",
            "; ".join(
                f"{name}: {report[name].get('detail') or report[name].get('error', 'not ok')}"
                for name in required
                if name in report and not report[name]["ok"]
            ),
        )
    if not _is_staff(request):
        for result in report.values():
            if "error" in result:
                result["error"] = "unavailable"
    return JsonResponse(
        {"status": "ready" if ready else "unavailable", "required": required, **report},
        status=200 if ready else 503,
    )
