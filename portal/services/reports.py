"""Report PDFs: requested by a member, rendered by a worker with headless Chromium."""

import shutil
import subprocess
import tempfile
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ..models import Evaluation, PdfStatus, ReportPdf

CHROMIUM_TIMEOUT_S = 60
PDF_STALE_AFTER = timedelta(minutes=5)


@transaction.atomic
def report_pdf_request(*, evaluation: Evaluation, by, language: str) -> ReportPdf:
    """Queue a PDF of ``evaluation``'s report in ``language``; the worker renders it.

    One at a time per member and evaluation: while one is queued or rendering, that one is
    returned (repeated clicks start no more Chromium processes); one pending for longer than
    PDF_STALE_AFTER (its worker died) is marked failed and a new one queued."""
    pending = ReportPdf.objects.select_for_update().filter(
        evaluation=evaluation,
        requested_by=by,
        status__in=[PdfStatus.QUEUED, PdfStatus.RENDERING],
    )
    stale_before = timezone.now() - PDF_STALE_AFTER
    pending.filter(created_at__lt=stale_before).update(
        status=PdfStatus.FAILED,
        # Shown only to the member asking, in their language (active during the request).
        error=_("The worker did not finish in time; ask for the PDF again."),
        finished_at=timezone.now(),
    )
    current = pending.filter(created_at__gte=stale_before).first()
    if current is not None:
        return current
    pdf = ReportPdf.objects.create(evaluation=evaluation, requested_by=by, language=language)
    from ..tasks import report_pdf_task

    transaction.on_commit(lambda: report_pdf_task.delay(pdf.pk))
    return pdf


def _static_text(path: str) -> str:
    from django.contrib.staticfiles import finders

    found = finders.find(path)
    return Path(found).read_text(encoding="utf-8") if found else ""


def report_html(evaluation: Evaluation) -> str:
    """The report as one self-contained HTML page (styles and scripts inlined)."""
    from django.template.loader import render_to_string

    from ..views.decisions import report_context

    context = {
        **report_context(evaluation),
        "membership": None,
        "inline_css": _static_text("portal/portal.css") + _static_text("portal/report.css"),
        # </script> cannot occur in these files' text; plotly.min.js is the vendored build.
        "inline_js": _static_text("plotly/plotly.min.js") + "\n" + _static_text("portal/charts.js"),
    }
    return render_to_string("portal/report_pdf.html", context)


def chromium_pdf(html: str) -> bytes:
    """Print ``html`` to PDF with headless Chromium (scripts run first, then A4 print CSS)."""
    binary = getattr(settings, "CHROMIUM_BINARY", "") or shutil.which("chromium") or "chromium"
    with tempfile.TemporaryDirectory(prefix="report-pdf-") as tmp:
        page = Path(tmp) / "report.html"
        out = Path(tmp) / "report.pdf"
        page.write_text(html, encoding="utf-8")
        # A fixed argument list (no shell); the page is our own rendered template.
        subprocess.run(  # noqa: S603
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                f"--user-data-dir={tmp}/profile",
                "--no-pdf-header-footer",
                # The page is self-contained: nothing is fetched from any network.
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--virtual-time-budget=10000",
                f"--print-to-pdf={out}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=CHROMIUM_TIMEOUT_S,
        )
        data = out.read_bytes() if out.exists() else b""
    if not data.startswith(b"%PDF"):
        raise RuntimeError("Chromium wrote no PDF")
    return data


def report_pdf_render(*, pdf_id: int) -> ReportPdf | None:
    """Render one queued PDF: rendering → done (with the file) or failed (with the reason)."""
    with transaction.atomic():
        pdf = ReportPdf.objects.select_for_update().filter(pk=pdf_id).first()
        if pdf is None or pdf.status == PdfStatus.DONE:
            return pdf
        pdf.status = PdfStatus.RENDERING
        pdf.save(update_fields=["status"])
    from .. import selectors

    # Taken before the page: a change made while it renders marks the PDF out of date.
    pdf.fingerprint = selectors.results_fingerprint(pdf.evaluation)
    try:
        with translation.override(pdf.language):
            data = chromium_pdf(report_html(pdf.evaluation))
    except Exception as exc:  # the reason is shown to the member who asked
        pdf.status = PdfStatus.FAILED
        pdf.error = (str(exc) or exc.__class__.__name__)[:2000]
        pdf.finished_at = timezone.now()
        pdf.save(update_fields=["status", "error", "finished_at"])
        return pdf
    pdf.file.save(f"report-{pdf.evaluation_id}.pdf", ContentFile(data), save=False)
    pdf.size_bytes = len(data)
    pdf.status = PdfStatus.DONE
    pdf.finished_at = timezone.now()
    pdf.save(update_fields=["file", "size_bytes", "status", "finished_at", "fingerprint"])
    return pdf
