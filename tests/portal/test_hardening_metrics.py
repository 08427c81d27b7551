"""Prometheus metrics at /metrics (behind METRICS_TOKEN) and the optional JSON logs."""

import json
import logging

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from prometheus_client.parser import text_string_to_metric_families

from portal.logging_json import JsonFormatter
from portal.models import EvidenceUpload
from portal.tasks import evidence_import_task

from .conftest import sample_bytes

pytestmark = pytest.mark.django_db
TOKEN = "metrics-secret-for-tests"


def _scrape(client) -> dict[str, list]:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    families = text_string_to_metric_families(response.content.decode())
    return {family.name: family.samples for family in families}


def _value(samples, name, **labels) -> float:
    return sum(
        s.value
        for s in samples
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    )


def test_metrics_are_off_without_a_token_and_need_it(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404
    settings.METRICS_TOKEN = TOKEN
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401


def test_request_latency_queue_and_stored_bytes(client, settings, upload_token):
    settings.METRICS_TOKEN = TOKEN
    _token, raw = upload_token
    before = _scrape(client)
    data = sample_bytes("nccl-a100-8gpu.txt")
    response = client.post(
        "/api/v1/evidence/",
        {"file": SimpleUploadedFile("nccl.txt", data)},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 202
    after = _scrape(client)
    latency = "portal_http_request_duration_seconds"
    count = f"{latency}_count"
    labels = {"view": "api-evidence-upload", "method": "POST", "status": "2xx"}
    assert _value(after[latency], count, **labels) == _value(before[latency], count, **labels) + 1
    assert _value(after["portal_evidence_stored_bytes"], "portal_evidence_stored_bytes") == len(
        data
    )
    uploads = after["portal_evidence_uploads"]
    assert _value(uploads, "portal_evidence_uploads", status="queued") == 1


def test_uploads_the_sweeper_should_have_sent_again_are_reported_overdue(
    client, settings, candidate
):
    # Beat not running: nothing re-sends an upload queued while Redis was down, nor one whose
    # worker was killed; the operator sees them here before anyone complains.
    from datetime import timedelta

    from django.utils import timezone

    from portal.models import UploadStatus

    settings.METRICS_TOKEN = TOKEN
    now = timezone.now()
    rows = {
        "lost-queued": (UploadStatus.QUEUED, now - timedelta(hours=1), None),
        "fresh-queued": (UploadStatus.QUEUED, now, None),
        "held-processing": (UploadStatus.PROCESSING, now, now - timedelta(hours=1)),
        "running": (UploadStatus.PROCESSING, now, now),
    }
    for name, (status, created_at, started_at) in rows.items():
        upload = EvidenceUpload.objects.create(
            candidate=candidate,
            original_name=name,
            sha256=name,
            size_bytes=1,
            status=status,
            started_at=started_at,
        )
        EvidenceUpload.objects.filter(pk=upload.pk).update(
            created_at=created_at, queued_at=created_at
        )
    overdue = _scrape(client)["portal_evidence_uploads_overdue"]
    assert _value(overdue, "portal_evidence_uploads_overdue", status="queued") == 1
    assert _value(overdue, "portal_evidence_uploads_overdue", status="processing") == 1


def test_imports_are_counted_by_outcome_with_their_duration(client, settings, upload_token):
    settings.METRICS_TOKEN = TOKEN
    settings.EVIDENCE_IMPORT_BATCH = 1  # one task per upload, so each has its own outcome
    _token, raw = upload_token
    before = _scrape(client)["portal_evidence_imports"]
    good = client.post(
        "/api/v1/evidence/",
        {"file": SimpleUploadedFile("nccl.txt", sample_bytes("nccl-a100-8gpu.txt"))},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    ).json()
    junk = client.post(
        "/api/v1/evidence/",
        {"file": SimpleUploadedFile("junk.txt", b"nothing to see here")},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    ).json()
    evidence_import_task(good["id"])
    evidence_import_task(junk["id"])
    assert EvidenceUpload.objects.get(pk=good["id"]).status == "done"
    assert EvidenceUpload.objects.get(pk=junk["id"]).status == "failed"
    after = _scrape(client)
    imports = after["portal_evidence_imports"]
    total = "portal_evidence_imports_total"
    for outcome in ("done", "failed"):
        assert _value(imports, total, outcome=outcome) == _value(before, total, outcome=outcome) + 1
    durations = after["portal_evidence_import_duration_seconds"]
    assert _value(durations, "portal_evidence_import_duration_seconds_count", outcome="done") >= 1


def test_json_logs_have_one_line_per_request_with_the_upload_id(
    client, settings, upload_token, caplog
):
    settings.LOG_FORMAT = "json"
    _token, raw = upload_token
    with caplog.at_level(logging.INFO, logger="portal.requests"):
        body = client.post(
            "/api/v1/evidence/",
            {"file": SimpleUploadedFile("nccl.txt", b"some evidence")},
            HTTP_AUTHORIZATION=f"Bearer {raw}",
        ).json()
    records = [r for r in caplog.records if r.name == "portal.requests"]
    assert len(records) == 1
    line = json.loads(JsonFormatter().format(records[0]))
    assert line["event"] == "request"
    assert line["upload_id"] == body["id"]
    assert line["status"] == 202
    assert line["view"] == "api-evidence-upload"

    caplog.clear()
    with caplog.at_level(logging.INFO, logger="portal.imports"):
        evidence_import_task(body["id"])
    imports = [r for r in caplog.records if r.name == "portal.imports"]
    line = json.loads(JsonFormatter().format(imports[0]))
    assert line["upload_id"] == body["id"]
    assert line["outcome"] in ("done", "failed")


def test_the_celery_queue_length_is_read_from_the_broker(client, settings):
    # A queue of this test's own on the real Redis (the shared worker consumes the default).
    import uuid

    import redis

    settings.METRICS_TOKEN = TOKEN
    settings.CELERY_TASK_DEFAULT_QUEUE = f"metrics-depth-{uuid.uuid4().hex}"
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.lpush(settings.CELERY_TASK_DEFAULT_QUEUE, "a", "b")
    try:
        depth = _scrape(client)["portal_celery_queue_length"]
    finally:
        broker.delete(settings.CELERY_TASK_DEFAULT_QUEUE)
        broker.close()
    assert _value(depth, "portal_celery_queue_length") == 2
    # An unreachable broker: no gauge rather than a wrong zero.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    assert "portal_celery_queue_length" not in _scrape(client)
