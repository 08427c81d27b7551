"""/favicon.ico answers with the portal's own icon (no 404 in every log), and pages name it."""

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db


def test_favicon_ico_redirects_an_anonymous_browser_to_the_static_icon():
    response = Client().get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == "/static/portal/favicon.ico"
    assert "max-age=86400" in response["Cache-Control"]
    icon = settings.BASE_DIR / "static/portal/favicon.ico"
    # An ICO header: reserved 0, type 1 (icon), one image.
    assert icon.read_bytes()[:6] == b"\x00\x00\x01\x00\x01\x00"


def test_favicon_ico_serves_get_and_head_only():
    assert Client().head("/favicon.ico").status_code == 302
    response = Client().post("/favicon.ico")
    assert response.status_code == 405 and set(response["Allow"].split(", ")) == {"GET", "HEAD"}


def test_pages_link_the_icon():
    page = Client().get("/accounts/login/", follow=True).content.decode()
    assert '<link rel="icon" href="/static/portal/favicon.svg" type="image/svg+xml">' in page
    assert '<link rel="icon" href="/static/portal/favicon.ico" sizes="32x32">' in page
