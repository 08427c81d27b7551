"""POST /api/v1/evidence/: tokens, limits, duplicates and who may upload what."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from portal.models import Candidate, EvidenceUpload, Offering, UploadToken, hash_token
from portal.services.tokens import upload_token_create, upload_token_revoke

from .conftest import sample_bytes

pytestmark = pytest.mark.django_db
URL = "/api/v1/evidence/"


def _post(client, raw_token=None, *, data=b"", name="all_reduce.txt", **fields):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw_token}"} if raw_token else {}
    payload = {"file": SimpleUploadedFile(name, data), **fields}
    return client.post(URL, payload, **headers)


def test_the_raw_token_is_never_stored(upload_token):
    token, raw = upload_token
    assert raw.startswith("gpt_")
    stored = UploadToken.objects.get(pk=token.pk)
    assert stored.token_hash == hash_token(raw)
    assert raw not in str(UploadToken.objects.values().get(pk=token.pk))


def test_an_upload_is_stored_and_queued(client, upload_token, candidate, settings):
    _token, raw = upload_token
    data = sample_bytes("nccl-a100-8gpu.txt")
    response = _post(client, raw, data=data, node_name="gpu-01")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "queued"
    assert body["duplicate"] is False
    assert body["status_url"].endswith(reverse("api-evidence-detail", args=[body["id"]]))
    upload = EvidenceUpload.objects.get(pk=body["id"])
    assert upload.candidate == candidate
    assert upload.node_name == "gpu-01"
    assert upload.size_bytes == len(data)
    stored = Path(upload.file.path)
    assert stored.read_bytes() == data
    assert stored.is_relative_to(Path(settings.MEDIA_ROOT))
    assert stored.name == upload.sha256


def test_the_same_file_again_points_to_the_first_upload(client, upload_token):
    _token, raw = upload_token
    data = sample_bytes("nccl-a100-8gpu.txt")
    first = _post(client, raw, data=data).json()
    again = _post(client, raw, data=data, name="renamed.txt")
    assert again.status_code == 200
    assert again.json()["id"] == first["id"]
    assert again.json()["duplicate"] is True
    assert EvidenceUpload.objects.count() == 1


def test_the_status_url_answers_the_token(client, upload_token):
    _token, raw = upload_token
    body = _post(client, raw, data=b"some text").json()
    response = client.get(body["status_url"], HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 200
    assert response.json()["id"] == body["id"]


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        ("expire", "expired"),
        ("revoke", "revoked"),
        ("unknown", "Unknown upload token"),
    ],
)
def test_a_bad_token_gets_401_with_the_reason(client, upload_token, spoil, message):
    token, raw = upload_token
    if spoil == "expire":
        UploadToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(1))
    elif spoil == "revoke":
        upload_token_revoke(token=token)
    else:
        raw = "gpt_" + "x" * 43
    response = _post(client, raw, data=b"data")
    assert response.status_code == 401
    assert message in response.json()["detail"]
    assert not EvidenceUpload.objects.exists()


def test_a_token_cannot_upload_for_another_candidate(client, upload_token, evaluation, vendor):
    _token, raw = upload_token
    other_offering = Offering.objects.create(
        vendor=vendor,
        name="Other",
        delivery_form="vgpu",
        gpu_model="L40S",
        gpu_form_factor="pcie",
        gpus_per_node=4,
        gpu_memory_gib=48,
        nvlink_topology="none",
        fabric="ethernet",
    )
    other = Candidate.objects.create(evaluation=evaluation, offering=other_offering, node_count=1)
    response = _post(client, raw, data=b"data", candidate=other.pk)
    assert response.status_code == 403
    assert not EvidenceUpload.objects.exists()


def test_an_oversized_upload_is_refused_before_it_is_stored(
    client, upload_token, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    settings.EVIDENCE_MAX_UPLOAD_BYTES = 1000
    _token, raw = upload_token
    response = _post(client, raw, data=b"x" * 5000)
    assert response.status_code == 413
    # In binary units with the exact count (a size just over a limit reads apart from it).
    assert "limit of 1000 B (1,000 bytes)" in response.json()["detail"]
    assert not EvidenceUpload.objects.exists()
    assert not any(Path(tmp_path).rglob("*")), "nothing was written to the media folder"


def test_a_declared_length_above_the_limit_is_refused_without_reading(
    client, upload_token, settings
):
    settings.EVIDENCE_MAX_UPLOAD_BYTES = 1000
    _token, raw = upload_token
    response = client.generic(
        "POST",
        URL,
        b"",
        content_type="multipart/form-data; boundary=x",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
        CONTENT_LENGTH=str(50 * 1024 * 1024),
    )
    assert response.status_code == 413


def test_an_empty_file_is_refused(client, upload_token):
    _token, raw = upload_token
    response = _post(client, raw, data=b"")
    assert response.status_code == 400
    assert "file" in response.json()


def test_unknown_fields_are_refused(client, upload_token):
    _token, raw = upload_token
    response = _post(client, raw, data=b"data", evaluation=99)
    assert response.status_code == 400
    assert response.json() == {"evaluation": ["Unknown field."]}


@pytest.mark.parametrize(
    ("role", "expected"),
    [("engineer", 202), ("procurement", 202), ("manager", 403), ("viewer", 403), ("outsider", 404)],
)
def test_session_uploads_follow_the_role(client, members, candidate, role, expected):
    client.force_login(members[role])
    response = _post(client, data=b"text output", candidate=candidate.pk)
    assert response.status_code == expected, response.content
    assert EvidenceUpload.objects.exists() == (expected == 202)


def test_anonymous_uploads_are_refused(client, candidate):
    response = _post(client, data=b"text", candidate=candidate.pk)
    assert response.status_code in (401, 403)
    assert not EvidenceUpload.objects.exists()


def test_the_nonce_endpoint_needs_an_upload_token(client, upload_token, members):
    token, raw = upload_token
    response = client.get("/api/v1/evidence/nonce/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 200
    assert response.json()["nonce"] == token.nonce
    client.force_login(members["procurement"])
    assert client.get("/api/v1/evidence/nonce/").status_code in (401, 403)


def test_token_lifetime_is_bounded(candidate, members):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        upload_token_create(
            candidate=candidate, created_by=members["procurement"], expires_in=timedelta(days=365)
        )
    with pytest.raises(ValidationError):
        upload_token_create(
            candidate=candidate, created_by=members["procurement"], expires_in=timedelta(0)
        )
