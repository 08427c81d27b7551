"""An import batch writes its outcomes in one statement (PostgreSQL): each upload only while
this attempt holds its claim, exactly as the per-upload ORM updates it replaced."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone as dj_timezone

from portal.models import EvidenceOrigin, EvidenceUpload, UploadStatus
from portal.services.evidence import evidence_submit
from portal.services.evidence import write as evidence_write

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _own_media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def _uploads(candidate, prefix: str, count: int, *, claim: str) -> list[EvidenceUpload]:
    made = []
    for index in range(count):
        upload, _created = evidence_submit(
            candidate=candidate,
            uploaded_file=SimpleUploadedFile(f"{index}.txt", f"{prefix}{index}".encode()),
            node_name="given" if index == 1 else "",
        )
        made.append(upload)
    EvidenceUpload.objects.filter(pk__in=[u.pk for u in made]).update(
        status=UploadStatus.PROCESSING, claim_token=claim, task_id="t"
    )
    # One upload another attempt claimed meanwhile, one no longer processing.
    EvidenceUpload.objects.filter(pk=made[2].pk).update(claim_token="someone-else")
    EvidenceUpload.objects.filter(pk=made[3].pk).update(status=UploadStatus.DONE)
    return made


def _fields(index: int, finished: datetime) -> dict:
    fields = {
        "status": UploadStatus.DONE if index % 2 == 0 else UploadStatus.FAILED,
        "error": "" if index % 2 == 0 else f'line 3: "quoted"\tand\nbroken \\ {index} 电',
        "error_code": "" if index % 2 == 0 else "upload.nothing_parsed",
        "error_params": {} if index % 2 == 0 else {"failures": [{"file": "a", "line": None}]},
        "report": [{"file": f"f{index}", "ok": True, "metrics": {"x": 1.5, "y": [1, None]}}],
        "parser_version": "9",
        "finished_at": finished,
        "origin": EvidenceOrigin.COLLECTOR,
        "measured_at": (
            None
            if index == 0
            else datetime(2026, 11, 30, 8, 0, 1, 123456, tzinfo=timezone(timedelta(hours=8)))
        ),
        "fingerprint": {"gpu_uuid": [f"GPU-{index}"]},
    }
    if index != 1:
        fields["node_name"] = f"node-{index}"
    return fields


def _row(upload: EvidenceUpload) -> dict:
    row = model_to_dict(
        EvidenceUpload.objects.get(pk=upload.pk),
        exclude=["id", "file", "original_name", "sha256", "size_bytes", "queued_at"],
    )
    row["finished_at"] = EvidenceUpload.objects.get(pk=upload.pk).finished_at
    return row


class _OtherDatabase:
    vendor = "sqlite"  # any but PostgreSQL: the ORM's update per upload


def test_one_statement_writes_what_the_per_upload_updates_wrote(candidate, monkeypatch):
    finished = dj_timezone.now()
    batch = _uploads(candidate, "a", 5, claim="mine")
    reference = _uploads(candidate, "b", 5, claim="mine")
    with CaptureQueriesContext(connection) as queries:
        written = evidence_write._write_outcomes(
            [(u.pk, _fields(i, finished)) for i, u in enumerate(batch)], "mine"
        )
    assert len(queries) == 1
    with monkeypatch.context() as patch:
        patch.setattr(evidence_write, "connection", _OtherDatabase())
        expected = evidence_write._write_outcomes(
            [(u.pk, _fields(i, finished)) for i, u in enumerate(reference)], "mine"
        )
    index_of = {u.pk: i for i, u in enumerate(batch)}
    assert sorted(index_of[pk] for pk in written) == [0, 1, 4]
    reference_index = {u.pk: i for i, u in enumerate(reference)}
    assert sorted(reference_index[pk] for pk in expected) == [0, 1, 4]
    for mine, theirs in zip(batch, reference, strict=True):
        assert _row(mine) == _row(theirs)
    # Written as given; the node kept when the outcome names none; the others untouched.
    assert _row(batch[1])["node_name"] == "given"
    assert _row(batch[0])["node_name"] == "node-0"
    assert _row(batch[4])["measured_at"] == datetime(2026, 11, 30, 0, 0, 1, 123456, tzinfo=UTC)
    assert _row(batch[2])["status"] == UploadStatus.PROCESSING
    assert _row(batch[3])["report"] == []


def test_an_empty_batch_writes_nothing():
    with CaptureQueriesContext(connection) as queries:
        assert evidence_write._write_outcomes([], "mine") == set()
    assert len(queries) == 0
