"""Keyset pagination of the lists that grow with the evidence: every row exactly once, in a
fixed order, no COUNT, no report JSON in lists, and a query count flat in the evidence."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from portal.models import EvidenceUpload, Measurement, Score

LISTS = ("api-upload-list", "api-measurement-list", "api-score-list")


def ev_url(world, name, **kwargs):
    return reverse(name, kwargs={"evaluation_pk": world.evaluation.pk, **kwargs})


def _fill(world, uploads: int, per_upload: int = 3, start: int = 0) -> None:
    made = EvidenceUpload.objects.bulk_create(
        EvidenceUpload(
            candidate=world.candidate,
            file=f"evidence/bulk-{i}",
            original_name=f"bulk-{i}.txt",
            sha256=f"{i:064x}",
            size_bytes=10,
            status="done",
            report=[{"file": f"bulk-{i}.txt", "kind": "nccl_tests", "lines": list(range(50))}],
        )
        for i in range(start, start + uploads)
    )
    Measurement.objects.bulk_create(
        Measurement(
            upload=upload,
            candidate=world.candidate,
            kind="nccl_tests",
            metric=f"busbw_{j}",
            value=float(j),
        )
        for upload in made
        for j in range(per_upload)
    )
    Score.objects.bulk_create(
        Score(candidate=world.candidate, dimension=f"d{i}", value=50.0, rubric_version="2")
        for i in range(start, start + uploads)
    )


def _walk(api, url, page_size):
    """Every row of a list by following ``next``; the pages seen."""
    rows, pages = [], 0
    body = api.get(url, {"page_size": page_size}).json()
    while True:
        pages += 1
        assert "count" not in body
        rows += body["results"]
        if not body["next"]:
            return rows, pages
        body = api.get(body["next"]).json()


@pytest.mark.django_db
@pytest.mark.parametrize("name", LISTS)
def test_following_next_reads_every_row_once_in_key_order(api, world, name):
    _fill(world, 23)
    api.as_(world.users["viewer"])
    rows, pages = _walk(api, ev_url(world, name), 5)
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids))
    model = {"api-upload-list": EvidenceUpload, "api-measurement-list": Measurement}.get(
        name, Score
    )
    expected = list(
        model.objects.filter(candidate__evaluation=world.evaluation)
        .order_by("-pk" if name == "api-upload-list" else "pk")
        .values_list("pk", flat=True)
    )
    assert ids == expected
    assert pages == -(-len(expected) // 5)


@pytest.mark.django_db
def test_previous_leads_back_to_the_same_page(api, world):
    _fill(world, 12)
    api.as_(world.users["viewer"])
    first = api.get(ev_url(world, "api-upload-list"), {"page_size": 4}).json()
    second = api.get(first["next"]).json()
    back = api.get(second["previous"]).json()
    assert [r["id"] for r in back["results"]] == [r["id"] for r in first["results"]]
    assert first["previous"] is None


@pytest.mark.django_db
def test_a_forged_cursor_is_a_404_not_a_server_error(api, world):
    api.as_(world.users["viewer"])
    response = api.get(ev_url(world, "api-measurement-list"), {"cursor": "not-a-cursor"})
    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid cursor"}


@pytest.mark.django_db
def test_the_uploads_list_leaves_reports_out_and_the_detail_has_it(api, world):
    _fill(world, 3)
    api.as_(world.users["viewer"])
    with CaptureQueriesContext(connection) as queries:
        body = api.get(ev_url(world, "api-upload-list")).json()
    assert all("report" not in row for row in body["results"])
    assert all(isinstance(row["measurement_count"], int) for row in body["results"])
    counts = {row["id"]: row["measurement_count"] for row in body["results"]}
    assert counts[world.upload.pk] == 1
    assert set(counts.values()) == {1, 3}
    listing = next(q["sql"] for q in queries if "portal_evidenceupload" in q["sql"])
    assert '"report"' not in listing.split(" FROM ")[0]
    assert all("COUNT(*)" not in q["sql"].upper() for q in queries)
    newest = body["results"][0]["id"]
    detail = api.get(ev_url(world, "api-upload-detail", upload_pk=newest)).json()
    assert detail["report"][0]["file"].startswith("bulk-")


def _queries(api, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert api.get(url, {"page_size": 20}).status_code == 200
    return len(captured)


@pytest.mark.django_db
@pytest.mark.parametrize("name", LISTS)
def test_a_list_page_costs_the_same_queries_at_5_and_200_uploads(api, world, name):
    api.as_(world.users["viewer"])
    _fill(world, 5)
    few = _queries(api, ev_url(world, name))
    _fill(world, 195, start=5)
    many = _queries(api, ev_url(world, name))
    assert many == few


@pytest.mark.django_db
@pytest.mark.parametrize("name", LISTS)
def test_list_pages_stay_within_a_fixed_query_budget(
    api, world, name, django_assert_max_num_queries
):
    _fill(world, 120)
    api.as_(world.users["viewer"])
    with django_assert_max_num_queries(8):
        assert api.get(ev_url(world, name), {"page_size": 50}).status_code == 200
