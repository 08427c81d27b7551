"""What one evidence upload costs the web process: its queries, bounded and flat in the
candidate's history, the token's "last used" written once a minute, and the upload's answer
built directly yet equal to the field-by-field serializer's."""

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
# Token, quota sums, the evaluation's status, the duplicate check, the insert and its
# history row (with BEGIN/COMMIT), and at most one write of the token's "last used".
MAX_UPLOAD_QUERIES = 9


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
    evidence_import(upload_id=upload.pk, task_id="cost-test")
    upload.refresh_from_db()
    assert upload.status == "done" and upload.report and upload.measured_at
    direct, generic = _both(upload, duplicate=True)
    assert direct == generic and direct["kinds_display"] and direct["duplicate"] is True
    broken = _post(client, raw, b"\x00\x01 not a bundle")
    upload = EvidenceUpload.objects.get(pk=broken.json()["id"])
    evidence_import(upload_id=upload.pk, task_id="cost-test-2")
    upload.refresh_from_db()
    assert upload.status == "failed" and upload.error_code
    direct, generic = _both(upload)
    assert direct == generic and direct["error_display"]
    # The status URL answers the same through the API.
    polled = client.get(direct["status_url"], HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    assert {key: polled[key] for key in ("id", "status", "error_code", "finished_at")} == {
        key: direct[key] for key in ("id", "status", "error_code", "finished_at")
    }
