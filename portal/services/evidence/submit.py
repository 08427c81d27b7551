"""Accepting an upload: checked, stored once per content and node, and its import queued."""

import hashlib
import logging

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, connection, transaction
from django.db.models import Case, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.evidence import PARSER_VERSION
from scoring.evidence.bundle import ARCHIVE_HEAD_BYTES, reads_as_archive

from ... import evidence_messages
from ...db import history_record_changes, insert_with_history
from ...metric_labels import size_with_bytes
from ...models import Candidate, EvidenceUpload, UploadStatus, UploadToken
from ..errors import ensure_not_decided
from ..text import clean_text
from .nodes import _clean_node, sent_node_mismatch
from .queueing import _enqueue_import
from .storage import (
    DISK_FULL_ERRNOS,
    UploadTooLarge,
    evidence_quota_check,
    media_room_check,
    storage_full_error,
)

logger = logging.getLogger(__name__)


def _sha256(uploaded: UploadedFile) -> tuple[str, bytes]:
    """The upload's sha256 and its first ARCHIVE_HEAD_BYTES (enough to tell an archive)."""
    digest = hashlib.sha256()
    head = b""
    for chunk in uploaded.chunks():
        digest.update(chunk)
        if len(head) < ARCHIVE_HEAD_BYTES:
            head += chunk[: ARCHIVE_HEAD_BYTES - len(head)]
    uploaded.seek(0)
    return digest.hexdigest(), head


def _clean_name(name: str) -> str:
    # Only a label for people: the stored path derives from the content hash.
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return clean_text(base).strip()[:255] or "upload"


def _existing_upload(
    *, candidate_id: int, sha256: str, node: str | None, unnamed_first: bool = False
) -> EvidenceUpload | None:
    """The candidate's upload of this content for ``node`` (its content_node), if any
    ((candidate, sha256, content_node) is unique). With ``node`` None, its upload of this
    content for any node: a bundle's (there is one at most: its content_node is empty, or its
    node name on rows older than migration 0049, which were unique per content), or, with
    ``unnamed_first``, a loose file's, the one sent for no node if there is one, else the
    first. The unique index's (candidate, sha256) prefix serves each."""
    if connection.vendor == "postgresql":
        # Every upload asks, and almost every one finds nothing: its id alone, written out,
        # rather than the ORM's compilation of a select of every column (the row is read
        # only when there is one).
        sql = "SELECT id FROM portal_evidenceupload WHERE candidate_id = %s AND sha256 = %s"
        params: list = [candidate_id, sha256]
        if node is not None:
            sql += " AND content_node = %s"
            params.append(node)
        elif unnamed_first:
            # One row per node at most: sorting them costs nothing.
            sql += " ORDER BY content_node <> '', id"
        with connection.cursor() as cursor:
            cursor.execute(sql + " LIMIT 1", params)
            found = cursor.fetchone()
        return None if found is None else EvidenceUpload.objects.get(pk=found[0])
    uploads = EvidenceUpload.objects.filter(candidate_id=candidate_id, sha256=sha256).order_by()
    if node is not None:
        uploads = uploads.filter(content_node=node)
    elif unnamed_first:
        uploads = uploads.order_by(
            Case(When(content_node="", then=Value(0)), default=Value(1)), "pk"
        )
    return uploads.first()


