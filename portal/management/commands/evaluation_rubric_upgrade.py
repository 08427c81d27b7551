"""Move evaluations to the current scoring rubric (explicit and audited; see the service)."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from portal.models import Evaluation, EvaluationStatus
from portal.services.rubric import evaluation_rubric_upgrade
from scoring.rubric import CURRENT_RUBRIC_VERSION


class Command(BaseCommand):
    help = (
        "Move evaluations to a newer scoring rubric and rescore them. Decided evaluations are "
        "left alone (their decisions replay with the rubric they were taken under)."
    )

    def add_arguments(self, parser):
        parser.add_argument("evaluation_ids", nargs="*", type=int, help="Default: every open one.")
        parser.add_argument("--to", default=CURRENT_RUBRIC_VERSION, help="Target rubric version.")
        parser.add_argument("--by", required=True, help="Username recorded in the audit trail.")

    def handle(self, *args, evaluation_ids, to, by, **options):
        try:
            user = get_user_model().objects.get(username=by)
        except get_user_model().DoesNotExist:
            raise CommandError(f"no user {by!r}") from None
        evaluations = Evaluation.objects.exclude(rubric_version=to).order_by("pk")
        if evaluation_ids:
            evaluations = evaluations.filter(pk__in=evaluation_ids)
        else:
            evaluations = evaluations.exclude(status=EvaluationStatus.DECIDED)
        moved = 0
        for evaluation in evaluations:
            try:
                evaluation_rubric_upgrade(evaluation=evaluation, by=user, to_version=to)
            except ValidationError as exc:
                self.stderr.write(f"evaluation {evaluation.pk}: {' '.join(exc.messages)}")
                continue
            moved += 1
            self.stdout.write(f"evaluation {evaluation.pk}: now rubric v{to}")
        self.stdout.write(f"moved {moved} evaluation(s) to rubric v{to}")
