"""One 404 body for an object that does not exist and one the caller may not see, across the
API (get_object_or_404 named the model, a refusal did not, so the body told the two apart); an
upload token sent outside the evidence endpoints is told where upload tokens go."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.test import APIClient

from portal.models import Candidate, EvidenceUpload, Membership
from portal.services.tokens import upload_token_create

pytestmark = pytest.mark.django_db

MISSING = 999_999_999
NOT_FOUND = {"detail": "Not found."}
NOT_FOUND_ZH = {"detail": "未找到。"}
MISPLACED = "Upload tokens (Bearer gpt_…) reach only the evidence endpoints"


@pytest.fixture
def token_for_first_candidate(demo):
    """An upload token of the first demo candidate that has uploads, and an upload of another
    candidate."""
    procurement = get_user_model().objects.get(username="procurement")
    candidate = Candidate.objects.filter(uploads__isnull=False).order_by("pk").first()
    other_upload = EvidenceUpload.objects.exclude(candidate=candidate).order_by("pk").first()
    assert other_upload is not None, "the demo has uploads under several candidates"
    _token, raw = upload_token_create(candidate=candidate, created_by=procurement)
    own_upload = EvidenceUpload.objects.filter(candidate=candidate).first()
    return raw, own_upload, other_upload


def _bearer(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_evidence_of_another_candidate_and_missing_evidence_answer_alike(
    token_for_first_candidate, language
):
    raw, own, other = token_for_first_candidate
    client = _bearer(raw)
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    assert client.get(reverse("api-evidence-detail", args=[own.pk]), **headers).status_code == 200
    forbidden = client.get(reverse("api-evidence-detail", args=[other.pk]), **headers)
    missing = client.get(reverse("api-evidence-detail", args=[MISSING]), **headers)
    assert forbidden.status_code == missing.status_code == 404
    assert forbidden.content == missing.content
    assert forbidden.json() == (NOT_FOUND if language == "en" else NOT_FOUND_ZH)


@pytest.fixture
def member_of_the_first_only(demo, make_user):
    """A procurement member of demo evaluation 1 only: evaluation 2's rows are someone else's."""
    user = make_user("member-of-one")
    Membership.objects.create(evaluation_id=1, user=user, role="procurement")
    client = APIClient()
    client.force_login(user)
    return client


def _elsewhere_candidate() -> int:
    return Candidate.objects.exclude(evaluation_id=1).order_by("pk").first().pk


@pytest.mark.parametrize(
    "name",
    [
        "api-candidate-detail",
        "api-poc-coverage",
        "api-candidate-integrity",
        "api-candidate-catalogue",
        "api-answer-list",
    ],
)
def test_a_candidate_of_another_evaluation_and_a_missing_one_answer_alike(
    member_of_the_first_only, name
):
    client = member_of_the_first_only
    elsewhere = client.get(reverse(name, args=[1, _elsewhere_candidate()]))
    missing = client.get(reverse(name, args=[1, MISSING]))
    assert elsewhere.status_code == missing.status_code == 404, (name, elsewhere.content)
    assert elsewhere.json() == missing.json() == NOT_FOUND


def test_the_candidate_detail_and_its_coverage_say_the_same(member_of_the_first_only):
    client = member_of_the_first_only
    candidate = _elsewhere_candidate()
    detail = client.get(reverse("api-candidate-detail", args=[1, candidate]))
    coverage = client.get(reverse("api-poc-coverage", args=[1, candidate]))
    assert detail.content == coverage.content


def _alike(client, found_elsewhere: str, missing: str) -> None:
    one, two = client.get(found_elsewhere), client.get(missing)
    assert one.status_code == two.status_code == 404, (one.content, two.content)
    assert one.json() == two.json() == NOT_FOUND


def test_another_evaluation_and_a_missing_one_answer_alike(member_of_the_first_only):
    _alike(
        member_of_the_first_only,
        reverse("api-evaluation-detail", args=[2]),
        reverse("api-evaluation-detail", args=[MISSING]),
    )


def test_another_evaluations_upload_and_token_answer_as_missing_ones(member_of_the_first_only):
    procurement = get_user_model().objects.get(username="procurement")
    elsewhere = Candidate.objects.get(pk=_elsewhere_candidate())
    token, _raw = upload_token_create(candidate=elsewhere, created_by=procurement)
    _alike(
        member_of_the_first_only,
        reverse("api-upload-token-detail", args=[1, token.pk]),
        reverse("api-upload-token-detail", args=[1, MISSING]),
    )
    upload = EvidenceUpload.objects.exclude(candidate__evaluation_id=1).first()
    if upload is not None:
        _alike(
            member_of_the_first_only,
            reverse("api-upload-detail", args=[1, upload.pk]),
            reverse("api-upload-detail", args=[1, MISSING]),
        )


@pytest.mark.parametrize("name", ["api-evaluation-list", "api-me", "api-checklist"])
def test_an_upload_token_outside_the_evidence_endpoints_is_told_where_it_goes(
    token_for_first_candidate, name
):
    raw, _own, _other = token_for_first_candidate
    response = _bearer(raw).get(reverse(name))
    assert response.status_code == 401
    assert response.json()["detail"].startswith(MISPLACED)
    assert response["WWW-Authenticate"] == "Token"
    chinese = _bearer(raw).get(reverse(name), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert chinese.status_code == 401
    assert "上传令牌" in chinese.json()["detail"]


def test_other_missing_credentials_keep_their_message(demo):
    anonymous = APIClient().get(reverse("api-evaluation-list"))
    assert anonymous.status_code == 401
    assert anonymous.json() == {"detail": "Authentication credentials were not provided."}
    other_bearer = _bearer("not-an-upload-token").get(reverse("api-evaluation-list"))
    assert other_bearer.json() == {"detail": "Authentication credentials were not provided."}
