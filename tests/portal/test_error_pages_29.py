"""The 403 page gives the refusal's reason once (it added a second, generic sentence saying the
same), and a refused catalogue edit is worded for the catalogue, which belongs to no
evaluation (it said "Your role in this evaluation…" on /offerings/new/; found by a trust
review). In English and Chinese."""

import html

import pytest
from django.test import Client
from django.urls import reverse

from portal.services.catalogue import CatalogueDenied, require_catalogue_editor

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
ROLE_REASON = "Your role in this evaluation does not allow this action."
CATALOGUE_REASON = "Only staff and holders of the catalogue role may edit the vendor catalogue."


@pytest.fixture
def viewer(demo):
    client = Client()
    assert client.login(username="viewer", password=PASSWORDS["viewer"])
    return client


def _page(response) -> str:
    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")
    return html.unescape(response.content.decode())


def test_an_evaluation_refusal_gives_its_reason_once(viewer):
    page = _page(viewer.get(reverse("evaluation-edit", args=[DEMO_EVALUATION])))
    assert page.count("Your role in this evaluation") == 1
    assert f"{ROLE_REASON} Nothing was changed." in page
    assert page.count("Nothing was changed") == 1
    assert "ask a procurement member of the evaluation to change your role" in page


def test_an_evaluation_refusal_in_chinese(viewer):
    page = _page(
        viewer.get(
            reverse("evaluation-edit", args=[DEMO_EVALUATION]), HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    )
    assert page.count("你在此评估中的角色") == 1
    assert page.count("没有任何内容被更改") == 1
    assert "Nothing was changed" not in page


def test_a_catalogue_refusal_speaks_of_the_catalogue_not_an_evaluation(viewer):
    page = _page(viewer.get(reverse("offering-create")))
    assert f"{CATALOGUE_REASON} Nothing was changed." in page
    assert page.count("Nothing was changed") == 1
    assert "evaluation does not" not in page and "member of the evaluation" not in page
    assert "ask an administrator to give you the catalogue role" in page
    assert f'href="{reverse("offering-list")}"' in page


def test_a_catalogue_refusal_in_chinese(viewer):
    page = _page(viewer.get(reverse("vendor-create"), HTTP_ACCEPT_LANGUAGE="zh-hans"))
    assert "只有管理员和拥有目录角色的用户可以编辑供应商目录。没有任何内容被更改。" in page
    assert "请联系管理员为你授予目录角色" in page
    assert "此评估" not in page and "该评估" not in page


def test_the_catalogue_services_refuse_with_the_catalogue_s_reason(members):
    with pytest.raises(CatalogueDenied, match="catalogue role"):
        require_catalogue_editor(members["viewer"])
    require_catalogue_editor(members["procurement"])  # holds the catalogue role


def test_the_api_still_answers_a_catalogue_refusal_in_json(viewer):
    response = viewer.post(
        reverse("api-offering-list"), {"name": "x"}, content_type="application/json"
    )
    assert response.status_code == 403
    assert response["Content-Type"] == "application/json"
