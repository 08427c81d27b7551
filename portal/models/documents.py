"""Report PDFs produced by a worker with headless Chromium, and their progress."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .evaluations import Evaluation


class PdfStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RENDERING = "rendering", _("Rendering")
    DONE = "done", _("Ready")
    FAILED = "failed", _("Failed")


def report_pdf_path(instance: "ReportPdf", filename: str) -> str:
    import uuid

    return f"reports/{instance.evaluation_id}/{uuid.uuid4().hex}.pdf"


class ReportPdf(models.Model):
    """One requested PDF of an evaluation's report, in the requester's language."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="report_pdfs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    language = models.CharField(_("language"), max_length=10, default="en")
    status = models.CharField(
        _("status"), max_length=10, choices=PdfStatus.choices, default=PdfStatus.QUEUED
    )
    file = models.FileField(_("file"), upload_to=report_pdf_path, max_length=300, blank=True)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"), default=0)
    error = models.TextField(_("error"), blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The results fingerprint of the evaluation as it was rendered (selectors.results_fingerprint):
    # the report page tells a PDF made before a change (a decision, a reopening, an answer,
    # evidence) from one of the evaluation as it is.
    fingerprint = models.CharField(_("fingerprint"), max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("report PDF")
        verbose_name_plural = _("report PDFs")

    def __str__(self) -> str:
        return f"{self.evaluation} · PDF {self.pk} ({self.status})"
