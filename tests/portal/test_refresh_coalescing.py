"""A burst of imports of one candidate is re-verified and rescored at most once per
EVIDENCE_REFRESH_INTERVAL_S: imports finishing sooner after the last refresh leave a pending
refresh (written in their transaction), run by a task due at its time, or by the sweeper when
that task is lost; the results are then those refreshing after every import would give."""

import json
import re
import time
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from portal.models import Candidate, Evaluation, EvidenceUpload, PendingRefresh, Score, UploadStatus
from portal.services import scores
from portal.services.evidence import evidence_import, evidence_submit, evidence_sweep
from portal.services.scores import candidate_refresh, candidate_refresh_pending

from .conftest import make_bundle, sample_bytes, stored_refresh

pytestmark = pytest.mark.django_db


def _bundle(node: str, variant: int = 0) -> bytes:
    nccl = ("nccl-a100-8gpu.txt", "nccl-h100-2node.txt")[variant]
    ibstat = ("ibstat-roce-some-down.txt", "ibstat-roce-some-down.txt")[variant]
    return make_bundle(
        {"nccl.txt": sample_bytes(nccl), "ibstat.txt": sample_bytes(ibstat)}, hostname=node
    )


def _submit(candidate, node: str, variant: int = 0) -> EvidenceUpload:
    upload, created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile(f"{node}-{variant}.tar.gz", _bundle(node, variant)),
    )
    assert created
    return upload


def _import(candidate, node: str, variant: int = 0) -> EvidenceUpload:
    upload = _submit(candidate, node, variant)
    evidence_import(upload_id=upload.pk, task_id=f"t{upload.pk}")
    upload.refresh_from_db()
    # With a real worker running (a committing test), the task the submit queued may have
    # claimed the upload first: the import here then leaves it to that one, and it is done
    # when the worker is (exactly once either way).
    deadline = time.monotonic() + 30
    while upload.status == UploadStatus.PROCESSING and time.monotonic() < deadline:
        time.sleep(0.05)
        upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE
    return upload


def _numbered(candidate_id: int) -> str:
    """``stored_refresh`` as JSON text, each of the candidate's upload ids (which the explanations
    cite) replaced by its rank among them: two candidates' uploads have different ids."""
    ids = EvidenceUpload.objects.filter(candidate_id=candidate_id).order_by("pk")
    rank = {str(pk): f"#{number}" for number, pk in enumerate(ids.values_list("pk", flat=True))}
    text = json.dumps(stored_refresh(candidate_id), sort_keys=True, ensure_ascii=False)
    text = re.sub(
        r'(upload |上传 |"upload": |"upload_id": )(\d+)',
        lambda m: m.group(1) + rank.get(m.group(2), m.group(2)),
        text,
    )
    # The dates each verdict's evidence was measured on, keyed by upload id.
    text = re.sub(
        r'"(\d+)": ("\d{4}-\d{2}-\d{2}")',
        lambda m: f'"{rank.get(m.group(1), m.group(1))}": {m.group(2)}',
        text,
    )
    assert re.search(r"upload #\d", text), "the explanations cite the uploads"
    return text


def test_a_burst_is_refreshed_once_and_ends_as_a_refresh_after_every_import(
    candidate, settings, django_capture_on_commit_callbacks
):
    settings.EVIDENCE_REFRESH_INTERVAL_S = 60.0
    _import(candidate, "gpu-node-1")  # never refreshed before: at once
    first = Candidate.objects.get(pk=candidate.pk).scored_at
    assert first is not None
    assert not PendingRefresh.objects.filter(candidate=candidate).exists()

    # Within the interval: the import leaves a refresh due 60 s after the last one, and one
    # task for it once its transaction commits; the later imports add nothing to either.
    with django_capture_on_commit_callbacks() as callbacks:
        _import(candidate, "gpu-node-2")
        _import(candidate, "gpu-node-3", variant=1)
        _import(candidate, "gpu-node-1", variant=1)
    pending = PendingRefresh.objects.get(candidate=candidate)
    assert pending.due_at == first + timedelta(seconds=60)
    refresh_tasks = [c for c in callbacks if "candidate_refresh_after_import" in c.__qualname__]
    assert len(refresh_tasks) == 1
    assert Candidate.objects.get(pk=candidate.pk).scored_at == first, "not refreshed meanwhile"

    assert candidate_refresh_pending(candidate_id=candidate.pk) is not None
    assert not PendingRefresh.objects.filter(candidate=candidate).exists()
    caught_up = stored_refresh(candidate.pk)
    assert Candidate.objects.get(pk=candidate.pk).scored_at > first
    # What refreshing after the last import would have stored: a refresh now changes nothing.
    candidate_refresh(candidate_id=candidate.pk)
    assert stored_refresh(candidate.pk) == caught_up
    # A second run of the task (a redelivered message) finds nothing to do.
    assert candidate_refresh_pending(candidate_id=candidate.pk) is None


