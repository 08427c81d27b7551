"""Recording a portfolio as the decision (issue #16 §2 "Recording") on a real database."""

import csv
import io
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from portal.models import EvaluationStatus
from portal.services.evaluations import decision_record, evaluation_reopen
from portal.services.portfolio import (
    portfolio_decision_record,
    portfolio_export_rows,
    portfolio_propose,
)

from .test_portfolio import hybrid  # noqa: F401  (the two-workload fixture)


def test_the_proposal_is_recorded_with_every_assignment(evaluation, hybrid, members):  # noqa: F811
    proposal = portfolio_propose(evaluation=evaluation).result.proposal
    record = portfolio_decision_record(
        evaluation=evaluation, rationale="Hybrid as proposed", by=members["manager"]
    )
    evaluation.refresh_from_db()
    assert evaluation.status == EvaluationStatus.DECIDED
    saved = record.snapshot["portfolio"]
    assert saved["edited"] is False
    lines = {line["workload"]: line for line in saved["plan"]["lines"]}
    assert set(lines) == {"pretrain", "inference"}
    assert lines["pretrain"]["candidate_id"] == hybrid["metal"].pk
    assert lines["pretrain"]["billing_model"] == "monthly"
    assert lines["inference"]["candidate_id"] == hybrid["container"].pk
    assert Decimal(saved["plan"]["total"]) == proposal.total
    assert Decimal(saved["saving"]) == Decimal(saved["single"]["total"]) - proposal.total
    assert {r["kind"] for r in saved["risks"]} >= {"extra_vendor"}
    # the record's candidate is the largest line: bare metal for pre-training
    assert record.candidate == hybrid["metal"]
    # the ordinary snapshot is still there (replay, evidence hashes)
    assert record.snapshot["ranking"] and "evidence" in record.snapshot


def test_an_edited_assignment_is_recorded_and_a_bad_one_refused_whole(
    evaluation,
    hybrid,  # noqa: F811
    members,
):
    metal, container = str(hybrid["metal"].pk), str(hybrid["container"].pk)
    with pytest.raises(ValidationError, match="pre-emption"):
        portfolio_decision_record(
            evaluation=evaluation,
            rationale="spot for training",
            by=members["manager"],
            assignment={"pretrain": (container, "spot"), "inference": (container, None)},
        )
    with pytest.raises(ValidationError, match="cannot serve"):
        # Ulanqab bare metal is outside the inference workload's latency region
        portfolio_decision_record(
            evaluation=evaluation,
            rationale="all on metal",
            by=members["manager"],
            assignment={"pretrain": (metal, None), "inference": (metal, None)},
        )
    with pytest.raises(ValidationError, match="missing"):
        portfolio_decision_record(
            evaluation=evaluation,
            rationale="half",
            by=members["manager"],
            assignment={"pretrain": (metal, None)},
        )
    evaluation.refresh_from_db()
    assert evaluation.status != EvaluationStatus.DECIDED
    assert not evaluation.decisions.exists()
    record = portfolio_decision_record(
        evaluation=evaluation,
        rationale="Train hourly on metal",
        by=members["manager"],
        assignment={"pretrain": (metal, "hourly"), "inference": (container, "hourly")},
    )
    saved = record.snapshot["portfolio"]
    assert saved["edited"] is True
    lines = {line["workload"]: line for line in saved["plan"]["lines"]}
    assert lines["pretrain"]["billing_model"] == "hourly"
    proposed = portfolio_propose(evaluation=evaluation).result.proposal
    assert Decimal(saved["plan"]["total"]) > proposed.total


def test_reopen_then_a_single_candidate_round(evaluation, hybrid, members):  # noqa: F811
    first = portfolio_decision_record(evaluation=evaluation, rationale="r1", by=members["manager"])
    with pytest.raises(ValidationError):
        portfolio_decision_record(evaluation=evaluation, rationale="again", by=members["manager"])
    evaluation_reopen(evaluation=evaluation, reason="prices changed", by=members["manager"])
    second = portfolio_decision_record(evaluation=evaluation, rationale="r2", by=members["manager"])
    assert (first.round, second.round) == (1, 2)
    assert first.snapshot["portfolio"] == second.snapshot["portfolio"]
    # a plain single-candidate decision keeps no portfolio
    evaluation_reopen(evaluation=evaluation, reason="one vendor", by=members["manager"])
    from portal import selectors

    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    assert ranking.qualified, "the fixture no longer gives a qualified single candidate"
    third = decision_record(
        evaluation=evaluation,
        candidate=candidates[ranking.qualified[0].candidate_id],
        rationale="single",
        by=members["manager"],
    )
    assert "portfolio" not in third.snapshot
    assert portfolio_export_rows(third) == []


def test_page_records_it_and_decision_report_and_export_show_it(
    client,
    evaluation,
    hybrid,  # noqa: F811
    members,
):
    url = reverse("evaluation-portfolio", args=[evaluation.pk])
    client.force_login(members["procurement"])
    page = client.get(url).content.decode()
    assert 'id="record-portfolio"' not in page  # managers only
    assert client.post(url, {"action": "record-portfolio", "rationale": "x"}).status_code == 403
    client.force_login(members["manager"])
    assert 'id="record-portfolio"' in client.get(url).content.decode()
    missing = client.post(url, {"action": "record-portfolio", "rationale": " "})
    assert missing.status_code == 422
    response = client.post(url, {"action": "record-portfolio", "rationale": "Hybrid"})
    assert response.status_code == 302
    decision = client.get(reverse("evaluation-decision", args=[evaluation.pk])).content.decode()
    report = client.get(reverse("evaluation-report", args=[evaluation.pk])).content.decode()
    for html in (decision, report):
        assert 'id="portfolio-decision"' in html
        assert "pretrain" in html and "inference" in html
    export = client.get(reverse("evaluation-export", args=[evaluation.pk, "csv"]))
    rows = list(csv.reader(io.StringIO(export.content.decode("utf-8-sig"))))
    workloads = [row[1] for row in rows if len(row) > 1 and row[1] in ("pretrain", "inference")]
    assert sorted(workloads) == ["inference", "pretrain"]
    assert any(row and row[0] == "Portfolio decision" for row in rows)
    xlsx = client.get(reverse("evaluation-export", args=[evaluation.pk, "xlsx"]))
    assert xlsx.status_code == 200
