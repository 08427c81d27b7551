"""Big nccl logs: parsed line by line into one stored fact per table, the chart unchanged."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from portal import charts
from portal.models import Candidate, Measurement, UploadStatus
from portal.services.evidence import evidence_import, evidence_submit
from scoring.evidence import nccl
from scoring.evidence.base import EvidenceParseError, decode_text

from .conftest import make_bundle, sample_bytes

SAMPLES = sorted(
    (Path(__file__).resolve().parents[1] / "scoring/evidence/samples/nccl_tests").glob("*")
)


def _both(text: str):
    try:
        full = nccl.parse(text)
    except EvidenceParseError as exc:
        with pytest.raises(EvidenceParseError) as streamed:
            nccl.parse_lines(nccl.iter_lines(text))
        assert str(streamed.value) == str(exc)
        return None, None
    return full, nccl.parse_lines(nccl.iter_lines(text, chunk=64))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_streamed_parse_equals_the_whole_text_parse(path):
    text = decode_text(path.read_bytes())
    full, streamed = _both(text)
    if full is None:
        return
    assert streamed.metrics == full.metrics
    assert streamed.warnings == full.warnings
    rows = [f for f in full.facts if f.metric == "busbw_gbyte_s"]
    curves = [f for f in streamed.facts if f.metric == "busbw_curve_gbyte_s"]
    # Every row is in one table's arrays, in order, and nothing else changed.
    assert [v for f in curves for v in f.details["busbw_gbyte_s"]] == [f.value for f in rows]
    assert [v for f in curves for v in f.details["lines"]] == [f.line for f in rows]
    assert [v for f in curves for v in f.details["size_bytes"]] == [
        f.details["size_bytes"] for f in rows
    ]
    assert [f.value for f in curves] == [max(f.details["busbw_gbyte_s"]) for f in curves]
    others = [f for f in full.facts if f.metric != "busbw_gbyte_s"]
    assert [f for f in streamed.facts if f.metric != "busbw_curve_gbyte_s"] == others


def test_iter_lines_splits_as_splitlines():
    text = "a\r\nb\rc\n\nd\u2028e\r\n" * 50 + "tail"
    for chunk in (1, 3, 7, 64, 1 << 20):
        assert list(nccl.iter_lines(text, chunk)) == text.splitlines()


@pytest.mark.django_db
def test_a_log_of_many_tables_is_stored_one_row_per_table_and_charted(candidate: Candidate):
    tables = 40
    log = sample_bytes("nccl-h100-2node.txt") * tables
    data = make_bundle({"nccl-all-reduce.txt": log}, hostname="node-1")
    upload, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("b.tar.gz", data)
    )
    evidence_import(upload_id=upload.pk, task_id="big")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error
    rows = Measurement.objects.filter(upload=upload, kind="nccl_tests")
    curves = rows.filter(metric="busbw_curve_gbyte_s")
    assert curves.count() == tables
    assert not rows.filter(metric="busbw_gbyte_s").exists()
    # Besides: the first table's peak and average and its scalar metrics, whatever the length:
    # as many as one table's log stores.
    single = make_bundle(
        {"nccl-all-reduce.txt": sample_bytes("nccl-h100-2node.txt")}, hostname="node-2"
    )
    one_table, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("one.tar.gz", single)
    )
    evidence_import(upload_id=one_table.pk, task_id="one")
    scalars = Measurement.objects.filter(upload=one_table, kind="nccl_tests").exclude(
        metric="busbw_curve_gbyte_s"
    )
    assert rows.exclude(metric="busbw_curve_gbyte_s").count() == scalars.count() > 0
    one = curves.order_by("line").first()
    assert len(one.details["size_bytes"]) == len(one.details["busbw_gbyte_s"]) > 1
    assert one.value == max(one.details["busbw_gbyte_s"])
    # The chart reads the judged run's curve from the candidate's verification, as before.
    candidate.refresh_from_db()
    curve = candidate.verification["busbw_curve"]
    assert [p["size_bytes"] for p in curve] == one.details["size_bytes"]
    figure = charts.busbw_curves({"cand": curve})
    trace = figure["data"][0]
    assert (
        trace["x"] == [float(s) for s in one.details["size_bytes"]]
        or trace["x"] == one.details["size_bytes"]
    )
    assert trace["y"] == one.details["busbw_gbyte_s"]


@pytest.mark.django_db
def test_a_log_held_deflated_still_gives_its_identifiers_and_time(candidate: Candidate):
    # Past the 4 MiB packing threshold; a GPU UUID and an nvidia-smi time only at the very end.
    log = sample_bytes("nccl-h100-2node.txt")
    log = log * (4 * 2**20 // len(log) + 1)
    uuid = "GPU-12345678-1234-1234-1234-123456789abc"
    log += f"GPU 0: NVIDIA H100 (UUID: {uuid})\nMon Nov 30 07:55:00 2026\n".encode()
    data = make_bundle({"nccl-all-reduce.txt": log}, hostname="node-1")
    upload, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("b.tar.gz", data)
    )
    evidence_import(upload_id=upload.pk, task_id="packed")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error
    assert upload.fingerprint["gpu_uuid"] == [uuid]
    assert upload.measured_at.isoformat() == "2026-11-30T07:55:00+00:00"
    assert Measurement.objects.filter(upload=upload, metric="busbw_curve_gbyte_s").count() > 100
