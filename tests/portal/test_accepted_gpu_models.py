"""Checklist item 1: the GPU models an evaluation accepts (expert review F3).

A pre-training buyer may rule out inference parts: an H20 priced low against its own
reference could otherwise lead a pre-training ranking. The evaluation names the accepted
models (any spelling the portal recognises: "H100", "NVIDIA H200 SXM", "B200"); other models
are disqualified with a knockout that says why, in English and Chinese. An unknown model is
refused at its field, on the page and in the API, and nothing is saved.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.test import APIClient

from portal.models import Candidate, Evaluation, Offering, OfferingPrice
from portal.services.scores import evaluation_rescore

from .conftest import small_offering
from .test_procurement_pages import evaluation_data, field_errors, offering_data, price_data


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
        reverse("evaluation-create"), evaluation_data(accepted_gpu_models="H100, Gaudi3")
    )
    assert response.status_code == 422
    errors = field_errors(response, "id_accepted_gpu_models")
    assert "Unknown GPU model: Gaudi3" in errors
    # The message lists what is accepted, the other vendors' families included.
    for family in ("H100", "B200", "910B", "910C", "MI250X", "MI300X", "MI325X"):
        assert family in errors
    assert Evaluation.objects.count() == before
    client.cookies["django_language"] = "zh-hans"
    response = client.post(
        reverse("evaluation-create"),
        evaluation_data(accepted_gpu_models="Gaudi3"),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    errors = field_errors(response, "id_accepted_gpu_models")
    assert "未知的 GPU 型号：Gaudi3" in errors
    assert "可接受的型号" in errors and "910B" in errors and "MI300X" in errors


def test_a_buyer_who_must_buy_domestic_names_ascend_and_an_ascend_offering_passes(
    client, members, vendor
):
    # Trust review: "Ascend 910B" was an unknown model, so an evaluation requiring Xinchuang
    # (信创) could not say it wants Huawei Ascend, and an Ascend offering never passed.
    client.force_login(members["procurement"])
    response = client.post(
        reverse("evaluation-create"),
        evaluation_data(accepted_gpu_models="昇腾910B、AMD Instinct MI300X"),
    )
    assert response.status_code == 302
    evaluation = Evaluation.objects.get(name="Fine-tune on 16 GPUs")
    ascend = small_offering(
        vendor,
        name="8x Ascend 910B",
        delivery_form="bare_metal",
        gpu_model="Huawei Ascend 910B",
        gpu_form_factor="other",
        gpus_per_node=8,
        gpu_memory_gib=64,
        nvlink_topology="full_mesh",
    )
    h100 = small_offering(
        vendor, name="H100 nodes", gpu_model="NVIDIA H100 SXM5 80GB", gpu_memory_gib=80
    )
    for offering in (ascend, h100):
        OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=10)
    kept = Candidate.objects.create(evaluation=evaluation, offering=ascend, node_count=2)
    ruled_out = Candidate.objects.create(evaluation=evaluation, offering=h100, node_count=2)
    ranking = client.get(f"/api/v1/evaluations/{evaluation.pk}/ranking/").json()
    by_id = {row["candidate"]: row for row in ranking["results"]}
    assert not any(k["code"] == "gpu_model" for k in by_id[kept.pk]["knockouts"])
    (knockout,) = [k for k in by_id[ruled_out.pk]["knockouts"] if k["code"] == "gpu_model"]
    assert "accepts only 910B, MI300X" in knockout["reason_en"]
    assert "评估仅接受 910B、MI300X" in knockout["reason_zh"]
    page = client.get(reverse("evaluation-detail", args=[evaluation.pk]))
    assert page.status_code == 200
    # Its evidence lines say no nccl-tests or NVLink reference exists for it (its collective
    # rules count as unmeasured, its interconnect as declared), in both languages.
    evaluation_rescore(evaluation=evaluation)
    url = reverse("candidate-detail", args=[evaluation.pk, kept.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert "no nccl-tests reference for Huawei Ascend 910B" in page.text
    assert "no NVLink reference for Huawei Ascend 910B" in page.text
    client.cookies["django_language"] = "zh-hans"
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "Huawei Ascend 910B 没有 nccl-tests 参考值" in page.text
    assert "Huawei Ascend 910B 没有 NVLink 参考数据" in page.text
    assert "no NVLink reference" not in page.text


def test_the_api_refuses_an_unknown_model(members, evaluation):
    api = APIClient()
    api.force_authenticate(members["procurement"])
    url = f"/api/v1/evaluations/{evaluation.pk}/"
    version = api.get(url).json()["version"]
    response = api.patch(url, {"accepted_gpu_models": "Z9000", "version": version}, format="json")
    assert response.status_code == 400
    assert "accepted_gpu_models" in str(response.json())
    assert "MI325X" in str(response.json())  # what is accepted
    evaluation.refresh_from_db()
    assert evaluation.accepted_gpu_models == ""
    ok = api.patch(url, {"accepted_gpu_models": "B200", "version": version}, format="json")
    assert ok.status_code == 200, ok.json()
    evaluation.refresh_from_db()
    assert evaluation.accepted_gpu_models == "B200"
    version = ok.json()["version"]
    ok = api.patch(
        url, {"accepted_gpu_models": "Ascend 910B, MI300X", "version": version}, format="json"
    )
    assert ok.status_code == 200, ok.json()
    evaluation.refresh_from_db()
    assert evaluation.accepted_gpu_models == "Ascend 910B, MI300X"


def test_an_ascend_offering_is_entered_on_the_form_and_in_the_api(client, members, vendor):
    # The datasheet checks (NVLink topology, SXM/PCIe) know nothing of the Ascend's HCCS or
    # OAM module: they must neither refuse it nor read it as an NVIDIA part without NVLink.
    client.force_login(members["procurement"])
    data = {
        **offering_data(
            vendor,
            name="8x Ascend 910B bare metal",
            delivery_form="bare_metal",
            gpu_model="Huawei Ascend 910B",
            gpu_form_factor="other",
            gpus_per_node="8",
            gpu_memory_gib="64",
            nvlink_topology="full_mesh",
        ),
        **price_data([("hourly", "12"), ("monthly", ""), ("yearly", ""), ("spot", "")]),
    }
    response = client.post(reverse("offering-create"), data)
    assert response.status_code == 302, field_errors(response, "id_gpu_model")
    ascend = Offering.objects.get(name="8x Ascend 910B bare metal")
    assert (ascend.gpu_model, ascend.nvlink_topology) == ("Huawei Ascend 910B", "full_mesh")

    api = APIClient()
    api.force_authenticate(get_user_model().objects.create_superuser("root", "", "x"))
    url = f"/api/v1/offerings/{ascend.pk}/"
    for form in ("sxm", "pcie", "other"):
        response = api.patch(
            url, {"gpu_model": "AMD Instinct MI300X", "gpu_form_factor": form}, format="json"
        )
        assert response.status_code == 200, response.json()
    ascend.refresh_from_db()
    assert ascend.gpu_model == "AMD Instinct MI300X"


def test_the_ranking_says_when_cost_scores_compare_quotes_of_different_gpu_families(
    client, members, evaluation, vendor
):
    # GPU expert review (stop 36): each cost score compares a quote with its own GPU family's
    # reference price, so an H20 cheap against an H20's price can outscore an H100 on cost
    # while giving a fraction of its compute. The page says so while the families differ, and
    # stops once the accepted GPU models rule the other family out.
    h100 = small_offering(
        vendor, name="H100 nodes", gpu_model="NVIDIA H100 SXM5 80GB", gpus_per_node=8,
        gpu_memory_gib=80,
    )  # fmt: skip
    h20 = small_offering(
        vendor, name="H20 nodes", gpu_model="NVIDIA H20 96GB", gpus_per_node=8, gpu_memory_gib=96
    )
    for offering in (h100, h20):
        OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=10)
        Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    client.force_login(members["viewer"])
    url = reverse("evaluation-detail", args=[evaluation.pk])
    page = client.get(url).text
    assert "The candidates offer different GPU families (H100, H20)" in page
    client.cookies["django_language"] = "zh-hans"
    assert "候选方案提供不同的 GPU 系列（H100、H20）" in client.get(url).text

    client.force_login(members["procurement"])
    data = evaluation_data(accepted_gpu_models="H100", status="open")
    data.update(name=evaluation.name, required_total_gpus=16, required_gpu_memory_gib=80)
    edit = client.post(reverse("evaluation-edit", args=[evaluation.pk]), data)
    assert edit.status_code == 302, edit.content[:2000]
    evaluation.refresh_from_db()
    assert evaluation.accepted_gpu_models == "H100"
    page = client.get(url).text
    assert "候选方案提供不同的 GPU 系列" not in page and "评估仅接受 H100" in page
