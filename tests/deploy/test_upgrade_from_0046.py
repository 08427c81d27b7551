"""The upgrade an operator runs: a database migrated and filled by the previous release's own
code (the forty-six migrations before the squash), ``migrate`` with this release (0047 and
later), then ``evidence_reimport`` for the changed parsers, interrupted and run again, on a
private PostgreSQL and Redis."""

import io
import json
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import redis

from .conftest import ROOT, manage

# The first migration of the release after the one with 0046: the previous release's code is
# the tree just before it was added.
FIRST_AFTER_0046 = "portal/migrations/0047_access_change.py"
OLD_VERSION = "1.16.0"
SPREAD = {2: 300, 16: 1500}  # evaluation id (of the demo data) -> uploads parsed by OLD_VERSION

SEED = """
import json
from django.db import transaction
from django.contrib.auth import get_user_model
from portal.models import Candidate, DecisionRecord, Evaluation, EvidenceUpload, Measurement
from portal.services.evaluations import decision_record

spread = {spread}
EvidenceUpload.objects.update(parser_version={old!r})
decided = Evaluation.objects.get(pk=1)
with transaction.atomic():
    decision_record(
        evaluation=decided,
        candidate=decided.candidates.order_by("pk").first(),
        rationale="Chosen before the upgrade.",
        by=get_user_model().objects.get(username="manager"),
    )
model = EvidenceUpload.objects.filter(evaluation=decided).order_by("pk").first()
rows = []
for evaluation_id, count in spread.items():
    candidates = list(Candidate.objects.filter(evaluation_id=evaluation_id).order_by("pk"))
    for number in range(count):
        candidate = candidates[number % len(candidates)]
        rows.append(EvidenceUpload(
            candidate=candidate, evaluation_id=evaluation_id, file=model.file.name,
            original_name=f"node-{{number}}.txt", sha256=f"{{evaluation_id:08x}}{{number:056x}}",
            size_bytes=model.size_bytes, node_name=f"node-{{number}}", status="done",
            parser_version={old!r}, origin=model.origin,
        ))
EvidenceUpload.objects.bulk_create(rows, batch_size=1000)
"""

DECIDED_STATE = """
import json
from portal.models import DecisionRecord, Evaluation, EvidenceUpload, Measurement
print(json.dumps({
    "status": Evaluation.objects.get(pk=1).status,
    "records": [
        [r.pk, r.round, r.candidate_id, r.rationale, r.decided_at.isoformat(), r.snapshot]
        for r in DecisionRecord.objects.filter(evaluation_id=1).order_by("pk")
    ],
    "uploads": list(EvidenceUpload.objects.filter(evaluation_id=1).order_by("pk")
                    .values_list("pk", "status", "parser_version", "finished_at")),
    "measurements": list(Measurement.objects.filter(evaluation_id=1).order_by("pk")
                         .values_list("pk", "value")),
}, default=str))
"""

CONTENT_NODES = """
import json
from django.db.models import F
from portal.models import EvidenceUpload
uploads = EvidenceUpload.objects.all()
assert not uploads.exclude(content_node=F("node_name")).exists()
print(json.dumps({"keyed": uploads.exclude(content_node="").count()}))
"""

QUEUED = """
import json
from portal.models import EvidenceUpload
print(json.dumps({str(e): sorted(EvidenceUpload.objects.filter(evaluation_id=e, status="queued")
                  .values_list("pk", flat=True)) for e in (1, 2, 16)}))
"""


