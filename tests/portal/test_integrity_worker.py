"""End to end through a real Celery worker: a bundle with a wrong nonce and a bundle whose
hardware was already shown under another vendor's candidate are uploaded over the API with
their upload tokens, imported by the worker process, and both flags show on the pages."""

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from portal.models import Candidate, EvidenceUpload, UploadStatus, Vendor
from portal.services.scores import usable_uploads
from portal.services.tokens import upload_token_create

from .conftest import PASSWORD, small_offering
from .test_integrity_evidence import UUID, node_bundle

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _wait_done(upload_id: int, timeout_s: float = 60.0) -> EvidenceUpload:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        upload = EvidenceUpload.objects.get(pk=upload_id)
        if upload.status in (UploadStatus.DONE, UploadStatus.FAILED):
            return upload
        time.sleep(0.2)
    raise AssertionError(f"upload {upload_id} not imported within {timeout_s}s")


def _upload(raw_token: str, data: bytes, name: str) -> int:
    response = APIClient().post(
        reverse("api-evidence-upload"),
        {"file": SimpleUploadedFile(name, data)},
        HTTP_AUTHORIZATION=f"Bearer {raw_token}",
    )
    assert response.status_code == 202, response.content
    return response.json()["id"]


def test_wrong_nonce_and_reused_hardware_are_flagged_end_to_end(
    celery_worker_process, candidate, members, client
):
    other = Candidate.objects.create(
        evaluation=candidate.evaluation,
        offering=small_offering(Vendor.objects.create(name="Golden Node Cloud")),
        node_count=16,
    )
    token, raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
    other_token, other_raw = upload_token_create(candidate=other, created_by=members["procurement"])

    honest = _wait_done(_upload(raw, node_bundle(token.nonce), "honest.tar.gz"))
    replayed = _wait_done(_upload(raw, node_bundle("0" * 32, hostname="n2"), "replayed.tar.gz"))
    reused = _wait_done(
        _upload(other_raw, node_bundle(other_token.nonce, hostname="golden"), "golden.tar.gz")
    )
    assert celery_worker_process.process.poll() is None

    assert (honest.status, honest.origin) == ("done", "collector")
    assert (replayed.status, replayed.origin) == ("done", "unverified")
    assert (reused.status, reused.origin) == ("done", "collector")
    candidate.refresh_from_db()
    assert [u.pk for u in usable_uploads(candidate)] == [honest.pk]

    client.login(username="viewer", password=PASSWORD)
    mine = client.get(
        reverse(
            "candidate-detail", kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk}
        )
    ).content.decode()
    assert "Unverified origin" in mine
    assert "The same hardware appears under another candidate" in mine
    assert "Golden Node Cloud" in mine and UUID in mine
    theirs = client.get(
        reverse("candidate-detail", kwargs={"pk": other.evaluation_id, "candidate_pk": other.pk})
    ).content.decode()
    assert "The same hardware appears under another candidate" in theirs
    assert "Test Vendor" in theirs
