"""Uploads and measurements keep their evaluation: the API's lists of an evaluation's uploads
and measurements are ranges of an index (by id), never a sort of every row of its candidates
nor a walk through other evaluations' rows, and the replayed-evidence check probes other
candidates' uploads by content. PostgreSQL keeps each copy equal to the candidate's."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from portal.db import insert_with_history
from portal.models import EvidenceUpload, Measurement, Membership, Role
from portal.services.fingerprints import hardware_reuse

pytestmark = pytest.mark.django_db


def _upload(candidate, n: int, **extra) -> EvidenceUpload:
    return EvidenceUpload(
        candidate=candidate,
        file=f"evidence/idx-{n}",
        original_name=f"idx-{n}.txt",
        sha256=f"{n:064x}",
        size_bytes=10,
        status="done",
        **extra,
    )


def _plan(sql: str, params=None) -> dict:
    """PostgreSQL's plan of ``sql`` on the tables' current statistics (ANALYZE), with
    sequential scans priced out: a test's tables are small enough for a scan to be cheapest
    whatever the indexes."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE portal_evidenceupload, portal_measurement")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    return (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", ()):
        yield from _nodes(child)


def test_every_way_of_writing_an_upload_records_its_candidates_evaluation(world):
    created = EvidenceUpload.objects.create(
        candidate=world.candidate,
        file="evidence/x",
        original_name="x",
        sha256="c" * 64,
        size_bytes=1,
    )
    bulk = EvidenceUpload.objects.bulk_create([_upload(world.other_candidate, 1)])[0]
    inserted = _upload(world.candidate, 2)
    insert_with_history(inserted)
    stored = dict(
        EvidenceUpload.objects.filter(pk__in=[created.pk, bulk.pk, inserted.pk]).values_list(
            "pk", "evaluation_id"
        )
    )
    assert stored == {
        created.pk: world.evaluation.pk,
        bulk.pk: world.other_evaluation.pk,
        inserted.pk: world.evaluation.pk,
    }


def test_postgresql_refuses_an_upload_filed_under_another_evaluation(world):
    with (
        # The upload's own key to its candidate, or its measurements' key to it, refuses it.
        pytest.raises(IntegrityError, match=r"(upload_candidate|measurement_upload)_evaluation_fk"),
        transaction.atomic(),
    ):
        EvidenceUpload.objects.filter(pk=world.upload.pk).update(evaluation=world.other_evaluation)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    world.upload.refresh_from_db()
    assert world.upload.evaluation_id == world.evaluation.pk


def test_the_api_upload_list_is_an_index_range_newest_first(world, api):
    EvidenceUpload.objects.bulk_create(_upload(world.candidate, n) for n in range(10, 70))
    # Another evaluation's uploads come after ours: walking the ids back from the newest would
    # read all of them before the first of ours.
    EvidenceUpload.objects.bulk_create(_upload(world.other_candidate, n) for n in range(1000, 4000))
    api.as_(world.users["viewer"])
    url = reverse("api-upload-list", kwargs={"evaluation_pk": world.evaluation.pk})
    with CaptureQueriesContext(connection) as queries:
        body = api.get(url, {"page_size": 20}).json()
    ids = [row["id"] for row in body["results"]]
    assert ids == sorted(ids, reverse=True) and len(ids) == 20
    assert world.other_upload.pk not in ids
    listing = [q["sql"] for q in queries if q["sql"].startswith('SELECT "portal_evidenceupload"')]
    assert len(listing) == 1
    plan = _plan(listing[0])
    nodes = list(_nodes(plan))
    assert any(node.get("Index Name") == "upload_eval_recent_idx" for node in nodes), plan
    # The page is read in the index's order: no sort of the evaluation's uploads.
    assert not any(node["Node Type"] in ("Sort", "Incremental Sort") for node in nodes), plan
    # The next page goes on from the last id, as a range of the same index.
    with CaptureQueriesContext(connection) as queries:
        following = api.get(body["next"]).json()
    assert following["results"][0]["id"] < ids[-1]
    listing = [q["sql"] for q in queries if q["sql"].startswith('SELECT "portal_evidenceupload"')]
    nodes = list(_nodes(_plan(listing[0])))
    assert any(node.get("Index Name") == "upload_eval_recent_idx" for node in nodes)
    assert not any(node["Node Type"] in ("Sort", "Incremental Sort") for node in nodes)


def test_the_replay_check_finds_the_same_bytes_under_another_evaluation(world):
    """The same bytes under another evaluation's candidate are found (bench/scale.py checks
    with EXPLAIN at 10^6 measurements that they are probed through upload_sha256_idx)."""
    world.other_upload.sha256 = world.upload.sha256
    world.other_upload.status = "done"
    world.other_upload.save()
    world.other_candidate.uploads.get().measurements.create(
        candidate=world.other_candidate, kind="nccl_tests", metric="busbw", value=1.0
    )
    # A member of the other evaluation too is told which candidate it is.
    stranger = world.users["stranger"]
    Membership.objects.create(evaluation=world.evaluation, user=stranger, role=Role.VIEWER)
    found = hardware_reuse(world.candidate, viewer=stranger)
    assert [entry["candidate_id"] for entry in found] == [world.other_candidate.pk]
    assert found[0]["identifiers"][0]["kind"] == "sha256"
    # A member of this evaluation alone is told the vendor only (see test_integrity_evidence).
    [hidden] = hardware_reuse(world.candidate, viewer=world.users["procurement"])
    assert (hidden["visible"], hidden["candidate_id"], hidden["evaluation"]) == (False, None, "")
    assert hidden["identifiers"][0]["kind"] == "sha256"


def test_postgresql_refuses_a_measurement_filed_under_another_evaluation(world):
    with (
        pytest.raises(IntegrityError, match="measurement_upload_evaluation_fk"),
        transaction.atomic(),
    ):
        Measurement.objects.create(
            upload=world.upload,
            candidate=world.candidate,
            evaluation=world.other_evaluation,
            kind="nccl_tests",
            metric="busbw",
            value=1.0,
        )
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    assert set(Measurement.objects.values_list("evaluation_id", flat=True)) == {world.evaluation.pk}


def test_the_api_measurement_list_is_an_index_range_of_the_evaluation(world, api):
    """Another evaluation's rows, before and after this one's, are never read."""
    other_upload = world.other_upload
    Measurement.objects.bulk_create(
        Measurement(
            upload=other_upload, candidate=world.other_candidate, kind="fio", metric="m", value=n
        )
        for n in range(30)
    )
    Measurement.objects.bulk_create(
        Measurement(upload=world.upload, candidate=world.candidate, kind="fio", metric="m", value=n)
        for n in range(30)
    )
    # ... and many more of the other evaluation's after ours.
    Measurement.objects.bulk_create(
        Measurement(
            upload=other_upload, candidate=world.other_candidate, kind="fio", metric="m", value=n
        )
        for n in range(5000)
    )
    api.as_(world.users["viewer"])
    url = reverse("api-measurement-list", kwargs={"evaluation_pk": world.evaluation.pk})
    with CaptureQueriesContext(connection) as queries:
        body = api.get(url, {"page_size": 10}).json()
    ids = [row["id"] for row in body["results"]]
    assert ids == sorted(ids) and len(ids) == 10
    own = set(Measurement.objects.filter(candidate=world.candidate).values_list("pk", flat=True))
    assert set(ids) <= own
    listing = [q["sql"] for q in queries if q["sql"].startswith('SELECT "portal_measurement"')]
    assert len(listing) == 1
    nodes = list(_nodes(_plan(listing[0])))
    assert any(node.get("Index Name") == "measurement_eval_idx" for node in nodes)
    assert not any(node["Node Type"] in ("Sort", "Incremental Sort") for node in nodes)
