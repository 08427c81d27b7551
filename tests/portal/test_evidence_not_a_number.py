"""A figure that reads as "nan" is refused by its parser with the reason, as any unreadable
figure is: stored as NaN it made the database refuse the upload's report (JSON has no NaN), so
the whole upload, every good file of its bundle with it, failed on an "unexpected error"
(attacker review: an ibstat port "Rate: nan")."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

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
