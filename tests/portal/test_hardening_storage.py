"""Upload hardening: credentials and quotas before the body, cleanup of failed uploads, usage."""

import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import RequestFactory
from django.utils import timezone

from portal.api.evidence import EvidenceUploadView
from portal.models import EvidenceUpload, UploadStatus
from portal.tasks import evidence_sweep_task

from .conftest import sample_bytes

pytestmark = pytest.mark.django_db
URL = "/api/v1/evidence/"


class UntouchableBody(io.RawIOBase):
    """A request body that records any attempt to read it."""

    def __init__(self):
        self.reads = 0

    def read(self, *args):
        self.reads += 1
        raise AssertionError("the body was read")

    readline = read


def _unread_post(declared: int, **headers):
    request = RequestFactory().post(
        URL, data=b"", content_type="multipart/form-data; boundary=xyz", **headers
    )
    request.META["CONTENT_LENGTH"] = str(declared)
    body = UntouchableBody()
    request._stream = body
    return EvidenceUploadView.as_view()(request), body


def test_an_anonymous_upload_is_refused_before_its_body_is_read():
    response, body = _unread_post(10_000_000)
    assert response.status_code == 401
    assert body.reads == 0
    assert EvidenceUpload.objects.count() == 0


def test_a_bad_token_is_refused_before_the_body_is_read():
    response, body = _unread_post(1000, HTTP_AUTHORIZATION="Bearer gpt_nonsense")
    assert response.status_code == 401
    assert body.reads == 0


def test_a_declared_size_over_the_token_quota_gets_507_unread(upload_token, settings):
    settings.EVIDENCE_QUOTA_TOKEN_BYTES = 1_000_000
    _token, raw = upload_token
    response, body = _unread_post(5_000_000, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 507
    assert "quota" in response.data["detail"]
    assert body.reads == 0
    assert EvidenceUpload.objects.count() == 0


def _post(client, raw, data: bytes, name="a.txt"):
    return client.post(
        URL, {"file": SimpleUploadedFile(name, data)}, HTTP_AUTHORIZATION=f"Bearer {raw}"
    )


def test_the_token_quota_counts_what_is_stored(client, upload_token, settings):
    settings.EVIDENCE_QUOTA_TOKEN_BYTES = 3000
    _token, raw = upload_token
    assert _post(client, raw, b"a" * 2000).status_code == 202
    refused = _post(client, raw, b"b" * 1500)
    assert refused.status_code == 507, refused.content
    assert EvidenceUpload.objects.count() == 1
    stored = list(Path(settings.MEDIA_ROOT, "evidence").rglob("*"))
    assert len([p for p in stored if p.is_file() and p.read_bytes().startswith(b"b")]) == 0
    assert _post(client, raw, b"c" * 900).status_code == 202


def test_the_candidate_quota_refuses_a_session_upload(client, members, candidate, settings):
    settings.EVIDENCE_QUOTA_CANDIDATE_BYTES = 1000
    client.force_login(members["engineer"])
    response = client.post(
        URL, {"file": SimpleUploadedFile("big.txt", b"x" * 1001), "candidate": candidate.pk}
    )
    assert response.status_code == 507, response.content
    assert EvidenceUpload.objects.count() == 0
    message = response.json()["detail"]
    assert "0 B (0 bytes) of 1000 B (1,000 bytes) are stored" in message
    assert "this upload is 1001 B (1,001 bytes)" in message
    client.cookies["django_language"] = "zh-hans"
    response = client.post(
        URL, {"file": SimpleUploadedFile("big.txt", b"x" * 1001), "candidate": candidate.pk}
    )
    assert "本次上传为 1001 B（1,001 字节）" in response.json()["detail"]


def _failed_upload(client, raw, data: bytes, *, failed_ago: timedelta) -> EvidenceUpload:
    body = _post(client, raw, data).json()
    EvidenceUpload.objects.filter(pk=body["id"]).update(
        status=UploadStatus.FAILED,
        error="Nothing in this file was recognised.",
        finished_at=timezone.now() - failed_ago,
    )
    return EvidenceUpload.objects.get(pk=body["id"])


def test_the_sweeper_deletes_old_raw_files_of_failed_uploads(
    client, upload_token, settings, django_capture_on_commit_callbacks
):
    settings.EVIDENCE_FAILED_RETENTION_HOURS = 24
    _token, raw = upload_token
    old = _failed_upload(client, raw, b"old junk", failed_ago=timedelta(hours=25))
    recent = _failed_upload(client, raw, b"new junk", failed_ago=timedelta(hours=1))
    old_path, recent_path = Path(old.file.path), Path(recent.file.path)
    assert old_path.exists() and recent_path.exists()

    with django_capture_on_commit_callbacks(execute=True):
        evidence_sweep_task()

    old.refresh_from_db()
    assert not old_path.exists()
    assert not old.file
    assert old.status == UploadStatus.FAILED
    assert old.error == "Nothing in this file was recognised."
    assert recent_path.exists()
    # The download link of a cleaned-up upload is a clean 404, not a 500.
    client.force_login(old.candidate.evaluation.memberships.first().user)
    page = client.get(f"/evaluations/{old.candidate.evaluation_id}/uploads/{old.pk}/download/")
    assert page.status_code == 404
    # Its bytes no longer count against the quota.
    settings.EVIDENCE_QUOTA_TOKEN_BYTES = len(b"new junk") + 5
    assert _post(client, raw, b"12345").status_code == 202


def test_evidence_usage_prints_bytes_per_candidate(client, upload_token, candidate):
    _token, raw = upload_token
    data = sample_bytes("nccl-a100-8gpu.txt")
    _post(client, raw, data)
    _post(client, raw, b"second file")
    out = io.StringIO()
    call_command("evidence_usage", stdout=out)
    text = out.getvalue()
    assert str(len(data) + len(b"second file")) in text
    assert candidate.evaluation.name[:20] in text
