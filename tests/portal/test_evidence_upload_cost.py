"""What one evidence upload costs the web process: its queries, bounded and flat in the
candidate's history, the token's "last used" written once a minute, and the upload's answer
built directly yet equal to the field-by-field serializer's."""

import time
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework import serializers
from rest_framework.request import Request

from portal.api.evidence import UploadOutSerializer
from portal.models import EvidenceUpload, UploadToken
from portal.services.evidence import evidence_import

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db
URL = "/api/v1/evidence/"
# Token, quota sums, the evaluation's status, the duplicate check, the insert with its
# history row in one statement (with BEGIN/COMMIT), and at most one write of the token's
# "last used".
MAX_UPLOAD_QUERIES = 8


def _bundle(number: int, nonce: str) -> bytes:
    nccl = sample_bytes("nccl-a100-8gpu.txt") + f"\n# run {number}\n".encode()
    return make_bundle({"nccl.txt": nccl}, hostname=f"gpu-node-{number:03d}", nonce=nonce)


def _post(client, raw: str, body: bytes):
    return client.post(
        URL,
        {"file": SimpleUploadedFile("bundle.tar.gz", body)},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )


def _upload_queries(client, raw: str, body: bytes) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        response = _post(client, raw, body)
    assert response.status_code == 202, response.content
    return [query["sql"] for query in captured.captured_queries]


def test_queries_per_upload_are_bounded_and_flat_in_the_candidates_history(
    client, upload_token, candidate
):
    token, raw = upload_token
    first = _upload_queries(client, raw, _bundle(0, token.nonce))
    second = _upload_queries(client, raw, _bundle(1, token.nonce))
    assert len(first) <= MAX_UPLOAD_QUERIES, first
    # The second upload within the minute does not write the token's "last used" again.
    assert not any(sql.startswith('UPDATE "portal_uploadtoken"') for sql in second), second
    # Forty more uploads in the candidate's history (rows as an upload stores them).
    EvidenceUpload.objects.bulk_create(
        EvidenceUpload(
            candidate=candidate,
            token=token,
            file=f"evidence/{candidate.pk}/{number:064x}",
            original_name="old.tar.gz",
            sha256=f"{number:064x}",
            size_bytes=1000,
            status="done",
        )
        for number in range(40)
    )
    later = _upload_queries(client, raw, _bundle(2, token.nonce))
    assert len(later) == len(second), (second, later)
    # No query joins the catalogue (offering, vendor) or sorts what a unique key finds.
    for sql in later:
        assert "portal_offering" not in sql and "portal_vendor" not in sql, sql
        if sql.startswith("SELECT") and "portal_evidenceupload" in sql and "SUM(" not in sql:
            assert "ORDER BY" not in sql, sql


def test_the_tokens_last_use_is_written_once_a_minute(client, upload_token):
    token, raw = upload_token
    assert _post(client, raw, _bundle(0, token.nonce)).status_code == 202
    used = UploadToken.objects.get(pk=token.pk).last_used_at
    assert used is not None and timezone.now() - used < timedelta(seconds=30)
    assert _post(client, raw, _bundle(1, token.nonce)).status_code == 202
    assert UploadToken.objects.get(pk=token.pk).last_used_at == used
    # A minute later the next upload records its use again.
    UploadToken.objects.filter(pk=token.pk).update(last_used_at=used - timedelta(seconds=61))
    assert _post(client, raw, _bundle(2, token.nonce)).status_code == 202
    assert UploadToken.objects.get(pk=token.pk).last_used_at > used


class _FieldByField(UploadOutSerializer):
    """DRF's own path: one bound field object per key."""

    def to_representation(self, instance):
        return serializers.ModelSerializer.to_representation(self, instance)


def _both(upload, *, duplicate=False):
    request = Request(RequestFactory().get("/"))
    context = {"request": request, "duplicate": duplicate}
    return (
        UploadOutSerializer(upload, context=context).data,
        _FieldByField(upload, context=context).data,
    )


def _imported(upload: EvidenceUpload, task_id: str, timeout_s: float = 60.0) -> None:
    """Import ``upload`` here, or wait for the worker that took it first: the upload's commit
    queued its import, and a test worker started earlier in the run (a session fixture)
    consumes that queue."""
    evidence_import(upload_id=upload.pk, task_id=task_id)
    deadline = time.monotonic() + timeout_s
    upload.refresh_from_db()
    while upload.status in ("queued", "processing") and time.monotonic() < deadline:
        time.sleep(0.1)
        upload.refresh_from_db()


