"""Removing a candidate, deleting an upload or retracting one deletes the stored files the
removal takes with it (evidence uploads, answer attachments) once it commits, never before."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from portal.models import Answer, AnswerAttachment, Candidate, ChecklistItem, EvidenceUpload
from portal.services.evaluations import answer_attachment_add, candidate_remove
from portal.services.evidence import evidence_import, evidence_retract, evidence_submit
from portal.services.files import stored_files, stored_files_delete_on_commit

from .conftest import PASSWORD, sample_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def media(settings, tmp_path) -> Path:
    settings.MEDIA_ROOT = str(tmp_path)
    return tmp_path


def _upload(candidate, name: str, user=None) -> EvidenceUpload:
    upload, created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile(name, sample_bytes(name)),
        user=user,
    )
    assert created
    return upload


def _attachment(candidate, user) -> AnswerAttachment:
    call_command("loaddata", "checklist", verbosity=0)
    answer = Answer.objects.create(
        candidate=candidate, item=ChecklistItem.objects.get(number=1), claim="8 x A100"
    )
    return answer_attachment_add(
        answer=answer, uploaded_file=SimpleUploadedFile("sla.pdf", b"%PDF-1.4 sla"), by=user
    )


def _on_disk(media: Path, field) -> Path:
    path = media / field.name
    assert path.is_file()
    return path


def test_removing_a_candidate_deletes_its_evidence_and_attachments_after_commit(
    client, candidate, members, media, django_capture_on_commit_callbacks
):
    procurement = members["procurement"]
    uploads = [_upload(candidate, "nccl-a100-8gpu.txt"), _upload(candidate, "lspci-kvm-vm.txt")]
    evidence_import(upload_id=uploads[0].pk, task_id="t1")
    attachment = _attachment(candidate, procurement)
    paths = [_on_disk(media, u.file) for u in uploads] + [_on_disk(media, attachment.file)]
    assert client.login(username="procurement", password=PASSWORD)
    url = reverse(
        "candidate-remove", kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk}
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        answer = client.post(url)
    assert answer.status_code == 302
    assert not Candidate.objects.filter(pk=candidate.pk).exists()
    # Deleted once the removal commits, not while it could still roll back.
    assert all(path.is_file() for path in paths)
    for callback in callbacks:
        callback()
    assert not any(path.exists() for path in paths)


def test_a_candidate_removal_that_rolls_back_keeps_the_files(candidate, members, media):
    from django.db import transaction

    upload = _upload(candidate, "nccl-a100-8gpu.txt")
    path = _on_disk(media, upload.file)
    candidate_id = candidate.pk
    with pytest.raises(RuntimeError), transaction.atomic():
        candidate_remove(candidate=candidate, by=members["procurement"])
        raise RuntimeError("rolled back")
    assert path.is_file()
    assert Candidate.objects.filter(pk=candidate_id).exists()


def test_a_file_already_missing_is_fine(
    candidate, members, media, django_capture_on_commit_callbacks
):
    first = _upload(candidate, "nccl-a100-8gpu.txt")
    second = _upload(candidate, "lspci-kvm-vm.txt")
    _on_disk(media, first.file).unlink()
    kept = _on_disk(media, second.file)
    with django_capture_on_commit_callbacks(execute=True):
        candidate_remove(candidate=candidate, by=members["procurement"])
    assert not kept.exists()


def test_deleting_one_upload_through_the_api_deletes_its_file_only(
    candidate, members, media, django_capture_on_commit_callbacks
):
    gone = _upload(candidate, "nccl-a100-8gpu.txt")
    other = _upload(candidate, "lspci-kvm-vm.txt")
    gone_path, other_path = _on_disk(media, gone.file), _on_disk(media, other.file)
    api = APIClient()
    api.force_login(members["procurement"])
    url = reverse(
        "api-upload-detail",
        kwargs={"evaluation_pk": candidate.evaluation_id, "upload_pk": gone.pk},
    )
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.delete(url, {"reason": "Wrong candidate."}, format="json")
    assert answer.status_code == 204, answer.content
    assert not gone_path.exists()
    assert other_path.is_file()


def test_retracting_a_failed_upload_deletes_its_file(
    candidate, members, media, django_capture_on_commit_callbacks
):
    engineer = members["engineer"]
    upload, _created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile("notes.txt", b"lunch at noon\n"),
        user=engineer,
    )
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload.refresh_from_db()
    assert upload.status == "failed"
    path = _on_disk(media, upload.file)
    with django_capture_on_commit_callbacks(execute=True):
        evidence_retract(upload=upload, by=engineer)
    assert not path.exists()


def test_stored_files_lists_what_a_removal_takes_with_it(candidate, members, media):
    upload = _upload(candidate, "nccl-a100-8gpu.txt")
    attachment = _attachment(candidate, members["procurement"])
    names = {name for _model, name in stored_files(candidate_ids=[candidate.pk])}
    assert names == {upload.file.name, attachment.file.name}
    assert [name for _m, name in stored_files(upload_ids=[upload.pk])] == [upload.file.name]
    stored_files_delete_on_commit([])  # nothing to do, no callback
