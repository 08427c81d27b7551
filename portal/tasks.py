"""Celery tasks: thin interfaces that take ids, call one service and carry the retry policy."""

import socket
import time
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from .metrics import import_observed
from .models import WorkerHeartbeat
from .services.evidence import evidence_failed_cleanup, evidence_import, evidence_sweep
from .services.results import results_warm_due

# A task that writes imported evidence or scores: acknowledged only once done (a killed worker's
# task is delivered again) and retried through database outages.
DURABLE = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 2,
    "retry_backoff_max": 120,
    "retry_jitter": True,
    "max_retries": 5,
}


@shared_task(name="portal.tasks.worker_heartbeat_task")
def worker_heartbeat_task() -> str:
    """Record that a worker on this host is alive (scheduled by beat; read by /readyz/)."""
    hostname = socket.gethostname()
    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"seen_at": timezone.now()}
    )
    return hostname


@shared_task(name="portal.tasks.evidence_import_task", bind=True, **DURABLE)
def evidence_import_task(self, upload_id: int) -> str | None:
    """Import one upload. Database outages are retried; a parse failure is a result."""
    started = time.perf_counter()
    try:
        upload = evidence_import(upload_id=upload_id, task_id=self.request.id or "")
    except Exception:
        import_observed("error", time.perf_counter() - started, upload_id)
        raise
    outcome = upload.status if upload else "skipped"
    import_observed(str(outcome), time.perf_counter() - started, upload_id)
    return upload.status if upload else None


@shared_task(name="portal.tasks.candidate_refresh_task", **DURABLE)
def candidate_refresh_task(candidate_id: int) -> bool:
    """Run a candidate's pending refresh (queued, due at its time, by an import that left it
    pending); the sweeper runs one whose task was lost."""
    from .services.scores import candidate_refresh_pending

    return candidate_refresh_pending(candidate_id=candidate_id) is not None


@shared_task(name="portal.tasks.evidence_sweep_task")
def evidence_sweep_task() -> int:
    """Re-enqueue uploads left queued (broker down at upload time) or stuck in processing, run
    the pending refreshes whose task was lost, delete the raw files of uploads that failed
    longer ago than the retention period, and fail the report PDFs whose render was lost (the
    report page stops polling and the member can ask again)."""
    from .services.reports import report_pdf_sweep

    queued_for = timedelta(seconds=settings.EVIDENCE_SWEEP_QUEUED_FOR_S)
    enqueued = len(evidence_sweep(queued_for=queued_for))
    evidence_failed_cleanup()
    report_pdf_sweep()
    return enqueued


@shared_task(name="portal.tasks.report_pdf_task", soft_time_limit=80, time_limit=90)
def report_pdf_task(pdf_id: int) -> str | None:
    """Render one requested report PDF with headless Chromium."""
    from .services.reports import report_pdf_render

    pdf = report_pdf_render(pdf_id=pdf_id)
    return pdf.status if pdf else None


@shared_task(name="portal.tasks.poc_deadline_reminders_task")
def poc_deadline_reminders_task() -> int:
    """Beat, hourly: mail about POC deadlines two days away (once per deadline)."""
    from .services.poc import poc_deadline_reminders_send

    return poc_deadline_reminders_send()


@shared_task(name="portal.tasks.poc_deadlines_task")
def poc_deadlines_task() -> int:
    """Beat, every 10 minutes: rescore candidates whose POC deadline has just passed, so that
    their missing runs count in the ranking (idempotent)."""
    from .services.poc import poc_deadlines_apply

    return poc_deadlines_apply()


@shared_task(name="portal.tasks.evidence_expiry_rescore_task")
def evidence_expiry_rescore_task() -> int:
    """Beat, every 5 minutes: verify and score again the candidates of undecided evaluations
    whose evidence passed the maximum evidence age since they were scored (idempotent)."""
    from .services.scores import evidence_expiry_rescore

    return len(evidence_expiry_rescore())


@shared_task(
    name="portal.tasks.results_warm_task",
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    max_retries=3,
    ignore_result=True,
)
def results_warm_task(evaluation_id: int) -> str:
    """Compute and store an evaluation's results read model, once its changes have settled."""
    return results_warm_due(evaluation_id=evaluation_id)
