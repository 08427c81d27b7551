"""Cheaper upload requests (issue #15): one quota statement per check, and one per upload
request when the file fits the room found before its body was read."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from portal.models import EvidenceUpload
from portal.services.evidence import (
    QuotaExceeded,
    evidence_quota_check,
    evidence_submit,
)

pytestmark = pytest.mark.django_db

URL = "/api/v1/evidence/"


def _sums(queries) -> int:
    return sum('SUM("portal_evidenceupload"."size_bytes")' in q["sql"] for q in queries)


@pytest.fixture(autouse=True)
def _own_media(settings, tmp_path):
    # The stored files of these tests stay out of the folder other tests look into.
    settings.MEDIA_ROOT = tmp_path


def test_both_quotas_are_summed_in_one_statement_and_the_room_returned(upload_token, settings):
    token, _raw = upload_token
    settings.EVIDENCE_QUOTA_CANDIDATE_BYTES = 10_000
    settings.EVIDENCE_QUOTA_TOKEN_BYTES = 3_000
    evidence_submit(
        candidate=token.candidate, uploaded_file=SimpleUploadedFile("a.txt", b"a" * 1000)
    )  # by hand: counts for the candidate only
    by_token = SimpleUploadedFile("b.txt", b"b" * 500)
    evidence_submit(candidate=token.candidate, uploaded_file=by_token, token=token)
    with CaptureQueriesContext(connection) as queries:
        room = evidence_quota_check(candidate_id=token.candidate_id, token_id=token.pk, size=0)
    assert len(queries) == 1
    assert room == 2_500  # the token's 3,000 less its 500 (the candidate has 8,500 left)
    with pytest.raises(QuotaExceeded):
        evidence_quota_check(candidate_id=token.candidate_id, token_id=token.pk, size=2_501)
    settings.EVIDENCE_QUOTA_TOKEN_BYTES = settings.EVIDENCE_QUOTA_CANDIDATE_BYTES = 0
    with CaptureQueriesContext(connection) as queries:
        assert evidence_quota_check(candidate_id=token.candidate_id, token_id=None, size=9) is None
    assert len(queries) == 0


def test_an_api_upload_that_fits_the_room_is_summed_once_and_one_that_does_not_twice(
    client, upload_token, settings
):
    settings.EVIDENCE_QUOTA_TOKEN_BYTES = 3_000
    _token, raw = upload_token
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    with CaptureQueriesContext(connection) as queries:
        stored = client.post(URL, {"file": SimpleUploadedFile("a.txt", b"a" * 2_000)}, **auth)
    assert stored.status_code == 202, stored.content
    assert _sums(queries) == 1
    # Under 64 KiB the declared length checks nothing (the multipart framing allowance), so
    # the room found before the body (1,000 bytes) is too small and the real size is checked.
    with CaptureQueriesContext(connection) as queries:
        refused = client.post(URL, {"file": SimpleUploadedFile("b.txt", b"b" * 1_500)}, **auth)
    assert refused.status_code == 507, refused.content
    assert _sums(queries) == 2
    assert EvidenceUpload.objects.count() == 1
