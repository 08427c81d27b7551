"""Page server times against a floor (a trivial view) measured in the same run.

Builds the data set in a PostgreSQL database of its own (created and dropped here): candidates
with 10 answers and 20 uploads each (every upload with its per-file report and measurements),
verified and scored through the services as imports leave them. Then it requests, through
Django's test client (the full request path: middleware, views, templates, charts):

- ``/bench/trivial/``: the floor, a trivial view through the same middleware for the same
  signed-in member (bench/http_floor_urls.py);
- the evaluation dashboard at 5, 50 and 200 candidates, four ways:
  cached (the results read model and fragments answered by the Django cache); cold (the Django
  cache emptied before every request: the read model answered by its PostgreSQL table, as after
  a restart, an eviction or with Redis away); after a change, warmed (a real change through a
  service before every request, an import's rescoring of one candidate, then the warming task
  run in this process as a worker runs it, then the view; its Django cache is the one the view
  reads, as Redis is shared in a deployment); after a change, before warming (the same change,
  then the view computes everything: what a manager pays who opens the dashboard before the
  worker has warmed it). The warming task's own time per evaluation is printed apart;
- the candidate page and the uploads list of a candidate with 20 and with 1,000 uploads;
- the first dashboard after signing in on the demo data: a new session signs in as the demo
  manager and opens the demo evaluation with the Django cache empty (the issue measured
  3.4-5.4 s); target under 1 s median. The first, untimed attempt computes the results; the
  timed ones read them from the results table, as after a restart.

It prints median, p95 and minimum server time, each median as a multiple of the floor's, the
median CPU time of this process per request, and the SQL query count. Exits 1 when the
dashboard at 200 candidates is above 25x the floor, the candidate page or the uploads list at
1,000 uploads is above 150 ms median, or a page's query count grows with the data. The
dashboard "before warming" figure is printed, not a target.

``--uploads-only`` runs only the candidate page and the uploads list (the uploads list is the
page a person opens from the candidate page, with its layout; the upload page polls the same
list alone through htmx).

    .venv/bin/python bench/pages.py [--repeat 20] [--quick] [--first-only] [--uploads-only]
"""

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DB_NAME = os.environ.get("BENCH_PAGES_DATABASE", "gpuportal_bench_pages")
MEDIAN_TARGET_MS = 150.0
DASHBOARD_RATIO_MAX = 25.0
FIRST_DASHBOARD_MAX_MS = 1000.0
DEMO_MANAGER = ("manager", "decide-gpus-2026")

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


def build(n_candidates: int, evaluation_name: str, uploads: int = 20):
    from portal.models import (
        Answer,
        Candidate,
        ChecklistItem,
        Evaluation,
        EvidenceUpload,
        HardwareIdentifier,
        Measurement,
        Offering,
        OfferingPrice,
        Vendor,
    )
    from portal.services.scores import evaluation_rescore

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
        made = EvidenceUpload.objects.bulk_create(
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
            for u in range(uploads)
        )
        # The hardware identifiers the import writes: one row per upload and identifier, so a
        # node uploaded again repeats its GPUs' UUIDs and its MAC.
        HardwareIdentifier.objects.bulk_create(
            HardwareIdentifier(upload=upload, candidate=candidate, kind=kind, value=value)
            for n, upload in enumerate(made)
            for kind, value in (
                *(("gpu_uuid", f"GPU-{candidate.pk}-{n % 8}-{g}") for g in range(8)),
                ("mac", f"02:00:{candidate.pk // 256:02x}:{candidate.pk % 256:02x}:00:{n % 8:02x}"),
            )
        )
        Measurement.objects.bulk_create(
            Measurement(
                upload=upload,
                candidate=candidate,
                kind="nccl_tests",
                metric=metric,
                value=value,
                unit="GB/s",
                node_name=f"node-{n % 8}",
                source_file="all_reduce.txt",
                line=10 + k,
            )
            for n, upload in enumerate(made)
            for k, (metric, value) in enumerate(
                (("busbw", 232.0), ("algbw", 120.0), ("peak_busbw", 232.0))
            )
        )
    evaluation_rescore(evaluation=evaluation, verify=True)
    # Planner statistics, as autovacuum keeps them on a live database: without them the
    # freshly filled tables get row estimates of 1 and nested-loop plans that a deployment
    # never runs (the guidance counts took 87 ms instead of 3 at 200 candidates).
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return evaluation


WARMED = ", changed, warmed"
NOT_WARMED = ", changed, not warmed"


