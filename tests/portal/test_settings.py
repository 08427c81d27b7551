"""Production settings: fail fast without a secret key; `check --deploy` reports nothing."""

import os
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "portal.settings",
    "DEBUG": "0",
    "SECRET_KEY": "prod-like-secret-9c1e7a3b5d0f2e4a6c8b1d3f5a7c9e0b2d4f6a8c1e3b5d7f",
    "ALLOWED_HOSTS": "gpu-portal.example.com",
    "PORTAL_BASE_URL": "https://gpu-portal.example.com",
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


def test_check_deploy_warns_while_links_would_point_to_the_readers_own_machine():
    # The development default, which only a start without PORTAL_BASE_URL gives: through
    # manage.py, which also shows the check registered for --deploy.
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "PORTAL_BASE_URL"}
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode != 0
    assert "portal.W001" in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("base_url", "warned"),
    [
        ("http://localhost:8000", True),
        ("https://127.0.0.1", True),
        ("http://[::1]:8000", True),
        ("gpu-portal.example.com", True),  # no scheme: not a link a mail client opens
        ("https://gpu-portal.example.com", False),
    ],
)
def test_the_base_url_check_warns_on_loopback_and_schemeless_addresses(settings, base_url, warned):
    # The same check function manage.py ran above, on each address (a second of start-up
    # each saved: the check reads the setting when it runs).
    from portal.checks import portal_base_url_check

    settings.PORTAL_BASE_URL = base_url
    assert [w.id for w in portal_base_url_check(None)] == (["portal.W001"] if warned else [])


def test_production_refuses_to_start_without_a_secret_key():
    env = {**PRODUCTION_ENV, "SECRET_KEY": ""}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_production_refuses_the_placeholder_secret_key_of_the_example_env_file():
    example = (ROOT / ".env.example").read_text()
    placeholder = next(
        line.split("=", 1)[1] for line in example.splitlines() if line.startswith("SECRET_KEY=")
    )
    result = _manage("check", env={**PRODUCTION_ENV, "SECRET_KEY": placeholder})
    assert result.returncode != 0
    assert "SECRET_KEY is still the placeholder of .env.example" in result.stderr


@pytest.mark.parametrize("hosts", ["gpu-portal.example.com", "localhost,10.0.0.5", "*"])
def test_debug_is_refused_with_a_host_name_other_than_loopback(hosts):
    result = _manage("check", env={**PRODUCTION_ENV, "DEBUG": "1", "ALLOWED_HOSTS": hosts})
    assert result.returncode != 0
    assert "DEBUG=1 with ALLOWED_HOSTS naming" in result.stderr
    assert "localhost," not in result.stderr.split("naming", 1)[1].split(":", 1)[0]


@pytest.mark.parametrize("hosts", ["", " , "])
def test_an_empty_allowed_hosts_is_refused_at_start_up(hosts):
    result = _manage("check", env={**PRODUCTION_ENV, "ALLOWED_HOSTS": hosts})
    assert result.returncode != 0
    assert "ALLOWED_HOSTS is empty" in result.stderr


def test_debug_on_loopback_host_names_still_starts():
    env = {**PRODUCTION_ENV, "DEBUG": "1", "ALLOWED_HOSTS": "127.0.0.1,localhost,[::1]"}
    result = _manage("check", env=env)
    assert result.returncode == 0, result.stderr


def test_a_bad_setting_value_is_refused_at_start_up():
    env = {**PRODUCTION_ENV, "EVIDENCE_MAX_UPLOAD_BYTES": "lots"}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert (
        "invalid literal for int()" in result.stderr or "EVIDENCE_MAX_UPLOAD_BYTES" in result.stderr
    )


