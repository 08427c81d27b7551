"""Versioned offers: candidates pin a version of their offering's facts and prices; catalogue
edits make a new version and change no evaluation until its procurement member adopts it;
only staff and the catalogue role edit the catalogue (pages, API, admin)."""

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from portal.api.ranking import evaluation_ranking_data
from portal.models import (
    Candidate,
    Evaluation,
    Membership,
    Offering,
    OfferingPrice,
    OfferingVersion,
    Role,
)
from portal.models.vendors import VERSION_EXCLUDED
from portal.services.evaluations import decision_record

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_evaluations(evaluation, members, candidate, offering, make_user):
    """Evaluation 1 (``evaluation``) and evaluation 2 share ``offering``; ``buyer2`` is
    procurement of evaluation 2 only and holds no catalogue role."""
    call_command("loaddata", "checklist", verbosity=0)
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    other = Evaluation.objects.create(
        name="Second", workload_profile="pretraining", required_total_gpus=16, duration_days=30
    )
    buyer2 = make_user("buyer2")
    Membership.objects.create(evaluation=other, user=buyer2, role=Role.PROCUREMENT)
    Membership.objects.create(evaluation=other, user=members["manager"], role=Role.MANAGER)
    other_candidate = Candidate.objects.create(evaluation=other, offering=offering, node_count=2)
    # A fresh pin of the catalogue as it is now (price included) for both candidates.
    for c in (candidate, other_candidate):
        c.offering_version = None
        c.save()
    return {"other": other, "other_candidate": other_candidate, "buyer2": buyer2}


def api_as(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_a_version_holds_every_concrete_field_of_the_offering(candidate, offering):
    version = candidate.offering_version
    expected = {f.attname for f in Offering._meta.concrete_fields if f.name not in VERSION_EXCLUDED}
    assert set(version.facts) == expected
    restored = version.as_offering()
    assert restored.gpu_memory_gib == 80 and restored.sla_availability_pct == Decimal("99.9")
    assert restored.vendor.mlps_level == 3


def test_membership_alone_gives_no_catalogue_rights(two_evaluations, offering, client):
    buyer2 = two_evaluations["buyer2"]
    api = api_as(buyer2)
    patch = api.patch(
        reverse("api-offering-detail", args=[offering.pk]), {"gpu_memory_gib": 16}, format="json"
    )
    assert patch.status_code == 403
    assert "catalogue role" in patch.json()["detail"]
    price = api.post(
        reverse("api-offering-price-list", args=[offering.pk]),
        {"billing_model": "hourly", "price_per_gpu": "0.0001"},
        format="json",
    )
    assert price.status_code == 403
    client.login(username="buyer2", password=PASSWORD)
    assert client.get(reverse("offering-edit", args=[offering.pk])).status_code == 403
    assert client.get(reverse("vendor-edit", args=[offering.vendor_id])).status_code == 403
    offering.refresh_from_db()
    assert offering.gpu_memory_gib == 80
    # Procurement may still open evaluations of their own.
    created = api.post(
        reverse("api-evaluation-list"),
        {
            "name": "Mine",
            "workload_profile": "inference",
            "required_total_gpus": 1,
            "duration_days": 3,
        },
        format="json",
    )
    assert created.status_code == 201, created.content


def test_a_catalogue_edit_changes_no_evaluation_until_adopted(
    two_evaluations, evaluation, candidate, offering, members
):
    other = two_evaluations["other"]
    decision_record(
        evaluation=other,
        candidate=two_evaluations["other_candidate"],
        rationale="Chosen.",
        by=members["manager"],
    )
    before = {e.pk: evaluation_ranking_data(e, use_cache=False) for e in (evaluation, other)}
    editor = api_as(members["procurement"])  # holds the catalogue role
    edited = editor.patch(
        reverse("api-offering-detail", args=[offering.pk]), {"gpu_memory_gib": 16}, format="json"
    )
    assert edited.status_code == 200, edited.content
    price = OfferingPrice.objects.get(offering=offering)
    repriced = editor.patch(
        reverse("api-offering-price-detail", args=[offering.pk, price.pk]),
        {"price_per_gpu": "0.0001"},
        format="json",
    )
    assert repriced.status_code == 200, repriced.content
    pinned = candidate.offering_version.number
    assert offering.versions.count() == pinned + 2
    for e in (evaluation, other):
        fresh = Evaluation.objects.get(pk=e.pk)
        assert evaluation_ranking_data(fresh, use_cache=False) == before[e.pk]
    # The open evaluation shows what changed.
    state = editor.get(
        reverse(
            "api-candidate-catalogue",
            kwargs={"evaluation_pk": evaluation.pk, "candidate_pk": candidate.pk},
        )
    ).json()
    changed = {c["field"]: (c["before"], c["after"]) for c in state["changes"]}
    assert changed["gpu_memory_gib"] == (80, 16)
    assert changed["price.monthly"] == ("12000.0000", "0.0001")
    # The decided one cannot adopt (409); the open one adopts, is rescored and audited.
    decided_adopt = api_as(members["procurement"]).post(
        reverse(
            "api-candidate-catalogue",
            kwargs={
                "evaluation_pk": other.pk,
                "candidate_pk": two_evaluations["other_candidate"].pk,
            },
        ),
        {"action": "adopt"},
        format="json",
    )
    assert decided_adopt.status_code in (404, 409)  # procurement is not a member of it: 404
    adopted = editor.post(
        reverse(
            "api-candidate-catalogue",
            kwargs={"evaluation_pk": evaluation.pk, "candidate_pk": candidate.pk},
        ),
        {"action": "adopt"},
        format="json",
    )
    assert adopted.status_code == 200, adopted.content
    assert adopted.json()["version"] == pinned + 2 and adopted.json()["changes"] == []
    after = evaluation_ranking_data(Evaluation.objects.get(pk=evaluation.pk), use_cache=False)
    assert after != before[evaluation.pk]
    assert after["results"][0]["knockouts"]  # 16 GiB < the 80 GiB required
    candidate.refresh_from_db()
    row = candidate.history.latest()
    assert row.history_user == members["procurement"] and row.offering_version_id == (
        candidate.offering_version_id
    )
    assert (
        evaluation_ranking_data(Evaluation.objects.get(pk=other.pk), use_cache=False)
        == (before[other.pk])
    )


def test_the_decided_evaluation_refuses_adoption_with_409(
    two_evaluations, evaluation, candidate, offering, members
):
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Go.", by=members["manager"]
    )
    Offering.objects.filter(pk=offering.pk).update(gpu_memory_gib=40)
    response = api_as(members["procurement"]).post(
        reverse(
            "api-candidate-catalogue",
            kwargs={"evaluation_pk": evaluation.pk, "candidate_pk": candidate.pk},
        ),
        {"action": "adopt"},
        format="json",
    )
    assert response.status_code == 409
    assert "decided" in response.json()["detail"]


