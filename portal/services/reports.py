"""Report PDFs: requested by a member, rendered by a worker with headless Chromium."""

import html as html_lib
import logging
import math
import re
import shutil
import subprocess
import tempfile
from datetime import timedelta
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from ..models import Evaluation, PdfStatus, ReportPdf
from .files import stored_files_delete_on_commit

CHROMIUM_TIMEOUT_S = 60
PDF_STALE_AFTER = timedelta(minutes=5)
# Finished PDFs kept per evaluation (about 450 KB each); older ones are deleted, rows and files.
PDFS_KEPT = 3

logger = logging.getLogger(__name__)


DEFAULT_REPORT_PDF_RATE = "10/hour"


class ReportPdfRateThrottle(SimpleRateThrottle):
    """At most 10 report PDFs rendered an hour per member (REST_FRAMEWORK
    ["DEFAULT_THROTTLE_RATES"]["report_pdf"] overrides it). Counted by
    report_pdf_request when a new render is queued only: a PDF already made
    of the report as it is, handed out again, costs no Chromium."""

    scope = "report_pdf"

    def get_rate(self) -> str:
        return (api_settings.DEFAULT_THROTTLE_RATES or {}).get(
            self.scope
        ) or DEFAULT_REPORT_PDF_RATE

    def get_cache_key(self, request, view) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}

    def allow_user(self, user) -> bool:
        """Count one render for ``user``; False (nothing counted) when over the limit."""
        # What get_cache_key reads: the member (the service has no HTTP request).
        return self.allow_request(SimpleNamespace(user=user), None)


class ReportPdfLimited(Exception):
    """The member asked for more new PDFs than the rate limit allows; ``message`` says when to
    ask again."""

    def __init__(self, wait_s: float | None):
        minutes = max(1, math.ceil((wait_s or 60) / 60))
        self.message = ngettext(
            "You have asked for many PDFs recently; ask again in %(minutes)d minute.",
            "You have asked for many PDFs recently; ask again in %(minutes)d minutes.",
            minutes,
        ) % {"minutes": minutes}
        super().__init__(self.message)


@transaction.atomic
def report_pdf_request(*, evaluation: Evaluation, by, language: str) -> ReportPdf:
    """Queue a PDF of ``evaluation``'s report in ``language``; the worker renders it.

    One at a time per member and evaluation: while one is queued or rendering, that one is
    returned (repeated clicks start no more Chromium processes); one pending for longer than
    PDF_STALE_AFTER (its worker died) is marked failed and a new one queued. A PDF already made
    of the report as it is now (the same results fingerprint, the same language), by any
    member, is returned instead of rendering another. A new render counts against the
    member's rate limit (ReportPdfRateThrottle): over it, ReportPdfLimited."""
    from .. import selectors

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
    made = selectors.report_pdf_current(
        evaluation=evaluation,
        language=language,
        fingerprint=selectors.report_pdf_fingerprint(evaluation),
    )
    if made is not None:
        return made
    throttle = ReportPdfRateThrottle()
    if not throttle.allow_user(by):
        raise ReportPdfLimited(throttle.wait())
    pdf = ReportPdf.objects.create(evaluation=evaluation, requested_by=by, language=language)
    # Robust: a broker that is down must not turn the request into a 500 (the row is marked
    # failed instead, see _report_pdf_send).
    transaction.on_commit(partial(_report_pdf_send, pdf.pk), robust=True)
    return pdf


def _report_pdf_send(pdf_id: int) -> None:
    """Enqueue the render; when the broker cannot be reached the PDF is marked failed with a
    reason the page shows (it stops polling; the member asks again later)."""
    from ..tasks import report_pdf_task

    try:
        report_pdf_task.delay(pdf_id)
    except Exception:
        logger.warning("report PDF %s not queued: the broker is unreachable", pdf_id, exc_info=True)
        ReportPdf.objects.filter(pk=pdf_id, status=PdfStatus.QUEUED).update(
            status=PdfStatus.FAILED,
            error=_(
                "The PDF could not be queued (the task queue is unavailable); ask again later."
            ),
            finished_at=timezone.now(),
        )


def report_pdf_sweep() -> int:
    """Fail the PDFs queued or rendering for longer than PDF_STALE_AFTER (their task was lost:
    never sent, or its worker died), each with a reason in its requester's language, so that
    no page polls for them forever. Returns how many. Safe to run twice: a conditional update."""
    now = timezone.now()
    stale = ReportPdf.objects.filter(
        status__in=[PdfStatus.QUEUED, PdfStatus.RENDERING], created_at__lt=now - PDF_STALE_AFTER
    )
    failed = 0
    for pdf_id, language in stale.values_list("pk", "language"):
        with translation.override(language):
            error = _("The worker did not finish in time; ask for the PDF again.")
        failed += ReportPdf.objects.filter(
            pk=pdf_id, status__in=[PdfStatus.QUEUED, PdfStatus.RENDERING]
        ).update(status=PdfStatus.FAILED, error=error, finished_at=now)
    return failed


