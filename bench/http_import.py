"""Benchmark: evidence import throughput over HTTP, through nginx, gunicorn and one worker.

Run: ``.venv/bin/python bench/http_import.py`` (from the repository root). Exits 1 when the
target is missed, 2 when the run could not be carried out (no nginx, a service did not start,
uploads refused or unfinished after ``--timeout``).

Target (issue #15, "Import throughput"): 200 bundles over HTTP reach at least 0.6x the floor,
both measured in this run:

- measured: ``--bundles`` distinct 8-GPU collector bundles (bench/evidence.py's real outputs,
  the manifest's hostname varied, each carrying its token's nonce so that it imports as
  collector evidence) POSTed to ``/api/v1/evidence/`` with one upload token per candidate
  (``Authorization: Bearer``), bundle i to candidate i mod n (candidates interleaved), by
  ``--clients`` concurrent clients; imported by ONE Celery worker of 2 processes (prefork,
  concurrency 2). Throughput = bundles fully imported per second, from the first POST until
  every candidate's verification and scores are up to date: the later of the last upload's
  ``finished_at`` (stamped in the import's transaction) and the candidates' last
  ``scored_at`` (stamped by the refresh; imports in a burst leave it to a pending refresh due
  up to EVIDENCE_REFRESH_INTERVAL_S after the candidate's previous one), once no refresh is
  pending.
- floor: the same POSTs (same bodies, tokens, clients) to ``/bench/floor/``
  (bench/http_floor_urls.py): authenticated by the same upload token, the multipart body read
  whole, one no-op task published to the same queue; per second from the first POST until the
  worker has consumed every task. Measured before and after the import; the faster counts.

The stack is deploy/stack.py's, on loopback and private ports, as bench/soak.py starts it:
a private PostgreSQL cluster and Redis, ``setup_demo``'s data, gunicorn (sync workers as in
compose), Debian's nginx with deploy/nginx/portal.conf, one worker and beat. Nothing shared
(the services on 5432/6379) is touched.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from bench import soak  # noqa: E402
from bench.evidence import make_bundle  # noqa: E402
from bench.noop import NOOP_UPLOAD_ID  # noqa: E402
from deploy import stack  # noqa: E402

RATIO_MIN = 0.6


class BenchError(Exception):
    pass


def _tokens(st: soak.Stack, candidates: int) -> list[tuple[int, str, str | None]]:
    """One upload token per candidate of setup_demo's first evaluation: (candidate, raw, nonce)."""
    api_token = st.manage("api_token_create", "procurement").strip().splitlines()[-1]
    auth = {"Authorization": f"Token {api_token}"}
    evaluation = requests.get(st.base + "/api/v1/evaluations/", headers=auth, timeout=30)
    evaluation_id = evaluation.json()["results"][0]["id"]
    found = requests.get(
        f"{st.base}/api/v1/evaluations/{evaluation_id}/candidates/", headers=auth, timeout=30
    ).json()["results"][:candidates]
    tokens = []
    for candidate in found:
        created = requests.post(
            f"{st.base}/api/v1/evaluations/{evaluation_id}/upload-tokens/",
            headers=auth,
            json={"candidate": candidate["id"], "label": "bench http import"},
            timeout=30,
        )
        created.raise_for_status()
        tokens.append((candidate["id"], created.json()["token"], created.json().get("nonce")))
    if not tokens:
        raise BenchError("setup_demo made no candidates")
    return tokens


def _post_all(st: soak.Stack, url: str, posts: list[tuple[str, str, bytes]], clients: int):
    """POST every (token, name, body) with ``clients`` threads, in order; returns (start, ids)."""
    order = itertools.count()
    lock = threading.Lock()
    ids: list[int] = []
    errors: list[str] = []

    def client() -> None:
        with requests.Session() as session:
            while True:
                with lock:
                    index = next(order)
                if index >= len(posts) or errors:
                    return
                raw, name, body = posts[index]
                response = session.post(
                    url,
                    headers={"Authorization": f"Bearer {raw}"},
                    files={"file": (name, body)},
                    timeout=60,
                )
                if response.status_code not in (200, 202):
                    errors.append(f"{url}: {response.status_code} {response.text[:300]}")
                    return
                with lock:
                    ids.append(response.json().get("id", index))

    threads = [threading.Thread(target=client) for _ in range(clients)]
    start = time.time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise BenchError(errors[0])
    return start, ids


