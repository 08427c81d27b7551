"""The FACTS table: every fact a rubric may read by name, with its basis, evidence
references and fetchers (FactSource), built from the fact types' fields and the functions of
values, per_gpu and columns; FACT_NAMES and fact_value."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ...tco import budget_ratio, effective_price_ratio
from ...types import CHECKLIST_KEYS, MeasuredFacts, OfferingFacts, VendorFacts
from .columns import (
    DERIVED_COLUMNS,
    _answer_column,
    _budget_ratio_column,
    _dcgm_failed_count_column,
    _dcgm_result_column,
    _delivery_form_column,
    _effective_price_ratio_column,
    _elasticity_fit_column,
    _has_distributed_fs_column,
    _nvlink_topology_column,
    _rounded_column,
    _scale_efficiency_column,
)
from .context import ANSWER, CLAIMED, COMPUTED, MEASURED, FactContext, FactSource
from .items import delivery_form_status
from .per_gpu import (
    _claimed_nics_at_measured_rate,
    _claimed_nics_at_measured_rate_column,
    _dfs_gbyte_s_per_gpu,
    _dfs_gbyte_s_per_gpu_column,
    _fabric_gbit_s_per_gpu,
    _fabric_gbit_s_per_gpu_column,
    _gpu_to_gpu_traffic,
    _gpu_to_gpu_traffic_column,
    _inter_node_traffic,
    _inter_node_traffic_column,
    _measured_fabric_gbit_s_per_gpu,
    _measured_fabric_gbit_s_per_gpu_column,
    _measured_nvme_read_gbyte_s_per_gpu,
    _measured_nvme_write_gbyte_s_per_gpu,
    _measured_per_gpu_column,
    _measured_rails_per_gpu,
    _measured_rails_per_gpu_column,
    _nvlink_reference,
    _nvlink_reference_column,
    _nvme_capacity_tib_per_gpu,
    _nvme_read_gbyte_s_per_gpu,
    _nvme_write_gbyte_s_per_gpu,
    _per_gpu_column,
    _rails_per_gpu,
    _rails_per_gpu_column,
)
from .values import (
    _answer,
    _busbw_fraction,
    _dcgm_failed_count,
    _dcgm_result_fact,
    _delivery_form,
    _elasticity_fit,
    _has_distributed_fs,
    _nvlink_topology,
    _nvme_read,
    _nvme_write,
    _owner_fetch,
    _scale_efficiency,
)

# The evidence references of the facts the delivery-form check derives.
_FORM_REFS = ("delivery_form_seen", "bare_metal_verdict")


def _build_facts() -> dict[str, FactSource]:
    facts: dict[str, FactSource] = {}
    for f in fields(VendorFacts):
        if f.name != "name":
            facts[f"vendor.{f.name}"] = FactSource(
                _owner_fetch("vendor", f.name), CLAIMED, field=("vendor", f.name)
            )
    for f in fields(OfferingFacts):
        if f.name not in ("prices", "currency", "gpu_model", "region"):
            facts[f"offering.{f.name}"] = FactSource(
                _owner_fetch("offering", f.name),
                CLAIMED,
                exact_text="Decimal" in str(f.type),
                field=("offering", f.name),
            )
    for f in fields(MeasuredFacts):
        # busbw_runs_set_aside words a must-have's reason; no rule scores it.
        if f.name not in (
            "evidence_refs",
            "dcgm_failed_tests",
            "bare_metal_confidence",
            "busbw_runs_set_aside",
        ):
            facts[f"measured.{f.name}"] = FactSource(
                _owner_fetch("measured", f.name), MEASURED, (f.name,), field=("measured", f.name)
            )
    # Evidence references are recorded under MeasuredFacts field names; converted and derived
    # facts look theirs up under the fields they come from.
    facts["measured.busbw_fraction"] = FactSource(
        _busbw_fraction,
        MEASURED,
        ("busbw_fraction", "peak_busbw_gbyte_s"),
        column=_rounded_column("busbw_fraction", None, 3),
    )
    facts["measured.nvme_read_gbyte_s"] = FactSource(
        _nvme_read,
        MEASURED,
        ("nvme_read_mbyte_s",),
        column=_rounded_column("nvme_read_mbyte_s", 1000.0, 2),
    )
    facts["measured.nvme_write_gbyte_s"] = FactSource(
        _nvme_write,
        MEASURED,
        ("nvme_write_mbyte_s",),
        column=_rounded_column("nvme_write_mbyte_s", 1000.0, 2),
    )
    for key in CHECKLIST_KEYS:
        facts[f"answer.{key}"] = FactSource(
            _answer(key), ANSWER, (key,), column=_answer_column(key)
        )
    facts["derived.has_distributed_fs"] = FactSource(
        _has_distributed_fs, CLAIMED, column=_has_distributed_fs_column
    )
    facts["derived.dcgm_failed_count"] = FactSource(
        _dcgm_failed_count,
        MEASURED,
        ("dcgm_failed_tests", "dcgm_overall"),
        column=_dcgm_failed_count_column,
    )
    facts["derived.dcgm_result"] = FactSource(
        _dcgm_result_fact,
        MEASURED,
        ("dcgm_overall",),
        column=_dcgm_result_column,
    )
    facts["derived.scale_efficiency"] = FactSource(
        _scale_efficiency,
        None,
        ("delivery_form_seen", "bare_metal_verdict"),
        column=_scale_efficiency_column,
    )
    facts["derived.delivery_form"] = FactSource(
        _delivery_form,
        None,
        ("delivery_form_seen", "bare_metal_verdict"),
        column=_delivery_form_column,
    )
    facts["derived.delivery_form_status"] = FactSource(
        delivery_form_status,
        COMPUTED,
        _FORM_REFS,
        column=DERIVED_COLUMNS["delivery_form"],
    )
    facts["derived.nvlink_topology"] = FactSource(
        _nvlink_topology,
        None,
        ("nvlink_topology",),
        column=_nvlink_topology_column,
    )
    facts["derived.elasticity_fit"] = FactSource(
        _elasticity_fit,
        None,
        ("delivery_form_seen", "bare_metal_verdict"),
        column=_elasticity_fit_column,
    )
    facts["derived.inter_node_traffic"] = FactSource(
        _inter_node_traffic, COMPUTED, column=_inter_node_traffic_column
    )
    facts["derived.rails_per_gpu"] = FactSource(
        _rails_per_gpu, CLAIMED, column=_rails_per_gpu_column
    )
    facts["derived.measured_rails_per_gpu"] = FactSource(
        _measured_rails_per_gpu,
        MEASURED,
        ("ib_rails_min",),
        column=_measured_rails_per_gpu_column,
    )
    facts["derived.fabric_gbit_s_per_gpu"] = FactSource(
        _fabric_gbit_s_per_gpu, CLAIMED, column=_fabric_gbit_s_per_gpu_column
    )
    # Cited by the combined reference of the worst node's rails and the slowest rate where
    # they come from different ibstat outputs (verification.facts), else by either.
    facts["derived.measured_fabric_gbit_s_per_gpu"] = FactSource(
        _measured_fabric_gbit_s_per_gpu,
        MEASURED,
        ("ib_gbit_s_per_gpu", "ib_rails_min", "ib_rate_gbit_s_min"),
        column=_measured_fabric_gbit_s_per_gpu_column,
    )
    facts["derived.claimed_nics_at_measured_rate_gbit_s_per_gpu"] = FactSource(
        _claimed_nics_at_measured_rate, CLAIMED, column=_claimed_nics_at_measured_rate_column
    )
    facts["derived.nvme_capacity_tib_per_gpu"] = FactSource(
        _nvme_capacity_tib_per_gpu,
        CLAIMED,
        column=_per_gpu_column("offering.nvme_capacity_tib", _nvme_capacity_tib_per_gpu),
    )
    facts["derived.nvme_read_gbyte_s_per_gpu"] = FactSource(
        _nvme_read_gbyte_s_per_gpu,
        CLAIMED,
        column=_per_gpu_column("offering.nvme_read_gbyte_s", _nvme_read_gbyte_s_per_gpu),
    )
    facts["derived.nvme_write_gbyte_s_per_gpu"] = FactSource(
        _nvme_write_gbyte_s_per_gpu,
        CLAIMED,
        column=_per_gpu_column("offering.nvme_write_gbyte_s", _nvme_write_gbyte_s_per_gpu),
    )
    facts["derived.measured_nvme_read_gbyte_s_per_gpu"] = FactSource(
        _measured_nvme_read_gbyte_s_per_gpu,
        MEASURED,
        ("nvme_read_mbyte_s",),
        column=_measured_per_gpu_column("nvme_read_mbyte_s"),
    )
    facts["derived.measured_nvme_write_gbyte_s_per_gpu"] = FactSource(
        _measured_nvme_write_gbyte_s_per_gpu,
        MEASURED,
        ("nvme_write_mbyte_s",),
        column=_measured_per_gpu_column("nvme_write_mbyte_s"),
    )
    facts["derived.dfs_gbyte_s_per_gpu"] = FactSource(
        _dfs_gbyte_s_per_gpu, CLAIMED, column=_dfs_gbyte_s_per_gpu_column
    )
    facts["derived.gpu_to_gpu_traffic"] = FactSource(
        _gpu_to_gpu_traffic, COMPUTED, column=_gpu_to_gpu_traffic_column
    )
    facts["derived.nvlink_reference"] = FactSource(
        _nvlink_reference, COMPUTED, column=_nvlink_reference_column
    )
    facts["derived.budget_ratio"] = FactSource(
        lambda ctx: budget_ratio(ctx.tco, ctx.evaluation), COMPUTED, column=_budget_ratio_column
    )
    # The cost per effective GPU-hour divides by the efficiency: its contribution cites the
    # all-reduce the efficiency read where one was measured (the TCO's assumptions say the
    # rest: the basis, a partial POC, the collectives line).
    facts["derived.effective_price_ratio"] = FactSource(
        lambda ctx: effective_price_ratio(ctx.tco, ctx.offering.gpu_model, ctx.rubric),
        COMPUTED,
        ("busbw_fraction",),
        column=_effective_price_ratio_column,
    )
    return facts


FACTS: dict[str, FactSource] = _build_facts()
FACT_NAMES = frozenset(FACTS)


def may_claim(rule: Any) -> bool:
    """Whether a rule (rubric.model.Rule) reads a claim item's status: it has one and an input
    may be a claim (claimed, or of a basis that depends on the evidence)."""
    return rule.claim_item is not None and any(
        FACTS[name].basis in (CLAIMED, None) for name in rule.inputs
    )


def fact_value(name: str, ctx: FactContext) -> tuple[Any, str]:
    """The value and basis of one fact for one candidate."""
    source = FACTS[name]
    if source.basis is None:
        return source.fetch(ctx)
    return source.fetch(ctx), source.basis
