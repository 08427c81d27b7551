"""Benchmark: the cost of one evidence import against the candidate's stored history.

Run: ``.venv/bin/python bench/import_history.py`` (from the repository root). Exits 1 when the
target is missed, 2 when the run could not be carried out (no PostgreSQL or Redis).

Target (issue #15, "Import cost flat in history"): the import of a candidate's 3,000th upload
takes at most 2x the import of its 20th, both measured in this run (median of ``--repeat``
imports at each size, the same 8-GPU collector bundle as ``bench/evidence.py`` with the
hostname varied over ``--nodes`` nodes so that each sha256 differs). The two sizes are two
candidates of one evaluation, one holding 19 uploads and the other 2,999, and their imports
alternate (the first of each pair swapped every round): on the shared machine the load moves
within a minute, and timing one size after the other measured that drift as well (the 20th
upload's 16 ms and the 3,000th's 43 ms, one minute apart while other work started, read as
2.7x; interleaved a few minutes later, 0.91x).

What is timed: ``portal.services.evidence.evidence_import`` in this process (claim, open and
parse the stored bundle, write measurements, identifiers and the per-node, per-kind evidence
summaries, re-verify and rescore the candidate), all in its database transaction. Upload
handling over HTTP is not in this figure (``bench/evidence.py`` and ``bench/soak.py`` time it).

The history is seeded with the state imports leave: the uploads' rows (finished, with the real
report of the bundle), their measurement rows (copied from a real import of the bundle) and
the candidate's evidence summaries rebuilt from every report. The same figure for the full
re-reading of every report (what verification did before the summaries) is printed beside it.

Big logs (``--big-log [MiB]``, 64 by default; ``--skip-history`` runs this part alone; target of
issue #15, "Big logs"): a collector bundle holding one nccl-tests log of that size (a real
sample's tables repeated) is submitted and imported in a fresh process, as a worker's: the
import takes under 10 s, and the importing process's peak RSS (``ru_maxrss``: its whole memory,
Django and all, not only what the import adds) stays under 4x the log's size. Printed beside:
the CPU time of the import (load on the shared machine inflates the wall time), the growth of
RSS over the process's idle size, and a floor measured in the same process just before: inflate
the stored tar.gz and decode and split its members into lines, 1 MiB at a time.

Runs on loopback in a database of its own (``gpuportal_bench_history``, dropped at the end),
a temporary MEDIA_ROOT, and a private Redis queue (the import tasks the submits publish are
never consumed; the queue is purged at the end).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

# bench/evidence.py: bundle, database and queue helpers
import evidence as shared

shared.DB_NAME = "gpuportal_bench_history"
RATIO_MAX = 2.0


def _submit(candidate, user, number: int, nodes: int):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.db import transaction

    from portal.services.evidence import evidence_submit

    data = shared.make_bundle(f"gpu-node-{number % nodes:02d}-{number}")
    with transaction.atomic():
        upload, created = evidence_submit(
            candidate=candidate,
            uploaded_file=SimpleUploadedFile(f"bundle-{number}.tar.gz", data),
            node_name=f"gpu-node-{number % nodes:02d}",
            user=user,
        )
    assert created
    return upload


def _timed_import(candidate, user, number: int, nodes: int) -> float:
    """Seconds of one import of upload ``number`` (submitted untimed) of ``candidate``."""
    from portal.models import EvidenceUpload, UploadStatus
    from portal.services.evidence import evidence_import

    upload = _submit(candidate, user, number, nodes)
    began = time.perf_counter()
    evidence_import(upload_id=upload.pk, task_id=f"bench-{upload.pk}")
    took = time.perf_counter() - began
    status = EvidenceUpload.objects.values_list("status", flat=True).get(pk=upload.pk)
    if status != UploadStatus.DONE:
        raise shared.BenchError(f"upload {upload.pk} ended {status}")
    return took


def _interleaved_imports(
    pair: tuple[Any, Any], user, repeat: int, nodes: int
) -> tuple[list[float], list[float]]:
    """``repeat`` imports into each candidate of ``pair``, alternating (the first of each
    pair of imports swapped every round), so that both sizes see the same load."""
    times: tuple[list[float], list[float]] = ([], [])
    for round_ in range(repeat):
        for side in (0, 1) if round_ % 2 == 0 else (1, 0):
            number = (1, 3)[side] * 10**6 + round_
            times[side].append(_timed_import(pair[side], user, number, nodes))
    return times


def _seed(candidate, template, count: int, start: int, nodes: int) -> None:
    """``count`` more finished uploads like ``template`` (its report and measurements)."""
    import hashlib

    from django.db import transaction

    from portal.db import copy_insert
    from portal.models import EvidenceUpload, Measurement, UploadStatus

    template_rows = list(Measurement.objects.filter(upload=template))
    with transaction.atomic():
        made = EvidenceUpload.objects.bulk_create(
            [
                EvidenceUpload(
                    candidate=candidate,
                    file=f"seeded/{number}",
                    original_name=f"bundle-{number}.tar.gz",
                    sha256=hashlib.sha256(f"seed-{number}".encode()).hexdigest(),
                    size_bytes=template.size_bytes,
                    node_name=f"gpu-node-{number % nodes:02d}",
                    status=UploadStatus.DONE,
                    report=template.report,
                    parser_version=template.parser_version,
                    origin=template.origin,
                    measured_at=template.measured_at,
                    fingerprint=template.fingerprint,
                    finished_at=template.finished_at,
                )
                for number in range(start, start + count)
            ],
            batch_size=500,
        )
        rows = []
        for upload in made:
            for row in template_rows:
                rows.append(
                    Measurement(
                        upload_id=upload.pk,
                        candidate_id=candidate.pk,
                        evaluation_id=candidate.evaluation_id,
                        kind=row.kind,
                        metric=row.metric,
                        value=row.value,
                        unit=row.unit,
                        node_name=upload.node_name,
                        source_file=row.source_file,
                        line=row.line,
                        details=row.details,
                        measured_at=row.measured_at,
                    )
                )
            if len(rows) > 50_000:
                copy_insert(Measurement, rows)
                rows = []
        copy_insert(Measurement, rows)
        from portal.services.scores import evidence_summaries_rebuild

        evidence_summaries_rebuild(candidate_id=candidate.pk)


BIG_LOG_S_MAX = 10.0
BIG_LOG_MEMORY_RATIO_MAX = 4.0
BIG_SAMPLE = "nccl_tests/h100-2node-4gpu-each-g4.txt"


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child_import(upload_id: int) -> None:
    """In a fresh process (as a worker's): import one upload; print time and memory."""
    import json
    import resource

    import django

    django.setup()
    from django.db import connection

    from portal.services.evidence import evidence_import

    connection.ensure_connection()
    floor_s = _line_floor(upload_id)
    idle = _rss_kib()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = usage.ru_utime + usage.ru_stime
    began = time.perf_counter()
    if os.environ.get("BENCH_PROFILE"):
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(evidence_import, upload_id=upload_id, task_id=f"big-{upload_id}")
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    else:
        evidence_import(upload_id=upload_id, task_id=f"big-{upload_id}")
    seconds = time.perf_counter() - began
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_before
    peak = usage.ru_maxrss
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu_s": cpu,
                "idle_kib": idle,
                "peak_kib": peak,
                "floor_s": floor_s,
            }
        )
    )


