"""Rate limits (uploads per upload token) and the API token command; failed logins are in
tests/portal/test_hardening_login.py."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token

from portal.api.throttling import UploadTokenRateThrottle

pytestmark = pytest.mark.django_db


def test_uploads_per_upload_token_are_limited_with_a_clear_message(api, world, settings):
    assert UploadTokenRateThrottle().rate == "60/min"
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"evidence_upload": "3/min"},
    }
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {world.raw_token}"}
    url = reverse("api-evidence-upload")
    for index in range(3):
        data = {"file": SimpleUploadedFile(f"out{index}.txt", f"output {index}".encode())}
        assert api.post(url, data, **bearer).status_code == 202
    data = {"file": SimpleUploadedFile("out9.txt", b"output 9")}
    response = api.post(url, data, **bearer)
    assert response.status_code == 429
    body = response.json()
    assert body["detail"].startswith(
        "Too many uploads with this upload token (the limit is 3/min)."
    )
    assert "Try again in" in body["detail"]
    assert 0 < int(response["Retry-After"]) <= 60
    assert body["retry_after"] == int(response["Retry-After"])
    # A member uploading through the browser is not counted against the token.
    api.as_(world.users["engineer"])
    data = {"file": SimpleUploadedFile("mine.txt", b"by hand"), "candidate": world.candidate.pk}
    assert api.post(url, data).status_code == 202


def test_the_api_token_command_prints_rotates_and_refuses_unknown_users(api, world):
    out = io.StringIO()
    call_command("api_token_create", "viewer", stdout=out, stderr=io.StringIO())
    key = out.getvalue().strip()
    assert Token.objects.get(user=world.users["viewer"]).key == key
    again = io.StringIO()
    call_command("api_token_create", "viewer", stdout=again, stderr=io.StringIO())
    assert again.getvalue().strip() == key
    response = api.get(reverse("api-me"), HTTP_AUTHORIZATION=f"Token {key}")
    assert response.json()["username"] == "viewer"
    rotated = io.StringIO()
    call_command("api_token_create", "viewer", "--rotate", stdout=rotated, stderr=io.StringIO())
    assert rotated.getvalue().strip() != key
    assert api.get(reverse("api-me"), HTTP_AUTHORIZATION=f"Token {key}").status_code == 401
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        call_command("api_token_create", "nobody")
