"""Decided means frozen: after the decision nothing of the evaluation changes (409 in the API,
a clear message on the pages), every upload token is revoked, and reopening is an explicit,
audited manager action that starts a new decision round."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from portal import audit
from portal.models import (
    Answer,
    Candidate,
    DecisionRecord,
    Evaluation,
    OfferingPrice,
    UploadToken,
)
from portal.services.errors import EvaluationDecided
from portal.services.evaluations import decision_record, evaluation_reopen
from portal.services.evidence import evidence_submit
from portal.services.tokens import upload_token_create

from .conftest import PASSWORD, small_offering

pytestmark = pytest.mark.django_db
DECIDED = "evaluation is decided"


@pytest.fixture
def decided(evaluation, members, candidate, offering, vendor):
    call_command("loaddata", "checklist", verbosity=0)
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    other = Candidate.objects.create(
        evaluation=evaluation, offering=small_offering(vendor), node_count=16
    )
    issued = [
        upload_token_create(candidate=candidate, created_by=members["procurement"]),
        upload_token_create(candidate=other, created_by=members["procurement"]),
    ]
    tokens = [token for token, _raw in issued]
    record = decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Best fabric.", by=members["manager"]
    )
    evaluation.refresh_from_db()
    return {"record": record, "other": other, "tokens": tokens, "raw": issued[0][1]}


def api_as(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def _url(name, evaluation, **kwargs):
    return reverse(name, kwargs={"evaluation_pk": evaluation.pk, **kwargs})


def test_the_decision_revokes_every_upload_token_with_a_history_row(decided, members):
    for token in decided["tokens"]:
        token.refresh_from_db()
        assert token.revoked_at is not None
        assert token.history.latest().history_user == members["manager"]
    assert not UploadToken.objects.usable().exists()


def test_every_api_write_to_a_decided_evaluation_is_a_409(decided, evaluation, candidate, members):
    api = api_as(members["procurement"])
    item_url = _url("api-answer-detail", evaluation, candidate_pk=candidate.pk, item="1")
    attempts = {
        "token": api.post(
            _url("api-upload-token-list", evaluation), {"candidate": candidate.pk}, format="json"
        ),
        "answer": api.put(item_url, {"claim": "8"}, format="json"),
        "candidate add": api.post(
            _url("api-candidate-list", evaluation),
            {"offering": small_offering(candidate.offering.vendor, name="x").pk, "node_count": 1},
            format="json",
        ),
        "candidate edit": api.patch(
            _url("api-candidate-detail", evaluation, candidate_pk=candidate.pk),
            {"node_count": 5},
            format="json",
        ),
        "candidate remove": api.delete(
            _url("api-candidate-detail", evaluation, candidate_pk=decided["other"].pk)
        ),
        "weights": api.put(
            _url("api-weights", evaluation),
            {d: 1 for d in ("stability", "network", "storage", "security", "cost", "support")},
            format="json",
        ),
        "requirements": api.patch(
            _url("api-evaluation-detail", evaluation), {"duration_days": 99}, format="json"
        ),
        "upload": api.post(
            reverse("api-evidence-upload"),
            {"file": SimpleUploadedFile("nvidia-smi.txt", b"hello"), "candidate": candidate.pk},
        ),
    }
    for what, response in attempts.items():
        assert response.status_code == 409, (what, response.status_code, response.content)
        assert DECIDED in response.json()["detail"], what
    candidate.refresh_from_db()
    evaluation.refresh_from_db()
    assert candidate.node_count == 2 and evaluation.duration_days == 30
    assert Candidate.objects.filter(evaluation=evaluation).count() == 2
    assert not Answer.objects.exists()
    assert UploadToken.objects.count() == 2
    assert not candidate.uploads.exists()


def test_a_token_issued_before_the_decision_cannot_upload_after_it(decided, candidate):
    client = APIClient()
    response = client.post(
        reverse("api-evidence-upload"),
        {"file": SimpleUploadedFile("nvidia-smi.txt", b"hello")},
        HTTP_AUTHORIZATION=f"Bearer {decided['raw']}",
    )
    assert response.status_code in (401, 403), response.content
    assert "revoked" in response.json()["detail"]
    assert not candidate.uploads.exists()


def test_the_service_refuses_evidence_for_a_decided_evaluation(decided, candidate):
    with pytest.raises(EvaluationDecided):
        evidence_submit(candidate=candidate, uploaded_file=SimpleUploadedFile("a.txt", b"x"))


def test_pages_say_the_evaluation_is_decided(decided, evaluation, candidate, client):
    client.login(username="procurement", password=PASSWORD)
    answer = client.post(
        reverse(
            "answer-update",
            kwargs={"pk": evaluation.pk, "candidate_pk": candidate.pk, "number": 10},
        ),
        {"item-10-claim": "5"},
        HTTP_HX_REQUEST="true",
    )
    # 409 as every other decided refusal (the autosave answered 422, a form error's code).
    assert answer.status_code == 409
    assert DECIDED in answer.content.decode()
    token_page = client.post(
        reverse("upload-token-list", kwargs={"pk": evaluation.pk, "candidate_pk": candidate.pk}),
        {"expires_in_days": 7, "node_name": "n1", "label": ""},
    )
    assert DECIDED in token_page.content.decode()
    assert not Answer.objects.exists()
    assert UploadToken.objects.count() == 2


def test_reopening_needs_a_manager_and_a_reason(decided, evaluation, members):
    target = _url("api-decision-reopen", evaluation)
    assert api_as(members["procurement"]).post(target, {"reason": "x"}).status_code == 403
    manager = api_as(members["manager"])
    blank = manager.post(target, {"reason": "  "}, format="json")
    assert blank.status_code == 400
    evaluation.refresh_from_db()
    assert evaluation.status == "decided"


def test_reopen_then_decide_again_keeps_both_rounds(decided, evaluation, members, candidate):
    manager = api_as(members["manager"])
    reopened = manager.post(
        _url("api-decision-reopen", evaluation),
        {"reason": "Vendor B lowered its price."},
        format="json",
    )
    assert reopened.status_code == 200, reopened.content
    body = reopened.json()
    assert body["status"] == "open" and body["decision"] is None
    assert body["earlier_decisions"][0]["rationale"] == "Best fabric."
    assert body["earlier_decisions"][0]["reopened"]["reason"] == "Vendor B lowered its price."
    # Open again: procurement may change it.
    api_as(members["procurement"]).patch(
        _url("api-candidate-detail", evaluation, candidate_pk=decided["other"].pk),
        {"node_count": 17},
        format="json",
    )
    assert Candidate.objects.get(pk=decided["other"].pk).node_count == 17
    second = manager.post(
        _url("api-decision", evaluation),
        {"candidate": candidate.pk, "rationale": "Still the best fabric."},
        format="json",
    )
    assert second.status_code == 201, second.content
    state = second.json()
    assert state["decision"]["round"] == 2
    assert [d["round"] for d in state["earlier_decisions"]] == [1]
    assert DecisionRecord.objects.filter(evaluation=evaluation).count() == 2
    # The reopening is in the audit trail, with who and why.
    entries = audit.evaluation_history(evaluation, kinds=["decision"])
    actions = [(e.action, e.user) for e in entries]
    assert ("reopened", "manager") in actions
    assert [e.action for e in entries].count("decided") == 2
    reasons = [
        c.after for e in entries if e.action == "reopened" for c in e.changes if c.field == "reason"
    ]
    assert reasons == ["Vendor B lowered its price."]


def test_the_decision_page_reopens_and_shows_the_earlier_round(decided, evaluation, client):
    client.login(username="manager", password=PASSWORD)
    url = reverse("evaluation-decision", kwargs={"pk": evaluation.pk})
    refused = client.post(url, {"reopen": "1", "reason": ""})
    assert refused.status_code == 422
    assert Evaluation.objects.get(pk=evaluation.pk).status == "decided"
    done = client.post(url, {"reopen": "1", "reason": "New quote arrived."})
    assert done.status_code == 302
    page = client.get(url).content.decode()
    assert "Earlier decisions" in page and "New quote arrived." in page
    assert "Best fabric." in page


def test_reopening_an_open_evaluation_is_refused(evaluation, members):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        evaluation_reopen(evaluation=evaluation, reason="why", by=members["manager"])


def test_no_decision_while_an_upload_is_still_being_imported(
    evaluation, members, candidate, offering
):
    """The decision rests on every upload submitted before it: while one is queued or being
    imported it could still move the ranking (and would arrive after the decision), so the
    service, the page and the API refuse until it is imported or has failed."""
    from portal.models import EvidenceUpload, UploadStatus

    call_command("loaddata", "checklist", verbosity=0)
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    # no worker takes it here: it stays queued
    upload, _created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("a.txt", b"x")
    )
    assert upload.status == UploadStatus.QUEUED
    with pytest.raises(ValidationError, match="1 upload of this evaluation is still being"):
        decision_record(
            evaluation=evaluation, candidate=candidate, rationale="Fast.", by=members["manager"]
        )
    response = api_as(members["manager"]).post(
        _url("api-decision", evaluation),
        {"candidate": candidate.pk, "rationale": "Fast."},
        format="json",
    )
    assert response.status_code in (400, 409), response.content
    assert "still being imported" in response.content.decode()
    page = api_as(members["manager"]).get(reverse("evaluation-decision", args=[evaluation.pk]))
    assert "1 upload of this evaluation is still being imported" in page.content.decode()
    evaluation.refresh_from_db()
    assert evaluation.status != "decided" and not DecisionRecord.objects.exists()

    EvidenceUpload.objects.filter(pk=upload.pk).update(status=UploadStatus.FAILED)
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Fast.", by=members["manager"]
    )
    evaluation.refresh_from_db()
    assert evaluation.status == "decided"


@pytest.mark.django_db(transaction=True)
def test_an_upload_racing_a_decision_waits_for_it_and_is_refused(evaluation, candidate):
    """The decision holds the evaluation's row while it records; an upload arriving meanwhile
    waits for it (its share lock) and is then refused, leaving no row and no stored file
    (otherwise it would import after the decision it should have preceded)."""
    import hashlib
    import threading

    from django.db import connection, transaction

    from portal.models import EvidenceUpload

    outcome = {}

    def upload():
        try:
            evidence_submit(
                candidate=candidate, uploaded_file=SimpleUploadedFile("late.txt", b"late")
            )
            outcome["result"] = "stored"
        except EvaluationDecided:
            outcome["result"] = "refused"
        finally:
            connection.close()

    racer = threading.Thread(target=upload)
    with transaction.atomic():
        # What decision_record does first: lock the row, then (later) mark it decided.
        locked = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
        racer.start()
        racer.join(timeout=1.0)
        assert racer.is_alive(), "the upload did not wait for the decision in progress"
        locked.status = "decided"
        locked.save(update_fields=["status"])
    racer.join(timeout=10)
    assert outcome == {"result": "refused"}
    assert not EvidenceUpload.objects.exists()
    from django.core.files.storage import default_storage

    digest = hashlib.sha256(b"late").hexdigest()
    assert not default_storage.exists(f"evidence/{candidate.pk}/{digest}")
