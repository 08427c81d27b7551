"""Sending a failed upload's file again: the failure's own message asks for it ("upload the file
again"), and the same content used to be answered "received earlier" and left failed for good
(its sha256 is unique per candidate). A failure the file did not cause is imported again; one
the current parsers gave stays, since it would repeat."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.urls import reverse
from django.utils import translation

from portal import evidence_messages
from portal.models import EvidenceUpload, Measurement, UploadStatus
from portal.services.evidence import evidence_import, evidence_submit
from scoring.evidence import PARSER_VERSION

from .conftest import sample_bytes

# Not transaction=True: committed uploads would be sent to the suite's Celery worker, which would
# import them beside the imports these tests run themselves.
pytestmark = pytest.mark.django_db
API = "/api/v1/evidence/"


def _send(candidate, data: bytes, name: str = "all_reduce.txt"):
    with transaction.atomic():
        return evidence_submit(candidate=candidate, uploaded_file=SimpleUploadedFile(name, data))


def _fail(upload, code: str, *, parser_version: str = "", params=None) -> None:
    EvidenceUpload.objects.filter(pk=upload.pk).update(
        status=UploadStatus.FAILED,
        error_code=code,
        error_params=params or {},
        error="failed",
        parser_version=parser_version,
        attempts=5,
    )


def _import(upload) -> EvidenceUpload:
    evidence_import(upload_id=upload.pk, task_id=f"retry-{upload.pk}")
    upload.refresh_from_db()
    return upload


@pytest.mark.parametrize(
    "code",
    [
        evidence_messages.UPLOAD_ABANDONED,
        evidence_messages.UPLOAD_INTERNAL_ERROR,
    ],
)
def test_a_failure_the_file_did_not_cause_is_imported_again(candidate, code):
    data = sample_bytes("nccl-a100-8gpu.txt")
    first, created = _send(candidate, data)
    assert created and first.requeued is False
    _fail(first, code, params={"n": 5})

    again, created = _send(candidate, data, "again.txt")
    assert not created and again.pk == first.pk
    assert again.requeued is True
    assert (again.status, again.error, again.error_code, again.attempts) == ("queued", "", "", 0)
    assert again.queued_at > again.created_at
    assert again.history.first().status == UploadStatus.QUEUED, "recorded in its history"
    done = _import(again)
    assert done.status == UploadStatus.DONE, done.error
    assert Measurement.objects.filter(upload=done, metric="peak_busbw_gbyte_s").exists()

    # Sent once more now that it is imported: nothing is queued.
    third, created = _send(candidate, data, "third.txt")
    assert not created and third.requeued is False and third.status == UploadStatus.DONE


def test_a_lost_stored_file_is_stored_again_from_the_bytes_sent(candidate):
    data = sample_bytes("nccl-a100-8gpu.txt")
    first, _ = _send(candidate, data)
    first.file.storage.delete(first.file.name)
    _fail(first, evidence_messages.UPLOAD_FILE_MISSING)

    again, created = _send(candidate, data)
    assert not created and again.requeued
    with again.file.open("rb") as stored:
        assert stored.read() == data
    assert _import(again).status == UploadStatus.DONE


def test_a_file_the_current_parsers_refused_stays_failed(candidate):
    data = b"nothing any tool prints\n" * 3
    first, _ = _send(candidate, data, "notes.txt")
    failed = _import(first)
    assert failed.status == UploadStatus.FAILED
    assert failed.parser_version == PARSER_VERSION

    again, created = _send(candidate, data, "notes.txt")
    assert not created and again.requeued is False
    again.refresh_from_db()
    assert again.status == UploadStatus.FAILED and again.error == failed.error


def test_a_file_older_parsers_refused_is_read_by_the_current_ones(candidate):
    data = sample_bytes("nccl-a100-8gpu.txt")
    first, _ = _send(candidate, data)
    _fail(first, evidence_messages.UPLOAD_NOTHING_PARSED, parser_version="0.9.0")

    again, created = _send(candidate, data)
    assert not created and again.requeued
    assert _import(again).status == UploadStatus.DONE


def test_the_page_and_the_api_say_it_is_imported_again(client, candidate, members, upload_token):
    data = sample_bytes("nccl-a100-8gpu.txt")
    first, _ = _send(candidate, data, "first.txt")
    _fail(first, evidence_messages.UPLOAD_ABANDONED, params={"n": 5})
    client.force_login(members["engineer"])
    page = reverse("candidate-evidence", args=[candidate.evaluation_id, candidate.pk])
    with translation.override("en"):
        response = client.post(
            page, {"file": SimpleUploadedFile("again.txt", data)}, follow=True
        ).content.decode()
    assert "“again.txt” was received earlier, as “first.txt”, and its import had failed" in response

    _fail(first, evidence_messages.UPLOAD_ABANDONED, params={"n": 5})
    response = client.post(
        page,
        {"file": SimpleUploadedFile("again.txt", data)},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).content.decode()
    assert "其导入曾失败：现已重新导入" in response

    _fail(first, evidence_messages.UPLOAD_ABANDONED, params={"n": 5})
    _token, raw = upload_token
    answer = client.post(
        API, {"file": SimpleUploadedFile("again.txt", data)}, HTTP_AUTHORIZATION=f"Bearer {raw}"
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["id"], body["duplicate"], body["status"]) == (first.pk, True, "queued")
