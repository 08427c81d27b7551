"""Benchmark of the REST API: the live ranking endpoint against a trivial endpoint under gunicorn.

Run: ``python bench/api.py`` (from the repository root, PostgreSQL on 127.0.0.1:5432). It
creates a database of its own (``gpuportal_bench``, dropped at the end), fills it with one
evaluation of 50 candidates with 10 answers each, starts gunicorn on a free loopback port and
sends a bounded number of requests from a few threads to

- ``GET /api/v1/evaluations/<id>/ranking/`` (computed live from the stored facts), and
- ``GET /api/v1/me/`` (the user and their memberships: a trivial authenticated endpoint),

both authenticated with a personal API token, interleaved in rounds so all see the same load.

The ranking is measured twice: cached (the default cache: the answer is read under the
fingerprint of its inputs) and cold, from a second gunicorn whose cache is Django's dummy
cache and whose results table is off (RESULTS_TABLE=0), so every request computes the ranking
from the stored facts (what the first request after any change pays before a worker warms
it). Both are printed with the trivial endpoint's figures as their floor;
the bench exits 1 when the cached ratio is below 0.5 or the cold ratio below 0.05. It also
prints the in-process cost of one ranking computation. Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RATIO_TARGET = 0.5
COLD_RATIO_TARGET = 0.05
CANDIDATES = 50
DEFAULT_ADMIN_URL = "postgres://postgres:postgres@127.0.0.1:5432/postgres"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_env(db_url: str) -> dict[str, str]:
    """Production settings pointed at the bench database, served over plain loopback HTTP."""
    return {
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-secret-key-8d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f",
        "DATABASE_URL": db_url,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
        "STATIC_MANIFEST": "0",
        "CELERY_BROKER_URL": "memory://localhost/",
        "CONN_MAX_AGE": "60",
        "LOG_LEVEL": "WARNING",
        "PYTHONWARNINGS": "ignore:No directory at",
    }


def _admin_execute(admin_url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql)


def create_database(admin_url: str, name: str) -> None:
    _admin_execute(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin_execute(admin_url, f'CREATE DATABASE "{name}"')


def drop_database(admin_url: str, name: str) -> None:
    _admin_execute(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed(candidates: int = CANDIDATES, seed_value: int = 0) -> tuple[int, str]:
    """One evaluation with ``candidates`` candidates of 10 answers each; (evaluation id, token)."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from portal.models import (
        Answer,
        Candidate,
        ChecklistItem,
        Evaluation,
        Membership,
        Offering,
        OfferingPrice,
        Role,
        Vendor,
        VerificationStatus,
    )
    from portal.services.scores import evaluation_rescore

    rng = random.Random(seed_value)
    call_command("loaddata", "checklist", verbosity=0)
    user = get_user_model().objects.create_user("bench")  # token only: no password
    token = Token.objects.create(user=user)
    evaluation = Evaluation.objects.create(
        name="Bench: pre-train on 64 GPUs",
        workload_profile="pretraining",
        required_total_gpus=64,
        required_gpu_memory_gib=80,
        duration_days=30,
        expected_idle_days=2,
        budget_total=Decimal("5000000"),
        min_busbw_fraction=Decimal("0.70"),
    )
    Membership.objects.create(evaluation=evaluation, user=user, role=Role.MANAGER)
    vendors = [Vendor.objects.create(name=f"Bench vendor {i}", mlps_level=i % 4) for i in range(8)]
    items = list(ChecklistItem.objects.order_by("number"))
    statuses = [VerificationStatus.CLAIMED, VerificationStatus.CLAIMED, VerificationStatus.VERIFIED]
    for index in range(candidates):
        fabric = rng.choice(["infiniband", "infiniband", "roce", "ethernet"])
        offering = Offering.objects.create(
            vendor=vendors[index % len(vendors)],
            name=f"Offering {index:02d}",
            delivery_form=rng.choice(["bare_metal", "bare_metal", "passthrough_vm", "vgpu"]),
            gpu_model=rng.choice(["NVIDIA H100 SXM5 80GB", "NVIDIA A100-SXM4-80GB"]),
            gpu_form_factor="sxm",
            gpus_per_node=8,
            gpu_memory_gib=80,
            nvlink_topology=rng.choice(["full_mesh", "grouped"]),
            fabric=fabric,
            fabric_rate_gbit_s=rng.choice([200, 400]),
            nics_per_node=rng.choice([4, 8]),
            nvme_capacity_tib=Decimal("7.68"),
            sla_availability_pct=rng.choice([Decimal("99.5"), Decimal("99.9")]),
            support_24x7=rng.random() < 0.6,
            poc_window_days=rng.choice([0, 7, 14]),
            storage_cost_month=Decimal(rng.randrange(0, 5000)),
        )
        OfferingPrice.objects.bulk_create(
            [
                OfferingPrice(offering=offering, billing_model="hourly", price_per_gpu=Decimal(22)),
                OfferingPrice(
                    offering=offering,
                    billing_model="monthly",
                    price_per_gpu=Decimal(rng.randrange(9000, 16000)),
                ),
            ]
        )
        candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=8)
        Answer.objects.bulk_create(
            [
                Answer(
                    candidate=candidate,
                    item=item,
                    claim=f"Claim {item.number} of offering {index}",
                    status=rng.choice(statuses),
                )
                for item in items
            ]
        )
    evaluation_rescore(evaluation=evaluation)
    return evaluation.pk, token.key


