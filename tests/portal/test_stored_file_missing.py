"""A stored file gone from the media folder (a volume not mounted on this web server, files
removed by hand) is a page saying so, in the reader's language, never a 500 (attacker review:
every raw evidence, attachment and report PDF download answered the server-error page)."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from portal.models import Answer, PdfStatus, ReportPdf
from portal.services.evaluations import answer_attachment_add
from portal.services.evidence import evidence_submit

pytestmark = pytest.mark.django_db
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


def _gone(field_file) -> None:
    Path(field_file.path).unlink()


def _assert_missing_page(client, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 404
    page = response.content.decode()
    assert "The stored file is missing" in page
    assert "operator" in page
    page = client.get(url, **ZH).content.decode()
    assert "存储中找不到该文件" in page


@pytest.fixture
def signed_in(client, demo, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    assert client.login(username="procurement", password="procure-gpus-2026")
    return client


def test_a_missing_raw_evidence_file_is_a_page_saying_so(signed_in):
    procurement = get_user_model().objects.get(username="procurement")
    candidate = Answer.objects.filter(candidate__evaluation_id=1).first().candidate
    upload, _created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile("a.txt", b"GPU0\tX\n"),
        user=procurement,
    )
    url = reverse("upload-download", args=[1, upload.pk])
    assert signed_in.get(url).status_code == 200
    _gone(upload.file)
    _assert_missing_page(signed_in, url)


def test_a_missing_attachment_is_a_page_saying_so(signed_in):
    procurement = get_user_model().objects.get(username="procurement")
    answer = Answer.objects.filter(candidate__evaluation_id=1).first()
    attachment = answer_attachment_add(
        answer=answer, uploaded_file=SimpleUploadedFile("sla.pdf", b"%PDF-1.4"), by=procurement
    )
    url = reverse("attachment-download", args=[1, attachment.pk])
    assert signed_in.get(url).status_code == 200
    _gone(attachment.file)
    _assert_missing_page(signed_in, url)


def test_a_missing_report_pdf_is_a_page_saying_so(signed_in):
    pdf = ReportPdf.objects.create(
        evaluation_id=1,
        requested_by=get_user_model().objects.get(username="procurement"),
        language="en",
        status=PdfStatus.DONE,
        size_bytes=13,
        finished_at=timezone.now(),
    )
    pdf.file.save("report-1.pdf", ContentFile(b"%PDF-1.4 made"), save=True)
    url = reverse("evaluation-report-pdf-download", args=[1, pdf.pk])
    assert signed_in.get(url).status_code == 200
    _gone(pdf.file)
    _assert_missing_page(signed_in, url)
