"""Report PDFs cost a Chromium render each: a PDF of the report as it is is handed out again,
renders are rate-limited per member, few PDFs are kept, and a broker that is down fails the
request's PDF with a reason instead of a 500 (or a PDF polled forever)."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from portal import selectors
from portal.celery import app as celery_app
from portal.models import Evaluation, PdfStatus, ReportPdf
from portal.services import reports

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db
DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1
PDF_URL = reverse("evaluation-report-pdf", args=[1])


@pytest.fixture
def viewer_client(client, demo, empty_cache):
    assert client.login(username="viewer", password=PASSWORDS["viewer"])
    return client


@pytest.fixture
def broker_down(monkeypatch, settings):
    """The Celery app's publisher pointed at a port where nothing listens (Celery reads the
    CELERY_BROKER_URL environment variable, which the test settings set, before its conf)."""
    monkeypatch.setenv("CELERY_BROKER_URL", DEAD_REDIS)
    settings.CELERY_BROKER_URL = DEAD_REDIS
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    assert celery_app.conf.broker_url == DEAD_REDIS
    yield
    monkeypatch.undo()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def _made_pdf(*, fingerprint: str, minutes_ago: int = 0, language: str = "en") -> ReportPdf:
    pdf = ReportPdf.objects.create(
        evaluation_id=1,
        requested_by=get_user_model().objects.get(username="engineer"),
        language=language,
        status=PdfStatus.DONE,
        size_bytes=13,
        finished_at=timezone.now(),
        fingerprint=fingerprint,
    )
    pdf.file.save("report-1.pdf", ContentFile(b"%PDF-1.4 made"), save=True)
    ReportPdf.objects.filter(pk=pdf.pk).update(
        created_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    return pdf


@pytest.mark.parametrize("made_with", ["the results alone", "another portal address"])
def test_a_pdf_of_an_older_format_or_another_address_is_not_handed_out(
    viewer_client, django_capture_on_commit_callbacks, settings, made_with
):
    """The same results rendered by an older report format (the fingerprint of the results
    alone, as PDFs were stamped before their links became absolute) or with links to another
    portal address are not the report as it is: asking renders a new one."""
    evaluation = Evaluation.objects.get(pk=1)
    if made_with == "the results alone":
        stamp = selectors.results_fingerprint(evaluation)
    else:
        stamp = selectors.report_pdf_fingerprint(evaluation)
        settings.PORTAL_BASE_URL = "https://gpu-portal.example.com"
    _made_pdf(fingerprint=stamp)
    assert (
        selectors.report_pdf_get(
            user=get_user_model().objects.get(username="viewer"),
            evaluation=evaluation,
            language="en",
        )
        is None
    )
    with django_capture_on_commit_callbacks() as callbacks:
        viewer_client.post(PDF_URL, HTTP_ACCEPT_LANGUAGE="en")
    assert len(callbacks) == 1 and ReportPdf.objects.count() == 2


def test_a_pdf_of_the_report_as_it_is_is_handed_out_again(
    viewer_client, django_capture_on_commit_callbacks
):
    made = _made_pdf(fingerprint=selectors.report_pdf_fingerprint(Evaluation.objects.get(pk=1)))
    with django_capture_on_commit_callbacks() as callbacks:
        response = viewer_client.post(PDF_URL, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302
    assert callbacks == []  # no render queued
    assert list(ReportPdf.objects.values_list("pk", flat=True)) == [made.pk]
    page = viewer_client.get(reverse("evaluation-report", args=[1])).content.decode()
    assert reverse("evaluation-report-pdf-download", args=[1, made.pk]) in page
    assert "is ready below" in page
    # Another language, or a PDF made before a change, is not the report as it is.
    with django_capture_on_commit_callbacks() as callbacks:
        viewer_client.post(PDF_URL, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert len(callbacks) == 1 and ReportPdf.objects.count() == 2


@override_settings(REST_FRAMEWORK={"DEFAULT_THROTTLE_RATES": {"report_pdf": "2/hour"}})
def test_renders_are_rate_limited_per_member(viewer_client, django_capture_on_commit_callbacks):
    from rest_framework.settings import api_settings

    api_settings.reload()
    try:
        for _ in range(2):
            with django_capture_on_commit_callbacks() as callbacks:
                assert viewer_client.post(PDF_URL).status_code == 302
            assert len(callbacks) == 1
            # Failed (as if Chromium broke): the next click asks for a new render.
            ReportPdf.objects.update(status=PdfStatus.FAILED, error="broken")
        with django_capture_on_commit_callbacks() as callbacks:
            response = viewer_client.post(PDF_URL, follow=True)
        assert callbacks == [] and ReportPdf.objects.count() == 2
        assert "ask again in" in response.content.decode()
        # Per member: the engineer still may.
        engineer = get_user_model().objects.get(username="engineer")
        pdf = reports.report_pdf_request(
            evaluation=Evaluation.objects.get(pk=1), by=engineer, language="en"
        )
        assert pdf.status == PdfStatus.QUEUED
    finally:
        api_settings.reload()


def test_only_the_newest_pdfs_are_kept(demo, django_capture_on_commit_callbacks):
    old = [_made_pdf(fingerprint="old", minutes_ago=60 - i) for i in range(4)]
    names = [pdf.file.name for pdf in old]
    storage = old[0].file.storage
    assert all(storage.exists(name) for name in names)
    queued = ReportPdf.objects.create(evaluation_id=1, language="en")
    with django_capture_on_commit_callbacks(execute=True):
        rendered = reports.report_pdf_render(pdf_id=queued.pk)  # a real Chromium render
    assert rendered.status == PdfStatus.DONE, rendered.error
    with rendered.file.open("rb") as made:
        assert made.read(5) == b"%PDF-"
    kept = set(ReportPdf.objects.values_list("pk", flat=True))
    assert kept == {queued.pk, old[3].pk, old[2].pk}
    assert not storage.exists(names[0]) and not storage.exists(names[1])
    assert storage.exists(names[2]) and storage.exists(names[3])


def test_a_pdf_no_longer_queued_is_not_rendered(demo):
    pdf = ReportPdf.objects.create(
        evaluation_id=1, language="en", status=PdfStatus.FAILED, error="lost"
    )
    after = reports.report_pdf_render(pdf_id=pdf.pk)
    assert (after.status, after.error) == (PdfStatus.FAILED, "lost")
    stored = ReportPdf.objects.get(pk=pdf.pk)
    assert not stored.file and stored.finished_at is None and stored.size_bytes in (None, 0)


def test_broker_down_fails_the_pdf_with_a_reason_instead_of_a_500(
    viewer_client, broker_down, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = viewer_client.post(PDF_URL)
    assert response.status_code == 302
    pdf = ReportPdf.objects.get()
    assert pdf.status == PdfStatus.FAILED and "queue" in pdf.error
    status = viewer_client.get(reverse("evaluation-report-pdf-status", args=[1, pdf.pk]))
    fragment = status.content.decode()
    assert "data-poll" not in fragment and "task queue is unavailable" in fragment


def test_the_sweeper_fails_a_pdf_whose_task_was_lost(viewer_client):
    from portal.tasks import evidence_sweep_task

    viewer = get_user_model().objects.get(username="viewer")
    lost = ReportPdf.objects.create(evaluation_id=1, requested_by=viewer, language="zh-hans")
    fresh = ReportPdf.objects.create(evaluation_id=1, requested_by=viewer, language="en")
    ReportPdf.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(minutes=10))
    evidence_sweep_task()
    lost.refresh_from_db()
    fresh.refresh_from_db()
    assert lost.status == PdfStatus.FAILED and "PDF" in lost.error and "worker" not in lost.error
    assert fresh.status == PdfStatus.QUEUED
    fragment = viewer_client.get(
        reverse("evaluation-report-pdf-status", args=[1, lost.pk])
    ).content.decode()
    assert "data-poll" not in fragment
