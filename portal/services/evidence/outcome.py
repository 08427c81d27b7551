"""What importing one upload comes to (an outcome), worked out before anything is written."""

import hmac
import json
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import InterfaceError, OperationalError, connection
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from scoring.evidence.bundle import BundleRejected, open_evidence, parse_evidence_set
from scoring.evidence.times import EvidenceTimeRefused, manifest_times_check, tool_time_check
from scoring.fingerprint import Fingerprint, extract, extract_pieces, may_be_dated, measured_at

from ... import evidence_messages
from ...models import EvidenceOrigin, EvidenceUpload, Measurement, UploadStatus
from .nodes import _clean_node, _node_mismatch, sent_node_mismatch

logger = logging.getLogger(__name__)


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
