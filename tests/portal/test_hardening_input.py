"""Input limits (JSON depth and size), the CSP header, and the API docs behind sign-in."""

import json
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, members):
    client.force_login(members["procurement"])
    return client


def _post_json(client, body: bytes):
    return client.post("/api/v1/evaluations/", data=body, content_type="application/json")


@pytest.mark.parametrize("depth", [40, 100_000])
def test_deeply_nested_json_is_a_400(signed_in, depth):
    body = ("[" * depth + "]" * depth).encode()
    response = _post_json(signed_in, body)
    assert response.status_code == 400, response.content[:200]
    assert "nested deeper than 32" in response.json()["detail"]


def test_nesting_within_the_limit_reaches_the_view(signed_in):
    body = json.dumps({"name": "x", "description": [[["fine"]]]}).encode()
    response = _post_json(signed_in, body)
    assert response.status_code in (201, 400)
    assert "nested" not in response.content.decode()


def test_a_json_body_over_the_size_limit_is_a_400(signed_in, settings):
    settings.API_JSON_MAX_BYTES = 1000
    body = json.dumps({"name": "x" * 2000}).encode()
    response = _post_json(signed_in, body)
    assert response.status_code == 400
    assert "larger than the limit of 1000 bytes" in response.json()["detail"]


def test_malformed_json_and_nan_are_a_400(signed_in):
    assert _post_json(signed_in, b'{"name": ').status_code == 400
    assert _post_json(signed_in, b'{"name": NaN}').status_code == 400


def test_every_page_has_a_csp_with_a_nonce_for_its_inline_script(signed_in, candidate):
    page = signed_in.get("/")
    policy = page["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "object-src 'none'" in policy
    assert "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";", 1)[0]
    # The token page shows an inline script with a new token: its nonce is in the header.
    url = reverse("upload-token-list", args=[candidate.evaluation_id, candidate.pk])
    created = signed_in.post(url, {"expires_in_days": 7, "node_name": "", "label": "x"})
    assert created.status_code == 302
    response = signed_in.get(created["Location"])
    assert response.status_code == 200
    html = response.content.decode()
    inline = re.findall(r"<script(?![^>]*\ssrc=)([^>]*)>", html)
    assert inline, "the page holds its copy-to-clipboard script"
    for attributes in inline:
        nonce = re.search(r'nonce="([^"]+)"', attributes)
        assert nonce
        assert f"'nonce-{nonce.group(1)}'" in response["Content-Security-Policy"]


def test_the_inline_handlers_of_the_templates_are_allowed_by_hash(signed_in, settings):
    policy = signed_in.get("/")["Content-Security-Policy"]
    assert "'unsafe-hashes'" in policy
    assert len(settings.CSP_INLINE_HANDLER_HASHES) >= 1
    for digest in settings.CSP_INLINE_HANDLER_HASHES:
        assert digest in policy


@pytest.mark.parametrize("url", ["/api/schema/", "/api/schema/?format=json"])
def test_the_schema_needs_a_signed_in_user(client, url):
    assert client.get(url).status_code in (401, 403)


@pytest.mark.parametrize("url", ["/api/schema/swagger/", "/api/schema/redoc/"])
def test_the_docs_pages_send_anonymous_visitors_to_the_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_docs_can_be_published(client, settings):
    settings.API_DOCS_PUBLIC = True
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/schema/redoc/").status_code == 200


def test_redoc_and_swagger_have_no_inline_script_without_nonce(signed_in):
    for url in ["/api/schema/swagger/", "/api/schema/redoc/"]:
        response = signed_in.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        inline = re.findall(r"<script(?![^>]*\ssrc=)([^>]*)>", html)
        for attributes in inline:
            nonce = re.search(r'nonce="([^"]+)"', attributes)
            assert nonce, url
            assert f"'nonce-{nonce.group(1)}'" in response["Content-Security-Policy"]
