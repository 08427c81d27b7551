"""Evidence: accept an upload, import it (parse, store measurements, refresh scores), sweep."""

import hashlib
import logging
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.evidence import PARSER_VERSION
from scoring.evidence.bundle import BundleRejected, open_evidence, parse_evidence_set

from ..db import copy_insert
from ..models import Candidate, EvidenceUpload, Measurement, UploadStatus, UploadToken

logger = logging.getLogger(__name__)

MAX_IMPORT_ATTEMPTS = 5
# Units of scalar metrics, from the suffix of their names (scoring's naming convention).
UNIT_SUFFIXES = (
    ("_gbyte_s", "GB/s"),
    ("_gbit_s", "Gbit/s"),
    ("_mbyte_s", "MB/s"),
    ("_bytes", "B"),
    ("_iops", "IOPS"),
    ("_us", "µs"),
    ("_mib", "MiB"),
    ("_gib", "GiB"),
    ("_pct", "%"),
)


class UploadTooLarge(ValidationError):
    """The upload is above EVIDENCE_MAX_UPLOAD_BYTES."""


def _enqueue_import(upload_id: int) -> None:
    from ..tasks import evidence_import_task

    # Redis may be down: the row stays queued and the sweeper enqueues it later.
    evidence_import_task.delay(upload_id)


def _sha256(uploaded: UploadedFile) -> str:
    digest = hashlib.sha256()
    for chunk in uploaded.chunks():
        digest.update(chunk)
    uploaded.seek(0)
    return digest.hexdigest()


def _clean_name(name: str) -> str:
    # Only a label for people: the stored path derives from the content hash.
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return "".join(ch for ch in base if ch.isprintable())[:255] or "upload"


def evidence_submit(
    *,
    candidate: Candidate,
    uploaded_file: UploadedFile,
    node_name: str = "",
    token: UploadToken | None = None,
    user=None,
) -> tuple[EvidenceUpload, bool]:
    """Store an upload and queue its import; returns (upload, created).

    The same content for the same candidate is recognised: the first upload is returned with
    created False and nothing is imported twice.
    """
    size = uploaded_file.size or 0
    if size == 0:
        raise ValidationError({"file": _("The file is empty.")})
    if size > settings.EVIDENCE_MAX_UPLOAD_BYTES:
        raise UploadTooLarge(
            {
                "file": _("The file is %(size)s bytes; the limit is %(limit)s bytes.")
                % {"size": size, "limit": settings.EVIDENCE_MAX_UPLOAD_BYTES}
            }
        )
    digest = _sha256(uploaded_file)
    existing = EvidenceUpload.objects.filter(candidate=candidate, sha256=digest).first()
    if existing is not None:
        return existing, False

    upload = EvidenceUpload(
        candidate=candidate,
        original_name=_clean_name(uploaded_file.name or ""),
        sha256=digest,
        size_bytes=size,
        node_name=(node_name or (token.node_name if token else ""))[:200],
        token=token,
        uploaded_by=user if user is not None and user.is_authenticated else None,
    )
    upload.file.save(digest, uploaded_file, save=False)
    try:
        with transaction.atomic():
            upload.save()
            transaction.on_commit(lambda: _enqueue_import(upload.pk), robust=True)
    except IntegrityError:
        # The same content arrived concurrently: keep the first, drop our copy of the file.
        upload.file.delete(save=False)
        return EvidenceUpload.objects.get(candidate=candidate, sha256=digest), False
    return upload, True


def _claim(upload_id: int, task_id: str) -> str | None:
    """Move the upload to processing for this attempt; None when someone else holds it."""
    now = timezone.now()
    stale_before = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    claim_token = uuid.uuid4().hex
    # A redelivered message (its worker was killed) keeps its task id and may take over at once.
    same_task = Q(task_id=task_id) if task_id else Q(pk__in=[])
    claimable = Q(status=UploadStatus.QUEUED) | (
        Q(status=UploadStatus.PROCESSING) & (same_task | Q(started_at__lt=stale_before))
    )
    claimed = EvidenceUpload.objects.filter(claimable, pk=upload_id).update(
        status=UploadStatus.PROCESSING,
        started_at=now,
        finished_at=None,
        attempts=F("attempts") + 1,
        task_id=task_id,
        claim_token=claim_token,
    )
    return claim_token if claimed else None


def _unit(metric: str) -> str:
    return next((unit for suffix, unit in UNIT_SUFFIXES if metric.endswith(suffix)), "")


def _measurements(upload: EvidenceUpload, results, node_name: str) -> list[Measurement]:
    rows = []
    for result in results:
        if not result.ok:
            continue
        common = dict(
            upload=upload,
            candidate_id=upload.candidate_id,
            kind=result.kind,
            node_name=node_name,
            source_file=result.file[:255],
        )
        fact_metrics = set()
        for fact in result.facts:
            fact_metrics.add(fact.metric)
            rows.append(
                Measurement(
                    metric=fact.metric[:80],
                    value=float(fact.value),
                    unit=fact.unit[:30],
                    line=fact.line,
                    details=fact.details,
                    **common,
                )
            )
        for metric, value in result.metrics.items():
            is_number = isinstance(value, int | float) and not isinstance(value, bool)
            if is_number and metric not in fact_metrics:
                rows.append(
                    Measurement(
                        metric=metric[:80], value=float(value), unit=_unit(metric), **common
                    )
                )
    return rows


