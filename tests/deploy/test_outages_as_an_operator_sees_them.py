"""What an operator reads when a dependency goes away: /healthz/ and /readyz/ of a gunicorn on a
private PostgreSQL and Redis, with no worker, with a worker but no beat, Redis stopped,
PostgreSQL stopped and both stopped, and the log lines to grep for each."""

import json
import time
import urllib.error
import urllib.request

from deploy import stack

from .conftest import manage


def _get(port: int, path: str, **headers: str) -> tuple[int, dict | str, float]:
    started = time.monotonic()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, body = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read().decode()
    elapsed = time.monotonic() - started
    try:
        return status, json.loads(body), elapsed
    except ValueError:
        return status, body, elapsed


def _log_since(log, offset: int) -> str:
    return log.read_bytes()[offset:].decode(errors="replace")


def test_each_lost_dependency_is_named_in_readyz_and_in_the_log(private_stack, tmp_path):
    private_stack.createdb("outages")
    env = private_stack.env("outages", ALLOWED_HOSTS="127.0.0.1,localhost")
    manage(env, "migrate", "--noinput")
    port, log = stack.free_port(), tmp_path / "gunicorn.log"
    web = stack.gunicorn(port, env, log, workers=2).start()
    worker = stack.celery_worker(env, tmp_path / "worker.log", concurrency=1)
    try:
        stack.wait_for(lambda: _get(port, "/healthz/")[0] == 200, timeout=60, what="gunicorn")

        # No worker and no beat (never started): the worker is down, beat's state unknown.
        offset = log.stat().st_size
        status, body, _ = _get(port, "/readyz/")
        assert status == 503
        assert body["worker"]["ok"] is False and body["worker"]["answered_ping"] == 0
        assert "no worker is running" in body["worker"]["detail"]
        assert body["beat"]["ok"] is False and "none answers" in body["beat"]["detail"]
        assert (body["database"]["ok"], body["redis"]["ok"]) == (True, True)
        assert "readyz unavailable: worker: no worker answered a ping" in _log_since(log, offset)
        assert _get(port, "/healthz/")[0] == 200

        # A worker but no beat: the worker is ready, beat is named as the one not running.
        worker.start()
        stack.wait_for(
            lambda: _get(port, "/readyz/?require=worker")[0] == 200, timeout=90, what="worker"
        )
        status, body, _ = _get(port, "/readyz/")
        assert status == 503
        assert body["worker"]["answered_ping"] == 1 and "see beat" in body["worker"]["detail"]
        assert body["beat"]["detail"] == "no heartbeat while a worker answers: beat is not running"
        worker.stop()

        # Redis stopped: named (without its address) and the worker unknown, not "0 answered".
        private_stack.redis.stop()
        offset = log.stat().st_size
        status, body, elapsed = _get(port, "/readyz/")
        assert status == 503
        assert body["redis"] == {"ok": False, "error": "unavailable", "ms": body["redis"]["ms"]}
        assert body["worker"]["answered_ping"] is None
        assert body["worker"]["detail"].startswith("unknown: the broker (Redis) does not answer")
        assert body["database"]["ok"] is True
        assert elapsed < 6, "compose's health check gives /readyz/ 6 s"
        logged = _log_since(log, offset)
        assert "readiness check redis failed: ConnectionError: broker:" in logged
        assert "readyz unavailable: redis: ConnectionError" in logged
        assert _get(port, "/healthz/")[0] == 200  # liveness needs neither

        # PostgreSQL stopped too: everything that reads it says so; answered in time.
        private_stack.postgres.stop(timeout=30)
        offset = log.stat().st_size
        status, body, elapsed = _get(port, "/readyz/")
        assert status == 503 and elapsed < 6
        assert body["database"]["error"] == "unavailable"
        for name in ("worker", "beat", "imports"):
            assert body[name]["detail"] == "unknown: the database is unavailable (see database)"
        # Liveness needs no database (test_health_probes_during_outage.py: every probe).
        status, body, _ = _get(port, "/healthz/")
        assert status == 200 and body["status"] == "ok"
        logged = _log_since(log, offset)
        assert "readiness check database failed: OperationalError" in logged

        # Redis back, PostgreSQL still down; then PostgreSQL back: recovered, no restart.
        private_stack.start_redis()
        status, body, _ = _get(port, "/readyz/?require=redis")
        assert status == 200 and body["database"]["ok"] is False
        private_stack.start_postgres()
        stack.wait_for(
            lambda: _get(port, "/readyz/?require=database,redis")[0] == 200,
            timeout=30,
            what="recovery",
        )
        assert _get(port, "/healthz/")[0] == 200
    finally:
        worker.stop()
        web.stop()


def test_readyz_answers_in_time_when_the_database_does_not_answer(private_stack, tmp_path):
    """A database host that takes connections and never answers (a partition, a hung server):
    each read waits DATABASE_CONNECT_TIMEOUT (3 s); /readyz/ read it four times, 12 s, and
    compose's check (6 s) timed out without a body. It asks once now."""
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)  # the kernel completes connections; nothing ever answers on them
    env = private_stack.env(
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{silent.getsockname()[1]}/portal",
    )
    port = stack.free_port()
    web = stack.gunicorn(port, env, tmp_path / "gunicorn.log", workers=1).start()
    try:
        stack.wait_for(lambda: _get(port, "/healthz/")[0] == 200, timeout=60, what="gunicorn")
        # Liveness reads no database: it does not wait for the silent one.
        assert _get(port, "/healthz/")[2] < 1
        status, body, elapsed = _get(port, "/readyz/")
        assert status == 503
        assert body["database"]["ok"] is False and body["redis"]["ok"] is True
        for name in ("worker", "beat", "imports"):
            assert body[name]["detail"] == "unknown: the database is unavailable (see database)"
        assert elapsed < 6, f"/readyz/ took {elapsed:.1f} s"
    finally:
        web.stop()
        silent.close()
