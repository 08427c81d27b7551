"""The report is a document: TCO tables per billing model with the budget line, the checklist
with verification status, the evidence with hashes, the weights and the decision; and a PDF
made by a real Celery worker with headless Chromium, shown with progress."""

import re
import time

import pytest
from django.urls import reverse

from portal.models import EvidenceUpload, PdfStatus, ReportPdf

from .conftest import PASSWORDS


def _login(client, role="viewer"):
    assert client.login(username=role, password=PASSWORDS[role])
    return client


@pytest.mark.django_db
def test_the_report_has_the_documents_sections(client, demo):
    from portal.models import Evaluation

    Evaluation.objects.filter(pk=1).update(budget_total=2_000_000)
    body = _login(client).get(reverse("evaluation-report", args=[1])).content.decode()
    assert "Total cost of ownership by billing model" in body
    assert re.search(r"Budget: 2,000,000 CNY", body)
    assert body.count('class="data tco-table"') >= 2
    assert "Checklist and verification" in body
    assert body.count('class="data checklist-table"') >= 2
    upload = EvidenceUpload.objects.filter(candidate__evaluation_id=1).first()
    assert upload.sha256 in body
    assert "Weights" in body and "Make a PDF" in body


@pytest.mark.django_db
def test_the_pdf_renders_in_process(demo):
    from django.contrib.auth import get_user_model

    from portal.models import Evaluation
    from portal.services.reports import report_pdf_render

    pdf = ReportPdf.objects.create(
        evaluation=Evaluation.objects.get(pk=1),
        requested_by=get_user_model().objects.get(username="viewer"),
        language="zh-hans",
    )
    pdf = report_pdf_render(pdf_id=pdf.pk)
    assert pdf.status == PdfStatus.DONE, pdf.error
    data = pdf.file.read()
    assert data.startswith(b"%PDF") and pdf.size_bytes == len(data)
    assert len(re.findall(rb"/Type\s*/Page[^s]", data)) >= 3
    from portal import selectors

    assert pdf.fingerprint == selectors.report_pdf_fingerprint(pdf.evaluation)


@pytest.mark.django_db
def test_a_pdf_made_before_a_change_says_so(client, demo):
    """The report page offers the member's latest PDF with the time it was made; once the
    evaluation changes (here a decision, then a reopening) that PDF is said to show the
    evaluation before the change, so no one prints an old decision as the current one."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from portal import selectors
    from portal.models import Evaluation
    from portal.services.evaluations import decision_record, evaluation_reopen

    evaluation = Evaluation.objects.get(pk=1)
    users = get_user_model().objects
    ReportPdf.objects.create(
        evaluation=evaluation,
        requested_by=users.get(username="viewer"),
        status=PdfStatus.DONE,
        file="reports/made-earlier.pdf",
        size_bytes=1000,
        finished_at=timezone.now(),
        fingerprint=selectors.report_pdf_fingerprint(evaluation),
    )
    url = reverse("evaluation-report", args=[1])
    body = _login(client).get(url).content.decode()
    assert "Download the PDF" in body and "made " in body and "before later changes" not in body

    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    manager = users.get(username="manager")
    decision_record(
        evaluation=evaluation,
        candidate=evaluation.candidates.get(pk=ranking.qualified[0].candidate_id),
        rationale="Best.",
        by=manager,
    )
    body = client.get(url).content.decode()
    assert "shows the evaluation before later changes" in body
    assert "Download that earlier PDF" in body
    evaluation_reopen(evaluation=evaluation, reason="New quote.", by=manager)
    assert "before later changes" in client.get(url).content.decode()


def _wait_for(predicate, timeout_s=90.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError("condition not met")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_makes_the_pdf_and_the_page_shows_progress(
    celery_worker_process, client, demo
):
    _login(client)
    response = client.post(reverse("evaluation-report-pdf", args=[1]))
    assert response.status_code == 302
    pdf = ReportPdf.objects.get()
    page = client.get(reverse("evaluation-report", args=[1])).content.decode()
    assert 'class="pdf-status"' in page
    status_url = reverse("evaluation-report-pdf-status", args=[1, pdf.pk])
    done = _wait_for(
        lambda: (
            client.get(status_url, HTTP_ACCEPT="application/json").json()["status"]
            in ("done", "failed")
        )
    )
    assert done
    pdf.refresh_from_db()
    assert pdf.status == PdfStatus.DONE, pdf.error
    fragment = client.get(status_url).content.decode()
    assert "Download the PDF" in fragment and "data-poll" not in fragment
    download = client.get(reverse("evaluation-report-pdf-download", args=[1, pdf.pk]))
    assert download["Content-Type"] == "application/pdf"
    assert "report" in download["Content-Disposition"]
    assert b"".join(download.streaming_content).startswith(b"%PDF")
    # Another evaluation's member cannot read it.
    client.logout()
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user(username="stranger", password="x-123456789")
    client.login(username="stranger", password="x-123456789")
    assert client.get(status_url).status_code == 404


@pytest.mark.django_db
def test_repeated_requests_queue_one_pdf_and_a_stale_one_is_failed(
    demo, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from portal.models import Evaluation
    from portal.services.reports import report_pdf_request

    evaluation = Evaluation.objects.get(pk=1)
    viewer = get_user_model().objects.get(username="viewer")
    first = report_pdf_request(evaluation=evaluation, by=viewer, language="en")
    again = report_pdf_request(evaluation=evaluation, by=viewer, language="en")
    assert again.pk == first.pk and ReportPdf.objects.count() == 1
    ReportPdf.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=1))
    fresh = report_pdf_request(evaluation=evaluation, by=viewer, language="en")
    assert fresh.pk != first.pk
    first.refresh_from_db()
    assert first.status == PdfStatus.FAILED and "again" in first.error


@pytest.mark.django_db
def test_the_checklist_explains_verification_in_the_reader_s_language(demo):
    """The verifier's explanations, not the answers' English notes, in the report and XLSX."""
    from django.utils import translation

    from portal.exports import report_sections
    from portal.models import Evaluation

    evaluation = Evaluation.objects.get(pk=1)
    with translation.override("zh-hans"):
        rows = report_sections(evaluation)["checklist"][1]
    with translation.override("en"):
        english = report_sections(evaluation)["checklist"][1]
    notes = [row[5] for row in rows if row[5]]
    assert notes and len(notes) == len([row[5] for row in english if row[5]])
    assert not [n for n in notes if "claimed" in n or "cannot be" in n], notes[:3]
    assert any("as claimed" in row[5] for row in english)
