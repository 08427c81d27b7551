"""The dashboard's cached fragments (results and catalogue-change notice): a repeat view serves
what a fresh render gives, every change of what they show renews them (an upload refresh,
weights, a review, the language, a decision, the catalogue, the checklist), each role gets its
own, nothing of the viewer's request is cached inside them, and the query count stays flat with
candidates."""

from __future__ import annotations

import pickle
import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from portal import selectors
from portal.models import (
    Answer,
    Candidate,
    ChecklistItem,
    Evaluation,
    Membership,
    Offering,
    OfferingPrice,
    Role,
)
from portal.services.answers import AnswerDraft, answers_save
from portal.services.catalogue import (
    candidate_offering_adopt,
    candidate_offering_keep,
    offering_price_save,
    offering_save,
    vendor_save,
)
from portal.services.evaluations import decision_record, evaluation_weights_set
from portal.services.evidence import evidence_import, evidence_submit
from portal.services.results import results_entries_clear
from portal.services.reviews import answer_review
from portal.views.dashboard import FRAGMENT_VERSION, checklist_items

from .conftest import sample_bytes

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]

DEMO_EVALUATION = 1


def _user(name):
    return get_user_model().objects.get(username=name)


def _client(name) -> Client:
    client = Client()
    client.force_login(_user(name))
    return client


@pytest.fixture
def url(demo) -> str:
    return reverse("evaluation-detail", args=[DEMO_EVALUATION])


def _page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def _results(html: str) -> str:
    found = re.search(r'<div id="results">(.*?)</section>\s*</div>', html, re.S)
    assert found, "no results fragment on the page"
    return found.group(1)


def _cached_then_fresh(client, url) -> tuple[str, str]:
    """The page as the cache serves it now, and as a render with an empty cache gives it."""
    cached = _page(client, url)
    cache.clear()
    results_entries_clear()
    return cached, _page(client, url)


def _cached(key: str):
    """What the Django cache holds under ``key`` (pickled by selectors.cache_set), or None."""
    blob = cache.get(key)
    return None if blob is None else pickle.loads(blob)  # noqa: S301 - written by the test


def test_a_repeat_view_is_the_fresh_render(url):
    manager = _client("manager")
    first = _page(manager, url)
    again, fresh = _cached_then_fresh(manager, url)
    assert _results(first) == _results(again) == _results(fresh)
    assert "Verification matrix" in _results(first)


def test_saved_weights_renew_the_results(url):
    manager = _client("manager")
    before = _results(_page(manager, url))
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    weights = {"cost": 70, "stability": 6, "network": 6, "storage": 6, "security": 6, "support": 6}
    evaluation_weights_set(evaluation=evaluation, weights=weights, by=_user("manager"))
    cached, fresh = _cached_then_fresh(manager, url)
    assert _results(cached) == _results(fresh) != before
    assert "<small>70 %</small>" in _results(cached)
    assert "<small>70 %</small>" not in before


def test_an_upload_refresh_renews_the_results(evaluation, members, candidate, settings):
    settings.EVIDENCE_IMPORT_BATCH = 1
    # The samples ran on 8 x A100: the candidate's pinned offering must be one for them to count.
    Offering.objects.filter(pk=candidate.offering_id).update(
        gpu_model="NVIDIA A100-SXM4-40GB", gpu_memory_gib=40
    )
    candidate_offering_adopt(candidate=candidate, by=None)
    url = reverse("evaluation-detail", args=[evaluation.pk])
    manager = Client()
    manager.force_login(members["manager"])
    before = _results(_page(manager, url))
    assert 'data-empty-for="busbw"' in before
    for name in ("nccl-a100-8gpu.txt", "topo-a100-8gpu.txt"):
        upload, _created = evidence_submit(
            candidate=candidate, uploaded_file=SimpleUploadedFile(name, sample_bytes(name))
        )
        evidence_import(upload_id=upload.pk, task_id=f"cache-{name}")
    cached, fresh = _cached_then_fresh(manager, url)
    assert _results(cached) == _results(fresh) != before
    assert 'data-empty-for="busbw"' not in _results(cached)