REPORT_KEYS = ("file", "kind", "ok", "error", "exit_code", "missing", "command", "metrics")


def _report(results) -> list[dict[str, Any]]:
    # Read off the attributes: dataclasses.asdict would deep-copy every metric for nothing
    # (the metrics are JSON-safe values already), a third of an import's time.
    return [
        {**{key: getattr(r, key) for key in REPORT_KEYS}, "warnings": list(r.warnings)}
        for r in results
    ]


def _finish(
    upload: EvidenceUpload, claim_token: str, *, status: str, error: str = "", report=None, rows=()
) -> EvidenceUpload | None:
    """Write the outcome in one transaction, if this attempt still holds the claim."""
    outcome = {
        "status": status,
        "error": error,
        "report": report or [],
        "parser_version": PARSER_VERSION,
        "finished_at": timezone.now(),
    }
    with transaction.atomic():
        # The conditional UPDATE takes the row lock: a later claim (the sweeper's) waits for
        # this transaction, and a claim that came first leaves nothing to update here.
        held = EvidenceUpload.objects.filter(
            pk=upload.pk, claim_token=claim_token, status=UploadStatus.PROCESSING
        ).update(**outcome)
        if not held:
            return None
        upload.measurements.all().delete()
        copy_insert(Measurement, rows)
        from .scores import candidate_refresh

        candidate_refresh(candidate_id=upload.candidate_id, unless_pending=True)
    for name, value in outcome.items():
        setattr(upload, name, value)
    return upload


def evidence_import(*, upload_id: int, task_id: str) -> EvidenceUpload | None:
    """Parse one upload and replace its measurements; None when there is nothing to do.

    A rejected bundle or a file that parses to nothing marks the upload failed with a message
    the uploader can act on; nothing partial is written either way.
    """
    claim_token = _claim(upload_id, task_id)
    if claim_token is None:
        return None
    # The previous report is not needed: it is replaced.
    upload = EvidenceUpload.objects.defer("report").get(pk=upload_id)
    try:
        with upload.file.open("rb") as handle:
            evidence = open_evidence(upload.original_name, handle)
    except BundleRejected as exc:
        return _finish(upload, claim_token, status=UploadStatus.FAILED, error=str(exc))
    except FileNotFoundError:
        return _finish(
            upload,
            claim_token,
            status=UploadStatus.FAILED,
            error=_("The stored file is missing; upload it again."),
        )
    results = parse_evidence_set(evidence)
    node_name = upload.node_name or (evidence.manifest.hostname if evidence.manifest else "")
    report = _report(results)
    parsed = [r for r in results if r.ok]
    if not parsed:
        failures = [f"{r.file}: {r.error}" for r in results if not r.missing] or [
            r.error or "" for r in results
        ]
        error = _("Nothing in this upload could be parsed.") + " " + "; ".join(failures)
        return _finish(
            upload, claim_token, status=UploadStatus.FAILED, error=error[:5000], report=report
        )
    rows = _measurements(upload, parsed, node_name)
    return _finish(upload, claim_token, status=UploadStatus.DONE, report=report, rows=rows)


def evidence_sweep(*, queued_for: timedelta = timedelta(minutes=2)) -> list[int]:
    """Re-enqueue uploads never enqueued (broker down) or stuck in processing; give up at last.

    Returns the ids enqueued. Safe to run concurrently: each reset is a conditional update.
    """
    now = timezone.now()
    stuck_before = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    exhausted = EvidenceUpload.objects.filter(
        Q(status=UploadStatus.QUEUED)
        | Q(status=UploadStatus.PROCESSING, started_at__lt=stuck_before),
        attempts__gte=MAX_IMPORT_ATTEMPTS,
    )
    abandoned = set(exhausted.values_list("candidate_id", flat=True))
    exhausted.update(
        status=UploadStatus.FAILED,
        finished_at=now,
        error=_("The import was abandoned after %(n)s attempts; upload the file again.")
        % {"n": MAX_IMPORT_ATTEMPTS},
    )
    # An import that finished while these were pending left the refresh to them.
    from .scores import candidate_refresh

    for candidate_id in sorted(abandoned):
        candidate_refresh(candidate_id=candidate_id, unless_pending=True)
    EvidenceUpload.objects.filter(
        status=UploadStatus.PROCESSING, started_at__lt=stuck_before
    ).update(status=UploadStatus.QUEUED, task_id="", claim_token="")
    due = list(
        EvidenceUpload.objects.filter(
            status=UploadStatus.QUEUED, created_at__lt=now - queued_for
        ).values_list("pk", flat=True)
    )
    for upload_id in due:
        _enqueue_import(upload_id)
    return due


def evidence_reimport_all(*, older_than_version: str | None = None) -> int:
    """Queue every finished upload again (after the parsers improved); returns the count."""
    uploads = EvidenceUpload.objects.filter(status__in=[UploadStatus.DONE, UploadStatus.FAILED])
    if older_than_version:
        uploads = uploads.exclude(parser_version=older_than_version)
    ids = list(uploads.values_list("pk", flat=True))
    EvidenceUpload.objects.filter(pk__in=ids).update(
        status=UploadStatus.QUEUED, task_id="", claim_token="", attempts=0
    )
    for upload_id in ids:
        transaction.on_commit(lambda upload_id=upload_id: _enqueue_import(upload_id), robust=True)
    return len(ids)
