"""Byte sizes read in binary units (KiB, MiB) everywhere, as the evidence pages and charts
show them: an attachment on the questionnaire and on the document review, and a report PDF;
Django's filesizeformat said "1.5 KB" for 1536 bytes."""

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from portal.models import Answer, PdfStatus, ReportPdf
from portal.services.evaluations import answer_attachment_add
from portal.templatetags.portal_tags import binary_size

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


def _login(client, role: str):
    assert client.login(username=role, password=PASSWORDS[role])
    return client


def test_an_attachment_shows_its_size_in_kib(client, demo, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    answer = Answer.objects.get(candidate_id=4, item__number=7)
    procurement = get_user_model().objects.get(username="procurement")
    answer_attachment_add(
        answer=answer,
        uploaded_file=SimpleUploadedFile("sla.pdf", b"%PDF-1.7" + b"%" * 1528),
        by=procurement,
    )
    questionnaire = reverse("candidate-questionnaire", args=[1, 4])
    page = _login(client, "procurement").get(questionnaire).content.decode()
    assert "sla.pdf</a> <small>(1.5 KiB)</small>" in page
    assert "KB" not in page
    review = reverse("candidate-review", args=[1, 4])
    page = _login(client, "engineer").get(review).content.decode()
    assert "sla.pdf</a> <small>(1.5 KiB)</small>" in page
    page = client.get(review, **ZH).content.decode()
    assert "sla.pdf</a> <small>(1.5 KiB)</small>" in page


def test_a_report_pdf_shows_its_size_in_kib(client, demo):
    pdf = ReportPdf.objects.create(
        evaluation_id=1,
        requested_by=get_user_model().objects.get(username="viewer"),
        language="en",
        status=PdfStatus.DONE,
        size_bytes=460_800,
        finished_at=timezone.now(),
    )
    pdf.file.save("report-1.pdf", ContentFile(b"%PDF-1.4 made"), save=True)
    status = reverse("evaluation-report-pdf-status", args=[1, pdf.pk])
    fragment = _login(client, "viewer").get(status).content.decode()
    assert "UTC, 450 KiB)" in fragment
    assert "450 KiB" in client.get(status, **ZH).content.decode()


def test_the_filter_uses_binary_units():
    assert binary_size(None) == "—"
    assert binary_size(0) == "0 B"
    assert binary_size(1023) == "1023 B"
    assert binary_size(1536) == "1.5 KiB"
    assert binary_size(20 * 1024 * 1024) == "20 MiB"
    assert binary_size(3 * 1024**3 + 1024**3 // 4) == "3.25 GiB"
