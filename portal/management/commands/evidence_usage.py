"""Bytes of raw evidence stored per evaluation and candidate, against the quotas."""

from django.conf import settings
from django.core.management.base import BaseCommand

from portal.services.evidence import evidence_usage


class Command(BaseCommand):
    help = "Show the bytes of raw evidence stored per evaluation and candidate."

    def handle(self, *args, **options):
        rows = evidence_usage()
        quota = settings.EVIDENCE_QUOTA_CANDIDATE_BYTES
        self.stdout.write(
            f"{'evaluation':<40} {'candidate':>9} {'uploads':>8} {'bytes':>15} {'of quota':>9}"
        )
        per_evaluation: dict[tuple[int, str], int] = {}
        for row in rows:
            share = f"{100 * row['stored_bytes'] / quota:.1f}%" if quota else "-"
            label = f"#{row['evaluation_id']} {row['evaluation']}"[:40]
            self.stdout.write(
                f"{label:<40} {row['candidate_id']:>9} {row['uploads']:>8} "
                f"{row['stored_bytes']:>15} {share:>9}"
            )
            key = (row["evaluation_id"], row["evaluation"])
            per_evaluation[key] = per_evaluation.get(key, 0) + row["stored_bytes"]
        for (evaluation_id, name), total in per_evaluation.items():
            label = f"#{evaluation_id} {name}"[:40]
            self.stdout.write(f"{label:<40} {'all':>9} {'':>8} {total:>15}")
        self.stdout.write(f"total {sum(per_evaluation.values())} bytes")
