"""Every page counts a questionnaire as its own page does (selectors.QuestionnaireProgress): an
item the evidence or a document review contradicted is not answered but counted apart, and an
item without a claim is not answered whatever verdict it carries. The dashboard's checklist
column, the CSV export, the API's candidate list and the next steps give the questionnaire's
counts, in English and
Chinese, and the dashboard's queries stay flat with candidates."""

import csv
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

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
    VerificationStatus,
)
from portal.services.results import results_entries_clear
from portal.services.reviews import answer_review

from .test_userday_questionnaire import _page_data, _url

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
# Demo candidate 5 (A800 passthrough): the evidence contradicts item 1 (GPU match); all ten
# items hold a claim.
REFUTED = 5
# Demo candidate 4 (MIG slices): items 1-9 answered, item 10 open.
PARTLY = 4


def _questionnaire(client, candidate: int, language: str = "en") -> str:
    """The questionnaire page's progress line (its HTML)."""
    page = client.get(_url(candidate), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    return page.split('id="progress"', 1)[1].split(">", 1)[1].split("</p>", 1)[0]


def _counts(progress_html: str) -> tuple[int, int]:
    """(answered, contradicted) read from a progress line in English."""
    answered = re.search(r"(\d+)/10 answered", progress_html)
    contradicted = re.search(r"(\d+) contradicted by the evidence or a review", progress_html)
    assert answered, progress_html
    return int(answered.group(1)), int(contradicted.group(1)) if contradicted else 0


def _dashboard(client, language: str = "en") -> str:
    url = reverse("evaluation-detail", args=[DEMO_EVALUATION])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def _dashboard_counts(page: str, candidate: int) -> tuple[int, int]:
    """(answered, contradicted (✗)) of the ranking row of ``candidate``."""
    link = f'<a href="{reverse("candidate-detail", args=[DEMO_EVALUATION, candidate])}">'
    row = next(r for r in page.split("<tr") if link in r)
    cell = re.search(r'class="num nowrap">(\d+)/10<br><small>(.*?)</small></td>', row)
    assert cell, row
    contradicted = re.search(r"✗ (\d+)", cell.group(2))
    return int(cell.group(1)), int(contradicted.group(1)) if contradicted else 0


def _next_step(page: str, candidate: int) -> str | None:
    """The questionnaire step's progress line of ``candidate`` (None: not listed)."""
    step = page.split('data-step="questionnaire"', 1)[1].split('<li class="step', 1)[0]
    link = f'<a href="{_url(candidate)}">'
    for item in step.split("<li data-candidate-progress>")[1:]:
        if item.startswith(link):
            return item.split("</a> — ", 1)[1].split("</li>", 1)[0]
    return None


def _csv_counts(client, candidate: int) -> tuple[int, int]:
    url = reverse("evaluation-export", args=[DEMO_EVALUATION, "csv"])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    header, *rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    offering = Candidate.objects.get(pk=candidate).offering.name
    row = next(r for r in rows if r and r[header.index("Offering")] == offering)
    return (
        int(row[header.index("Checklist items answered")]),
        int(row[header.index("Contradicted by the evidence")]),
    )


def _api_counts(client, candidate: int) -> tuple[int, int]:
    url = reverse("api-candidate-list", kwargs={"evaluation_pk": DEMO_EVALUATION})
    response = client.get(url, {"page_size": 100}, HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.content
    body = response.json()
    rows = body["results"] if isinstance(body, dict) else body
    row = next(r for r in rows if r["id"] == candidate)
    return row["answered_count"], row["contradicted_count"]


def _autosave(client, candidate: int, **changes) -> None:
    data = _page_data(client, candidate)
    data.update(changes)
    data["autosave"] = "1"
    response = client.post(_url(candidate), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.content


def _contradicted_by_the_evidence(client) -> tuple[int, tuple[int, int]]:
    return REFUTED, (9, 1)


def _contradicted_by_a_review(client) -> tuple[int, tuple[int, int]]:
    answer = Answer.objects.get(candidate_id=PARTLY, item__number=7)
    engineer = get_user_model().objects.get(username="engineer")
    answer_review(answer=answer, verdict="contradicted", note="No penalty clause.", by=engineer)
    return PARTLY, (8, 1)


def _verdict_without_a_claim(client) -> tuple[int, tuple[int, int]]:
    # Demo candidate 1: the evidence verifies item 1; its claim emptied, the verdict stays.
    _autosave(client, 1, **{"item-1-claim": "", "item-1-notes": "Waiting for the quote."})
    answer = Answer.objects.get(candidate_id=1, item__number=1)
    assert answer.claim == "" and answer.status == VerificationStatus.VERIFIED
    return 1, (9, 0)


@pytest.mark.parametrize(
    "change",
    [_contradicted_by_the_evidence, _contradicted_by_a_review, _verdict_without_a_claim],
    ids=["evidence", "review", "no-claim"],
)
def test_the_dashboard_the_csv_and_the_next_steps_count_as_the_questionnaire(
    as_role, empty_cache, change
):
    client = as_role("procurement")
    _dashboard(client)  # the results fragment cached before the change: never served after it
    candidate, expected = change(client)

    questionnaire = _questionnaire(client, candidate)
    assert _counts(questionnaire) == expected
    page = _dashboard(client)
    assert _dashboard_counts(page, candidate) == expected
    assert _csv_counts(client, candidate) == expected
    assert _api_counts(client, candidate) == expected
    # Not finished: listed in the next steps with the questionnaire's own progress line.
    assert _next_step(page, candidate) == questionnaire


def test_the_next_steps_count_a_candidate_with_a_contradicted_item_as_not_done(
    as_role, empty_cache
):
    page = _dashboard(as_role("manager"))
    # Six candidates: 4 is missing item 10, 5 has item 1 contradicted; the other four are done.
    assert "4 of 6 candidates have answered all 10 items." in page
    assert _next_step(page, PARTLY) == "9/10 answered"
    assert _next_step(page, 1) is None
    assert _next_step(page, REFUTED) == (
        '9/10 answered · <span class="progress-contradicted">1 contradicted by the evidence '
        "or a review: take it up with the vendor</span>"
    )


def test_the_counts_read_the_same_in_chinese(as_role, empty_cache):
    client = as_role("procurement")
    questionnaire = _questionnaire(client, REFUTED, language="zh-hans")
    assert questionnaire.startswith("已回答 9/10 · ")
    assert "1 项被实测或文件审核否定：" in questionnaire
    page = _dashboard(client, language="zh-hans")
    assert "6 个候选方案中已有 4 个回答了全部 10 项。" in page
    assert _next_step(page, REFUTED) == questionnaire
    assert _dashboard_counts(page, REFUTED) == (9, 1)
    url = reverse("evaluation-export", args=[DEMO_EVALUATION, "csv"])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    header = next(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert "已回答的检查项" in header


def test_the_evaluation_wide_counts_are_each_candidates_own(demo):
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    everyone = selectors.questionnaire_progress_by_candidate(evaluation=evaluation, total=10)
    candidates = list(evaluation.candidates.order_by("pk"))
    assert list(everyone) == [c.pk for c in candidates]
    for candidate in candidates:
        own = selectors.questionnaire_progress(candidate=candidate, total=10)
        assert everyone[candidate.pk] == own
    assert everyone[REFUTED] == selectors.QuestionnaireProgress(
        answered=9, contradicted=1, total=10
    )
    assert not everyone[REFUTED].complete and everyone[1].complete


def _evaluation_with(n: int, user, vendor) -> Evaluation:
    """An evaluation of ``n`` candidates, each with the ten items answered and item 1
    contradicted."""
    evaluation = Evaluation.objects.create(
        name=f"{n} contradicted", workload_profile="pretraining", required_total_gpus=16,
        required_gpu_memory_gib=80, duration_days=30,
    )  # fmt: skip
    items = list(ChecklistItem.objects.order_by("number"))
    for i in range(n):
        offering = Offering.objects.create(
            vendor=vendor, name=f"{n}-refuted {i}", delivery_form="bare_metal", gpu_model="H100",
            gpu_form_factor="sxm", gpus_per_node=8, gpu_memory_gib=80,
            nvlink_topology="full_mesh", fabric="infiniband", fabric_rate_gbit_s=400,
            nics_per_node=8,
        )  # fmt: skip
        OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=20)
        candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
        Answer.objects.bulk_create(
            Answer(
                candidate=candidate,
                item=item,
                claim="yes",
                status="contradicted" if item.number == 1 else "claimed",
            )
            for item in items
        )
    Membership.objects.create(evaluation=evaluation, user=user, role=Role.MANAGER)
    return evaluation


def test_the_counts_cost_no_query_per_candidate(demo, make_user, vendor, empty_cache):
    user = make_user("counting-manager")
    client = Client()
    client.force_login(user)
    counts = {}
    for n in (2, 12):
        evaluation = _evaluation_with(n, user, vendor)
        pages = {
            "dashboard": reverse("evaluation-detail", args=[evaluation.pk]),
            "csv": reverse("evaluation-export", args=[evaluation.pk, "csv"]),
        }
        for name, url in pages.items():
            client.get(url)  # warm what is not per request (rubric, translations)
            # Both tiers emptied: the results computed and rendered again, counts included.
            empty_cache.clear()
            results_entries_clear()
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            assert response.status_code == 200
            counts[n, name] = len(queries)
        page = client.get(pages["dashboard"]).content.decode()
        assert page.count('class="num nowrap">9/10<br>') == n
        assert page.count("<li data-candidate-progress>") == min(n, 5)
        if n > 5:
            assert f"and {n - 5} more candidates" in page
    assert counts[2, "dashboard"] == counts[12, "dashboard"], counts
    assert counts[2, "csv"] == counts[12, "csv"], counts
