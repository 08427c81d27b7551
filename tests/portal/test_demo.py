"""The demo data set: realistic, complete, and loading it twice changes nothing."""

import datetime

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
    EvidenceUpload,
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


VARYING = {"password", "claim_token"}


def _every_row() -> dict[str, list]:
    """Every row of every table, without the values that differ from one load to the next
    (timestamps, salted password hashes, an import's random claim token)."""
    from django.apps import apps

    rows = {}
    for model in apps.get_models(include_auto_created=True):
        values = model.objects.order_by("pk").values()
        rows[model._meta.db_table] = [
            {
                k: v
                for k, v in row.items()
                if not isinstance(v, datetime.datetime) and k not in VARYING
            }
            for row in values
        ]
    return {table: table_rows for table, table_rows in rows.items() if table_rows}


def test_the_tests_copy_of_the_demo_is_what_setup_demo_writes(
    db, demo_snapshot, settings, tmp_path
):
    """The demo fixture restores a copy of the demo (tests/demo_snapshot.py): it must hold the
    rows, ids and stored files that the command writes on the same database."""
    from django.core.management import call_command
    from django.db import connection, transaction

    from tests.demo_snapshot import restore, sequences_reset

    settings.MEDIA_ROOT = tmp_path / "command"
    with transaction.atomic(), connection.cursor() as cursor:
        sequences_reset(cursor, demo_snapshot.tables)  # ids from 1, as the copy's
        call_command("setup_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
        written = _every_row()
        transaction.set_rollback(True)
    assert Evaluation.objects.count() == 0
    settings.MEDIA_ROOT = tmp_path / "restored"
    restore(demo_snapshot)
    assert _every_row() == written

    def stored(root):
        return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    assert stored(tmp_path / "restored") == stored(tmp_path / "command")
    assert len(stored(tmp_path / "command")) == EvidenceUpload.objects.count() == 4
