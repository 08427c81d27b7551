"""Admin: decided evaluations, decision records, evidence, measurements and audit rows are
read-only; nothing is deleted beside the services; a revocation is never undone; history is
never reverted; the status (deciding, reopening) is not the admin's to set."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from portal.models import (
    DecisionRecord,
    Evaluation,
    EvidenceUpload,
    Measurement,
    UploadToken,
)
from portal.services.evaluations import decision_record, evaluation_reopen

pytestmark = pytest.mark.django_db


@pytest.fixture
def decided(evaluation, members, candidate, upload_token):
    call_command("loaddata", "checklist", verbosity=0)
    upload = EvidenceUpload.objects.create(
        candidate=candidate,
        file="evidence/x",
        original_name="n.txt",
        sha256="c" * 64,
        size_bytes=1,
        status="done",
    )
    Measurement.objects.create(
        upload=upload, candidate=candidate, kind="nccl_tests", metric="busbw", value=1.0
    )
    record = decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Go.", by=members["manager"]
    )
    return {"record": record, "upload": upload, "token": upload_token[0]}


def _weights_data(evaluation, **overrides):
    data = {
        "name": evaluation.name,
        "workload_profile": evaluation.workload_profile,
        "required_total_gpus": 8,
        "required_gpu_memory_gib": 80,
        "duration_days": 30,
        "expected_idle_days": 0,
        "budget_currency": "CNY",
        "required_mlps_level": 0,
        "ops_capacity": evaluation.ops_capacity,
        "ops_staff_cost_month": "0",
        "data_residency": evaluation.data_residency,
        "prefer_fewer_vendors_pct": "0",
        **{
            f"weight_{d}": "1"
            for d in ("stability", "network", "storage", "security", "cost", "support")
        },
        "memberships-TOTAL_FORMS": 0,
        "memberships-INITIAL_FORMS": 0,
        "candidates-TOTAL_FORMS": 0,
        "candidates-INITIAL_FORMS": 0,
    }
    data.update(overrides)
    return data


def test_a_decided_evaluation_is_read_only_in_the_admin(decided, evaluation, admin_client):
    url = reverse("admin:portal_evaluation_change", args=[evaluation.pk])
    page = admin_client.get(url)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert admin_client.post(url, _weights_data(evaluation, status="open")).status_code == 403
    evaluation.refresh_from_db()
    assert evaluation.status == "decided" and evaluation.required_total_gpus == 16


def test_the_admin_cannot_reopen_or_decide(evaluation, members, candidate, admin_client):
    call_command("loaddata", "checklist", verbosity=0)
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="x", by=members["manager"]
    )
    evaluation_reopen(evaluation=evaluation, reason="y", by=members["manager"])
    url = reverse("admin:portal_evaluation_change", args=[evaluation.pk])
    response = admin_client.post(url, _weights_data(evaluation, status="decided"))
    assert response.status_code == 302
    evaluation.refresh_from_db()
    assert evaluation.status == "open"  # status is read-only here
    assert evaluation.required_total_gpus == 8  # the rest went through the service


@pytest.mark.parametrize(
    "model, key",
    [
        ("decisionrecord", "record"),
        ("evidenceupload", "upload"),
        ("measurement", None),
        ("uploadtoken", "token"),
    ],
)
def test_audited_rows_cannot_be_deleted_or_changed_in_the_admin(decided, admin_client, model, key):
    obj = decided[key] if key else Measurement.objects.get()
    delete = admin_client.post(
        reverse(f"admin:portal_{model}_delete", args=[obj.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403
    change = admin_client.post(reverse(f"admin:portal_{model}_change", args=[obj.pk]), {})
    assert change.status_code == 403
    changelist = admin_client.get(reverse(f"admin:portal_{model}_changelist")).content.decode()
    assert "delete_selected" not in changelist
    assert type(obj).objects.filter(pk=obj.pk).exists()


def test_a_revoked_token_stays_revoked(decided, admin_client):
    token = decided["token"]
    token.refresh_from_db()
    assert token.revoked_at is not None
    response = admin_client.post(
        reverse("admin:portal_uploadtoken_change", args=[token.pk]),
        {"revoked_at_0": "", "revoked_at_1": ""},
    )
    assert response.status_code == 403
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_the_admin_revokes_through_the_service(upload_token, admin_client, admin_user):
    token, _raw = upload_token
    response = admin_client.post(
        reverse("admin:portal_uploadtoken_changelist"),
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert token.history.latest().history_user == admin_user
    assert UploadToken.objects.usable().count() == 0


def test_history_is_never_reverted(decided, evaluation, admin_client):
    token = decided["token"]
    before = token.history.filter(revoked_at__isnull=True).earliest()
    url = reverse("admin:portal_uploadtoken_simple_history", args=[token.pk, before.history_id])
    assert admin_client.get(url).status_code == 200  # reading the old version is fine
    revert = admin_client.post(
        url,
        {
            "node_name": "",
            "label": "",
            "expires_at_0": "2030-01-01",
            "expires_at_1": "00:00:00",
            "revoked_at_0": "",
            "revoked_at_1": "",
        },
    )
    assert revert.status_code == 403
    token.refresh_from_db()
    assert token.revoked_at is not None
    row = evaluation.history.earliest()
    url = reverse("admin:portal_evaluation_simple_history", args=[evaluation.pk, row.history_id])
    assert admin_client.post(url, _weights_data(evaluation, status="open")).status_code == 403
    assert DecisionRecord.objects.filter(evaluation=evaluation).count() == 1
    assert Evaluation.objects.get(pk=evaluation.pk).status == "decided"


def test_evidence_is_deleted_only_through_the_audited_service(evaluation, members, candidate):
    from rest_framework.test import APIClient

    from portal import audit
    from portal.models import EvidenceDeletion

    call_command("loaddata", "checklist", verbosity=0)
    upload = EvidenceUpload.objects.create(
        candidate=candidate,
        file="evidence/y",
        original_name="wrong.txt",
        sha256="d" * 64,
        size_bytes=1,
        status="done",
    )
    Measurement.objects.create(
        upload=upload, candidate=candidate, kind="nccl_tests", metric="busbw", value=1.0
    )
    api = APIClient()
    api.force_login(members["procurement"])
    url = reverse(
        "api-upload-detail", kwargs={"evaluation_pk": evaluation.pk, "upload_pk": upload.pk}
    )
    assert api.delete(url, {}, format="json").status_code == 400  # a reason is required
    api.force_login(members["engineer"])
    assert api.delete(url, {"reason": "x"}, format="json").status_code == 403
    api.force_login(members["procurement"])
    assert api.delete(url, {"reason": "Wrong candidate."}, format="json").status_code == 204
    assert not EvidenceUpload.objects.filter(pk=upload.pk).exists()
    assert not Measurement.objects.filter(upload_id=upload.pk).exists()
    record = EvidenceDeletion.objects.get()
    assert (record.sha256, record.measurement_count, record.deleted_by) == (
        "d" * 64,
        1,
        members["procurement"],
    )
    [entry] = audit.evaluation_history(evaluation, kinds=["evidence"])
    assert entry.user == "procurement" and entry.action == "deleted"
    assert [c.after for c in entry.changes if c.field == "reason"] == ["Wrong candidate."]


def test_decided_evidence_cannot_be_deleted(decided, evaluation, members):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_login(members["procurement"])
    url = reverse(
        "api-upload-detail",
        kwargs={"evaluation_pk": evaluation.pk, "upload_pk": decided["upload"].pk},
    )
    assert api.delete(url, {"reason": "tidy"}, format="json").status_code == 409
    assert EvidenceUpload.objects.filter(pk=decided["upload"].pk).exists()
