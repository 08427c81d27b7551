"""Writing a batch's outcomes: measurements, identifiers, summaries, history, refresh."""

import json
import logging
import re
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from scoring.evidence import PARSER_VERSION

from ...db import copy_insert, copy_rows, history_record_changes
from ...models import EvidenceOrigin, EvidenceUpload, HardwareIdentifier, Measurement, UploadStatus
from .outcome import _TRANSIENT_ERRORS, MEASUREMENT_COLUMNS, _internal_failure, _Outcome

logger = logging.getLogger(__name__)


def _measurement_model(row: tuple) -> Measurement:
    """The Measurement of a row of _measurements (where the ORM writes: not PostgreSQL)."""
    values = dict(zip(MEASUREMENT_COLUMNS, row, strict=True))
    values["details"] = json.loads(values["details"])
    return Measurement(**values)


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
    from ..scores import _lock, evidence_summaries_apply, evidence_summaries_rebuild

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


# What PostgreSQL refuses in text and jsonb: NUL, and a lone surrogate (a name that is not
# UTF-8, read with surrogateescape; a JSON manifest's "\ud800"). JSON escapes them as these.
_UNSTORABLE_JSON = re.compile(r"\\u0000|\\ud[89a-f]", re.IGNORECASE)


def _storable_text(text: str) -> str:
    return text.replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode("utf-8")


def _storable(value: Any) -> Any:
    """``value`` (a refusal's details, a report quoting names from the upload) with each NUL
    and lone surrogate written out as its escape, so that the outcome can be stored: the
    database refused the whole outcome, and the upload failed on an unexpected error. Most
    outcomes have neither: one dump tells, and only those are walked."""
    if isinstance(value, str):
        return _storable_text(value) if _UNSTORABLE_JSON.search(json.dumps(value)) else value
    if not _UNSTORABLE_JSON.search(json.dumps(value)):
        return value
    if isinstance(value, dict):
        return {_storable(key): _storable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_storable(item) for item in value]
    return value


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
                "error": _storable(outcome.error),
                "error_code": outcome.error_code,
                "error_params": _storable(outcome.error_params),
                "report": _storable(outcome.report),
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
        from ..scores import candidate_refresh_after_import

        candidate_refresh_after_import(candidate_id=uploads[0].candidate_id)
    written = []
    for upload, _written_outcome, fields in held:
        for name, value in fields.items():
            setattr(upload, name, value)
        written.append(upload)
    return written


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
