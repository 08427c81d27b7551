"""A decision stays decided through a parser upgrade: ``manage.py evidence_reimport`` keeps the
uploads of decided evaluations as they are (and says how many), re-imports the others through
the real worker, and reopening the evaluation queues its uploads parsed by an older version."""

import io
import time
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import transaction

from portal.models import (
    Candidate,
    Evaluation,
    EvidenceUpload,
    Measurement,
    OfferingPrice,
    Score,
    UploadStatus,
)
from portal.services.evaluations import decision_record, evaluation_reopen
from portal.services.evidence import evidence_reimport, evidence_submit
from scoring.evidence import PARSER_VERSION

from .conftest import sample_bytes

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
OLD_VERSION = "0.0-before-upgrade"


def _wait(upload_id: int, *, version: str, timeout_s: float = 60.0) -> EvidenceUpload:
    """The upload once it is imported (done or failed) by ``version`` of the parsers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        upload = EvidenceUpload.objects.get(pk=upload_id)
        if upload.status in (UploadStatus.DONE, UploadStatus.FAILED) and (
            upload.parser_version == version
        ):
            return upload
        time.sleep(0.2)
    raise AssertionError(f"upload {upload_id} not imported by {version} within {timeout_s}s")


def _upload(candidate, user, name: str) -> EvidenceUpload:
    upload, created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile(name, sample_bytes("nccl-a100-8gpu.txt") + name.encode()),
        node_name="node-1",
        user=user,
    )
    assert created
    return _wait(upload.pk, version=PARSER_VERSION)


def _parsed_before_upgrade(upload: EvidenceUpload) -> None:
    EvidenceUpload.objects.filter(pk=upload.pk).update(parser_version=OLD_VERSION)


def _measurement_ids(upload: EvidenceUpload) -> list[int]:
    return sorted(Measurement.objects.filter(upload=upload).values_list("pk", flat=True))


def _reimport() -> list[str]:
    out = io.StringIO()
    call_command("evidence_reimport", stdout=out)
    return out.getvalue().splitlines()


@pytest.fixture
def two_evaluations(celery_worker_process, evaluation, candidate, offering, members):
    call_command("loaddata", "checklist", verbosity=0)
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    other_evaluation = Evaluation.objects.create(
        name="Fine-tune", workload_profile="finetuning", required_total_gpus=16, duration_days=30
    )
    other = Candidate.objects.create(evaluation=other_evaluation, offering=offering, node_count=2)
    user = members["procurement"]
    decided_upload = _upload(candidate, user, "decided.txt")
    open_upload = _upload(other, user, "open.txt")
    return {"decided": decided_upload, "open": open_upload, "other": other}


def test_reimport_keeps_a_decided_evaluations_evidence_and_says_so(
    two_evaluations, evaluation, candidate, members
):
    decided, still_open = two_evaluations["decided"], two_evaluations["open"]
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Best fabric.", by=members["manager"]
    )
    _parsed_before_upgrade(decided)
    _parsed_before_upgrade(still_open)
    kept_rows = _measurement_ids(decided)
    scores = Score.objects.filter(candidate=candidate).values_list("value", "computed_at")
    kept_scores = list(scores)
    assert kept_rows
    open_rows = _measurement_ids(still_open)

    lines = _reimport()

    # One line per evaluation (the decided one first, by id), then the totals.
    assert lines[0] == f"2 upload(s) of 2 evaluation(s) to re-import with parsers {PARSER_VERSION}"
    assert lines[1].endswith("decided, kept 1; 1/2 done") and lines[2].endswith(
        "queued 1; 2/2 done"
    )
    assert lines[3:] == [
        f"queued 1 upload(s) for import with parsers {PARSER_VERSION}",
        "1 uploads of decided evaluations kept as decided",
    ]
    reimported = _wait(still_open.pk, version=PARSER_VERSION)
    assert reimported.status == UploadStatus.DONE
    assert _measurement_ids(reimported) and _measurement_ids(reimported) != open_rows
    # The decided evaluation's upload was neither queued nor parsed again.
    time.sleep(1.0)
    kept = EvidenceUpload.objects.get(pk=decided.pk)
    assert (kept.status, kept.parser_version, kept.attempts) == (
        UploadStatus.DONE,
        OLD_VERSION,
        decided.attempts,
    )
    assert kept.finished_at == decided.finished_at
    assert _measurement_ids(kept) == kept_rows
    assert list(scores.all()) == kept_scores


def test_reopening_queues_the_uploads_kept_while_decided(
    two_evaluations, evaluation, candidate, members
):
    decided = two_evaluations["decided"]
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Best fabric.", by=members["manager"]
    )
    _parsed_before_upgrade(decided)
    kept_rows = _measurement_ids(decided)
    assert _reimport()[-1] == "1 uploads of decided evaluations kept as decided"

    evaluation_reopen(evaluation=evaluation, reason="New parsers.", by=members["manager"])

    reimported = _wait(decided.pk, version=PARSER_VERSION)
    assert reimported.status == UploadStatus.DONE
    assert _measurement_ids(reimported) and _measurement_ids(reimported) != kept_rows
    # Nothing older than the parsers is left anywhere: the command finds nothing to do.
    assert _reimport() == [
        f"0 upload(s) of 0 evaluation(s) to re-import with parsers {PARSER_VERSION}",
        f"queued 0 upload(s) for import with parsers {PARSER_VERSION}",
        "0 uploads of decided evaluations kept as decided",
    ]


def test_a_decided_evaluation_left_undecided_by_the_command_is_picked_up_after_reopening(
    two_evaluations, evaluation, candidate, members
):
    """Reopened before any parser change: nothing is queued then; an upgrade afterwards is
    applied by the next run of the command, as for any open evaluation."""
    decided = two_evaluations["decided"]
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Best fabric.", by=members["manager"]
    )
    evaluation_reopen(evaluation=evaluation, reason="More nodes.", by=members["manager"])
    assert EvidenceUpload.objects.get(pk=decided.pk).status == UploadStatus.DONE
    _parsed_before_upgrade(decided)
    with transaction.atomic():
        done = evidence_reimport(older_than_version=PARSER_VERSION, evaluation_id=evaluation.pk)
    assert (done.queued, done.kept_decided) == (1, 0)
    assert _wait(decided.pk, version=PARSER_VERSION).status == UploadStatus.DONE
