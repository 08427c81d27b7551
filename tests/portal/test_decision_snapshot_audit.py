"""An auditor reads a decision months later from its record alone: which scoring-model revision
and parser version produced the ranking, which rule gave which points, and each measured figure
down to its upload (by sha256 and parser version) and file, even after a reopening re-imported
the evidence."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

import scoring
from portal.models import Candidate, DecisionRecord, Evaluation, Measurement
from portal.services.evaluations import decision_record, evaluation_reopen
from scoring.evidence import PARSER_VERSION

pytestmark = pytest.mark.django_db


def _decide(evaluation_pk: int = 1) -> DecisionRecord:
    manager = get_user_model().objects.get(username="manager")
    evaluation = Evaluation.objects.get(pk=evaluation_pk)
    return decision_record(
        evaluation=evaluation,
        candidate=Candidate.objects.get(pk=1),
        rationale="Best measured fabric.",
        by=manager,
    )


def test_the_snapshot_names_the_model_revision_and_the_parser_versions(demo):
    snapshot = _decide().snapshot
    assert snapshot["model_revision"] == scoring.MODEL_REVISION
    assert snapshot["parser_version"] == PARSER_VERSION
    assert snapshot["evidence"]
    for entry in snapshot["evidence"]:
        assert entry["parser_version"] == PARSER_VERSION


def test_the_snapshot_keeps_each_rule_and_the_evidence_it_read(demo):
    snapshot = _decide().snapshot
    row = next(r for r in snapshot["ranking"] if r["candidate_id"] == 1)
    assert set(row["contributions"]) == set(row["scores"])
    network = row["contributions"]["network"]
    fabric = next(c for c in network if c["rule_id"] == "network.fabric.gbit_s_per_gpu")
    assert fabric["basis"] == "measured"
    assert "upload 1" in fabric["evidence_ref"]
    assert fabric["points"] <= fabric["max_points"]


def test_each_measured_figure_stays_traceable_after_a_reopening(demo):
    record = _decide()
    manager = get_user_model().objects.get(username="manager")
    stored = Measurement.objects.filter(upload_id=1, kind="nccl_tests").first()
    sha256 = record.evaluation.candidates.get(pk=1).uploads.get(pk=1).sha256
    # The measurements are replaced on a re-import; the record keeps the figure the rule read,
    # the upload by its bytes' sha256 and the parser that read them, and the file it came from.
    evaluation_reopen(evaluation=record.evaluation, reason="Vendor revised SLA", by=manager)
    Measurement.objects.filter(upload_id=1).delete()
    snapshot = DecisionRecord.objects.get(pk=record.pk).snapshot
    row = next(r for r in snapshot["ranking"] if r["candidate_id"] == 1)
    fabric = next(
        c
        for c in row["contributions"]["network"]
        if c["rule_id"] == "network.fabric.gbit_s_per_gpu"
    )
    assert fabric["inputs"] and "upload 1" in fabric["evidence_ref"]
    upload = next(e for e in snapshot["evidence"] if e["upload_id"] == 1)
    assert (upload["sha256"], upload["parser_version"]) == (sha256, PARSER_VERSION)
    assert {"file": stored.source_file, "kind": "nccl_tests"} in upload["files"]
    # Bounded: the record does not copy every measurement of the evaluation.
    assert "measurements" not in upload


def test_the_decision_page_and_the_report_name_the_round_and_the_versions(client, demo):
    record = _decide()
    client.force_login(get_user_model().objects.get(username="viewer"))
    for name in ("evaluation-decision", "evaluation-report"):
        response = client.get(reverse(name, args=[1]))
        assert response.status_code == 200, name
        page = response.content.decode()
        assert 'class="hint decision-versions"' in page, name
        versions = page.split('class="hint decision-versions"')[1].split("</p>")[0]
        assert scoring.MODEL_REVISION in versions
        assert PARSER_VERSION in versions
        assert record.snapshot["rubric_sha256"][:12] in versions
        assert "round 1" in versions.lower()


def test_the_history_names_each_decision_round_and_what_scored_it(client, demo):
    manager = get_user_model().objects.get(username="manager")
    first = _decide()
    evaluation_reopen(evaluation=first.evaluation, reason="Vendor revised SLA", by=manager)
    second = _decide()
    client.force_login(get_user_model().objects.get(username="viewer"))
    rows = client.get("/api/v1/evaluations/1/history/?kind=decision").json()["results"]
    by_action = {}
    for row in rows:
        changes = {c["field"]: c["after"] for c in row["changes"]}
        by_action.setdefault(row["action"], []).append(changes)
    assert [c["round"] for c in by_action["decided"]] == [str(second.round), str(first.round)]
    assert [c["round"] for c in by_action["reopened"]] == [str(first.round)]
    decided = by_action["decided"][0]
    assert decided["model_revision"] == scoring.MODEL_REVISION
    assert decided["parser_version"] == PARSER_VERSION
    assert decided["rubric_sha256"] == second.snapshot["rubric_sha256"]
    page = client.get(reverse("evaluation-history", args=[1])).content.decode()
    assert scoring.MODEL_REVISION in page


def _csv_rows(client, pk: int = 1) -> list[list[str]]:
    import csv
    import io

    response = client.get(reverse("evaluation-export", kwargs={"pk": pk, "fmt": "csv"}))
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


def test_a_decided_export_names_its_decision_and_says_whether_todays_figures_are_its_own(
    client, demo
):
    client.force_login(get_user_model().objects.get(username="viewer"))
    assert not any(row and row[0] == "Decision" for row in _csv_rows(client))  # undecided
    record = _decide()
    rows = _csv_rows(client)
    heading = next(i for i, row in enumerate(rows) if row and row[0] == "Decision")
    assert rows[heading][1:5] == ["Round", "Decided at", "Decided by", "Scoring model revision"]
    line = rows[heading + 1]
    assert (line[1], line[3], line[4], line[5]) == (
        str(record.round),
        "manager",
        scoring.MODEL_REVISION,
        PARSER_VERSION,
    )
    assert line[6] == "The figures above are computed today and equal those recorded."
    # A later scoring change moved a recorded figure (as a new model revision may): the export
    # says its figures are today's and for whom they differ.
    snapshot = record.snapshot
    snapshot["ranking"][0]["total"] += 1.0
    DecisionRecord.objects.filter(pk=record.pk).update(snapshot=snapshot)
    line = _csv_rows(client)[heading + 1]
    assert "differ from those recorded at the decision for: " in line[6]
    assert snapshot["ranking"][0]["label"] in line[6]


def test_an_earlier_round_on_the_decision_page_names_its_weights_and_versions(client, demo):
    manager = get_user_model().objects.get(username="manager")
    first = _decide()
    evaluation_reopen(evaluation=first.evaluation, reason="Vendor revised SLA", by=manager)
    _decide()
    client.force_login(get_user_model().objects.get(username="viewer"))
    for language, weights in (("en", "Weights: "), ("zh-hans", "权重：")):
        client.cookies["django_language"] = language
        page = client.get(reverse("evaluation-decision", args=[1])).content.decode()
        earlier = page.split('class="card earlier-decisions"')[1]
        versions = earlier.split('class="hint decision-versions"')[1].split("</p>")[0]
        assert (
            scoring.MODEL_REVISION in versions and first.snapshot["rubric_sha256"][:12] in versions
        )
        line = earlier.split('class="weights-line"')[1].split("</p>")[0]
        assert line.startswith(">" + weights)
        assert line.count(" %") == 6
