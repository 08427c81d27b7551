"""Dashboard server time with 50 candidates (10 answers and 20 uploads each).

Builds the data set in a PostgreSQL database of its own (created and dropped here), then
requests the evaluation dashboard through Django's test client (the full request path:
middleware, views, templates, charts) and prints the median, p95 and minimum server time, the
median CPU time of this process per request, and the SQL query count at 5 and at 50
candidates. Exits 1 when the median is above 150 ms or the query count grows with the number
of candidates.

    .venv/bin/python bench/pages.py [--repeat 30]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DB_NAME = "gpuportal_bench_pages"
MEDIAN_TARGET_MS = 150.0

os.environ.update(
    DJANGO_SETTINGS_MODULE="portal.settings",
    DEBUG="0",
    SECRET_KEY="bench-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz-0123456789",
    DATABASE_URL=f"postgres://postgres:postgres@127.0.0.1:5432/{DB_NAME}",
    CELERY_BROKER_URL="memory://localhost/",
    SECURE_SSL_REDIRECT="0",
    STATIC_MANIFEST="0",
    ALLOWED_HOSTS="testserver",
    LOG_LEVEL="WARNING",
)
sys.path.insert(0, str(ROOT))


def _psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql],
        check=True,
        capture_output=True,
    )


def build(n_candidates: int, evaluation_name: str):
    from portal.models import (
        Answer,
        Candidate,
        ChecklistItem,
        Evaluation,
        EvidenceUpload,
        Offering,
        OfferingPrice,
        Vendor,
    )

    nccl_metrics = {
        "collective": "all_reduce",
        "ranks": 8,
        "peak_busbw_gbyte_s": 232.0,
        "curve": [
            {"size_bytes": 2**k, "busbw_gbyte_s": min(232.0, 2 ** (k - 12))} for k in range(10, 34)
        ],
    }
    vendor, _ = Vendor.objects.get_or_create(name="Bench vendor")
    evaluation = Evaluation.objects.create(
        name=evaluation_name,
        workload_profile="pretraining",
        required_total_gpus=64,
        required_gpu_memory_gib=80,
        duration_days=30,
        budget_total=2_000_000,
    )
    items = list(ChecklistItem.objects.order_by("number"))
    for i in range(n_candidates):
        offering = Offering.objects.create(
            vendor=vendor,
            name=f"{evaluation_name} offering {i}",
            delivery_form="bare_metal" if i % 2 else "vgpu",
            gpu_model="NVIDIA H100 SXM5 80GB",
            gpu_form_factor="sxm",
            gpus_per_node=8,
            gpu_memory_gib=80,
            nvlink_topology="full_mesh",
            fabric="infiniband",
            fabric_rate_gbit_s=400,
            nics_per_node=8,
            sla_availability_pct=99.9,
        )
        OfferingPrice.objects.create(
            offering=offering, billing_model="hourly", price_per_gpu=20 + i
        )
        OfferingPrice.objects.create(
            offering=offering, billing_model="monthly", price_per_gpu=12000 + i
        )
        candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=8)
        Answer.objects.bulk_create(
            Answer(candidate=candidate, item=item, claim=f"claim {item.number}", status="claimed")
            for item in items
        )
        EvidenceUpload.objects.bulk_create(
            EvidenceUpload(
                candidate=candidate,
                file=f"evidence/{candidate.pk}/{i}-{u}",
                original_name=f"bundle-{u}.tar.gz",
                sha256=f"{candidate.pk:08d}{u:056d}",
                size_bytes=1000,
                status="done",
                report=[
                    {
                        "file": "all_reduce.txt",
                        "kind": "nccl_tests",
                        "ok": True,
                        "metrics": nccl_metrics,
                    }
                ],
            )
            for u in range(20)
        )
    return evaluation


def measure(client, url: str, repeat: int) -> tuple[list[float], list[float], int]:
    """Server time (wall clock) and this process's CPU time of each request, in ms, and the
    query count of one more request."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm-up: rubric, templates, translations
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert response.status_code == 200, response.status_code
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    return times, cpu, len(queries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    _psql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    _psql(f"CREATE DATABASE {DB_NAME}")
    try:
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import setup_test_environment

        from portal.models import Membership

        setup_test_environment()
        call_command("migrate", verbosity=0)
        call_command("loaddata", "checklist", verbosity=0)
        user = get_user_model().objects.create_user("bench-manager", password="x")
        client = Client()
        client.force_login(user)
        results = {}
        for n in (5, 50):
            evaluation = build(n, f"bench {n}")
            Membership.objects.create(evaluation=evaluation, user=user, role="manager")
            results[n] = measure(client, f"/evaluations/{evaluation.pk}/", args.repeat)
    finally:
        from django.db import connections

        connections.close_all()
        _psql(f"DROP DATABASE IF EXISTS {DB_NAME}")

    # The CPU column is this process's time (Django, the view, templates, psycopg; not the
    # PostgreSQL server's): on a busy machine it says how much of the wall time was waiting.
    print(
        f"{'candidates':>10} {'median ms':>10} {'p95 ms':>8} {'min ms':>8} "
        f"{'cpu median ms':>14} {'queries':>8}"
    )
    for n, (times, cpu, queries) in results.items():
        p95 = statistics.quantiles(times, n=20)[18]
        print(
            f"{n:>10} {statistics.median(times):>10.1f} {p95:>8.1f} {min(times):>8.1f} "
            f"{statistics.median(cpu):>14.1f} {queries:>8}"
        )
    median_50 = statistics.median(results[50][0])
    ratio = median_50 / statistics.median(results[5][0])
    print(f"median at 50 ÷ median at 5: {ratio:.2f}×")
    ok_time = median_50 < MEDIAN_TARGET_MS
    ok_queries = results[5][2] == results[50][2]
    print(
        f"{'ok  ' if ok_time else 'FAIL'} median at 50 candidates {median_50:.1f} ms "
        f"(target < {MEDIAN_TARGET_MS:.0f} ms)"
    )
    print(
        f"{'ok  ' if ok_queries else 'FAIL'} queries at 5 and 50 candidates: "
        f"{results[5][2]} and {results[50][2]} (must be equal)"
    )
    return 0 if ok_time and ok_queries else 1


if __name__ == "__main__":
    raise SystemExit(main())
