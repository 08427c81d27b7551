"""Defects an attacker's review found (stop 33, attack 8): each test failed before its fix."""

import html

import pytest
from django.test import Client
from django.urls import reverse

from portal.models import EvidenceUpload

pytestmark = pytest.mark.django_db

FORGED_NOTICE = "Your account is locked. Sign in again at https://evil.example/login"


def _forged_post(**headers):
    """What a page of another site makes a visitor's browser post to a portal form."""
    client = Client(enforce_csrf_checks=True)
    return client.post(
        reverse("evaluation-weights", args=[1]),
        {"Security_notice": FORGED_NOTICE, "Support_phone": "+86 555 0100"},
        **headers,
    )


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "https://evil.example"},
        {"HTTP_ORIGIN": "null"},
        {"HTTP_REFERER": "https://evil.example/form"},
        {"HTTP_SEC_FETCH_SITE": "cross-site"},
    ],
    ids=["origin", "hidden-origin", "referer", "fetch-metadata"],
)
def test_a_post_from_another_site_is_not_shown_back_as_the_portals_text(demo, headers):
    """The stale-token page gave back every field a post sent, labelled by its own name: a
    page elsewhere could post any notice and have the portal show it on its own page."""
    response = _forged_post(**headers)
    assert response.status_code == 403
    body = html.unescape(response.content.decode())
    assert "Nothing was saved" in body
    assert FORGED_NOTICE not in body
    assert "Security notice" not in body and "+86 555 0100" not in body
    assert "What you sent" not in body


def test_a_post_from_the_portals_own_page_still_gets_its_text_back(demo):
    response = _forged_post(
        HTTP_ORIGIN="http://testserver", HTTP_REFERER="http://testserver/evaluations/1/weights/"
    )
    assert response.status_code == 403
    assert FORGED_NOTICE in html.unescape(response.content.decode())


def test_an_anonymous_client_cannot_tell_which_uploads_exist(demo):
    """GET /api/v1/evidence/<id>/ without credentials answered 401 for an upload that exists
    and 404 for a free id, so anyone could count and probe the uploads."""
    existing = EvidenceUpload.objects.order_by("pk").first()
    assert existing is not None
    missing = EvidenceUpload.objects.order_by("-pk").first().pk + 1000
    client = Client()
    answers = [
        client.get(reverse("api-evidence-detail", args=[pk])).status_code
        for pk in (existing.pk, missing)
    ]
    assert answers == [401, 401]