@pytest.mark.django_db(transaction=True)
def test_the_upload_answer_equals_the_field_by_field_serializers(client, upload_token):
    token, raw = upload_token
    queued = _post(client, raw, _bundle(0, token.nonce))
    upload = EvidenceUpload.objects.get(pk=queued.json()["id"])
    direct, generic = _both(upload)
    assert direct == generic
    assert list(direct) == UploadOutSerializer.Meta.fields
    # Imported (report, fingerprint, measured time), then failed with a coded error, and
    # answered as a duplicate.
    _imported(upload, "cost-test")
    assert upload.status == "done" and upload.report and upload.measured_at
    direct, generic = _both(upload, duplicate=True)
    assert direct == generic and direct["kinds_display"] and direct["duplicate"] is True
    broken = _post(client, raw, b"\x00\x01 not a bundle")
    upload = EvidenceUpload.objects.get(pk=broken.json()["id"])
    _imported(upload, "cost-test-2")
    assert upload.status == "failed" and upload.error_code
    direct, generic = _both(upload)
    assert direct == generic and direct["error_display"]
    # The status URL answers the same through the API.
    polled = client.get(direct["status_url"], HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    assert {key: polled[key] for key in ("id", "status", "error_code", "finished_at")} == {
        key: direct[key] for key in ("id", "status", "error_code", "finished_at")
    }


def _queue(client, raw: str, nonce: str, numbers) -> list[int]:
    return [_post(client, raw, _bundle(number, nonce)).json()["id"] for number in numbers]


def test_a_batched_import_costs_the_same_queries_for_two_uploads_as_for_six_but_outcomes(
    client, upload_token, settings
):
    settings.EVIDENCE_IMPORT_BATCH = 8
    token, raw = upload_token
    counts = []
    for numbers in (range(0, 2), range(10, 16)):
        ids = _queue(client, raw, token.nonce, numbers)
        with CaptureQueriesContext(connection) as captured:
            evidence_import(upload_id=ids[0], task_id=f"batch-{len(ids)}")
        uploads = EvidenceUpload.objects.filter(pk__in=ids)
        # Each carried its token's nonce: collector evidence, every one of the batch.
        assert set(uploads.values_list("status", "origin")) == {("done", "collector")}
        # Apart from each upload's own outcome (its status and report, written under its
        # claim), the batch's queries do not grow with its uploads.
        outcome = 'UPDATE "portal_evidenceupload" SET "status" = \'done\''
        counts.append(sum(not q["sql"].startswith(outcome) for q in captured))
        # No query per upload for its token: the batch's claim joins it.
        assert not any('FROM "portal_uploadtoken"' in q["sql"] for q in captured), captured
    assert counts[0] == counts[1], counts


def test_measurement_rows_are_built_in_the_models_column_order():
    from portal.models import Measurement
    from portal.services.evidence import MEASUREMENT_COLUMNS

    fields = tuple(f.attname for f in Measurement._meta.concrete_fields if not f.primary_key)
    assert fields == MEASUREMENT_COLUMNS


def test_measurement_rows_are_written_as_the_parser_gave_them(client, upload_token):
    from portal.models import Measurement

    token, raw = upload_token
    (upload_id,) = _queue(client, raw, token.nonce, [0])
    evidence_import(upload_id=upload_id, task_id="rows")
    rows = Measurement.objects.filter(upload_id=upload_id)
    assert rows.count() > 10
    facts = rows.exclude(line=None)
    assert facts.exists() and all(row.details is not None for row in facts)
    # A metric without a fact of its own: no line, empty details, the unit from its name.
    derived = rows.filter(line=None)
    assert derived.exists()
    for row in derived:
        assert row.details == {} and row.node_name == "gpu-node-000"
        assert row.candidate_id == token.candidate_id and row.measured_at is not None
    # Every column as the parser gave it: its facts, then its numeric metrics without a fact.
    import io

    from scoring.evidence.bundle import open_evidence, parse_evidence_set

    upload = EvidenceUpload.objects.get(pk=upload_id)
    expected = []
    for result in parse_evidence_set(open_evidence("b.tar.gz", io.BytesIO(_bundle(0, "")))):
        if not result.ok:
            continue
        for fact in result.facts:
            expected.append(
                (result.kind, fact.metric, float(fact.value), fact.unit, fact.line, fact.details)
            )
        named = {fact.metric for fact in result.facts}
        for metric, value in result.metrics.items():
            if type(value) in (int, float) and metric not in named:
                unit = "GB/s" if metric.endswith("_gbyte_s") else None
                expected.append((result.kind, metric, float(value), unit, None, {}))
    stored = list(
        rows.order_by("pk").values_list("kind", "metric", "value", "unit", "line", "details")
    )
    assert [row[:3] + row[4:] for row in stored] == [row[:3] + row[4:] for row in expected]
    assert all(
        row[3] == want[3] for row, want in zip(stored, expected, strict=True) if want[3] is not None
    )
    assert {row.source_file for row in rows} == {"nccl.txt"}
    assert {row.measured_at for row in rows} == {upload.measured_at}


def test_hardware_identifiers_are_the_fingerprints_and_written_once(client, upload_token):
    from portal.models import HardwareIdentifier
    from portal.services.evidence.write import _identifiers_insert

    token, raw = upload_token
    (upload_id,) = _queue(client, raw, token.nonce, [0])
    evidence_import(upload_id=upload_id, task_id="identifiers")
    upload = EvidenceUpload.objects.get(pk=upload_id)
    stored = set(
        HardwareIdentifier.objects.filter(upload_id=upload_id).values_list(
            "candidate_id", "kind", "value"
        )
    )
    expected = {
        (token.candidate_id, kind, value)
        for kind, values in upload.fingerprint.items()
        for value in values
    }
    assert stored == expected and stored
    # Rows already stored are skipped, new ones written, in one statement.
    again = [
        {"upload_id": upload_id, "candidate_id": token.candidate_id, "kind": k, "value": v}
        for _c, k, v in sorted(stored)
    ] + [
        {"upload_id": upload_id, "candidate_id": token.candidate_id, "kind": "mac", "value": "x"},
        {"upload_id": upload_id, "candidate_id": token.candidate_id, "kind": "mac", "value": "x"},
    ]
    with CaptureQueriesContext(connection) as captured:
        _identifiers_insert(again)
    assert len(captured.captured_queries) == 1
    assert HardwareIdentifier.objects.filter(upload_id=upload_id).count() == len(stored) + 1
