"""Queue every finished upload for import again, after the parsers improved."""

from django.core.management.base import BaseCommand
from django.db import transaction

from portal.services.evidence import evidence_reimport_all
from scoring.evidence import PARSER_VERSION


class Command(BaseCommand):
    help = "Re-import all evidence uploads (by default only those parsed by an older version)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--all", action="store_true", help="Also uploads already parsed by this version."
        )

    def handle(self, *args, **options):
        with transaction.atomic():
            count = evidence_reimport_all(
                older_than_version=None if options["all"] else PARSER_VERSION
            )
        self.stdout.write(f"queued {count} upload(s) for import with parsers {PARSER_VERSION}")
