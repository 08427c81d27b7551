"""What a probe reads while PostgreSQL is down: /healthz/ (liveness: the process answers) is a
200 JSON that needs no database; /readyz/ is a 503 JSON naming the database. Neither is ever
the portal's HTML error page, whatever the probe sends: no cookie, a browser's Accept, the
session cookie of a signed-in staff member, or a Host the portal does not serve (an
orchestrator probes the container's own address). Served by gunicorn on a private PostgreSQL
and Redis, stopped and started here."""

import json
import time
import urllib.error
import urllib.request

from deploy import stack

from .conftest import manage

STAFF_SESSION = """
from importlib import import_module

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth import get_user_model

user = get_user_model().objects.create_user("ops", password="a-long-ops-password-1", is_staff=True)
session = import_module(settings.SESSION_ENGINE).SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.create()
print(settings.SESSION_COOKIE_NAME + "=" + session.session_key)
"""

# What the probes send: nothing special; a browser's Accept; a staff member's session (read
# from the database by every page); a Host outside ALLOWED_HOSTS.
PROBES = {
    "plain": {},
    "browser": {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"},
    "signed-in staff": {},  # the cookie is added once created
    "container address": {"Host": "10.1.2.3:8000"},
}


def _get(port: int, path: str, *, method: str = "GET", **headers: str):
    """(status, content type, body text, seconds)."""
    started = time.monotonic()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", headers=headers, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, ctype, body = response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        status, ctype, body = error.code, error.headers, error.read().decode()
    return status, ctype.get("Content-Type", ""), body, time.monotonic() - started


def test_the_probes_answer_json_while_the_database_is_down(private_stack, tmp_path):
    private_stack.createdb("probes")
    env = private_stack.env("probes", ALLOWED_HOSTS="127.0.0.1,localhost")
    manage(env, "migrate", "--noinput")
    cookie = manage(env, "shell", "-c", STAFF_SESSION).stdout.strip().splitlines()[-1]
    probes = {**PROBES, "signed-in staff": {"Cookie": cookie}}
    port, log = stack.free_port(), tmp_path / "gunicorn.log"
    web = stack.gunicorn(port, env, log, workers=2).start()
    try:
        stack.wait_for(lambda: _get(port, "/healthz/")[0] == 200, timeout=60, what="gunicorn")
        # Up: the staff session is read (the probe is not anonymous to /readyz/).
        status, ctype, body, _ = _get(port, "/readyz/?require=database", Cookie=cookie)
        assert (status, ctype) == (200, "application/json")
        assert json.loads(body)["database"] == {
            "ok": True,
            "ms": json.loads(body)["database"]["ms"],
        }

        private_stack.postgres.stop(timeout=30)
        assert not stack.pg_ready(private_stack.pg_port)
        for name, headers in probes.items():
            status, ctype, body, elapsed = _get(port, "/healthz/", **headers)
            assert (status, ctype) == (200, "application/json"), (name, body[:300])
            assert json.loads(body)["status"] == "ok", name
            assert set(json.loads(body)) == {"status", "time"}, name
            assert elapsed < 1, (name, elapsed)

            status, ctype, body, elapsed = _get(port, "/readyz/", **headers)
            assert (status, ctype) == (503, "application/json"), (name, body[:300])
            report = json.loads(body)
            assert report["status"] == "unavailable", name
            # Nobody can be known as staff without the database: the address stays hidden.
            assert report["database"]["ok"] is False, name
            assert report["database"]["error"] == "unavailable", name
            assert "127.0.0.1" not in body, name
            assert elapsed < 6, (name, elapsed)  # compose's health check gives it 6 s

        status, ctype, body, _ = _get(port, "/healthz/", method="HEAD")
        assert (status, ctype, body) == (200, "application/json", "")
        assert _get(port, "/healthz/", method="POST")[0] == 405

        # A page (which reads the session) still gets the short HTML outage page: only the
        # probes skip it.
        status, ctype, body, _ = _get(port, "/", Cookie=cookie)
        assert status == 503 and ctype.startswith("text/html")
        assert "The database is unavailable" in body
        assert "database unavailable on /" in log.read_text(errors="replace")
        assert "database unavailable on /healthz/" not in log.read_text(errors="replace")

        private_stack.start_postgres()
        stack.wait_for(
            lambda: _get(port, "/readyz/?require=database")[0] == 200, timeout=30, what="recovery"
        )
        assert _get(port, "/", Cookie=cookie)[0] == 200
    finally:
        web.stop()
        if not private_stack.postgres.running:
            private_stack.start_postgres()
