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

# What setup_demo prints, English then Chinese (the person starting the portal reads it).
PRESENT = "demo data already present; left unchanged / 演示数据已存在；未作任何改动"
LOGINS = "Demo logins (username / password / role): / 演示登录（用户名 / 密码 / 角色）："

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
    from django.contrib.contenttypes.models import ContentType
    from django.core.management import call_command
    from django.db import connection, transaction

    from tests.demo_snapshot import base_restore, restore, sequences_reset

    settings.MEDIA_ROOT = tmp_path / "command"
    with transaction.atomic(), connection.cursor() as cursor:
        # The database the copy was made on: its content types and permissions under the
        # copy's ids (a transactional test run before this one re-creates them under new ids).
        base_restore(cursor, demo_snapshot)
        ContentType.objects.clear_cache()
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


# --- Running setup_demo again (scripts/run.sh runs it at every start) ---------------------------


def _setup_demo() -> tuple[str, str]:
    """Run the command as scripts/run.sh does; returns what it wrote to stdout and stderr."""
    import io

    from django.core.management import call_command

    out, err = io.StringIO(), io.StringIO()
    call_command("setup_demo", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _history_rows() -> dict[str, int]:
    from django.apps import apps

    return {
        model._meta.db_table: model._default_manager.count()
        for model in apps.get_models()
        if model._meta.db_table.startswith("portal_historical")
    }


def test_running_setup_demo_again_keeps_decisions_answers_and_prices(demo):
    """The decision recorded on evaluation 2, an edited answer and a changed list price all
    survive a second run: no row is reset and no history row is written for them."""
    from decimal import Decimal

    from django.contrib.auth import get_user_model

    from portal import selectors
    from portal.models import DecisionRecord, DecisionReopening, EvaluationStatus
    from portal.services.catalogue import offering_price_save
    from portal.services.evaluations import answer_save, decision_record

    users = {u.username: u for u in get_user_model().objects.all()}
    answer = Answer.objects.select_related("candidate", "item").get(candidate_id=1, item__number=1)
    answer_save(
        candidate=answer.candidate,
        item=answer.item,
        by=users["procurement"],
        claim="8x H100 SXM5 80GB, as in the signed quote",
    )
    price = OfferingPrice.objects.order_by("pk").first()
    price.price_per_gpu = Decimal("12345.67")
    offering_price_save(price=price, by=users["procurement"])
    evaluation = Evaluation.objects.get(pk=2)
    ranking, _none = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
    chosen = next(r for r in ranking.results if not r.disqualified)
    record = decision_record(
        evaluation=evaluation,
        candidate=Candidate.objects.get(pk=chosen.candidate_id),
        rationale="Best value on the measured evidence.",
        by=users["manager"],
    )
    history = _history_rows()
    rows = _every_row()

    out, err = _setup_demo()

    assert out.splitlines()[0] == PRESENT
    assert "Existing history found" not in out + err
    assert err == ""
    evaluation.refresh_from_db()
    assert evaluation.status == EvaluationStatus.DECIDED
    assert evaluation.decisions.order_by("-round").first() == record
    assert DecisionRecord.objects.filter(evaluation=evaluation).count() == 1
    assert not DecisionReopening.objects.exists()
    answer.refresh_from_db()
    assert answer.claim == "8x H100 SXM5 80GB, as in the signed quote"
    price.refresh_from_db()
    assert price.price_per_gpu == Decimal("12345.67")
    assert _history_rows() == history
    assert _every_row() == rows


def test_a_second_run_prints_the_logins_and_no_history_noise(demo):
    out, err = _setup_demo()
    lines = out.splitlines()
    assert lines[0] == PRESENT
    assert LOGINS in lines
    assert all(username in out for username, *_rest in DEMO_USERS)
    assert "Existing history found" not in out + err
    assert err == ""


def test_a_missing_demo_login_is_created_and_nothing_else_changes(demo):
    """Only what is missing is created: a deleted login comes back with its memberships; a
    membership removed from an existing login stays removed."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    User.objects.filter(username="viewer").delete()
    Membership.objects.filter(user__username="engineer", evaluation_id=2).delete()
    rows = {
        table: table_rows
        for table, table_rows in _every_row().items()
        if table
        not in (
            "auth_user",
            "portal_membership",
            "portal_historicalmembership",
            "portal_accesschange",
        )
    }
    from portal.models import AccessChange

    recorded = set(AccessChange.objects.values_list("pk", flat=True))

    out, _err = _setup_demo()

    assert "created the missing demo logins: viewer / 已创建缺失的演示登录：viewer" in out
    viewer = User.objects.get(username="viewer")
    assert authenticate(username="viewer", password="view-gpus-2026") == viewer
    assert set(viewer.memberships.values_list("evaluation_id", flat=True)) == {1, 2, 16}
    assert set(viewer.memberships.values_list("role", flat=True)) == {"viewer"}
    assert not Membership.objects.filter(user__username="engineer", evaluation_id=2).exists()
    after = {table: table_rows for table, table_rows in _every_row().items() if table in rows}
    assert after == rows
    # The login's creation is an access change (by the command line), and the only one.
    (created,) = AccessChange.objects.exclude(pk__in=recorded)
    assert (created.user, created.action, created.changed_by) == (viewer, "created", None)


def test_the_demo_is_not_loaded_over_other_rows_holding_its_ids(db):
    """A database whose vendor 1 is someone's own keeps it: nothing of the demo is written."""
    vendor = Vendor.objects.create(pk=1, name="Our own vendor")

    out, err = _setup_demo()

    assert "demo data not loaded: other rows hold its ids (portal.vendor 1" in err
    assert "未加载演示数据：其编号已被其他记录占用（portal.vendor 1" in err
    assert "already present" not in out
    assert Vendor.objects.get() == vendor and vendor.name == "Our own vendor"
    assert not Evaluation.objects.exists()
    assert not Offering.objects.exists()
    assert ChecklistItem.objects.count() == 10  # the checklist shares no id with it


def test_a_fresh_database_gets_the_whole_demo(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    out, err = _setup_demo()
    assert "already present" not in out and err == ""
    assert out.splitlines()[0] == LOGINS
    # Each role in both languages: "procurement ... Procurement / 采购" (no line left English only).
    for line, (username, password, _name, _role) in zip(
        out.splitlines()[1:], DEMO_USERS, strict=True
    ):
        assert line.split()[:2] == [username, password]
        english, chinese = line.split(None, 2)[2].split(" / ")
        assert english.isascii() and not chinese.isascii()
    assert set(Evaluation.objects.values_list("pk", flat=True)) == {1, 2, 16}
    assert EvidenceUpload.objects.count() == 4
    assert Membership.objects.count() == 3 * len(DEMO_USERS)
    # The audit trail starts from the demo's first state: one "created" row per object.
    assert Evaluation.history.filter(history_type="+").count() == 3
    assert Answer.history.count() == Answer.objects.count()
