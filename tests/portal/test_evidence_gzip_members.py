"""A gzip file of several members (``cat a.gz b.gz``, bgzip, a log gzipped in parts) is read
as gzip(1) reads it, whole. When the next member began in the chunk the last one ended in, the
reader fed it to the finished inflater, took it back doubled, and looped until the process ran
out of memory: a 50-byte upload took 22 GB and the embedded portal with it (attacker review).
Each test runs under a cap on the address space, so a regression fails instead of swapping
the machine to death."""

import contextlib
import gzip
import io
import re
import resource
import tarfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from portal.models import EvidenceUpload, Measurement, UploadStatus
from portal.services.evidence import evidence_import

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db
URL = "/api/v1/evidence/"
HEADROOM_BYTES = 1 << 30


@contextlib.contextmanager
def address_space_capped():
    """The process may grow by HEADROOM_BYTES of address space from here (MemoryError after)."""
    with open("/proc/self/status") as status:
        used_kib = int(re.search(r"^VmSize:\s+(\d+) kB", status.read(), re.M).group(1))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = used_kib * 1024 + HEADROOM_BYTES
    resource.setrlimit(
        resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard)
    )
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _upload_and_import(client, raw_token: str, data: bytes, name: str) -> EvidenceUpload:
    response = client.post(
        URL, {"file": SimpleUploadedFile(name, data)}, HTTP_AUTHORIZATION=f"Bearer {raw_token}"
    )
    assert response.status_code == 202, response.content
    upload_id = response.json()["id"]
    with address_space_capped():
        evidence_import(upload_id=upload_id, task_id="t1")
    return EvidenceUpload.objects.get(pk=upload_id)


def test_a_file_gzipped_in_two_members_is_read_whole(client, upload_token):
    _token, raw = upload_token
    nccl = sample_bytes("nccl-a100-8gpu.txt")
    half = len(nccl) // 2
    upload = _upload_and_import(
        client, raw, gzip.compress(nccl[:half]) + gzip.compress(nccl[half:]), "all_reduce.txt.gz"
    )
    assert upload.status == UploadStatus.DONE, (upload.error_code, upload.error)
    assert upload.report[0]["file"] == "all_reduce.txt"
    peak = Measurement.objects.get(upload=upload, metric="peak_busbw_gbyte_s")
    assert peak.value == pytest.approx(232.2, abs=0.5)


def test_a_bundle_gzipped_in_two_members_is_read_whole(client, upload_token):
    _token, raw = upload_token
    bundle = gzip.decompress(
        make_bundle(
            {
                "nccl-all-reduce.txt": sample_bytes("nccl-a100-8gpu.txt"),
                "ibstat.txt": sample_bytes("ibstat-roce-some-down.txt"),
            }
        )
    )
    with tarfile.open(fileobj=io.BytesIO(bundle)) as archive:
        assert archive.getnames()[0] == "manifest.json"
    cut = 1024
    upload = _upload_and_import(
        client, raw, gzip.compress(bundle[:cut]) + gzip.compress(bundle[cut:]), "b.tar.gz"
    )
    assert upload.status == UploadStatus.DONE, (upload.error_code, upload.error)
    assert {row["file"]: row["ok"] for row in upload.report} == {
        "nccl-all-reduce.txt": True,
        "ibstat.txt": True,
    }


def test_bytes_after_the_last_member_are_refused_as_corrupt(client, upload_token):
    _token, raw = upload_token
    data = gzip.compress(sample_bytes("nccl-a100-8gpu.txt")) + b"\0" * 8
    upload = _upload_and_import(client, raw, data, "all_reduce.txt.gz")
    assert upload.status == UploadStatus.FAILED
    assert upload.error_code == "upload.bundle_refused"
    assert upload.error_params["reason"]["code"] == "archive.gzip_corrupt"
