"""The import queue: enqueue an upload's import, sweep lost or stuck ones, re-import."""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from ... import evidence_messages
from ...db import history_record_changes
from ...models import EvidenceUpload, UploadStatus

MAX_IMPORT_ATTEMPTS = 5


def _enqueue_import(upload_id: int) -> None:
    from ...tasks import evidence_import_task

    # Redis may be down: the row stays queued and the sweeper enqueues it later.
    evidence_import_task.delay(upload_id)


def evidence_sweep(*, queued_for: timedelta = timedelta(minutes=2)) -> list[int]:
    """Re-enqueue uploads never enqueued (broker down) or stuck in processing; give up at last.

    Returns the ids enqueued. Safe to run concurrently: each reset is a conditional update.
    """
    now = timezone.now()
    stuck_before = now - timedelta(seconds=settings.EVIDENCE_IMPORT_LEASE_S)
    exhausted = EvidenceUpload.objects.filter(
        Q(status=UploadStatus.QUEUED)
        | Q(status=UploadStatus.PROCESSING, started_at__lt=stuck_before),
        attempts__gte=MAX_IMPORT_ATTEMPTS,
    )
    given_up = list(exhausted.values_list("pk", "candidate_id"))
    abandoned = {candidate_id for _pk, candidate_id in given_up}
    exhausted = exhausted.filter(pk__in=[pk for pk, _candidate_id in given_up])
    with transaction.atomic():
        exhausted.update(
            status=UploadStatus.FAILED,
            finished_at=now,
            error=_("The import was abandoned after %(n)s attempts; upload the file again.")
            % {"n": MAX_IMPORT_ATTEMPTS},
            error_code=evidence_messages.UPLOAD_ABANDONED,
            error_params={"n": MAX_IMPORT_ATTEMPTS},
        )
        # The failure in the uploads' history, as an import's outcome is (see _finish).
        history_record_changes(EvidenceUpload, [pk for pk, _candidate_id in given_up], at=now)
    # An import that finished while these were pending left the refresh to them.
    from ..scores import candidate_refresh

    for candidate_id in sorted(abandoned):
        candidate_refresh(candidate_id=candidate_id, unless_pending=True)
    stuck = EvidenceUpload.objects.filter(
        status=UploadStatus.PROCESSING, started_at__lt=stuck_before
    )
    stuck_ids = list(stuck.values_list("pk", flat=True))
    # Held past the lease (its worker was killed): back in the queue at once.
    stuck.filter(pk__in=stuck_ids).update(
        status=UploadStatus.QUEUED, task_id="", claim_token="", queued_at=now
    )
    due = list(
        EvidenceUpload.objects.filter(
            # Waiting since it last entered the queue, not since it was uploaded: a re-import
            # queues uploads months old, whose messages were sent a moment ago.
            Q(queued_at__lt=now - queued_for) | Q(pk__in=stuck_ids),
            status=UploadStatus.QUEUED,
        ).values_list("pk", flat=True)
    )
    held = set(stuck_ids)
    waiting = [pk for pk in due if pk not in held]
    if waiting and _messages_still_queued(len(waiting)):
        # The broker still holds at least as many messages as uploads wait: theirs are in it,
        # behind a backlog (a re-import of thousands), not lost. Sending them all again at every
        # sweep doubled the queue each time; they are sent again once it has drained.
        due = [pk for pk in due if pk in held]
    for upload_id in due:
        _enqueue_import(upload_id)
    from ..scores import pending_refreshes_overdue

    pending_refreshes_overdue(now=now)
    return due


def _messages_still_queued(count: int) -> bool:
    """Whether the broker's queue holds at least ``count`` messages (Redis only; False when its
    length cannot be read: the uploads are then sent again, as a lost message needs)."""
    from ...celery import broker_queue_length

    length = broker_queue_length()
    return length is not None and length >= count


@dataclass(frozen=True)
class Reimport:
    """What a re-import queued, and how many uploads it left alone because their evaluation
    is decided (its evidence stays what the decision rested on until it is reopened)."""

    queued: int
    kept_decided: int


def evidence_reimport(
    *, older_than_version: str | None = None, evaluation_id: int | None = None
) -> Reimport:
    """Queue finished uploads again (after the parsers improved), of every evaluation or of one.

    Uploads of a decided evaluation are kept as they are and counted: re-parsing would rewrite
    the measurements the decision rested on. Reopening the evaluation queues them
    (``evaluation_reopen``), or a later run of this picks them up. Run inside a transaction:
    the evaluations concerned are locked until it ends, so a decision recorded meanwhile waits
    and no upload of an evaluation decided in between is queued.
    """
    from ...models import Evaluation, EvaluationStatus

    uploads = EvidenceUpload.objects.filter(status__in=[UploadStatus.DONE, UploadStatus.FAILED])
    if older_than_version:
        uploads = uploads.exclude(parser_version=older_than_version)
    evaluations = Evaluation.objects.exclude(status=EvaluationStatus.DECIDED)
    if evaluation_id is not None:
        uploads = uploads.filter(candidate__evaluation_id=evaluation_id)
        evaluations = evaluations.filter(pk=evaluation_id)
    # The lock (decision_record takes the same one) orders this with a decision being recorded.
    open_ids = list(
        evaluations.select_for_update(no_key=True).order_by("pk").values_list("pk", flat=True)
    )
    ids = list(uploads.filter(candidate__evaluation_id__in=open_ids).values_list("pk", flat=True))
    kept = uploads.exclude(candidate__evaluation_id__in=open_ids).count()
    now = timezone.now()
    EvidenceUpload.objects.filter(pk__in=ids).update(
        status=UploadStatus.QUEUED, task_id="", claim_token="", attempts=0, queued_at=now
    )
    # Queued again in the uploads' history (one statement): the import's next outcome reads
    # as a re-import's, after the outcome it replaces.
    history_record_changes(EvidenceUpload, ids, at=now)
    for upload_id in ids:
        transaction.on_commit(lambda upload_id=upload_id: _enqueue_import(upload_id), robust=True)
    return Reimport(queued=len(ids), kept_decided=kept)


@transaction.atomic
def evidence_reimport_all(*, older_than_version: str | None = None) -> int:
    """Queue every finished upload of the undecided evaluations again; returns the count."""
    return evidence_reimport(older_than_version=older_than_version).queued
