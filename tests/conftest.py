"""Suite-wide fixtures: a real Celery worker process on the real Redis broker and test database."""

import itertools
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parent.parent


def _database_url(settings_dict) -> str:
    user = settings_dict.get("USER") or "postgres"
    password = settings_dict.get("PASSWORD") or ""
    auth = f"{user}:{password}" if password else user
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{settings_dict['NAME']}"


_WORKER_NUMBERS = itertools.count(1)


class WorkerProcess:
    """A ``celery worker`` subprocess bound to the test database; restartable for fault tests.

    Pings and inspections go to this worker by its node name: the test runs on a machine share
    the broker's control channel, and every run's worker answers a broadcast."""

    def __init__(self, env: dict[str, str], log_path: Path):
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen | None = None
        self.name = f"test-worker-{os.getpid()}-{next(_WORKER_NUMBERS)}@{socket.gethostname()}"

    def _probe(self):
        """A Celery app on this worker's broker. Not ``Celery(broker=...)``: Celery's conf
        prefers this process's CELERY_BROKER_URL (the run's shared broker) to a broker URL it
        is given, and sent a fault test's pings to the shared broker, where the run's other
        worker answered them. The read and write URLs it takes as given."""
        from celery import Celery

        url = self.env["CELERY_BROKER_URL"]
        probe = Celery(set_as_current=False)
        probe.conf.update(broker_read_url=url, broker_write_url=url)
        return probe

    def ping(self) -> list:
        """This worker's answer (``[{name: {"ok": "pong"}}]``), or ``[]`` within 0.5 s."""
        probe = self._probe()
        try:
            return probe.control.ping(destination=[self.name], timeout=0.5)
        finally:
            probe.close()

    def active_task_pids(self) -> list[int]:
        """Process ids of this worker's pool children running a task right now."""
        probe = self._probe()
        try:
            active = probe.control.inspect(destination=[self.name], timeout=1.0).active() or {}
        finally:
            probe.close()
        return [task["worker_pid"] for tasks in active.values() for task in tasks]

    def start(self, timeout_s: float = 30.0) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the process lifetime
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "portal", "worker",
                "--pool", "prefork", "--concurrency", "2",
                "--without-mingle", "--without-gossip", "--loglevel", "INFO",
                "--hostname", self.name,
            ],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker exited early; see {self.log_path}")
            if self.ping():
                return
        raise RuntimeError(f"the worker did not answer a ping in {timeout_s}s; see {self.log_path}")

    def stop(self, sig: int | None = None) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        if sig is None:
            self.process.terminate()
        else:
            # Signal the whole group: prefork children must die with their parent.
            os.killpg(os.getpgid(self.process.pid), sig)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="session")
def subprocess_env(django_db_setup, django_db_blocker) -> dict[str, str]:
    """Environment for subprocesses (workers, servers) that must use the test database."""
    from django.conf import settings
    from django.db import connection

    with django_db_blocker.unblock():
        env = dict(os.environ)
        env.update(
            DJANGO_SETTINGS_MODULE="tests.settings",
            DATABASE_URL=_database_url(connection.settings_dict),
            CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
            MEDIA_ROOT=str(settings.MEDIA_ROOT),
        )
    return env


@pytest.fixture(scope="session")
def demo_snapshot(django_db_setup, django_db_blocker):
    """setup_demo's rows and files, built once per run (tests/demo_snapshot.py)."""
    from . import demo_snapshot as snapshot

    with django_db_blocker.unblock():
        return snapshot.build()


@pytest.fixture(scope="session")
def celery_worker_process(subprocess_env, tmp_path_factory):
    """A real worker process consuming from Redis and writing to the test database.

    The broker must be reachable: a missing Redis fails the tests that use this, never skips them.
    """
    from portal.celery import app

    app.control.purge()
    worker = WorkerProcess(subprocess_env, tmp_path_factory.mktemp("worker") / "worker.log")
    worker.start()
    yield worker
    worker.stop()
