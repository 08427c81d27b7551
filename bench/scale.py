"""Pages and API at 10^3, 10^5 and 10^6 measurements, in a private PostgreSQL database.

Creates a database of its own on 127.0.0.1:5432 (``gpuportal_bench_scale`` unless
``--database`` names another; created here and dropped at the end, never anyone else's), fills
one evaluation of 10 candidates with uploads of 100 measurements each, and at each size
requests through Django's test client (the full request path, as a signed-in manager):

- the dashboard, the candidate page and the uploads list of the candidate with most uploads;
- the API's uploads, measurements and scores lists (first page, and a page five cursors on),
  and the ranking (its results cache emptied before each request: cold);
- the last page of the API's measurements of a small evaluation (1,000 measurements, written
  before the big one's): it must not read the big evaluation's rows;
- ``/bench/trivial/``: the floor, a trivial view through the same middleware for the same
  signed-in member (bench/http_floor_urls.py).

It prints p50 and p95 in ms per page and size, the query count, whether PostgreSQL plans a
sequential scan of the measurements for the candidate page and the API list (EXPLAIN), and
exits 1 when a page's p50 at the largest size is more than 3x its p50 at 10^3 (plus 20 ms of
slack for noise) or a plan scans the measurements or uploads table (or sorts the uploads).
``--quick`` stops at 10^5.

    .venv/bin/python bench/scale.py [--quick] [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PER_UPLOAD = 100
CANDIDATES = 10
SMALL_MEASUREMENTS = 1000
GROWTH_MAX = 3.0
SLACK_MS = 20.0


def _psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql],
        check=True,
        capture_output=True,
    )


def _environment(db_name: str) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="portal.settings",
        DEBUG="0",
        SECRET_KEY="bench-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz-scale-0001",
        DATABASE_URL=f"postgres://postgres:postgres@127.0.0.1:5432/{db_name}",
        CELERY_BROKER_URL="memory://localhost/",
        SECURE_SSL_REDIRECT="0",
        STATIC_MANIFEST="0",
        ALLOWED_HOSTS="testserver",
        LOG_LEVEL="WARNING",
        CACHE_URL="locmemcache://",
    )


def build_evaluation(name: str = "scale"):
    from portal.models import (
        Answer,
        Candidate,
        ChecklistItem,
        Evaluation,
        Offering,
        OfferingPrice,
        Vendor,
    )

    vendor = Vendor.objects.create(name=f"{name} vendor")
    evaluation = Evaluation.objects.create(
        name=name,
        workload_profile="pretraining",
        required_total_gpus=64,
        required_gpu_memory_gib=80,
        duration_days=30,
        budget_total=2_000_000,
    )
    items = list(ChecklistItem.objects.order_by("number"))
    for i in range(CANDIDATES):
        offering = Offering.objects.create(
            vendor=vendor,
            name=f"scale offering {i}",
            delivery_form="bare_metal",
            gpu_model="NVIDIA H100 SXM5 80GB",
            gpu_form_factor="sxm",
            gpus_per_node=8,
            gpu_memory_gib=80,
            nvlink_topology="full_mesh",
            fabric="infiniband",
            fabric_rate_gbit_s=400,
            nics_per_node=8,
        )
        OfferingPrice.objects.create(
            offering=offering, billing_model="monthly", price_per_gpu=12000 + i
        )
        candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=8)
        Answer.objects.bulk_create(
            Answer(candidate=candidate, item=item, claim="claimed", status="claimed")
            for item in items
        )
    return evaluation


def grow(evaluation, measurements: int) -> None:
    """Add uploads of PER_UPLOAD measurements each until the evaluation holds ``measurements``."""
    from django.db import connection

    from portal.models import EvidenceUpload, Measurement

    have = Measurement.objects.filter(candidate__evaluation=evaluation).count()
    uploads_needed = max(0, (measurements - have) // PER_UPLOAD)
    candidates = list(evaluation.candidates.order_by("pk"))
    start = EvidenceUpload.objects.count()
    made = EvidenceUpload.objects.bulk_create(
        (
            EvidenceUpload(
                candidate=candidates[(start + u) % len(candidates)],
                file=f"evidence/scale/{start + u}",
                original_name=f"bundle-{start + u}.tar.gz",
                sha256=f"{start + u:064x}",
                size_bytes=1000,
                status="done",
                node_name=f"node-{(start + u) % 64}",
                report=[
                    {"file": f"f{k}.txt", "kind": "nccl_tests", "ok": True, "pad": "x" * 200}
                    for k in range(12)
                ],
            )
            for u in range(uploads_needed)
        ),
        batch_size=2000,
    )
    ids = [upload.pk for upload in made]
    with connection.cursor() as cursor:
        for chunk in range(0, len(ids), 2000):
            cursor.execute(
                """
                INSERT INTO portal_measurement
                    (upload_id, candidate_id, evaluation_id, kind, metric, value, unit,
                     node_name, source_file, line, details)
                SELECT u.id, u.candidate_id, u.evaluation_id, 'nccl_tests', 'busbw_' || g,
                       g * 1.5, 'GB/s', u.node_name, 'all_reduce.txt', g, '{}'::jsonb
                FROM portal_evidenceupload u, generate_series(1, %s) g
                WHERE u.id = ANY(%s)
                """,
                [PER_UPLOAD, ids[chunk : chunk + 2000]],
            )
        cursor.execute("ANALYZE portal_measurement")
        cursor.execute("ANALYZE portal_evidenceupload")


def timed(client, url: str, repeat: int, before=None) -> tuple[float, float, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    if before is not None:
        before()
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    p95 = statistics.quantiles(times, n=20)[18]
    return statistics.median(times), p95, len(queries)


def five_cursors_on(client, url: str) -> str:
    body = client.get(url, {"page_size": 50}).json()
    for _ in range(5):
        if not body.get("next"):
            break
        url = body["next"]
        body = client.get(url).json()
    return url.replace("http://testserver", "")


def last_page(client, url: str) -> str:
    """The URL of the last page of a list, followed by its ``next`` links (200 a page)."""
    body = client.get(url, {"page_size": 200}).json()
    while body.get("next"):
        url = body["next"]
        body = client.get(url).json()
    return url.replace("http://testserver", "")


def plans(evaluation, candidate) -> dict[str, bool]:
    """Whether PostgreSQL's plan of each listed query scans the measurements or the uploads
    sequentially, or sorts the uploads."""
    from django.db import connection

    from portal.models import EvidenceUpload, Measurement
    from portal.views.candidates import (
        CANDIDATE_UPLOADS_SHOWN,
        MEASUREMENTS_SHOWN,
        measurement_groups,
    )

    # As the candidate page reads them: the measurements of its newest uploads, grouped.
    listed = candidate.uploads.order_by("-created_at", "-pk").values_list("pk", flat=True)
    queries = {
        "candidate page measurements": measurement_groups(list(listed[:CANDIDATE_UPLOADS_SHOWN]))[
            : MEASUREMENTS_SHOWN + 1
        ],
        "API measurements page": Measurement.objects.filter(
            candidate__evaluation=evaluation
        ).order_by("pk")[:51],
        # The API's uploads, newest first: a range of an index, not a sort of them all.
        "API uploads page": EvidenceUpload.objects.filter(evaluation=evaluation).order_by("-pk")[
            :51
        ],
    }
    found = {}
    with connection.cursor() as cursor:
        for name, queryset in queries.items():
            sql, params = queryset.query.sql_with_params()
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            found[name] = any(
                scan in plan
                for scan in (
                    "Seq Scan on portal_measurement",
                    "Seq Scan on portal_evidenceupload",
                    "Sort Key: portal_evidenceupload",
                )
            )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="stop at 10^5 measurements")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--database", default="gpuportal_bench_scale")
    args = parser.parse_args()
    if not args.database.replace("_", "").isalnum():
        parser.error("--database: letters, digits and underscores only")
    _environment(args.database)
    sizes = (10**3, 10**5) if args.quick else (10**3, 10**5, 10**6)

    _psql(f"DROP DATABASE IF EXISTS {args.database}")
    _psql(f"CREATE DATABASE {args.database}")
    table: dict[str, dict[int, tuple[float, float, int]]] = {}
    scans: dict[int, dict[str, bool]] = {}
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
        from portal.services.scores import evaluation_rescore

        setup_test_environment()
        call_command("migrate", verbosity=0)
        call_command("loaddata", "checklist", verbosity=0)
        user = get_user_model().objects.create_user("scale-manager", password="x")
        # A small evaluation whose rows come first: its pages must not walk the big one's
        # rows that follow (its last page looked for more rows to the end of the table).
        small = build_evaluation("scale small")
        grow(small, SMALL_MEASUREMENTS)
        evaluation = build_evaluation()
        for member_of in (small, evaluation):
            Membership.objects.create(evaluation=member_of, user=user, role="manager")
        small_api = f"/api/v1/evaluations/{small.pk}"
        client = Client()
        client.force_login(user)
        for size in sizes:
            started = time.perf_counter()
            grow(evaluation, size)
            evaluation_rescore(evaluation=evaluation)
            built = time.perf_counter() - started
            candidate = evaluation.candidates.order_by("pk").first()
            ev, cand = evaluation.pk, candidate.pk
            api = f"/api/v1/evaluations/{ev}"
            pages = {
                "floor /bench/trivial/": (TRIVIAL, None),
                "dashboard": (f"/evaluations/{ev}/", None),
                "candidate page": (f"/evaluations/{ev}/candidates/{cand}/", None),
                "uploads list": (f"/evaluations/{ev}/candidates/{cand}/uploads/", None),
                "API uploads": (f"{api}/uploads/", None),
                "API measurements": (f"{api}/measurements/", None),
                "API measurements +5 pages": (
                    five_cursors_on(client, f"{api}/measurements/"),
                    None,
                ),
                "API meas. small ev. last pg": (
                    last_page(client, f"{small_api}/measurements/"),
                    None,
                ),
                "API scores": (f"{api}/scores/", None),
                "API ranking (cold)": (f"{api}/ranking/", cache.clear),
            }
            for name, (url, before) in pages.items():
                table.setdefault(name, {})[size] = timed(client, url, args.repeat, before)
            scans[size] = plans(evaluation, candidate)
            print(f"built and measured 10^{len(str(size)) - 1} in {built:.0f} s", flush=True)
    finally:
        from django.db import connections

        connections.close_all()
        _psql(f"DROP DATABASE IF EXISTS {args.database}")

    heads = "".join(f" {'10^' + str(len(str(s)) - 1) + ' p50/p95':>18} {'q':>3}" for s in sizes)
    print(f"{'page (ms)':<28}{heads}")
    failures = []
    for name, by_size in table.items():
        cells = "".join(
            f" {by_size[s][0]:>8.1f}/{by_size[s][1]:<9.1f} {by_size[s][2]:>3}" for s in sizes
        )
        print(f"{name:<28}{cells}")
        first, last = by_size[sizes[0]][0], by_size[sizes[-1]][0]
        if name != "floor /bench/trivial/" and last > GROWTH_MAX * first + SLACK_MS:
            failures.append(f"{name}: p50 {first:.1f} ms -> {last:.1f} ms")
        if by_size[sizes[-1]][2] > by_size[sizes[0]][2] + 1:
            failures.append(f"{name}: queries {by_size[sizes[0]][2]} -> {by_size[sizes[-1]][2]}")
    for size, found in scans.items():
        for query, seq in found.items():
            print(f"EXPLAIN at {size:>9,}: {query}: {'SCAN OR SORT' if seq else 'index'}")
            if seq and size == sizes[-1]:
                failures.append(f"{query} scans or sorts a whole table at {size:,}")
    for failure in failures:
        print(f"FAIL {failure}")
    if not failures:
        print("ok   pages and API flat in measurements")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
