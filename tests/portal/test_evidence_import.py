"""The import service: parse, replace measurements in one transaction, fail clearly, sweep."""

import io
import json
import tarfile
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from portal.celery import app as celery_app
from portal.models import Candidate, EvidenceUpload, Measurement, Offering, UploadStatus
from portal.services.catalogue import candidate_offering_adopt
from portal.services.evidence import (
    evidence_import,
    evidence_reimport_all,
    evidence_submit,
    evidence_sweep,
)
from scoring.evidence import PARSER_VERSION

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db


def _submit(candidate, data: bytes, name: str = "upload.bin") -> EvidenceUpload:
    upload, created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile(name, data)
    )
    assert created
    return upload


def test_a_loose_nccl_file_becomes_measurements(candidate):
    upload = _submit(candidate, sample_bytes("nccl-a100-8gpu.txt"), "all_reduce.txt")
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error
    assert upload.parser_version == PARSER_VERSION
    assert upload.report[0]["kind"] == "nccl_tests"
    peak = Measurement.objects.get(upload=upload, metric="peak_busbw_gbyte_s")
    assert peak.value == pytest.approx(232.2, abs=0.5)
    assert peak.unit == "GB/s"
    assert peak.kind == "nccl_tests"


def test_a_bundle_is_imported_member_by_member_with_the_manifest_hostname(candidate):
    bundle = make_bundle(
        {
            "nccl-all-reduce.txt": sample_bytes("nccl-a100-8gpu.txt"),
            "ibstat.txt": sample_bytes("ibstat-roce-some-down.txt"),
            "lspci.txt": sample_bytes("lspci-kvm-vm.txt"),
        },
        hostname="poc-node-7",
    )
    upload = _submit(candidate, bundle, "bundle.tar.gz")
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error
    kinds = {r["file"]: r["kind"] for r in upload.report}
    assert kinds == {
        "nccl-all-reduce.txt": "nccl_tests",
        "ibstat.txt": "ibstat",
        "lspci.txt": "lspci",
    }
    nodes = set(Measurement.objects.filter(upload=upload).values_list("node_name", flat=True))
    assert nodes == {"poc-node-7"}


def test_importing_again_replaces_and_never_duplicates(candidate):
    upload = _submit(candidate, sample_bytes("nccl-a100-8gpu.txt"))
    evidence_import(upload_id=upload.pk, task_id="t1")
    first = Measurement.objects.filter(upload=upload).count()
    assert first > 0
    assert evidence_reimport_all() == 1
    evidence_import(upload_id=upload.pk, task_id="t2")
    assert Measurement.objects.filter(upload=upload).count() == first


def test_a_finished_upload_is_not_claimed_again(candidate):
    upload = _submit(candidate, sample_bytes("nccl-a100-8gpu.txt"))
    assert evidence_import(upload_id=upload.pk, task_id="t1") is not None
    assert evidence_import(upload_id=upload.pk, task_id="t1") is None
    upload.refresh_from_db()
    assert upload.attempts == 1


def test_garbage_fails_with_a_message_and_no_rows(candidate):
    upload = _submit(candidate, b"hello, this is not the output of any GPU tool\n" * 10)
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.FAILED
    assert "not the output of a supported tool" in upload.error
    assert not Measurement.objects.exists()


def test_binary_content_fails_clearly(candidate):
    upload = _submit(candidate, bytes(range(256)) * 100)
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.FAILED
    assert "binary" in upload.error or "not UTF-8" in upload.error


def _tar_with(member: tarfile.TarInfo, data: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.addfile(member, io.BytesIO(data) if data else None)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        (lambda: _named("../../etc/passwd", b"root:x:0:0"), ".."),
        (lambda: _named("/etc/passwd", b"root:x:0:0"), "/"),
        (lambda: _link("nvidia-smi.txt", "/etc/shadow"), "link"),
    ],
)
def test_a_hostile_bundle_is_rejected_whole(candidate, member, reason, settings, tmp_path):
    info, data = member()
    upload = _submit(candidate, _tar_with(info, data), "bundle.tar.gz")
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.FAILED
    assert reason in upload.error
    assert not Measurement.objects.exists()


def _named(name: str, data: bytes):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _link(name: str, target: str):
    info = tarfile.TarInfo(name)
    info.type = tarfile.SYMTYPE
    info.linkname = target
    return info, b""


