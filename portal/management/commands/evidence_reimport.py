"""Queue finished uploads for import again after the parsers changed, one evaluation at a time."""

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.db.models import Count

from portal.models import EvaluationStatus, EvidenceUpload, UploadStatus
from portal.selectors import import_backlog
from portal.services.evidence import evidence_reimport
from scoring.evidence import PARSER_VERSION

# Seconds between two looks at the import queue while waiting for the workers, and between two
# lines saying so.
POLL_S = 2.0
WAITING_REPORT_S = 30.0


class Command(BaseCommand):
    help = (
        "Re-import the evidence uploads parsed by an older parser version (--all: every one), "
        "one evaluation at a time, each in its own transaction: an interrupted run keeps what it "
        "queued, and running it again queues the rest, never an upload twice. It waits while "
        "--max-waiting uploads wait for import, so the queue stays short. Uploads of decided "
        "evaluations are kept as decided; they are re-imported when their evaluation is reopened."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all",
            action="store_true",
            help="Also uploads already parsed by this version (a second run queues them again).",
        )
        parser.add_argument(
            "--evaluation", type=int, metavar="ID", help="Only the uploads of this evaluation."
        )
        parser.add_argument(
            "--max-waiting",
            type=int,
            default=200,
            metavar="N",
            help=(
                "Before queueing the next evaluation's uploads, wait until fewer than N uploads "
                "are queued or importing (default 200; 0: never wait). Needs running workers."
            ),
        )

    def handle(self, *args, **options):
        version = None if options["all"] else PARSER_VERSION
        max_waiting = options["max_waiting"]
        if max_waiting < 0:
            raise CommandError("--max-waiting must be 0 or more.")
        pending = self._pending(version, options["evaluation"])
        total = sum(count for _pk, _decided, count in pending)
        self._say(
            f"{total} upload(s) of {len(pending)} evaluation(s) to re-import with parsers "
            f"{PARSER_VERSION}"
        )
        queued = kept = 0
        number = 0
        try:
            for number, (evaluation_id, decided, _count) in enumerate(pending, start=1):
                # A decided evaluation's uploads are only counted: nothing to wait for.
                if max_waiting and not decided:
                    self._wait_below(max_waiting)
                # One transaction per evaluation: its lock is held briefly (a decision being
                # recorded waits for it), and an interruption loses at most this one, unqueued.
                with transaction.atomic():
                    done = evidence_reimport(
                        older_than_version=version, evaluation_id=evaluation_id
                    )
                queued += done.queued
                kept += done.kept_decided
                state = "; ".join(
                    ([f"queued {done.queued}"] if done.queued or not done.kept_decided else [])
                    + ([f"decided, kept {done.kept_decided}"] if done.kept_decided else [])
                )
                self._say(
                    f"[{number}/{len(pending)}] evaluation {evaluation_id}: {state}; "
                    f"{queued + kept}/{total} done"
                )
        except KeyboardInterrupt:
            self._say(
                f"interrupted after {number - 1} of {len(pending)} evaluation(s): {queued} "
                "upload(s) queued stay queued (an upload marked queued whose message had not "
                "been sent yet is sent by the sweeper); run the command again to queue the rest",
                error=True,
            )
            raise CommandError("interrupted", returncode=130) from None
        self._say(f"queued {queued} upload(s) for import with parsers {PARSER_VERSION}")
        self._say(f"{kept} uploads of decided evaluations kept as decided")

    def _pending(
        self, version: str | None, evaluation_id: int | None
    ) -> list[tuple[int, bool, int]]:
        """(evaluation id, whether it is decided, uploads to re-import or keep) of every
        evaluation concerned (the service decides again, under the evaluation's lock)."""
        uploads = EvidenceUpload.objects.filter(status__in=[UploadStatus.DONE, UploadStatus.FAILED])
        if version:
            uploads = uploads.exclude(parser_version=version)
        if evaluation_id is not None:
            uploads = uploads.filter(evaluation_id=evaluation_id)
        rows = (
            uploads.order_by("evaluation_id")
            .values("evaluation_id", "evaluation__status")
            .annotate(count=Count("pk"))
            .values_list("evaluation_id", "evaluation__status", "count")
        )
        return [(pk, status == EvaluationStatus.DECIDED, count) for pk, status, count in rows]

    def _wait_below(self, max_waiting: int) -> None:
        """Return once fewer than ``max_waiting`` uploads are queued or importing: the sweeper
        sends every upload queued since before EVIDENCE_SWEEP_QUEUED_FOR_S again on each run, and
        a re-imported upload counts as queued since it was first uploaded, so a long queue would
        be sent again every sweep."""
        said = None
        while True:
            backlog = import_backlog()
            waiting = backlog["queued"] + backlog["processing"]
            if waiting < max_waiting:
                return
            now = time.monotonic()
            if said is None or now - said >= WAITING_REPORT_S:
                self._say(
                    f"waiting for the workers: {backlog['queued']} upload(s) queued and "
                    f"{backlog['processing']} importing (see /readyz/ if this does not go down)"
                )
                said = now
            time.sleep(POLL_S)

    def _say(self, text: str, *, error: bool = False) -> None:
        stream = self.stderr if error else self.stdout
        stream.write(text)
        stream.flush()
