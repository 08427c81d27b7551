"""Benchmark of evidence import: prints the figures of the evidence issue's performance targets.

Run: ``.venv/bin/python bench/evidence.py`` (from the repository root). Exits 1 when a target is
missed (imports still unfinished after ``--timeout``, 180 s, count as missed: the figures of
those that finished are printed), 2 when the run could not be carried out (no PostgreSQL or
Redis, the worker died).

Targets:
- parse: opening and parsing one 8-GPU node's collector bundle (``open_evidence`` then
  ``parse_evidence_set`` on an in-memory tar.gz of the real tool outputs in ``bench/samples/``)
  costs at most 5x the floor, both measured in this run, interleaved, medians compared. The
  floor is the least a line-oriented reader does with the same bytes: take the uncompressed
  bytes of every archive member (``manifest.json`` included), decode them as UTF-8,
  ``str.splitlines()`` them and run one compiled regular expression (``NUMBER``: a decimal
  number with optional sign, fraction and exponent) with ``findall`` over each line. The floor
  neither inflates the gzip stream nor reads tar headers; the measured side does both.
- import: 500 distinct bundles (the same outputs, the manifest's hostname varied so that each
  sha256 differs) submitted through ``portal.services.evidence.evidence_submit``, each call in
  ``transaction.atomic`` as a request would be so that ``on_commit`` publishes the task to
  Redis, spread round-robin over ``--candidates`` candidates of one evaluation, and imported
  by ONE ``celery worker --pool prefork --concurrency 2`` subprocess (an import task takes
  along the waiting uploads of its candidate, up to ``EVIDENCE_IMPORT_BATCH``, read from the
  environment as by the portal): at least 50 bundles/s
  from the first submit to the last ``finished_at``. Latency per upload is
  ``finished_at - created_at`` (median and p95). ``finished_at`` is stamped inside the import's
  transaction just before the candidate is re-verified and rescored, so that last step is in
  the throughput (the next import waits for it) but not in the latency.

Also printed, to explain the figures: the parse time per file (content detection versus
parsing), the Celery dispatch ceiling of the same worker (no-op tasks), the worker's CPU time
per bundle (insensitive to other load on the machine), and where one import spends its time
(re-run in this process, with its SQL query count). ``--profile`` adds cProfile tables.

The import part runs on loopback only, in a database of its own (``gpuportal_bench_evidence``,
dropped at the end), a temporary MEDIA_ROOT and Redis db 14. Other runs may share that Redis
db (the browser tests use it too), so the broker side is made private instead of flushed: the
tasks go to a queue named after this process (``bench-evidence-<pid>``), the worker consumes
only that queue and answers pings under its own node name, and only this queue's keys (the
list, its binding, its entries in kombu's ``unacked`` hash and index) are purged before and
after.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import json
import math
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.noop import NOOP_UPLOAD_ID  # noqa: E402
from scoring.evidence.base import decode_text  # noqa: E402
from scoring.evidence.bundle import open_evidence, parse_evidence_set  # noqa: E402
from scoring.evidence.registry import detect_kind, parse_text  # noqa: E402

PARSE_RATIO_MAX = 5.0
THROUGHPUT_MIN_PER_S = 50.0
SAMPLES = Path(__file__).resolve().parent / "samples"

DB_NAME = "gpuportal_bench_evidence"
PG_HOST, PG_PORT, PG_USER = "127.0.0.1", "5432", "postgres"
BROKER_URL = "redis://127.0.0.1:6379/14"
QUEUE = f"bench-evidence-{os.getpid()}"
NODE = f"{QUEUE}@localhost"
NOOP_TASKS = 200

# One 8-GPU node as the collector bundles it: (command name, argv, output, real sample).
# Two nccl-tests runs: the collector's single-node all_reduce and a full 8 B-16 GiB sweep over
# 8 ranks. The only 8-GPU ``nvidia-smi -q`` sample kept is an excerpt (1.4 KB; a full one is
# about 50 KB), so this bundle (35 KB inflated) is on the small side of a real node's.
BUNDLE = (
    (
        "nccl-all-reduce",
        ["all_reduce_perf", "-b", "8", "-e", "1G", "-f", "2", "-g", "8"],
        "nccl-all-reduce.txt",
        "nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt",
    ),
    (
        "nccl-all-reduce-sweep",
        ["all_reduce_perf", "-b", "8", "-e", "16G", "-f", "2", "-g", "4"],
        "nccl-all-reduce-sweep.txt",
        "nccl_tests/h100-2node-4gpu-each-g4.txt",
    ),
    (
        "nvidia-smi-q",
        ["nvidia-smi", "-q"],
        "nvidia-smi-q.txt",
        "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt",
    ),
    (
        "nvidia-smi-topo",
        ["nvidia-smi", "topo", "-m"],
        "nvidia-smi-topo.txt",
        "nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt",
    ),
    (
        "nvidia-smi-nvlink",
        ["nvidia-smi", "nvlink", "-s"],
        "nvidia-smi-nvlink.txt",
        "nvidia_smi_nvlink/microway-dgx1-v100-status-capabilities-snip.txt",
    ),
    ("ibstat", ["ibstat"], "ibstat.txt", "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt"),
    ("lspci", ["lspci", "-nn"], "lspci.txt", "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt"),
    (
        "lscpu",
        ["lscpu"],
        "lscpu.txt",
        "cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",
    ),
    (
        "fio",
        ["fio", "--output-format=json", "--name=seq-write", "--rw=write", "--name=seq-read"],
        "fio.json",
        "fio/fio333-two-groups-stonewall-json-echoed.txt",
    ),
)

# The floor's one regular expression: a decimal number, what most parsers pull out of a line.
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


class BenchError(Exception):
    """The benchmark could not run (a service missing, a timeout); not a missed target."""


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:>9.2f} ms"


def per_call(function: Callable[[], Any], calls: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - start) / calls


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(len(ordered) * pct / 100) - 1))]


def profile(function: Callable[[], Any], *, sort: str, limit: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    function()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(sort).print_stats(limit)
    print("\n" + out.getvalue().strip())


# --------------------------------------------------------------------------- parse


def make_bundle(hostname: str, nonce: str | None = None) -> bytes:
    """A collector-style tar.gz of the samples in ``BUNDLE``; ``hostname`` varies its sha256,
    ``nonce`` (an upload token's) makes it import as collector evidence."""
    commands, files = [], []
    for name, argv, output, sample in BUNDLE:
        commands.append(
            {"name": name, "argv": argv, "output": output, "exit_code": 0, "duration_s": 1.5}
        )
        files.append((output, (SAMPLES / sample).read_bytes()))
    manifest = {
        "schema_version": 1,
        "collector_version": "1.0.0",
        "hostname": hostname,
        "started_at": "2026-11-30T08:00:00+00:00",
        "finished_at": "2026-11-30T08:04:10+00:00",
        "nonce": nonce,
        "commands": commands,
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for output, data in [("manifest.json", json.dumps(manifest, indent=1).encode()), *files]:
            info = tarfile.TarInfo(output)
            info.size, info.mtime, info.mode = len(data), 1795939200, 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def member_bytes(bundle: bytes) -> list[bytes]:
    """The uncompressed bytes of every member of ``bundle``: the floor's input."""
    with tarfile.open(fileobj=io.BytesIO(bundle), mode="r:gz") as archive:
        return [archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()]


def parse_bundle(bundle: bytes) -> list[Any]:
    return parse_evidence_set(open_evidence("gpu-node-01.tar.gz", bundle))


def floor(members: list[bytes]) -> int:
    """Decode, split into lines and run ``NUMBER`` over each line; returns the match count."""
    found = 0
    for data in members:
        for line in data.decode("utf-8").splitlines():
            found += len(NUMBER.findall(line))
    return found


def bench_parse(args: argparse.Namespace) -> tuple[bool, str]:
    bundle = make_bundle("gpu-node-01")
    members = member_bytes(bundle)
    failed = [f"{r.file}: {r.error}" for r in parse_bundle(bundle) if not r.ok]
    if failed:
        raise BenchError("the benchmark bundle does not parse cleanly: " + "; ".join(failed))
    gc.collect()
    # One parse per round; the floor is ~10x cheaper, so it runs several times per round and
    # its mean is that round's figure. Interleaved, so both see the same load on the machine.
    parse_times, floor_times = [], []
    for _ in range(args.repeat):
        parse_times.append(per_call(lambda: parse_bundle(bundle)))
        floor_times.append(per_call(lambda: floor(members), max(1, args.floor_calls)))
    parse_median = statistics.median(parse_times)
    floor_median = statistics.median(floor_times)
    ratio = parse_median / floor_median
    inflated = sum(len(m) for m in members)
    lines = sum(len(m.splitlines()) for m in members)

    print("== parse one 8-GPU node's bundle")
    print(
        f"{len(BUNDLE)} outputs + manifest.json: {inflated:,} bytes inflated ({len(bundle):,} "
        f"gzipped), {lines:,} lines; {args.repeat} interleaved rounds"
    )
    print(f"{'figure':<50}{'median':>12}{'min':>12}")
    print(f"{'open_evidence + parse_evidence_set':<50}{ms(parse_median)}{ms(min(parse_times))}")
    floor_name = "floor: decode + splitlines + NUMBER.findall"
    print(f"{floor_name:<50}{ms(floor_median)}{ms(min(floor_times))}")
    print(f"{'ratio':<50}{ratio:>11.1f}×")
    parse_breakdown(bundle, args.repeat)
    if args.profile:
        profile(lambda: [parse_bundle(bundle) for _ in range(20)], sort="tottime", limit=20)
    ok = ratio <= PARSE_RATIO_MAX
    return ok, (
        f"{'ok  ' if ok else 'FAIL'} parse / floor: {ratio:.1f}× (target ≤ {PARSE_RATIO_MAX:g}×)"
    )


def parse_breakdown(bundle: bytes, repeat: int) -> None:
    """Where one parse spends its time: opening the archive, then per file detect and parse."""
    evidence = open_evidence("gpu-node-01.tar.gz", bundle)

    def median_of(function: Callable[[], Any]) -> float:
        return statistics.median(per_call(function) for _ in range(repeat))

    print(f"\nwhere a parse spends its time (medians of {repeat}):")
    print(f"{'step':<50}{'bytes':>8}{'detect_kind':>12}{'parse_text':>12}")
    opening = median_of(lambda: open_evidence("gpu-node-01.tar.gz", bundle))
    print(f"{'open_evidence (gunzip, tar, manifest)':<50}{len(bundle):>8}{'':>12}{ms(opening)}")
    detect_total = parse_total = 0.0
    for member in evidence.members:
        text = decode_text(member.data)
        kind = detect_kind(text)
        detect = median_of(lambda text=text: detect_kind(text))
        parse = median_of(lambda text=text, kind=kind: parse_text(text, kind))
        detect_total += detect
        parse_total += parse
        label = f"{member.name} ({kind})"
        print(f"{label:<50}{len(member.data):>8}{ms(detect)}{ms(parse)}")
    print(f"{'all files':<50}{'':>8}{ms(detect_total)}{ms(parse_total)}")


# --------------------------------------------------------------------------- import: set-up


def _pg(*command: str) -> None:
    done = subprocess.run(
        [*command, "-h", PG_HOST, "-p", PG_PORT, "-U", PG_USER, "-w", DB_NAME],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"{' '.join(command)} {DB_NAME} failed: {done.stderr.strip()}")


def _redis():
    import redis

    return redis.Redis.from_url(BROKER_URL, socket_timeout=5)


def _unacked_tags(client) -> list[bytes]:
    """Delivery tags of this queue's messages held in kombu's ``unacked`` hash (acks_late)."""
    tags = []
    for tag, raw in client.hgetall("unacked").items():
        with contextlib.suppress(ValueError, TypeError, IndexError):
            if json.loads(raw)[2] == QUEUE:  # [message, exchange, routing key]
                tags.append(tag)
    return tags


def _pending_messages(client) -> int:
    return client.llen(QUEUE) + len(_unacked_tags(client))


def _purge_queue() -> None:
    """Remove this run's queue, its binding and its unacked messages; nothing of others'."""
    client = _redis()
    try:
        tags = _unacked_tags(client)
        if tags:
            client.hdel("unacked", *tags)
            client.zrem("unacked_index", *tags)
        client.delete(QUEUE, f"_kombu.binding.{QUEUE}", f"_kombu.binding_permanent.{QUEUE}")
    finally:
        client.close()


def _configure_django(media_root: str) -> dict[str, str]:
    env = {
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "DATABASE_URL": f"postgres://{PG_USER}@{PG_HOST}:{PG_PORT}/{DB_NAME}",
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "SECRET_KEY": "bench-evidence-only-7c1e9a3f5b2d4e6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c5e7",
        "DEBUG": "0",
        "SECURE_SSL_REDIRECT": "0",
        "STATIC_MANIFEST": "0",
        "MEDIA_ROOT": media_root,
        "ALLOWED_HOSTS": "127.0.0.1",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    import django

    django.setup()
    from portal.celery import app

    # Before the first task is sent: the router and queues are built lazily from this.
    app.conf.task_default_queue = QUEUE
    return env


def _setup_data(candidates: int) -> tuple[Any, list[Any]]:
    """One evaluation with ``candidates`` 8x H100 offerings, half the checklist answered."""
    from decimal import Decimal

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from portal.models import ChecklistItem, Evaluation, Membership, Offering, Role, Vendor
    from portal.services.evaluations import answer_save, candidate_add

    call_command("loaddata", "checklist", verbosity=0)
    user = get_user_model().objects.create_user(username="bench-procurement", password=None)
    evaluation = Evaluation.objects.create(
        name="Bench: pre-train on 64 GPUs",
        workload_profile="pretraining",
        required_total_gpus=64,
        required_gpu_memory_gib=80,
        duration_days=90,
    )
    Membership.objects.create(evaluation=evaluation, user=user, role=Role.PROCUREMENT)
    claims = {
        "gpu_match": "8x H100 SXM5 80GB per node",
        "nvlink_topology": "full_mesh",
        "fabric": "InfiniBand NDR 400, 8 rails, 1:1",
        "local_nvme": "8x 3.84 TB NVMe, 25 GB/s read",
        "sla": "99.9 %, 4 h hardware replacement",
    }
    items = {item.key: item for item in ChecklistItem.objects.all()}
    made = []
    for number in range(candidates):
        offering = Offering.objects.create(
            vendor=Vendor.objects.create(name=f"Bench vendor {number}", mlps_level=3),
            name=f"8x H100 bare metal #{number}",
            delivery_form="bare_metal",
            gpu_model="NVIDIA H100 SXM5 80GB",
            gpu_form_factor="sxm",
            gpus_per_node=8,
            gpu_memory_gib=80,
            nvlink_topology="full_mesh",
            fabric="infiniband",
            fabric_rate_gbit_s=400,
            nics_per_node=8,
            sla_availability_pct=Decimal("99.9"),
        )
        candidate = candidate_add(evaluation=evaluation, offering=offering, node_count=8, by=user)
        for key, claim in claims.items():
            answer_save(candidate=candidate, item=items[key], by=user, claim=claim)
        made.append(candidate)
    return user, made


# --------------------------------------------------------------------------- import: worker


class Worker:
    """ONE ``celery worker`` subprocess (prefork, 2 processes) in a session of its own."""

    def __init__(self, env: dict[str, str], log_path: Path):
        self.log_path = log_path
        with open(log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable, "-m", "celery", "-A", "portal", "worker",
                    "--pool", "prefork", "--concurrency", "2",
                    "--without-mingle", "--without-gossip", "--loglevel", "WARNING",
                    "--hostname", NODE, "--queues", QUEUE,
                ],
                cwd=ROOT, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def wait_ready(self, timeout_s: float) -> None:
        from celery import Celery

        probe = Celery(broker=BROKER_URL, set_as_current=False)
        try:
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                self.check_alive()
                if probe.control.ping(destination=[NODE], timeout=0.5):
                    return
        finally:
            probe.close()
        raise BenchError(
            f"the worker did not answer a ping in {timeout_s:g} s; see {self.log_path}"
        )

    def check_alive(self) -> None:
        if self.process.poll() is not None:
            raise BenchError(
                f"the worker exited (code {self.process.returncode}); see {self.log_path}"
            )

    def cpu_seconds(self) -> float | None:
        """User + system CPU time of the worker and its live pool processes (Linux /proc)."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0
        try:
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit():
                    continue
                with contextlib.suppress(OSError):
                    fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
                    # After the command name: state, ppid, ... utime and stime are 12th, 13th.
                    if entry.name == str(self.process.pid) or fields[1] == str(self.process.pid):
                        total += int(fields[11]) + int(fields[12])
        except OSError:
            return None
        return total / ticks

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        # Signal its own process group, so the prefork children go with their parent.
        os.killpg(self.process.pid, 15)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()


def _wait(until: Callable[[], bool], worker: Worker, deadline: float, what: str) -> None:
    while not until():
        worker.check_alive()
        if time.monotonic() > deadline:
            raise BenchError(f"gave up waiting for {what}; see {worker.log_path}")
        time.sleep(0.05)


def dispatch_ceiling(worker: Worker, deadline: float) -> tuple[float, float | None]:
    """No-op tasks per second through Redis and this worker, and worker CPU per no-op task."""
    from portal.tasks import evidence_import_task

    client = _redis()
    try:
        cpu_before = worker.cpu_seconds()
        start = time.monotonic()
        for _ in range(NOOP_TASKS):
            evidence_import_task.delay(NOOP_UPLOAD_ID)
        _wait(
            lambda: _pending_messages(client) == 0,
            worker,
            deadline,
            "the no-op tasks",
        )
        elapsed = time.monotonic() - start
        cpu_after = worker.cpu_seconds()
    finally:
        client.close()
    cpu = None if cpu_before is None or cpu_after is None else (cpu_after - cpu_before) / NOOP_TASKS
    return NOOP_TASKS / elapsed, cpu


# --------------------------------------------------------------------------- import: run


def bench_import(args: argparse.Namespace) -> tuple[bool, str]:
    media_root = tempfile.mkdtemp(prefix="gpuportal-bench-media-")
    log_path = Path(media_root) / "worker.log"
    worker: Worker | None = None
    created_db = False
    load_before = os.getloadavg()
    try:
        env = _configure_django(media_root)
        _pg("dropdb", "--if-exists")
        _pg("createdb")
        created_db = True
        _purge_queue()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        user, candidates = _setup_data(args.candidates)
        bundles = [make_bundle(f"gpu-node-{i:04d}") for i in range(args.bundles)]
        worker = Worker(env, log_path)
        deadline = time.monotonic() + args.timeout
        worker.wait_ready(60.0)
        ceiling, noop_cpu = dispatch_ceiling(worker, deadline)
        ok, verdict = _run_import(args, user, candidates, bundles, worker, deadline)
        print(
            f"{f'dispatch ceiling ({NOOP_TASKS} no-op tasks, just before)':<50}{ceiling:>10.1f} /s"
        )
        if noop_cpu is not None:
            print(f"{'worker CPU per no-op task':<50}{noop_cpu * 1e3:>10.1f} ms")
        load_after = os.getloadavg()
        print(
            f"{'machine load average before / after (1 min)':<50}"
            f"{load_before[0]:>7.2f} / {load_after[0]:.2f} on {os.cpu_count()} CPUs"
        )
        worker.stop()
        import_breakdown(candidates[0], args.profile, args.queries)
        return ok, verdict
    finally:
        if worker is not None:
            worker.stop()
        try:
            _purge_queue()
        except Exception as exc:  # cleanup goes on; say what was left behind
            print(f"warning: could not purge {QUEUE} on {BROKER_URL}: {exc}", file=sys.stderr)
        if created_db:
            from django.db import connections

            connections.close_all()
            try:
                _pg("dropdb", "--if-exists", "--force")
            except BenchError as exc:
                print(f"warning: {exc}", file=sys.stderr)
        if args.keep_log and log_path.exists():
            kept = Path(tempfile.gettempdir()) / f"bench-evidence-worker-{os.getpid()}.log"
            shutil.copyfile(log_path, kept)
            print(f"worker log kept at {kept}")
        shutil.rmtree(media_root, ignore_errors=True)


def _history_rows() -> int:
    from portal.models import Answer, Candidate

    return Answer.history.count() + Candidate.history.count()


def _run_import(args, user, candidates, bundles, worker, deadline) -> tuple[bool, str]:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.db import transaction

    from portal.models import EvidenceUpload, UploadStatus
    from portal.services.evidence import evidence_submit

    history_before = _history_rows()
    cpu_before = worker.cpu_seconds()
    ids: list[int] = []
    submit_times: list[float] = []
    first_submit = datetime.now(UTC)
    start = time.monotonic()
    for number, data in enumerate(bundles):
        if args.rate > 0:
            time.sleep(max(0.0, start + number / args.rate - time.monotonic()))
        began = time.perf_counter()
        with transaction.atomic():
            upload, created = evidence_submit(
                candidate=candidates[number % len(candidates)],
                uploaded_file=SimpleUploadedFile(
                    f"gpu-node-{number:04d}.tar.gz", data, "application/gzip"
                ),
                user=user,
            )
        submit_times.append(time.perf_counter() - began)
        if not created:
            raise BenchError(f"bundle {number} was taken for a duplicate of an earlier one")
        ids.append(upload.pk)
    submitted_in = time.monotonic() - start

    uploads = EvidenceUpload.objects.filter(pk__in=ids)
    finished = uploads.filter(finished_at__isnull=False)
    timed_out = False
    try:
        _wait(lambda: finished.count() == len(ids), worker, deadline, "the imports")
    except BenchError:
        if worker.process.poll() is not None:
            raise
        # Too slow is a missed target, not a failed run: report what did finish.
        timed_out = True
    gave_up_at = datetime.now(UTC)
    cpu_after = worker.cpu_seconds()

    rows = list(finished.values("status", "created_at", "started_at", "finished_at"))
    if not rows:
        raise BenchError(f"no import finished in {args.timeout:g} s (try --keep-log)")
    failed = [r for r in rows if r["status"] != UploadStatus.DONE]
    end = gave_up_at if timed_out else max(r["finished_at"] for r in rows)
    wall = (end - first_submit).total_seconds()
    throughput = len(rows) / wall
    latency = [(r["finished_at"] - r["created_at"]).total_seconds() for r in rows]
    queued = [(r["started_at"] - r["created_at"]).total_seconds() for r in rows]
    importing = [(r["finished_at"] - r["started_at"]).total_seconds() for r in rows]

    pace = f"at {args.rate:g}/s" if args.rate > 0 else "as fast as possible"
    print(f"\n== import {len(ids)} bundles through Redis and one worker (prefork, 2 processes)")
    if timed_out:
        print(
            f"GAVE UP after {args.timeout:g} s with {len(rows)} of {len(ids)} imported: the "
            "figures below cover those, and the wall time ends when the run gave up"
        )
    print(
        f"{len(candidates)} candidates (~{len(rows) / len(candidates):.0f} uploads each); "
        f"submitted {pace} in {submitted_in:.2f} s "
        f"(evidence_submit median {statistics.median(submit_times) * 1e3:.1f} ms)"
    )
    print(f"{'figure (latencies: median / p95)':<50}{'value':>14}")
    wall_name = "wall time, first submit to " + ("giving up" if timed_out else "last finished_at")
    print(f"{wall_name:<50}{wall:>12.2f} s")
    print(f"{'throughput':<50}{throughput:>10.1f} /s")
    for name, values in (
        ("upload to imported (finished - created)", latency),
        ("  queued (started - created)", queued),
        ("  importing (finished - started)", importing),
    ):
        shown = f"{statistics.median(values):.3f} / {percentile(values, 95):.3f} s"
        print(f"{name:<50}{shown:>16}")
    if cpu_before is not None and cpu_after is not None:
        per_bundle = (cpu_after - cpu_before) / len(rows)
        print(f"{'worker CPU per bundle':<50}{per_bundle * 1e3:>10.1f} ms")
        print(f"{'  so 2 free CPUs could import at most':<50}{2 / per_bundle:>10.1f} /s")
    print(
        f"{'audit history rows written by the imports':<50}{_history_rows() - history_before:>10}"
    )
    if failed:
        print(f"FAIL {len(failed)} uploads did not import (status {failed[0]['status']!r})")
    ok = throughput >= THROUGHPUT_MIN_PER_S and not failed and not timed_out
    return ok, (
        f"{'ok  ' if ok else 'FAIL'} import: {throughput:.1f} bundles/s "
        f"(target ≥ {THROUGHPUT_MIN_PER_S:g}/s); upload to imported median "
        f"{statistics.median(latency):.2f} s, p95 {percentile(latency, 95):.2f} s"
        + (
            f"; gave up after {args.timeout:g} s, {len(rows)} of {len(ids)} imported"
            if timed_out
            else ""
        )
    )


@contextlib.contextmanager
def _timed(targets: list[tuple[Any, str]], spent: dict[str, list[float]]) -> Iterator[None]:
    """Time calls of ``module.name`` for each target (module attributes looked up at call)."""
    originals = []
    for module, name in targets:
        original = getattr(module, name)
        originals.append((module, name, original))

        def timed(*a: Any, _original=original, _key=name, **kw: Any) -> Any:
            start = time.perf_counter()
            try:
                return _original(*a, **kw)
            finally:
                spent.setdefault(_key, []).append(time.perf_counter() - start)

        setattr(module, name, timed)
    try:
        yield
    finally:
        for module, name, original in originals:
            setattr(module, name, original)


def import_breakdown(
    candidate: Any, with_profile: bool, with_queries: bool = False, count: int = 10
) -> None:
    """Re-import ``count`` of ``candidate``'s uploads in this process, one at a time."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from portal.models import EvidenceUpload, UploadStatus
    from portal.services import evidence, scores
    from portal.services.evidence import importing, outcome, write

    ids = list(
        EvidenceUpload.objects.filter(candidate=candidate)
        .order_by("pk")
        .values_list("pk", flat=True)
    )[:count]
    total = EvidenceUpload.objects.filter(candidate=candidate).count()

    def reimport(pk: int) -> None:
        EvidenceUpload.objects.filter(pk=pk).update(
            status=UploadStatus.QUEUED, task_id="", claim_token=""
        )
        evidence.evidence_import(upload_id=pk, task_id=f"bench-{pk}")

    spent: dict[str, list[float]] = {}
    totals, queries = [], []
    targets = [
        (importing, "_claim"),
        (outcome, "open_evidence"),
        (outcome, "parse_evidence_set"),
        (outcome, "_measurements"),
        (write, "_finish"),
        (scores, "candidate_refresh"),
        (scores, "_verify"),
        (scores, "_store_scores"),
    ]
    with _timed(targets, spent):
        for pk in ids:
            with CaptureQueriesContext(connection) as captured:
                totals.append(per_call(lambda pk=pk: reimport(pk)))
            queries.append(len(captured.captured_queries))
    print(
        f"\nwhere one import spends its time: {len(ids)} of a candidate's {total} uploads "
        "re-imported in this process, one at a time, worker stopped (medians)"
    )
    print(f"{'evidence_import (incl. the reset UPDATE)':<50}{ms(statistics.median(totals))}")
    labels = {
        "_claim": "  _claim (conditional UPDATE)",
        "open_evidence": "  open_evidence (stored file)",
        "parse_evidence_set": "  parse_evidence_set",
        "_measurements": "  _measurements (rows in memory)",
        "_finish": "  _finish (one transaction, incl. below)",
        "candidate_refresh": "    candidate_refresh",
        "_verify": "      _verify (all the candidate's uploads)",
        "_store_scores": "      _store_scores (score + 6 rows)",
    }
    for key, label in labels.items():
        if key in spent:
            print(f"{label:<50}{ms(statistics.median(spent[key]))}")
    print(f"{'SQL queries per import':<50}{statistics.median(queries):>10.0f}")
    if with_queries:
        with CaptureQueriesContext(connection) as captured:
            reimport(ids[-1])
        print(f"\nthe SQL of one import ({len(captured.captured_queries)} queries)")
        for query in captured.captured_queries:
            print(f"{query['time']:>7}s  {query['sql'][:160]}")
    if with_profile:
        profile(lambda: [reimport(pk) for pk in ids], sort="cumulative", limit=30)


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=31, help="interleaved parse/floor rounds")
    parser.add_argument("--floor-calls", type=int, default=20, help="floor calls per round")
    parser.add_argument("--bundles", type=int, default=500, help="bundles to import")
    parser.add_argument(
        "--candidates", type=int, default=10, help="candidates the uploads are spread over"
    )
    parser.add_argument(
        "--rate", type=float, default=0, help="submits per second (0: as fast as possible)"
    )
    parser.add_argument("--timeout", type=float, default=180, help="give up after (s)")
    parser.add_argument("--skip-parse", action="store_true")
    parser.add_argument("--skip-import", action="store_true")
    parser.add_argument("--profile", action="store_true", help="also print cProfile tables")
    parser.add_argument("--queries", action="store_true", help="also print one import's SQL")
    parser.add_argument("--keep-log", action="store_true", help="keep the worker's log")
    args = parser.parse_args(argv)

    verdicts: list[str] = []
    all_ok = True
    try:
        for skip, bench in ((args.skip_parse, bench_parse), (args.skip_import, bench_import)):
            if not skip:
                ok, verdict = bench(args)
                all_ok &= ok
                verdicts.append(verdict)
    except BenchError as exc:
        print(f"\nERROR {exc}", file=sys.stderr)
        return 2
    print("\n" + "\n".join(verdicts))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
