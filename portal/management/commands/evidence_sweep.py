"""Re-enqueue uploads left queued or stuck in processing (beat does it every 15 s)."""

from datetime import timedelta

from django.core.management.base import BaseCommand

from portal.services.evidence import evidence_sweep


class Command(BaseCommand):
    help = "Re-enqueue uploads never enqueued (broker down) or stuck in processing."

    def add_arguments(self, parser):
        parser.add_argument(
            "--queued-for",
            type=int,
            default=120,
            help="Seconds an upload must have waited in 'queued' before it is sent again.",
        )

    def handle(self, *args, **options):
        ids = evidence_sweep(queued_for=timedelta(seconds=options["queued_for"]))
        self.stdout.write(f"re-enqueued {len(ids)} upload(s): {', '.join(map(str, ids)) or '-'}")