def test_the_candidate_page_shows_the_change_and_keeping_hides_it(
    two_evaluations, evaluation, candidate, offering, client, members
):
    client.login(username="procurement", password=PASSWORD)
    page = reverse("candidate-detail", kwargs={"pk": evaluation.pk, "candidate_pk": candidate.pk})
    assert "Catalogue changed since" not in client.get(page).content.decode()
    pinned = candidate.offering_version.number
    from portal.services.catalogue import offering_save

    offering.gpu_memory_gib = 16
    offering_save(offering=offering, by=members["procurement"])
    html = client.get(page).content.decode()
    assert "Catalogue changed since" in html and "Adopt the new version" in html
    kept = client.post(
        reverse("candidate-catalogue", kwargs={"pk": evaluation.pk, "candidate_pk": candidate.pk}),
        {"action": "keep"},
    )
    assert kept.status_code == 302
    assert "Catalogue changed since" not in client.get(page).content.decode()
    candidate.refresh_from_db()
    assert candidate.offering_version.number == pinned
    assert candidate.history.latest().catalogue_kept == candidate.catalogue_kept != ""


def test_admin_edits_go_through_the_catalogue_service(offering, candidate, make_user, client):
    staff = make_user("admin", is_staff=True, is_superuser=True)
    client.force_login(staff)
    url = reverse("admin:portal_vendor_change", args=[offering.vendor_id])
    data = {
        "name": offering.vendor.name,
        "mlps_level": 0,
        "website": "",
        "contact_name": "",
        "contact_email": "",
        "contact_phone": "",
        "regions": "",
        "other_certifications": "",
        "notes": "",
    }
    response = client.post(url, data)
    assert response.status_code == 302, response.content[:2000]
    latest = OfferingVersion.objects.filter(offering=offering).order_by("-number").first()
    assert latest.number == 2 and latest.vendor_facts["mlps_level"] == 0
    candidate.refresh_from_db()
    assert candidate.offering_version.number == 1


def test_the_dashboard_lists_what_changed_in_the_catalogue(
    two_evaluations, evaluation, candidate, offering, members, client
):
    from portal.services.catalogue import offering_save

    url = reverse("evaluation-detail", args=[evaluation.pk])
    client.login(username="viewer", password=PASSWORD)
    assert "Catalogue changed since" not in client.get(url).content.decode()
    offering.gpu_memory_gib = 16
    offering_save(offering=offering, by=members["procurement"])
    html = client.get(url).content.decode()
    assert "Catalogue changed since" in html and "80 → 16" in html
