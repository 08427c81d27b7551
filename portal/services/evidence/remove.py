"""Removing evidence: delete an upload with a record of it, or retract a failed one."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from ...models import EvidenceDeletion, EvidenceUpload, UploadStatus, UploadToken
from ..errors import ensure_not_decided
from ..files import stored_files, stored_files_delete_on_commit
from ..text import clean_note


@transaction.atomic
def evidence_upload_delete(*, upload: EvidenceUpload, reason: str, by) -> EvidenceDeletion:
    """Delete an upload with its measurements, keeping a record of what it was, who deleted
    it and why; refused on a decided evaluation. The candidate is re-verified without it."""
    from ..scores import candidate_refresh

    upload = (
        EvidenceUpload.objects.select_for_update().select_related("candidate").get(pk=upload.pk)
    )
    ensure_not_decided(upload.candidate.evaluation)
    reason = clean_note(reason)
    if not reason:
        raise ValidationError({"reason": _("Say why the evidence is deleted.")})
    record = EvidenceDeletion.objects.create(
        candidate=upload.candidate,
        upload_id=upload.pk,
        original_name=upload.original_name,
        sha256=upload.sha256,
        node_name=upload.node_name,
        status=upload.status,
        measurement_count=upload.measurements.count(),
        reason=reason,
        deleted_by=by,
    )
    files = stored_files(upload_ids=[upload.pk])
    upload.delete()
    stored_files_delete_on_commit(files)
    candidate_refresh(candidate_id=record.candidate_id, rebuild=True)
    return record


class RetractRefused(ValidationError):
    """Only the uploader, or the creator of the upload token it was sent with, may retract an
    upload, and only one whose import failed."""


def may_retract(*, uploaded_by_id, token_creator_id, user_id) -> bool:
    """Whether a failed upload is ``user_id``'s to retract: it is if they uploaded it (through
    the page, or the API with their session), or made the upload token it was sent with (the
    collector's uploads have no uploader: the token's creator answers for them). An upload
    records its token, and a token is revoked, never deleted, so the link stays honest."""
    if user_id is None:
        return False
    return user_id in (uploaded_by_id, token_creator_id)


@transaction.atomic
def evidence_retract(*, upload: EvidenceUpload, by) -> None:
    """Remove a failed upload at the request of its uploader, or of the member who made the
    upload token it was sent with, recorded in History as ``by``'s; the same file can then be
    uploaded again. The stored file goes once the removal is committed."""
    upload = EvidenceUpload.objects.select_for_update().get(pk=upload.pk)
    ensure_not_decided(upload.candidate.evaluation)
    token_creator_id = (
        UploadToken.objects.filter(pk=upload.token_id)
        .values_list("created_by_id", flat=True)
        .first()
        if upload.token_id
        else None
    )
    if not may_retract(
        uploaded_by_id=upload.uploaded_by_id,
        token_creator_id=token_creator_id,
        user_id=getattr(by, "pk", None),
    ):
        raise RetractRefused(
            _(
                "Only the person who uploaded a file, or who made the upload token it was sent "
                "with, can retract it."
            )
        )
    if upload.status != UploadStatus.FAILED:
        raise RetractRefused(
            _("Only an upload whose import failed can be retracted; this one is %(status)s.")
            % {"status": upload.get_status_display()}
        )
    files = stored_files(upload_ids=[upload.pk])
    upload._history_user = by
    upload.delete()
    stored_files_delete_on_commit(files)