def test_coalesced_results_equal_a_refresh_after_each_import(
    candidate, evaluation, offering, settings
):
    """Two candidates of the same offering in two like evaluations, given the same evidence in
    the same order, one refreshed after each import and one coalesced, store the same
    verification, knockouts and scores."""
    copied = ("name", "workload_profile", "required_total_gpus", "required_gpu_memory_gib")
    twin_evaluation = Evaluation.objects.create(
        duration_days=evaluation.duration_days,
        **{name: getattr(evaluation, name) for name in copied},
    )
    twin = Candidate.objects.create(evaluation=twin_evaluation, offering=offering, node_count=2)
    steps = [("gpu-node-1", 0), ("gpu-node-2", 1), ("gpu-node-1", 1), ("gpu-node-3", 0)]
    settings.EVIDENCE_REFRESH_INTERVAL_S = 0
    for node, variant in steps:
        _import(twin, node, variant)
    settings.EVIDENCE_REFRESH_INTERVAL_S = 60.0
    for node, variant in steps:
        _import(candidate, node, variant)
    assert PendingRefresh.objects.filter(candidate=candidate).exists()
    candidate_refresh_pending(candidate_id=candidate.pk)
    assert _numbered(candidate.pk) == _numbered(twin.pk)


def test_an_import_after_the_interval_refreshes_at_once(candidate, settings):
    settings.EVIDENCE_REFRESH_INTERVAL_S = 60.0
    _import(candidate, "gpu-node-1")
    Candidate.objects.filter(pk=candidate.pk).update(
        scored_at=timezone.now() - timedelta(seconds=61)
    )
    _import(candidate, "gpu-node-2")
    assert not PendingRefresh.objects.filter(candidate=candidate).exists()
    assert Candidate.objects.get(pk=candidate.pk).scored_at > timezone.now() - timedelta(seconds=5)


def test_a_pending_refresh_waits_for_an_upload_still_queued(candidate, settings):
    """The task due while another upload waits drops its mark and leaves the refresh to that
    import, which refreshes or leaves a new pending refresh: none is lost."""
    settings.EVIDENCE_REFRESH_INTERVAL_S = 60.0
    _import(candidate, "gpu-node-1")
    _import(candidate, "gpu-node-2")
    assert PendingRefresh.objects.filter(candidate=candidate).exists()
    waiting = _submit(candidate, "gpu-node-3")
    scored_at = Candidate.objects.get(pk=candidate.pk).scored_at
    assert candidate_refresh_pending(candidate_id=candidate.pk) is None
    assert not PendingRefresh.objects.filter(candidate=candidate).exists()
    assert Candidate.objects.get(pk=candidate.pk).scored_at == scored_at

    evidence_import(upload_id=waiting.pk, task_id="late")
    assert PendingRefresh.objects.filter(candidate=candidate).exists()
    candidate_refresh_pending(candidate_id=candidate.pk)
    caught_up = stored_refresh(candidate.pk)
    candidate_refresh(candidate_id=candidate.pk)
    assert stored_refresh(candidate.pk) == caught_up


def test_the_sweeper_runs_a_pending_refresh_whose_task_was_lost(candidate, settings):
    """The mark is committed with the import: a worker killed before the task ran (or Redis
    losing it) leaves it, and the beat sweeper runs it once it is overdue."""
    settings.EVIDENCE_REFRESH_INTERVAL_S = 60.0
    _import(candidate, "gpu-node-1")
    _import(candidate, "gpu-node-2", variant=1)
    pending = PendingRefresh.objects.get(candidate=candidate)
    evidence_sweep(queued_for=timedelta(minutes=2))
    assert PendingRefresh.objects.filter(candidate=candidate).exists(), "not overdue yet"

    late = pending.due_at + timedelta(seconds=scores.REFRESH_OVERDUE_S + 1)
    assert scores.pending_refreshes_overdue(now=late) == [candidate.pk]
    assert not PendingRefresh.objects.filter(candidate=candidate).exists()
    caught_up = stored_refresh(candidate.pk)
    candidate_refresh(candidate_id=candidate.pk)
    assert stored_refresh(candidate.pk) == caught_up


