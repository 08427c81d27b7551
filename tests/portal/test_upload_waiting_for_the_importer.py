"""An upload the importer has not taken up in time (the broker or every worker away: it was
accepted and kept, and beat's sweeper sends it again once they are back) says so where it is
listed, in the reader's language, instead of showing "Queued" forever (attacker review)."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from portal.models import EvidenceUpload, UploadStatus
from portal.services.evidence import evidence_submit

pytestmark = pytest.mark.django_db
NOTE_EN = "Waiting longer than usual: the importer cannot be reached now."
NOTE_ZH = "等待时间比平常长"


def _page(client, candidate, **headers) -> str:
    url = reverse("candidate-evidence", args=[candidate.evaluation_id, candidate.pk])
    return client.get(url, **headers).content.decode()


def test_an_upload_queued_past_the_sweepers_delay_says_the_importer_is_away(
    client, candidate, members, settings
):
    upload, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("a.txt", b"GPU0\tX\n")
    )
    client.force_login(members["engineer"])
    assert upload.status == UploadStatus.QUEUED
    assert NOTE_EN not in _page(client, candidate)  # just sent: nothing to say yet
    waited = settings.EVIDENCE_SWEEP_QUEUED_FOR_S + 2 * settings.EVIDENCE_SWEEP_INTERVAL_S + 1
    long_ago = timezone.now() - timedelta(seconds=waited)
    EvidenceUpload.objects.filter(pk=upload.pk).update(created_at=long_ago, queued_at=long_ago)
    assert NOTE_EN in _page(client, candidate)
    assert NOTE_ZH in _page(client, candidate, HTTP_ACCEPT_LANGUAGE="zh-hans")


def test_an_import_held_past_its_lease_says_so_too(client, candidate, members, settings):
    upload, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("a.txt", b"GPU0\tX\n")
    )
    held = settings.EVIDENCE_IMPORT_LEASE_S + 2 * settings.EVIDENCE_SWEEP_INTERVAL_S + 1
    EvidenceUpload.objects.filter(pk=upload.pk).update(
        status=UploadStatus.PROCESSING, started_at=timezone.now() - timedelta(seconds=held)
    )
    client.force_login(members["engineer"])
    assert NOTE_EN in _page(client, candidate)
    EvidenceUpload.objects.filter(pk=upload.pk).update(status=UploadStatus.DONE)
    assert NOTE_EN not in _page(client, candidate)
