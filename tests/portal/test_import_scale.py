"""Import cost flat in history: per-node, per-kind summaries kept in the import's transaction
give the same verification as recomputing from every earlier report."""

import io
import json
import tarfile
from datetime import UTC, datetime, timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from portal import adapters
from portal.models import Candidate, EvidenceSummary, EvidenceUpload, UploadStatus
from portal.services.evidence import (
    evidence_import,
    evidence_reimport_all,
    evidence_submit,
    evidence_upload_delete,
)
from portal.services.scores import (
    candidate_refresh,
    full_evidence,
    full_summaries,
    kept_evidence,
    usable_uploads,
)
from scoring.verification import verify_candidate

from .conftest import sample_bytes

pytestmark = pytest.mark.django_db

FILES = {
    "nccl-all-reduce.txt": "nccl-a100-8gpu.txt",
    "ibstat.txt": "ibstat-roce-some-down.txt",
    "lspci.txt": "lspci-kvm-vm.txt",
    "topo.txt": "topo-a100-8gpu.txt",
}


def bundle(files: dict[str, bytes], *, hostname: str, started: str, salt: str = "") -> bytes:
    manifest = {
        "schema_version": 1,
        "collector_version": "1.0.0",
        "hostname": hostname,
        "started_at": started,
        "finished_at": started,
        "nonce": None,
        "salt": salt,
        "commands": [
            {"name": n, "argv": [n], "output": n, "exit_code": 0, "duration_s": 0.5} for n in files
        ],
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in [("manifest.json", json.dumps(manifest).encode()), *files.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _import(candidate, data: bytes, name: str = "bundle.tar.gz", node: str = "") -> EvidenceUpload:
    upload, created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile(name, data), node_name=node
    )
    assert created
    evidence_import(upload_id=upload.pk, task_id=f"t{upload.pk}")
    upload.refresh_from_db()
    return upload


def _key(evidence):
    return sorted(
        (e.node_name, e.kind, str(e.upload_id), e.source, json.dumps(e.metrics, sort_keys=True))
        for e in evidence
    )


def _kept_rows(candidate) -> dict:
    return {
        (row.node_name, row.kind): row.summary
        for row in EvidenceSummary.objects.filter(candidate=candidate)
    }


def _assert_equivalent(candidate, now=None):
    """The kept summaries equal the ones recomputed from every report, and so do the
    evidence verification reads and the stored verification."""
    assert _kept_rows(candidate) == full_summaries(candidate.pk)
    kept, full = kept_evidence(candidate, now), full_evidence(candidate, now)
    assert _key(kept) == _key(full)
    claims = adapters.claims(Candidate.objects.get(pk=candidate.pk))
    assert verify_candidate(claims, kept) == verify_candidate(claims, full)


def test_summaries_equal_full_reverification_over_a_history(candidate):
    nodes = ["node-a", "node-b", "node-c"]
    day = datetime(2026, 11, 1, 8, tzinfo=UTC)
    for round_ in range(4):
        for index, node in enumerate(nodes):
            # Each round a node sends a different subset: some files are superseded, some not.
            names = list(FILES)[: 2 + (round_ + index) % 3]
            data = bundle(
                {name: sample_bytes(FILES[name]) for name in names},
                hostname=node,
                started=(day + timedelta(days=7 * round_, hours=index)).isoformat(),
                salt=f"{round_}-{index}",
            )
            upload = _import(candidate, data)
            assert upload.status == UploadStatus.DONE, upload.error
            _assert_equivalent(candidate)
    # A loose file without a node (a node of its own), and one that fails to parse.
    _import(candidate, sample_bytes("nccl-h100-2node.txt"), "all_reduce.txt")
    failed = _import(candidate, b"nothing to parse here\n", "notes.txt")
    assert failed.status == UploadStatus.FAILED
    _assert_equivalent(candidate)
    # Freshness: with an age limit, old summary entries drop out exactly as full ones do.
    unlimited = len(kept_evidence(candidate))
    candidate.evaluation.max_evidence_age_days = 10
    candidate.evaluation.save(update_fields=["max_evidence_age_days"])
    later = datetime(2026, 11, 30, tzinfo=UTC)
    _assert_equivalent(candidate, now=later)
    assert 0 < len(kept_evidence(candidate, later)) < unlimited
    # The stored verification is what the summaries give.
    refreshed = candidate_refresh(candidate_id=candidate.pk)
    claims = adapters.claims(refreshed)
    full = verify_candidate(claims, full_evidence(refreshed))
    assert refreshed.verification["busbw"]["status"] == full.busbw.status
    assert refreshed.verification["items"]["fabric"]["status"] == full.items["fabric"].status


def test_without_superseded_files_summaries_equal_the_per_upload_reverification(candidate):
    """When no file of a node is sent twice, the summaries hold every report: verification
    reads exactly what the per-upload path (adapters.node_evidence) reads."""
    for node in ("node-a", "node-b"):
        _import(
            candidate,
            bundle(
                {n: sample_bytes(s) for n, s in FILES.items()},
                hostname=node,
                started="2026-11-30T08:00:00+00:00",
            ),
        )
    _import(candidate, sample_bytes("nccl-h100-2node.txt"), "two-node.txt")
    per_upload = adapters.node_evidence(usable_uploads(candidate))
    assert _key(kept_evidence(candidate)) == _key(per_upload)
    assert len(per_upload) == 2 * len(FILES) + 1


def test_a_newer_run_of_the_same_file_on_a_node_supersedes_the_older(candidate):
    old = _import(
        candidate,
        bundle(
            {"nccl.txt": sample_bytes("nccl-a100-8gpu.txt")},
            hostname="n1",
            started="2026-11-01T00:00:00+00:00",
        ),
    )
    new = _import(
        candidate,
        bundle(
            {"nccl.txt": sample_bytes("nccl-h100-2node.txt")},
            hostname="n1",
            started="2026-11-20T00:00:00+00:00",
        ),
    )
    evidence = kept_evidence(candidate)
    assert [(e.upload_id, e.source) for e in evidence] == [(new.pk, "nccl.txt")]
    # Deleting the newer upload brings the older run back (summaries rebuilt).
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username="lead")
    evidence_upload_delete(upload=new, reason="wrong node", by=user)
    assert [e.upload_id for e in kept_evidence(candidate)] == [old.pk]
    _assert_equivalent(candidate)


