"""Errors and roles: 403 and 404 pages use the portal's layout and say what to do next, and no
page shows a member a link that answers them 403."""

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db

START = [
    "/",
    "/evaluations/1/",
    "/evaluations/1/results/",
    "/evaluations/1/weights/",
    "/evaluations/1/decision/",
    "/evaluations/1/history/",
    "/evaluations/1/members/",
    "/evaluations/1/candidates/1/",
    "/evaluations/1/candidates/1/questionnaire/",
]
# Not pages: downloads, exports, the API, the admin and the language switch.
SKIP = re.compile(r"^/(api|admin|static|media|i18n|jsi18n|accounts)/|/export\.|/download/")


def _links(html: str) -> set[str]:
    found = set()
    for href in re.findall(r'href="([^"#]+)"', html):
        path = urlsplit(href).path
        if path.startswith("/") and not SKIP.search(path):
            found.add(path)
    return found


@pytest.mark.parametrize("role", ["manager", "viewer", "engineer", "procurement"])
def test_no_link_shown_to_a_member_answers_403(client, demo, role):
    assert client.login(username=role, password=PASSWORDS[role])
    seen: dict[str, int] = {}
    links: set[str] = set()
    for page in START:
        response = client.get(page)
        seen[page] = response.status_code
        if response.status_code == 200:
            links |= _links(response.content.decode())
    for link in sorted(links - set(seen)):
        seen[link] = client.get(link).status_code
    forbidden = sorted(path for path, status in seen.items() if status == 403)
    # The start pages a role may not open are not linked from anywhere it sees either.
    assert not (set(forbidden) & links), forbidden


@pytest.mark.parametrize("role", ["manager", "viewer"])
def test_readers_see_no_upload_link(client, demo, role):
    assert client.login(username=role, password=PASSWORDS[role])
    html = client.get("/evaluations/1/candidates/1/").content.decode()
    assert "Upload evidence" not in html
    assert reverse("candidate-evidence", args=[1, 1]) not in html


def test_a_403_uses_the_layout_and_says_what_to_do(client, demo):
    assert client.login(username="viewer", password=PASSWORDS["viewer"])
    response = client.get(reverse("candidate-evidence", args=[1, 1]))
    assert response.status_code == 403
    html = response.content.decode()
    assert 'class="topbar"' in html and "Log out" in html
    assert "What you can do next" in html
    assert "does not allow this action" in html  # the reason raised by the role check
    assert f'href="{reverse("evaluation-list")}"' in html


def test_a_404_uses_the_layout_and_says_what_to_do(client, demo, make_user):
    client.force_login(make_user("stranger"))
    response = client.get("/evaluations/1/")
    assert response.status_code == 404
    html = response.content.decode()
    assert 'class="topbar"' in html
    assert "not shared with you" in html and "What you can do next" in html


def test_error_pages_are_translated(client, demo):
    assert client.login(username="viewer", password=PASSWORDS["viewer"])
    client.cookies["django_language"] = "zh-hans"
    html = client.get(reverse("candidate-evidence", args=[1, 1])).content.decode()
    assert "接下来你可以" in html
    assert "你在此评估中的角色不允许此操作。" in html


def test_an_unknown_address_gets_the_404_page_without_a_login(client, db):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert 'class="topbar"' in html and "What you can do next" in html
    assert "Log out" not in html
