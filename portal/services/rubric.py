"""Moving an evaluation to another scoring rubric: an explicit, audited action."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from scoring.rubric import CURRENT_RUBRIC_VERSION, RUBRIC_VERSIONS

from ..models import Evaluation, EvaluationStatus
from .scores import evaluation_rescore


@transaction.atomic
def evaluation_rubric_upgrade(
    *, evaluation: Evaluation, by, to_version: str = CURRENT_RUBRIC_VERSION
) -> Evaluation:
    """Score ``evaluation`` with rubric ``to_version`` from now on and rescore its candidates.

    Only forward (v1 → v2), never for a decided evaluation (its decision replays with the
    version it was taken under). The change is recorded in the evaluation's history with the
    user ``by`` and a reason naming both versions. Raises ValidationError otherwise.
    """
    evaluation = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
    if to_version not in RUBRIC_VERSIONS:
        raise ValidationError(
            _("Unknown rubric version %(v)s (known: %(known)s).")
            % {"v": to_version, "known": ", ".join(RUBRIC_VERSIONS)}
        )
    current = evaluation.rubric_version
    if evaluation.status == EvaluationStatus.DECIDED:
        raise ValidationError(
            _("This evaluation is decided; its decision replays with rubric v%(v)s.")
            % {"v": current}
        )
    if RUBRIC_VERSIONS.index(to_version) <= RUBRIC_VERSIONS.index(current):
        raise ValidationError(
            _("This evaluation already uses rubric v%(v)s; a rubric only moves forward.")
            % {"v": current}
        )
    evaluation.rubric_version = to_version
    evaluation._history_user = by
    evaluation._change_reason = f"rubric v{current} → v{to_version}"
    evaluation.save(update_fields=["rubric_version", "updated_at"])
    evaluation_rescore(evaluation=evaluation)
    return evaluation
