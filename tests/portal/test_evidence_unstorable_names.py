"""A name in a bundle that the database cannot store as it is (a NUL, a lone surrogate from a
name that is not UTF-8) is refused as the bundle's fault, with the reason, like any unsafe
name: quoted in the refusal's stored details it made PostgreSQL's JSON refuse the whole
outcome, and the upload failed on an "unexpected error" instead (attacker review)."""

import gzip
import io
import json
import tarfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from portal.models import EvidenceUpload, UploadStatus
from portal.services.evidence import evidence_import, evidence_submit

from .conftest import sample_bytes

pytestmark = pytest.mark.django_db
TOPO = sample_bytes("topo-a100-8gpu.txt")


def _manifest(output: str = "topo.txt") -> bytes:
    command = {"name": "topo", "argv": ["nvidia-smi"], "output": output, "exit_code": 0}
    return json.dumps(
        {
            "schema_version": 1,
            "collector_version": "1.0.0",
            "hostname": "gpu-node-01",
            "started_at": "2026-11-30T08:00:00Z",
            "finished_at": "2026-11-30T08:02:00Z",
            "commands": [command | {"duration_s": 0.5}],
        }
    ).encode()


def _tar(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", encoding="utf-8") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _not_utf8_tar_name() -> bytes:
    """A tar whose second member's name is the bytes b"topo\\xff.txt" (not UTF-8)."""
    raw = bytearray(gzip.decompress(_tar([("manifest.json", _manifest()), ("topoX.txt", TOPO)])))
    at = raw.index(b"topoX.txt")
    raw[at + 4] = 0xFF
    header = at - (at % 512)
    raw[header + 148 : header + 156] = b" " * 8
    checksum = sum(raw[header : header + 512])
    raw[header + 148 : header + 156] = b"%06o\x00 " % checksum
    return gzip.compress(bytes(raw))


CASES = {
    "manifest output with a NUL": _tar([("manifest.json", _manifest("to\x00po.txt"))]),
    "manifest output with a lone surrogate": _tar([("manifest.json", _manifest("\ud800.txt"))]),
    "tar member name not UTF-8": _not_utf8_tar_name(),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_unstorable_name_is_a_refused_bundle_not_an_internal_error(candidate, case):
    upload, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("b.tgz", CASES[case])
    )
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload = EvidenceUpload.objects.get(pk=upload.pk)
    assert upload.status == UploadStatus.FAILED
    assert upload.error_code == "upload.bundle_refused", (upload.error_code, upload.error)
    assert upload.error.startswith("The bundle was refused: ")
    # Stored as text a reader sees: the character named, nothing dropped silently.
    stored = json.dumps(upload.error_params)
    assert "\\u0000" not in stored
