"""Suite-wide fixtures: a real Celery worker process on the real Redis broker and test database."""

import os
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


class WorkerProcess:
    """A ``celery worker`` subprocess bound to the test database; restartable for fault tests."""

    def __init__(self, env: dict[str, str], log_path: Path):
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def ping(self) -> list:
        from celery import Celery

        probe = Celery(broker=self.env["CELERY_BROKER_URL"], set_as_current=False)
        try:
            return probe.control.ping(timeout=0.5)
        finally:
            probe.close()

    def active_task_pids(self) -> list[int]:
        """Process ids of the pool children running a task right now."""
        from celery import Celery

        probe = Celery(broker=self.env["CELERY_BROKER_URL"], set_as_current=False)
        try:
            active = probe.control.inspect(timeout=1.0).active() or {}
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
                "--hostname", f"test-worker-{os.getpid()}@%h",
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
