"""Unmeasured candidates pay the scale rule in the cost (rubric v2).

DESIGN §2: up to 8 GPUs on one node containers are fine; at 16-64 GPUs bare metal's IB control
and tuning give 10-20 % efficiency. The TCO divides by an efficiency: the delivery form's scale
rule times the throughput the job's collectives leave (scoring.collectives), measured or
assumed, so the scale rule reaches the cost of an untested virtualised offer too.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring import api
from scoring.collectives import collectives
from scoring.rubric import load_rubric
from scoring.tco import compute_tco, effective_price_ratio, efficiency_for, pending_tcos
from scoring.types import MeasuredFacts, Price
from tests.scoring.scoring_factories import candidate, evaluation, offering

RUBRIC = load_rubric("2")
BARE_METAL_ASSUMED = RUBRIC.v2.form("bare_metal").assumed_busbw_fraction
# 7.5 % cheaper per GPU than the factories' bare metal (20.00 hourly, 12000.00 monthly).
CHEAPER = (Price("hourly", Decimal("18.50")), Price("monthly", Decimal("11100.00")))


def _pair(gpus: int):
    per_node = 1 if gpus == 1 else 8
    nodes = max(1, gpus // per_node)
    bare = candidate(1, node_count=nodes, offering=offering(gpus_per_node=per_node))
    shared = candidate(
        2,
        node_count=nodes,
        offering=offering(gpus_per_node=per_node, delivery_form="container", prices=CHEAPER),
    )
    return bare, shared, evaluation(required_total_gpus=gpus)


def test_an_unmeasured_container_at_64_gpus_pays_the_scale_rule_on_its_throughput():
    bare, shared, spec = _pair(64)
    scale = RUBRIC.scale.efficiency("container", 64, spec.workload_profile)
    assert scale < 0.9  # the rubric's scale rule: 10-20 % lost at 16-64 GPUs
    efficiency, basis = efficiency_for(shared, RUBRIC, spec)
    found = collectives(shared, spec, RUBRIC, "container")
    assert basis == found.basis == "assumed"
    assert found.scale == scale and found.throughput < 1.0
    assert efficiency == Decimal(repr(scale * found.throughput)).quantize(Decimal("0.0001"))
    # Bare metal (scale rule 1.0) keeps its throughput alone.
    bare_found = collectives(bare, spec, RUBRIC, "bare_metal")
    assert efficiency_for(bare, RUBRIC, spec) == (
        Decimal(repr(bare_found.throughput)).quantize(Decimal("0.0001")),
        "assumed",
    )
    assert efficiency < efficiency_for(bare, RUBRIC, spec)[0] * Decimal("0.9")


@pytest.mark.parametrize("gpus", [1, 8])
def test_up_to_one_node_a_container_loses_at_most_its_overhead_and_collectives(gpus):
    bare, shared, spec = _pair(gpus)
    efficiency, basis = efficiency_for(shared, RUBRIC, spec)
    assert basis == "assumed"
    # DESIGN §2: up to 8 GPUs containers are fine: within a few percent of bare metal.
    assert efficiency_for(bare, RUBRIC, spec)[0] - efficiency <= Decimal("0.05")
    if gpus == 1:  # one GPU runs no collective: only the virtualisation overhead counts
        scale = RUBRIC.scale.efficiency("container", 1, spec.workload_profile)
        assert efficiency == Decimal(repr(scale)).quantize(Decimal("0.0001"))


def test_a_cheaper_untested_container_no_longer_wins_the_cost_at_64_gpus_but_still_at_8():
    for gpus, container_cheaper in ((8, True), (64, False)):
        bare, shared, spec = _pair(gpus)
        bare_tco = api.score_candidate(bare, spec, rubric_version="2").tco
        shared_tco = api.score_candidate(shared, spec, rubric_version="2").tco
        cheaper = shared_tco.cost_per_effective_gpu_hour < bare_tco.cost_per_effective_gpu_hour
        assert cheaper is container_cheaper, gpus


def test_a_measurement_at_the_bare_metal_assumption_never_lowers_a_containers_efficiency():
    _bare, shared, spec = _pair(64)
    unmeasured, _ = efficiency_for(shared, RUBRIC, spec)
    for fraction in (BARE_METAL_ASSUMED, 0.8, 0.95, 1.2):
        measured = shared.__class__(
            **{**shared.__dict__, "measured": MeasuredFacts(busbw_fraction=fraction)}
        )
        efficiency, basis = efficiency_for(measured, RUBRIC, spec)
        assert efficiency >= unmeasured, fraction
        assert basis == "measured"


def test_the_float_figures_of_a_batch_match_the_exact_tco():
    # From FLOAT_MIN_CANDIDATES on the ranking reads float columns: the same price ratio.
    spec = evaluation(required_total_gpus=64)
    batch = []
    for index in range(60):
        form = ("container", "vgpu", "passthrough_vm", "bare_metal")[index % 4]
        batch.append(
            candidate(
                index + 1,
                node_count=(8, 4, 2)[index % 3],
                offering=offering(delivery_form=form, prices=CHEAPER),
            )
        )
    floats = pending_tcos(batch, spec, RUBRIC, floats=True)
    for item, pending in zip(batch, floats, strict=True):
        exact = compute_tco(item, spec, RUBRIC)
        model = item.offering.gpu_model
        assert pending.effective_price_ratio == effective_price_ratio(exact, model, RUBRIC)
    assert {p.resolve().efficiency_basis for p in floats} == {"assumed"}
