"""The POC test plan of an evaluation (issue #13, section 4): its deadline, the fleet sample
and, per candidate, the nodes that must report."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from .evaluations import Candidate, Evaluation


class PocPlan(models.Model):
    """One plan per evaluation; the required runs are derived (scoring.poc), not stored."""

    evaluation = models.OneToOneField(Evaluation, on_delete=models.CASCADE, related_name="poc_plan")
    deadline = models.DateTimeField(
        _("deadline"),
        help_text=_("A required run still missing at this time counts as failed."),
    )
    all_nodes_max = models.PositiveIntegerField(
        _("nodes for the multi-node runs"),
        default=2,
        validators=[MinValueValidator(2), MaxValueValidator(4096)],
        help_text=_(
            "The multi-node all_reduce and alltoall span every node of the candidate up to "
            "this count (at least 2)."
        ),
    )
    sample_size = models.PositiveIntegerField(
        _("sampled nodes per candidate"),
        default=4,
        validators=[MinValueValidator(1), MaxValueValidator(1024)],
        help_text=_("How many of each candidate's nodes are picked at random to report."),
    )
    seed = models.BigIntegerField(
        _("sampling seed"),
        help_text=_("Recorded so that anyone can recompute which nodes were picked."),
    )
    shared_fs_path = models.CharField(
        _("shared file system path"),
        max_length=200,
        blank=True,
        help_text=_("fio runs under this path count as shared file system runs."),
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)
    # The deadline whose two-day reminder went out: a moved deadline is reminded again.
    reminded_for = models.DateTimeField(null=True, blank=True, editable=False)
    history = HistoricalRecords(excluded_fields=["reminded_for"])

    class Meta:
        verbose_name = _("POC plan")
        verbose_name_plural = _("POC plans")

    def __str__(self) -> str:
        return f"POC plan of {self.evaluation}"


class PocCandidateNodes(models.Model):
    """A candidate's node names (as its vendor listed them) and the recorded sample of them."""

    plan = models.ForeignKey(PocPlan, on_delete=models.CASCADE, related_name="candidates")
    candidate = models.OneToOneField(Candidate, on_delete=models.CASCADE, related_name="poc_nodes")
    node_names = models.JSONField(_("node names"), default=list, blank=True)
    sampled_nodes = models.JSONField(_("sampled nodes"), default=list, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("POC nodes of a candidate")
        verbose_name_plural = _("POC nodes of candidates")

    def __str__(self) -> str:
        return f"{self.candidate}: {len(self.sampled_nodes)}/{len(self.node_names)}"
