"""Evidence: accept an upload, import it (parse, store measurements, refresh scores), sweep."""

import hashlib
import hmac
import json
import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.db.models import Count, F, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from scoring.evidence import PARSER_VERSION
from scoring.evidence.bundle import BundleRejected, open_evidence, parse_evidence_set
from scoring.evidence.times import EvidenceTimeRefused, manifest_times_check, tool_time_check
from scoring.fingerprint import (
    Fingerprint,
    extract,
    extract_pieces,
    may_be_dated,
    measured_at,
)
from scoring.verification._util import same_host

from .. import evidence_messages
from ..db import copy_insert, copy_rows, history_record_changes, insert_with_history
from ..metric_labels import size_with_bytes
from ..models import (
    Candidate,
    EvidenceDeletion,
    EvidenceOrigin,
    EvidenceUpload,
    HardwareIdentifier,
    Measurement,
    UploadStatus,
    UploadToken,
)
from . import notifications
from .errors import ensure_not_decided
from .files import stored_files, stored_files_delete_on_commit
from .text import clean_note, clean_text

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


class QuotaExceeded(ValidationError):
    """Storing the upload would pass the byte quota of its upload token or its candidate."""


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
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return clean_text(base).strip()[:255] or "upload"


def _clean_node(name: str | None) -> str:
    """A node name as sent with an upload or read from a bundle's manifest (see clean_text)."""
    return clean_text(name or "").strip()[:200]


