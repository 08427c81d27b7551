"""The NVLink domain of an offering (GB200 NVL72, GH200 NVL32): one field, validated alike by
the page form, the API and the database, and read by verification through the adapter."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.forms.models import model_to_dict
from django.urls import reverse
from django.utils import translation

from portal import adapters
from portal.forms import OfferingForm
from portal.models import Offering
from portal.services.catalogue import candidate_offering_adopt, offering_save

pytestmark = pytest.mark.django_db


def _form(offering: Offering, **changes) -> OfferingForm:
    data = {k: v for k, v in model_to_dict(offering).items() if v is not None}
    data.update(changes)
    return OfferingForm(data=data, instance=offering)


def test_blank_means_the_node_and_old_offerings_keep_it(offering):
    offering.refresh_from_db()
    assert offering.nvlink_domain_gpus is None
    assert adapters.offering_facts(offering).nvlink_domain_gpus == 0
    assert _form(offering).is_valid()


@pytest.mark.parametrize("domain", [8, 16, 72 * 8])
def test_a_whole_number_of_nodes_is_a_domain(offering, domain):
    form = _form(offering, nvlink_domain_gpus=domain)
    assert form.is_valid(), form.errors
    saved = form.save()
    assert adapters.offering_facts(saved).nvlink_domain_gpus == domain


@pytest.mark.parametrize("domain", [4, 12, 70])
def test_a_domain_that_splits_a_node_is_refused_with_the_reason(offering, domain):
    form = _form(offering, nvlink_domain_gpus=domain)
    assert not form.is_valid()
    (message,) = form.errors["nvlink_domain_gpus"]
    assert f"({domain} GPUs)" in message and "multiple of the 8 GPUs per node" in message


def test_a_domain_across_nodes_needs_nvlink(offering):
    form = _form(offering, nvlink_domain_gpus=16, nvlink_topology="none")
    assert not form.is_valid()
    assert "needs an NVLink topology" in form.errors["nvlink_domain_gpus"][0]


def test_the_form_error_is_translated(offering):
    with translation.override("zh-hans"):
        form = _form(offering, nvlink_domain_gpus=12)
        assert not form.is_valid()
        message = str(form.errors["nvlink_domain_gpus"][0])
    assert "NVLink 域" in message and "12" in message


def test_the_api_refuses_a_domain_that_splits_a_node_and_saves_a_whole_one(api, world):
    api.as_(world.users["procurement"])
    detail = reverse("api-offering-detail", kwargs={"pk": world.offering.pk})
    bad = api.patch(detail, {"nvlink_domain_gpus": 12}, format="json")
    assert bad.status_code == 400
    assert set(bad.json()) == {"nvlink_domain_gpus"}
    assert "multiple of the 8 GPUs per node" in bad.json()["nvlink_domain_gpus"][0]
    good = api.patch(detail, {"nvlink_domain_gpus": 72 * 8}, format="json")
    assert good.status_code == 200, good.content
    assert good.json()["nvlink_domain_gpus"] == 576
    assert api.get(detail).json()["nvlink_domain_gpus"] == 576
    cleared = api.patch(detail, {"nvlink_domain_gpus": None}, format="json")
    assert cleared.status_code == 200 and cleared.json()["nvlink_domain_gpus"] is None


def test_the_migrated_column_refuses_a_split_node_in_the_database(offering):
    # The constraint of migration 0035 holds even for a write that skips the model's clean.
    with pytest.raises(IntegrityError), transaction.atomic():
        Offering.objects.filter(pk=offering.pk).update(nvlink_domain_gpus=12)
    Offering.objects.filter(pk=offering.pk).update(nvlink_domain_gpus=0)
    Offering.objects.filter(pk=offering.pk).update(nvlink_domain_gpus=72)
    offering.refresh_from_db()
    assert offering.nvlink_domain_gpus == 72


def test_verification_reads_the_domain_through_the_adapter(world):
    world.offering.gpus_per_node = 4
    world.offering.nvlink_domain_gpus = 72
    world.offering.save()
    claims = adapters.claims(world.candidate)
    assert (claims.gpus_per_node, claims.nvlink_domain_gpus) == (4, 72)


def test_the_candidate_page_names_the_domain_in_both_languages(client, world):
    world.offering.gpus_per_node = 4
    world.offering.nvlink_domain_gpus = 72
    offering_save(offering=world.offering, by=world.users["procurement"])
    candidate_offering_adopt(candidate=world.candidate, by=world.users["procurement"])
    client.force_login(world.users["viewer"])
    page = reverse(
        "candidate-detail", kwargs={"pk": world.evaluation.pk, "candidate_pk": world.candidate.pk}
    )
    english = client.get(page, HTTP_ACCEPT_LANGUAGE="en")
    assert english.status_code == 200
    assert "one 72-GPU NVLink domain across nodes" in english.content.decode()
    chinese = client.get(page, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "跨节点的 72 GPU NVLink 域" in chinese.content.decode()
