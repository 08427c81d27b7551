"""Checklist item 1: the GPU models an evaluation accepts (expert review F3).

A pre-training buyer may rule out inference parts: an H20 priced low against its own
reference could otherwise lead a pre-training ranking. The evaluation names the accepted
models (any spelling the portal recognises: "H100", "NVIDIA H200 SXM", "B200"); other models
are disqualified with a knockout that says why, in English and Chinese. An unknown model is
refused at its field, on the page and in the API, and nothing is saved.
"""

from __future__ import annotations

from django.urls import reverse
from rest_framework.test import APIClient

from portal.models import Candidate, Evaluation, OfferingPrice

from .conftest import small_offering
from .test_procurement_pages import evaluation_data, field_errors


def test_a_procurement_user_names_the_accepted_models_and_others_are_disqualified(
    client, members, vendor
):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("evaluation-create"),
        evaluation_data(accepted_gpu_models="H100, NVIDIA H200 SXM"),
    )
    assert response.status_code == 302
    evaluation = Evaluation.objects.get(name="Fine-tune on 16 GPUs")
    assert evaluation.accepted_gpu_models == "H100, NVIDIA H200 SXM"
    page = client.get(reverse("evaluation-detail", args=[evaluation.pk])).text
    assert "Accepted GPU models" in page and "H100, NVIDIA H200 SXM" in page

    h100 = small_offering(
        vendor, name="H100 nodes", gpu_model="NVIDIA H100 SXM5 80GB", gpu_memory_gib=80
    )
    h20 = small_offering(vendor, name="H20 nodes", gpu_model="NVIDIA H20 96GB", gpu_memory_gib=96)
    for offering in (h100, h20):
        OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=10)
    kept = Candidate.objects.create(evaluation=evaluation, offering=h100, node_count=2)
    ruled_out = Candidate.objects.create(evaluation=evaluation, offering=h20, node_count=2)
    ranking = client.get(f"/api/v1/evaluations/{evaluation.pk}/ranking/").json()
    by_id = {row["candidate"]: row for row in ranking["results"]}
    assert not any(k["code"] == "gpu_model" for k in by_id[kept.pk]["knockouts"])
    (knockout,) = [k for k in by_id[ruled_out.pk]["knockouts"] if k["code"] == "gpu_model"]
    assert "accepts only H100, H200" in knockout["reason_en"]
    assert "评估仅接受 H100、H200" in knockout["reason_zh"]


def test_an_unknown_model_is_refused_at_its_field_and_nothing_is_saved(client, members):
    client.force_login(members["procurement"])
    before = Evaluation.objects.count()
    response = client.post(
        reverse("evaluation-create"), evaluation_data(accepted_gpu_models="H100, MI300X")
    )
    assert response.status_code == 422
    errors = field_errors(response, "id_accepted_gpu_models")
    assert "MI300X" in errors
    assert Evaluation.objects.count() == before
    client.cookies["django_language"] = "zh-hans"
    response = client.post(
        reverse("evaluation-create"),
        evaluation_data(accepted_gpu_models="MI300X"),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert "未知的 GPU 型号" in response.text


def test_the_api_refuses_an_unknown_model(members, evaluation):
    api = APIClient()
    api.force_authenticate(members["procurement"])
    url = f"/api/v1/evaluations/{evaluation.pk}/"
    version = api.get(url).json()["version"]
    response = api.patch(url, {"accepted_gpu_models": "Z9000", "version": version}, format="json")
    assert response.status_code == 400
    assert "accepted_gpu_models" in str(response.json())
    evaluation.refresh_from_db()
    assert evaluation.accepted_gpu_models == ""
    ok = api.patch(url, {"accepted_gpu_models": "B200", "version": version}, format="json")
    assert ok.status_code == 200, ok.json()
    evaluation.refresh_from_db()
    assert evaluation.accepted_gpu_models == "B200"
