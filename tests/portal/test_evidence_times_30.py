"""Evidence times out of range (the calendar's edges, before 2000, in the future) fail their
upload with a coded message naming the field, and an unexpected error fails one upload of a
batch, never its batch-mates and never leaving one processing."""

import io
import json
import tarfile
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone, translation

from portal import evidence_messages
from portal.models import EvidenceUpload, Measurement, UploadStatus
from portal.services.evidence import evidence_import
from portal.services.evidence import outcome as evidence_outcome
from portal.services.evidence import write as evidence_write
from scoring.evidence.bundle import open_evidence
from scoring.evidence.times import CLOCK_SKEW_ALLOWANCE, EvidenceTimeRefused

from .conftest import sample_bytes

pytestmark = pytest.mark.django_db
API = "/api/v1/evidence/"
NCCL = "nccl-a100-8gpu.txt"
NVSMI = (
    Path(__file__).resolve().parents[1]
    / "scoring/evidence/samples/nvidia_smi/nccl-tests-issue264-h100x8-driver560-persistence-off.txt"
)


def _bundle(*, started_at: str, finished_at: str, files: dict[str, bytes] | None = None) -> bytes:
    files = files or {"nccl.txt": sample_bytes(NCCL)}
    manifest = {
        "schema_version": 1,
        "collector_version": "1.0.0",
        "hostname": "gpu-node-01",
        "started_at": started_at,
        "finished_at": finished_at,
        "nonce": None,
        "commands": [
            {"name": n, "argv": [n], "output": n, "exit_code": 0, "duration_s": 1} for n in files
        ],
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in [("manifest.json", json.dumps(manifest).encode()), *files.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _post(client, raw: str, data: bytes, name: str = "bundle.tar.gz") -> EvidenceUpload:
    answer = client.post(
        API,
        {"file": SimpleUploadedFile(name, data)},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert answer.status_code == 202, answer.content
    return EvidenceUpload.objects.get(pk=answer.json()["id"])


def _imported(upload: EvidenceUpload) -> EvidenceUpload:
    evidence_import(upload_id=upload.pk, task_id=f"t{upload.pk}")
    upload.refresh_from_db()
    return upload


@pytest.mark.parametrize(
    ("started_at", "finished_at", "key", "code", "why"),
    [
        (
            "0001-01-01T00:00:00+14:00",
            "2026-11-30T08:02:00Z",
            "started_at",
            "manifest.time_out_of_range",
            "cannot be converted to UTC",
        ),
        (
            "2026-11-30T08:00:00Z",
            "9999-12-31T23:59:59-01:00",
            "finished_at",
            "manifest.time_out_of_range",
            "cannot be converted to UTC",
        ),
        (
            "1970-01-01T00:00:00Z",
            "2026-11-30T08:02:00Z",
            "started_at",
            "manifest.time_too_early",
            "is before 2000-01-01T00:00:00+00:00",
        ),
    ],
)
def test_a_manifest_time_off_the_calendar_or_before_2000_fails_the_upload_and_names_it(
    client, upload_token, started_at, finished_at, key, code, why
):
    _token, raw = upload_token
    upload = _imported(_post(client, raw, _bundle(started_at=started_at, finished_at=finished_at)))
    assert upload.status == UploadStatus.FAILED
    assert upload.error_code == evidence_messages.UPLOAD_TIME_REFUSED
    assert upload.error_params["reason"]["code"] == code
    assert upload.error_params["reason"]["params"]["key"] == key
    assert upload.error.startswith("The upload was refused because of a time it gives:")
    assert f"'{key}'" in upload.error and why in upload.error
    assert upload.finished_at is not None and upload.measured_at is None
    assert not Measurement.objects.filter(upload=upload).exists()
    with translation.override("zh-hans"):
        shown = evidence_messages.upload_error(
            code=upload.error_code, params=upload.error_params, text=upload.error
        )
    assert key in shown and "manifest.json" in shown
    assert "refused" not in shown  # the whole sentence is Chinese, not the English fallback


def test_a_manifest_dated_in_the_future_fails_naming_the_time_and_the_receipt(client, upload_token):
    _token, raw = upload_token
    upload = _post(
        client, raw, _bundle(started_at="2099-01-01T00:00:00Z", finished_at="2099-01-01T00:02:00Z")
    )
    upload = _imported(upload)
    assert upload.status == UploadStatus.FAILED
    reason = upload.error_params["reason"]
    assert reason["code"] == "manifest.time_in_future"
    assert reason["params"]["key"] == "started_at"
    assert reason["params"]["text"] == "2099-01-01T00:00:00+00:00"
    assert reason["params"]["received"] == upload.created_at.astimezone(UTC).isoformat()
    assert "2099-01-01T00:00:00+00:00" in upload.error and "received" in upload.error
    assert upload.measured_at is None


def test_a_manifest_a_little_ahead_of_the_portal_clock_is_still_accepted(client, upload_token):
    _token, raw = upload_token
    ahead = timezone.now() + CLOCK_SKEW_ALLOWANCE - timedelta(hours=1)
    upload = _imported(
        _post(client, raw, _bundle(started_at=ahead.isoformat(), finished_at=ahead.isoformat()))
    )
    assert upload.status == UploadStatus.DONE, upload.error
    assert upload.measured_at == ahead


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("Thu Jan  1 00:00:00 1970", "time.tool_too_early"),
        ("Fri Jan  1 00:00:00 2100", "time.tool_in_future"),
    ],
)
def test_a_tool_output_whose_own_time_is_out_of_range_fails_and_names_the_file(
    client, upload_token, header, code
):
    _token, raw = upload_token
    # nvidia-smi's header line is the time it ran: the node's clock.
    text = NVSMI.read_text().replace("Fri Nov  8 02:11:26 2024", header)
    assert header in text
    upload = _imported(_post(client, raw, text.encode(), "nvidia-smi.txt"))
    assert upload.status == UploadStatus.FAILED
    assert upload.error_code == evidence_messages.UPLOAD_TIME_REFUSED
    assert upload.error_params["reason"]["code"] == code
    assert upload.error_params["reason"]["params"]["file"] == "nvidia-smi.txt"
    assert "nvidia-smi.txt" in upload.error


def test_scoring_refuses_the_edge_times_when_the_manifest_is_read():
    data = _bundle(started_at="0001-01-01T00:00:00+14:00", finished_at="2026-11-30T08:02:00Z")
    with pytest.raises(EvidenceTimeRefused) as refused:
        open_evidence("b.tar.gz", data)
    assert refused.value.code == "manifest.time_out_of_range"


def test_one_bad_upload_of_a_real_batch_fails_alone_and_its_batch_mate_is_imported(
    client, upload_token
):
    _token, raw = upload_token
    bad = _post(
        client,
        raw,
        _bundle(started_at="0001-01-01T00:00:00+14:00", finished_at="2026-11-30T08:02:00Z"),
    )
    good = _post(client, raw, sample_bytes(NCCL), "all_reduce.txt")
    # One task claims both (the batch takes the candidate's queued uploads along).
    evidence_import(upload_id=bad.pk, task_id="batch")
    bad.refresh_from_db()
    good.refresh_from_db()
    assert (bad.task_id, good.task_id) == ("batch", "batch")
    assert bad.status == UploadStatus.FAILED
    assert bad.error_code == evidence_messages.UPLOAD_TIME_REFUSED
    assert good.status == UploadStatus.DONE, good.error
    assert Measurement.objects.filter(upload=good).exists()


def test_an_unexpected_error_parsing_one_upload_fails_it_alone(client, upload_token, monkeypatch):
    _token, raw = upload_token
    first = _post(client, raw, sample_bytes(NCCL), "all_reduce.txt")
    second = _post(client, raw, sample_bytes("ibstat-roce-some-down.txt"), "ibstat.txt")
    real = evidence_outcome._outcome

    def broken(upload):
        if upload.pk == first.pk:
            raise OverflowError("date value out of range")
        return real(upload)

    monkeypatch.setattr(evidence_outcome, "_outcome", broken)
    evidence_import(upload_id=first.pk, task_id="batch")
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == UploadStatus.FAILED
    assert first.error_code == evidence_messages.UPLOAD_INTERNAL_ERROR
    assert "unexpected error" in first.error
    assert second.status == UploadStatus.DONE, second.error


def test_an_unexpected_error_writing_a_batch_writes_each_upload_alone(
    client, upload_token, monkeypatch
):
    _token, raw = upload_token
    first = _post(client, raw, sample_bytes(NCCL), "all_reduce.txt")
    second = _post(client, raw, sample_bytes("ibstat-roce-some-down.txt"), "ibstat.txt")
    real = evidence_write._identifiers

    def broken(upload, outcome):
        # Raised inside the batch's one transaction, which then fails as a whole.
        if upload.pk == second.pk and outcome.status == UploadStatus.DONE:
            raise OverflowError("date value out of range")
        return real(upload, outcome)

    monkeypatch.setattr(evidence_write, "_identifiers", broken)
    evidence_import(upload_id=first.pk, task_id="batch")
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == UploadStatus.DONE, first.error
    assert Measurement.objects.filter(upload=first).exists()
    assert second.status == UploadStatus.FAILED
    assert second.error_code == evidence_messages.UPLOAD_INTERNAL_ERROR
    assert not Measurement.objects.filter(upload=second).exists()