def _changer(evaluation):
    """A real change of the evaluation's results through a service: an import's rescoring of
    one candidate (verification and scores stored again; its ``scored_at`` moves the results
    fingerprint), a different candidate each call."""
    from portal.services.scores import candidate_refresh

    ids = list(evaluation.candidates.order_by("pk").values_list("pk", flat=True))
    calls = iter(range(10**9))

    def change() -> None:
        candidate_refresh(candidate_id=ids[next(calls) % len(ids)])

    return change


def measure(client, url: str, repeat: int, before=None) -> tuple[list[float], list[float], int]:
    """Server time (wall clock) and this process's CPU time of each request, in ms, and the
    query count of one more request. ``before`` runs untimed before each request."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm-up: rubric, templates, translations
    times, cpu = [], []
    for _ in range(repeat):
        if before is not None:
            before()
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert response.status_code == 200, response.status_code
    if before is not None:
        before()
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    return times, cpu, len(queries)


def first_dashboard(repeat: int, path: str) -> tuple[list[float], list[float], int]:
    """Sign in as the demo manager in a new session (cache emptied), then time the first
    request of ``path``: what a person sees after the sign-in page."""
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    times, cpu, queries = [], [], 0
    for attempt in range(repeat + 1):
        cache.clear()
        client = Client()
        username, password = DEMO_MANAGER
        response = client.post("/accounts/login/", {"username": username, "password": password})
        assert response.status_code == 302, response.status_code
        start, start_cpu = time.perf_counter(), time.process_time()
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        elapsed = (time.perf_counter() - start) * 1000
        assert response.status_code == 200, response.status_code
        if attempt == 0:
            continue  # the process's first request also loads templates and the rubric
        times.append(elapsed)
        cpu.append((time.process_time() - start_cpu) * 1000)
        queries = len(captured)
    return times, cpu, queries


def _row(name: str, figures, floor_median: float) -> str:
    times, cpu, queries = figures
    p95 = statistics.quantiles(times, n=20)[18] if len(times) >= 2 else times[0]
    median = statistics.median(times)
    return (
        f"{name:<42} {median:>9.1f} {p95:>8.1f} {min(times):>8.1f} "
        f"{median / floor_median:>8.1f}x {statistics.median(cpu):>8.1f} {queries:>8}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="dashboard at 5 and 50 only")
    parser.add_argument(
        "--first-only", action="store_true", help="only the first dashboard on the demo data"
    )
    parser.add_argument(
        "--uploads-only",
        action="store_true",
        help="only the candidate page and the uploads list at 20 and 1,000 uploads",
    )
    args = parser.parse_args()
    if args.first_only and args.uploads_only:
        parser.error("--first-only and --uploads-only leave nothing in common to run")

    _psql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    _psql(f"CREATE DATABASE {DB_NAME}")
    sizes = () if args.uploads_only else (5, 50) if args.quick else (5, 50, 200)
    try:
        import django

        django.setup()
        from django.test.utils import override_settings

        from bench.http_floor_urls import TRIVIAL

        # The portal's URLs plus the floor's trivial view.
        override_settings(ROOT_URLCONF="bench.http_floor_urls").enable()
        from django.contrib.auth import get_user_model
        from django.core.cache import cache
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import setup_test_environment

        from portal.models import Membership
        from portal.tasks import results_warm_task

        setup_test_environment()
        call_command("migrate", verbosity=0)
        call_command("loaddata", "checklist", verbosity=0)
        import io

        if not args.uploads_only:
            call_command("setup_demo", stdout=io.StringIO())
        user = get_user_model().objects.create_user("bench-manager", password="x")
        client = Client()
        client.force_login(user)
        results: dict[str, tuple] = {}
        floors: list[float] = []
        warm_ms: dict[int, list[float]] = {}

        def floor() -> float:
            figures = measure(client, TRIVIAL, args.repeat)
            floors.extend(figures[0])
            return statistics.median(figures[0])

        floor()
        if not args.uploads_only:
            results["sign-in, first page (demo)"] = first_dashboard(args.repeat, "/")
            results["sign-in, first dashboard (demo)"] = first_dashboard(
                args.repeat, "/evaluations/1/"
            )
        for n in () if args.first_only else sizes:
            evaluation = build(n, f"bench {n}")
            Membership.objects.create(evaluation=evaluation, user=user, role="manager")
            floor()
            url = f"/evaluations/{evaluation.pk}/"
            # Cold: the Django cache emptied before every request, the read model answered by
            # its table; cached: answered by the cache under the inputs' fingerprint.
            results[f"dashboard {n} candidates"] = measure(
                client, url, args.repeat, before=cache.clear
            )
            results[f"dashboard {n} candidates, cached"] = measure(client, url, args.repeat)
            change = _changer(evaluation)
            warm_ms[n] = []

            def change_and_warm(change=change, evaluation=evaluation, times=warm_ms[n]):
                change()
                start = time.perf_counter()
                assert results_warm_task.apply(args=[evaluation.pk]).get() == "warmed"
                times.append((time.perf_counter() - start) * 1000)
                # In a deployment the task runs in a worker: its garbage is not the web
                # process's to collect during the next request.
                gc.collect()

            results[f"dashboard {n} candidates{WARMED}"] = measure(
                client, url, args.repeat, before=change_and_warm
            )
            results[f"dashboard {n} candidates{NOT_WARMED}"] = measure(
                client, url, args.repeat, before=change
            )
        for uploads in () if args.first_only else (20, 1000):
            evaluation = build(1, f"bench uploads {uploads}", uploads=uploads)
            Membership.objects.create(evaluation=evaluation, user=user, role="manager")
            candidate = evaluation.candidates.get()
            base = f"/evaluations/{evaluation.pk}/candidates/{candidate.pk}"
            floor()
            results[f"candidate page, {uploads} uploads"] = measure(client, f"{base}/", args.repeat)
            results[f"uploads list, {uploads} uploads"] = measure(
                client, f"{base}/uploads/", args.repeat
            )
        results["floor: /bench/trivial/"] = measure(client, TRIVIAL, args.repeat)
        floors.extend(results["floor: /bench/trivial/"][0])
    finally:
        from django.db import connections

        connections.close_all()
        _psql(f"DROP DATABASE IF EXISTS {DB_NAME}")

    # The CPU column is this process's time (Django, the view, templates, psycopg; not the
    # PostgreSQL server's): on a busy machine it says how much of the wall time was waiting.
    floor_median = statistics.median(floors)
    print(
        f"{'page':<42} {'median ms':>9} {'p95 ms':>8} {'min ms':>8} {'x floor':>9} "
        f"{'cpu ms':>8} {'queries':>8}"
    )
    for name, figures in results.items():
        print(_row(name, figures, floor_median))
    for n, times in warm_ms.items():
        print(
            f"warming task, {n} candidates: {statistics.median(times):.1f} ms median "
            f"(min {min(times):.1f}) per evaluation, in the worker, after each change"
        )
    failures = []
    for name in ("sign-in, first page (demo)", "sign-in, first dashboard (demo)"):
        if name not in results:
            continue
        median = statistics.median(results[name][0])
        if median > FIRST_DASHBOARD_MAX_MS:
            failures.append(f"{name}: {median:.0f} ms (target < {FIRST_DASHBOARD_MAX_MS:.0f} ms)")
    if args.first_only:
        sizes = ()
    # The 25x target is checked on the cold, the cached and the warmed dashboard at 200
    # candidates; before warming it is printed (and its queries checked), not a target.
    for suffix in ("", ", cached", WARMED, NOT_WARMED) if sizes else ():
        biggest = f"dashboard {sizes[-1]} candidates{suffix}"
        dashboard_ratio = statistics.median(results[biggest][0]) / floor_median
        if suffix == NOT_WARMED:
            print(
                f"note {biggest}: {dashboard_ratio:.1f}x the floor (no target: the view "
                "computes what the worker has not warmed yet)"
            )
        elif sizes[-1] == 200 and dashboard_ratio > DASHBOARD_RATIO_MAX:
            failures.append(f"{biggest}: {dashboard_ratio:.1f}x the floor (target <= 25x)")
        dash_queries = {results[f"dashboard {n} candidates{suffix}"][2] for n in sizes}
        if len(dash_queries) != 1:
            failures.append(f"dashboard{suffix} queries grow: {sorted(dash_queries)}")
    for page in () if args.first_only else ("candidate page", "uploads list"):
        big = results[f"{page}, 1000 uploads"]
        small = results[f"{page}, 20 uploads"]
        if statistics.median(big[0]) > MEDIAN_TARGET_MS:
            failures.append(
                f"{page} at 1,000 uploads: {statistics.median(big[0]):.1f} ms "
                f"(target <= {MEDIAN_TARGET_MS:.0f} ms)"
            )
        # Past one screen of uploads a page counts them once: one query more at most.
        if big[2] > small[2] + 1:
            failures.append(f"{page} queries grow with uploads: {small[2]} -> {big[2]}")
    for failure in failures:
        print(f"FAIL {failure}")
    if not failures:
        print("ok   every page target met")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
