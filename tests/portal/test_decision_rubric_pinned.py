"""A decision replays exactly: a decided evaluation is scored with the rubric text it was decided
with, so revising the packaged rubric (its reference GPU-hour prices are "revised per procurement
round") moves no recorded ranking, report or export until the evaluation is reopened."""

import csv
import hashlib
import io
import json
import re
from decimal import Decimal

import pytest
from django.urls import reverse

import scoring.rubric.loader as rubric_loader
from portal.models import OfferingPrice
from portal.services.evaluations import decision_record, evaluation_reopen

from .conftest import PASSWORD, small_offering

pytestmark = pytest.mark.django_db


def _revised(text: str, price: str) -> str:
    """The packaged rubric with the H100 reference GPU-hour price revised (CNY)."""
    data = json.loads(text)
    for row in data["reference_gpu_hour_prices"]["CNY"]:
        if row[0] == "h100":
            row[1] = price
    return json.dumps(data, ensure_ascii=False, indent=2)


@pytest.fixture
def ship_rubric(monkeypatch, empty_cache):
    """Ship a new packaged rubric-v2.json (as a code upgrade does) and start from a cold cache,
    as a restarted server would."""
    packaged = rubric_loader.rubric_text

    def ship(text: str) -> None:
        monkeypatch.setattr(
            rubric_loader,
            "rubric_text",
            lambda version="1": text if version == "2" else packaged(version),
        )
        rubric_loader.load_rubric.cache_clear()
        empty_cache.clear()

    yield ship
    monkeypatch.undo()
    rubric_loader.load_rubric.cache_clear()


@pytest.fixture
def decided(evaluation, members, offering, vendor, ship_rubric):
    from django.core.management import call_command

    call_command("loaddata", "checklist", verbosity=0)
    evaluation.rubric_version = "2"
    evaluation.save(update_fields=["rubric_version"])
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("14000")
    )
    other = small_offering(vendor, gpu_model="NVIDIA H100 PCIe 80GB", gpu_memory_gib=80)
    OfferingPrice.objects.create(
        offering=other, billing_model="hourly", price_per_gpu=Decimal("19.00")
    )
    from portal.services.evaluations import candidate_add

    chosen = candidate_add(
        evaluation=evaluation, offering=offering, node_count=2, by=members["procurement"]
    )
    candidate_add(evaluation=evaluation, offering=other, node_count=16, by=members["procurement"])
    # The round's rubric: the packaged one with the H100 reference at 26.00 CNY.
    decided_text = _revised(rubric_loader.rubric_text("2"), "26.00")
    ship_rubric(decided_text)
    record = decision_record(
        evaluation=evaluation, candidate=chosen, rationale="Best fabric.", by=members["manager"]
    )
    evaluation.refresh_from_db()
    return {"record": record, "text": decided_text}


def _csv_totals(client, evaluation) -> list[tuple[str, str]]:
    url = reverse("evaluation-export", kwargs={"pk": evaluation.pk, "fmt": "csv"})
    rows = list(csv.reader(io.StringIO(client.get(url).content.decode("utf-8-sig"))))
    total = rows[0].index("Total")
    # The candidates' rows end at the first empty row (a decision's own rows follow it).
    end = rows.index([]) if [] in rows else len(rows)
    return [(row[2], row[total]) for row in rows[1:end]]


def _main(html: str) -> str:  # CSRF tokens change per response
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html.split("<main", 1)[1])


def test_the_decision_records_the_rubric_text_it_was_scored_with(decided):
    snapshot = decided["record"].snapshot
    assert snapshot["rubric_text"] == decided["text"]
    assert snapshot["rubric_sha256"] == hashlib.sha256(decided["text"].encode()).hexdigest()


def test_a_rubric_revision_moves_no_decided_ranking_report_or_export(
    decided, evaluation, members, client, ship_rubric
):
    client.login(username="viewer", password=PASSWORD)
    report_url = reverse("evaluation-report", kwargs={"pk": evaluation.pk})
    api_url = reverse("api-ranking", kwargs={"evaluation_pk": evaluation.pk})
    report = _main(client.get(report_url).content.decode())
    totals = _csv_totals(client, evaluation)
    api = client.get(api_url).json()
    recorded = [round(r["total"], 2) for r in decided["record"].snapshot["ranking"]]
    assert [float(t) for _name, t in totals] == recorded

    # The next round revises the reference price back to the packaged 20.00 and ships it.
    ship_rubric(_revised(decided["text"], "20.00"))

    assert _csv_totals(client, evaluation) == totals
    assert _main(client.get(report_url).content.decode()) == report
    assert client.get(api_url).json() == api

    # Reopened, the evaluation is scored with the rubric in force again.
    evaluation_reopen(evaluation=evaluation, reason="New quotes.", by=members["manager"])
    evaluation.refresh_from_db()
    assert _csv_totals(client, evaluation) != totals


def test_a_recorded_rubric_the_loader_no_longer_reads_falls_back_and_says_so(
    decided, evaluation, client, ship_rubric
):
    from portal.models import DecisionRecord

    # A decision recorded by an older release whose rubric schema the loader no longer reads
    # (written past the model's guard, as an old row in the database is).
    snapshot = {**decided["record"].snapshot, "rubric_text": '{"version": "2", "rules": []}'}
    DecisionRecord.objects.filter(pk=decided["record"].pk).update(snapshot=snapshot)
    ship_rubric(_revised(decided["text"], "20.00"))
    client.login(username="viewer", password=PASSWORD)
    html = client.get(reverse("evaluation-report", kwargs={"pk": evaluation.pk})).content.decode()
    assert "differ from those recorded at the decision" in html


@pytest.fixture
def pretrain(evaluation):
    from portal.services.portfolio import workload_create

    return workload_create(
        evaluation=evaluation, name="pretrain", profile="pretraining", gpus=16, duration_days=60
    )


def test_a_decided_plan_is_scored_with_the_decisions_rubric(
    pretrain, decided, evaluation, members, ship_rubric
):
    from portal.services.portfolio import portfolio_propose

    def scores():
        proposal = portfolio_propose(evaluation=evaluation)
        return {(o.workload, o.candidate): o.score for o in proposal.options}

    recorded = scores()
    ship_rubric(_revised(decided["text"], "20.00"))
    assert scores() == recorded

    evaluation_reopen(evaluation=evaluation, reason="New quotes.", by=members["manager"])
    evaluation.refresh_from_db()
    assert scores() != recorded
