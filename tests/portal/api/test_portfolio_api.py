"""The portfolio through the API: workloads, settings, the proposal and recording it as the
decision, with the page's rules (decided is 409, stale settings are 409, a bad assignment
records nothing)."""

from decimal import Decimal

import pytest
from django.urls import reverse

from portal.models import DecisionRecord, EvaluationStatus, Workload
from portal.services.portfolio import portfolio_propose

from ..test_portfolio import hybrid  # noqa: F401  (the two-workload fixture)

pytestmark = pytest.mark.django_db


def _url(name, evaluation, **kwargs):
    return reverse(name, kwargs={"evaluation_pk": evaluation.pk, **kwargs})


def test_the_proposal_read_through_the_api_is_the_pages(api, evaluation, hybrid, members):  # noqa: F811
    body = api.as_(members["viewer"]).get(_url("api-portfolio", evaluation)).json()
    proposal = portfolio_propose(evaluation=evaluation).result.proposal
    lines = {line["workload"]: line for line in body["proposal"]["plan"]["lines"]}
    assert set(lines) == {"pretrain", "inference"}
    for workload, line in lines.items():
        expected = proposal.line(workload)
        assert line["candidate_id"] == int(expected.candidate_id)
        assert line["billing_model"] == expected.billing_model
        assert Decimal(line["tco"]) == expected.tco
    assert Decimal(body["proposal"]["plan"]["total"]) == proposal.total
    assert body["problem"] is None
    assert [w["name"] for w in body["workloads"]] == ["pretrain", "inference"]
    assert body["settings"]["home_country"] == "CN" and body["settings"]["version"]


def test_settings_saved_meanwhile_are_not_overwritten(api, evaluation, hybrid, members):  # noqa: F811
    client = api.as_(members["procurement"])
    url = _url("api-portfolio", evaluation)
    version = client.get(url).json()["settings"]["version"]
    assert client.patch(url, {"prefer_fewer_vendors_pct": 7}, format="json").status_code == 200
    stale = client.patch(url, {"prefer_fewer_vendors_pct": 3, "version": version}, format="json")
    assert stale.status_code == 409 and stale.json()["version"] != version
    evaluation.refresh_from_db()
    assert evaluation.prefer_fewer_vendors_pct == 7


def test_workloads_are_added_changed_and_removed_and_bad_ones_refused(api, evaluation, members):
    client = api.as_(members["procurement"])
    url = _url("api-workload-list", evaluation)
    added = client.post(
        url,
        {"name": "serve", "profile": "inference", "gpus": 4, "duration_days": 30},
        format="json",
    )
    assert added.status_code == 201, added.content
    pk = added.json()["id"]
    detail = _url("api-workload-detail", evaluation, workload_pk=pk)
    assert client.patch(detail, {"peak_gpus": 8}, format="json").json()["peak_gpus"] == 8
    for bad in (
        {"name": "x\x00", "profile": "inference", "gpus": 1, "duration_days": 1},
        {"name": "w", "profile": "inference", "gpus": 1, "duration_days": 1, "weights": "x"},
        {"name": "w", "profile": "inference", "gpus": 1, "duration_days": 1, "weights": {"a": 1}},
        # JSON that is no mapping (schemathesis, CI of stop 33: a list of objects was a 500).
        {
            "name": "w",
            "profile": "inference",
            "gpus": 1,
            "duration_days": 1,
            "weights": [{}, {}, None],
        },
        {
            "name": "w",
            "profile": "inference",
            "gpus": 1,
            "duration_days": 1,
            "requirements": [{"a": 1}],
        },
        {
            "name": "w",
            "profile": "inference",
            "gpus": 1,
            "duration_days": 1,
            "weights": {"cost": True},
        },
        {"name": "w", "profile": "inference", "gpus": 4, "peak_gpus": 2, "duration_days": 1},
        {"name": "serve", "profile": "inference", "gpus": 1, "duration_days": 1},
        {"name": "w", "profile": "inference", "gpus": 1, "duration_days": 1, "evaluation": 9},
    ):
        refused = client.post(url, bad, format="json")
        assert refused.status_code == 400, (bad, refused.status_code, refused.content)
    assert list(Workload.objects.values_list("name", flat=True)) == ["serve"]
    assert client.delete(detail).status_code == 204
    assert not Workload.objects.exists()

    # The audit trail keeps who added, changed and removed it, and what changed.
    history = client.get(_url("api-history", evaluation), {"kind": "workload"}).json()["results"]
    assert [(e["action"], e["object_label"], e["user"]) for e in history] == [
        ("deleted", "serve", "procurement"),
        ("changed", "serve", "procurement"),
        ("created", "serve", "procurement"),
    ]
    changed = {c["field"]: (c["before"], c["after"]) for c in history[1]["changes"]}
    assert changed == {"peak_gpus": ("0", "8")}


