"""Stored files of rows being deleted: removed from disk once the deletion has committed."""

import logging
from collections.abc import Iterable

from django.db import transaction

from ..models import AnswerAttachment, EvidenceUpload

logger = logging.getLogger(__name__)


def stored_files(
    *, candidate_ids: Iterable[int] = (), upload_ids: Iterable[int] = ()
) -> list[tuple[type, str]]:
    """The (model, file name) of every stored file the deletion of these candidates or uploads
    takes with it by cascade: evidence uploads and answer attachments. Read before deleting."""
    candidate_ids, upload_ids = list(candidate_ids), list(upload_ids)
    found: list[tuple[type, str]] = []
    if candidate_ids or upload_ids:
        uploads = EvidenceUpload.objects.filter(candidate_id__in=candidate_ids) | (
            EvidenceUpload.objects.filter(pk__in=upload_ids)
        )
        found += [(EvidenceUpload, name) for name in uploads.values_list("file", flat=True)]
    if candidate_ids:
        attachments = AnswerAttachment.objects.filter(answer__candidate_id__in=candidate_ids)
        found += [(AnswerAttachment, name) for name in attachments.values_list("file", flat=True)]
    return [(model, name) for model, name in found if name]


def stored_files_delete_on_commit(files: list[tuple[type, str]]) -> None:
    """Delete ``files`` ((model, file name): from ``stored_files``, or any model whose field
    ``file`` stored them) once the current transaction commits; nothing if it rolls back. A
    file already gone is fine; one that cannot be deleted is logged."""
    if not files:
        return

    def delete() -> None:
        for model, name in files:
            try:
                model._meta.get_field("file").storage.delete(name)
            except OSError:
                logger.warning("could not delete stored file %s", name, exc_info=True)

    transaction.on_commit(delete, robust=True)
