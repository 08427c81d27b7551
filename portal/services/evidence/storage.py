"""Evidence storage: the upload size limit, byte quotas, usage and failed files' cleanup."""

import errno
import logging
import shutil
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from ...metric_labels import size_with_bytes
from ...models import EvidenceUpload, UploadStatus
from ..files import stored_files_delete_on_commit

logger = logging.getLogger(__name__)


class UploadTooLarge(ValidationError):
    """The upload is above EVIDENCE_MAX_UPLOAD_BYTES."""


class QuotaExceeded(ValidationError):
    """Storing the upload would pass the byte quota of its upload token or its candidate."""


class StorageFull(QuotaExceeded):
    """The media volume has no room for the upload (or would keep less than
    EVIDENCE_MEDIA_MIN_FREE_BYTES free): answered like a quota, 507, and nothing is stored."""


# A write failing with one of these is the disk's (or its quota's) fault, not the upload's.
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def storage_full_error(*, size: int) -> StorageFull:
    logger.error(
        "evidence storage full: an upload of %d bytes was refused (MEDIA_ROOT %s)",
        size,
        settings.MEDIA_ROOT,
    )
    return StorageFull(
        {
            "file": _(
                "The portal's evidence storage is full, so nothing was stored. Try again "
                "later and tell the portal's operator."
            )
        }
    )


def media_room_check(*, size: int) -> None:
    """Raise StorageFull when storing ``size`` bytes would leave the media volume with less
    than EVIDENCE_MEDIA_MIN_FREE_BYTES free (a volume not created yet is not checked)."""
    try:
        free = shutil.disk_usage(settings.MEDIA_ROOT).free
    except FileNotFoundError:
        return
    if free - size < settings.EVIDENCE_MEDIA_MIN_FREE_BYTES:
        raise storage_full_error(size=size)


def _stored_bytes(*, candidate_id: int | None, token_id: int | None) -> dict[str, int | None]:
    """Bytes still on disk (a failed upload whose raw file was cleaned up counts no more) of
    the candidate's uploads and of the token's, in one statement; None where not asked."""
    if connection.vendor == "postgresql":
        # Every upload runs it: written out, it skips the ORM's compilation of two filtered
        # sums (a millisecond of the web process's CPU per upload).
        with connection.cursor() as cursor:
            cursor.execute(
                'SELECT SUM("portal_evidenceupload"."size_bytes") FILTER (WHERE candidate_id = %s),'
                ' SUM("portal_evidenceupload"."size_bytes") FILTER (WHERE token_id = %s)'
                " FROM portal_evidenceupload"
                " WHERE (candidate_id = %s OR token_id = %s) AND file <> ''",
                [candidate_id, token_id, candidate_id, token_id],
            )
            sums = cursor.fetchone()
        # SUM of a bigint is a numeric: as integers, like the ORM's.
        candidate_sum, token_sum = (None if total is None else int(total) for total in sums)
        return {"candidate": candidate_sum, "token": token_sum}
    sums, scope = {}, Q(pk__in=[])
    if candidate_id is not None:
        sums["candidate"] = Sum("size_bytes", filter=Q(candidate_id=candidate_id))
        scope |= Q(candidate_id=candidate_id)
    if token_id is not None:
        sums["token"] = Sum("size_bytes", filter=Q(token_id=token_id))
        scope |= Q(token_id=token_id)
    return EvidenceUpload.objects.filter(scope).exclude(file="").aggregate(**sums)


def evidence_quota_check(*, candidate_id: int, token_id: int | None, size: int) -> int | None:
    """Raise QuotaExceeded when ``size`` more bytes would pass a quota (0 means no quota).

    Returns the room the quotas left before ``size`` (the fewest bytes still free under any
    of them), None when no quota applies. The API calls it with the declared length before
    the body is read and hands the room to ``evidence_submit``, which sums again only when
    the real file does not fit in it; other callers are checked by ``evidence_submit``
    with the real size. Concurrent uploads can pass a quota by at most their own sizes.
    """
    candidate_quota = settings.EVIDENCE_QUOTA_CANDIDATE_BYTES
    token_quota = settings.EVIDENCE_QUOTA_TOKEN_BYTES if token_id is not None else 0
    if not (candidate_quota or token_quota):
        return None
    stored = _stored_bytes(
        candidate_id=candidate_id if candidate_quota else None,
        token_id=token_id if token_quota else None,
    )
    room = None
    for quota, name in ((candidate_quota, "candidate"), (token_quota, "token")):
        if not quota:
            continue
        used = stored[name] or 0
        room = quota - used if room is None else min(room, quota - used)
        if used + size > quota:
            raise QuotaExceeded(
                {
                    "file": _(
                        "The storage quota is used up: %(used)s of %(quota)s are stored "
                        "and this upload is %(size)s. Ask the procurement lead to remove "
                        "old evidence or raise the quota."
                    )
                    % {
                        "used": size_with_bytes(used),
                        "quota": size_with_bytes(quota),
                        "size": size_with_bytes(size),
                    }
                }
            )
    return room


def evidence_failed_cleanup(*, older_than: timedelta | None = None) -> int:
    """Delete the raw files of uploads that failed more than ``older_than`` ago (default
    EVIDENCE_FAILED_RETENTION_HOURS); the row and its error stay. Returns the files deleted."""
    if older_than is None:
        older_than = timedelta(hours=settings.EVIDENCE_FAILED_RETENTION_HOURS)
    cutoff = timezone.now() - older_than
    deleted = 0
    candidates = EvidenceUpload.objects.filter(
        status=UploadStatus.FAILED, finished_at__lt=cutoff
    ).exclude(file="")
    for upload_id, name in candidates.values_list("pk", "file"):
        with transaction.atomic():
            # Only while it is still failed: a re-import queued meanwhile keeps its file.
            changed = (
                EvidenceUpload.objects.filter(pk=upload_id, status=UploadStatus.FAILED)
                .exclude(file="")
                .update(file="")
            )
            if changed:
                stored_files_delete_on_commit([(EvidenceUpload, name)])
                deleted += 1
    if deleted:
        logger.info("evidence cleanup: deleted %d raw files of failed uploads", deleted)
    return deleted


def evidence_usage() -> list[dict[str, Any]]:
    """Bytes stored per evaluation and candidate (raw files still on disk), largest first."""
    rows = (
        EvidenceUpload.objects.exclude(file="")
        .values(
            "candidate_id",
            "candidate__evaluation_id",
            "candidate__evaluation__name",
        )
        .annotate(stored_bytes=Sum("size_bytes"), uploads=Count("pk"))
        .order_by("candidate__evaluation_id", "-stored_bytes", "candidate_id")
    )
    return [
        {
            "evaluation_id": row["candidate__evaluation_id"],
            "evaluation": row["candidate__evaluation__name"],
            "candidate_id": row["candidate_id"],
            "uploads": row["uploads"],
            "stored_bytes": row["stored_bytes"] or 0,
        }
        for row in rows
    ]
