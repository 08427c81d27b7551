"""A full media volume: the upload API answers 507 with a clear message, and nothing is kept
(no row, and not the part of the file written before the disk ran out)."""

import errno
import os
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from portal.models import EvidenceUpload

pytestmark = pytest.mark.django_db
URL = "/api/v1/evidence/"


def _post(client, raw, data: bytes, **headers):
    return client.post(
        URL,
        {"file": SimpleUploadedFile("bundle.tar.gz", data)},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
        **headers,
    )


def _files(root) -> list[Path]:
    return [path for path in Path(root).rglob("*") if path.is_file()]


def _save_until_full(storage, name, content):
    """What FileSystemStorage does on a full disk: half the file written, then ENOSPC."""
    path = Path(storage.path(name))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.read()[: content.size // 2])
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_disk_that_fills_during_the_write_answers_507_and_keeps_no_part(
    client, upload_token, settings, tmp_path, monkeypatch
):
    settings.MEDIA_ROOT = str(tmp_path)
    settings.EVIDENCE_MEDIA_MIN_FREE_BYTES = 0

    monkeypatch.setattr(FileSystemStorage, "_save", _save_until_full)
    _token, raw = upload_token
    response = _post(client, raw, os.urandom(64 * 1024))
    assert response.status_code == 507, response.content
    assert "storage is full" in response.json()["detail"]
    assert EvidenceUpload.objects.count() == 0
    assert _files(tmp_path) == []


def test_an_upload_that_would_leave_too_little_free_is_refused_before_it_is_written(
    client, upload_token, settings, tmp_path
):
    settings.MEDIA_ROOT = str(tmp_path)
    settings.EVIDENCE_MEDIA_MIN_FREE_BYTES = 10**18  # more than any disk has
    _token, raw = upload_token
    with translation.override("zh-hans"):
        response = _post(client, raw, b"x" * 4096, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 507, response.content
    assert "存储空间已满" in response.json()["detail"]
    assert EvidenceUpload.objects.count() == 0
    assert _files(tmp_path) == []


def test_other_write_errors_are_not_reported_as_a_full_disk(
    client, upload_token, settings, tmp_path, monkeypatch
):
    settings.MEDIA_ROOT = str(tmp_path)
    settings.EVIDENCE_MEDIA_MIN_FREE_BYTES = 0

    def refuse(storage, name, content):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(FileSystemStorage, "_save", refuse)
    _token, raw = upload_token
    client.raise_request_exception = False
    response = _post(client, raw, b"y" * 4096)
    assert response.status_code == 500
    assert EvidenceUpload.objects.count() == 0


def test_a_full_disk_while_the_body_is_spooled_answers_507(
    client, upload_token, settings, monkeypatch
):
    # A body over FILE_UPLOAD_MAX_MEMORY_SIZE is written to a temporary file first: on the
    # same full disk, that write fails before the media volume is reached.
    from django.core.files.uploadhandler import TemporaryFileUploadHandler

    def disk_full(handler, raw_data, start):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(TemporaryFileUploadHandler, "receive_data_chunk", disk_full)
    _token, raw = upload_token
    response = _post(client, raw, os.urandom(settings.FILE_UPLOAD_MAX_MEMORY_SIZE + 1024))
    assert response.status_code == 507, response.content
    assert "storage is full" in response.json()["detail"]
    assert EvidenceUpload.objects.count() == 0


def test_an_answer_attachment_on_a_full_disk_is_refused_and_the_typed_text_kept(
    as_role, settings, tmp_path, monkeypatch
):
    # operator review (stop 34): the evidence upload answered 507, but a document attached to
    # an answer on the questionnaire page met the same full disk with a 500 and a part left.
    from django.urls import reverse

    from portal.models import Answer, AnswerAttachment

    settings.MEDIA_ROOT = str(tmp_path)
    settings.EVIDENCE_MEDIA_MIN_FREE_BYTES = 0

    monkeypatch.setattr(FileSystemStorage, "_save", _save_until_full)
    client = as_role("procurement")
    typed = "99.95 %, credits 10-30 % (typed on a full disk)"
    url = reverse("answer-update", kwargs={"pk": 1, "candidate_pk": 3, "number": 7})
    response = client.post(
        url,
        {
            "item-7-claim": typed,
            "item-7-attachment": SimpleUploadedFile("sla.pdf", b"%PDF-1.7 " + b"x" * 4096),
        },
        HTTP_HX_REQUEST="true",
    )
    page = response.content.decode()
    assert response.status_code in (200, 409, 422), response.status_code
    assert "storage is full, so this file was not kept" in page
    assert typed in page
    assert not AnswerAttachment.objects.filter(answer__candidate_id=3).exists()
    assert not Answer.objects.filter(candidate_id=3, item__number=7, claim=typed).exists()
    assert _files(tmp_path) == []
