"""Rate limits (failed logins, uploads per upload token) and the API token command."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token

from portal.api.throttling import UploadTokenRateThrottle
from portal.auth_views import LoginThrottle

from ..conftest import PASSWORD

pytestmark = pytest.mark.django_db


def login(client, username, password):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_ten_failed_logins_lock_the_username_from_that_address(client, world, settings):
    for _ in range(10):
        response = login(client, "viewer", "wrong")
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.text
    locked = login(client, "viewer", PASSWORD)  # even the right password waits now
    assert locked.status_code == 429
    assert "Too many failed login attempts" in locked.text
    assert "Try again in 5 minutes" in locked.text
    assert 0 < int(locked["Retry-After"]) <= 300
    assert not client.session.get("_auth_user_id")
    # Another username, or the same one from another address, is not affected.
    assert login(client, "engineer", PASSWORD).status_code == 302
    other = client.post(
        reverse("login"),
        {"username": "viewer", "password": PASSWORD},
        REMOTE_ADDR="10.9.8.7",
    )
    assert other.status_code == 302


def test_a_successful_login_clears_the_count(client, world):
    for _ in range(9):
        login(client, "viewer", "wrong")
    assert login(client, "viewer", PASSWORD).status_code == 302
    client.logout()
    for _ in range(9):
        assert login(client, "viewer", "wrong").status_code == 200
    assert login(client, "viewer", PASSWORD).status_code == 302


def test_an_empty_password_does_not_reset_the_count(client, world):
    for _ in range(5):
        login(client, "viewer", "wrong")
        login(client, "viewer", "")
    for _ in range(5):
        login(client, "viewer", "wrong")
    assert login(client, "viewer", PASSWORD).status_code == 429


def test_the_admin_login_form_counts_failures_too(rf, world):
    from django.contrib.sessions.middleware import SessionMiddleware

    from portal.auth_views import ThrottledAdminAuthenticationForm

    request = rf.post("/admin/login/", REMOTE_ADDR="127.0.0.1")
    SessionMiddleware(lambda r: None).process_request(request)
    for _ in range(10):
        form = ThrottledAdminAuthenticationForm(
            request, data={"username": "viewer", "password": "wrong"}
        )
        assert not form.is_valid()
    form = ThrottledAdminAuthenticationForm(request, data={"username": "viewer", "password": "x"})
    assert not form.is_valid()
    assert "Too many failed login attempts" in str(form.non_field_errors())


def test_the_lock_ends_with_its_window(rf, world, monkeypatch):
    import time

    request = rf.post("/accounts/login/", REMOTE_ADDR="127.0.0.1")
    throttle = LoginThrottle(request, "Viewer ")
    for _ in range(10):
        throttle.failed()
    assert LoginThrottle(request, "viewer").retry_after() is not None  # case and spaces
    later = time.time() + 301
    monkeypatch.setattr(time, "time", lambda: later)
    assert throttle.retry_after() is None


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
