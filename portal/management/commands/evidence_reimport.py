"""Queue every finished upload for import again, after the parsers improved."""

from django.core.management.base import BaseCommand
from django.db import transaction

from portal.services.evidence import evidence_reimport
from scoring.evidence import PARSER_VERSION


class Command(BaseCommand):
    help = (
        "Re-import all evidence uploads (by default only those parsed by an older version). "
        "Uploads of decided evaluations are kept as decided; they are re-imported when their "
        "evaluation is reopened."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all", action="store_true", help="Also uploads already parsed by this version."
        )

    def handle(self, *args, **options):
        with transaction.atomic():
            done = evidence_reimport(older_than_version=None if options["all"] else PARSER_VERSION)
        self.stdout.write(
            f"queued {done.queued} upload(s) for import with parsers {PARSER_VERSION}"
        )
        self.stdout.write(f"{done.kept_decided} uploads of decided evaluations kept as decided")
