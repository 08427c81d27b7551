"""Importing evidence: claim an upload and its candidate's waiting ones, parse, write."""

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from ...models import EvidenceUpload, UploadStatus
from .. import notifications
from .outcome import _outcome_guarded
from .write import _finish_guarded


def _processing(task_id: str, claim_token: str) -> dict[str, Any]:
    return {
        "status": UploadStatus.PROCESSING,
        "started_at": timezone.now(),
        "finished_at": None,
        "attempts": F("attempts") + 1,
        "task_id": task_id,
        "claim_token": claim_token,
    }


def _claim(upload_id: int, task_id: str) -> str | None:
    """Move the upload to processing for this attempt; None when someone else holds it."""
    now = timezone.now()
    stale_before = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    claim_token = uuid.uuid4().hex
    # A redelivered message (its worker was killed) keeps its task id and may take over at once.
    if connection.vendor == "postgresql":
        # Every task runs it (those of uploads a batch took along find nothing): written out,
        # without the ORM's compilation of the conditions.
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE portal_evidenceupload SET status = %s, started_at = %s,"
                " finished_at = NULL, attempts = attempts + 1, task_id = %s, claim_token = %s"
                " WHERE id = %s AND (status = %s OR (status = %s"
                " AND ((%s <> '' AND task_id = %s) OR started_at < %s)))",
                [
                    UploadStatus.PROCESSING,
                    now,
                    task_id,
                    claim_token,
                    upload_id,
                    UploadStatus.QUEUED,
                    UploadStatus.PROCESSING,
                    task_id,
                    task_id,
                    stale_before,
                ],
            )
            return claim_token if cursor.rowcount else None
    same_task = Q(task_id=task_id) if task_id else Q(pk__in=[])
    claimable = Q(status=UploadStatus.QUEUED) | (
        Q(status=UploadStatus.PROCESSING) & (same_task | Q(started_at__lt=stale_before))
    )
    claimed = EvidenceUpload.objects.filter(claimable, pk=upload_id).update(
        **_processing(task_id, claim_token)
    )
    return claim_token if claimed else None


def _claim_more(
    first: EvidenceUpload, task_id: str, claim_token: str, have: list[EvidenceUpload]
) -> list[EvidenceUpload]:
    """Also claim, under the same task id and token, other uploads of the same candidate that
    wait in the queue (or that this task id held when its worker was lost), oldest first, so
    that the batch (``have`` so far) holds at most EVIDENCE_IMPORT_BATCH. Rows another worker
    holds or is claiming are skipped, never waited for. Their own messages, when delivered,
    then find nothing to claim."""
    limit = settings.EVIDENCE_IMPORT_BATCH - len(have)
    if limit <= 0:
        return []
    if connection.vendor == "postgresql":
        return _claim_more_postgresql(first, task_id, claim_token, have, limit)
    mine = Q(status=UploadStatus.PROCESSING, task_id=task_id) if task_id else Q(pk__in=[])
    with transaction.atomic():
        more = list(
            EvidenceUpload.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(Q(status=UploadStatus.QUEUED) | mine, candidate_id=first.candidate_id)
            .exclude(pk__in=[upload.pk for upload in have])
            .order_by("pk")
            # The token's nonce tells collector evidence (_origin): joined, not a query each.
            .select_related("token")
            .defer("report")[:limit]
        )
        if more:
            EvidenceUpload.objects.filter(pk__in=[u.pk for u in more]).update(
                **_processing(task_id, claim_token)
            )
    return more


def _claim_more_postgresql(
    first: EvidenceUpload,
    task_id: str,
    claim_token: str,
    have: list[EvidenceUpload],
    limit: int,
) -> list[EvidenceUpload]:
    """``_claim_more`` as one statement: the rows are chosen, locked (skipping those another
    worker holds) and claimed by a single UPDATE, and read only when there are any. Most
    calls of a batch find nothing; they were a transaction of three statements each."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE portal_evidenceupload SET status = %s, started_at = %s,"
            " finished_at = NULL, attempts = attempts + 1, task_id = %s, claim_token = %s"
            # ARRAY(...) is evaluated once: an IN (subquery) may be planned as a join and
            # re-run, locking past its LIMIT.
            " WHERE id = ANY(ARRAY("
            " SELECT id FROM portal_evidenceupload"
            " WHERE candidate_id = %s AND NOT (id = ANY(%s))"
            " AND (status = %s OR (%s <> '' AND status = %s AND task_id = %s))"
            " ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED))"
            " RETURNING id",
            [
                UploadStatus.PROCESSING,
                timezone.now(),
                task_id,
                claim_token,
                first.candidate_id,
                [upload.pk for upload in have],
                UploadStatus.QUEUED,
                task_id,
                UploadStatus.PROCESSING,
                task_id,
                limit,
            ],
        )
        claimed = [row[0] for row in cursor.fetchall()]
    if not claimed:
        return []
    # The token's nonce tells collector evidence (_origin): joined, not a query each.
    return list(
        EvidenceUpload.objects.filter(pk__in=claimed)
        .order_by("pk")
        .select_related("token")
        .defer("report")
    )


def evidence_import(*, upload_id: int, task_id: str) -> EvidenceUpload | None:
    """Import one upload, and with it the other uploads of its candidate waiting in the queue
    (up to EVIDENCE_IMPORT_BATCH in all): parse each, replace each one's measurements, all
    in one transaction, and refresh the candidate's scores once (or leave that to its pending
    refresh: ``scores.candidate_refresh_after_import``). Returns ``upload_id``'s
    upload, or None when there is nothing to do (finished, or another attempt holds it).

    A rejected bundle (or a time out of range: scoring.evidence.times) or a file that parses
    to nothing marks its upload failed with a message the uploader can act on, and leaves the
    others of the batch alone; nothing partial is written either way. So does an unexpected
    exception, with a generic message (and the traceback in the log).
    """
    claim_token = _claim(upload_id, task_id)
    if claim_token is None:
        return None
    # The previous reports are not needed: they are replaced.
    first = EvidenceUpload.objects.defer("report").select_related("token").get(pk=upload_id)
    uploads, outcomes = [first], []
    # Uploads of the candidate that arrive while the batch is parsed join it (up to the
    # batch's size): one transaction, one summary write and one re-verification for all.
    while True:
        outcomes += [_outcome_guarded(upload) for upload in uploads[len(outcomes) :]]
        more = _claim_more(first, task_id, claim_token, have=uploads)
        if not more:
            break
        uploads += more
    written = _finish_guarded(uploads, outcomes, claim_token)
    notifications.notify_imports_failed(uploads=written)
    return first if first in written else None
