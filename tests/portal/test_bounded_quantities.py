"""Quantities a person types are bounded far beyond any real rental (10^6 GPUs, ten years,
10^5 nodes, 10 TiB of GPU memory): a slip of the keyboard such as 9.2e18 days is refused with
a clear message on the page and in the API, instead of a TCO of 10^23 (SQLite stores 64-bit
integers, so the database's range alone does not stop it)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from portal.models import Candidate, Evaluation, Offering

from .test_procurement_pages import evaluation_data

pytestmark = pytest.mark.django_db
HUGE = "9200000000000000000"


@pytest.fixture
def procurement(client, members):
    client.force_login(members["procurement"])
    return client


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("required_total_gpus", HUGE),
        ("required_total_gpus", "1000001"),
        ("duration_days", HUGE),
        ("duration_days", "3654"),
        ("required_gpu_memory_gib", "10001"),
    ],
)
def test_the_requirements_page_refuses_a_runaway_quantity(procurement, evaluation, field, value):
    url = reverse("evaluation-edit", args=[evaluation.pk])
    before = Evaluation.objects.filter(pk=evaluation.pk).values().get()
    response = procurement.post(url, evaluation_data(status="open", **{field: value}))
    assert response.status_code == 422
    assert "Ensure this value is less than or equal to" in response.content.decode()
    assert Evaluation.objects.filter(pk=evaluation.pk).values().get() == before


@pytest.mark.parametrize(
    ("field", "value"), [("duration_days", int(HUGE)), ("required_total_gpus", 10**7)]
)
def test_the_api_refuses_a_runaway_quantity(procurement, evaluation, field, value):
    before = Evaluation.objects.filter(pk=evaluation.pk).values().get()
    response = procurement.patch(
        f"/api/v1/evaluations/{evaluation.pk}/", {field: value}, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert Evaluation.objects.filter(pk=evaluation.pk).values().get() == before


def test_a_candidate_s_node_count_and_an_offering_s_memory_are_bounded(
    procurement, evaluation, candidate, offering
):
    response = procurement.patch(
        f"/api/v1/evaluations/{evaluation.pk}/candidates/{candidate.pk}/",
        {"node_count": 100_001},
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert Candidate.objects.get(pk=candidate.pk).node_count == candidate.node_count
    procurement.force_login(get_user_model().objects.create_superuser("root", "", "x"))
    response = procurement.patch(
        f"/api/v1/offerings/{offering.pk}/",
        {"gpu_memory_gib": 10_001},
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert Offering.objects.get(pk=offering.pk).gpu_memory_gib == offering.gpu_memory_gib
