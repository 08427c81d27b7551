"""A decided record keeps the name the chosen candidate had when it was decided: renaming the
vendor afterwards (a catalogue edit, allowed while the evaluation is decided) changed "Chosen:"
on the decision page, the report's decision, the history's entry and the API's candidate_label,
while the snapshot table and the exports kept the old name (found by a trust review)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from portal.models import Candidate, DecisionRecord, Evaluation, Vendor
from portal.services.catalogue import vendor_save
from portal.services.evaluations import decision_record

pytestmark = pytest.mark.django_db

PASSWORD = "decide-gpus-2026"


def admin(user):
    """A staff user: the catalogue is edited by staff and catalogue-role holders."""
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def decided(demo, client):
    manager = get_user_model().objects.get(username="manager")
    evaluation = Evaluation.objects.get(pk=1)
    candidate = Candidate.objects.get(pk=1)
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Best fabric.", by=manager
    )
    record = DecisionRecord.objects.get(evaluation=evaluation)
    before = record.chosen_label
    vendor = Vendor.objects.get(pk=candidate.offering.vendor_id)
    vendor.name = "Renamed Afterwards Ltd"
    vendor_save(
        vendor=vendor, by=get_user_model().objects.filter(is_staff=True).first() or admin(manager)
    )
    assert "Renamed Afterwards" in str(Candidate.objects.get(pk=1))  # today's name moved on
    assert client.login(username="manager", password=PASSWORD)
    return record, before


def test_the_decision_page_and_report_keep_the_decided_name(client, decided):
    _record, before = decided
    page = client.get(reverse("evaluation-decision", args=[1])).content.decode()
    assert f"Chosen: {before}</h2>" in page
    assert "Renamed Afterwards" not in page
    report = client.get(reverse("evaluation-report", args=[1])).content.decode()
    decision_part = report.split("Recorded by", 1)[0].rsplit("<strong>", 1)[1]
    assert decision_part.startswith(before)


def test_the_api_and_the_history_keep_the_decided_name(client, decided):
    record, before = decided
    body = client.get(reverse("api-decision", kwargs={"evaluation_pk": 1})).json()
    assert body["decision"]["candidate_label"] == before
    assert str(DecisionRecord.objects.get(pk=record.pk)).endswith(f"{before} (1)")
    history = client.get(reverse("evaluation-history", args=[1])).content.decode()
    assert before in history


def test_chinese_pages_use_the_full_width_colon(client, decided):
    # "选定:" and "推荐:" read as English punctuation in a Chinese sentence (user walk).
    _record, before = decided
    zh = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
    page = client.get(reverse("evaluation-decision", args=[1]), **zh).content.decode()
    assert f"选定：{before}</h2>" in page
    dashboard = client.get(reverse("evaluation-detail", args=[1]), **zh).content.decode()
    assert "推荐：" in dashboard
    assert "推荐:" not in dashboard
    english = client.get(reverse("evaluation-detail", args=[1])).content.decode()
    assert "recommended: " in english
