"""Failed logins (django-axes): locked per username and client address, proxy-aware."""

import pytest
from axes.models import AccessAttempt
from django.urls import reverse

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db


def login(client, username, password, **extra):
    return client.post(reverse("login"), {"username": username, "password": password}, **extra)


def test_ten_failed_logins_lock_the_username_from_that_address(client, members):
    for _ in range(9):
        response = login(client, "viewer", "wrong")
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.text
    tenth = login(client, "viewer", "wrong")
    assert tenth.status_code == 429
    locked = login(client, "viewer", PASSWORD)  # even the right password waits now
    assert locked.status_code == 429
    assert "Too many failed login attempts" in locked.text
    assert "Try again in 5 minutes" in locked.text
    assert 0 < int(locked["Retry-After"]) <= 300
    assert not client.session.get("_auth_user_id")
    # Another username is not affected...
    assert login(client, "engineer", PASSWORD).status_code == 302
    client.logout()
    # ...nor the real user logging in from another address.
    assert login(client, "viewer", PASSWORD, REMOTE_ADDR="10.9.8.7").status_code == 302


def test_a_successful_login_clears_the_count(client, members):
    for _ in range(9):
        login(client, "viewer", "wrong")
    assert login(client, "viewer", PASSWORD).status_code == 302
    client.logout()
    for _ in range(9):
        assert login(client, "viewer", "wrong").status_code == 200
    assert login(client, "viewer", PASSWORD).status_code == 302


def test_spaces_and_case_do_not_buy_more_guesses(client, members):
    for variant in ["viewer", "Viewer", "viewer ", " VIEWER", "viewer"] * 2:
        login(client, variant, "wrong")
    assert login(client, "viewer", PASSWORD).status_code == 429


def test_the_admin_login_counts_failures_too(client, members):
    for _ in range(10):
        client.post("/admin/login/", {"username": "viewer", "password": "wrong"})
    assert login(client, "viewer", PASSWORD).status_code == 429


def test_behind_the_trusted_proxy_the_client_header_decides(client, members, settings):
    settings.TRUSTED_PROXY_IP_HEADER = "X-Real-IP"
    settings.TRUSTED_PROXIES = ["127.0.0.1/32"]
    attacker = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_REAL_IP": "203.0.113.9"}
    for _ in range(10):
        login(client, "viewer", "wrong", **attacker)
    assert AccessAttempt.objects.get().ip_address == "203.0.113.9"
    assert login(client, "viewer", PASSWORD, **attacker).status_code == 429
    # The real user comes through the same proxy from another address: not locked out.
    user = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_REAL_IP": "198.51.100.7"}
    assert login(client, "viewer", PASSWORD, **user).status_code == 302


def test_the_header_is_ignored_from_an_untrusted_address(client, members, settings):
    settings.TRUSTED_PROXY_IP_HEADER = "X-Real-IP"
    settings.TRUSTED_PROXIES = ["127.0.0.1/32"]
    for i in range(10):
        login(client, "viewer", "wrong", REMOTE_ADDR="192.0.2.50", HTTP_X_REAL_IP=f"10.0.0.{i}")
    assert AccessAttempt.objects.get().ip_address == "192.0.2.50"