def test_the_checklist_is_read_only_in_the_admin(client, demo):
    """The admin changed checklist items beside the services and without history: an item's
    key feeds the scoring rules and its answer type and choices give the stored answers their
    meaning, for decided evaluations too (item 2's choice answers turned into free text)."""
    from django.contrib.auth import get_user_model

    from portal.models import ChecklistItem

    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456789")
    client.force_login(root)
    item = ChecklistItem.objects.get(number=2)
    before = (item.key, item.answer_type, item.choices, item.dimensions)
    url = reverse("admin:portal_checklistitem_change", args=[item.pk])
    assert client.get(url).status_code == 200  # still shown
    data = {
        "number": "2",
        "key": "renamed",
        "title_en": item.title_en,
        "title_zh": item.title_zh,
        "answer_type": "text",
        "choices": "[]",
        "dimensions": '["cost"]',
        "evidence_kinds": "[]",
    }
    assert client.post(url, data).status_code == 403
    item.refresh_from_db()
    assert (item.key, item.answer_type, item.choices, item.dimensions) == before
    assert client.get(reverse("admin:portal_checklistitem_add")).status_code == 403
    delete = reverse("admin:portal_checklistitem_delete", args=[item.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert ChecklistItem.objects.filter(pk=item.pk).exists()


HYBRID = 16  # the demo evaluation with workloads


@pytest.mark.parametrize(
    "requirements",
    [
        {"required_gpu_memory_gib": "x"},
        {"required_gpu_memory_gib": -5},
        {"required_gpu_memory_gib": 24.5},
        {"required_gpu_memory_gib": True},
        {"required_gpu_memory_gib": 10**30},
        {"required_mlps_level": 7},
        {"required_mlps_level": "3"},
        {"require_xinchuang": 101},
        {"require_xinchuang": "yes"},
        {"min_busbw_fraction": 2},
        {"min_busbw_fraction": "abc"},
        {"min_busbw_fraction": 0.805},
        {"min_busbw_fraction": [0.8]},
    ],
)
def test_a_workload_requirement_scoring_cannot_read_is_a_400(as_role, requirements):
    """Stored as sent, each of these made the portfolio's API and page a 500 for every member
    of the evaluation (scoring refused the value when the proposal was computed)."""
    from portal.models import Workload

    client = as_role("procurement")
    workload = Workload.objects.filter(evaluation_id=HYBRID).first()
    before = workload.requirements
    url = reverse("api-workload-detail", args=[HYBRID, workload.pk])
    response = client.patch(url, {"requirements": requirements}, content_type="application/json")
    assert response.status_code == 400, response.content
    assert "requirements" in response.json()
    workload.refresh_from_db()
    assert workload.requirements == before
    assert client.get(reverse("api-portfolio", args=[HYBRID])).status_code == 200
    assert client.get(reverse("evaluation-portfolio", args=[HYBRID])).status_code == 200


def test_a_fraction_sent_as_a_json_number_is_kept_as_the_evaluation_keeps_it(as_role):
    """0.8 as a JSON number is what a script sends; scoring takes no float, so it is stored as
    the evaluation's own field keeps it (two decimals, as text) and the proposal is computed."""
    from portal.models import Workload

    client = as_role("procurement")
    workload = Workload.objects.filter(evaluation_id=HYBRID).first()
    url = reverse("api-workload-detail", args=[HYBRID, workload.pk])
    sent = {"min_busbw_fraction": 0.8, "required_gpu_memory_gib": 80, "require_xinchuang": False}
    response = client.patch(url, {"requirements": sent}, content_type="application/json")
    assert response.status_code == 200, response.content
    workload.refresh_from_db()
    assert workload.requirements == {
        "min_busbw_fraction": "0.80",
        "required_gpu_memory_gib": 80,
        "require_xinchuang": False,
    }
    assert client.get(reverse("api-portfolio", args=[HYBRID])).status_code == 200
    assert client.get(reverse("evaluation-portfolio", args=[HYBRID])).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"weights": {"network": 1e308, "cost": 1e308}},
        {"weights": {"network": 101}},
        {"gpus": 2_000_000},
        {"peak_gpus": 2_000_000},
        {"duration_days": 2147483647},
    ],
)
def test_a_workload_too_large_to_price_is_a_400(as_role, body):
    """Two weights of 1e308 summed to infinity (the portfolio's page and API a 500), and
    2^31-1 GPUs for 2^31-1 days gave a TCO the API could not write (its API a 500): a workload
    is held to the evaluation's bounds (a million GPUs, ten years) and weights to 0-100."""
    from portal.models import Workload

    client = as_role("procurement")
    workload = Workload.objects.filter(evaluation_id=HYBRID).first()
    url = reverse("api-workload-detail", args=[HYBRID, workload.pk])
    response = client.patch(url, body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert set(response.json()) == set(body)
    assert client.get(reverse("api-portfolio", args=[HYBRID])).status_code == 200
    assert client.get(reverse("evaluation-portfolio", args=[HYBRID])).status_code == 200


def test_the_largest_workload_allowed_is_priced(as_role):
    from portal.models import Workload

    client = as_role("procurement")
    workload = Workload.objects.filter(evaluation_id=HYBRID).first()
    url = reverse("api-workload-detail", args=[HYBRID, workload.pk])
    body = {"gpus": 1_000_000, "peak_gpus": 1_000_000, "duration_days": 3_653}
    body["weights"] = {"network": 100, "cost": 100}
    response = client.patch(url, body, content_type="application/json")
    assert response.status_code == 200, response.content
    assert client.get(reverse("api-portfolio", args=[HYBRID])).status_code == 200
    assert client.get(reverse("evaluation-portfolio", args=[HYBRID])).status_code == 200
