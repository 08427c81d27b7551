"""The page that confirms a candidate's removal counts what goes with it in proper plurals, in
both languages (no "answer(s)")."""

import pytest
from django.urls import reverse

from portal.models import Candidate, EvidenceUpload, UploadToken

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "lines"),
    [
        ("en", ["10 checklist answers", "1 evidence upload</li>"]),
        ("zh-hans", ["将一并删除：", "10 条检查清单回答", "1 份证据上传"]),
    ],
)
def test_the_removal_page_counts_what_is_deleted_with_the_candidate(client, demo, language, lines):
    candidate = Candidate.objects.get(pk=1)
    assert candidate.answers.count() == 10
    assert EvidenceUpload.objects.filter(candidate=candidate).count() == 1
    assert not UploadToken.objects.filter(candidate=candidate).exists()
    assert client.login(username="procurement", password="procure-gpus-2026")
    url = reverse("candidate-remove", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for line in lines:
        assert line in page
    assert "(s)" not in page and "upload token" not in page