def _existing_upload(*, candidate_id: int, sha256: str) -> EvidenceUpload | None:
    """The candidate's upload of this content, if any ((candidate, sha256) is unique)."""
    if connection.vendor == "postgresql":
        # Every upload asks, and almost every one finds nothing: its id alone, written out,
        # rather than the ORM's compilation of a select of every column (the row is read
        # only when there is one).
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id FROM portal_evidenceupload WHERE candidate_id = %s AND sha256 = %s",
                [candidate_id, sha256],
            )
            found = cursor.fetchone()
        return None if found is None else EvidenceUpload.objects.get(pk=found[0])
    return next(
        iter(
            EvidenceUpload.objects.filter(candidate_id=candidate_id, sha256=sha256).order_by()[:1]
        ),
        None,
    )


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

    The same content for the same candidate is recognised: the first upload is returned with
    created False and nothing is imported twice. ``quota_room`` is what
    ``evidence_quota_check`` returned for this request's token and candidate moments before
    (the API's check before the body): a file that fits in it is not summed again.
    """
    size = uploaded_file.size or 0
    limit = settings.EVIDENCE_MAX_UPLOAD_BYTES
    # Hashed before the transaction: the evaluation's row is not held for it.
    digest = _sha256(uploaded_file) if 0 < size <= limit else ""
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
            existing = _existing_upload(candidate_id=candidate.pk, sha256=digest)
            if existing is not None:
                return existing, False
            if quota_room is None or size > quota_room:
                evidence_quota_check(
                    candidate_id=candidate.pk, token_id=token.pk if token else None, size=size
                )
            node_name = _clean_node(node_name)
            mismatch = sent_node_mismatch(token, node_name)
            upload = EvidenceUpload(
                candidate=candidate,  # its evaluation is copied by the field (pre_save)
                original_name=_clean_name(uploaded_file.name or ""),
                sha256=digest,
                size_bytes=size,
                node_name=(node_name or (token.node_name if token else ""))[:200],
                token=token,
                uploaded_by=user if user is not None and user.is_authenticated else None,
                # Flagged from the start (the import keeps or refines it): the answer to the
                # upload and the pages listing it while it waits already say so.
                error_params={evidence_messages.NODE_MISMATCH: mismatch} if mismatch else {},
            )
            upload.file.save(digest, uploaded_file, save=False)
            stored = upload.file.name
            insert_with_history(upload)
            transaction.on_commit(lambda: _enqueue_import(upload.pk), robust=True)
    except IntegrityError:
        # The same content arrived concurrently: keep the first, drop our copy of the file.
        _delete_stored(stored)
        return EvidenceUpload.objects.get(candidate=candidate, sha256=digest), False
    except BaseException:
        # Refused (the evaluation decided meanwhile) or failed: nothing stays behind.
        _delete_stored(stored)
        raise
    return upload, True


def _delete_stored(name: str) -> None:
    if name:
        EvidenceUpload._meta.get_field("file").storage.delete(name)


@transaction.atomic
def evidence_upload_delete(*, upload: EvidenceUpload, reason: str, by) -> EvidenceDeletion:
    """Delete an upload with its measurements, keeping a record of what it was, who deleted
    it and why; refused on a decided evaluation. The candidate is re-verified without it."""
    from .scores import candidate_refresh

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


def _unit(metric: str) -> str:
    return next((unit for suffix, unit in UNIT_SUFFIXES if metric.endswith(suffix)), "")


# The columns of a measurement row as _measurements builds it (copy_rows writes them in this
# order: Measurement's concrete fields without the primary key; a test checks it).
MEASUREMENT_COLUMNS = (
    "upload_id",
    "candidate_id",
    "evaluation_id",
    "kind",
    "metric",
    "value",
    "unit",
    "node_name",
    "source_file",
    "line",
    "details",
    "measured_at",
)


def _measurement_model(row: tuple) -> Measurement:
    """The Measurement of a row of _measurements (where the ORM writes: not PostgreSQL)."""
    values = dict(zip(MEASUREMENT_COLUMNS, row, strict=True))
    values["details"] = json.loads(values["details"])
    return Measurement(**values)


def _measurements(
    upload: EvidenceUpload, results, node_name: str, times: dict | None = None
) -> list[tuple]:
    """The upload's measurement rows, as tuples of MEASUREMENT_COLUMNS as COPY takes them
    (details as JSON text). Not model instances: a Measurement costs its __init__ (field
    defaults, the pre- and post-init signals) for every row, and reading them back for the
    COPY a getattr and a type check per value; a big log gives thousands of rows."""
    rows = []
    times = times or {}
    measured = Measurement._meta.get_field("measured_at")
    for result in results:
        if not result.ok:
            continue
        when = times.get(result.file, times.get(None))
        if when is not None and when.tzinfo is None:
            when = measured.get_db_prep_save(when, connection)  # made aware, as the ORM would
        # By id: the relation itself costs a descriptor's checks on every row.
        upload_id, candidate_id, kind = upload.pk, upload.candidate_id, result.kind
        evaluation_id = upload.evaluation_id
        source_file = result.file[:255]
        fact_metrics = set()
        for fact in result.facts:
            fact_metrics.add(fact.metric)
            details = fact.details
            rows.append(
                (
                    upload_id,
                    candidate_id,
                    evaluation_id,
                    kind,
                    fact.metric[:80],
                    float(fact.value),
                    fact.unit[:30],
                    node_name,
                    source_file,
                    fact.line,
                    json.dumps(details) if details else "{}",
                    when,
                )
            )
        for metric, value in result.metrics.items():
            is_number = isinstance(value, int | float) and not isinstance(value, bool)
            if is_number and metric not in fact_metrics:
                rows.append(
                    (
                        upload_id,
                        candidate_id,
                        evaluation_id,
                        kind,
                        metric[:80],
                        float(value),
                        _unit(metric),
                        node_name,
                        source_file,
                        None,
                        "{}",
                        when,
                    )
                )
    return rows


REPORT_KEYS = (
    "file",
    "kind",
    "ok",
    "error",
    "error_detail",
    "exit_code",
    "missing",
    "command",
    "metrics",
    "notes",
)


def _report(results) -> list[dict[str, Any]]:
    # Read off the attributes: dataclasses.asdict would deep-copy every metric for nothing
    # (the metrics are JSON-safe values already), a third of an import's time.
    return [
        {**{key: getattr(r, key) for key in REPORT_KEYS}, "warnings": list(r.warnings)}
        for r in results
    ]


@dataclass
class _Outcome:
    """What importing one upload comes to, before anything is written."""

    status: str
    error: str = ""
    report: list[dict[str, Any]] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    origin: str = EvidenceOrigin.PENDING
    measured_at: Any = None
    fingerprint: dict[str, list[str]] = field(default_factory=dict)
    # The node the evidence came from: as given at upload, else the bundle manifest's hostname.
    node_name: str = ""
    # The error as data for other languages (see portal/evidence_messages.py).
    error_code: str = ""
    error_params: dict[str, Any] = field(default_factory=dict)


BUNDLE_REFUSED = gettext_noop("The bundle was refused:")
TIME_REFUSED = gettext_noop("The upload was refused because of a time it gives:")
# The stored text is capped at 5000 characters; the failures kept as data, at this many files.
MAX_FAILURES_STORED = 50


def _origin(upload: EvidenceUpload, evidence) -> str:
    """Collector when the bundle carries the nonce of the token it came with; unverified when
    a token upload's nonce is missing or wrong (replayed or borrowed evidence); by hand for a
    member's upload through the page (or a service call without a token)."""
    if upload.token_id is None:
        return EvidenceOrigin.BY_HAND
    nonce = evidence.manifest.nonce if evidence.manifest is not None else None
    expected = upload.token.nonce
    if nonce and expected and hmac.compare_digest(nonce.encode(), expected.encode()):
        return EvidenceOrigin.COLLECTOR
    return EvidenceOrigin.UNVERIFIED


def _member_scan(member) -> tuple[datetime | None, Fingerprint]:
    """When the member was measured (the tool's own time, None when it prints none) and the
    hardware identifiers it prints. A big (packed) member is never decoded whole for its
    identifiers: they are read piece by piece (``extract_pieces``); its text is decoded whole
    for the time only when a piece may hold one (``may_be_dated``)."""
    if not member.packed:
        text = member.data.decode("utf-8", errors="replace")
        return (measured_at(text) if may_be_dated(text) else None), extract(text)
    dated = False

    def pieces():
        # One pass over the blocks: the identifiers read, and whether any may hold a time.
        nonlocal dated
        for piece in member.text_chunks(errors="replace"):
            dated = dated or may_be_dated(piece)
            yield piece

    found = extract_pieces(pieces())
    when = measured_at(member.data.decode("utf-8", errors="replace")) if dated else None
    return when, found


def _scan(evidence, *, received_at: datetime) -> tuple[dict, Fingerprint]:
    """When each member was measured, by member name (None: the whole upload): the tool's own
    time when it prints one, else the manifest's start; the upload's is the earliest. And the
    hardware identifiers the members print. One member's text at a time.

    Raises EvidenceTimeRefused when a time is before scoring's floor or later than
    ``received_at`` (the upload's receipt) plus the clock-skew allowance: a future time would
    never pass the evaluation's maximum evidence age."""
    times = {}
    fingerprint = Fingerprint()
    if evidence.manifest is not None:
        manifest = evidence.manifest
        manifest_times_check(manifest.started_at, manifest.finished_at, received_at=received_at)
    for member in evidence.members:
        when, found = _member_scan(member)
        if when is not None:
            times[member.name] = tool_time_check(when, file=member.name, received_at=received_at)
        fingerprint = fingerprint.merge(found)
    if evidence.manifest is not None:
        for member in evidence.members:
            times.setdefault(member.name, evidence.manifest.started_at)
    if times:
        times[None] = min(times.values())
    return times, fingerprint


def _node_mismatch(upload: EvidenceUpload, hostname: str) -> dict[str, str] | None:
    """The token's node name and the bundle's hostname when the token names a node and the
    machine calls itself something else (stored under ``NODE_MISMATCH`` in error_params)."""
    named = upload.token.node_name if upload.token_id is not None else ""
    if not named or not hostname or same_host(named, hostname):
        return None
    return {"token_node": named[:200], "hostname": hostname[:200]}


def sent_node_mismatch(token: UploadToken | None, node_name: str) -> dict[str, str] | None:
    """The token's node name and the node name sent with the upload (the ``node_name`` form
    field) when the token names a node and the upload names another: a plain file has no
    manifest whose hostname could say which machine it came from, so the name sent is all
    there is, and it disagrees with what the token was issued for. Stored like the bundle's
    case under ``NODE_MISMATCH``, with ``node_name`` in place of ``hostname``."""
    named = token.node_name if token is not None else ""
    node_name = (node_name or "").strip()
    if not named or not node_name or same_host(named, node_name):
        return None
    return {"token_node": named[:200], "node_name": node_name[:200]}


def _outcome(upload: EvidenceUpload) -> _Outcome:
    """Open and parse one stored upload (no database access beyond its token's nonce). A
    rejected bundle or a file that parses to nothing fails with a message the uploader can
    act on."""
    failed = UploadStatus.FAILED
    # The name sent with the upload against the token's node, kept whatever the import comes
    # to (a bundle's manifest hostname, when it has one, is checked below instead).
    sent = sent_node_mismatch(upload.token if upload.token_id else None, upload.node_name)
    sent_noted = {evidence_messages.NODE_MISMATCH: sent} if sent else {}
    try:
        with upload.file.open("rb") as handle:
            evidence = open_evidence(upload.original_name, handle)
        times, fingerprint = _scan(evidence, received_at=upload.created_at or timezone.now())
    except EvidenceTimeRefused as exc:
        # A manifest's or a tool's time out of range (scoring.evidence.times), bundle or not.
        return _Outcome(
            failed,
            f"{TIME_REFUSED} {exc}",
            error_code=evidence_messages.UPLOAD_TIME_REFUSED,
            error_params={"reason": exc.detail()} | sent_noted,
        )
    except BundleRejected as exc:
        # Stored in English with a lead sentence that pages show in the reader's language.
        return _Outcome(
            failed,
            f"{BUNDLE_REFUSED} {exc}",
            error_code=evidence_messages.UPLOAD_BUNDLE_REFUSED,
            error_params={"reason": exc.detail()} | sent_noted,
        )
    except FileNotFoundError:
        return _Outcome(
            failed,
            _("The stored file is missing; upload it again."),
            error_code=evidence_messages.UPLOAD_FILE_MISSING,
            error_params=sent_noted,
        )
    origin = _origin(upload, evidence)
    found = {"origin": origin, "measured_at": times.get(None), "fingerprint": fingerprint.as_dict()}
    results = parse_evidence_set(evidence)
    # Text from the node itself: shown on every page and export that lists the upload.
    hostname = _clean_node(evidence.manifest.hostname) if evidence.manifest else ""
    del evidence  # the files themselves are not needed past parsing
    node_name = upload.node_name or hostname
    mismatch = _node_mismatch(upload, hostname)
    if mismatch and upload.node_name == mismatch["token_node"]:
        # The token names one node, the bundle's manifest another host. The token's name is
        # what the buyer issued it for; the hostname is what the machine that ran the collector
        # says it is. The measurements take the hostname: they describe that machine, and
        # filed under the token's node they would mix with that node's own evidence (per-node
        # verdicts judge each node's files together), so a wrong machine's outputs could
        # overrule the right one's. The upload is kept, the mismatch recorded with it and shown
        # wherever it is listed (the collector already sends its hostname as the node name).
        node_name = hostname
    node_name = (node_name or "")[:200]
    if mismatch is None and sent is not None:
        # No hostname that names another machine (a plain file, or a manifest without one or
        # agreeing with the token), but the upload was sent for another node than the token's:
        # kept and filed under the name sent, and flagged like the bundle's case.
        mismatch = sent
    noted = {evidence_messages.NODE_MISMATCH: mismatch} if mismatch else {}
    report = _report(results)
    parsed = [r for r in results if r.ok]
    if not parsed:
        failures = [f"{r.file}: {r.error}" for r in results if not r.missing] or [
            r.error or "" for r in results
        ]
        error = _("Nothing in this upload could be parsed.") + " " + "; ".join(failures)
        shown = [r for r in results if not r.missing] or results
        params = {
            "failures": [
                {"file": r.file, "error": r.error or "", "detail": r.error_detail}
                for r in shown[:MAX_FAILURES_STORED]
            ]
        }
        return _Outcome(
            failed,
            error[:5000],
            report,
            **found,
            node_name=node_name,
            error_code=evidence_messages.UPLOAD_NOTHING_PARSED,
            error_params=params | noted,
        )
    rows = _measurements(upload, parsed, node_name, times)
    # A done upload has no error: its error_params carry only the node mismatch, if any.
    return _Outcome(
        UploadStatus.DONE, "", report, rows, **found, node_name=node_name, error_params=noted
    )


def _identifiers(upload: EvidenceUpload, outcome: _Outcome) -> list[dict[str, Any]]:
    """The upload's HardwareIdentifier rows, as the values of their columns."""
    if outcome.status != UploadStatus.DONE:
        return []  # a failed upload is evidence of nothing
    return [
        {
            "upload_id": upload.pk,
            "candidate_id": upload.candidate_id,
            "kind": kind,
            "value": value[:200],
        }
        for kind, values in outcome.fingerprint.items()
        for value in values
    ]


def _identifiers_insert(rows: list[dict[str, Any]]) -> None:
    """Insert identifier rows, skipping any already stored (upload, kind, value are unique).

    On PostgreSQL one statement whose rows travel as one json document (short texts only, so
    parsing it is cheap): bulk_create(ignore_conflicts=True) made a model instance per row and
    sent Django 5.2's UNNEST arrays, which psycopg quotes element by element in Python;
    together about as much of an import's CPU as the COPY of its measurements."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        HardwareIdentifier.objects.bulk_create(
            [HardwareIdentifier(**row) for row in rows], ignore_conflicts=True
        )
        return
    with connection.cursor() as cursor:
        cursor.execute(
            # Identifiers from the model's metadata only, the rows as a parameter.
            f"INSERT INTO {HardwareIdentifier._meta.db_table}"  # noqa: S608
            " (upload_id, candidate_id, kind, value)"
            " SELECT r.upload_id, r.candidate_id, r.kind, r.value"
            " FROM jsonb_to_recordset(%s::jsonb)"
            " AS r(upload_id bigint, candidate_id bigint, kind text, value text)"
            " ON CONFLICT DO NOTHING",
            [json.dumps(rows)],
        )


def _summaries(candidate_id: int, held) -> None:
    """Keep the candidate's per-node, per-kind summaries in step with the uploads written:
    new uploads are merged into the rows they touch; a re-import (which may take evidence
    away) rebuilds them from every report."""
    from .scores import _lock, evidence_summaries_apply, evidence_summaries_rebuild

    # The candidate's lock (taken again by the refresh) orders concurrent summary writers.
    _lock(candidate_id)
    if any(upload.parser_version for upload, _o, _f in held):
        evidence_summaries_rebuild(candidate_id=candidate_id)
        return
    evidence_summaries_apply(
        candidate_id=candidate_id,
        uploads=[
            (upload, fields.get("node_name", ""), outcome.report, outcome.measured_at)
            for upload, outcome, fields in held
            if outcome.status == UploadStatus.DONE and outcome.origin != EvidenceOrigin.UNVERIFIED
        ],
    )


# The columns an outcome writes, with their PostgreSQL types (names are the model's own).
_OUTCOME_COLUMNS = {
    "id": "bigint",
    "status": "text",
    "error": "text",
    "error_code": "text",
    "error_params": "jsonb",
    "report": "jsonb",
    "parser_version": "text",
    "origin": "text",
    "measured_at": "timestamptz",
    "finished_at": "timestamptz",
    "fingerprint": "jsonb",
    "node_name": "text",
}
_OUTCOME_TIMES = ("measured_at", "finished_at")


def _write_outcomes(written: list[tuple[int, dict]], claim_token: str) -> set[int]:
    """Write each upload's ``fields`` only if this attempt still holds its upload's claim (its
    claim token, still processing); returns the ids written. The conditional UPDATE takes the
    row lock: a later claim (the sweeper's) waits for this transaction, and a claim that came
    first leaves nothing to update.

    On PostgreSQL one statement for the batch (it was an ORM update per upload)."""
    aware = all(
        fields[name] is None or timezone.is_aware(fields[name])
        for _pk, fields in written
        for name in _OUTCOME_TIMES
    )
    if connection.vendor != "postgresql" or not aware or not written:
        return {
            pk
            for pk, fields in written
            if EvidenceUpload.objects.filter(
                pk=pk, claim_token=claim_token, status=UploadStatus.PROCESSING
            ).update(**fields)
        }
    # One row of parameters per upload, each JSON value its own text: a single json document
    # of the batch (jsonb_to_recordset) had PostgreSQL parse every report twice, the document
    # and then each report again for its column (reports are ~20 kB per bundle).
    values_row = "(" + ", ".join(f"%s::{kind}" for kind in _OUTCOME_COLUMNS.values()) + ")"
    params = []
    for pk, fields in written:
        for name, kind in _OUTCOME_COLUMNS.items():
            if name == "id":
                params.append(pk)
            elif name == "node_name":
                # Written only when the outcome names the node (else the column is kept).
                params.append(fields.get("node_name"))
            elif kind == "jsonb":
                params.append(json.dumps(fields[name]))
            elif kind == "text" and fields[name] is not None:
                params.append(str(fields[name]))  # a choice's value, not the enum member
            else:
                params.append(fields[name])
    sets = ", ".join(
        f"{name} = r.{name}" for name in _OUTCOME_COLUMNS if name not in ("id", "node_name")
    )
    table = EvidenceUpload._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            # Identifiers from this module's constants and the model's table name only.
            f"UPDATE {table} AS u SET {sets},"  # noqa: S608
            " node_name = COALESCE(r.node_name, u.node_name)"
            f" FROM (VALUES {', '.join([values_row] * len(written))})"
            f" AS r({', '.join(_OUTCOME_COLUMNS)})"
            " WHERE u.id = r.id AND u.claim_token = %s AND u.status = %s"
            " RETURNING u.id",
            [*params, claim_token, str(UploadStatus.PROCESSING)],
        )
        return {row[0] for row in cursor.fetchall()}


def _finish(
    uploads: list[EvidenceUpload], outcomes: list[_Outcome], claim_token: str
) -> list[EvidenceUpload]:
    """Write the outcomes in one transaction, each only if this attempt still holds its
    upload's claim, then refresh the candidate's scores unless more of its uploads wait.
    Returns the uploads written."""
    finished_at = timezone.now()
    held = []
    with transaction.atomic():
        prepared = []
        for upload, outcome in zip(uploads, outcomes, strict=True):
            fields = {
                "status": outcome.status,
                "error": outcome.error,
                "error_code": outcome.error_code,
                "error_params": outcome.error_params,
                "report": outcome.report,
                "parser_version": PARSER_VERSION,
                "finished_at": finished_at,
                "origin": outcome.origin,
                "measured_at": outcome.measured_at,
                "fingerprint": outcome.fingerprint,
            }
            if outcome.node_name and outcome.node_name != upload.node_name:
                fields["node_name"] = outcome.node_name
            prepared.append((upload, outcome, fields))
        ids = _write_outcomes([(upload.pk, fields) for upload, _o, fields in prepared], claim_token)
        held = [entry for entry in prepared if entry[0].pk in ids]
        if not held:
            return []
        # The outcome in the uploads' history (the UPDATE above bypasses save(), so
        # simple_history saw nothing): one statement for the batch, in its transaction. Written
        # rather than derived from finished_at/status/error when the history is read: a
        # re-import overwrites those fields, and the outcome it replaced must stay on record.
        history_record_changes(EvidenceUpload, sorted(ids), at=finished_at)
        # Only an upload imported before (a re-import: its parser version is set, in the same
        # transaction as its rows) can have rows to replace; a first import's attempts that
        # were cut short wrote nothing. Two statements fewer for a batch of new uploads.
        reimported = [upload.pk for upload, _o, _f in held if upload.parser_version]
        if reimported:
            Measurement.objects.filter(upload_id__in=reimported).delete()
        rows = [row for _u, outcome, _f in held for row in outcome.rows]
        if connection.vendor == "postgresql":
            copy_rows(Measurement, rows)
        else:
            copy_insert(Measurement, [_measurement_model(row) for row in rows])
        if reimported:
            HardwareIdentifier.objects.filter(upload_id__in=reimported).delete()
        _identifiers_insert(
            [row for upload, outcome, _f in held for row in _identifiers(upload, outcome)]
        )
        # Takes the candidate's lock, which the refresh then holds as its own.
        _summaries(uploads[0].candidate_id, held)
        from .scores import candidate_refresh_after_import

        candidate_refresh_after_import(candidate_id=uploads[0].candidate_id)
    written = []
    for upload, _written_outcome, fields in held:
        for name, value in fields.items():
            setattr(upload, name, value)
        written.append(upload)
    return written


# Errors of the database connection: the task retries them (tasks.DURABLE), the uploads stay
# claimed meanwhile. Any other exception is a bug or bad data of one upload, failed alone.
_TRANSIENT_ERRORS = (OperationalError, InterfaceError)


def _internal_failure() -> _Outcome:
    return _Outcome(
        UploadStatus.FAILED,
        _(
            "The import stopped on an unexpected error (recorded in the server's log); "
            "upload the file again, and tell the portal's administrators if it fails again."
        ),
        error_code=evidence_messages.UPLOAD_INTERNAL_ERROR,
    )


def _outcome_guarded(upload: EvidenceUpload) -> _Outcome:
    """``_outcome``, with an unexpected exception making this upload failed, not the batch."""
    try:
        return _outcome(upload)
    except _TRANSIENT_ERRORS:
        raise
    except Exception:
        logger.exception("evidence import: upload %s failed unexpectedly", upload.pk)
        return _internal_failure()


def _finish_guarded(
    uploads: list[EvidenceUpload], outcomes: list[_Outcome], claim_token: str
) -> list[EvidenceUpload]:
    """``_finish``; when writing the batch raises unexpectedly (nothing of it was written: one
    transaction), each upload is written on its own, and one that still fails is written as
    failed, so that its batch-mates are imported and it is never left processing."""
    try:
        return _finish(uploads, outcomes, claim_token)
    except _TRANSIENT_ERRORS:
        raise
    except Exception:
        if len(uploads) == 1:
            logger.exception("evidence import: writing upload %s failed", uploads[0].pk)
            return _finish(uploads, [_internal_failure()], claim_token)
        logger.exception(
            "evidence import: writing a batch of %d uploads failed; writing each alone",
            len(uploads),
        )
    written = []
    for upload, outcome in zip(uploads, outcomes, strict=True):
        written += _finish_guarded([upload], [outcome], claim_token)
    return written


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
    from .scores import candidate_refresh

    for candidate_id in sorted(abandoned):
        candidate_refresh(candidate_id=candidate_id, unless_pending=True)
    stuck = EvidenceUpload.objects.filter(
        status=UploadStatus.PROCESSING, started_at__lt=stuck_before
    )
    stuck_ids = list(stuck.values_list("pk", flat=True))
    # Held past the lease (its worker was killed): back in the queue at once.
    stuck.filter(pk__in=stuck_ids).update(status=UploadStatus.QUEUED, task_id="", claim_token="")
    due = list(
        EvidenceUpload.objects.filter(
            Q(created_at__lt=now - queued_for) | Q(pk__in=stuck_ids),
            status=UploadStatus.QUEUED,
        ).values_list("pk", flat=True)
    )
    for upload_id in due:
        _enqueue_import(upload_id)
    from .scores import pending_refreshes_overdue

    pending_refreshes_overdue(now=now)
    return due


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
    from ..models import Evaluation, EvaluationStatus

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
    EvidenceUpload.objects.filter(pk__in=ids).update(
        status=UploadStatus.QUEUED, task_id="", claim_token="", attempts=0
    )
    # Queued again in the uploads' history (one statement): the import's next outcome reads
    # as a re-import's, after the outcome it replaces.
    history_record_changes(EvidenceUpload, ids, at=timezone.now())
    for upload_id in ids:
        transaction.on_commit(lambda upload_id=upload_id: _enqueue_import(upload_id), robust=True)
    return Reimport(queued=len(ids), kept_decided=kept)


@transaction.atomic
def evidence_reimport_all(*, older_than_version: str | None = None) -> int:
    """Queue every finished upload of the undecided evaluations again; returns the count."""
    return evidence_reimport(older_than_version=older_than_version).queued


class RetractRefused(ValidationError):
    """Only the uploader may retract an upload, and only one whose import failed."""


@transaction.atomic
def evidence_retract(*, upload: EvidenceUpload, by) -> None:
    """Remove a failed upload at its uploader's request, recorded in History as ``by``'s; the
    same file can then be uploaded again. The stored file goes once the removal is committed."""
    upload = EvidenceUpload.objects.select_for_update().get(pk=upload.pk)
    ensure_not_decided(upload.candidate.evaluation)
    if upload.uploaded_by_id is None or upload.uploaded_by_id != getattr(by, "pk", None):
        raise RetractRefused(_("Only the person who uploaded a file can retract it."))
    if upload.status != UploadStatus.FAILED:
        raise RetractRefused(
            _("Only an upload whose import failed can be retracted; this one is %(status)s.")
            % {"status": upload.get_status_display()}
        )
    files = stored_files(upload_ids=[upload.pk])
    upload._history_user = by
    upload.delete()
    stored_files_delete_on_commit(files)