def test_reimport_rebuilds_summaries(candidate):
    upload = _import(
        candidate,
        bundle(
            {n: sample_bytes(s) for n, s in FILES.items()},
            hostname="n1",
            started="2026-11-30T08:00:00+00:00",
        ),
    )
    before = _kept_rows(candidate)
    assert evidence_reimport_all() == 1
    evidence_import(upload_id=upload.pk, task_id="again")
    assert _kept_rows(candidate) == before
    _assert_equivalent(candidate)


def _queries_for_next_import(candidate, number: int) -> int:
    data = bundle(
        {n: sample_bytes(s) for n, s in FILES.items()},
        hostname=f"node-{number % 4}",
        started="2026-11-30T08:00:00+00:00",
        salt=str(number),
    )
    upload, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("b.tar.gz", data)
    )
    with CaptureQueriesContext(connection) as queries:
        evidence_import(upload_id=upload.pk, task_id=f"q{number}")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE
    return len(queries)


def test_import_query_count_is_flat_in_history(candidate):
    for number in range(8):
        _queries_for_next_import(candidate, number)
    early = _queries_for_next_import(candidate, 8)
    for number in range(9, 40):
        _queries_for_next_import(candidate, number)
    late = _queries_for_next_import(candidate, 40)
    assert late == early
    # And the rows read stay one per node and kind, not one per upload.
    assert EvidenceSummary.objects.filter(candidate=candidate).count() == 4 * len(FILES)