def _old_release(directory: Path) -> Path:
    """The previous release's code, from the repository's history: the tree just before the
    first migration after 0046 was added, without the squash (a database migrated by the
    forty-six old migrations). Its own models write the data: this release's models may hold
    columns that database does not have yet. Returns the tree's root."""
    first_new = subprocess.run(
        ["git", "log", "--diff-filter=A", "--format=%H", "-1", "--", FIRST_AFTER_0046],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert first_new, f"no history of {FIRST_AFTER_0046}: the test needs a git clone"
    directory.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", f"{first_new}^"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tree:
        tree.extractall(directory, filter="data")
    (directory / "portal" / "migrations" / "0001_squashed_0046.py").unlink()
    old = sorted((directory / "portal" / "migrations").glob("00*.py"))
    assert [p.name[:4] for p in old] == [f"{n:04d}" for n in range(1, 47)]
    return directory


# Runs manage.py as its own process and reports that process's peak RSS (KiB) on stderr, as
# the kernel keeps it for its own memory (VmHWM). Not getrusage: RUSAGE_CHILDREN of the test
# process counts every child the whole suite waited for (Chromium, gunicorn, workers), and a
# child's own ru_maxrss starts at its parent's RSS when it was forked (the pytest process, over
# 500 MB late in the suite).
MEASURED = (
    "import runpy, sys\n"
    "sys.argv = ['manage.py', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_path('manage.py', run_name='__main__')\n"
    "finally:\n"
    "    with open('/proc/self/status') as status:\n"
    "        peak = next(line.split()[1] for line in status if line.startswith('VmHWM:'))\n"
    "    print('maxrss_kib', peak, file=sys.stderr)\n"
)


def _manage_measured(env, *args: str) -> tuple[str, int]:
    """``manage.py *args`` (exit status 0 required) and its own peak RSS in KiB."""
    result = subprocess.run(
        [sys.executable, "-c", MEASURED, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, f"manage.py {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
    peak = [line for line in result.stderr.splitlines() if line.startswith("maxrss_kib ")]
    return result.stdout, int(peak[-1].split()[1])


def _shell(env, code: str) -> str:
    return manage(env, "shell", "-v0", "-c", code).stdout


def _messages(port: int) -> list[int]:
    """The upload id of every import message waiting in the Celery queue on Redis."""
    client = redis.Redis(port=port)
    try:
        raw = client.lrange("celery", 0, -1)
    finally:
        client.close()
    ids = []
    for message in raw:
        headers = json.loads(message)["headers"]
        if headers["task"] == "portal.tasks.evidence_import_task":
            ids.append(int(headers["argsrepr"].strip("(),")))
    return ids


def _reimport_until_it_waits(env) -> tuple[str, str, int]:
    """Run evidence_reimport and press Ctrl-C once it waits for the (absent) workers."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", "evidence_reimport", "--max-waiting", "100"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    deadline = time.monotonic() + 120
    for line in process.stdout:
        lines.append(line)
        if line.startswith("waiting for the workers") or time.monotonic() > deadline:
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    return "".join(lines) + out, err, process.returncode


def test_a_0046_database_migrates_and_reimports_once_through_an_interruption(
    private_stack, tmp_path
):
    private_stack.createdb("upgrade")
    env = private_stack.env("upgrade")
    previous = _old_release(tmp_path / "previous")

    # The previous release: its forty-six migrations, then its data (the demo, a decision,
    # uploads), each written by its own code.
    manage(env, "migrate", "--noinput", cwd=previous)
    applied = manage(env, "showmigrations", "portal", cwd=previous).stdout
    assert "[X] 0046_candidate_import_failure_mailed_at" in applied
    assert "0047" not in applied
    manage(env, "setup_demo", cwd=previous)
    manage(env, "shell", "-v0", "-c", SEED.format(spread=SPREAD, old=OLD_VERSION), cwd=previous)
    decided_before = json.loads(_shell(env, DECIDED_STATE))
    assert decided_before["status"] == "decided" and len(decided_before["records"]) == 1
    assert decided_before["measurements"]

    # This release: the squash counts as applied, 0047 runs, nothing is left to make or apply.
    migrated = manage(env, "migrate", "--noinput").stdout
    assert "Applying portal.0047_access_change... OK" in migrated
    assert "Applying portal.0048_upload_queued_at... OK" in migrated
    assert "Applying portal.0049_upload_unique_per_node... OK" in migrated
    # Unique per content before, so per content and node now: each upload's node is its key,
    # and the same file sent again for its node is still the upload received earlier.
    assert json.loads(_shell(env, CONTENT_NODES)) == {"keyed": 4 + sum(SPREAD.values())}
    assert "0001_squashed" not in migrated.split("Running migrations:")[1]
    manage(env, "migrate", "--check")
    assert "[X] 0001_squashed_0046" in manage(env, "showmigrations", "portal").stdout
    redis.Redis(port=private_stack.redis_port).flushdb()  # the demo's own tasks

    # Re-import: evaluation 1 is decided (kept), 2 is queued, then the run waits for the workers
    # (none run here) before 16, and is interrupted there.
    out, err, code = _reimport_until_it_waits(env)
    assert code != 0, out
    assert f"{4 + sum(SPREAD.values())} upload(s) of 3 evaluation(s)" in out
    assert "[1/3] evaluation 1: decided, kept 4; " in out
    assert "[2/3] evaluation 2: queued 300; " in out
    assert "waiting for the workers: 300 upload(s) queued" in out
    assert "interrupted after 2 of 3 evaluation(s)" in err
    queued = json.loads(_shell(env, QUEUED))
    assert len(queued["2"]) == 300 and queued["16"] == [] and queued["1"] == []
    assert sorted(_messages(private_stack.redis_port)) == queued["2"]

    # Run again: only what the interrupted run had not queued, each upload once.
    started = time.monotonic()
    again, again_peak_kib = _manage_measured(env, "evidence_reimport", "--max-waiting", "0")
    elapsed = time.monotonic() - started
    assert "[1/2] evaluation 1: decided, kept 4; " in again
    assert "[2/2] evaluation 16: queued 1500; " in again
    assert "queued 1500 upload(s) for import" in again
    queued = json.loads(_shell(env, QUEUED))
    messages = _messages(private_stack.redis_port)
    assert len(messages) == len(set(messages)) == 1800
    assert sorted(messages) == sorted(queued["2"] + queued["16"])
    # A third run, with the default wait: only the decided evaluation is left, nothing to wait for.
    third = manage(env, "evidence_reimport", timeout=60).stdout
    assert "[1/1] evaluation 1: decided, kept 4; " in third and "queued 0 upload(s)" in third
    assert len(_messages(private_stack.redis_port)) == 1800

    # The decision, its evaluation's uploads and measurements are as they were.
    assert json.loads(_shell(env, DECIDED_STATE)) == decided_before
    # Bounded: 1,800 uploads in seconds, the command's memory that of a Django process.
    assert elapsed < 60
    assert again_peak_kib < 400 * 1024
