"""The fault harness's short run (bench/soak.py --short, about 2 minutes): the production
stack on loopback (private PostgreSQL and Redis, nginx, gunicorn, Celery worker and beat)
through a killed worker, a Redis outage, a PostgreSQL restart and slow clients, with nothing
lost, nothing imported twice and no 5xx.

The run is mostly waiting (its phases are paced by the clock, on a stack of its own), so it
does not hold up the suite: once this test is selected, ``start_early`` (called by
tests/conftest.py before the first test) starts it in the background, and the test collects
its result when its turn comes.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 420  # from the run's start

# Runs in CI with the rest of the suite: it needs nothing scripts/test.sh does not install.
pytestmark = pytest.mark.worker

RUN = pytest.StashKey["SoakRun"]()


class SoakRun:
    """``bench/soak.py --short`` as a process of its own, writing to a temporary folder."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="gpuportal-soak-test-"))
        self.figures = self.dir / "soak.json"
        self.log = self.dir / "soak.log"
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL")
        }
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "bench/soak.py", "--short", "--json", str(self.figures)],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        self.started = time.monotonic()

    def wait(self) -> int:
        """The run's exit status; a run past TIMEOUT_S is stopped and fails the test."""
        remaining = TIMEOUT_S - (time.monotonic() - self.started)
        try:
            return self.process.wait(timeout=max(remaining, 1.0))
        except subprocess.TimeoutExpired as exc:
            output = self.output()
            self.stop()
            raise AssertionError(f"the soak run took over {TIMEOUT_S} s:\n{output}") from exc

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-8000:]

    def stop(self) -> None:
        """Stop a run still going (the session ended early): SIGINT, so that soak.py's
        ``finally`` stops the stack it started; then remove the folder."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def start_early(config: pytest.Config) -> None:
    """Start the run now; the suite goes on meanwhile (tests/conftest.py calls this)."""
    if RUN not in config.stash:
        run = config.stash[RUN] = SoakRun()
        config.add_cleanup(run.stop)


@pytest.fixture
def soak_run(request) -> SoakRun:
    start_early(request.config)  # already running unless start_early was not called
    return request.config.stash[RUN]


def test_the_short_soak_run_loses_nothing(soak_run):
    assert soak_run.wait() == 0, soak_run.output()
    report = json.loads(soak_run.figures.read_text())
    phases = {row["phase"]: row for row in report["phases"]}
    assert list(phases) == ["baseline", "worker-kill", "redis-down", "pg-restart", "slow-clients"]
    for row in phases.values():
        assert row["accepted"] > 0
        assert row["imported_once"] == row["accepted"]
        assert row["lost"] == row["duplicated"] == row["5xx"] == 0
    assert phases["slow-clients"]["healthz_p95_s"] < 1.0
    # No refresh lost: every candidate verified and scored after its last import.
    assert report["stale"] == []
