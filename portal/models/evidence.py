"""Evidence: upload tokens, the raw uploads as received and the measurements parsed from them."""

import hashlib
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from .choices import EvidenceOrigin, UploadStatus
from .evaluations import Candidate, Evaluation

TOKEN_PREFIX = "gpt_"  # noqa: S105 - a public marker that makes leaked tokens greppable


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class UploadTokenQuerySet(models.QuerySet):
    def usable(self):
        return self.filter(revoked_at__isnull=True, expires_at__gt=timezone.now())


class UploadToken(models.Model):
    """A bearer token scoped to one candidate of one evaluation; only its hash is stored."""

    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="upload_tokens"
    )
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="upload_tokens")
    node_name = models.CharField(_("node name"), max_length=200, blank=True)
    label = models.CharField(_("label"), max_length=200, blank=True)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    token_prefix = models.CharField(max_length=12, editable=False)
    nonce = models.CharField(max_length=64, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"))
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    history = HistoricalRecords(excluded_fields=["last_used_at"])

    objects = UploadTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("upload token")
        verbose_name_plural = _("upload tokens")

    def __str__(self) -> str:
        return f"{self.token_prefix}… ({self.candidate})"

    @staticmethod
    def generate() -> str:
        return TOKEN_PREFIX + secrets.token_urlsafe(32)

    @property
    def is_usable(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()


def upload_path(instance: "EvidenceUpload", filename: str) -> str:
    # The stored name never derives from the client's file name: only from the content hash,
    # in a folder of its node when the content is a node's (see content_node), named by a
    # digest of the node's name (which is any text): each node's copy is a file of its own, so
    # deleting one node's upload never takes another's file.
    folder = f"evidence/{instance.candidate_id}"
    if instance.content_node:
        node = instance.content_node.encode("utf-8", "backslashreplace")
        folder += "/node-" + hashlib.sha256(node).hexdigest()[:16]
    return f"{folder}/{instance.sha256}"


class CandidateEvaluationField(models.ForeignKey):
    """The row's candidate's evaluation, taken from the candidate when the row is written
    without one: by save(), bulk_create() and portal.db.insert_with_history alike (each
    reads every field's pre_save). Rows written by COPY (portal.db.copy_rows) carry it."""

    def pre_save(self, model_instance, add):
        if getattr(model_instance, self.attname) is None and model_instance.candidate_id:
            setattr(model_instance, self.attname, model_instance.candidate.evaluation_id)
        return super().pre_save(model_instance, add)


class EvidenceUpload(models.Model):
    """A raw file or bundle exactly as received, and the state of its import."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="uploads")
    # The candidate's evaluation, kept on the row so that an evaluation's newest uploads (the
    # API's list) are one index range, not a sort of every upload of its candidates. A
    # candidate never changes evaluation; on PostgreSQL a foreign key on (candidate,
    # evaluation) to the candidate's own pair keeps the two from ever disagreeing
    # (migration 0035). Taken from the candidate when not given.
    evaluation = CandidateEvaluationField(
        "Evaluation",
        on_delete=models.CASCADE,
        related_name="+",
        editable=False,
        db_index=False,  # upload_eval_recent_idx leads with it
    )
    file = models.FileField(_("file"), upload_to=upload_path, max_length=300)
    original_name = models.CharField(_("original name"), max_length=255)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"))
    node_name = models.CharField(_("node name"), max_length=200, blank=True)
    # Whose evidence these bytes are, as the candidate's uploads of one content are told
    # apart: a loose file's node name as sent (the form's, else its token's; the import never
    # changes a loose file's node name); empty for an archive, whose manifest names its host
    # (two nodes never send the same bundle: it is found by its content alone), and for a file
    # sent for no node. Plain outputs are often byte-identical on every node of one offering
    # (topo -m, lscpu, dmidecode without serials): (candidate, sha256, content_node) is
    # unique, so each node keeps an upload of its own. Rows stored before migration 0049,
    # unique per content, took their node name.
    content_node = models.CharField(max_length=200, blank=True, default="", editable=False)
    status = models.CharField(
        _("status"), max_length=12, choices=UploadStatus.choices, default=UploadStatus.QUEUED
    )
    error = models.TextField(_("error"), blank=True)
    # ``error`` as data, so that it can be shown in the reader's language
    # (portal/evidence_messages.py); empty on rows stored before codes existed.
    error_code = models.CharField(_("error code"), max_length=60, blank=True)
    error_params = models.JSONField(_("error parameters"), default=dict, blank=True)
    report = models.JSONField(_("per-file report"), default=list, blank=True)
    parser_version = models.CharField(_("parser version"), max_length=20, blank=True)
    token = models.ForeignKey(
        UploadToken, on_delete=models.SET_NULL, null=True, blank=True, related_name="uploads"
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    origin = models.CharField(
        _("origin"),
        max_length=12,
        choices=EvidenceOrigin.choices,
        blank=True,
        default=EvidenceOrigin.PENDING,
        help_text=_(
            "Collector: the bundle carried its upload token's nonce. Unverified: it did not "
            "(shown, never used). By hand: a member uploaded it through the page."
        ),
    )
    measured_at = models.DateTimeField(
        _("measured at"),
        null=True,
        blank=True,
        help_text=_("When the tools ran (from the outputs or the manifest), not the upload."),
    )
    fingerprint = models.JSONField(
        _("node fingerprint"),
        default=dict,
        blank=True,
        help_text=_("GPU UUIDs and serials, board and system serials, HCA GUIDs, MACs."),
    )
    # Who holds the import: the Celery task id (a redelivered message keeps it) and a fresh
    # token per claim, checked under a row lock before anything is written.
    task_id = models.CharField(max_length=64, blank=True, editable=False)
    claim_token = models.CharField(max_length=32, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the upload last entered the queue: its upload, a re-import, or a reset after its
    # worker was lost. The sweeper and the overdue counts measure a wait from here, so a
    # re-import of old uploads is not overdue the moment it is queued. Empty on uploads that
    # finished before the field existed (migration 0048 fills those still waiting).
    queued_at = models.DateTimeField(_("queued at"), null=True, blank=True, default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Who uploaded what, who retracted a failed upload, and each import's outcome (imports and
    # the sweeper write with update(), then add the row themselves: db.history_record_changes).
    history = HistoricalRecords(
        excluded_fields=[
            "evaluation",  # the candidate's, recorded in the history through the candidate
            "content_node",  # the node name as sent, or empty (a key, not a fact of its own)
            "report",
            "parser_version",
            "attempts",
            "task_id",
            "claim_token",
            "queued_at",
            "started_at",
            "finished_at",
        ]
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("evidence upload")
        verbose_name_plural = _("evidence uploads")
        constraints = [
            # A node's content once (a retry is the upload received earlier), each node's
            # own (see content_node). Its (candidate, sha256) prefix finds a bundle's.
            models.UniqueConstraint(
                fields=["candidate", "sha256", "content_node"], name="one_upload_per_node_content"
            ),
            models.CheckConstraint(
                condition=Q(status__in=[c.value for c in UploadStatus]), name="upload_status_valid"
            ),
        ]
        indexes = [
            # The sweeper's and the overdue counts' queued uploads, by how long they waited.
            models.Index(fields=["status", "queued_at"], name="upload_status_queued_idx"),
            # A candidate's newest uploads (pages list the first screen of them).
            models.Index(fields=["candidate", "-created_at", "-id"], name="upload_cand_recent_idx"),
            # An evaluation's newest uploads, by id (the API's cursor order).
            models.Index(fields=["evaluation", "-id"], name="upload_eval_recent_idx"),
            # The same bytes under other candidates (replayed evidence): probes by content,
            # not a scan of every upload of every evaluation.
            models.Index(fields=["sha256"], name="upload_sha256_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.get_status_display()})"

    @property
    def unverified(self) -> bool:
        return self.origin == EvidenceOrigin.UNVERIFIED

    @property
    def is_stale(self) -> bool:
        return self.status == UploadStatus.DONE and self.stale_for(self.candidate.evaluation)

    def stale_for(self, evaluation, now=None) -> bool:
        """Older than the evaluation allows (measured, else received, before the limit)."""
        days = evaluation.max_evidence_age_days
        if not days:
            return False
        from datetime import timedelta

        when = self.measured_at or self.created_at
        return when is not None and when < (now or timezone.now()) - timedelta(days=days)


class EvidenceDeletion(models.Model):
    """An upload deleted through the audited service: what it was, who deleted it and why.
    Written once; never edited or deleted."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="+")
    upload_id = models.PositiveBigIntegerField(_("upload id"))
    original_name = models.CharField(_("original name"), max_length=255)
    sha256 = models.CharField(max_length=64)
    # Whose evidence it was: the same content may be an upload of each of several nodes.
    # Empty on records written before migration 0049.
    node_name = models.CharField(_("node name"), max_length=200, blank=True)
    status = models.CharField(_("status"), max_length=12)
    measurement_count = models.PositiveIntegerField(_("measurements deleted"), default=0)
    reason = models.TextField(_("reason"))
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    deleted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-deleted_at"]
        verbose_name = _("evidence deletion")
        verbose_name_plural = _("evidence deletions")

    def __str__(self) -> str:
        return f"{self.original_name} ({self.sha256[:12]})"

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise ValidationError(_("An evidence deletion record cannot be changed."))
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError(_("An evidence deletion record cannot be deleted."))


class HardwareIdentifier(models.Model):
    """One hardware identifier (a GPU UUID, a MAC...) seen in one upload: the index that finds
    the same hardware under another candidate or vendor."""

    upload = models.ForeignKey(EvidenceUpload, on_delete=models.CASCADE, related_name="hardware")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(_("kind"), max_length=20)
    value = models.CharField(_("value"), max_length=200)

    class Meta:
        verbose_name = _("hardware identifier")
        verbose_name_plural = _("hardware identifiers")
        indexes = [models.Index(fields=["kind", "value"], name="hardware_kind_value_idx")]
        constraints = [
            models.UniqueConstraint(fields=["upload", "kind", "value"], name="one_identifier")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.value}"


class Measurement(models.Model):
    """One parsed fact: a number with its unit, from one file of one upload, on one node."""

    upload = models.ForeignKey(
        EvidenceUpload, on_delete=models.CASCADE, related_name="measurements"
    )
    # No index of its own: measurement_cand_page_idx starts with it (every import writes ~80
    # rows per bundle, and each index is written for each row).
    candidate = models.ForeignKey(
        Candidate, on_delete=models.CASCADE, related_name="measurements", db_index=False
    )
    # The upload's evaluation, kept on the row so that an evaluation's measurements in the
    # order they were stored (the API's list) are a range of measurement_eval_idx: ordered
    # by id alone, a small evaluation's pages walked every other evaluation's rows (1.3 s at
    # 10^6 rows for one created after a big one). On PostgreSQL a foreign key on (upload,
    # evaluation) to the upload's own pair keeps it equal to the upload's (migration 0036);
    # that key stands for the plain one (one check per row on import, not two).
    evaluation = CandidateEvaluationField(
        "Evaluation",
        on_delete=models.CASCADE,
        related_name="+",
        editable=False,
        db_index=False,  # measurement_eval_idx leads with it
        db_constraint=False,  # the (upload, evaluation) key checks it
    )
    kind = models.CharField(_("evidence kind"), max_length=30)
    metric = models.CharField(_("metric"), max_length=80)
    value = models.FloatField(_("value"))
    unit = models.CharField(_("unit"), max_length=30, blank=True)
    node_name = models.CharField(_("node"), max_length=200, blank=True)
    source_file = models.CharField(_("source file"), max_length=255, blank=True)
    line = models.PositiveIntegerField(_("line"), null=True, blank=True)
    details = models.JSONField(_("details"), default=dict, blank=True)
    measured_at = models.DateTimeField(_("measured at"), null=True, blank=True)

    class Meta:
        ordering = ["upload", "kind", "metric"]
        verbose_name = _("measurement")
        verbose_name_plural = _("measurements")
        indexes = [
            # The candidate page's first screen of measurements, read in this order: an index
            # range, not a sort of every measurement of the candidate. Its prefixes serve the
            # reads by candidate and by candidate and kind (separate indexes on those were
            # written on every import for nothing).
            models.Index(
                fields=["candidate", "kind", "node_name", "metric", "line", "id"],
                name="measurement_cand_page_idx",
            ),
            # An evaluation's measurements by id: the API's keyset pages.
            models.Index(fields=["evaluation", "id"], name="measurement_eval_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}.{self.metric} = {self.value:g} {self.unit}"


class WorkerHeartbeat(models.Model):
    """The last time each Celery worker host reported in; shown on the health endpoint."""

    hostname = models.CharField(max_length=255, unique=True)
    seen_at = models.DateTimeField()

    class Meta:
        verbose_name = _("worker heartbeat")
        verbose_name_plural = _("worker heartbeats")

    def __str__(self) -> str:
        return f"{self.hostname} @ {self.seen_at:%Y-%m-%d %H:%M:%S}"


class EvidenceSummary(models.Model):
    """What verification reads of one node and one kind of evidence of a candidate: per source
    file, the metrics of the newest usable upload (kept in each import's transaction, so an
    import never re-reads every earlier report)."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="+")
    node_name = models.CharField(_("node"), max_length=200)
    kind = models.CharField(_("evidence kind"), max_length=30)
    # The newest upload in the summary (deleting it rebuilds the candidate's summaries).
    upload = models.ForeignKey(EvidenceUpload, on_delete=models.CASCADE, related_name="+")
    summary = models.JSONField(default=dict)

    class Meta:
        verbose_name = _("evidence summary")
        verbose_name_plural = _("evidence summaries")
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "node_name", "kind"], name="one_summary_per_node_kind"
            )
        ]

    def __str__(self) -> str:
        return f"{self.node_name} · {self.kind}"


class PendingRefresh(models.Model):
    """A candidate whose latest imported evidence its verification and scores do not reflect
    yet: written in the import's transaction when the candidate was refreshed less than
    EVIDENCE_REFRESH_INTERVAL_S before, deleted by the refresh that catches up (a task due at
    ``due_at``, or the beat sweeper when that task was lost). Pages say the scores are being
    updated while it exists."""

    candidate = models.OneToOneField(
        Candidate, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    due_at = models.DateTimeField(_("refresh due at"))

    class Meta:
        verbose_name = _("pending refresh")
        verbose_name_plural = _("pending refreshes")

    def __str__(self) -> str:
        return f"{self.candidate_id} @ {self.due_at:%Y-%m-%d %H:%M:%S}"
