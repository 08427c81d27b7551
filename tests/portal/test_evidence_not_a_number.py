"""A figure no tool prints ("nan", a 400-digit count) fails its own file with the reason, as any
unreadable figure does: stored, it made the database refuse the upload's report (JSON has no
NaN) or overflowed float() in verification, so the whole upload, every good file of its bundle
with it, failed on an "unexpected error" (attacker review)."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal.models import EvidenceUpload, Measurement, UploadStatus
from portal.services.evidence import evidence_import, evidence_submit

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("rate", ["nan", "NaN", "-nan"])
def test_a_port_rate_of_nan_is_an_unreadable_rate_and_the_rest_of_the_bundle_is_kept(
    candidate, rate
):
    ibstat = sample_bytes("ibstat-roce-some-down.txt").decode()
    assert "Rate: 100" in ibstat
    bundle = make_bundle(
        {
            "nccl-all-reduce.txt": sample_bytes("nccl-a100-8gpu.txt"),
            "ibstat.txt": ibstat.replace("Rate: 100", f"Rate: {rate}", 1).encode(),
        }
    )
    upload, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("bundle.tar.gz", bundle)
    )
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload = EvidenceUpload.objects.get(pk=upload.pk)
    assert upload.status == UploadStatus.DONE, (upload.error_code, upload.error)
    rows = {row["file"]: row for row in upload.report}
    assert rows["nccl-all-reduce.txt"]["ok"] is True
    assert rows["ibstat.txt"]["ok"] is False
    assert rows["ibstat.txt"]["error_detail"]["code"] == "ibstat.unreadable_rate"
    assert Measurement.objects.filter(upload=upload, metric="peak_busbw_gbyte_s").exists()


SCORING_SAMPLES = Path(__file__).resolve().parents[1] / "scoring" / "evidence" / "samples"
HUGE = "9" * 400


def _import_bundle(candidate, files: dict[str, bytes]) -> EvidenceUpload:
    upload, _created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile("bundle.tar.gz", make_bundle(files)),
    )
    evidence_import(upload_id=upload.pk, task_id="t1")
    return EvidenceUpload.objects.get(pk=upload.pk)


@pytest.mark.parametrize(
    ("sample", "figure", "code"),
    [
        # Parsed, then failed the upload's verification (float() of the count overflowed).
        ("rtt/devmachine-iputils-ping-loopback-5.txt", "5 packets", "file.figure_out_of_range"),
        # float() overflowed inside the parser.
        ("fio/fio333-seqread-normal-json.txt", '"io_bytes" : 1701838848', "file.figure_overflow"),
    ],
)
def test_a_figure_beyond_64_bits_fails_its_file_alone_with_the_reason(
    client, candidate, members, sample, figure, code
):
    text = (SCORING_SAMPLES / sample).read_text()
    assert figure in text
    huge = figure.replace(figure.split()[-1] if figure[0] == '"' else figure.split()[0], HUGE)
    upload = _import_bundle(
        candidate,
        {
            "nccl-all-reduce.txt": sample_bytes("nccl-a100-8gpu.txt"),
            "hostile.txt": text.replace(figure, huge, 1).encode(),
        },
    )
    assert upload.status == UploadStatus.DONE, (upload.error_code, upload.error)
    rows = {row["file"]: row for row in upload.report}
    assert rows["nccl-all-reduce.txt"]["ok"] is True
    assert rows["hostile.txt"]["ok"] is False
    assert rows["hostile.txt"]["error_detail"]["code"] == code
    assert Measurement.objects.filter(upload=upload, metric="peak_busbw_gbyte_s").exists()
    # Said in the reader's language (the status the upload page and the collector poll).
    client.force_login(members["engineer"])
    status = client.get(
        reverse("api-evidence-detail", args=[upload.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).json()
    (unread,) = status["unread_display"]
    assert unread["file"] == "hostile.txt"
    assert "不是该工具会输出的值" in unread["error"]
