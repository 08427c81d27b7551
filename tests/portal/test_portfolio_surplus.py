"""A portfolio workload is scored against its own GPUs, not the whole nodes they round up to
(expert review F2): the surplus GPUs of the last node are paid but add no useful work."""

import pytest

from portal.models import Candidate, OfferingPrice
from portal.services.portfolio import portfolio_propose, workload_create

pytestmark = pytest.mark.django_db


def test_a_workload_rounded_up_to_whole_nodes_pays_for_its_surplus(evaluation, offering):
    OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=12)
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    # Both workloads get 2 nodes of 8 GPUs: one uses all 16, the other 12 of them.
    for name, gpus in (("exact", 16), ("surplus", 12)):
        workload_create(
            evaluation=evaluation, name=name, profile="inference", gpus=gpus, duration_days=30
        )
    proposal = portfolio_propose(evaluation=evaluation)
    options = {o.workload: o for o in proposal.options if o.candidate == str(candidate.pk)}
    exact, surplus = options["exact"], options["surplus"]
    # The same money for the same 16 delivered GPUs...
    assert dict(exact.tco_by_model) == dict(surplus.tco_by_model)
    # ...buys 12 useful GPUs instead of 16: a lower cost score, so a lower option score.
    assert surplus.score < exact.score


def test_the_ranking_api_names_the_surplus_and_the_useful_gpus(
    client, evaluation, offering, members
):
    OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=12)
    # 16 GPUs required, 3 nodes of 8 delivered.
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=3)
    client.force_login(members["viewer"])
    api = client.get(f"/api/v1/evaluations/{evaluation.pk}/ranking/").json()
    tco = next(r for r in api["results"] if r["candidate"] == candidate.pk)["tco"]
    assert (tco["gpu_equivalents"], tco["useful_gpu_equivalents"]) == ("24", "16")
    lines = {item["code"]: item for item in tco["assumptions"]}
    assert {"collectives", "surplus_gpus"} <= set(lines)  # the collectives are always stated
    line = lines["surplus_gpus"]
    assert "16 GPUs required, not the 24 delivered" in line["en"]
    assert "16" in line["zh"] and "24" in line["zh"]