def _embedded_env(tmp_path: Path) -> dict[str, str]:
    """The environment ./scripts/run.sh serves with (scripts/lib.sh's embedded_env), with a
    key file, SQLite file, media and static directory of the test's own."""
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    given = {
        **base,
        "SECRET_KEY_FILE": str(tmp_path / "secret_key"),
        "STATIC_ROOT": str(tmp_path / "static"),
    }
    printed = subprocess.run(
        ["bash", "-c", ". scripts/lib.sh && embedded_env && env -0"],
        cwd=ROOT,
        env=given,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    env = dict(line.split("=", 1) for line in printed.split("\0") if "=" in line)
    return {
        **env,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "MEDIA_ROOT": str(tmp_path / "media"),
    }


@pytest.fixture(scope="module")
def embedded(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """What ./scripts/run.sh does before serving: its settings, migrate, setup_demo."""
    tmp_path = tmp_path_factory.mktemp("embedded")
    env = _embedded_env(tmp_path)
    migrated = _manage("migrate", "--noinput", "-v0", env=env)
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    loaded = _manage("setup_demo", env=env)
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    assert "view-gpus-2026" in loaded.stdout  # the demo logins are printed
    return tmp_path, env


def test_the_embedded_mode_runs_without_debug_on_a_key_kept_in_an_untracked_file(embedded):
    tmp_path, env = embedded
    assert env["DEBUG"] == "0"
    key_file = tmp_path / "secret_key"
    assert env["SECRET_KEY"] == key_file.read_text() and len(env["SECRET_KEY"]) >= 50
    assert key_file.stat().st_mode & 0o077 == 0  # readable by its owner alone
    assert _embedded_env(tmp_path)["SECRET_KEY"] == env["SECRET_KEY"]  # kept, not remade
    # The default key file is never committed nor copied into an image.
    for ignore in (".gitignore", ".dockerignore"):
        assert ".secret_key" in (ROOT / ignore).read_text().split(), ignore


def test_the_embedded_defaults_load_the_demo_with_its_evidence(embedded):
    tmp_path, _env = embedded
    # Read from the SQLite file itself: a third Django start-up would add a second or two.
    with closing(sqlite3.connect(tmp_path / "db.sqlite3")) as db:
        done, not_done, measured, scored = db.execute(
            "SELECT (SELECT count(*) FROM portal_evidenceupload WHERE status = 'done'),"
            " (SELECT count(*) FROM portal_evidenceupload WHERE status <> 'done'),"
            " EXISTS (SELECT 1 FROM portal_measurement), EXISTS (SELECT 1 FROM portal_score)"
        ).fetchone()
    assert done >= 3 and not_done == 0
    assert (measured, scored) == (1, 1)


@pytest.fixture(scope="module")
def embedded_server(embedded):
    """The portal served as ./scripts/run.sh serves it, on a free loopback port."""
    _tmp_path, env = embedded
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env={**base, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                requests.get(f"{url}/healthz/", timeout=1)
                break
            except requests.ConnectionError:
                time.sleep(0.25)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


# Django's technical 404 page (DEBUG on): in English, listing every URL pattern.
TECHNICAL = ("Using the URLconf defined in", "Django tried these URL patterns", "Traceback")


def test_run_sh_serves_static_files_and_the_portal_s_translated_404(embedded_server):
    """With DEBUG on, run.sh answered every unknown address with Django's technical page in
    English, listing all URL patterns (found by a trust review): now the portal's own page."""
    assert requests.get(f"{embedded_server}/static/portal/portal.css", timeout=10).ok
    assert requests.get(f"{embedded_server}/static/plotly/plotly.min.js", timeout=10).ok
    session = requests.Session()
    login = f"{embedded_server}/accounts/login/"
    session.get(login, timeout=10)
    signed_in = session.post(
        login,
        {
            "username": "viewer",
            "password": "view-gpus-2026",
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
        },
        timeout=10,
    )
    assert signed_in.ok and "sessionid" in session.cookies
    for path in ("/evaluations/3/", "/no-such-page/"):
        english = session.get(f"{embedded_server}{path}", timeout=10)
        assert english.status_code == 404
        assert "This page does not exist, or is not shared with you" in english.text
        chinese = session.get(
            f"{embedded_server}{path}", headers={"Accept-Language": "zh-hans"}, timeout=10
        )
        assert chinese.status_code == 404
        assert "此页面不存在，或未与你共享" in chinese.text
        for page in (english.text, chinese.text):
            assert not any(marker in page for marker in TECHNICAL)


def _signed_in(url: str, username: str, password: str) -> requests.Session:
    session = requests.Session()
    login = f"{url}/accounts/login/"
    session.get(login, timeout=10)
    signed_in = session.post(
        login,
        {
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
        },
        timeout=10,
    )
    assert signed_in.ok and "sessionid" in session.cookies
    return session


def test_a_maximum_evidence_age_keeps_every_embedded_page_up(embedded, embedded_server):
    """On SQLite a JSON null reads as the text "null": with a maximum evidence age set, every
    page of an evaluation with a candidate verified on undated evidence answered 500 in the
    embedded mode (found by an attacker's probe; the suite's PostgreSQL reads NULL)."""
    tmp_path, _env = embedded
    with closing(sqlite3.connect(tmp_path / "db.sqlite3")) as db:
        undated = db.execute(
            "SELECT count(*) FROM portal_candidate"
            " WHERE json_type(verification, '$.evidence_oldest_at') = 'null'"
        ).fetchone()[0]
        db.execute("UPDATE portal_evaluation SET max_evidence_age_days = 30")
        db.commit()
        ids = [row[0] for row in db.execute("SELECT id FROM portal_evaluation ORDER BY id")]
    assert undated, "the demo has a candidate verified on undated evidence"
    session = _signed_in(embedded_server, "manager", "decide-gpus-2026")
    shown = 0
    for evaluation_id in ids:
        for path in ("", "report/", "export.csv"):
            page = session.get(f"{embedded_server}/evaluations/{evaluation_id}/{path}", timeout=30)
            assert page.status_code in (200, 404), (evaluation_id, path, page.status_code)
            shown += page.status_code == 200
        ranking = session.get(
            f"{embedded_server}/api/v1/evaluations/{evaluation_id}/ranking/", timeout=30
        )
        assert ranking.status_code in (200, 404), (evaluation_id, ranking.status_code)
    assert shown >= 3  # the manager's evaluations were read, not only refused
