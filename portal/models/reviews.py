"""A second member's review of a document-backed answer, and each user's notification choices."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from .evaluations import Answer

# Items whose truth sits in a document (certificates, SLA, contract terms, the quoted monthly
# cost) rather than in node measurements: a person reviews them with the attachment open. The
# fabric (item 3) is half of each: ibstat shows one node's ports, but the switch topology
# (oversubscription, cross-rack latency) only the network design document shows; its review
# is what scoring reads for those claims (scoring's "fabric_topology"), whatever ibstat says.
DOCUMENT_ITEMS = ("fabric", "compliance", "sla", "monthly_cost")


class ReviewVerdict(models.TextChoices):
    VERIFIED = "verified", _("Verified")
    CONTRADICTED = "contradicted", _("Contradicted")


class AnswerReview(models.Model):
    """A reviewer's verdict on one answer as it stood when reviewed (claim and typed value are
    kept: once the answer changes the review no longer applies)."""

    answer = models.OneToOneField(Answer, on_delete=models.CASCADE, related_name="review")
    verdict = models.CharField(_("verdict"), max_length=15, choices=ReviewVerdict.choices)
    note = models.TextField(_("review note"))
    claim_reviewed = models.TextField(_("claim reviewed"), blank=True)
    value_reviewed = models.JSONField(_("typed value reviewed"), null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("answer review")
        verbose_name_plural = _("answer reviews")
        constraints = [
            models.CheckConstraint(
                condition=Q(verdict__in=["verified", "contradicted"]),
                name="answer_review_verdict_valid",
            )
        ]

    def __str__(self) -> str:
        return f"{self.answer} · {self.verdict}"

    def applies_to(self, answer: Answer) -> bool:
        """True while the answer still says what the reviewer read."""
        return (self.claim_reviewed, self.value_reviewed) == (answer.claim, answer.value)


class NotificationPreference(models.Model):
    """Which e-mails a user receives (all on unless switched off on the profile page)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    import_failed = models.BooleanField(_("an evidence import failed"), default=True)
    poc_deadline = models.BooleanField(_("a POC deadline is two days away"), default=True)
    decision_recorded = models.BooleanField(_("a decision was recorded"), default=True)
    catalogue_changed = models.BooleanField(
        _("a catalogue change affects an open evaluation"), default=True
    )
    # Empty: the site's language (LANGUAGE_CODE). Checked against LANGUAGES by the service.
    language = models.CharField(_("e-mail language"), max_length=10, blank=True, default="")

    class Meta:
        verbose_name = _("notification preference")
        verbose_name_plural = _("notification preferences")

    def __str__(self) -> str:
        return f"{self.user}"
