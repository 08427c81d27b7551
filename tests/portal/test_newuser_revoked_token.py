"""A token revoked by the decision says so at the node: the collector printed "This upload token
has been revoked." after a decision, which read as a broken token (a new one would be refused
too). It now says the evaluation is decided and how evidence can be added again; a token revoked
by hand on an open evaluation keeps its plain message."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from portal.models import Score
from portal.services.evaluations import decision_record
from portal.services.tokens import upload_token_revoke

pytestmark = pytest.mark.django_db


def _upload(raw: str, language: str = "en"):
    return APIClient().post(
        reverse("api-evidence-upload"),
        {"file": SimpleUploadedFile("nvidia-smi.txt", b"hello")},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
        HTTP_ACCEPT_LANGUAGE=language,
    )


def test_a_token_revoked_by_the_decision_says_the_evaluation_is_decided(
    candidate, members, upload_token
):
    _token, raw = upload_token
    for dimension in ("stability", "network", "storage", "security", "cost", "support"):
        Score.objects.create(candidate=candidate, dimension=dimension, value=60)
    decision_record(
        evaluation=candidate.evaluation, candidate=candidate, rationale="Chosen.",
        by=members["manager"],
    )  # fmt: skip
    response = _upload(raw)
    assert response.status_code in (401, 403)
    detail = response.json()["detail"]
    assert "the evaluation is decided and takes no more evidence" in detail
    assert "a manager reopens the evaluation and procurement issues a new token" in detail
    chinese = _upload(raw, "zh-hans").json()["detail"]
    assert "评估已决策" in chinese and "经理重新开放评估" in chinese
    assert not candidate.uploads.exists()


def test_a_token_revoked_by_hand_keeps_its_plain_message(candidate, members, upload_token):
    token, raw = upload_token
    upload_token_revoke(token=token, by=members["procurement"])
    assert _upload(raw).json()["detail"] == "This upload token has been revoked."
