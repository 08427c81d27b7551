"""What an auditor reads (found by a trust review): an evidence upload's import outcome in the
history (done, or failed with its error; kept when a re-import or the sweeper replaces it),
decimals and catalogue prices shown alike on both sides of a change, and every person named
one way on the decision page, the report, the history, the exports and the API."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from portal.exports import report_sections
from portal.models import Candidate, Evaluation, EvidenceUpload, OfferingPrice, UploadStatus
from portal.people import person_name, person_shown
from portal.services.catalogue import offering_price_save, offering_save
from portal.services.evaluations import decision_record
from portal.services.evidence import (
    MAX_IMPORT_ATTEMPTS,
    evidence_import,
    evidence_reimport,
    evidence_submit,
    evidence_sweep,
)

from ..conftest import sample_bytes

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
HISTORY_TABLE = EvidenceUpload.history.model._meta.db_table


def _url(world) -> str:
    return reverse("evaluation-history", kwargs={"pk": world.evaluation.pk})


def _text(html: str) -> str:
    html = re.sub(r"<script.*?</script>|<style.*?</style>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'")


def _submitted(world, data: bytes, name: str) -> EvidenceUpload:
    upload, created = evidence_submit(
        candidate=world.candidate, uploaded_file=SimpleUploadedFile(name, data)
    )
    assert created
    return upload


def _imported(world, data: bytes, name: str) -> EvidenceUpload:
    upload = _submitted(world, data, name)
    evidence_import(upload_id=upload.pk, task_id=f"t-{upload.pk}")
    upload.refresh_from_db()
    return upload


def _upload_entries(api, world, upload) -> list[dict]:
    api.as_(world.users["viewer"])
    url = reverse("api-history", kwargs={"evaluation_pk": world.evaluation.pk})
    entries = api.get(url, {"kind": "upload"}).json()["results"]
    return [e for e in entries if e["object_id"] == upload.pk]


def _status(entry: dict) -> tuple:
    return next((c["before"], c["after"]) for c in entry["changes"] if c["field"] == "status")


# --- 1. the import's outcome ------------------------------------------------------------------


def test_an_uploads_outcome_done_or_failed_with_its_error_is_in_the_history(client, api, world):
    done = _imported(world, sample_bytes("nccl-a100-8gpu.txt"), "all_reduce.txt")
    failed = _imported(world, b"nothing to see here\n", "notes.txt")
    assert (done.status, failed.status) == (UploadStatus.DONE, UploadStatus.FAILED)
    changed = [e for e in _upload_entries(api, world, done) if e["action"] == "changed"]
    assert [_status(e) for e in changed] == [("Queued", "Done")]
    assert changed[0]["user"] is None  # the worker: shown as "system"
    (outcome,) = [e for e in _upload_entries(api, world, failed) if e["action"] == "changed"]
    assert _status(outcome) == ("Queued", "Failed")
    client.force_login(world.users["viewer"])
    text = _text(client.get(_url(world), {"kind": "upload"}).content.decode())
    assert "all_reduce.txt · Test Vendor · 8x H100 bare metal changed status Queued → Done" in text
    assert re.search(
        r"system Evidence upload notes\.txt · [^·]+ · [^·]+ changed status Queued → Failed "
        r"error — → Nothing in this upload could be parsed\. notes\.txt: not the output",
        text,
    ), text
    # The outcome as the uploads table words it: no codes, parameters or fingerprint lists.
    assert "upload.nothing_parsed" not in text and "board_serial" not in text
    zh = _text(client.get(_url(world), {"kind": "upload"}, **ZH).content.decode())
    assert "状态 排队中 → 失败 错误 — → 此次上传中没有任何内容可以解析。" in zh, zh
    assert "Nothing in this upload could be parsed" not in zh


def test_a_reimport_or_the_sweeper_keeps_the_outcome_it_replaces(api, world):
    upload = _imported(world, sample_bytes("nccl-a100-8gpu.txt"), "all_reduce.txt")
    assert upload.status == UploadStatus.DONE
    assert evidence_reimport(evaluation_id=world.evaluation.pk).queued == 2  # and the world's
    # The re-import never runs: the sweeper gives up on it after its attempts.
    EvidenceUpload.objects.filter(pk=upload.pk).update(
        attempts=MAX_IMPORT_ATTEMPTS, created_at=timezone.now() - timedelta(hours=1)
    )
    evidence_sweep()
    upload.refresh_from_db()
    assert upload.status == UploadStatus.FAILED
    changed = [e for e in _upload_entries(api, world, upload) if e["action"] == "changed"]
    # Newest first: the sweeper's failure, the re-import's queueing, then the first import's
    # outcome, still on record.
    assert [_status(e) for e in changed] == [
        ("Queued", "Failed"),
        ("Done", "Queued"),
        ("Queued", "Done"),
    ]
    error = next(c for c in changed[0]["changes"] if c["field"] == "error")
    assert "abandoned after 5 attempts" in error["after"]


def test_a_batchs_outcomes_cost_one_history_statement(world):
    uploads = [
        _submitted(world, sample_bytes(name), name)
        for name in ("nccl-a100-8gpu.txt", "ibstat-roce-some-down.txt", "lspci-kvm-vm.txt")
    ]
    with CaptureQueriesContext(connection) as queries:
        evidence_import(upload_id=uploads[0].pk, task_id="batch")
    written = [q["sql"] for q in queries.captured_queries if HISTORY_TABLE in q["sql"]]
    assert len(written) == 1, written
    finished = EvidenceUpload.objects.filter(pk__in=[u.pk for u in uploads]).exclude(
        status=UploadStatus.QUEUED
    )
    assert finished.count() >= 2  # the batch took the others waiting
    rows = EvidenceUpload.history.filter(id__in=[u.pk for u in uploads], history_type="~")
    assert rows.count() == finished.count()
    assert {r.status for r in rows} == {u.status for u in finished}


# --- 2. numbers shown alike -------------------------------------------------------------------


def test_decimals_read_the_same_on_both_sides_of_a_change(client, world):
    by = world.users["procurement"]
    world.offering.sla_availability_pct = Decimal("99.900")
    offering_save(offering=world.offering, by=by)
    world.offering.refresh_from_db()
    world.offering.sla_availability_pct = Decimal("90")
    offering_save(offering=world.offering, by=by)
    client.force_login(world.users["viewer"])
    text = _text(client.get(_url(world), {"kind": "offering"}).content.decode())
    assert "SLA availability (%) 99.9 → 90" in text, text
    assert "99.900" not in text


def test_the_catalogue_notice_shows_prices_with_their_currency(client, world):
    price = OfferingPrice.objects.get(pk=world.price.pk)
    price.price_per_gpu = Decimal("12800")
    offering_price_save(price=price, by=world.users["procurement"])
    candidate = Candidate.objects.get(pk=world.candidate.pk)
    client.force_login(world.users["procurement"])
    # The candidate page's table (pinned, catalogue now) and the dashboard's notice.
    pages = (
        (reverse("candidate-detail", args=[world.evaluation.pk, candidate.pk]), " "),
        (reverse("evaluation-detail", args=[world.evaluation.pk]), " → "),
    )
    for url, between in pages:
        for headers in ({}, ZH):
            text = _text(client.get(url, **headers).content.decode())
            assert f"12,000 CNY{between}12,800 CNY" in text, (url, text)
            assert "12800.0000" not in text and "12000.0000" not in text


# --- 3. people named one way ------------------------------------------------------------------


def test_a_person_is_named_by_full_name_and_username_or_the_username_alone():
    assert person_name("Morgan", "Manager", "manager") == "Morgan Manager (manager)"
    assert person_name("", "", "ops") == "ops"
    assert person_name("Mo", "", "mo") == "Mo (mo)"
    assert person_shown(None) == ""


def test_the_decider_is_named_alike_everywhere(demo, client):
    manager = get_user_model().objects.get(username="manager")
    evaluation = Evaluation.objects.get(pk=1)
    decision_record(
        evaluation=evaluation, candidate=Candidate.objects.get(pk=1), rationale="Fit.", by=manager
    )
    named = "Morgan Manager (manager)"
    assert client.login(username="manager", password="decide-gpus-2026")
    for url in (reverse("evaluation-decision", args=[1]), reverse("evaluation-report", args=[1])):
        assert f"Recorded by {named} on" in _text(client.get(url).content.decode()), url
    history = _text(client.get(reverse("evaluation-history", args=[1])).content.decode())
    assert f"{named} Decision" in history
    decision = client.get(reverse("api-decision", kwargs={"evaluation_pk": 1})).json()["decision"]
    assert (decision["decided_by"], decision["decided_by_name"]) == ("manager", named)
    entries = client.get(reverse("api-history", kwargs={"evaluation_pk": 1}), {"kind": "decision"})
    entry = entries.json()["results"][0]
    assert (entry["user"], entry["user_name"]) == ("manager", named)
    header, rows = report_sections(Evaluation.objects.get(pk=1))["decision"]  # XLSX and CSV
    assert rows[0][header.index("Decided by")] == named


def test_a_conflicting_editor_is_named_alike(world):
    from portal.models import Answer
    from portal.views.candidates import _conflict_message

    editor = world.users["engineer"]
    editor.first_name, editor.last_name = "Erin", "Engineer"
    editor.save(update_fields=["first_name", "last_name"])
    answer = Answer.objects.get(pk=world.answer.pk)
    answer.updated_by = editor
    assert _conflict_message(answer).startswith(f"Erin Engineer ({editor.username}) changed")
