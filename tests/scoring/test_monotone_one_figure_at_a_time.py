"""Monotonicity, one figure at a time, on the benchmark's realistic candidates (GPU expert
review): improving one claimed or measured figure of a candidate (a faster or wider fabric,
lower oversubscription or latency, more NVMe, a higher SLA, a faster response or replacement,
a longer POC window, a lower price or extra cost, a feature offered, a higher measured
fraction or bandwidth, fewer ECC/Xid/SXid errors or ports down, a better DCGM result) never
lowers a dimension score or the total, and never adds a knockout, under rubric v2.

Stating a term that was left unstated counts as an improvement too: under a contradicted
checklist item it used to cost -50 % of the rule's maximum while leaving it unstated cost
nothing (test_contradicted_item_unstated). A measurement where there was none is not an
improvement (it may show less than assumed) and is left to test_measuring_never_hurts."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.types import CandidateInput, EvaluationSpec, Price

V2 = load_rubric("2")
Step = tuple[str, Callable[[], CandidateInput]]


def _bench_candidates(seed: int, count: int) -> list[CandidateInput]:
    path = Path(__file__).resolve().parents[2] / "bench" / "scoring.py"
    spec = importlib.util.spec_from_file_location("bench_scoring_monotone", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(seed)  # noqa: S311 - test data
    return [module.make_candidate(rng, i) for i in range(1, count + 1)]


def _offer(c: CandidateInput, **changes) -> CandidateInput:
    return replace(c, offering=replace(c.offering, **changes))


def _measure(c: CandidateInput, **changes) -> CandidateInput:
    return replace(c, measured=replace(c.measured, **changes))


def _cheaper(c: CandidateInput, index: int | None) -> CandidateInput:
    prices = tuple(
        Price(p.billing_model, (p.price_per_gpu * Decimal("0.8")).quantize(Decimal("0.01")))
        if index is None or i == index
        else p
        for i, p in enumerate(c.offering.prices)
    )
    return _offer(c, prices=prices)


def _better_offering(c: CandidateInput) -> Iterator[Step]:
    o = c.offering
    if o.fabric != "none":
        for rate in (200, 400, 800):
            if rate > o.fabric_rate_gbit_s:
                yield f"fabric_rate_gbit_s {rate}", lambda r=rate: _offer(c, fabric_rate_gbit_s=r)
        for nics in (2, 4, 8):
            if nics > o.nics_per_node:
                yield f"nics_per_node {nics}", lambda n=nics: _offer(c, nics_per_node=n)
    for ratio in (Decimal(1), Decimal("1.5")):
        if o.oversubscription_ratio is None or ratio < o.oversubscription_ratio:
            yield f"oversubscription {ratio}", lambda r=ratio: _offer(c, oversubscription_ratio=r)
    for latency in (Decimal(1), Decimal(2)):
        if o.cross_rack_latency_us is None or latency < o.cross_rack_latency_us:
            yield f"latency {latency}", lambda v=latency: _offer(c, cross_rack_latency_us=v)
    yield "nvme capacity x2", lambda: _offer(c, nvme_capacity_tib=o.nvme_capacity_tib * 2)
    for name in ("nvme_read_gbyte_s", "nvme_write_gbyte_s", "distributed_fs_bandwidth_gbyte_s"):
        value = getattr(o, name)
        yield f"{name} up", lambda n=name, v=value: _offer(c, **{n: (v or Decimal(1)) * 2})
    for pct in (Decimal("99.9"), Decimal("99.99")):
        if o.sla_availability_pct is None or pct > o.sla_availability_pct:
            yield f"sla {pct}", lambda p=pct: _offer(c, sla_availability_pct=p)
    for minutes in (5, 30):
        if o.sla_response_time_min is None or minutes < o.sla_response_time_min:
            yield f"response {minutes}", lambda m=minutes: _offer(c, sla_response_time_min=m)
    for hours in (2, 8):
        if o.hardware_replacement_hours is None or hours < o.hardware_replacement_hours:
            yield f"replacement {hours}", lambda h=hours: _offer(c, hardware_replacement_hours=h)
    for credit in (Decimal(10), Decimal(50)):
        if credit > o.sla_credit_pct:
            yield f"credit {credit}", lambda v=credit: _offer(c, sla_credit_pct=v)
    for days in (7, 30):
        if days > o.poc_window_days:
            yield f"poc window {days}", lambda d=days: _offer(c, poc_window_days=d)
    yield "every price -20 %", lambda: _cheaper(c, None)
    for index, price in enumerate(o.prices):
        yield f"{price.billing_model} price -20 %", lambda i=index: _cheaper(c, i)
    for name in (
        "storage_cost_month",
        "network_egress_cost_month",
        "support_cost_month",
        "licence_cost_gpu_month",
        "setup_fee",
    ):
        if getattr(o, name):
            yield f"{name} 0", lambda n=name: _offer(c, **{n: Decimal(0)})
    if o.setup_days:
        yield "setup_days 0", lambda: _offer(c, setup_days=0)
    for name in (
        "data_preloading",
        "oob_management",
        "custom_image",
        "nccl_tuning_control",
        "monitors_pcie_errors",
        "monitors_ecc",
        "monitors_thermal",
        "encryption_at_rest",
        "encryption_in_transit",
        "mfa",
        "audit_logs",
        "support_24x7",
    ):
        if not getattr(o, name):
            yield f"{name} offered", lambda n=name: _offer(c, **{n: True})
    if c.vendor.mlps_level < 3:
        yield "mlps level 3", lambda: replace(c, vendor=replace(c.vendor, mlps_level=3))


def _better_measured(c: CandidateInput) -> Iterator[Step]:
    m = c.measured
    for name in ("busbw_fraction", "nvlink_busbw_fraction", "host_device_fraction"):
        value = getattr(m, name)
        if value is not None:
            for better in (0.8, 0.95, 1.0):
                if better > value:
                    yield f"{name} {better}", lambda n=name, b=better: _measure(c, **{n: b})
    for name in ("nvme_read_mbyte_s", "nvme_write_mbyte_s"):
        value = getattr(m, name)
        if value:
            yield f"{name} x1.5", lambda n=name, v=value: _measure(c, **{n: v * 1.5})
    for name in ("ecc_uncorrected", "xid_errors", "sxid_errors", "ib_ports_down"):
        if getattr(m, name):
            yield f"{name} 0", lambda n=name: _measure(c, **{n: 0})
    if m.dcgm_overall == "fail":
        yield "dcgm warn", lambda: _measure(c, dcgm_overall="warn")
    if m.dcgm_overall in ("fail", "warn"):
        yield "dcgm pass", lambda: _measure(c, dcgm_overall="pass")
    if m.ib_rate_gbit_s_min is not None and m.ib_rate_gbit_s_min < 400:
        yield "ib rate 400", lambda: _measure(c, ib_rate_gbit_s_min=400.0)


def _scores(c: CandidateInput, spec: EvaluationSpec) -> tuple[dict[str, float], float, set[str]]:
    result = score_candidate(c, spec, V2)
    return (
        {d.dimension: d.score for d in result.dimensions},
        result.total,
        {k.code for k in result.knockouts},
    )


def _evaluation(profile: str) -> EvaluationSpec:
    return EvaluationSpec(
        workload_profile=profile,
        required_total_gpus=16,
        required_gpu_memory_gib=48,
        duration_days=90,
        expected_idle_days=10,
        budget_total=Decimal(1_500_000),
        min_busbw_fraction=Decimal("0.7"),
        required_mlps_level=2,
    )


@pytest.mark.parametrize("profile", ["pretraining", "inference"])
@pytest.mark.parametrize("seed", [1, 7])
def test_a_better_figure_never_lowers_a_score_or_adds_a_knockout(seed, profile):
    spec = _evaluation(profile)
    violations = []
    steps = 0
    for c in _bench_candidates(seed, 40):
        dims, total, knockouts = _scores(c, spec)
        for label, better in (*_better_offering(c), *_better_measured(c)):
            steps += 1
            new_dims, new_total, new_knockouts = _scores(better(), spec)
            lowered = [d for d in dims if new_dims[d] < dims[d] - 1e-9]
            if new_total < total - 1e-9:
                lowered.append("total")
            if new_knockouts - knockouts:
                lowered.append(f"knockouts {sorted(new_knockouts - knockouts)}")
            if lowered:
                violations.append((c.candidate_id, label, lowered))
    assert steps > 1000  # not vacuous
    assert violations == []
