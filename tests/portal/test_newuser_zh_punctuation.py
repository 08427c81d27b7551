"""Chinese sentences the pages build from several parts take full-width marks at the joins: a
dimension's label and its score, a file and what was read from it, the failures of an upload
listed one after another, a fingerprint's owner and its identifiers. The joins are written in
templates and in portal/evidence_messages.py between a translated part and data, so no single
catalogue entry carries them; the pages read in English keep ": " and "; "."""

import pytest
from django.urls import reverse

from portal.models import Candidate, Evaluation, Membership, Role, UploadStatus

from .conftest import make_bundle, sample_bytes, small_offering
from .test_evidence_messages import _page_upload as _upload
from .test_zh_pages_complete import Page, Scanner

pytestmark = pytest.mark.django_db

JUNK = b"lunch at noon, then rack 4 cabling\n"


def _half_width(client, url: str) -> list[str]:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    page = Page(response.content.decode())
    scanner = Scanner()
    return [f"{mark!r} in {line!r}" for line in page.sentences for mark in scanner.half_width(line)]


@pytest.fixture
def uploads(client, candidate, members):
    client.force_login(members["engineer"])
    refused = _upload(
        client,
        candidate,
        make_bundle({"notes.txt": JUNK, "photo.bin": b"\x89PNG\x00\x01"}),
        "two.tgz",
    )
    assert refused.status == UploadStatus.FAILED, refused.status
    assert "failures" in refused.error_params, (refused.error, refused.error_code)
    assert len(refused.error_params["failures"]) == 2, (refused.error, refused.error_code)
    partial = _upload(
        client,
        candidate,
        make_bundle(
            {"ibstat.txt": sample_bytes("ibstat-roce-some-down.txt")}, missing=("dcgmi-diag",)
        ),
        "node.tgz",
    )
    assert partial.status == UploadStatus.DONE
    return refused, partial


def test_upload_failures_and_file_reports_join_with_full_width_marks(client, candidate, uploads):
    refused, partial = uploads
    client.cookies["django_language"] = "zh-hans"
    args = [candidate.evaluation_id, candidate.pk]
    pages = [
        reverse("candidate-uploads", args=args),
        reverse("candidate-upload-detail", args=[*args, refused.pk]),
        reverse("candidate-upload-report", args=[*args, refused.pk]),
        reverse("candidate-upload-report", args=[*args, partial.pk]),
        reverse("candidate-detail", args=args),
    ]
    found = {url: marks for url in pages if (marks := _half_width(client, url))}
    assert found == {}
    listing = client.get(pages[0]).content.decode()
    # Each failure as file, full-width colon, reason; the two apart by a full-width semicolon.
    assert "notes.txt：" in listing and "photo.bin：" in listing and "；" in listing
    report = client.get(pages[3]).content.decode()
    assert "dcgmi-diag：" in report


def test_english_pages_keep_their_half_width_marks(client, candidate, uploads):
    _refused, partial = uploads
    args = [candidate.evaluation_id, candidate.pk]
    listing = client.get(reverse("candidate-uploads", args=args)).content.decode()
    assert "notes.txt: " in listing and "photo.bin: " in listing and "; " in listing
    report = client.get(reverse("candidate-upload-report", args=[*args, partial.pk]))
    assert "dcgmi-diag: " in report.content.decode()


def test_the_dimensions_and_a_shared_fingerprint_read_with_full_width_colons(
    client, candidate, members, vendor
):
    """The same HCA under a candidate of another evaluation: the warning names that candidate,
    then its identifiers, after a full-width colon; each dimension's score likewise."""
    other = Evaluation.objects.create(
        name="Another round",
        workload_profile="finetuning",
        required_total_gpus=8,
        required_gpu_memory_gib=40,
        duration_days=10,
    )
    Membership.objects.create(evaluation=other, user=members["engineer"], role=Role.ENGINEER)
    twin = Candidate.objects.create(evaluation=other, offering=small_offering(vendor), node_count=1)
    client.force_login(members["engineer"])
    for target in (candidate, twin):
        data = make_bundle({"ibstat.txt": sample_bytes("ibstat-roce-some-down.txt")})
        upload = _upload(client, target, data, f"ibstat-{target.pk}.tgz")
        assert upload.status == UploadStatus.DONE
    client.cookies["django_language"] = "zh-hans"
    url = reverse("candidate-detail", args=[candidate.evaluation_id, candidate.pk])
    html = client.get(url).content.decode()
    assert "hardware-reuse" in html, "the shared HCA is not flagged"
    assert _half_width(client, url) == []
    assert "稳定性</strong>：" in html
