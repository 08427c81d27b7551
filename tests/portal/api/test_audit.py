"""The audit trail: every audited model records who changed what, when, from what to what, and
neither the trail nor a recorded decision can be changed through the UI or the API."""

from datetime import timedelta

import pytest
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from portal import audit
from portal.models import DecisionRecord, UploadToken

pytestmark = pytest.mark.django_db


def history(api, world, **params):
    url = reverse("api-history", kwargs={"evaluation_pk": world.evaluation.pk})
    response = api.get(url, params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def entry(entries, *, kind, action, object_id=None):
    found = [
        e
        for e in entries
        if e["kind"] == kind
        and e["action"] == action
        and (object_id is None or e["object_id"] == object_id)
    ]
    assert found, f"no {action} {kind} entry in {[(e['kind'], e['action']) for e in entries]}"
    return found[0]  # newest first


def change(item, field):
    changes = {c["field"]: c for c in item["changes"]}
    assert field in changes, f"{field} not in {sorted(changes)}"
    return changes[field]["before"], changes[field]["after"]


def recent(item):
    at = item["at"].replace("Z", "+00:00")
    from datetime import datetime

    return timezone.now() - datetime.fromisoformat(at) < timedelta(minutes=5)


def ev_url(world, name, **kwargs):
    return reverse(name, kwargs={"evaluation_pk": world.evaluation.pk, **kwargs})


def test_answers_record_who_changed_the_claim_and_from_what(api, world):
    api.as_(world.users["procurement"])
    target = ev_url(world, "api-answer-detail", candidate_pk=world.candidate.pk, item="1")
    api.put(target, {"claim": "8x H100 SXM5 80GB"}, format="json")
    api.put(target, {"claim": "8x H200 141GB"}, format="json")
    item = entry(history(api, world, kind="answer"), kind="answer", action="changed")
    assert item["user"] == "procurement" and recent(item)
    assert change(item, "claim") == ("8x H100 SXM5 80GB", "8x H200 141GB")
    assert item["object_label"].endswith("1. GPU model, count and memory match the requirement?")


def test_offerings_record_their_changes(api, world):
    api.as_(world.users["procurement"])
    api.patch(
        reverse("api-offering-detail", kwargs={"pk": world.offering.pk}),
        {"gpu_model": "NVIDIA H200 SXM 141GB", "fabric_rate_gbit_s": 200},
        format="json",
    )
    item = entry(history(api, world), kind="offering", action="changed")
    assert item["user"] == "procurement" and recent(item)
    assert change(item, "gpu_model") == ("NVIDIA H100 SXM5 80GB", "NVIDIA H200 SXM 141GB")
    assert change(item, "fabric_rate_gbit_s") == ("400", "200")


def test_prices_record_before_and_after(api, world):
    api.as_(world.users["procurement"])
    api.patch(
        reverse(
            "api-offering-price-detail",
            kwargs={"offering_pk": world.offering.pk, "price_pk": world.price.pk},
        ),
        {"price_per_gpu": "11500"},
        format="json",
    )
    item = entry(history(api, world, kind="price"), kind="price", action="changed")
    assert item["user"] == "procurement"
    assert change(item, "price_per_gpu") == ("12000", "11500")
    assert "Monthly" in item["object_label"]


def test_vendors_record_their_changes(api, world):
    api.as_(world.users["procurement"])
    api.patch(
        reverse("api-vendor-detail", kwargs={"pk": world.offering.vendor_id}),
        {"mlps_level": 2},
        format="json",
    )
    item = entry(history(api, world, kind="vendor"), kind="vendor", action="changed")
    assert item["user"] == "procurement"
    assert change(item, "mlps_level") == ("MLPS level 3", "MLPS level 2")


def test_candidates_record_changes_and_removal(api, world):
    api.as_(world.users["procurement"])
    target = ev_url(world, "api-candidate-detail", candidate_pk=world.candidate.pk)
    api.patch(target, {"node_count": 4}, format="json")
    entries = history(api, world, kind="candidate")
    item = entry(entries, kind="candidate", action="changed")
    assert item["user"] == "procurement"
    assert change(item, "node_count") == ("2", "4")
    assert api.delete(target).status_code == 204
    removed = entry(history(api, world, kind="candidate"), kind="candidate", action="deleted")
    assert removed["user"] == "procurement"
    assert change(removed, "node_count") == ("4", None)
    assert removed["object_label"] == "Test Vendor · 8x H100 bare metal"


def test_weights_record_each_dimension_before_and_after(api, world):
    api.as_(world.users["procurement"])
    api.put(
        ev_url(world, "api-weights"),
        {"stability": 20, "network": 30, "storage": 10, "security": 10, "cost": 10, "support": 20},
        format="json",
    )
    item = entry(history(api, world, kind="evaluation"), kind="evaluation", action="changed")
    assert item["user"] == "procurement" and recent(item)
    # History shows every weight in one unit: its share of the six, in percent.
    assert change(item, "weight_stability") == ("16.7 %", "20.0 %")
    assert change(item, "weight_network") == ("16.7 %", "30.0 %")
    assert change(item, "weight_cost") == ("16.7 %", "10.0 %")


def test_upload_tokens_record_issue_and_revocation_without_secrets(api, world):
    # A script with a personal API token: the history still knows who it was.
    key = Token.objects.create(user=world.users["procurement"]).key
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    created = api.post(
        ev_url(world, "api-upload-token-list"),
        {"candidate": world.candidate.pk, "label": "rack 3"},
        format="json",
    ).json()
    api.delete(ev_url(world, "api-upload-token-detail", token_pk=created["id"]))
    entries = history(api, world, kind="token")
    issued = entry(entries, kind="token", action="created", object_id=created["id"])
    assert issued["user"] == "procurement"
    assert change(issued, "label") == (None, "rack 3")
    revoked = entry(entries, kind="token", action="changed", object_id=created["id"])
    assert revoked["user"] == "procurement"
    before, after = change(revoked, "revoked_at")
    assert before is None and after.startswith(str(timezone.now().year))
    fields = {c["field"] for e in entries for c in e["changes"]}
    assert not fields & {"token_hash", "nonce"}
    token = UploadToken.objects.get(pk=created["id"])
    assert token.token_hash not in str(entries)


def test_members_record_who_gave_changed_and_took_away_access(api, world, make_user):
    make_user("auditor")
    api.as_(world.users["procurement"])
    added = api.post(
        ev_url(world, "api-member-list"), {"user": "auditor", "role": "viewer"}, format="json"
    ).json()
    target = ev_url(world, "api-member-detail", member_pk=added["id"])
    api.patch(target, {"role": "manager"}, format="json")
    assert api.delete(target).status_code == 204
    entries = history(api, world, kind="member")
    assert {e["kind"] for e in entries} == {"member"}
    given = entry(entries, kind="member", action="created", object_id=added["id"])
    changed = entry(entries, kind="member", action="changed", object_id=added["id"])
    removed = entry(entries, kind="member", action="deleted", object_id=added["id"])
    for item in (given, changed, removed):
        assert item["user"] == "procurement" and recent(item)
        assert item["object_label"] == "auditor"
    assert change(given, "role") == (None, "Viewer")
    assert change(changed, "role") == ("Viewer", "Manager")
    assert change(removed, "role") == ("Manager", None)


def test_the_decision_is_in_the_trail(api, world):
    api.as_(world.users["manager"])
    api.post(
        ev_url(world, "api-decision"),
        {"candidate": world.candidate.pk, "rationale": "Only full-mesh NVLink offer."},
        format="json",
    )
    entries = history(api, world)
    decided = entry(entries, kind="decision", action="decided")
    assert decided["user"] == "manager" and recent(decided)
    assert change(decided, "rationale") == (None, "Only full-mesh NVLink offer.")
    status = entry(entries, kind="evaluation", action="changed")
    assert status["user"] == "manager"
    assert change(status, "status") == ("Draft", "Decided")


def test_changes_outside_requests_are_by_the_system(world):
    world.offering.gpu_model = "NVIDIA H800"
    world.offering.save()
    item = next(e for e in audit.evaluation_history(world.evaluation) if e.kind == "offering")
    assert item.user is None and item.action == "changed"


def test_the_history_page_shows_the_trail_to_members_only(client, api, world):
    api.as_(world.users["procurement"])
    api.put(
        ev_url(world, "api-answer-detail", candidate_pk=world.candidate.pk, item="1"),
        {"claim": "Sixteen H100"},
        format="json",
    )
    page = reverse("evaluation-history", kwargs={"pk": world.evaluation.pk})
    client.force_login(world.users["viewer"])
    response = client.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Sixteen H100" in html and "8x H100 per node" in html
    assert "procurement" in html
    filtered = client.get(page, {"kind": "token"}).content.decode()
    assert "Sixteen H100" not in filtered
    client.force_login(world.users["outsider"])
    assert client.get(page).status_code == 404
    client.logout()
    assert client.get(page).status_code == 302


def test_the_history_page_speaks_chinese(client, world):
    client.force_login(world.users["viewer"])
    page = reverse("evaluation-history", kwargs={"pk": world.evaluation.pk})
    response = client.get(page, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    assert 'lang="zh-hans"' in response.content.decode()


def test_neither_the_trail_nor_the_decision_can_be_edited(api, world, client, make_user):
    api.as_(world.users["manager"])
    decision_url = ev_url(world, "api-decision")
    api.post(decision_url, {"candidate": world.candidate.pk, "rationale": "ok"}, format="json")
    history_url = ev_url(world, "api-history")
    for method in ("post", "put", "patch", "delete"):
        assert getattr(api, method)(history_url, {}, format="json").status_code == 405
    for method in ("put", "patch", "delete"):
        assert getattr(api, method)(decision_url, {}, format="json").status_code == 405
    record = DecisionRecord.objects.get()
    record.rationale = "rewritten"
    with pytest.raises(ValidationError):
        record.save()
    with pytest.raises(ValidationError):
        record.delete()
    # The admin offers no history model and no change or delete of a decision.
    registered = {model._meta.model_name for model in admin.site._registry}
    assert not any(name.startswith("historical") for name in registered)
    staff = make_user("root", is_staff=True, is_superuser=True)
    client.force_login(staff)
    change_url = reverse("admin:portal_decisionrecord_change", args=[record.pk])
    assert client.post(change_url, {"rationale": "rewritten"}).status_code == 403
    delete_url = reverse("admin:portal_decisionrecord_delete", args=[record.pk])
    assert client.post(delete_url, {"post": "yes"}).status_code == 403
    record.refresh_from_db()
    assert record.rationale == "ok"


def test_the_demo_trail_starts_with_each_objects_creation_and_names_its_vendor(demo):
    from portal.models import Candidate, Evaluation

    evaluation = Evaluation.objects.get(pk=1)
    entries = audit.evaluation_history(evaluation, kinds=["candidate"])
    oldest: dict[int, audit.AuditEntry] = {}
    for item in entries:  # newest first: the last one seen per object is its first
        oldest[item.object_id] = item
    candidates = Candidate.objects.filter(evaluation=evaluation).select_related("offering__vendor")
    assert set(oldest) == {c.pk for c in candidates}
    for candidate in candidates:
        first = oldest[candidate.pk]
        assert first.action == "created", (candidate, first.action)
        assert first.object_label == str(candidate.offering)
        assert first.object_label.startswith(candidate.offering.vendor.name)
