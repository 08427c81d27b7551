"""Demo evidence: pack a folder of tool outputs into a collector-style bundle and import it."""

import gzip
import io
import json
import tarfile
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from .models import Candidate
from .services.evidence import evidence_import, evidence_submit

DEMO_EVIDENCE_DIR = Path(settings.BASE_DIR) / "fixtures" / "demo-evidence"
# A fixed timestamp keeps the bundle bytes (and so their sha256) identical on every load.
FIXED_TIME = "2026-10-10T08:00:00Z"


def pack_bundle(folder: Path, hostname: str) -> bytes:
    """The folder's files as a tar.gz with a manifest.json, byte-for-byte reproducible."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix == ".txt")
    manifest = {
        "schema_version": 1,
        "collector_version": "demo",
        "hostname": hostname,
        "started_at": FIXED_TIME,
        "finished_at": FIXED_TIME,
        "nonce": None,
        "commands": [
            {"name": p.stem, "argv": [p.stem], "output": p.name, "exit_code": 0, "duration_s": 1.0}
            for p in files
        ],
    }
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        members = [("manifest.json", json.dumps(manifest, indent=1).encode())]
        members += [(p.name, p.read_bytes()) for p in files]
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            archive.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as zipped:
        zipped.write(raw.getvalue())
    return out.getvalue()


def demo_evidence_load(*, user=None) -> int:
    """Import each demo node folder for its candidate; already-known bundles are skipped."""
    imported = 0
    for folder in sorted(p for p in DEMO_EVIDENCE_DIR.iterdir() if p.is_dir()):
        candidate_id, hostname = folder.name.split("-", 1)
        candidate = Candidate.objects.filter(pk=int(candidate_id)).first()
        if candidate is None:
            continue
        data = pack_bundle(folder, hostname)
        with transaction.atomic():
            upload, created = evidence_submit(
                candidate=candidate,
                uploaded_file=SimpleUploadedFile(f"{hostname}.tar.gz", data),
                node_name=hostname,
                user=user,
            )
        if created:
            # Imported here rather than by a worker: the demo must be complete when the
            # command returns, whatever the broker.
            evidence_import(upload_id=upload.pk, task_id=f"setup-demo-{upload.pk}")
            imported += 1
    return imported
