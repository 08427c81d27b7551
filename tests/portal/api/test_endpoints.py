"""What each endpoint does for a member allowed to call it, and how it refuses what it must."""

from decimal import Decimal

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token

from portal.api.ranking import evaluation_ranking_data
from portal.models import (
    Answer,
    Candidate,
    DecisionRecord,
    Evaluation,
    Membership,
    Offering,
    OfferingPrice,
    UploadToken,
    Vendor,
)

from ..conftest import small_offering

pytestmark = pytest.mark.django_db


def url(name, **kwargs):
    return reverse(name, kwargs=kwargs)


def ev_url(world, name, **kwargs):
    return url(name, evaluation_pk=world.evaluation.pk, **kwargs)


# --- authentication ---------------------------------------------------------------------------


def test_anonymous_requests_get_401_with_a_challenge(api, world):
    response = api.get(ev_url(world, "api-ranking"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert "credentials were not provided" in response.json()["detail"]


def test_a_personal_api_token_authenticates_scripts(api, world):
    key = Token.objects.create(user=world.users["viewer"]).key
    response = api.get(url("api-me"), HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "viewer"
    assert body["memberships"] == [
        {
            "evaluation": world.evaluation.pk,
            "evaluation_name": world.evaluation.name,
            "role": "viewer",
        }
    ]
    assert api.get(url("api-me"), HTTP_AUTHORIZATION="Token nope").status_code == 401


def test_an_upload_token_reaches_only_the_evidence_endpoints(api, world):
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {world.raw_token}"}
    assert api.get(url("api-evidence-nonce"), **bearer).status_code == 200
    for target in (
        url("api-me"),
        url("api-vendor-list"),
        ev_url(world, "api-evaluation-detail"),
        ev_url(world, "api-candidate-list"),
        ev_url(world, "api-upload-list"),
        ev_url(world, "api-upload-token-list"),
    ):
        response = api.get(target, **bearer)
        assert response.status_code == 401, target


# --- membership and roles -------------------------------------------------------------------


def test_a_non_member_cannot_tell_an_evaluation_exists(api, world):
    api.as_(world.users["outsider"])
    existing = api.get(ev_url(world, "api-evaluation-detail"))
    missing = api.get(url("api-evaluation-detail", evaluation_pk=999_999))
    assert existing.status_code == missing.status_code == 404
    assert existing.json() == missing.json()


def test_a_member_without_the_role_gets_403_that_names_the_role(api, world):
    api.as_(world.users["viewer"])
    response = api.put(ev_url(world, "api-weights"), {"stability": 1}, format="json")
    assert response.status_code == 403
    assert "Viewer" in response.json()["detail"]


def test_the_evaluation_list_holds_only_the_users_evaluations(api, world):
    api.as_(world.users["procurement"])
    ids = [e["id"] for e in api.get(url("api-evaluation-list")).json()["results"]]
    assert ids == [world.evaluation.pk]
    assert api.get(url("api-evaluation-list")).json()["results"][0]["my_role"] == "procurement"


# --- ids in bodies, URLs and filters stay inside the evaluation in the URL ----------------------


def test_another_evaluations_rows_are_404_through_this_evaluations_urls(api, world):
    api.as_(world.users["procurement"])
    assert api.get(ev_url(world, "api-candidate-detail", candidate_pk=world.other_candidate.pk))
    for target in (
        ev_url(world, "api-candidate-detail", candidate_pk=world.other_candidate.pk),
        ev_url(world, "api-answer-list", candidate_pk=world.other_candidate.pk),
        ev_url(world, "api-upload-detail", upload_pk=world.other_upload.pk),
        ev_url(world, "api-upload-token-detail", token_pk=world.other_token.pk),
    ):
        assert api.get(target).status_code == 404, target
    response = api.delete(
        ev_url(world, "api-candidate-detail", candidate_pk=world.other_candidate.pk)
    )
    assert response.status_code == 404
    assert Candidate.objects.filter(pk=world.other_candidate.pk).exists()


def test_ids_in_a_body_are_checked_against_the_evaluation_in_the_url(api, world):
    api.as_(world.users["procurement"])
    response = api.post(
        ev_url(world, "api-upload-token-list"),
        {"candidate": world.other_candidate.pk},
        format="json",
    )
    assert response.status_code == 400
    assert "does not exist" in response.json()["candidate"][0]
    assert (
        not UploadToken.objects.filter(candidate=world.other_candidate)
        .exclude(pk=world.other_token.pk)
        .exists()
    )
    api.as_(world.users["manager"])
    response = api.post(
        ev_url(world, "api-decision"),
        {"candidate": world.other_candidate.pk, "rationale": "cheaper"},
        format="json",
    )
    assert response.status_code == 400
    assert not DecisionRecord.objects.exists()


def test_no_field_moves_a_row_to_another_evaluation(api, world):
    api.as_(world.users["procurement"])
    response = api.patch(
        ev_url(world, "api-candidate-detail", candidate_pk=world.candidate.pk),
        {"evaluation": world.other_evaluation.pk},
        format="json",
    )
    assert response.status_code == 400
    assert "Unknown field" in response.json()["evaluation"][0]
    world.candidate.refresh_from_db()
    assert world.candidate.evaluation_id == world.evaluation.pk


def test_filters_on_another_evaluations_ids_match_nothing(api, world):
    api.as_(world.users["procurement"])
    for name in ("api-upload-list", "api-measurement-list", "api-score-list"):
        body = api.get(ev_url(world, name), {"candidate": world.other_candidate.pk}).json()
        assert body["results"] == [], name
        mine = api.get(ev_url(world, name), {"candidate": world.candidate.pk}).json()
        assert len(mine["results"]) == 1, name
    response = api.get(ev_url(world, "api-upload-list"), {"candidate": "x"})
    assert response.status_code == 400
    assert response.json() == {"candidate": ["Enter a whole number."]}


@pytest.mark.parametrize(
    "name,body",
    [
        ("api-vendor-list", {"name": "New vendor", "id": 5}),
        ("api-vendor-list", {"name": "New vendor", "colour": "red"}),
        ("api-weights", {"matrix": [[1]], "weights": {}}),
    ],
)
def test_unknown_and_read_only_fields_are_refused(api, world, name, body):
    api.as_(world.users["procurement"])
    target = ev_url(world, name) if name == "api-weights" else url(name)
    response = api.post(target, body, format="json")
    assert response.status_code == 400
    errors = response.json()
    extra = (set(body) - {"name", "matrix"}).pop()
    assert extra in errors
    assert errors[extra][0] in ("This field is read-only.",) or errors[extra][0].startswith(
        "Unknown field."
    )


# --- the catalogue ----------------------------------------------------------------------------


def test_procurement_edits_the_catalogue_and_others_read_it(api, world):
    api.as_(world.users["engineer"])
    assert api.get(url("api-vendor-list")).status_code == 200
    denied = api.post(url("api-vendor-list"), {"name": "Nope"}, format="json")
    assert denied.status_code == 403
    assert "catalogue role" in denied.json()["detail"]
    api.as_(world.users["procurement"])
    created = api.post(
        url("api-vendor-list"), {"name": "GPU Cloud", "mlps_level": 3}, format="json"
    )
    assert created.status_code == 201, created.content
    assert Vendor.objects.get(name="GPU Cloud").mlps_level == 3
    duplicate = api.post(url("api-vendor-list"), {"name": "GPU Cloud"}, format="json")
    assert duplicate.status_code == 400
    assert "already exists" in duplicate.json()["name"][0]


def test_staff_without_a_membership_may_edit_the_catalogue(api, make_user, world):
    api.as_(make_user("admin-user", is_staff=True))
    response = api.patch(
        url("api-vendor-detail", pk=world.offering.vendor_id),
        {"regions": "cn-north"},
        format="json",
    )
    assert response.status_code == 200


def test_catalogue_rows_in_use_are_not_deleted_and_unused_ones_are(api, world):
    api.as_(world.users["procurement"])
    vendor_url = url("api-vendor-detail", pk=world.offering.vendor_id)
    offering_url = url("api-offering-detail", pk=world.offering.pk)
    in_use = api.delete(offering_url)
    assert in_use.status_code == 409
    assert "candidate" in in_use.json()["detail"]
    has_offerings = api.delete(vendor_url)
    assert has_offerings.status_code == 409
    assert "offerings" in has_offerings.json()["detail"]
    assert Offering.objects.filter(pk=world.offering.pk).exists()
    assert OfferingPrice.objects.filter(pk=world.price.pk).exists()

    api.as_(world.users["viewer"])
    assert api.delete(offering_url).status_code == 403
    api.as_(world.users["procurement"])
    spare = Vendor.objects.create(name="Spare GPU Co")
    unused = small_offering(spare)
    price = OfferingPrice.objects.create(
        offering=unused, billing_model="hourly", price_per_gpu=Decimal("9.50")
    )
    assert api.delete(url("api-vendor-detail", pk=spare.pk)).status_code == 409
    assert api.delete(url("api-offering-detail", pk=unused.pk)).status_code == 204
    assert not OfferingPrice.objects.filter(pk=price.pk).exists()
    assert api.delete(url("api-vendor-detail", pk=spare.pk)).status_code == 204
    assert not Vendor.objects.filter(pk=spare.pk).exists()
    # Each deletion names who made it in the audit rows.
    for model, pk in ((Offering, unused.pk), (OfferingPrice, price.pk), (Vendor, spare.pk)):
        record = model.history.get(id=pk, history_type="-")
        assert record.history_user == world.users["procurement"]


def test_offering_filters_and_pagination(api, world):
    api.as_(world.users["viewer"])
    body = api.get(url("api-offering-list"), {"delivery_form": "vgpu"}).json()
    assert [o["name"] for o in body["results"]] == ["4x A100 vGPU"]
    page = api.get(url("api-offering-list"), {"page_size": 1}).json()
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]
    assert api.get(url("api-offering-list"), {"page": 9}).status_code == 404


def test_a_price_change_makes_a_new_version_and_rescores_nothing(api, world):
    world.candidate.scored_at = None
    world.candidate.save(update_fields=["scored_at"])
    pinned = world.candidate.offering_version_id
    api.as_(world.users["procurement"])
    response = api.post(
        url("api-offering-price-list", offering_pk=world.offering.pk),
        {"billing_model": "hourly", "price_per_gpu": "20.5"},
        format="json",
    )
    assert response.status_code == 201, response.content
    world.candidate.refresh_from_db()
    # The candidate keeps the version it pinned until procurement adopts the new one.
    assert world.candidate.scored_at is None
    assert world.candidate.offering_version_id == pinned
    assert world.offering.versions.count() == 2
    twice = api.post(
        url("api-offering-price-list", offering_pk=world.offering.pk),
        {"billing_model": "hourly", "price_per_gpu": "21"},
        format="json",
    )
    assert twice.status_code == 400
    assert "already exists" in str(twice.json())


def test_an_offering_is_validated_like_the_model(api, world):
    api.as_(world.users["procurement"])
    response = api.patch(
        url("api-offering-detail", pk=world.offering.pk),
        {"gpus_per_node": 0, "oversubscription_ratio": "0.5"},
        format="json",
    )
    assert response.status_code == 400
    assert set(response.json()) == {"gpus_per_node", "oversubscription_ratio"}


def test_an_offering_may_leave_its_oversubscription_unstated(api, world):
    api.as_(world.users["procurement"])
    detail = url("api-offering-detail", pk=world.offering.pk)
    response = api.patch(detail, {"oversubscription_ratio": None}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["oversubscription_ratio"] is None
    world.offering.refresh_from_db()
    assert world.offering.oversubscription_ratio is None
    stated = api.patch(detail, {"oversubscription_ratio": "2"}, format="json")
    assert stated.status_code == 200 and stated.json()["oversubscription_ratio"] == "2.00"


# --- evaluations, members, candidates, answers, weights -----------------------------------------


def test_creating_an_evaluation_makes_the_creator_its_procurement_member(api, world):
    api.as_(world.users["procurement"])
    response = api.post(
        url("api-evaluation-list"),
        {
            "name": "Inference fleet",
            "workload_profile": "inference",
            "required_total_gpus": 8,
            "duration_days": 90,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    evaluation = Evaluation.objects.get(name="Inference fleet")
    assert evaluation.created_by == world.users["procurement"]
    assert Membership.objects.get(evaluation=evaluation).role == "procurement"
    assert response.json()["my_role"] == "procurement"
    assert sum(evaluation.weights.values()) > 0


def test_requirements_are_validated_and_a_decided_evaluation_is_frozen(api, world):
    api.as_(world.users["procurement"])
    target = ev_url(world, "api-evaluation-detail")
    bad = api.patch(target, {"expected_idle_days": 40}, format="json")
    assert bad.status_code == 400
    assert "must be fewer than the duration" in bad.json()["expected_idle_days"][0]
    # Every day idle leaves nothing to price: refused too, one day less is fine.
    days = world.evaluation.duration_days
    all_idle = api.patch(target, {"expected_idle_days": days}, format="json")
    assert all_idle.status_code == 400
    assert "no cost per used GPU-hour" in all_idle.json()["expected_idle_days"][0]
    assert Evaluation.objects.get(pk=world.evaluation.pk).expected_idle_days != days
    assert api.patch(target, {"expected_idle_days": days - 1}, format="json").status_code == 200
    assert api.patch(target, {"status": "decided"}, format="json").status_code == 400
    ok = api.patch(target, {"required_total_gpus": 32, "status": "open"}, format="json")
    assert ok.status_code == 200 and ok.json()["required_total_gpus"] == 32
    Evaluation.objects.filter(pk=world.evaluation.pk).update(status="decided")
    frozen = api.patch(target, {"required_total_gpus": 8}, format="json")
    assert frozen.status_code == 409
    assert "decided" in frozen.json()["detail"]


def test_members_are_managed_by_procurement_and_one_procurement_member_remains(
    api, world, make_user
):
    api.as_(world.users["procurement"])
    newcomer = make_user("newcomer")
    added = api.post(
        ev_url(world, "api-member-list"), {"user": "newcomer", "role": "engineer"}, format="json"
    )
    assert added.status_code == 201
    again = api.post(
        ev_url(world, "api-member-list"), {"user": "newcomer", "role": "viewer"}, format="json"
    )
    assert again.status_code == 400
    assert "already a member" in again.json()["user"][0]
    mine = Membership.objects.get(evaluation=world.evaluation, user=world.users["procurement"])
    demote = api.patch(
        ev_url(world, "api-member-detail", member_pk=mine.pk), {"role": "viewer"}, format="json"
    )
    assert demote.status_code == 400
    assert "at least one procurement" in demote.json()["role"][0]
    assert api.delete(ev_url(world, "api-member-detail", member_pk=mine.pk)).status_code == 400
    theirs = Membership.objects.get(user=newcomer)
    assert api.delete(ev_url(world, "api-member-detail", member_pk=theirs.pk)).status_code == 204


def test_a_procurement_member_cannot_make_themselves_the_manager(api, world, make_user):
    # With a second procurement member the last-procurement rule no longer stands in the way:
    # the refusal is the separation of duties itself.
    colleague = make_user("second-buyer")
    Membership.objects.create(evaluation=world.evaluation, user=colleague, role="procurement")
    mine = Membership.objects.get(evaluation=world.evaluation, user=world.users["procurement"])
    api.as_(world.users["procurement"])
    url = ev_url(world, "api-member-detail", member_pk=mine.pk)
    refused = api.patch(url, {"role": "manager"}, format="json")
    assert refused.status_code == 400
    assert "cannot make yourself a manager" in refused.json()["role"][0]
    mine.refresh_from_db()
    assert mine.role == "procurement"
    # Stepping down is no escalation; the colleague may then grant the role.
    assert api.patch(url, {"role": "viewer"}, format="json").status_code == 200
    api.as_(colleague)
    granted = api.patch(url, {"role": "manager"}, format="json")
    assert granted.status_code == 200 and granted.json()["role"] == "manager"


def test_candidates_are_added_changed_and_removed(api, world, vendor):
    api.as_(world.users["procurement"])
    offering = Offering.objects.create(
        vendor=vendor,
        name="8x H20",
        delivery_form="bare_metal",
        gpu_model="NVIDIA H20 96GB",
        gpu_form_factor="sxm",
        gpus_per_node=8,
        gpu_memory_gib=96,
        nvlink_topology="full_mesh",
        fabric="roce",
    )
    created = api.post(
        ev_url(world, "api-candidate-list"),
        {
            "offering": offering.pk,
            "node_count": 2,
            "quoted_billing_model": "monthly",
            "quoted_price_per_gpu": "9000",
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["total_gpus"] == 16 and body["scored_at"]
    duplicate = api.post(
        ev_url(world, "api-candidate-list"),
        {"offering": offering.pk, "node_count": 1},
        format="json",
    )
    assert duplicate.status_code == 400
    target = ev_url(world, "api-candidate-detail", candidate_pk=body["id"])
    half = api.patch(target, {"quoted_billing_model": ""}, format="json")
    assert half.status_code == 400
    assert half.json() == {
        "quoted_price_per_gpu": ["A quote needs both a billing model and a price."]
    }
    assert api.patch(target, {"node_count": 4}, format="json").json()["total_gpus"] == 32
    assert api.delete(target).status_code == 204
    assert not Candidate.objects.filter(pk=body["id"]).exists()


def test_answers_are_saved_by_item_number_or_key_and_typed(api, world):
    api.as_(world.users["procurement"])
    by_number = ev_url(world, "api-answer-detail", candidate_pk=world.candidate.pk, item="2")
    by_key = ev_url(
        world, "api-answer-detail", candidate_pk=world.candidate.pk, item="nvlink_topology"
    )
    assert api.get(by_key).status_code == 404
    wrong = api.put(by_number, {"claim": "NVSwitch", "value": "mesh"}, format="json")
    assert wrong.status_code == 400
    assert wrong.json() == {"value": ["Choose one of: full_mesh, grouped, none."]}
    saved = api.put(
        by_number, {"claim": "NVSwitch, all-to-all", "value": "full_mesh"}, format="json"
    )
    assert saved.status_code == 200, saved.content
    assert saved.json()["status"] == "claimed"
    assert api.get(by_key).json()["value"] == "full_mesh"
    cost = ev_url(world, "api-answer-detail", candidate_pk=world.candidate.pk, item="monthly_cost")
    assert api.put(cost, {"value": "cheap"}, format="json").json() == {
        "value": ["This item takes a number."]
    }
    assert api.put(cost, {"value": 120000}, format="json").status_code == 200
    assert api.get(ev_url(world, "api-answer-detail", candidate_pk=world.candidate.pk, item="99"))
    missing = api.put(
        ev_url(world, "api-answer-detail", candidate_pk=world.candidate.pk, item="nope"),
        {},
        format="json",
    )
    assert missing.status_code == 404
    assert "No checklist item" in missing.json()["detail"]
    listed = api.get(ev_url(world, "api-answer-list", candidate_pk=world.candidate.pk)).json()
    assert [a["item"] for a in listed["results"]] == [1, 2, 9]


def test_weights_directly_and_from_an_ahp_matrix(api, world):
    api.as_(world.users["procurement"])
    target = ev_url(world, "api-weights")
    direct = {
        "stability": 30,
        "network": 30,
        "storage": 10,
        "security": 10,
        "cost": 10,
        "support": 10,
    }
    response = api.put(target, direct, format="json")
    assert response.status_code == 200
    assert response.json()["normalised_pct"]["stability"] == 30.0
    zero = api.put(target, dict.fromkeys(direct, 0), format="json")
    assert zero.status_code == 400
    assert "At least one weight must be positive" in zero.json()["non_field_errors"][0]
    consistent = [[1.0] * 6 for _ in range(6)]
    ok = api.post(target, {"matrix": consistent}, format="json")
    assert ok.status_code == 200
    assert ok.json()["consistency_ratio"] == 0.0
    inconsistent = [[1.0] * 6 for _ in range(6)]
    inconsistent[0][1], inconsistent[1][0] = 9.0, 1 / 9
    inconsistent[1][2], inconsistent[2][1] = 9.0, 1 / 9
    inconsistent[0][2], inconsistent[2][0] = 1 / 9, 9.0
    before = api.get(target).json()["weights"]
    refused = api.post(target, {"matrix": inconsistent}, format="json")
    assert refused.status_code == 400
    message = refused.json()["matrix"][0]
    assert "consistency ratio" in message and "most inconsistent comparison" in message
    assert any(name in message.lower() for name in ("stability", "network", "storage"))
    assert api.get(target).json()["weights"] == before == dict.fromkeys(direct, "16.667")


# --- upload tokens, uploads, measurements, scores ----------------------------------------------


def test_a_new_upload_token_is_shown_once_and_can_be_revoked(api, world):
    api.as_(world.users["procurement"])
    created = api.post(
        ev_url(world, "api-upload-token-list"),
        {"candidate": world.candidate.pk, "node_name": "gpu-07", "expires_in_days": 3},
        format="json",
    )
    assert created.status_code == 201, created.content
    raw = created.json()["token"]
    assert raw.startswith("gpt_") and created.json()["nonce"]
    detail = ev_url(world, "api-upload-token-detail", token_pk=created.json()["id"])
    assert "token" not in api.get(detail).json()
    assert raw not in api.get(ev_url(world, "api-upload-token-list")).content.decode()
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    assert api.get(url("api-evidence-nonce"), **bearer).status_code == 200
    revoked = api.post(
        ev_url(world, "api-upload-token-revoke", token_pk=created.json()["id"]), format="json"
    )
    assert revoked.status_code == 200 and revoked.json()["usable"] is False
    refused = api.get(url("api-evidence-nonce"), **bearer)
    assert refused.status_code == 401
    assert "revoked" in refused.json()["detail"]
    assert api.delete(detail).status_code == 204  # again: idempotent
    too_long = api.post(
        ev_url(world, "api-upload-token-list"),
        {"candidate": world.candidate.pk, "expires_in_days": 365},
        format="json",
    )
    assert too_long.status_code == 400


def test_uploads_show_their_import_status(api, world):
    api.as_(world.users["engineer"])
    body = api.get(ev_url(world, "api-upload-list"), {"status": "done"}).json()
    assert [u["id"] for u in body["results"]] == [world.upload.pk]
    assert body["results"][0]["measurement_count"] == 1
    detail = api.get(ev_url(world, "api-upload-detail", upload_pk=world.upload.pk)).json()
    assert detail["status_url"].endswith(url("api-evidence-detail", pk=world.upload.pk))
    assert api.get(ev_url(world, "api-upload-list"), {"status": "lost"}).status_code == 400


# --- ranking, robustness, decision ------------------------------------------------------------


def test_the_ranking_is_computed_live_with_totals_knockouts_and_tco(api, world):
    api.as_(world.users["viewer"])
    body = api.get(ev_url(world, "api-ranking")).json()
    assert body["evaluation"] == world.evaluation.pk
    assert abs(sum(body["weights"].values()) - 1) < 1e-9
    [row] = body["results"]
    assert row["candidate"] == world.candidate.pk and row["position"] == 1
    assert set(row["scores"]) == {"stability", "network", "storage", "security", "cost", "support"}
    assert 0 <= row["total"] <= 100
    assert row["tco"]["cheapest_billing_model"] == "monthly"
    assert Decimal(row["tco"]["total"]) > 0
    assert body == evaluation_ranking_data(world.evaluation, use_cache=False)


def test_the_ranking_follows_every_change_of_its_inputs(api, world):
    api.as_(world.users["procurement"])
    target = ev_url(world, "api-ranking")

    def fresh():
        evaluation = Evaluation.objects.get(pk=world.evaluation.pk)
        return evaluation_ranking_data(evaluation, use_cache=False)

    first = api.get(target).json()
    assert first == fresh()
    # The catalogue changed behind the API's back (admin, shell): the candidate is scored on
    # the version it pinned, so nothing moves until it adopts the catalogue as it is now.
    OfferingPrice.objects.filter(pk=world.price.pk).update(price_per_gpu=Decimal("30000"))
    Vendor.objects.filter(pk=world.offering.vendor_id).update(name="Renamed Vendor")
    assert api.get(target).json() == first
    from portal.services.catalogue import candidate_offering_adopt

    candidate_offering_adopt(candidate=world.candidate, by=world.users["procurement"])
    second = api.get(target).json()
    assert second == fresh() and second != first
    assert second["results"][0]["label"].startswith("Renamed Vendor")
    Answer.objects.filter(pk=world.answer.pk).update(status="contradicted")
    assert api.get(target).json() == fresh()
    Candidate.objects.filter(pk=world.candidate.pk).update(node_count=1)
    assert api.get(target).json() == fresh()
    api.put(
        ev_url(world, "api-weights"),
        {"stability": 0, "network": 0, "storage": 0, "security": 0, "cost": 100, "support": 0},
        format="json",
    )
    last = api.get(target).json()
    assert last["weights"]["cost"] == 1.0 and last == fresh()


def test_robustness_parameters_are_bounded(api, world):
    api.as_(world.users["manager"])
    target = ev_url(world, "api-robustness")
    body = api.get(target, {"draws": 50, "seed": 3}).json()
    assert body["leader_id"] == world.candidate.pk
    assert body["stability"]["draws"] == 50
    too_many = api.get(target, {"draws": 10**6})
    assert too_many.status_code == 400
    assert "draws" in too_many.json()


def test_the_decision_is_recorded_once_by_a_manager(api, world):
    target = ev_url(world, "api-decision")
    api.as_(world.users["viewer"])
    assert api.get(target).json() == {
        "evaluation": world.evaluation.pk,
        "status": world.evaluation.status,
        "decision": None,
        "earlier_decisions": [],
    }
    api.as_(world.users["manager"])
    blank = api.post(target, {"candidate": world.candidate.pk, "rationale": "  "}, format="json")
    assert blank.status_code == 400
    decided = api.post(
        target,
        {"candidate": world.candidate.pk, "rationale": "Best measured fabric."},
        format="json",
    )
    assert decided.status_code == 201, decided.content
    body = decided.json()
    assert body["status"] == "decided"
    assert body["decision"]["decided_by"] == "manager"
    assert body["decision"]["snapshot"]["ranking"][0]["candidate_id"] == world.candidate.pk
    again = api.post(
        target, {"candidate": world.candidate.pk, "rationale": "Changed my mind."}, format="json"
    )
    assert again.status_code == 409
    for method in ("put", "patch", "delete"):
        assert getattr(api, method)(target, {}, format="json").status_code == 405
    assert DecisionRecord.objects.get().rationale == "Best measured fabric."


def test_a_decision_sent_with_the_ranking_version_it_was_made_on(api, world):
    # manager review (stop 34): the page refuses a decision on figures its manager never
    # saw; an API client can hold the ranking it read to the same rule.
    api.as_(world.users["manager"])
    ranking = api.get(ev_url(world, "api-ranking")).json()
    version = ranking["ranking_version"]
    assert version
    target = ev_url(world, "api-decision")
    stale = api.post(
        target,
        {"candidate": world.candidate.pk, "rationale": "On old figures.", "ranking_version": "0"},
        format="json",
    )
    assert stale.status_code == 409, stale.content
    assert "The ranking changed since you read it" in stale.json()["detail"]
    assert stale.json()["ranking_version"] == version
    assert not DecisionRecord.objects.exists()
    decided = api.post(
        target,
        {"candidate": world.candidate.pk, "rationale": "On these.", "ranking_version": version},
        format="json",
    )
    assert decided.status_code == 201, decided.content
    assert DecisionRecord.objects.get().rationale == "On these."


def test_unknown_api_urls_answer_json(api, world):
    api.as_(world.users["viewer"])
    response = api.get("/api/v1/evaluations")
    assert response.status_code == 404
    assert "trailing slash" in response.json()["detail"]


@pytest.mark.parametrize("persona", ["procurement", "manager"])
def test_the_browsable_api_renders_every_readable_endpoint(api, world, persona):
    from .test_matrix import ROUTES, covered_routes

    api.as_(world.users[persona])
    for name in covered_routes():
        route = ROUTES[name]
        if not name.startswith("api-") or "get" not in route.methods:
            continue
        if route.kind in ("evidence", "public", "docs", "docs_page"):
            continue  # not resources: the schema has its own media type, the docs are pages
        response = api.get(reverse(name, kwargs=route.kwargs(world)), HTTP_ACCEPT="text/html")
        assert response.status_code in (200, 403), name
        assert response["Content-Type"].startswith("text/html"), name


def test_list_and_ranking_queries_do_not_grow_with_candidates(api, world, vendor):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    api.as_(world.users["engineer"])
    targets = [
        ev_url(world, "api-candidate-list"),
        ev_url(world, "api-ranking"),
        ev_url(world, "api-upload-token-list"),
        url("api-offering-list"),
    ]

    def counts():
        result = []
        for target in targets:
            with CaptureQueriesContext(connection) as queries:
                assert api.get(target).status_code == 200
            result.append(len(queries))
        return result

    before = counts()
    for index in range(3):
        offering = Offering.objects.create(
            vendor=vendor,
            name=f"Extra {index}",
            delivery_form="bare_metal",
            gpu_model="NVIDIA H100",
            gpu_form_factor="sxm",
            gpus_per_node=8,
            gpu_memory_gib=80,
            nvlink_topology="full_mesh",
            fabric="infiniband",
        )
        OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=9)
        candidate = Candidate.objects.create(
            evaluation=world.evaluation, offering=offering, node_count=1
        )
        Answer.objects.create(candidate=candidate, item=world.answer.item, claim="yes")
        UploadToken.objects.create(
            evaluation=world.evaluation,
            candidate=candidate,
            token_hash=f"{index}" * 64,
            token_prefix="gpt_x",
            nonce="n",
            expires_at=world.token.expires_at,
        )
    assert counts() == before


@pytest.mark.parametrize("persona", ["procurement", "manager", "outsider"])
def test_head_and_options_never_fail(api, world, persona):
    from .test_matrix import ROUTES, covered_routes

    api.as_(world.users[persona])
    for name in covered_routes():
        target = reverse(name, kwargs=ROUTES[name].kwargs(world))
        for method in ("head", "options"):
            assert getattr(api, method)(target).status_code < 500, (name, method)