def test_a_review_renews_the_results(url):
    manager = _client("manager")
    answer = Answer.objects.select_related("item", "candidate").get(
        candidate_id=1, item__key="compliance"
    )
    answers_save(
        candidate=answer.candidate,
        drafts=[
            AnswerDraft(
                item=answer.item, claim="MLPS level 3, cert 2025-117", value=answer.value,
                notes=answer.notes,
            )
        ],
        by=_user("procurement"),
    )  # fmt: skip
    before = _results(_page(manager, url))
    answer.refresh_from_db()
    answer_review(
        answer=answer, verdict="contradicted", note="Certificate expired", by=_user("engineer")
    )
    cached, fresh = _cached_then_fresh(manager, url)
    assert _results(cached) == _results(fresh) != before


def test_each_language_gets_its_own_results(url):
    manager = _client("manager")
    english = _results(_page(manager, url))
    manager.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    chinese = _results(_page(manager, url))
    assert "Verification matrix" in english and "验证矩阵" not in english
    assert "验证矩阵" in chinese and "Verification matrix" not in chinese
    # The ranking rows' words (rendered in Python) follow the language too.
    assert "verified by the evidence" in english and "verified by the evidence" not in chinese
    assert "证据已验证" in chinese
    manager.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert _results(_page(manager, url)) == english


def test_a_checklist_title_change_renews_the_matrix(url):
    manager = _client("manager")
    assert "Renamed item" not in _page(manager, url)
    ChecklistItem.objects.filter(number=1).update(title_en="Renamed item")
    assert "Renamed item" in _results(_page(manager, url))


def test_the_catalogue_notice_follows_edits_and_the_decision(url):
    manager = _client("manager")
    procurement = _user("procurement")
    candidate = Candidate.objects.filter(evaluation_id=DEMO_EVALUATION).order_by("pk").first()
    assert "Catalogue changed since" not in _page(manager, url)
    # A vendor fact the ranking does not score renews the notice.
    offering = Offering.objects.select_related("vendor").get(pk=candidate.offering_id)
    vendor = offering.vendor
    vendor.website = "https://cache-test.example"
    vendor_save(vendor=vendor, by=procurement)
    html = _page(manager, url)
    assert "Catalogue changed since" in html and "https://cache-test.example" in html
    # So do a list price and an offering fact.
    price = OfferingPrice.objects.filter(offering=offering).order_by("pk").first()
    price.price_per_gpu = Decimal("1.2345")
    offering_price_save(price=price, by=procurement)
    assert "1.2345" in _page(manager, url)
    offering = Offering.objects.get(pk=offering.pk)
    offering.sla_availability_pct = Decimal("95.5")
    offering_save(offering=offering, by=procurement)
    html = _page(manager, url)
    assert "95.5" in html and "Their procurement member adopts the new version" in html
    # Recording the decision drops the hint about adopting (the evaluation is frozen).
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Chosen.", by=_user("manager")
    )
    html = _page(manager, url)
    assert "Catalogue changed since" in html
    assert "Their procurement member adopts the new version" not in html


def test_keeping_the_pinned_version_hides_the_notice(url):
    manager = _client("manager")
    candidate = Candidate.objects.filter(evaluation_id=DEMO_EVALUATION).order_by("pk").first()
    offering = Offering.objects.get(pk=candidate.offering_id)
    offering.sla_availability_pct = Decimal("95.5")
    offering_save(offering=offering, by=_user("procurement"))
    assert "Catalogue changed since" in _page(manager, url)
    candidate_offering_keep(candidate=candidate, by=_user("procurement"))
    assert "Catalogue changed since" not in _page(manager, url)


def _results_key(role: str, lang: str = "en", weights=None) -> str:
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    items = checklist_items()
    with translation.override(lang):
        return selectors.results_key(
            evaluation,
            "results-html",
            FRAGMENT_VERSION,
            translation.get_language(),
            role,
            selectors.weights_key(weights),
            False,
            [(i.number, i.key, i.title_en, i.title_zh) for i in items],
        )


