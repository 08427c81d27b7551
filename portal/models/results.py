"""The results read model kept in PostgreSQL: computed results of an evaluation (its ranking,
robustness, rendered dashboard fragments, the API's ranking payload), each under the
fingerprint of the inputs it was computed from, so that a restart, an eviction or Redis being
away costs a read rather than the computation."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .evaluations import Evaluation


class ResultsEntry(models.Model):
    """One computed result, pickled and compressed (zlib). ``key`` is the cache key
    (portal.selectors.results_key): it names the evaluation, the code and input fingerprints
    and what was computed; a key is written once (the same key always holds the same result).
    Entries of an evaluation under any other fingerprint than the one last written for their
    kind are pruned on write."""

    evaluation = models.ForeignKey(
        Evaluation,
        on_delete=models.CASCADE,
        related_name="results_entries",
        # The (evaluation, kind) index serves the evaluation's lookups and cascades.
        db_index=False,
    )
    key = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=40)
    fingerprint = models.CharField(max_length=200)
    payload = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("computed result")
        verbose_name_plural = _("computed results")
        indexes = [
            models.Index(fields=["evaluation", "kind"], name="results_entry_eval_kind"),
        ]

    def __str__(self) -> str:
        return self.key