def evidence_submit(
    *,
    candidate: Candidate,
    uploaded_file: UploadedFile,
    node_name: str = "",
    token: UploadToken | None = None,
    user=None,
    quota_room: int | None = None,
) -> tuple[EvidenceUpload, bool]:
    """Store an upload and queue its import; returns (upload, created).

    The same content for the same candidate and node is recognised: the upload received
    earlier is returned with created False and nothing is imported twice, except a failed
    import that sending the file again may mend (see _retry_failed): it is queued again, and
    the upload returned has ``requeued`` True (False on every other upload returned).

    The node is the one ``node_name`` names, else the token's. A loose file sent for another
    node than the candidate's earlier upload of the same bytes is a new upload, that node's
    (identical plain outputs are common across nodes: see EvidenceUpload.content_node). A
    bundle names its node itself (its manifest): the same bundle is the upload received
    earlier whatever node it is sent for, and so is a loose file sent for no node once any
    node sent it.

    ``quota_room`` is what ``evidence_quota_check`` returned for this request's token and
    candidate moments before (the API's check before the body): a file that fits in it is not
    summed again.
    """
    size = uploaded_file.size or 0
    limit = settings.EVIDENCE_MAX_UPLOAD_BYTES
    # Hashed before the transaction: the evaluation's row is not held for it.
    digest, head = _sha256(uploaded_file) if 0 < size <= limit else ("", b"")
    node_name = _clean_node(node_name)
    sent_for = (node_name or (token.node_name if token else ""))[:200]
    archive = reads_as_archive(head)
    content_node = "" if archive else sent_for
    stored = ""
    try:
        with transaction.atomic():
            # The evaluation's status, read once and share-locked until the upload is stored:
            # a decision being recorded (it locks the row for update) either commits first,
            # and this refuses, or waits for this upload and then refuses while it waits.
            ensure_not_decided(candidate.evaluation, share_lock=True)
            if size == 0:
                raise ValidationError({"file": _("The file is empty.")})
            if size > limit:
                raise UploadTooLarge(
                    {
                        "file": _("The file is %(size)s; the limit is %(limit)s.")
                        % {"size": size_with_bytes(size), "limit": size_with_bytes(limit)}
                    }
                )
            existing = _existing_upload(
                candidate_id=candidate.pk,
                sha256=digest,
                node=content_node or None,
                unnamed_first=not archive,
            )
            if existing is not None:
                existing.requeued = _retry_failed(existing, uploaded_file)
                return existing, False
            if quota_room is None or size > quota_room:
                evidence_quota_check(
                    candidate_id=candidate.pk, token_id=token.pk if token else None, size=size
                )
            mismatch = sent_node_mismatch(token, node_name)
            upload = EvidenceUpload(
                candidate=candidate,  # its evaluation is copied by the field (pre_save)
                original_name=_clean_name(uploaded_file.name or ""),
                sha256=digest,
                size_bytes=size,
                node_name=sent_for,
                content_node=content_node,
                token=token,
                uploaded_by=user if user is not None and user.is_authenticated else None,
                # Flagged from the start (the import keeps or refines it): the answer to the
                # upload and the pages listing it while it waits already say so.
                error_params={evidence_messages.NODE_MISMATCH: mismatch} if mismatch else {},
            )
            media_room_check(size=size)
            try:
                upload.file.save(digest, uploaded_file, save=False)
            except OSError as exc:
                if exc.errno not in DISK_FULL_ERRNOS:
                    raise
                # Django's storage leaves the part it wrote: removed, or the disk stays full.
                _delete_partial(upload, size=size)
                raise storage_full_error(size=size) from exc
            stored = upload.file.name
            insert_with_history(upload)
            transaction.on_commit(lambda: _enqueue_import(upload.pk), robust=True)
    except IntegrityError:
        # The same content for the same node arrived concurrently: keep the first, drop our
        # copy of the file.
        _delete_stored(stored)
        first = _existing_upload(candidate_id=candidate.pk, sha256=digest, node=content_node)
        if first is None:
            raise
        first.requeued = False
        return first, False
    except BaseException:
        # Refused (the evaluation decided meanwhile) or failed: nothing stays behind.
        _delete_stored(stored)
        raise
    upload.requeued = False
    return upload, True


# Failures the content did not cause: their messages ask for the file to be sent again.
RETRIED_ON_RESEND = frozenset(
    (
        evidence_messages.UPLOAD_ABANDONED,
        evidence_messages.UPLOAD_FILE_MISSING,
        evidence_messages.UPLOAD_INTERNAL_ERROR,
    )
)


def _retry_failed(existing: EvidenceUpload, uploaded_file: UploadedFile) -> bool:
    """Queue ``existing`` (the candidate's upload of this very content) again when its import
    failed for a reason sending the file again may mend: the import was abandoned, stopped on
    an unexpected error or found its stored file missing (each message says "upload the file
    again"), or it was read by older parsers than these. A file the current parsers refused is
    left failed: it would fail the same way. A missing stored file is stored again from the
    bytes just sent (the same content, by its sha256). Returns whether it was queued. Runs in
    the submission's transaction; the row is locked, so two such uploads queue it once."""
    if existing.status != UploadStatus.FAILED:
        return False
    if existing.error_code not in RETRIED_ON_RESEND and existing.parser_version == PARSER_VERSION:
        return False
    upload = EvidenceUpload.objects.select_for_update().get(pk=existing.pk)
    if upload.status != UploadStatus.FAILED:
        return False
    storage = upload.file.storage
    if not upload.file.name or not storage.exists(upload.file.name):
        media_room_check(size=upload.size_bytes)
        uploaded_file.seek(0)
        upload.file.save(upload.sha256, uploaded_file, save=False)
    now = timezone.now()
    EvidenceUpload.objects.filter(pk=upload.pk).update(
        file=upload.file.name,
        status=UploadStatus.QUEUED,
        queued_at=now,
        finished_at=None,
        attempts=0,
        task_id="",
        claim_token="",
        error="",
        error_code="",
        error_params={},
    )
    # Queued again in the upload's history, as a re-import is.
    history_record_changes(EvidenceUpload, [upload.pk], at=now)
    transaction.on_commit(lambda: _enqueue_import(upload.pk), robust=True)
    existing.refresh_from_db()
    return True


def _delete_partial(upload: EvidenceUpload, *, size: int) -> None:
    """Delete what a write cut short by a full disk left at the upload's name: only a file
    shorter than the upload (a complete one is a concurrent upload's of the same content)."""
    field = upload._meta.get_field("file")
    name = field.generate_filename(upload, upload.sha256)
    try:
        if field.storage.exists(name) and field.storage.size(name) < size:
            field.storage.delete(name)
    except OSError:
        logger.exception("could not delete the partial evidence file %s", name)


def _delete_stored(name: str) -> None:
    if name:
        EvidenceUpload._meta.get_field("file").storage.delete(name)
