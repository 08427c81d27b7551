"""The demo data set: realistic, complete, and loading it twice changes nothing."""

import pytest
from django.contrib.auth import authenticate
from django.core import serializers

from portal.management.commands.setup_demo import DEMO_USERS
from portal.models import (
    Answer,
    Candidate,
    ChecklistItem,
    DeliveryForm,
    Evaluation,
    Membership,
    Offering,
    OfferingPrice,
    Vendor,
)

pytestmark = pytest.mark.django_db

MODELS = [Vendor, Offering, OfferingPrice, Evaluation, Candidate, ChecklistItem, Answer, Membership]
VOLATILE = {"updated_at", "scored_at"}


def _snapshot():
    rows = []
    for model in MODELS:
        for obj in serializers.serialize("python", model.objects.order_by("pk")):
            fields = {k: v for k, v in obj["fields"].items() if k not in VOLATILE}
            rows.append((obj["model"], obj["pk"], fields))
    return rows


def test_loading_the_demo_twice_changes_nothing(demo):
    first = _snapshot()
    from django.core.management import call_command

    call_command("setup_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert _snapshot() == first


def test_checklist_has_ten_items_in_english_and_chinese(demo):
    items = list(ChecklistItem.objects.order_by("number"))
    assert [i.number for i in items] == list(range(1, 11))
    for item in items:
        assert item.title_en and item.title_zh
        assert any("\u4e00" <= ch <= "\u9fff" for ch in item.title_zh), item.title_zh
        assert item.dimensions, item.key


def test_demo_spans_vendors_and_delivery_forms(demo):
    assert Vendor.objects.count() >= 5
    assert Offering.objects.count() >= 6
    forms = set(Offering.objects.values_list("delivery_form", flat=True))
    assert forms == set(DeliveryForm.values)
    assert Vendor.objects.filter(mlps_level=3, xinchuang=True).exists()
    for offering in Offering.objects.all():
        assert offering.prices.exists(), offering


def test_demo_evaluation_has_answers_for_every_candidate(demo):
    evaluation = Evaluation.objects.get(name="Pre-train on 64 GPUs for 30 days")
    candidates = evaluation.candidates.all()
    assert candidates.count() >= 6
    for candidate in candidates:
        assert candidate.answers.count() == 10


def test_every_demo_login_works(demo):
    for username, password, _name, role in DEMO_USERS:
        user = authenticate(username=username, password=password)
        assert user is not None, username
        assert set(user.memberships.values_list("role", flat=True)) == {role.value}
    assert "manager" in demo and "decide-gpus-2026" in demo