def test_an_import_that_refreshes_at_once_costs_one_statement_more_at_most(candidate, settings):
    """The coalescing check replaces the pending-uploads check: one statement for both."""
    settings.EVIDENCE_REFRESH_INTERVAL_S = 60.0
    _import(candidate, "gpu-node-1")
    Candidate.objects.filter(pk=candidate.pk).update(scored_at=None)
    upload = _submit(candidate, "gpu-node-2")
    with CaptureQueriesContext(connection) as queries:
        evidence_import(upload_id=upload.pk, task_id="q")
    checks = [q["sql"] for q in queries.captured_queries if "portal_pendingrefresh" in q["sql"]]
    assert len(checks) == 1, checks
    assert "portal_evidenceupload" in checks[0], "one statement checks uploads and the mark"


def test_the_candidate_pages_say_the_scores_are_being_updated(
    candidate, evaluation, members, client, settings
):
    settings.EVIDENCE_REFRESH_INTERVAL_S = 60.0
    _import(candidate, "gpu-node-1")
    client.force_login(members["procurement"])
    detail = reverse("candidate-detail", args=[evaluation.pk, candidate.pk])
    uploads = reverse("candidate-uploads", args=[evaluation.pk, candidate.pk])
    notice = "The scores are being updated with the latest evidence"
    assert notice not in client.get(detail).content.decode()
    _import(candidate, "gpu-node-2")
    assert notice in client.get(detail).content.decode()
    listed = client.get(uploads).content.decode()
    assert notice in listed
    assert 'hx-trigger="every 2s"' in listed, "the upload page polls until it is done"
    candidate_refresh_pending(candidate_id=candidate.pk)
    assert notice not in client.get(detail).content.decode()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_pending_refresh_when_due(
    celery_worker_process, candidate, settings
):
    settings.EVIDENCE_REFRESH_INTERVAL_S = 1.0
    _import(candidate, "gpu-node-1")
    first = Candidate.objects.get(pk=candidate.pk).scored_at
    _import(candidate, "gpu-node-2", variant=1)  # commits: the task goes to Redis, due in 1 s
    assert PendingRefresh.objects.filter(candidate=candidate).exists()
    deadline = time.monotonic() + 30
    while PendingRefresh.objects.filter(candidate=candidate).exists():
        assert time.monotonic() < deadline, "the pending refresh did not run"
        time.sleep(0.1)
    refreshed = Candidate.objects.get(pk=candidate.pk).scored_at
    assert refreshed >= first + timedelta(seconds=1), "run when due, not before"
    caught_up = stored_refresh(candidate.pk)
    candidate_refresh(candidate_id=candidate.pk)
    assert stored_refresh(candidate.pk) == caught_up


def test_a_decision_rests_on_the_scores_of_every_import(
    candidate, evaluation, members, offering, settings
):
    """Recorded while a refresh is pending, the decision runs it first: its snapshot holds the
    scores refreshing after every import would give."""
    from decimal import Decimal

    from django.core.management import call_command

    from portal.models import OfferingPrice
    from portal.services.evaluations import decision_record

    call_command("loaddata", "checklist", verbosity=0)
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    settings.EVIDENCE_REFRESH_INTERVAL_S = 60.0
    _import(candidate, "gpu-node-1")
    before = stored_refresh(candidate.pk)
    _import(candidate, "gpu-node-2", variant=1)
    assert PendingRefresh.objects.filter(candidate=candidate).exists()
    record = decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Fast.", by=members["manager"]
    )
    assert not PendingRefresh.objects.filter(candidate=candidate).exists()
    decided = stored_refresh(candidate.pk)
    assert decided != before, "the second import changed what is verified"
    (row,) = record.snapshot["ranking"]
    stored = dict(Score.objects.filter(candidate=candidate).values_list("dimension", "value"))
    assert {name: float(value) for name, value in row["scores"].items()} == {
        name: float(value) for name, value in stored.items()
    }