def compute_ms(evaluation_id: int, repeat: int = 5) -> float:
    """Median milliseconds of one full ranking computation in this process (no cache): what
    the endpoint costs when an input has just changed."""
    from portal.api.ranking import evaluation_ranking_data
    from portal.models import Evaluation

    evaluation = Evaluation.objects.get(pk=evaluation_id)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        evaluation_ranking_data(evaluation, use_cache=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def start_gunicorn(env: dict[str, str], port: int, workers: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn", "portal.wsgi:application",
            "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
            "--worker-class", "sync", "--log-level", "warning",
        ],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=None, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("gunicorn exited early")
        try:
            status, _ = request(port, "/healthz/", None)
            if status == 200:
                return process
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError("gunicorn did not answer /healthz/ within 30 s")


def request(port: int, path: str, token: str | None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def load(port: int, path: str, token: str, *, threads: int, per_thread: int, max_s: float):
    """(requests/s, latencies in s): ``threads`` threads, each at most ``per_thread`` requests
    and ``max_s`` seconds."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + max_s

    def worker() -> None:
        mine = []
        for _ in range(per_thread):
            if time.monotonic() > deadline:
                break
            start = time.perf_counter()
            status, body = request(port, path, token)
            mine.append(time.perf_counter() - start)
            if status != 200:
                errors.append(f"{path}: HTTP {status}: {body[:200]!r}")
                break
        with lock:
            latencies.extend(mine)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    start = time.perf_counter()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - start
    if errors:
        raise RuntimeError(errors[0])
    return len(latencies) / elapsed, latencies


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=4, help="client threads per endpoint")
    parser.add_argument("--requests", type=int, default=100, help="requests per thread and round")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds per endpoint")
    parser.add_argument("--max-seconds", type=float, default=10.0, help="time cap per round")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--candidates", type=int, default=CANDIDATES)
    parser.add_argument("--database", default="gpuportal_bench")
    parser.add_argument(
        "--admin-url",
        default=os.environ.get("BENCH_ADMIN_DATABASE_URL", DEFAULT_ADMIN_URL),
        help="a PostgreSQL URL allowed to create and drop the bench database",
    )
    args = parser.parse_args(argv)

    db_url = args.admin_url.rsplit("/", 1)[0] + "/" + args.database
    env = {**os.environ, **database_env(db_url)}
    os.environ.update(database_env(db_url))
    create_database(args.admin_url, args.database)
    server = cold_server = None
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        evaluation_id, token = seed(args.candidates)
        cold_ms = compute_ms(evaluation_id)
        connections.close_all()

        port = free_port()
        server = start_gunicorn(env, port, args.workers)
        cold_port = free_port()
        cold_server = start_gunicorn(
            {**env, "CACHE_URL": "dummycache://", "RESULTS_TABLE": "0"}, cold_port, args.workers
        )
        ranking_path = f"/api/v1/evaluations/{evaluation_id}/ranking/"
        paths = {"ranking": ranking_path, "cold": ranking_path, "trivial": "/api/v1/me/"}
        ports = {"ranking": port, "cold": cold_port, "trivial": port}
        for name, path in paths.items():  # warm every worker: imports, rubric, connections
            for _ in range(args.workers * 5):
                status, body = request(ports[name], path, token)
                if status != 200:
                    raise RuntimeError(f"{path}: HTTP {status}: {body[:300]!r}")
        latencies: dict[str, list[float]] = {name: [] for name in paths}
        seconds: dict[str, float] = dict.fromkeys(paths, 0.0)
        for _ in range(args.rounds):
            for name, path in paths.items():
                rate, values = load(
                    ports[name],
                    path,
                    token,
                    threads=args.threads,
                    per_thread=args.requests,
                    max_s=args.max_seconds,
                )
                latencies[name] += values
                seconds[name] += len(values) / rate
    finally:
        for process in (server, cold_server):
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # noqa: S110 - Django may not be set up when creation failed
            pass
        drop_database(args.admin_url, args.database)

    rps = {name: len(latencies[name]) / seconds[name] for name in paths}
    ratio = rps["ranking"] / rps["trivial"]
    cold_ratio = rps["cold"] / rps["trivial"]
    print(
        f"API under gunicorn ({args.workers} workers, {args.threads} client threads, "
        f"{args.candidates} candidates x 10 answers)"
    )
    shown = {"ranking": "ranking, cached", "cold": "ranking, cold", "trivial": "trivial"}
    for name, path in paths.items():
        print(
            f"  {shown[name]:<16} {path:<40} {len(latencies[name]):>5} requests  "
            f"{rps[name]:8.1f} req/s  p95 {p95(latencies[name]) * 1000:7.1f} ms"
        )
    print(
        f"  a full ranking computation (the first request after any input changed): "
        f"{cold_ms:.1f} ms median in process"
    )
    ok = ratio >= RATIO_TARGET
    cold_ok = cold_ratio >= COLD_RATIO_TARGET
    print(
        f"  {'ok  ' if ok else 'FAIL'} ratio ranking cached/trivial {ratio:.2f} "
        f"(target >= {RATIO_TARGET})"
    )
    print(
        f"  {'ok  ' if cold_ok else 'FAIL'} ratio ranking cold/trivial {cold_ratio:.2f} "
        f"(target >= {COLD_RATIO_TARGET})"
    )
    return 0 if ok and cold_ok else 1


if __name__ == "__main__":
    sys.exit(main())