def test_a_manager_records_an_edited_portfolio_and_it_stays_decided(
    api,
    evaluation,
    hybrid,  # noqa: F811
    members,
):
    metal, container = hybrid["metal"].pk, hybrid["container"].pk
    client = api.as_(members["manager"])
    url = _url("api-portfolio-decision", evaluation)
    for assignment, message in (
        (
            [
                {"workload": "pretrain", "candidate": container, "billing_model": "spot"},
                {"workload": "inference", "candidate": container},
            ],
            "pre-emption",
        ),
        ([{"workload": "pretrain", "candidate": metal}], "missing"),
        (
            [
                {"workload": "pretrain", "candidate": metal},
                {"workload": "pretrain", "candidate": container},
            ],
            "assigned twice",
        ),
    ):
        refused = client.post(url, {"rationale": "r", "assignment": assignment}, format="json")
        assert refused.status_code == 400 and message in str(refused.json()), refused.json()
    assert not DecisionRecord.objects.exists()
    forbidden = api.as_(members["procurement"]).post(url, {"rationale": "r"}, format="json")
    assert forbidden.status_code == 403
    client = api.as_(members["manager"])
    assignment = [
        {"workload": "pretrain", "candidate": metal, "billing_model": "hourly"},
        {"workload": "inference", "candidate": container, "billing_model": "hourly"},
    ]
    recorded = client.post(
        url, {"rationale": "Train hourly on metal", "assignment": assignment}, format="json"
    )
    assert recorded.status_code == 201, recorded.content
    assert recorded.json()["status"] == EvaluationStatus.DECIDED
    record = DecisionRecord.objects.get()
    saved = record.snapshot["portfolio"]
    assert saved["edited"] is True
    assert {(line["workload"], line["billing_model"]) for line in saved["plan"]["lines"]} == {
        ("pretrain", "hourly"),
        ("inference", "hourly"),
    }

    # Decided: nothing of the portfolio changes until a manager reopens it.
    procurement = api.as_(members["procurement"])
    workload = Workload.objects.get(name="pretrain")
    writes = [
        procurement.post(
            _url("api-workload-list", evaluation),
            {"name": "more", "profile": "inference", "gpus": 1, "duration_days": 1},
            format="json",
        ),
        procurement.patch(
            _url("api-workload-detail", evaluation, workload_pk=workload.pk),
            {"gpus": 1},
            format="json",
        ),
        procurement.delete(_url("api-workload-detail", evaluation, workload_pk=workload.pk)),
        procurement.patch(_url("api-portfolio", evaluation), {"home_country": "DE"}, format="json"),
    ]
    writes.append(api.as_(members["manager"]).post(url, {"rationale": "again"}, format="json"))
    assert [w.status_code for w in writes] == [409] * 5, [w.content for w in writes]
    assert Workload.objects.count() == 2 and DecisionRecord.objects.count() == 1
    workload.refresh_from_db()
    assert workload.gpus == 64


def test_a_refused_assignment_is_explained_in_the_readers_language(
    api,
    evaluation,
    hybrid,  # noqa: F811
    members,
):
    container = hybrid["container"].pk
    client = api.as_(members["manager"])
    spot_for_training = {
        "rationale": "r",
        "assignment": [
            {"workload": "pretrain", "candidate": container, "billing_model": "spot"},
            {"workload": "inference", "candidate": container},
        ],
    }
    url = _url("api-portfolio-decision", evaluation)
    english = client.post(url, spot_for_training, format="json", HTTP_ACCEPT_LANGUAGE="en")
    chinese = client.post(url, spot_for_training, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert english.status_code == chinese.status_code == 400
    assert "tolerates pre-emption" in str(english.json())
    assert "竞价实例只适用于能容忍抢占的工作负载" in str(chinese.json()), chinese.json()
    assert not DecisionRecord.objects.exists()
