"""Cheaper uploads and imports (issue #15): one quota statement per upload request, and a
batch that waits for the next upload only during a burst of its candidate's uploads."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from portal.models import EvidenceUpload
from portal.services.evidence import (
    QuotaExceeded,
    _lingering,
    evidence_quota_check,
    evidence_submit,
)

pytestmark = pytest.mark.django_db

URL = "/api/v1/evidence/"


def _sums(queries) -> int:
    return sum('SUM("portal_evidenceupload"."size_bytes")' in q["sql"] for q in queries)


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


def test_a_batch_lingers_only_during_a_burst_of_its_candidates_uploads(candidate, settings):
    settings.EVIDENCE_IMPORT_BATCH = 8
    first = EvidenceUpload.objects.create(
        candidate=candidate, original_name="a", sha256="a" * 64, size_bytes=1
    )
    assert not _lingering([first], 0.3)  # a lone upload is imported at once
    second = EvidenceUpload.objects.create(
        candidate=candidate, original_name="b", sha256="b" * 64, size_bytes=1
    )
    assert _lingering([second], 0.3)  # another came just before: a burst
    assert not _lingering([second], 0)  # waiting switched off
    settings.EVIDENCE_IMPORT_BATCH = 1
    assert not _lingering([second], 0.3)  # the batch is full
    settings.EVIDENCE_IMPORT_BATCH = 8
    # The burst is over once nothing came for the linger time.
    EvidenceUpload.objects.filter(pk=second.pk).update(
        created_at=timezone.now() - timedelta(seconds=1)
    )
    second.refresh_from_db()
    assert not _lingering([second], 0.3)
    # Uploads far apart are no burst.
    EvidenceUpload.objects.filter(pk=first.pk).update(
        created_at=timezone.now() - timedelta(minutes=5)
    )
    third = EvidenceUpload.objects.create(
        candidate=candidate, original_name="c", sha256="c" * 64, size_bytes=1
    )
    EvidenceUpload.objects.filter(pk=second.pk).update(
        created_at=timezone.now() - timedelta(minutes=4)
    )
    assert not _lingering([third], 0.3)