def _cpu(st: soak.Stack) -> dict[str, float]:
    """CPU seconds (user + system) so far of each service's process group (its children too).

    PostgreSQL's backends each make a process group of their own (setsid): they are counted as
    the postmaster's children, live ones by their own time, exited ones by the time the
    postmaster reaped (its cutime and cstime)."""
    groups = {service.process.pid: name for name, service in st.services.items() if service.running}
    postmaster = None
    with contextlib.suppress(OSError, ValueError, IndexError, TypeError):
        postmaster = int((st.pg_data / "postmaster.pid").read_text().split()[0])
    spent = dict.fromkeys(groups.values(), 0.0)
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, parent = int(entry.name), int(fields[1])
        if postmaster is not None and pid == postmaster:
            spent["postgres"] = (
                spent.get("postgres", 0.0) + sum(int(value) for value in fields[11:15]) / tick
            )
            continue
        name = "postgres" if parent == postmaster else groups.get(int(fields[2]))
        if name is not None:
            spent[name] = spent.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return spent


def _cpu_line(label: str, before: dict[str, float], after: dict[str, float], count: int) -> str:
    per = {name: (after[name] - before.get(name, 0.0)) * 1000 / count for name in after}
    shown = ", ".join(
        f"{name} {per[name]:.1f}" for name in ("nginx", "gunicorn", "worker", "postgres", "redis")
    )
    return f"{label:<58}{sum(per.values()):>8.1f} ms  ({shown})"


def _floor_task(entry: bytes) -> bool:
    """Whether an entry of the broker's ``unacked`` hash is one of the floor's no-op tasks
    (kombu keeps [message, exchange, routing key] there; the task's arguments are shown in
    its headers' argsrepr). An entry that cannot be read counts as one (the floor waits)."""
    try:
        message = json.loads(entry)[0]
        return str(NOOP_UPLOAD_ID) in str(message["headers"].get("argsrepr", ""))
    except (ValueError, LookupError, TypeError, AttributeError):
        return True


def _floor_consumed(st: soak.Stack) -> bool:
    """Whether the worker has taken and finished every no-op task the floor published: the
    queue is empty and none of them is still unacknowledged. Tasks the import left behind
    (a refresh due later, held unacknowledged by the worker until then) are not the floor's
    and are not waited for: waiting for them made the floor after the import 4-5x slower."""
    import redis

    client = redis.Redis(port=st.ports["redis"], db=0, socket_timeout=2)
    try:
        if client.llen("celery"):
            return False
        return not any(map(_floor_task, client.hvals("unacked")))
    finally:
        client.close()


def floor(st: soak.Stack, posts, clients: int, timeout: float) -> float:
    start, _ids = _post_all(st, st.base + "/bench/floor/", posts, clients)
    deadline = time.time() + timeout
    while not _floor_consumed(st):
        if time.time() > deadline:
            raise BenchError("the floor's no-op tasks were not consumed in time")
        time.sleep(0.02)
    return len(posts) / (time.time() - start)


def _refreshes(st: soak.Stack) -> int:
    """Rows of portal_candidate updated so far (each refresh stores its candidate's scores
    with one UPDATE): PostgreSQL's own statistics, which lag by up to a second."""
    rows = st.query(
        "SELECT coalesce(sum(n_tup_upd), 0) FROM pg_stat_user_tables"
        " WHERE relname = 'portal_candidate'"
    )
    return int(rows[0][0])


def measured(
    st: soak.Stack, posts, clients: int, timeout: float, candidates: list[int]
) -> tuple[float, dict]:
    before = st.query("SELECT coalesce(max(id), 0) FROM portal_evidenceupload")[0][0]
    refreshes_before = _refreshes(st)
    start, _ids = _post_all(st, st.base + "/api/v1/evidence/", posts, clients)
    posted = time.time() - start
    deadline = time.time() + timeout
    while True:
        rows = [
            (status, when)
            for pk, status, when in st.query(
                "SELECT id, status, extract(epoch FROM finished_at) FROM portal_evidenceupload"
            )
            if pk > before
        ]
        finished = sum(status in ("done", "failed") for status, _when in rows)
        failed = sum(status == "failed" for status, _when in rows)
        last = max((when for _status, when in rows if when is not None), default=None)
        # Done when every upload is imported and no candidate has a refresh pending (a burst's
        # last imports may leave theirs to a refresh due up to EVIDENCE_REFRESH_INTERVAL_S on).
        if finished >= len(posts) and not st.query("SELECT 1 FROM portal_pendingrefresh"):
            break
        if time.time() > deadline:
            raise BenchError(f"only {finished} of {len(posts)} uploads finished in time")
        time.sleep(0.1)
    if failed:
        raise BenchError(f"{failed} uploads failed to import")
    ids = ",".join(str(int(candidate)) for candidate in candidates)
    scored = st.query(
        f"SELECT max(extract(epoch FROM scored_at)) FROM portal_candidate WHERE id IN ({ids})"  # noqa: S608
    )[0][0]
    # Up to date: the last import written and the candidates' last refresh stored after it.
    current = max(float(last), float(scored or 0))
    time.sleep(1.5)  # the statistics collector's counters lag by up to a second
    figures = {
        "refreshes": _refreshes(st) - refreshes_before,
        "posted_s": posted,
        "imported_s": float(last) - start,
        "elapsed_s": current - start,
    }
    return len(posts) / (current - start), figures


