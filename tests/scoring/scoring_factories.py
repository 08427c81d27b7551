"""Builders and hypothesis strategies for the scoring-core tests (no Django)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from scoring.types import (
    CHECKLIST_KEYS,
    DATA_WIPE_POLICIES,
    DELIVERY_FORMS,
    FABRICS,
    ITEM_STATUSES,
    NETWORK_ISOLATIONS,
    NVLINK_TOPOLOGIES,
    SUPPORT_TIERS,
    CandidateInput,
    EvaluationSpec,
    MeasuredFacts,
    OfferingFacts,
    Price,
    VendorFacts,
)
from scoring.verification import Claims


def offering(**changes: Any) -> OfferingFacts:
    """An 8xH100 bare-metal node on NDR InfiniBand with hourly and monthly prices in CNY."""
    base = OfferingFacts(
        delivery_form="bare_metal",
        gpu_model="NVIDIA H100 SXM5 80GB",
        gpus_per_node=8,
        gpu_memory_gib=80,
        currency="CNY",
        prices=(Price("hourly", Decimal("20.00")), Price("monthly", Decimal("12000.00"))),
        gpu_form_factor="sxm",
        nvlink_topology="full_mesh",
        fabric="infiniband",
        fabric_rate_gbit_s=400,
        nics_per_node=8,
        oversubscription_ratio=Decimal(1),
        cross_rack_latency_us=Decimal("1.5"),
        nvme_capacity_tib=Decimal("15.36"),
        nvme_read_gbyte_s=Decimal("6.8"),
        nvme_write_gbyte_s=Decimal("4.0"),
        distributed_fs="Lustre",
        distributed_fs_bandwidth_gbyte_s=Decimal(40),
        data_preloading=True,
        nccl_tuning_control=True,
        monitors_pcie_errors=True,
        monitors_ecc=True,
        monitors_thermal=True,
        oob_management=True,
        encryption_at_rest=True,
        encryption_in_transit=True,
        mfa=True,
        audit_logs=True,
        network_isolation="vxlan",
        data_wipe_policy="certified",
        storage_cost_month=Decimal("3000.00"),
        support_cost_month=Decimal("1000.00"),
        setup_days=1,
        sla_availability_pct=Decimal("99.9"),
        sla_response_time_min=30,
        sla_credit_pct=Decimal(10),
        hardware_replacement_hours=24,
        support_24x7=True,
        support_tier="dedicated_team",
        poc_window_days=7,
    )
    return replace(base, **changes)


def candidate(candidate_id: int = 1, **changes: Any) -> CandidateInput:
    """A candidate of two offering() nodes; keyword arguments replace its fields."""
    base = CandidateInput(
        candidate_id=candidate_id,
        label=f"candidate {candidate_id}",
        vendor=VendorFacts(name="Vendor A", mlps_level=3, xinchuang=False, iso27001=True),
        offering=offering(),
        node_count=2,
        answers={},
        measured=MeasuredFacts(),
    )
    return replace(base, **changes)


def fleet_claims(node_count: int, **changes: Any) -> Claims:
    """What verification checks of ``node_count`` 8 x H100 SXM nodes on 8 x 400 Gb/s
    InfiniBand; keyword arguments replace its fields."""
    base = Claims(
        gpu_model="NVIDIA H100 80GB HBM3",
        gpus_per_node=8,
        gpu_memory_gib=80,
        gpu_form_factor="sxm",
        nvlink_topology="full_mesh",
        fabric="infiniband",
        fabric_rate_gbit_s=400,
        nics_per_node=8,
        node_count=node_count,
    )
    return replace(base, **changes)


def evaluation(**changes: Any) -> EvaluationSpec:
    """Pre-training on 16 GPUs for 90 days with 10 idle days and no must-haves beyond GPUs."""
    base = EvaluationSpec(
        workload_profile="pretraining",
        required_total_gpus=16,
        required_gpu_memory_gib=80,
        duration_days=90,
        expected_idle_days=10,
    )
    return replace(base, **changes)


def _decimals(low: int, high: int, places: int = 2) -> st.SearchStrategy[Decimal]:
    scale = 10**places
    return st.integers(low * scale, high * scale).map(lambda v: Decimal(v) / scale)


def _optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


prices_strategy = st.dictionaries(
    st.sampled_from(("hourly", "spot", "monthly", "yearly")),
    _decimals(1, 200_000),
    min_size=1,
).map(lambda d: tuple(Price(m, p) for m, p in d.items()))

offerings = st.builds(
    OfferingFacts,
    delivery_form=st.sampled_from(DELIVERY_FORMS),
    gpu_model=st.sampled_from(("NVIDIA H100 SXM5 80GB", "A100-SXM4-80GB", "L40S", "Unknown X")),
    gpus_per_node=st.sampled_from((1, 2, 4, 8)),
    gpu_memory_gib=st.sampled_from((24, 48, 80, 96)),
    gpu_form_factor=st.sampled_from(("sxm", "pcie", "other")),
    currency=st.just("CNY"),
    prices=prices_strategy,
    nvlink_topology=st.sampled_from(NVLINK_TOPOLOGIES),
    fabric=st.sampled_from(FABRICS),
    fabric_rate_gbit_s=st.sampled_from((0, 25, 100, 200, 400)),
    nics_per_node=st.integers(0, 8),
    oversubscription_ratio=_optional(_decimals(1, 4, 1)),
    cross_rack_latency_us=_optional(_decimals(0, 20, 1)),
    nvme_capacity_tib=_decimals(0, 40),
    nvme_read_gbyte_s=_optional(_decimals(0, 15)),
    nvme_write_gbyte_s=_optional(_decimals(0, 15)),
    distributed_fs=st.sampled_from(("", "Lustre", "GPFS")),
    distributed_fs_bandwidth_gbyte_s=_optional(_decimals(0, 100)),
    data_preloading=st.booleans(),
    nccl_tuning_control=st.booleans(),
    monitors_pcie_errors=st.booleans(),
    monitors_ecc=st.booleans(),
    encryption_at_rest=st.booleans(),
    mfa=st.booleans(),
    network_isolation=st.sampled_from(NETWORK_ISOLATIONS),
    data_wipe_policy=st.sampled_from(DATA_WIPE_POLICIES),
    spot_preemption_risk_pct=_decimals(0, 50),
    storage_cost_month=_decimals(0, 10_000),
    network_egress_cost_month=_decimals(0, 10_000),
    support_cost_month=_decimals(0, 10_000),
    licence_cost_gpu_month=_decimals(0, 500),
    setup_fee=_decimals(0, 10_000),
    setup_days=st.integers(0, 5),
    sla_availability_pct=_optional(_decimals(95, 100)),
    # No credit (0, as an unstated one reads) leaves the availability SLA unbacked.
    sla_credit_pct=st.sampled_from((Decimal(0), Decimal("0.00"), Decimal(5), Decimal(25))),
    sla_response_time_min=_optional(st.integers(0, 600)),
    hardware_replacement_hours=_optional(st.integers(0, 100)),
    support_24x7=st.booleans(),
    support_tier=_optional(st.sampled_from(SUPPORT_TIERS)),
    poc_window_days=st.integers(0, 30),
)

fractions = st.floats(0.0, 1.3, allow_nan=False)

measured_facts = st.builds(
    MeasuredFacts,
    busbw_fraction=_optional(fractions),
    ecc_uncorrected=_optional(st.integers(0, 5)),
    remapped_rows_pending=_optional(st.integers(0, 3)),
    remapped_rows_failure=_optional(st.integers(0, 3)),
    xid_errors=_optional(st.integers(0, 5)),
    dcgm_overall=_optional(st.sampled_from(("pass", "warn", "fail", "skip"))),
    dcgm_failed_tests=_optional(st.lists(st.sampled_from(("memtest", "pcie")), max_size=2)),
    dcgm_stress_tested=_optional(st.booleans()),
    nvme_read_mbyte_s=_optional(st.floats(0, 20000)),
    nvme_write_mbyte_s=_optional(st.floats(0, 20000)),
    ib_ports_down=_optional(st.integers(0, 4)),
    ib_rails_min=_optional(st.integers(0, 8)),
    ib_rate_gbit_s_min=_optional(st.sampled_from((100.0, 200.0, 400.0))),
    nvlink_topology=_optional(st.sampled_from(NVLINK_TOPOLOGIES)),
    bare_metal_verdict=_optional(st.sampled_from(("bare_metal", "virtualised", "uncertain"))),
    bare_metal_confidence=_optional(st.floats(0, 1)),
    delivery_form_seen=_optional(st.sampled_from((*DELIVERY_FORMS, "virtualised"))),
    evidence_refs=st.dictionaries(
        st.sampled_from(
            (
                "busbw_fraction",
                "xid_errors",
                "fabric",
                "sla",
                "bare_metal_verdict",
                "nvlink_topology",
            )
        ),
        st.sampled_from(("upload 1 · nccl line 57", "upload 2 · ibstat line 3")),
        max_size=3,
    ),
)

answer_maps = st.dictionaries(st.sampled_from(CHECKLIST_KEYS), st.sampled_from(ITEM_STATUSES))
# Document reviews that still apply (CandidateInput.reviews): the fabric's is the only one the
# rubric reads apart from the answers (its switch-topology claims).
review_maps = st.dictionaries(
    st.sampled_from(("fabric", "sla")), st.sampled_from(("verified", "contradicted")), max_size=2
)

vendors = st.builds(
    VendorFacts,
    name=st.just("V"),
    mlps_level=st.integers(0, 4),
    xinchuang=st.booleans(),
    iso27001=st.booleans(),
)


@st.composite
def candidates(draw: st.DrawFn, candidate_id: int | None = None) -> CandidateInput:
    return CandidateInput(
        candidate_id=draw(st.integers(1, 10_000)) if candidate_id is None else candidate_id,
        label="c",
        vendor=draw(vendors),
        offering=draw(offerings),
        node_count=draw(st.integers(1, 32)),
        answers=draw(answer_maps),
        measured=draw(measured_facts),
        reviews=draw(review_maps),
    )


@st.composite
def candidate_lists(draw: st.DrawFn, min_size: int = 1, max_size: int = 6) -> list[CandidateInput]:
    ids = draw(st.lists(st.integers(1, 1000), min_size=min_size, max_size=max_size, unique=True))
    return [draw(candidates(candidate_id=i)) for i in ids]


evaluations = st.builds(
    EvaluationSpec,
    workload_profile=st.sampled_from(("pretraining", "finetuning", "inference", "development")),
    required_total_gpus=st.sampled_from((1, 8, 16, 64, 128)),
    required_gpu_memory_gib=st.sampled_from((0, 48, 80)),
    duration_days=st.just(60),
    expected_idle_days=st.integers(0, 60),
    budget_total=_optional(_decimals(0, 5_000_000)),
    required_mlps_level=st.integers(0, 3),
    require_xinchuang=st.booleans(),
    min_busbw_fraction=_optional(st.sampled_from((Decimal("0.7"), Decimal("0.8")))),
)