def test_each_role_gets_its_own_fragment(url):
    manager_key, viewer_key = _results_key(Role.MANAGER.value), _results_key(Role.VIEWER.value)
    assert manager_key != viewer_key
    manager = _page(_client("manager"), url)
    assert _cached(manager_key) is not None
    # The viewer never receives the fragment rendered for the manager: it renders its own.
    assert _cached(viewer_key) is None
    viewer = _page(_client("viewer"), url)
    assert _cached(viewer_key) is not None
    assert _results(viewer) == _results(manager)  # the results show nothing role-bound today


def test_nothing_of_the_request_is_cached_in_the_fragments(url):
    manager = _client("manager")
    _page(manager, url)
    fragment = _cached(_results_key(Role.MANAGER.value))
    assert "Verification matrix" in fragment
    for private in ("csrfmiddlewaretoken", "nonce"):
        assert private not in fragment


def test_a_non_member_gets_404_and_no_fragment(url, make_user):
    _page(_client("manager"), url)  # a fragment is cached
    outsider = Client()
    outsider.force_login(make_user("cache-outsider"))
    assert outsider.get(url).status_code == 404
    results = reverse("evaluation-results", args=[DEMO_EVALUATION])
    assert outsider.get(results).status_code == 404
    assert Client().get(url).status_code == 302  # to the sign-in page


def test_the_htmx_results_share_the_fragment(url):
    manager = _client("manager")
    page = _results(_page(manager, url))
    fragment = manager.get(reverse("evaluation-results", args=[DEMO_EVALUATION]))
    assert fragment.status_code == 200
    assert fragment.content.decode().strip().startswith("<section")
    assert page in fragment.content.decode()
    what_if_query = {
        "cost": "90", "stability": "2", "network": "2", "storage": "2", "security": "2",
        "support": "2",
    }  # fmt: skip
    what_if = manager.get(
        reverse("evaluation-results", args=[DEMO_EVALUATION]),
        {f"w_{d}": v for d, v in what_if_query.items()},
    ).content.decode()
    assert "<small>90 %</small>" in what_if
    assert "<small>90 %</small>" not in page
    # Typed weights are rendered, not cached: only the saved weights' fragment is kept.
    assert _cached(_results_key(Role.MANAGER.value)) is not None
    typed = {d: Decimal(v) for d, v in what_if_query.items()}
    assert _cached(_results_key(Role.MANAGER.value, weights=typed)) is None


def _evaluation_with(n: int, user, vendor) -> str:
    evaluation = Evaluation.objects.create(
        name=f"{n} candidates", workload_profile="pretraining", required_total_gpus=16,
        duration_days=30,
    )  # fmt: skip
    items = list(ChecklistItem.objects.order_by("number"))
    for i in range(n):
        offering = Offering.objects.create(
            vendor=vendor, name=f"{n}-offer {i}", delivery_form="bare_metal", gpu_model="H100",
            gpu_form_factor="sxm", gpus_per_node=8, gpu_memory_gib=80,
            nvlink_topology="full_mesh", fabric="infiniband", fabric_rate_gbit_s=400,
            nics_per_node=8,
        )  # fmt: skip
        OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=20)
        candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
        Answer.objects.bulk_create(
            Answer(candidate=candidate, item=item, claim="yes", status="claimed") for item in items
        )
    Membership.objects.create(evaluation=evaluation, user=user, role=Role.MANAGER)
    return reverse("evaluation-detail", args=[evaluation.pk])


def test_the_query_count_is_flat_with_candidates(demo, make_user, vendor):
    user = make_user("flat-manager")
    client = Client()
    client.force_login(user)
    counts = {}
    for n in (2, 12):
        url = _evaluation_with(n, user, vendor)
        cache.clear()
        results_entries_clear()
        with CaptureQueriesContext(connection) as cold:
            assert client.get(url).status_code == 200
        with CaptureQueriesContext(connection) as cached:
            assert client.get(url).status_code == 200
        counts[n] = (len(cold), len(cached))
    assert counts[2] == counts[12]
    assert counts[2][1] < counts[2][0]