def run(args: argparse.Namespace) -> tuple[bool, str]:
    if stack.nginx_binary() is None:
        raise BenchError("nginx is not installed (scripts/lib.sh: ensure_nginx)")
    profile = soak.Profile(
        bundles=args.bundles, duration_s=0, clients=args.clients, readers=0, redis_down_s=0,
        slow_clients=0, slow_s=0, finish_timeout_s=args.timeout,
        env={
            "DJANGO_SETTINGS_MODULE": "bench.http_floor_settings",
            **({"EVIDENCE_IMPORT_BATCH": str(args.batch)} if args.batch else {}),
            **({"BENCH_PROFILE_DIR": str(Path(args.profile).resolve())} if args.profile else {}),
        },
    )  # fmt: skip
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    st = soak.Stack(profile, keep=args.keep)
    try:
        st.start()
        tokens = _tokens(st, args.candidates)
        print(
            f"stack up: nginx :{st.ports['nginx']} -> gunicorn :{st.ports['gunicorn']},"
            f" 1 worker (2 processes); {len(tokens)} candidates, one upload token each;"
            f" EVIDENCE_IMPORT_BATCH {args.batch or 'default'}",
            flush=True,
        )
        posts = []
        for number in range(args.bundles):
            _candidate, raw, nonce = tokens[number % len(tokens)]
            body = make_bundle(f"http-node-{number:04d}", nonce)
            posts.append((raw, f"node-{number:04d}.tar.gz", body))
        # Warm every gunicorn worker and the worker's processes before anything is timed.
        floor(st, posts[: 4 * args.clients], args.clients, args.timeout)
        cpu = _cpu(st)
        first = floor(st, posts, args.clients, args.timeout)
        print(f"{'floor (POST + no-op task), before':<58}{first:>8.1f} /s", flush=True)
        cpu_floor = _cpu(st)
        rate, figures = measured(
            st, posts, args.clients, args.timeout, [candidate for candidate, _r, _n in tokens]
        )
        cpu_import = _cpu(st)
        print(
            f"{f'import over HTTP, {args.bundles} bundles':<58}{rate:>8.1f} /s"
            f"  (POSTs done after {figures['posted_s']:.2f} s, last import at"
            f" {figures['imported_s']:.2f} s, scores up to date at {figures['elapsed_s']:.2f} s;"
            f" {figures['refreshes']} refreshes)",
            flush=True,
        )
        second = floor(st, posts, args.clients, args.timeout)
        print(f"{'floor (POST + no-op task), after':<58}{second:>8.1f} /s", flush=True)
        best = max(first, second)
        print(_cpu_line("CPU per bundle, floor (by process)", cpu, cpu_floor, len(posts)))
        print(_cpu_line("CPU per bundle, import (by process)", cpu_floor, cpu_import, len(posts)))
        ratio = rate / best
        load = os.getloadavg()
        print(f"{'load average (1, 5, 15 min)':<58}{load[0]:>8.2f} {load[1]:.2f} {load[2]:.2f}")
        ok = ratio >= RATIO_MIN
        verdict = (
            f"{'PASS' if ok else 'FAIL'} {args.bundles} bundles over HTTP: {rate:.1f}/s ="
            f" {ratio:.2f}x the floor of {best:.1f}/s (target >= {RATIO_MIN}x)"
        )
        return ok, verdict
    finally:
        st.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundles", type=int, default=200)
    parser.add_argument("--candidates", type=int, default=8, help="interleaved, one token each")
    parser.add_argument("--clients", type=int, default=4, help="concurrent HTTP clients")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--batch", type=int, default=0, help="EVIDENCE_IMPORT_BATCH (0: the portal's default)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the stack's directory")
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="cProfile gunicorn's requests and the worker's tasks into DIR/<role>-<pid>.prof"
        " (the figures then include the profiler's cost)",
    )
    args = parser.parse_args(argv)
    try:
        ok, verdict = run(args)
    except (BenchError, RuntimeError, TimeoutError) as exc:
        print(f"\nERROR {exc}", file=sys.stderr)
        return 2
    print("\n" + verdict)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
