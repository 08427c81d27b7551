"""Rubric v2 in the single-candidate ranking on a real database (issue #16 via rubric v2):
residency and ops capacity reach scoring from the evaluation, and the recommended billing
model with its reason and commitment shows on the dashboard, the ranking API and the CSV."""

import csv
import io
from decimal import Decimal

import pytest
from django.urls import reverse

from portal import selectors
from portal.models import (
    Answer,
    BillingModel,
    Candidate,
    OfferingPrice,
    Score,
    VerificationStatus,
)
from portal.services.portfolio import evaluation_portfolio_settings_set


@pytest.fixture
def priced(evaluation, offering):
    assert evaluation.rubric_version == "2"
    OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=40)
    OfferingPrice.objects.create(offering=offering, billing_model="spot", price_per_gpu=5)
    OfferingPrice.objects.create(offering=offering, billing_model="monthly", price_per_gpu=25000)
    offering.region_country, offering.region_province = "SG", ""
    offering.vendor_managed = False
    offering.save()
    # created after the edits: it pins this version of the offering
    return Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)


def _result(evaluation, candidate):
    ranking, _ = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
    return next(r for r in ranking.results if r.candidate_id == candidate.pk)


def test_residency_and_ops_capacity_reach_the_ranking(evaluation, priced, members):
    before = _result(evaluation, priced)
    assert "data_residency" not in [k.code for k in before.knockouts]
    evaluation_portfolio_settings_set(
        evaluation=evaluation,
        by=members["procurement"],
        data_residency="mainland_china",
        ops_capacity="none",
        ops_staff_cost_month=Decimal("40000"),
    )
    evaluation.refresh_from_db()
    after = _result(evaluation, priced)
    knockout = next(k for k in after.knockouts if k.code == "data_residency")
    assert "SG" in knockout.reason_en and "中国大陆" in knockout.reason_zh
    ops = after.tco.model(after.tco.recommended).component("operations")
    assert ops == (Decimal("40000") * Decimal(30 * 12) / Decimal(365)).quantize(Decimal("0.01"))
    assert after.tco.recommended_total == before.tco.recommended_total + ops
    # the cached ranking follows the settings (its fingerprint covers the evaluation's fields)
    assert selectors.evaluation_ranking(evaluation=evaluation)[0].results[0].knockouts


def test_recommended_model_on_dashboard_api_and_csv(client, evaluation, priced, members):
    client.force_login(members["viewer"])
    tco = _result(evaluation, priced).tco
    # a 30-day pre-training: spot is cheapest but cannot be recommended
    assert tco.cheapest == "spot" and tco.recommended != "spot"
    page = client.get(reverse("evaluation-detail", args=[evaluation.pk])).content.decode()
    assert 'class="recommended"' in page and "cannot be interrupted" in page
    api = client.get(f"/api/v1/evaluations/{evaluation.pk}/ranking/").json()
    summary = next(r for r in api["results"] if r["candidate"] == priced.pk)["tco"]
    assert summary["recommended_billing_model"] == tco.recommended
    assert summary["cheapest_billing_model"] == "spot"
    assert "cannot be interrupted" in summary["recommended_reason_en"]
    assert "不可中断" in summary["recommended_reason_zh"]
    assert summary["commitment"] == "0.00"
    # the effective GPU-hour's availability and efficiency are shown with their basis
    assert (summary["availability"], summary["availability_basis"]) == (
        str(tco.availability),
        tco.availability_basis,
    )
    assert summary["availability_basis"] in ("stated", "verified", "unanswered", "contradicted")
    assert summary["efficiency_basis"] == tco.efficiency_basis
    export = client.get(reverse("evaluation-export", args=[evaluation.pk, "csv"]))
    rows = list(csv.reader(io.StringIO(export.content.decode("utf-8-sig"))))
    header = rows[0]
    index = header.index("Recommended billing model")
    assert rows[1][index] == str(dict(BillingModel.choices)[tco.recommended])
    assert "cannot be interrupted" in rows[1][header.index("Why recommended")]
    assert Decimal(rows[1][header.index("Commitment")]) == 0
    chart = client.get(reverse("evaluation-detail", args=[evaluation.pk])).content.decode()
    assert "✓" in chart