def _line_floor(upload_id: int) -> float:
    """The least an import of the upload does: inflate the stored tar.gz, decode each member
    1 MiB at a time as UTF-8 and split it into lines (seconds; nothing kept)."""
    import tarfile

    from portal.models import EvidenceUpload

    upload = EvidenceUpload.objects.get(pk=upload_id)
    began = time.perf_counter()
    lines = 0
    with upload.file.open("rb") as handle, tarfile.open(fileobj=handle, mode="r|gz") as archive:
        for info in archive:
            member = archive.extractfile(info)
            carry = b""
            while member is not None:
                block = member.read(1 << 20)
                if not block:
                    break
                block = carry + block
                end = block.rfind(b"\n") + 1
                carry = block[end:]
                lines += len(block[:end].decode("utf-8").splitlines())
            lines += len(carry.decode("utf-8").splitlines())
    assert lines > 0
    return time.perf_counter() - began


def big_log(candidate, user, megabytes: int) -> tuple[bool, str]:
    """A bundle holding one nccl log of ``megabytes`` MiB (a real sample's tables repeated),
    imported in a fresh process: time and peak RSS against the log's size."""

    import json
    import subprocess

    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.db import connections

    from portal.models import EvidenceUpload, Measurement
    from portal.services.evidence import evidence_submit

    sample = (shared.SAMPLES / BIG_SAMPLE).read_bytes()
    log = sample * (megabytes * 2**20 // len(sample))
    del sample
    import io
    import tarfile

    buffer = io.BytesIO()
    manifest = {
        "schema_version": 1,
        "collector_version": "1.0.0",
        "hostname": "big-node",
        "started_at": "2026-11-30T08:00:00+00:00",
        "finished_at": "2026-11-30T09:00:00+00:00",
        "nonce": None,
        "commands": [
            {
                "name": "nccl-all-reduce",
                "argv": ["all_reduce_perf", "-b", "8", "-e", "16G", "-f", "2", "-g", "4"],
                "output": "nccl-all-reduce.txt",
                "exit_code": 0,
                "duration_s": 3600,
            }
        ],
    }
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        raw = json.dumps(manifest).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(raw)
        archive.addfile(info, io.BytesIO(raw))
        info = tarfile.TarInfo("nccl-all-reduce.txt")
        info.size = len(log)
        archive.addfile(info, io.BytesIO(log))
    size = len(log)
    del log
    data = buffer.getvalue()
    upload, _created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile("big-log.tar.gz", data),
        node_name="big-node",
        user=user,
    )
    del data
    connections.close_all()
    done = subprocess.run(
        [sys.executable, __file__, "--child-import", str(upload.pk)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise shared.BenchError(f"the import process failed: {done.stderr[-2000:]}")
    if os.environ.get("BENCH_PROFILE"):
        print(done.stderr)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    upload = EvidenceUpload.objects.get(pk=upload.pk)
    rows = Measurement.objects.filter(upload=upload).count()
    growth = (figures["peak_kib"] - figures["idle_kib"]) * 1024
    ratio = figures["peak_kib"] * 1024 / size  # the worker's whole memory against the log
    print(
        f"{'big nccl log (MiB) / gzip upload (MiB)':<58}"
        f"{size / 2**20:>8.1f} / {upload.size_bytes / 2**20:.2f}"
    )
    if upload.error:
        print(f"big log import error: {upload.error[:500]}")
    print(f"{'big log import: status, measurement rows':<58}{upload.status:>8}, {rows}")
    print(f"{'big log import time':<58}{figures['seconds']:>8.2f} s")
    print(
        f"{'floor: inflate, decode and split the log into lines':<58}{figures['floor_s']:>8.2f} s"
        f"  (import = {figures['seconds'] / figures['floor_s']:.1f}x)"
    )
    print(f"{'big log import CPU time (user + system)':<58}{figures['cpu_s']:>8.2f} s")
    print(
        f"{'import process RSS idle / peak (MiB)':<58}"
        f"{figures['idle_kib'] / 1024:>8.0f} / {figures['peak_kib'] / 1024:.0f}"
    )
    print(
        f"{'peak RSS / log size (growth over idle / log size)':<58}{ratio:>8.2f}x"
        f"  ({growth / size:.2f}x)"
    )
    ok = upload.status == "done" and figures["seconds"] < BIG_LOG_S_MAX
    ok = ok and ratio < BIG_LOG_MEMORY_RATIO_MAX
    verdict = (
        f"{'PASS' if ok else 'FAIL'} {size / 2**20:.0f} MiB nccl log: {figures['seconds']:.1f} s"
        f" (target < {BIG_LOG_S_MAX:.0f} s; {figures['cpu_s']:.1f} s CPU;"
        f" {figures['seconds'] / figures['floor_s']:.1f}x the line floor), peak RSS of the"
        f" importing process {ratio:.2f}x the log (target < {BIG_LOG_MEMORY_RATIO_MAX:.0f}x;"
        f" growth over its idle {growth / size:.2f}x), {rows} measurement rows"
    )
    return ok, verdict


def run(args: argparse.Namespace) -> tuple[bool, str]:
    media_root = tempfile.mkdtemp(prefix="gpuportal-bench-history-")
    created_db = False
    try:
        shared._configure_django(media_root)
        shared._pg("dropdb", "--if-exists")
        shared._pg("createdb")
        created_db = True
        from django.core.management import call_command
        from django.db import connection

        call_command("migrate", verbosity=0)
        user, (candidate, large_candidate, other) = shared._setup_data(3)
        verdicts = []
        ok_all = True
        if args.big_log:
            ok, verdict = big_log(other, user, args.big_log)
            ok_all &= ok
            verdicts.append(verdict)
        if args.skip_history:
            return ok_all, "\n".join(verdicts)
        from portal.models import EvidenceUpload, Measurement
        from portal.services.scores import full_evidence, kept_evidence

        # The template: a real import of the bundle.
        _timed_import(candidate, user, 0, args.nodes)
        template = EvidenceUpload.objects.get(candidate=candidate)
        small, large = args.small, args.large
        # Each candidate's next upload is its ``small``-th and ``large``-th.
        _seed(candidate, template, small - 1 - 1, 1, args.nodes)
        _seed(large_candidate, template, large - 1, 2 * 10**6, args.nodes)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        stored = EvidenceUpload.objects.filter(candidate=candidate).count()
        stored_large = EvidenceUpload.objects.filter(candidate=large_candidate).count()
        floor, big = _interleaved_imports(
            (candidate, large_candidate), user, args.repeat, args.nodes
        )
        print(f"history {stored:>6} uploads: imports {[shared.ms(t) for t in floor]}")
        print(f"history {stored_large:>6} uploads: imports {[shared.ms(t) for t in big]}")
        candidate = large_candidate
        measurements = Measurement.objects.filter(candidate=candidate).count()

        candidate.refresh_from_db()
        began = time.perf_counter()
        kept = kept_evidence(candidate)
        kept_s = time.perf_counter() - began
        began = time.perf_counter()
        full = full_evidence(candidate)
        full_s = time.perf_counter() - began
        low, high = statistics.median(floor), statistics.median(big)
        ratio = high / low
        print(f"{'measurement rows of the candidate':<58}{measurements:>10}")
        print(f"{f'import at upload {small} (median of {args.repeat}): floor':<58}{shared.ms(low)}")
        print(f"{f'import at upload {large} (median of {args.repeat})':<58}{shared.ms(high)}")
        print(
            f"{f'evidence read from summaries at {large} ({len(kept)} files)':<58}"
            f"{shared.ms(kept_s)}"
        )
        print(
            f"{f'the same from every report at {large} ({len(full)} files)':<58}{shared.ms(full_s)}"
        )
        ok = ratio <= RATIO_MAX
        verdicts.append(
            f"{'PASS' if ok else 'FAIL'} import at upload {large} = {ratio:.2f}x upload {small}"
            f" (target <= {RATIO_MAX:.0f}x)"
        )
        return ok and ok_all, "\n".join(verdicts)
    finally:
        try:
            shared._purge_queue()
        except Exception as exc:
            print(f"warning: could not purge {shared.QUEUE}: {exc}", file=sys.stderr)
        if created_db:
            from django.db import connections

            connections.close_all()
            try:
                shared._pg("dropdb", "--if-exists", "--force")
            except shared.BenchError as exc:
                print(f"warning: {exc}", file=sys.stderr)
        shutil.rmtree(media_root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=20, help="the floor's upload number")
    parser.add_argument("--large", type=int, default=3000, help="the measured upload number")
    parser.add_argument("--repeat", type=int, default=7, help="imports timed at each size")
    parser.add_argument("--nodes", type=int, default=8, help="nodes the uploads come from")
    parser.add_argument(
        "--big-log",
        type=int,
        nargs="?",
        const=64,
        default=64,
        help="MiB of the nccl log imported (default 64; 0: skip)",
    )
    parser.add_argument("--skip-history", action="store_true")
    parser.add_argument("--child-import", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_import:
        child_import(args.child_import)
        return 0
    try:
        ok, verdict = run(args)
    except shared.BenchError as exc:
        print(f"\nERROR {exc}", file=sys.stderr)
        return 2
    print("\n" + verdict)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
