"""An NVLink topology or form factor the GPU's datasheet rules out is refused when an offering
is saved (page form and API alike), naming the datasheet fact in English or Chinese; an
offering stored before the check still ranks, its claim scored as contradicted."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict
from django.urls import reverse
from django.utils import translation

from portal.forms import OfferingForm
from portal.models import Candidate, Offering, Score
from portal.services.scores import candidate_rescore

pytestmark = pytest.mark.django_db

L40S = {"gpu_model": "NVIDIA L40S", "gpu_memory_gib": 48, "gpu_form_factor": "pcie"}
H100_PCIE = {"gpu_model": "NVIDIA H100 PCIe 80GB", "gpu_form_factor": "pcie"}


def _form(offering: Offering, **changes) -> OfferingForm:
    data = {k: v for k, v in model_to_dict(offering).items() if v is not None}
    data.update(changes)
    return OfferingForm(data=data, instance=offering)


@pytest.mark.parametrize("topology", ["full_mesh", "grouped"])
def test_nvlink_on_a_gpu_without_it_is_refused_naming_the_datasheet(offering, topology):
    form = _form(offering, **L40S, nvlink_topology=topology)
    assert not form.is_valid()
    (message,) = form.errors["nvlink_topology"]
    assert "has no NVLink" in message
    assert "NVIDIA L40S/L40/L20/L4 datasheets: no NVLink" in message


@pytest.mark.parametrize("gpu_model", ["NVIDIA H100 PCIe 80GB", "NVIDIA H100 80GB"])
def test_a_full_mesh_of_eight_bridged_pcie_cards_is_refused(offering, gpu_model):
    # A name without "PCIe" is the card of the declared form factor, as scoring reads it.
    form = _form(offering, **{**H100_PCIE, "gpu_model": gpu_model}, nvlink_topology="full_mesh")
    assert not form.is_valid()
    (message,) = form.errors["nvlink_topology"]
    assert "NVLink bridges join 2 cards" in message and "8 GPUs per node" in message


@pytest.mark.parametrize(
    "changes",
    [
        {**H100_PCIE, "nvlink_topology": "grouped"},
        {**H100_PCIE, "nvlink_topology": "full_mesh", "gpus_per_node": 2},
        {**L40S, "nvlink_topology": "none"},
        {"gpu_model": "NVIDIA H100 SXM5 80GB", "nvlink_topology": "full_mesh"},
    ],
)
def test_what_the_gpu_can_have_is_accepted(offering, changes):
    form = _form(offering, **changes)
    assert form.is_valid(), form.errors


def test_an_sxm_l40s_is_refused_naming_the_datasheet(offering):
    form = _form(offering, **{**L40S, "gpu_form_factor": "sxm"}, nvlink_topology="none")
    assert not form.is_valid()
    (message,) = form.errors["gpu_form_factor"]
    assert "made only as PCIe, not SXM" in message and "L40S/L40/L20/L4 datasheets" in message


def test_the_refusal_is_in_chinese_for_a_chinese_reader(offering):
    with translation.override("zh-hans"):
        form = _form(offering, **{**L40S, "gpu_form_factor": "sxm"}, nvlink_topology="full_mesh")
        assert not form.is_valid()
        topology = str(form.errors["nvlink_topology"][0])
        form_factor = str(form.errors["gpu_form_factor"][0])
    assert "数据手册" in topology and "没有 NVLink" in topology
    assert "数据手册" in form_factor and "只有 PCIe 版本" in form_factor


def test_the_api_refuses_it_with_the_reason(api, world):
    api.as_(world.users["procurement"])
    detail = reverse("api-offering-detail", kwargs={"pk": world.offering.pk})
    bad = api.patch(detail, {**L40S, "nvlink_topology": "full_mesh"}, format="json")
    assert bad.status_code == 400
    assert set(bad.json()) == {"nvlink_topology"}
    assert "has no NVLink" in bad.json()["nvlink_topology"][0]
    good = api.patch(detail, {**L40S, "nvlink_topology": "none"}, format="json")
    assert good.status_code == 200, good.content


def test_an_offering_stored_before_the_check_still_ranks_as_a_contradicted_claim(
    evaluation, offering
):
    # Written past the model's clean, as rows saved before the check were.
    Offering.objects.filter(pk=offering.pk).update(
        gpu_model="NVIDIA L40S", gpu_memory_gib=48, gpu_form_factor="sxm"
    )
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    candidate_rescore(candidate_id=candidate.pk)
    network = Score.objects.get(candidate=candidate, dimension="network")
    rows = {row["rule_id"]: row for row in network.contributions}
    for rule_id, item in (
        ("network.nvlink.topology", "answer.nvlink_topology_datasheet"),
        ("network.gpu.form_factor", "answer.gpu_form_factor_datasheet"),
    ):
        assert rows[rule_id]["inputs"][item] == "contradicted"
        assert rows[rule_id]["points"] < 0
        assert "datasheet" in rows[rule_id]["evidence_ref"]
