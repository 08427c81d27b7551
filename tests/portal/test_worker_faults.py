"""Faults with real processes: a worker killed mid-import; an upload made while Redis is down."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import psycopg
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction

from portal.models import EvidenceUpload, Measurement, UploadStatus
from portal.services.evidence import evidence_submit
from portal.services.tokens import upload_token_create

from ..conftest import ROOT, WorkerProcess
from .conftest import make_bundle, sample_bytes

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _wait_for(predicate, timeout_s: float = 30.0, what: str = "condition"):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} not met within {timeout_s}s")


def _status(upload_id: int) -> str:
    return EvidenceUpload.objects.values_list("status", flat=True).get(pk=upload_id)


def _lock_candidate(candidate_id: int) -> psycopg.Connection:
    """Hold the candidate's row lock from a second connection, as a slow import would."""
    params = connection.get_connection_params()
    lock = psycopg.connect(
        dbname=params["dbname"],
        host=params.get("host"),
        port=params.get("port"),
        user=params.get("user"),
        password=params.get("password"),
    )
    lock.execute("SELECT id FROM portal_candidate WHERE id = %s FOR NO KEY UPDATE", [candidate_id])
    return lock


def _blocked_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


def test_a_worker_killed_mid_import_loses_and_duplicates_nothing(celery_worker_process, candidate):
    lock = _lock_candidate(candidate.pk)
    try:
        bundles = [
            make_bundle(
                {
                    "nccl.txt": sample_bytes("nccl-a100-8gpu.txt"),
                    "ibstat.txt": sample_bytes("ibstat-roce-some-down.txt"),
                },
                hostname=f"gpu-node-{number}",
            )
            for number in range(3)
        ]
        # Queued together: an import task takes the others along in its batch.
        with transaction.atomic():
            uploads = [
                evidence_submit(
                    candidate=candidate,
                    uploaded_file=SimpleUploadedFile(f"b{number}.tar.gz", bundle),
                )[0]
                for number, bundle in enumerate(bundles)
            ]
        ids = [upload.pk for upload in uploads]
        # The worker claims the uploads, writes their measurements, then waits for our lock.
        _wait_for(lambda: all(_status(pk) == UploadStatus.PROCESSING for pk in ids), what="claimed")
        _wait_for(_blocked_on_a_lock, what="worker blocked inside its import transaction")
        pids = _wait_for(celery_worker_process.active_task_pids, what="active task")
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        time.sleep(1.0)
    finally:
        lock.rollback()
        lock.close()

    _wait_for(
        lambda: all(_status(pk) == UploadStatus.DONE for pk in ids),
        what="imports done after the kill",
    )
    for upload in uploads:
        upload.refresh_from_db()
        assert upload.attempts == 2, "the redelivered message took over the uploads it held"
        rows = list(
            Measurement.objects.filter(upload=upload).values_list("source_file", "metric", "line")
        )
        assert rows, "measurements were written"
        assert len(rows) == len(set(rows)), "no measurement was written twice"
    assert celery_worker_process.ping(), "the worker replaced its killed child"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    """A redis-server of this test's own, so that stopping it disturbs nobody else."""

    def __init__(self, port: int, workdir: Path):
        self.port = port
        self.workdir = workdir
        self.process = None

    def start(self):
        binary = shutil.which("redis-server")
        assert binary, "redis-server is required (scripts/test.sh installs it)"
        self.process = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_for(self._answers, 10, "private redis up")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


def _post_multipart(url: str, token: str, name: str, data: bytes) -> tuple[int, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, response.read().decode()


def test_an_upload_made_while_redis_is_down_is_imported_once_it_is_back(
    subprocess_env, candidate, members, tmp_path
):
    broker_port, web_port = _free_port(), _free_port()
    env = {**subprocess_env, "CELERY_BROKER_URL": f"redis://127.0.0.1:{broker_port}/0"}
    _token, raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "portal.wsgi:application",
         "--bind", f"127.0.0.1:{web_port}", "--workers", "1", "--timeout", "120"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=(tmp_path / "web.log").open("wb"),
    )  # fmt: skip
    redis_server = PrivateRedis(broker_port, tmp_path)
    worker = WorkerProcess(env, tmp_path / "worker.log")
    try:
        _wait_for(lambda: _port_open(web_port), 30, "gunicorn up")
        # Nothing listens on the broker port: the web server must still accept the upload.
        status, body = _post_multipart(
            f"http://127.0.0.1:{web_port}/api/v1/evidence/",
            raw,
            "all_reduce.txt",
            sample_bytes("nccl-a100-8gpu.txt"),
        )
        assert status == 202, body
        upload = EvidenceUpload.objects.get(candidate=candidate)
        assert upload.status == UploadStatus.QUEUED

        redis_server.start()
        worker.start()
        sweep = subprocess.run(
            [sys.executable, "manage.py", "evidence_sweep", "--queued-for", "0"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert f"re-enqueued 1 upload(s): {upload.pk}" in sweep.stdout, sweep.stderr
        _wait_for(lambda: _status(upload.pk) == UploadStatus.DONE, 30, "imported after recovery")
        assert Measurement.objects.filter(upload=upload, metric="peak_busbw_gbyte_s").exists()
    finally:
        worker.stop()
        redis_server.stop()
        web.terminate()
        web.wait(10)


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False
