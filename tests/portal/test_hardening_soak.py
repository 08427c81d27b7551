"""The fault harness's short run (bench/soak.py --short, about a minute): the production
stack on loopback (private PostgreSQL and Redis, nginx, gunicorn, Celery worker and beat)
through a killed worker, a Redis outage, a PostgreSQL restart and slow clients, with nothing
lost, nothing imported twice and no 5xx."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Runs in CI with the rest of the suite: it needs nothing scripts/test.sh does not install.
pytestmark = pytest.mark.worker


def test_the_short_soak_run_loses_nothing(tmp_path):
    figures = tmp_path / "soak.json"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL")
    }
    result = subprocess.run(
        [sys.executable, "bench/soak.py", "--short", "--json", str(figures)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=420,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    report = json.loads(figures.read_text())
    phases = {row["phase"]: row for row in report["phases"]}
    assert list(phases) == ["baseline", "worker-kill", "redis-down", "pg-restart", "slow-clients"]
    for row in phases.values():
        assert row["accepted"] > 0
        assert row["imported_once"] == row["accepted"]
        assert row["lost"] == row["duplicated"] == row["5xx"] == 0
    assert phases["slow-clients"]["healthz_p95_s"] < 1.0
    # No refresh lost: every candidate verified and scored after its last import.
    assert report["stale"] == []