def test_demo_a100_candidates_two_node_run_is_another_variants_and_set_aside(demo):
    """Demo evaluation 1: the A100 candidate's second node folder holds a real two-node run
    whose device lines name A100-SXM4-40GB cards, not the A100-SXM4-80GB the offering claims
    (as does its first node's one-node run): both are set aside as foreign (never judged, no
    fraction), so the interconnect stays unmeasured and the candidate stays disqualified for
    that reason."""
    from portal.models import Evaluation

    evaluation = Evaluation.objects.get(pk=1)
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
    a100 = next(r for r in ranking.results if r.candidate_id == 2)
    assert candidates[2].answer_statuses["fabric"] == "verified"
    assert [k.code for k in a100.knockouts] == ["busbw_unmeasured"]
    # Before: "no measured bus bandwidth yet; ...", as if nothing had been run.
    assert a100.knockouts[0].reason_en.startswith(
        "no usable measured bus bandwidth: 2 nccl-tests all_reduce run(s) uploaded were set "
        "aside (on other GPUs than claimed, more nodes than the candidate has, or above what "
        "the declared hardware can reach; the bus bandwidth verification names each); "
    )
    assert a100.knockouts[0].reason_zh.startswith(
        "没有可用的实测总线带宽：已上传的 2 个 nccl-tests all_reduce 结果被剔除"
    )
    verification = Candidate.objects.get(pk=2).verification
    assert verification["measured"]["busbw_fraction"] is None
    # Both node folders' runs (node-07's one-node run too) are on 40 GB cards.
    node_07, node_08 = sorted(verification["busbw"]["details"]["foreign_runs"])
    assert node_07.startswith("a100-node-07") and node_08.startswith("a100-node-08")
    assert node_07.endswith(
        "ran on NVIDIA A100-SXM4-40GB, not the claimed NVIDIA A100-SXM4-80GB (40 GB, not 80 GB)"
        ", on host(s) inst-lscuv-ao-ub24, not node a100-node-07"
    )
    assert node_08.endswith(
        "ran on A100-SXM4-40GB, not the claimed NVIDIA A100-SXM4-80GB (40 GB, not 80 GB), on "
        "host(s) nccl-tests-efa-worker-0, nccl-tests-efa-worker-1, not node a100-node-08"
    )
    assert verification["measured"]["nvlink_busbw_fraction"] is None
    assert len(ranking.qualified) == 1
    # Item 1 no longer reads nvidia-smi alone: the runs on 40 GB cards of other hosts filed
    # under the candidate's nodes leave it unverifiable (it was "verified"), and say why: the
    # answer stays a claim.
    assert verification["items"]["gpu_match"]["status"] == "unverifiable"
    gpu_match = Answer.objects.get(candidate_id=2, item__key="gpu_match")
    assert gpu_match.status == VerificationStatus.CLAIMED
    assert "ran on host(s) inst-lscuv-ao-ub24, not on node a100-node-07" in (
        gpu_match.verification_note
    )
    assert verification["items"]["gpu_match"]["evidence_ref"] == (
        "a100-node-07: all_reduce_perf.txt (upload 2)"
    )
    # Upload 2 was measured in 2023 and evaluation 1 sets no maximum age: the verdicts say so.
    items = verification["items"]
    for key in ("gpu_match", "nvlink_topology", "fabric"):
        assert (
            "Evidence measured on 2023-06-07 (upload 2); the evaluation sets no maximum "
            in (items[key]["explanation_en"])
        )
        assert (
            "证据测量于 2023-06-07（上传 2）；该评估未设定证据最长有效期"
            in (items[key]["explanation_zh"])
        )
    # The fabric item, the network rules and the cost model read the same ibstat: the four
    # ConnectX-6 Dx 100 GbE front-end ports are no compute rails (they were read as the
    # slowest rail, 4 x 100 Gb/s per node, 50 Gb/s per GPU).
    assert verification["measured"]["ib_rate_gbit_s_min"] == 400.0
    assert verification["measured"]["ib_rails_min"] == 4
    assert (
        "The network rules count 4 rail(s) (at most the 4 claimed) at the slowest rail's rate: "
        "4 × 400 Gb/s per node, 200 Gb/s per GPU. The cost model counts the same rails at the "
        "claimed 200 Gb/s (4 × 200 Gb/s per node)"
    ) in items["fabric"]["explanation_en"]
    per_gpu = next(
        c
        for s in Score.objects.filter(candidate_id=2, dimension="network")
        for c in s.contributions
        if c["rule_id"] == "network.fabric.gbit_s_per_gpu"
    )
    assert per_gpu["inputs"]["derived.measured_fabric_gbit_s_per_gpu"] == 200.0
