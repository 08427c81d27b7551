"""Fault harness: the production stack on loopback, loaded and broken on purpose.

Run from the repository root: ``.venv/bin/python bench/soak.py`` (full run, about 10 minutes on
two cores) or ``--short`` (about a minute; tests/portal/test_hardening_soak.py runs it).

It starts, from this repository and the way docker-compose.yml does: a private PostgreSQL
cluster (initdb in a temporary directory, its own port), a private redis-server (its own port),
``migrate`` + ``collectstatic`` + ``setup_demo``, gunicorn (3 sync workers) behind Debian's nginx
(deploy/nginx/portal.conf), a Celery worker and Celery beat. The shared services on 5432/6379
are never touched. Then it runs five phases, each uploading distinct collector bundles (the
real tool outputs in bench/samples/, the manifest's hostname varied) from many clients while
readers load the dashboard page and the ranking API:

1. baseline     -- nothing breaks;
2. worker-kill  -- the Celery worker is SIGKILLed mid-import and started again;
3. redis-down   -- Redis is stopped (15 s) and started again, empty (no persistence);
4. pg-restart   -- PostgreSQL is shut down (fast) and started again;
5. slow-clients -- 10 clients send uploads at 1 byte/s beside a trickle of ordinary uploads;
                   /healthz/ is probed throughout (p95 must stay under 1 s).

An upload answered 202 is "accepted"; clients retry 503 answers and dropped connections like
the collector does. At the end every accepted upload must be imported exactly once: "lost" is
accepted but not finished (or finished without its measurements) by the deadline, "duplicated"
holds more measurements than one import of its bundle writes; and every candidate must then be
verified and scored after its last import, with no refresh pending. Any 5xx counts, except a 503
while PostgreSQL is down (and a few seconds after it is back). Exit status: 0 all good, 1 a
lost or duplicated upload, a 5xx, a slow /healthz/ or a candidate left unrefreshed after its
last import (a lost refresh), 2 the stack could not be started.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import queue
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from bench.evidence import make_bundle  # noqa: E402
from deploy import stack  # noqa: E402

PASSWORD = "procure-gpus-2026"  # setup_demo's procurement login
GRACE_AFTER_PG_S = 5.0  # 503s this long after PostgreSQL answers again are still allowed


@dataclass
class Profile:
    bundles: int  # per upload phase, spread evenly over the phase's duration
    duration_s: float  # of a phase without a longer fault
    clients: int
    readers: int
    redis_down_s: float
    slow_clients: int
    slow_s: float
    finish_timeout_s: float
    env: dict[str, str] = field(default_factory=dict)


FULL = Profile(
    bundles=300, duration_s=40, clients=16, readers=4, redis_down_s=15, slow_clients=10, slow_s=45,
    finish_timeout_s=300,
)  # fmt: skip
# Short: fewer bundles and shorter outages; the killed-worker budget shrinks with the limits
# (same ratios as the defaults: soft < hard < lease = visibility timeout).
SHORT = Profile(
    bundles=20, duration_s=5, clients=4, readers=2, redis_down_s=4, slow_clients=10, slow_s=6,
    finish_timeout_s=150,  # an import retried through the PostgreSQL restart backs off
    env={
        "CELERY_TASK_SOFT_TIME_LIMIT": "15",
        "CELERY_TASK_TIME_LIMIT": "20",
        "EVIDENCE_IMPORT_LEASE_S": "25",
        "EVIDENCE_SWEEP_INTERVAL_S": "3",
        "EVIDENCE_SWEEP_QUEUED_FOR_S": "8",
        "WORKER_HEARTBEAT_INTERVAL_S": "5",
    },
)  # fmt: skip


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


# ------------------------------------------------------------------------------- the stack


class Stack:
    """Every process of the stack, in a temporary directory; stopped and removed at the end."""

    def __init__(self, profile: Profile, keep: bool):
        self.profile = profile
        self.keep = keep
        self.dir = Path(tempfile.mkdtemp(prefix="gpuportal-soak-"))
        os.chmod(self.dir, 0o755)  # noqa: S103 - postgres and nginx's workers read below
        self.logs = self.dir / "logs"
        self.ports = {
            name: stack.free_port() for name in ("postgres", "redis", "gunicorn", "nginx")
        }
        self.services: dict[str, stack.Service] = {}
        self.pg_data: Path | None = None
        self.base = f"http://127.0.0.1:{self.ports['nginx']}"
        redis_url = f"redis://127.0.0.1:{self.ports['redis']}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "portal.settings",
            "DEBUG": "0",
            "SECRET_KEY": "soak-only-" + "k" * 50,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{self.ports['postgres']}/portal",
            "CONN_MAX_AGE": "60",
            "CELERY_BROKER_URL": f"{redis_url}/0",
            "CACHE_URL": f"{redis_url}/1",
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "SECURE_SSL_REDIRECT": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "SECURE_HSTS_SECONDS": "0",
            "STATIC_ROOT": str(self.dir / "static"),
            "MEDIA_ROOT": str(self.dir / "media"),
            "TRUSTED_PROXY_IP_HEADER": "X-Real-IP",
            "LOG_LEVEL": "WARNING",
            **profile.env,
        }
        for name in ("GPUPORTAL_TEST_RUN", "PROMETHEUS_MULTIPROC_DIR"):
            self.env.pop(name, None)
        # As compose's `restart: unless-stopped`: a worker or beat that exits on its own is
        # started again (and counted), except while a phase holds it down on purpose.
        self.restarts: dict[str, int] = {}
        self.held: set[str] = set()
        self._supervising = threading.Event()

    # -- processes
    def _start(self, service: stack.Service) -> stack.Service:
        self.services[service.name] = service.start()
        return service

    def start_postgres(self) -> None:
        self._start(stack.postgres_server(self.pg_data, self.ports["postgres"]))
        stack.wait_for(
            lambda: stack.pg_ready(self.ports["postgres"]), timeout=60, what="PostgreSQL"
        )

    def stop_postgres(self) -> None:
        # A fast shutdown (SIGINT): sessions are cut, as in a restart by an operator.
        service = self.services["postgres"]
        service.signal(signal.SIGINT)
        service.process.wait(60)

    def start_redis(self) -> None:
        self._start(stack.redis_server(self.ports["redis"], self.dir))

        def ping() -> bool:
            import redis

            return redis.Redis(port=self.ports["redis"], socket_timeout=1).ping()

        stack.wait_for(ping, timeout=30, what="Redis")

    def start_worker(self) -> None:
        self._start(stack.celery_worker(self.env, self.logs / "worker.log"))

    def start_beat(self) -> None:
        self._start(stack.celery_beat(self.env, self.logs / "beat.log", self.dir / "beat-schedule"))

    def _supervise(self) -> None:
        starters = {"worker": self.start_worker, "beat": self.start_beat}
        while not self._supervising.wait(1.0):
            for name, start in starters.items():
                service = self.services.get(name)
                if service is None or service.running or name in self.held:
                    continue
                self.restarts[name] = self.restarts.get(name, 0) + 1
                print(f"soak: {name} exited by itself; restarted (as compose would)", flush=True)
                try:
                    start()
                except Exception as exc:  # keep supervising; the next round tries again
                    print(f"soak: restarting {name} failed: {exc}", flush=True)

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr[-2000:]}")
        return result.stdout

    def start(self) -> None:
        self.pg_data = stack.postgres_init(self.dir / "pg")
        self.start_postgres()
        subprocess.run(
            [stack._pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.ports["postgres"]),
             "-U", "postgres", "portal"],
            check=True,
        )  # fmt: skip
        self.start_redis()
        self.manage("migrate", "--noinput", "-v0")
        self.manage("collectstatic", "--noinput", "-v0")
        self.manage("setup_demo")
        self._start(stack.gunicorn(self.ports["gunicorn"], self.env, self.logs / "gunicorn.log"))
        conf = stack.render_nginx(
            self.dir / "nginx",
            listen=self.ports["nginx"],
            upstream=f"127.0.0.1:{self.ports['gunicorn']}",
            static_root=self.dir / "static",
        )
        self._start(stack.nginx(conf, self.logs / "nginx.log"))
        self.start_worker()
        self.start_beat()
        threading.Thread(target=self._supervise, name="supervisor", daemon=True).start()
        # gunicorn's workers import Django and the portal: slow on a loaded 2-core machine.
        stack.wait_for(
            lambda: stack.http_ok(self.base + "/healthz/"), timeout=180, what="the portal"
        )

    def stop(self) -> None:
        self._supervising.set()
        for name in ("nginx", "gunicorn", "beat", "worker", "redis", "postgres"):
            service = self.services.get(name)
            if service is not None:
                service.stop()
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)

    def query(self, sql: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.ports["postgres"], user="postgres", dbname="portal"
        ) as connection:
            return connection.execute(sql).fetchall()


# ---------------------------------------------------------------------------- the clients


@dataclass
class PhaseStats:
    name: str
    accepted: set[int] = field(default_factory=set)
    upload_latency: list[float] = field(default_factory=list)
    read_latency: list[float] = field(default_factory=list)
    health_latency: list[float] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    allowed_503: int = 0
    refused: int = 0  # gave up after retries (not accepted: the client knows)
    fault_from: float | None = None
    fault_to: float | None = None
    accepted_during_fault: int = 0
    fault_note: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def in_fault(self) -> bool:
        now = time.monotonic()
        return (
            self.fault_from is not None
            and self.fault_from <= now
            and (self.fault_to is None or now <= self.fault_to)
        )


class PgWindow:
    """When PostgreSQL is (or just was) down: 503 answers are allowed then."""

    def __init__(self):
        self.down_since: float | None = None
        self.up_at: float | None = None

    def allows_503(self) -> bool:
        now = time.monotonic()
        if self.down_since is None or now < self.down_since:
            return False
        return self.up_at is None or now <= self.up_at + GRACE_AFTER_PG_S


class Load:
    def __init__(self, stack_: Stack, tokens: list[tuple[str, str | None]], evaluation: int):
        self.stack = stack_
        self.tokens = tokens
        self.evaluation = evaluation
        self.pg = PgWindow()
        self.counter = itertools.count()

    def _record(self, stats: PhaseStats, response_status: int, what: str) -> None:
        if response_status < 500:
            return
        with stats.lock:
            if response_status == 503 and self.pg.allows_503():
                stats.allowed_503 += 1
            else:
                stats.server_errors.append(f"{response_status} {what}")

    def upload(self, stats: PhaseStats, client: int, bundle_no: int) -> None:
        raw, nonce = self.tokens[client % len(self.tokens)]
        data = make_bundle(f"soak-{stats.name}-{bundle_no}", nonce)
        headers = {"Authorization": f"Bearer {raw}"}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            started = time.monotonic()
            try:
                response = requests.post(
                    self.stack.base + "/api/v1/evidence/",
                    headers=headers,
                    files={"file": (f"node-{bundle_no}.tar.gz", data)},
                    timeout=60,
                )
            except requests.RequestException:
                time.sleep(0.5)  # nginx or gunicorn restarting: retry like the collector
                continue
            with stats.lock:
                stats.upload_latency.append(time.monotonic() - started)
            self._record(stats, response.status_code, "POST /api/v1/evidence/")
            if response.status_code in (200, 202):
                with stats.lock:
                    stats.accepted.add(response.json()["id"])
                    if stats.in_fault():
                        stats.accepted_during_fault += 1
                return
            if response.status_code in (429, 503):
                time.sleep(float(response.headers.get("Retry-After", "1")) / 2)
                continue
            if response.status_code >= 500:
                time.sleep(0.5)
                continue
            raise RuntimeError(f"upload refused: {response.status_code} {response.text[:300]}")
        with stats.lock:
            stats.refused += 1

    def reader(self, stats: PhaseStats, stop: threading.Event, api_token: str) -> None:
        session = requests.Session()
        logged_in = False
        urls = [
            f"/evaluations/{self.evaluation}/",
            f"/api/v1/evaluations/{self.evaluation}/ranking/",
        ]
        for url in itertools.cycle(urls):
            if stop.is_set():
                return
            started = time.monotonic()
            try:
                if not logged_in and url.startswith("/evaluations/"):
                    logged_in = self._login(session)
                    if not logged_in:
                        time.sleep(0.5)
                        continue
                headers = {"Authorization": f"Token {api_token}"} if "/api/" in url else {}
                response = session.get(self.stack.base + url, headers=headers, timeout=30)
            except requests.RequestException:
                time.sleep(0.5)
                continue
            with stats.lock:
                stats.read_latency.append(time.monotonic() - started)
            self._record(stats, response.status_code, f"GET {url}")
            if response.status_code == 200 and "/accounts/login/" in response.url:
                logged_in = False
            time.sleep(0.1)

    def _login(self, session: requests.Session) -> bool:
        page = session.get(self.stack.base + "/accounts/login/", timeout=30)
        if page.status_code != 200:
            return False
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        response = session.post(
            self.stack.base + "/accounts/login/",
            data={
                "username": "procurement",
                "password": PASSWORD,
                "csrfmiddlewaretoken": token.group(1) if token else "",
            },
            headers={"Referer": self.stack.base + "/accounts/login/"},
            timeout=30,
            allow_redirects=False,
        )
        return response.status_code == 302

    def prober(self, stats: PhaseStats, stop: threading.Event) -> None:
        while not stop.is_set():
            started = time.monotonic()
            try:
                response = requests.get(self.stack.base + "/healthz/", timeout=30)
                status = response.status_code
            except requests.RequestException:
                status = 599
            with stats.lock:
                stats.health_latency.append(time.monotonic() - started)
            self._record(stats, status, "GET /healthz/")
            time.sleep(0.2)

    def slow_client(self, stop: threading.Event, sent: list[int]) -> None:
        raw, _nonce = self.tokens[0]
        body = make_bundle(f"slow-{next(self.counter)}", None)
        head = (
            f"POST /api/v1/evidence/ HTTP/1.1\r\nHost: localhost\r\n"
            f"Authorization: Bearer {raw}\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        try:
            with socket.create_connection(("127.0.0.1", self.stack.ports["nginx"])) as sock:
                sock.sendall(head)
                for byte in body:
                    if stop.is_set():
                        return
                    sock.sendall(bytes([byte]))
                    sent.append(1)
                    stop.wait(1.0)
        except OSError:
            return  # nginx dropped it (client_body_timeout)


def run_phase(
    load: Load,
    profile: Profile,
    name: str,
    api_token: str,
    fault=None,
    slow: bool = False,
    duration_s: float | None = None,
) -> PhaseStats:
    """Upload ``profile.bundles`` bundles spread evenly over the phase (so that they arrive
    before, during and after the fault) while readers and the /healthz/ prober run."""
    stats = PhaseStats(name)
    stop = threading.Event()
    duration = duration_s or profile.duration_s
    work: queue.Queue[int] = queue.Queue()
    for number in range(profile.bundles):
        work.put(number)
    started = time.monotonic()

    def uploader(client: int) -> None:
        while True:
            try:
                number = work.get_nowait()
            except queue.Empty:
                return
            due = started + number * duration / profile.bundles
            time.sleep(max(0.0, due - time.monotonic()))
            load.upload(stats, client, number)

    background = [
        threading.Thread(target=load.reader, args=(stats, stop, api_token), daemon=True)
        for _ in range(profile.readers)
    ]
    background.append(threading.Thread(target=load.prober, args=(stats, stop), daemon=True))
    sent: list[int] = []
    if slow:
        background += [
            threading.Thread(target=load.slow_client, args=(stop, sent), daemon=True)
            for _ in range(profile.slow_clients)
        ]
    for thread in background:
        thread.start()
    fault_thread = threading.Thread(target=fault, args=(stats,), daemon=True) if fault else None
    if fault_thread:
        fault_thread.start()
    uploaders = [
        threading.Thread(target=uploader, args=(client,), daemon=True)
        for client in range(profile.clients)
    ]
    for thread in uploaders:
        thread.start()
    for thread in uploaders:
        thread.join()
    if fault_thread:
        fault_thread.join()
    stop.set()
    for thread in background:
        thread.join(timeout=35)
    print(
        f"  {name}: {len(stats.accepted)} accepted in {time.monotonic() - started:.1f} s"
        + (f", {stats.accepted_during_fault} while {stats.fault_note}" if fault else "")
        + (f", slow clients sent {len(sent)} bytes" if slow else ""),
        flush=True,
    )
    return stats


# ------------------------------------------------------------------------------- the run


def setup_clients(st: Stack, clients: int) -> tuple[str, int, list[tuple[str, str | None]]]:
    api_token = st.manage("api_token_create", "procurement").strip().splitlines()[-1]
    auth = {"Authorization": f"Token {api_token}"}
    evaluations = requests.get(st.base + "/api/v1/evaluations/", headers=auth, timeout=30)
    evaluation = evaluations.json()["results"][0]["id"]
    candidates = requests.get(
        f"{st.base}/api/v1/evaluations/{evaluation}/candidates/", headers=auth, timeout=30
    ).json()["results"]
    tokens = []
    for client in range(clients):
        candidate = candidates[client % len(candidates)]["id"]
        created = requests.post(
            f"{st.base}/api/v1/evaluations/{evaluation}/upload-tokens/",
            headers=auth,
            json={"candidate": candidate, "label": f"soak client {client}"},
            timeout=30,
        )
        created.raise_for_status()
        tokens.append((created.json()["token"], created.json().get("nonce")))
    return api_token, evaluation, tokens


def outcome(st: Stack, phases: list[PhaseStats], timeout_s: float) -> dict[int, str]:
    """Wait for every accepted upload to finish; returns upload id -> status."""
    accepted = set().union(*(phase.accepted for phase in phases))
    deadline = time.monotonic() + timeout_s
    statuses: dict[int, str] = {}
    while time.monotonic() < deadline:
        try:
            statuses = dict(st.query("SELECT id, status FROM portal_evidenceupload"))
        except Exception as exc:
            print(f"  waiting for the database: {exc}", flush=True)
            time.sleep(1)
            continue
        pending = [i for i in accepted if statuses.get(i) not in ("done", "failed")]
        if not pending:
            break
        time.sleep(1)
    return statuses


# A refresh lost with a killed worker is run by the beat sweeper once it is 30 s overdue
# (portal.services.scores.REFRESH_OVERDUE_S), at its next run (EVIDENCE_SWEEP_INTERVAL_S).
REFRESH_TIMEOUT_S = 90

STALE_CANDIDATES = (
    "SELECT c.id FROM portal_candidate c"
    " JOIN portal_evaluation e ON e.id = c.evaluation_id AND e.status <> 'decided'"
    " JOIN portal_evidenceupload u ON u.candidate_id = c.id AND u.status = 'done'"
    " GROUP BY c.id, c.scored_at"
    " HAVING c.scored_at IS NULL OR c.scored_at < max(u.finished_at)"
    " OR EXISTS (SELECT 1 FROM portal_pendingrefresh p WHERE p.candidate_id = c.id)"
)


def stale_after(st: Stack, timeout_s: float) -> list[int]:
    """Wait until every candidate with imported uploads (of an undecided evaluation) has no
    refresh pending and was verified and scored after its last import; returns those that
    were not by the deadline (a refresh lost)."""
    deadline = time.monotonic() + timeout_s
    stale: list[int] = []
    while time.monotonic() < deadline:
        try:
            stale = [row[0] for row in st.query(STALE_CANDIDATES)]
        except Exception as exc:
            print(f"  waiting for the database: {exc}", flush=True)
            time.sleep(1)
            continue
        if not stale:
            return []
        time.sleep(1)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="the ~1 minute run of the tests")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    profile = SHORT if args.short else FULL
    if stack.nginx_binary() is None:
        print("nginx is not installed (scripts/lib.sh: ensure_nginx)", file=sys.stderr)
        return 2
    st = Stack(profile, keep=args.keep)
    print(f"soak: stack in {st.dir} (ports {st.ports})", flush=True)
    try:
        try:
            st.start()
            api_token, evaluation, tokens = setup_clients(st, profile.clients)
        except Exception as exc:
            print(f"soak: the stack did not start: {exc}", file=sys.stderr)
            for log in sorted(st.logs.glob("*.log")):
                print(f"--- {log.name}\n{log.read_text()[-1500:]}", file=sys.stderr)
            return 2
        load = Load(st, tokens, evaluation)
        phases = [run_phase(load, profile, "baseline", api_token)]

        def kill_worker(stats: PhaseStats) -> None:
            # SIGKILL the worker while it holds imports (status processing), then restart it.
            time.sleep(profile.duration_s / 4)  # into this phase's own imports
            deadline = time.monotonic() + profile.duration_s
            held = 0
            while time.monotonic() < deadline and not held:
                held = st.query(
                    "SELECT count(*) FROM portal_evidenceupload WHERE status = 'processing'"
                )[0][0]
                time.sleep(0.02)
            stats.fault_from = time.monotonic()
            st.held.add("worker")
            st.services["worker"].kill()
            stats.fault_note = f"the worker was down (killed holding {held} imports)"
            time.sleep(2.0)
            st.start_worker()
            st.held.discard("worker")
            stats.fault_to = time.monotonic()

        phases.append(run_phase(load, profile, "worker-kill", api_token, fault=kill_worker))

        def stop_redis(stats: PhaseStats) -> None:
            time.sleep(2.0)
            stats.fault_from = time.monotonic()
            st.services["redis"].stop()
            stats.fault_note = "Redis was down"
            time.sleep(profile.redis_down_s)
            st.start_redis()
            stats.fault_to = time.monotonic()

        phases.append(
            run_phase(
                load,
                profile,
                "redis-down",
                api_token,
                fault=stop_redis,
                duration_s=profile.redis_down_s + 6,
            )
        )

        def restart_postgres(stats: PhaseStats) -> None:
            time.sleep(2.0)
            stats.fault_from = load.pg.down_since = time.monotonic()
            st.stop_postgres()
            stats.fault_note = "PostgreSQL was down"
            time.sleep(3.0)
            st.start_postgres()
            stats.fault_to = load.pg.up_at = time.monotonic()

        phases.append(run_phase(load, profile, "pg-restart", api_token, fault=restart_postgres))
        # The slow clients with /healthz/ probed and a trickle of ordinary uploads (a tenth of
        # a phase's bundles, 2 clients), no readers: what is measured is whether 1-byte/s
        # senders take gunicorn's workers, not how busy the machine is.
        trickle = Profile(**{**profile.__dict__, "bundles": max(4, profile.bundles // 10)})
        trickle.clients, trickle.readers = 2, 0
        phases.append(
            run_phase(
                load, trickle, "slow-clients", api_token, slow=True, duration_s=profile.slow_s
            )
        )

        print("soak: waiting for the imports", flush=True)
        statuses = outcome(st, phases, profile.finish_timeout_s)
        counts = dict(
            st.query(
                "SELECT u.id, count(m.id) FROM portal_evidenceupload u "
                "LEFT JOIN portal_measurement m ON m.upload_id = u.id GROUP BY u.id"
            )
        )
        done_counts = [counts[i] for i, s in statuses.items() if s == "done" and counts.get(i)]
        expected = statistics.mode(done_counts) if done_counts else 0
        print("soak: waiting for the candidates' refreshes", flush=True)
        stale = stale_after(st, REFRESH_TIMEOUT_S)
        return report(phases, statuses, counts, expected, args.json, st.restarts, stale)
    finally:
        st.stop()


def report(phases, statuses, counts, expected, json_path, restarts=None, stale=()) -> int:
    rows, failed = [], False
    header = (
        f"{'phase':<13}{'accepted':>9}{'imported':>9}{'lost':>6}{'dup':>5}{'5xx':>5}"
        f"{'503 ok':>7}{'up p50':>8}{'up p95':>8}{'read p95':>9}{'healthz p95':>12}"
    )
    print(header)
    for phase in phases:
        imported = [i for i in phase.accepted if statuses.get(i) in ("done", "failed")]
        once = [i for i in imported if statuses[i] == "failed" or counts.get(i, 0) == expected]
        duplicated = [i for i in imported if statuses[i] == "done" and counts.get(i, 0) > expected]
        lost = [
            i
            for i in phase.accepted
            if statuses.get(i) not in ("done", "failed")
            or (statuses[i] == "done" and counts.get(i, 0) < expected)
        ]
        row = {
            "phase": phase.name,
            "accepted": len(phase.accepted),
            "imported_once": len(once),
            "lost": len(lost),
            "duplicated": len(duplicated),
            "5xx": len(phase.server_errors),
            "503_while_pg_down": phase.allowed_503,
            "upload_p50_s": round(pct(phase.upload_latency, 50), 3),
            "upload_p95_s": round(pct(phase.upload_latency, 95), 3),
            "read_p95_s": round(pct(phase.read_latency, 95), 3),
            "healthz_p95_s": round(pct(phase.health_latency, 95), 3),
            "errors": phase.server_errors[:5],
            "gave_up": phase.refused,
        }
        rows.append(row)
        print(
            f"{row['phase']:<13}{row['accepted']:>9}{row['imported_once']:>9}{row['lost']:>6}"
            f"{row['duplicated']:>5}{row['5xx']:>5}{row['503_while_pg_down']:>7}"
            f"{row['upload_p50_s']:>8.2f}{row['upload_p95_s']:>8.2f}{row['read_p95_s']:>9.2f}"
            f"{row['healthz_p95_s']:>12.2f}"
        )
        if row["lost"] or row["duplicated"] or row["5xx"] or phase.refused:
            failed = True
            if lost:
                states = {i: (statuses.get(i), counts.get(i, 0)) for i in sorted(lost)[:10]}
                print(f"  {phase.name} lost (id: status, measurements): {states}")
            if row["errors"]:
                print(f"  {phase.name} 5xx: {row['errors']}")
        if phase.name == "slow-clients" and row["healthz_p95_s"] >= 1.0:
            failed = True
            print("  /healthz/ p95 is 1 s or more under slow clients")
    restarts = dict(restarts or {})
    if restarts:
        # kombu's Redis transport can end the worker when the broker goes away while it holds
        # unacknowledged messages; compose restarts it and the sweeper sends what it held.
        print("restarted by the supervisor: " + ", ".join(f"{k} x{v}" for k, v in restarts.items()))
    if stale:
        failed = True
        print(f"  candidates not refreshed after their last import (a refresh lost): {stale}")
    else:
        print("every candidate verified and scored after its last import")
    print(f"measurements per bundle: {expected}; result: {'FAIL' if failed else 'OK'}")
    if json_path:
        json_path.write_text(
            json.dumps(
                {"phases": rows, "restarts": restarts, "stale": list(stale), "ok": not failed},
                indent=1,
            )
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
