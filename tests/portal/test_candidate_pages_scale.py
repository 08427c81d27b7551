"""The candidate page and the uploads list at many uploads: reports load only when asked for,
the query count stays flat, and one report is its own fragment."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from portal.models import Candidate, EvidenceUpload, Measurement
from portal.views.candidates import MEASUREMENTS_SHOWN, UPLOADS_SHOWN

from .conftest import small_offering

pytestmark = pytest.mark.django_db

BIG_REPORT = [
    {"file": f"node/file-{i}.txt", "ok": True, "kind": "nccl_tests", "pad": "x" * 500}
    for i in range(40)
]


def _fill(candidate: Candidate, uploads: int, start: int = 0, status: str = "done") -> None:
    made = EvidenceUpload.objects.bulk_create(
        EvidenceUpload(
            candidate=candidate,
            file=f"evidence/bulk-{i}",
            original_name=f"bundle-{i}.tar.gz",
            sha256=f"{i:064x}",
            size_bytes=10,
            status=status,
            report=BIG_REPORT,
        )
        for i in range(start, start + uploads)
    )
    Measurement.objects.bulk_create(
        Measurement(
            upload=upload, candidate=candidate, kind="nccl_tests", metric="busbw", value=1.0
        )
        for upload in made
        for _ in range(2)
    )


def _get(client, name, candidate, **extra):
    url = reverse(
        name, kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk, **extra}
    )
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return response, queries


PAGES = ("candidate-detail", "candidate-uploads", "candidate-evidence")


@pytest.mark.parametrize("name", PAGES)
def test_pages_never_read_upload_reports(client, members, candidate, name):
    _fill(candidate, 5)
    client.force_login(members["procurement"])
    response, queries = _get(client, name, candidate)
    for query in queries:
        columns = query["sql"].split(" FROM ")[0]
        assert '"portal_evidenceupload"."report"' not in columns, query["sql"]
    assert b"file-39.txt" not in response.content
    assert response.content.count(b"upload-report") >= 5


@pytest.mark.parametrize("name", PAGES)
def test_page_queries_are_flat_in_uploads(client, members, candidate, name):
    client.force_login(members["procurement"])
    _fill(candidate, 3)
    _few, few = _get(client, name, candidate)
    _fill(candidate, 250, start=3)
    response, many = _get(client, name, candidate)
    # Past one screen of uploads the page counts them once: at most one query more.
    assert len(many) <= len(few) + 1
    assert response.content.count(b"data-upload-id=") == UPLOADS_SHOWN
    assert b"153 older uploads are not listed here" in response.content


@pytest.mark.parametrize("name", PAGES)
def test_page_query_budget_at_many_uploads(
    client, members, candidate, name, django_assert_max_num_queries
):
    _fill(candidate, 150)
    client.force_login(members["viewer"] if name != "candidate-evidence" else members["engineer"])
    url = reverse(name, kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk})
    with django_assert_max_num_queries(25):
        assert client.get(url).status_code == 200


def test_one_report_is_a_fragment_of_its_own(client, members, candidate):
    _fill(candidate, 2)
    upload = EvidenceUpload.objects.filter(candidate=candidate).first()
    client.force_login(members["viewer"])
    response, queries = _get(client, "candidate-upload-report", candidate, upload_pk=upload.pk)
    assert b'node/file-39.txt: <span title="nccl_tests">nccl-tests</span>' in response.content
    assert len(queries) <= 8


def test_a_report_of_another_candidate_is_404(client, members, candidate, vendor):
    other = Candidate.objects.create(
        evaluation=candidate.evaluation, offering=small_offering(vendor), node_count=1
    )
    _fill(other, 1)
    upload = EvidenceUpload.objects.get(candidate=other)
    client.force_login(members["viewer"])
    url = reverse(
        "candidate-upload-report",
        kwargs={
            "pk": candidate.evaluation_id,
            "candidate_pk": candidate.pk,
            "upload_pk": upload.pk,
        },
    )
    assert client.get(url).status_code == 404


def test_the_upload_list_polls_only_while_an_import_runs(client, members, candidate):
    client.force_login(members["engineer"])
    _fill(candidate, UPLOADS_SHOWN + 5, status="done")
    response, _ = _get(client, "candidate-uploads", candidate)
    assert b'hx-trigger="every 2s"' not in response.content
    # The oldest upload, past the listed ones, is still importing: the list keeps polling.
    oldest = EvidenceUpload.objects.filter(candidate=candidate).order_by("pk").first()
    EvidenceUpload.objects.filter(pk=oldest.pk).update(status="processing")
    response, _ = _get(client, "candidate-uploads", candidate)
    assert b'hx-trigger="every 2s"' in response.content


def test_the_candidate_page_says_when_measurements_are_cut(client, members, candidate):
    _fill(candidate, MEASUREMENTS_SHOWN // 2 + 1)
    client.force_login(members["viewer"])
    response, _ = _get(client, "candidate-detail", candidate)
    assert f"The first {MEASUREMENTS_SHOWN} measurements".encode() in response.content