def _queued_import_ids() -> list[int]:
    """Upload ids of the import messages waiting in the real Redis broker."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    ids = []
    for raw in client.lrange(settings.CELERY_TASK_DEFAULT_QUEUE, 0, -1):
        headers = json.loads(raw)["headers"]
        if headers["task"] == "portal.tasks.evidence_import_task":
            ids.append(int(headers["argsrepr"].strip("(),")))
    return ids


@pytest.fixture
def empty_queue():
    celery_app.control.purge()
    yield
    celery_app.control.purge()


def test_the_sweeper_requeues_forgotten_and_stuck_uploads(candidate, empty_queue):
    forgotten = _submit(candidate, b"first file")
    stuck = _submit(candidate, b"second file")
    fresh = _submit(candidate, b"third file")
    long_ago = timezone.now() - timedelta(hours=1)
    EvidenceUpload.objects.filter(pk=forgotten.pk).update(created_at=long_ago, queued_at=long_ago)
    EvidenceUpload.objects.filter(pk=stuck.pk).update(
        status=UploadStatus.PROCESSING, started_at=long_ago, created_at=long_ago, attempts=1
    )
    assert sorted(evidence_sweep()) == sorted([forgotten.pk, stuck.pk])
    assert sorted(_queued_import_ids()) == sorted([forgotten.pk, stuck.pk])
    assert fresh.pk not in _queued_import_ids()
    stuck.refresh_from_db()
    assert stuck.status == UploadStatus.QUEUED


def test_the_sweeper_leaves_a_backlog_in_the_broker_alone_and_resends_lost_messages(
    candidate, empty_queue
):
    # Operator review (stop 36): after a re-import of 20,004 uploads each sweep sent every one
    # of them again (queued for more than two minutes, behind the backlog), doubling the
    # broker's queue every 15 s. Messages still in the queue are not lost.
    from portal.services.evidence.queueing import _enqueue_import

    uploads = [_submit(candidate, f"file {n}".encode()) for n in range(3)]
    ids = sorted(u.pk for u in uploads)
    long_ago = timezone.now() - timedelta(hours=1)
    EvidenceUpload.objects.filter(pk__in=ids).update(created_at=long_ago, queued_at=long_ago)
    for upload_id in ids:
        _enqueue_import(upload_id)  # their messages wait behind a backlog
    assert sorted(_queued_import_ids()) == ids
    assert evidence_sweep() == []
    assert sorted(_queued_import_ids()) == ids, "nothing sent twice"
    # The broker lost them (a Redis restart without persistence): sent again, once.
    celery_app.control.purge()
    assert sorted(evidence_sweep()) == ids
    assert sorted(_queued_import_ids()) == ids


def test_the_sweeper_gives_up_after_repeated_attempts(candidate, empty_queue):
    upload = _submit(candidate, b"a file that keeps killing workers")
    long_ago = timezone.now() - timedelta(hours=1)
    EvidenceUpload.objects.filter(pk=upload.pk).update(
        status=UploadStatus.PROCESSING, started_at=long_ago, attempts=5
    )
    evidence_sweep()
    upload.refresh_from_db()
    assert upload.status == UploadStatus.FAILED
    assert "abandoned after 5 attempts" in upload.error
    assert _queued_import_ids() == []


def test_an_import_takes_along_the_candidates_waiting_uploads_and_rescores_once(
    candidate, evaluation, vendor, settings
):
    from portal.models import Candidate, Offering

    settings.EVIDENCE_IMPORT_BATCH = 3
    names = ("nccl-a100-8gpu.txt", "topo-a100-8gpu.txt", "ibstat-roce-some-down.txt")
    uploads = [_submit(candidate, sample_bytes(name), name) for name in names]
    fourth = _submit(candidate, sample_bytes("lspci-kvm-vm.txt"), "lspci.txt")
    other_offering = Offering.objects.get(pk=candidate.offering_id)
    other_offering.pk = None
    other_offering.name = "another offering"
    other_offering.save()
    other = Candidate.objects.create(evaluation=evaluation, offering=other_offering, node_count=1)
    elsewhere = _submit(other, sample_bytes("nccl-a100-8gpu.txt"), "other.txt")

    first = evidence_import(upload_id=uploads[0].pk, task_id="t1")
    assert first is not None and first.status == UploadStatus.DONE
    for upload in uploads:
        upload.refresh_from_db()
        assert (upload.status, upload.task_id) == (UploadStatus.DONE, "t1"), upload.error
        assert Measurement.objects.filter(upload=upload).exists()
    # The batch is full: the fourth waits for its own message, so no rescore yet.
    fourth.refresh_from_db()
    assert fourth.status == UploadStatus.QUEUED
    candidate.refresh_from_db()
    assert candidate.scored_at is None
    # Another candidate's upload is never taken along.
    elsewhere.refresh_from_db()
    assert elsewhere.status == UploadStatus.QUEUED
    # The messages of the uploads taken along find nothing to do.
    assert evidence_import(upload_id=uploads[1].pk, task_id="t2") is None
    assert evidence_import(upload_id=fourth.pk, task_id="t3").status == UploadStatus.DONE
    candidate.refresh_from_db()
    assert candidate.scored_at is not None and candidate.scores.count() == 6


def test_a_redelivered_task_takes_back_the_uploads_it_held(candidate):
    first = _submit(candidate, sample_bytes("nccl-a100-8gpu.txt"), "a.txt")
    second = _submit(candidate, sample_bytes("topo-a100-8gpu.txt"), "b.txt")
    # What a worker killed in the middle of a batch leaves behind.
    EvidenceUpload.objects.filter(pk__in=[first.pk, second.pk]).update(
        status=UploadStatus.PROCESSING,
        task_id="t1",
        claim_token="lost",
        started_at=timezone.now(),
        attempts=1,
    )
    # Another task cannot take them while the claim is fresh; the same task id can.
    assert evidence_import(upload_id=first.pk, task_id="t9") is None
    assert evidence_import(upload_id=first.pk, task_id="t1").status == UploadStatus.DONE
    second.refresh_from_db()
    assert (second.status, second.attempts) == (UploadStatus.DONE, 2)
    assert Measurement.objects.filter(upload=second).exists()


def test_the_last_import_of_a_candidate_refreshes_its_scores(candidate, settings):
    settings.EVIDENCE_IMPORT_BATCH = 1  # each upload alone
    # The samples ran on 8 x A100: on an H100 candidate the run would be foreign (not used).
    Offering.objects.filter(pk=candidate.offering_id).update(
        gpu_model="NVIDIA A100-SXM4-40GB", gpu_memory_gib=40
    )
    # The candidate is scored on the offering version it pins: adopt the edited one, then start
    # from an unscored candidate again (adopting rescored it).
    candidate_offering_adopt(candidate=candidate, by=None)
    Candidate.objects.filter(pk=candidate.pk).update(scored_at=None)
    first = _submit(candidate, sample_bytes("nccl-a100-8gpu.txt"), "a.txt")
    second = _submit(candidate, sample_bytes("topo-a100-8gpu.txt"), "b.txt")
    evidence_import(upload_id=first.pk, task_id="t1")
    candidate.refresh_from_db()
    assert candidate.scored_at is None, "another upload is still queued: no rescore yet"
    evidence_import(upload_id=second.pk, task_id="t2")
    candidate.refresh_from_db()
    assert candidate.scored_at is not None
    assert candidate.scores.count() == 6
    assert candidate.verification["measured"]["nvlink_topology"] == "full_mesh"
    assert candidate.verification["busbw_curve"], "the all-reduce sweep is kept for the chart"
    # One node of a two-node candidate: NVLink measured, the fabric not proven.
    assert candidate.verification["measured"]["busbw_fraction"] is None
    assert candidate.verification["measured"]["nvlink_busbw_fraction"] is not None


def test_verification_does_not_flood_the_audit_trail(demo, candidate):
    from portal.models import Answer

    upload = _submit(candidate, sample_bytes("nccl-a100-8gpu.txt"))
    Answer.objects.create(candidate=candidate, item_id=1, claim="8 x H100", status="claimed")
    before = Answer.history.count()
    evidence_import(upload_id=upload.pk, task_id="t1")
    assert Answer.history.count() == before


def test_a_reimport_waits_from_its_requeueing_not_from_the_upload(candidate, empty_queue):
    # Operator review: a re-import queues uploads months old. Measured from their upload time,
    # every one of them was overdue (metrics, /readyz/, the candidate page) and due for the
    # sweeper to send again the moment it was queued.
    from portal.selectors import import_backlog, overdue_uploads

    months_ago = timezone.now() - timedelta(days=90)
    old = _submit(candidate, sample_bytes("nccl-a100-8gpu.txt"), "all_reduce.txt")
    evidence_import(upload_id=old.pk, task_id="first import")
    EvidenceUpload.objects.filter(pk=old.pk).update(created_at=months_ago, queued_at=months_ago)
    celery_app.control.purge()

    assert evidence_reimport_all() == 1
    old.refresh_from_db()
    assert old.status == UploadStatus.QUEUED
    assert old.created_at == months_ago, "the upload time is kept"
    assert timezone.now() - old.queued_at < timedelta(minutes=1)
    assert overdue_uploads()["queued"] == 0
    assert import_backlog()["oldest_queued_s"] < 60
    assert evidence_sweep() == [], "queued a moment ago: not due yet"

    # Still waiting after the sweeper's allowance (its message lost): overdue, and sent again.
    celery_app.control.purge()
    waited = timedelta(seconds=settings.EVIDENCE_SWEEP_QUEUED_FOR_S + 3 * 60)
    EvidenceUpload.objects.filter(pk=old.pk).update(queued_at=timezone.now() - waited)
    assert overdue_uploads()["queued"] == 1
    assert evidence_sweep() == [old.pk]