def report_pdf_prune(*, evaluation_id: int, keep: int = PDFS_KEPT) -> int:
    """Delete all but the ``keep`` newest finished PDFs of an evaluation, their files once the
    deletion is committed. Returns how many rows went."""
    with transaction.atomic():
        old = list(
            ReportPdf.objects.filter(
                evaluation_id=evaluation_id, status__in=[PdfStatus.DONE, PdfStatus.FAILED]
            )
            .order_by("-created_at", "-pk")
            .values_list("pk", "file")[keep:]
        )
        ReportPdf.objects.filter(pk__in=[pk for pk, _file in old]).delete()
        stored_files_delete_on_commit([(ReportPdf, name) for _pk, name in old if name])
    return len(old)


def _static_text(path: str) -> str:
    from django.contrib.staticfiles import finders

    found = finders.find(path)
    return Path(found).read_text(encoding="utf-8") if found else ""


# An <a> start tag, or a whole script or style element, skipped: plotly.js carries "<a href" in
# its strings. (</script> cannot occur inside the inlined files, see report_html.)
_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>|<a\b[^>]*>", re.DOTALL | re.IGNORECASE)
_HREF = re.compile(r'\shref="([^"]*)"', re.IGNORECASE)
_IDS = re.compile(r'\sid="([^"]*)"')


def report_links_absolute(html: str, *, page_url: str) -> str:
    """``html`` with its links made to work from a PDF: Chromium prints a file on disk, so a
    link relative to the portal ("/evaluations/1/candidates/1/#item-gpu") pointed at
    file:///evaluations/... Each becomes absolute against ``page_url`` (the report's address
    at the portal). An in-document anchor ("#ranking-title") stays as it is, a link inside
    the PDF. A link that cannot work (an anchor to no element of the page, or not http(s)
    once resolved: ``page_url`` not absolute) loses its href, its text staying."""
    ids = set(_IDS.findall(html))

    def href(found: re.Match) -> str:
        target = html_lib.unescape(found.group(1))
        if target.startswith("#"):
            return found.group(0) if target[1:] in ids else ""
        target = urljoin(page_url, target)
        if urlsplit(target).scheme not in ("http", "https"):
            return ""
        return f' href="{html_lib.escape(target)}"'

    def link(tag: re.Match) -> str:
        if tag.group(1):  # a script or a style
            return tag.group(0)
        return _HREF.sub(href, tag.group(0))

    return _TAGS.sub(link, html)


def report_page_url(evaluation: Evaluation) -> str:
    """The report's address at the portal (PORTAL_BASE_URL, as the e-mails' links use it)."""
    from django.urls import reverse

    path = reverse("evaluation-report", args=[evaluation.pk])
    return settings.PORTAL_BASE_URL.rstrip("/") + path


def report_html(evaluation: Evaluation) -> str:
    """The report as one self-contained HTML page (styles and scripts inlined), its links
    absolute to the portal (report_links_absolute)."""
    from django.template.loader import render_to_string

    from ..views.decisions import report_context

    context = {
        **report_context(evaluation),
        "membership": None,
        "inline_css": _static_text("portal/portal.css") + _static_text("portal/report.css"),
        # </script> cannot occur in these files' text; plotly.min.js is the vendored build.
        "inline_js": _static_text("plotly/plotly.min.js") + "\n" + _static_text("portal/charts.js"),
    }
    html = render_to_string("portal/report_pdf.html", context)
    return report_links_absolute(html, page_url=report_page_url(evaluation))


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
    # Only a queued PDF starts rendering (compare-and-swap): a message delivered twice, or
    # one arriving after the sweeper failed the PDF, renders nothing.
    started = ReportPdf.objects.filter(pk=pdf_id, status=PdfStatus.QUEUED).update(
        status=PdfStatus.RENDERING
    )
    pdf = ReportPdf.objects.filter(pk=pdf_id).first()
    if not started or pdf is None:
        return pdf
    from .. import selectors

    # Taken before the page: a change made while it renders marks the PDF out of date.
    pdf.fingerprint = selectors.report_pdf_fingerprint(pdf.evaluation)
    try:
        with translation.override(pdf.language):
            data = chromium_pdf(report_html(pdf.evaluation))
    except Exception as exc:  # the reason is shown to the member who asked
        pdf.status = PdfStatus.FAILED
        pdf.error = (str(exc) or exc.__class__.__name__)[:2000]
        pdf.finished_at = timezone.now()
        pdf.save(update_fields=["status", "error", "finished_at"])
        report_pdf_prune(evaluation_id=pdf.evaluation_id)
        return pdf
    pdf.file.save(f"report-{pdf.evaluation_id}.pdf", ContentFile(data), save=False)
    pdf.size_bytes = len(data)
    pdf.status = PdfStatus.DONE
    pdf.finished_at = timezone.now()
    pdf.save(update_fields=["file", "size_bytes", "status", "finished_at", "fingerprint"])
    report_pdf_prune(evaluation_id=pdf.evaluation_id)
    return pdf
