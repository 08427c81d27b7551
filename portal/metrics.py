"""Prometheus metrics (prometheus-client): request latency by view, import duration and outcome,
queue depth and stored upload bytes, served at /metrics to holders of METRICS_TOKEN.

With several processes (gunicorn workers, Celery's pool) set PROMETHEUS_MULTIPROC_DIR to one
empty directory shared by them all: each process writes its samples there and /metrics adds
them up. Queue depth and stored bytes are read from PostgreSQL and Redis when scraped.
"""

import hmac
import logging
import os
import socket
import time

from django.conf import settings
from django.db.models import Count, Sum
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    values,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    # Each process writes <type>_<id>.db in the shared directory, by its pid by default. Compose
    # shares the directory between containers, each with its own pid namespace: web's gunicorn
    # worker and the worker's pool child were both pid 7, wrote one file at once, and /metrics
    # then failed on it for good ("file is corrupted"). The host name (the container's) makes
    # the id unique; "_" separates the parts of the file name, so none is left in it.
    _HOST = socket.gethostname().replace("_", "-")
    values.ValueClass = values.MultiProcessValue(lambda: f"{_HOST}-{os.getpid()}")

logger = logging.getLogger("portal.requests")

REQUEST_LATENCY = Histogram(
    "portal_http_request_duration_seconds",
    "Time to answer an HTTP request, by view (URL name), method and status class.",
    ["view", "method", "status"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
IMPORT_DURATION = Histogram(
    "portal_evidence_import_duration_seconds",
    "Time of one evidence import task, by the outcome of the upload it was sent for (done,"
    " failed; skipped: already imported, e.g. in another task's batch; error: an exception).",
    ["outcome"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90),
)
IMPORTS = Counter(
    "portal_evidence_imports", "Evidence import tasks finished, by outcome.", ["outcome"]
)


class DatabaseCollector:
    """Gauges read when scraped: uploads per status (the import queue) and stored bytes."""

    def collect(self):
        from .models import EvidenceUpload

        by_status = GaugeMetricFamily(
            "portal_evidence_uploads", "Evidence uploads by import status.", labels=["status"]
        )
        for row in EvidenceUpload.objects.values("status").annotate(n=Count("pk")):
            by_status.add_metric([row["status"]], row["n"])
        yield by_status
        yield self._overdue()
        stored = EvidenceUpload.objects.exclude(file="").aggregate(total=Sum("size_bytes"))
        yield GaugeMetricFamily(
            "portal_evidence_stored_bytes",
            "Bytes of raw evidence kept on disk (failed uploads' files are removed later).",
            value=stored["total"] or 0,
        )
        from .celery import broker_queue_length

        length = broker_queue_length()
        if length is not None:  # None: not Redis, or Redis down (/readyz/ says so)
            yield GaugeMetricFamily(
                "portal_celery_queue_length",
                "Messages waiting in the Celery queue (Redis).",
                value=length,
            )

    @staticmethod
    def _overdue() -> GaugeMetricFamily:
        from .selectors import overdue_uploads

        overdue = GaugeMetricFamily(
            "portal_evidence_uploads_overdue",
            "Uploads queued longer than EVIDENCE_SWEEP_QUEUED_FOR_S, or processing longer than"
            " EVIDENCE_IMPORT_LEASE_S, plus two sweeps: a backlog, or beat's sweeper not running.",
            labels=["status"],
        )
        for status, count in overdue_uploads().items():
            overdue.add_metric([status], count)
        return overdue


def registry() -> CollectorRegistry:
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)
    else:
        for collector in (REQUEST_LATENCY, IMPORT_DURATION, IMPORTS):
            registry.register(collector)
    registry.register(DatabaseCollector())
    return registry


def metrics_view(request: HttpRequest) -> HttpResponse:
    """GET /metrics: 404 unless METRICS_TOKEN is set; then ``Authorization: Bearer <token>``."""
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404
    sent = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(sent.encode(), token.encode()):
        response = HttpResponse("metrics need the bearer token\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


class RequestMetricsMiddleware:
    """Observes each request's latency by view; with LOG_FORMAT=json also logs one line."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed = time.perf_counter() - started
        match = getattr(request, "resolver_match", None)
        view = (match.url_name or match.view_name) if match else "unresolved"
        REQUEST_LATENCY.labels(view, request.method, f"{response.status_code // 100}xx").observe(
            elapsed
        )
        if settings.LOG_FORMAT == "json":
            extra = {
                "event": "request",
                "method": request.method,
                "path": request.path,
                "view": view,
                "status": response.status_code,
                "duration_ms": round(elapsed * 1000, 1),
            }
            upload_id = getattr(response, "upload_id", None)
            if upload_id is not None:
                extra["upload_id"] = upload_id
            logger.info("request", extra={"fields": extra})
        return response


def import_observed(outcome: str, seconds: float, upload_id: int) -> None:
    IMPORT_DURATION.labels(outcome).observe(seconds)
    IMPORTS.labels(outcome).inc()
    if settings.LOG_FORMAT == "json":
        logging.getLogger("portal.imports").info(
            "import",
            extra={
                "fields": {
                    "event": "import",
                    "upload_id": upload_id,
                    "outcome": outcome,
                    "duration_ms": round(seconds * 1000, 1),
                }
            },
        )
