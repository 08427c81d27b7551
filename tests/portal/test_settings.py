"""Production settings: fail fast without a secret key; `check --deploy` reports nothing."""

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "portal.settings",
    "DEBUG": "0",
    "SECRET_KEY": "prod-like-secret-9c1e7a3b5d0f2e4a6c8b1d3f5a7c9e0b2d4f6a8c1e3b5d7f",
    "ALLOWED_HOSTS": "gpu-portal.example.com",
    "DATABASE_URL": "sqlite:////tmp/never-opened.sqlite3",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
}


def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    # Only the basics of the parent environment: the test settings' own variables must not leak.
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_settings():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    env = {**PRODUCTION_ENV, "SECRET_KEY": ""}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_a_bad_setting_value_is_refused_at_start_up():
    env = {**PRODUCTION_ENV, "EVIDENCE_MAX_UPLOAD_BYTES": "lots"}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert (
        "invalid literal for int()" in result.stderr or "EVIDENCE_MAX_UPLOAD_BYTES" in result.stderr
    )


def test_the_embedded_defaults_load_the_demo_with_its_evidence(tmp_path):
    """What ./scripts/run.sh does before serving: SQLite, Celery eager, the demo imported."""
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "MEDIA_ROOT": str(tmp_path / "media"),
        "DEBUG": "1",
    }
    assert _manage("migrate", "--noinput", "-v0", env=env).returncode == 0
    loaded = _manage("setup_demo", env=env)
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    # Read from the SQLite file itself: a third Django start-up would add a second or two.
    with closing(sqlite3.connect(tmp_path / "db.sqlite3")) as db:
        done, not_done, measured, scored = db.execute(
            "SELECT (SELECT count(*) FROM portal_evidenceupload WHERE status = 'done'),"
            " (SELECT count(*) FROM portal_evidenceupload WHERE status <> 'done'),"
            " EXISTS (SELECT 1 FROM portal_measurement), EXISTS (SELECT 1 FROM portal_score)"
        ).fetchone()
    assert done >= 3 and not_done == 0
    assert (measured, scored) == (1, 1)
