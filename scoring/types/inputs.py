"""The frozen inputs of the scoring core: vendor, offering, evidence, evaluation, candidate."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from operator import attrgetter
from types import MappingProxyType
from typing import Any

from ..reference import is_gpu_family, nvlink_domain_problem
from .base import (
    BARE_METAL_VERDICTS,
    BILLING_MODELS,
    CHECKLIST_KEYS,
    CURRENCIES,
    DATA_WIPE_POLICIES,
    DCGM_RESULTS,
    DELIVERY_FORMS,
    FABRICS,
    GPU_FORM_FACTORS,
    ITEM_STATUSES,
    NETWORK_ISOLATIONS,
    NVLINK_TOPOLOGIES,
    SUPPORT_TIERS,
    WORKLOAD_PROFILES,
    Price,
    ScoringInputError,
    _bool,
    _choice,
    _float,
    _frozen_map,
    _int,
    _opt_decimal,
    _opt_int,
    _prices,
    _set,
    to_decimal,
)

# --- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class VendorFacts:
    """What a vendor states about itself: MLPS (等保) level 0..4, Xinchuang (信创), ISO 27001."""

    name: str
    mlps_level: int = 0
    xinchuang: bool = False
    iso27001: bool = False

    def __post_init__(self) -> None:
        _int(self.mlps_level, "mlps_level", 0, 4)
        _bool(self.xinchuang, "xinchuang")
        _bool(self.iso27001, "iso27001")


_OFFERING_DECIMALS_OPT = (
    "oversubscription_ratio",
    "cross_rack_latency_us",
    "nvme_read_gbyte_s",
    "nvme_write_gbyte_s",
    "distributed_fs_bandwidth_gbyte_s",
    "rtt_ms",
    "sla_availability_pct",
    "spot_preemption_risk_pct",
    "early_termination_fee",
)
_OFFERING_DECIMALS = (
    "nvme_capacity_tib",
    "storage_cost_month",
    "network_egress_cost_month",
    "support_cost_month",
    "licence_cost_gpu_month",
    "setup_fee",
    "sla_credit_pct",
)
_OFFERING_BOOLS = (
    "data_preloading",
    "oob_management",
    "root_access",
    "custom_image",
    "driver_control",
    "nccl_tuning_control",
    "monitors_pcie_errors",
    "monitors_ecc",
    "monitors_thermal",
    "encryption_at_rest",
    "encryption_in_transit",
    "mfa",
    "audit_logs",
    "support_24x7",
)

# Each group's values, as one tuple (attrgetter runs in C).
_OFFERING_BOOL_VALUES = attrgetter(*_OFFERING_BOOLS)
_OFFERING_DECIMAL_VALUES = attrgetter(*_OFFERING_DECIMALS)
_OFFERING_DECIMAL_OPT_VALUES = attrgetter(*_OFFERING_DECIMALS_OPT)


def _plain_decimal(value: Any) -> bool:
    """A value ``to_decimal(value, name, minimum=Decimal(0))`` returns as it is: a finite
    Decimal (not a subclass) of at least 0."""
    return type(value) is Decimal and value.is_finite() and value >= 0


# A MIG profile: compute slices "g" and slice memory "gb", e.g. "3g.40gb" (an optional "+me"
# media-extension suffix is accepted and ignored), optionally with the instances carved from each
# GPU in front: "2x3g.40gb" = two 3g.40gb instances per GPU (the multiplication sign and spaces
# are accepted too).
MIG_PROFILE_RE = re.compile(r"^(?:([1-9][0-9]?)\s*[x×]\s*)?([1-7])g\.([1-9][0-9]{0,3})gb(\+me)?$")


def _mig_match(profile: Any) -> re.Match[str]:
    found = MIG_PROFILE_RE.match(profile.strip().lower()) if isinstance(profile, str) else None
    if found is None:
        raise ScoringInputError(
            "a MIG profile looks like 3g.40gb (compute slices 1-7, memory in GB), optionally "
            f"with the instances per GPU in front (2x3g.40gb), got {profile!r}",
            code="mig.malformed",
            params={"profile": profile},
        )
    return found


def parse_mig_layout(profile: str) -> tuple[int | None, int, int]:
    """(instances per GPU or None when not stated, compute slices, slice memory GiB) of a MIG
    profile such as "3g.40gb" or "2x3g.40gb"; ScoringInputError when it is not one."""
    found = _mig_match(profile)
    instances = int(found.group(1)) if found.group(1) else None
    return instances, int(found.group(2)), int(found.group(3))


def parse_mig_profile(profile: str) -> tuple[int, int]:
    """(compute slices, slice memory GiB) of a MIG profile such as "3g.40gb" or "2x3g.40gb";
    ScoringInputError when it is not one."""
    _, slices, memory = parse_mig_layout(profile)
    return slices, memory


def normalise_mig_profile(profile: str) -> str:
    """The canonical spelling of a MIG profile: lower case, "2x3g.40gb" (no spaces, "x")."""
    found = _mig_match(profile)
    count = f"{found.group(1)}x" if found.group(1) else ""
    return f"{count}{found.group(2)}g.{found.group(3)}gb{found.group(4) or ''}"


@dataclass(frozen=True)
class OfferingFacts:
    """One vendor product as the vendor describes it; every field here is a claim.

    Money fields are in ``currency``; the ``*_month`` costs are totals for the whole deployment
    per month, ``licence_cost_gpu_month`` is per GPU and month, ``setup_fee`` is one-off.
    ``sla_availability_pct`` None means no availability SLA; ``support_tier`` None (or "")
    means the support question is unanswered; ``oversubscription_ratio`` None means the
    vendor did not state it (not non-blocking).
    """

    delivery_form: str
    gpu_model: str
    gpus_per_node: int
    gpu_memory_gib: int
    currency: str = "CNY"
    prices: tuple[Price, ...] = ()
    gpu_form_factor: str = "other"
    nvlink_topology: str = "none"
    fabric: str = "none"
    fabric_rate_gbit_s: int = 0
    nics_per_node: int = 0
    # None: not stated, never non-blocking (the rule's "missing" basis: 0 points).
    oversubscription_ratio: Decimal | None = None
    cross_rack_latency_us: Decimal | None = None
    nvme_capacity_tib: Decimal = Decimal(0)
    nvme_read_gbyte_s: Decimal | None = None
    nvme_write_gbyte_s: Decimal | None = None
    distributed_fs: str = ""
    distributed_fs_bandwidth_gbyte_s: Decimal | None = None
    data_preloading: bool = False
    region: str = ""
    rtt_ms: Decimal | None = None
    oob_management: bool = False
    # None: unanswered; 0 is an answer (capacity handed over at once), never "unanswered".
    provisioning_time_min: int | None = None
    root_access: bool = False
    custom_image: bool = False
    driver_control: bool = False
    nccl_tuning_control: bool = False
    logical_cpus_per_node: int | None = None
    monitors_pcie_errors: bool = False
    monitors_ecc: bool = False
    monitors_thermal: bool = False
    encryption_at_rest: bool = False
    encryption_in_transit: bool = False
    mfa: bool = False
    audit_logs: bool = False
    network_isolation: str = "none"
    data_wipe_policy: str = "none"
    spot_preemption_risk_pct: Decimal | None = None
    releasable_hourly: bool | None = None
    min_commitment_days: int = 0
    # None: no early-termination term was stated, so the rest of the commitment is paid.
    early_termination_fee: Decimal | None = None
    mig_profile: str = ""
    storage_cost_month: Decimal = Decimal(0)
    network_egress_cost_month: Decimal = Decimal(0)
    support_cost_month: Decimal = Decimal(0)
    licence_cost_gpu_month: Decimal = Decimal(0)
    setup_fee: Decimal = Decimal(0)
    setup_days: int = 0
    sla_availability_pct: Decimal | None = None
    sla_response_time_min: int | None = None
    sla_credit_pct: Decimal = Decimal(0)
    hardware_replacement_hours: int | None = None
    support_24x7: bool = False
    # None (or ""): unanswered, never the lowest tier (issue #10 §3, absent answers).
    support_tier: str | None = None
    poc_window_days: int = 0
    # Structured region (issue #16): ISO country (CN = mainland China), province or city, zone.
    region_country: str = ""
    region_province: str = ""
    region_zone: str = ""
    # A vendor-managed (platform) option is offered: bare metal then needs no buyer ops team.
    vendor_managed: bool = False
    # The GPUs joined in one NVLink domain (GB200 NVL72: 72; GH200 NVL32: 32), a multiple of
    # gpus_per_node; 0 (or None, read as 0) is the node itself.
    nvlink_domain_gpus: int = 0

    def __post_init__(self) -> None:
        _choice(self.delivery_form, DELIVERY_FORMS, "delivery_form")
        _choice(self.gpu_form_factor, GPU_FORM_FACTORS, "gpu_form_factor")
        _choice(self.nvlink_topology, NVLINK_TOPOLOGIES, "nvlink_topology")
        _choice(self.fabric, FABRICS, "fabric")
        _choice(self.network_isolation, NETWORK_ISOLATIONS, "network_isolation")
        _choice(self.data_wipe_policy, DATA_WIPE_POLICIES, "data_wipe_policy")
        if self.support_tier == "":
            _set(self, "support_tier", None)
        if self.support_tier is not None:
            _choice(self.support_tier, SUPPORT_TIERS, "support_tier")
        _choice(self.currency, CURRENCIES, "currency")
        if not isinstance(self.gpu_model, str):
            raise ScoringInputError(f"gpu_model must be a string, got {self.gpu_model!r}")
        _int(self.gpus_per_node, "gpus_per_node", 1)
        _int(self.gpu_memory_gib, "gpu_memory_gib", 1)
        _int(self.fabric_rate_gbit_s, "fabric_rate_gbit_s", 0)
        _int(self.nics_per_node, "nics_per_node", 0)
        if self.nvlink_domain_gpus is None:
            _set(self, "nvlink_domain_gpus", 0)
        _int(self.nvlink_domain_gpus, "nvlink_domain_gpus", 0)
        problem = nvlink_domain_problem(
            self.nvlink_domain_gpus, self.gpus_per_node, self.nvlink_topology
        )
        if problem is not None:
            raise ScoringInputError(problem[0])
        _opt_int(self.provisioning_time_min, "provisioning_time_min", 0)
        _int(self.setup_days, "setup_days", 0)
        _int(self.poc_window_days, "poc_window_days", 0)
        _int(self.min_commitment_days, "min_commitment_days", 0)
        if self.releasable_hourly is not None:
            _bool(self.releasable_hourly, "releasable_hourly")
        if not isinstance(self.mig_profile, str):
            raise ScoringInputError("mig_profile must be a string")
        if self.mig_profile:
            if self.delivery_form != "mig":
                raise ScoringInputError("a MIG profile needs the delivery form 'mig'")
            _set(self, "mig_profile", normalise_mig_profile(self.mig_profile))
        _opt_int(self.logical_cpus_per_node, "logical_cpus_per_node", 1)
        _opt_int(self.sla_response_time_min, "sla_response_time_min", 0)
        _opt_int(self.hardware_replacement_hours, "hardware_replacement_hours", 0)
        # The checks of _bool, to_decimal and _opt_decimal, read in one pass (an offering is
        # built per candidate on every cold ranking): a value they would keep as it is (a
        # bool; a finite, non-negative Decimal) is left in place, any other goes through them
        # (which convert it or raise their error).
        if not all(type(value) is bool for value in _OFFERING_BOOL_VALUES(self)):
            for name in _OFFERING_BOOLS:
                _bool(getattr(self, name), name)
        for name, value in zip(_OFFERING_DECIMALS, _OFFERING_DECIMAL_VALUES(self), strict=True):
            if not _plain_decimal(value):
                _set(self, name, to_decimal(value, name, minimum=Decimal(0)))
        for name, value in zip(
            _OFFERING_DECIMALS_OPT, _OFFERING_DECIMAL_OPT_VALUES(self), strict=True
        ):
            if value is not None and not _plain_decimal(value):
                _set(self, name, _opt_decimal(value, name))
        if self.oversubscription_ratio is not None and self.oversubscription_ratio < 1:
            raise ScoringInputError(
                f"oversubscription_ratio must be at least 1 (1 = non-blocking), "
                f"got {self.oversubscription_ratio}"
            )
        risk = self.spot_preemption_risk_pct
        if risk is not None and (risk < 0 or risk >= 100):
            raise ScoringInputError(f"spot_preemption_risk_pct must be below 100, got {risk}")
        if self.sla_availability_pct is not None and not 0 < self.sla_availability_pct <= 100:
            raise ScoringInputError(
                f"sla_availability_pct must be in (0, 100], got {self.sla_availability_pct}"
            )
        if not isinstance(self.distributed_fs, str) or not isinstance(self.region, str):
            raise ScoringInputError("distributed_fs and region must be strings")
        _set(self, "prices", _prices(self.prices, "prices"))


_MEASURED_INTS = (
    "ecc_uncorrected",
    "remapped_rows_pending",
    "remapped_rows_failure",
    "xid_errors",
    "sxid_errors",
    "ib_ports_down",
    "ib_rails_min",
    "busbw_nodes",
    "xid_nodes",
    "busbw_nics_per_node",
    "busbw_runs_set_aside",
)
_MEASURED_FLOATS = (
    "busbw_fraction",
    "peak_busbw_gbyte_s",
    "expected_busbw_gbyte_s",
    "nvme_read_mbyte_s",
    "nvme_write_mbyte_s",
    "ib_rate_gbit_s_min",
    "nvlink_busbw_fraction",
    "alltoall_busbw_gbyte_s",
    "alltoall_busbw_fraction",
    "allgather_busbw_gbyte_s",
    "allgather_busbw_fraction",
    "xid_severity",
    "xid_node_share",
    "host_device_fraction",
    "busbw_rate_gbit_s",
)
_CHECKLIST_KEY_SET = frozenset(CHECKLIST_KEYS)
_ITEM_STATUS_SET = frozenset(ITEM_STATUSES)
# A document review's verdicts (CandidateInput.reviews).
REVIEW_VERDICTS = ("verified", "contradicted")
_NO_REVIEWS: Mapping[str, str] = MappingProxyType({})
_MEASURED_FLOAT_VALUES = attrgetter(*_MEASURED_FLOATS)
_MEASURED_INT_VALUES = attrgetter(*_MEASURED_INTS)
# Measured / expected: a run never earns more than the declared hardware should reach (a
# run above the physical ceiling is set aside as implausible during verification).
_MEASURED_FRACTIONS = (
    "busbw_fraction",
    "nvlink_busbw_fraction",
    "alltoall_busbw_fraction",
    "allgather_busbw_fraction",
    "host_device_fraction",
)


@dataclass(frozen=True)
class MeasuredFacts:
    """What the POC evidence showed for one candidate; None = not measured.

    ``busbw_fraction`` is the measured all-reduce bus bandwidth divided by the value expected
    for the declared system (from the verification step), from a run that covers the
    candidate's interconnect: for a candidate of two or more nodes only a run spanning at least
    two nodes counts (``busbw_nodes`` says how many it spanned). A one-node run on such a
    candidate only measures NVLink: its fraction is ``nvlink_busbw_fraction``.
    ``remapped_rows_pending`` / ``remapped_rows_failure`` count the nvidia-smi -q files with a
    memory repair waiting for a GPU reset (a pending row remap, or on Blackwell a pending HBM
    channel or TPC repair) / a memory failure NVIDIA's RMA policy names (a row-remapping
    failure, "Unrepairable Memory: Yes", "SRAM Threshold Exceeded: Yes"); see
    verification.health for NVIDIA's wording.
    ``alltoall_*`` and ``allgather_*`` are the same figures for nccl-tests alltoall_perf and
    all_gather_perf (mixture-of-experts and sharded training depend on them). Every fraction
    is capped at 1.0. ``xid_errors`` / ``sxid_errors`` count GPU Xid and NVSwitch SXid events in
    the kernel log (rubric v1 counts them); rubric v2 reads ``xid_severity``, the worst node's
    Xid and SXid errors weighed by NVIDIA's catalogue (1.0 a hardware fault such as Xid 48/79/95
    or a fatal SXid, 0.5 one needing a reset soon, 0.1 one the application usually causes; each
    distinct code and GPU once), ``xid_nodes`` the nodes with hardware-class errors and
    ``xid_node_share`` their share of the nodes whose log was read. ``nvlink_topology`` is the
    measured topology of the worst node
    ("full_mesh" | "grouped" | "none"), the one the nvlink_topology verdict judged.
    ``dcgm_stress_tested`` says whether a dcgmi diag that passed or warned ran a test that
    loads the GPUs (run level 3 and up: Diagnostic, Targeted Stress/Power, Memory Bandwidth,
    SM Stress, Pulse, EUD, Memtest); False when every such output ran only the quick checks
    (level 1 or 2: the software deployment, PCIe and a short memory test); None when unknown.
    ``delivery_form_seen`` is the delivery form the evidence shows beside the bare-metal verdict:
    "bare_metal", the virtualised form a node names ("container", "vgpu", "passthrough_vm", the
    least favourable node's) or "virtualised" when only a hypervisor shows.
    ``evidence_refs`` maps a field name (or a checklist key) to a short reference such as
    "upload 12 · nccl_tests all_reduce.txt line 57" quoted in contributions and knockout
    reasons.
    """

    busbw_fraction: float | None = None
    peak_busbw_gbyte_s: float | None = None
    expected_busbw_gbyte_s: float | None = None
    ecc_uncorrected: int | None = None
    remapped_rows_pending: int | None = None
    remapped_rows_failure: int | None = None
    xid_errors: int | None = None
    dcgm_overall: str | None = None
    dcgm_failed_tests: tuple[str, ...] | None = None
    dcgm_stress_tested: bool | None = None
    nvme_read_mbyte_s: float | None = None
    nvme_write_mbyte_s: float | None = None
    ib_ports_down: int | None = None
    ib_rate_gbit_s_min: float | None = None
    nvlink_topology: str | None = None
    bare_metal_verdict: str | None = None
    bare_metal_confidence: float | None = None
    evidence_refs: Mapping[str, str] = field(default_factory=dict)
    busbw_nodes: int | None = None
    nvlink_busbw_fraction: float | None = None
    alltoall_busbw_gbyte_s: float | None = None
    alltoall_busbw_fraction: float | None = None
    allgather_busbw_gbyte_s: float | None = None
    allgather_busbw_fraction: float | None = None
    sxid_errors: int | None = None
    xid_severity: float | None = None
    xid_nodes: int | None = None
    xid_node_share: float | None = None
    delivery_form_seen: str | None = None
    # nvbandwidth's host<->device copy bandwidth (the lower of the two directions) on the
    # worst GPU, over the PCIe line rate its GPU model's generation gives at protocol
    # efficiency: the measured efficiency path of a one-GPU candidate, where no collective runs.
    host_device_fraction: float | None = None
    # The fewest compute rails (fabric ports of the rails' link layer, Active at any rate) on
    # any node whose ibstat the fabric check judged, at most the NICs claimed per node.
    ib_rails_min: int | None = None
    # The compute fabric the expected all-reduce (expected_busbw_gbyte_s) was computed for,
    # where its run crossed one: the declared NICs per node and rate per port, or the wider or
    # faster fabric ibstat showed on every node. What a must-have reason names as the system
    # the run was judged against.
    busbw_nics_per_node: int | None = None
    busbw_rate_gbit_s: float | None = None
    # Without a bus-bandwidth fraction: how many all_reduce runs verification set aside as
    # foreign (another GPU than claimed, more nodes or ranks than the candidate has) or
    # implausible (above the declared hardware's ceiling), so that "no measured bus bandwidth"
    # does not read as "nothing was uploaded". None when none was (or a fraction exists).
    busbw_runs_set_aside: int | None = None

    def __post_init__(self) -> None:
        # As for OfferingFacts: a value _float would keep as it is (None, or a finite float of
        # at least 0) is left in place, any other goes through it.
        for name, value in zip(_MEASURED_FLOATS, _MEASURED_FLOAT_VALUES(self), strict=True):
            if value is not None and not (
                type(value) is float and math.isfinite(value) and value >= 0.0
            ):
                _set(self, name, _float(value, name))
        for name in _MEASURED_FRACTIONS:
            value = getattr(self, name)
            if value is not None and value > 1.0:
                _set(self, name, 1.0)
        if not all(
            value is None or (type(value) is int and value >= 0)
            for value in _MEASURED_INT_VALUES(self)
        ):
            for name in _MEASURED_INTS:
                _opt_int(getattr(self, name), name)
        if self.dcgm_overall is not None:
            _choice(self.dcgm_overall, DCGM_RESULTS, "dcgm_overall")
        if self.dcgm_stress_tested is not None and not isinstance(self.dcgm_stress_tested, bool):
            raise ScoringInputError("dcgm_stress_tested must be true, false or null")
        if self.dcgm_failed_tests is not None:
            if isinstance(self.dcgm_failed_tests, str):
                raise ScoringInputError("dcgm_failed_tests must be a list of test names")
            _set(self, "dcgm_failed_tests", tuple(str(t) for t in self.dcgm_failed_tests))
        if self.nvlink_topology is not None:
            _choice(self.nvlink_topology, NVLINK_TOPOLOGIES, "measured nvlink_topology")
        if self.bare_metal_verdict is not None:
            _choice(self.bare_metal_verdict, BARE_METAL_VERDICTS, "bare_metal_verdict")
        if self.delivery_form_seen is not None:
            _choice(self.delivery_form_seen, (*DELIVERY_FORMS, "virtualised"), "delivery_form_seen")
        confidence = _float(self.bare_metal_confidence, "bare_metal_confidence")
        if confidence is not None and confidence > 1:
            raise ScoringInputError(f"bare_metal_confidence must be in 0..1, got {confidence}")
        _set(self, "bare_metal_confidence", confidence)
        refs = _frozen_map(self.evidence_refs, "evidence_refs")
        for key, ref in refs.items():
            if not isinstance(key, str) or not isinstance(ref, str):
                raise ScoringInputError("evidence_refs must map names to reference strings")
        # Empty references say nothing; dropping them keeps "no reference" a single None.
        _set(self, "evidence_refs", MappingProxyType({k: r for k, r in refs.items() if r}))

    def ref(self, *names: str) -> str | None:
        """The first evidence reference recorded under any of ``names``."""
        for name in names:
            found = self.evidence_refs.get(name)
            if found:
                return found
        return None


@dataclass(frozen=True)
class EvaluationSpec:
    """One procurement decision's requirements, must-haves and weights.

    ``weights`` maps the six dimensions to non-negative numbers (normalised when used); None
    takes the workload profile's preset from the rubric. ``budget_total`` is for the whole
    duration, in ``budget_currency``. ``min_busbw_fraction`` (e.g. 0.8) requires a measured
    all-reduce bus bandwidth of at least that share of what the candidate's own declared system
    should reach (a health check: the fabric's size is priced by the cost and network
    dimensions, not by this must-have).
    """

    workload_profile: str
    required_total_gpus: int
    required_gpu_memory_gib: int = 0
    duration_days: int = 30
    expected_idle_days: int = 0
    budget_total: Decimal | None = None
    budget_currency: str = "CNY"
    required_mlps_level: int = 0
    require_xinchuang: bool = False
    min_busbw_fraction: Decimal | None = None
    weights: Mapping[str, Any] | None = None
    # Rubric v2 (issue #16): data residency knockout, and the buyer's operations capacity with
    # the cost of one operations engineer per month (in budget_currency).
    data_residency: str = "none"
    ops_capacity: str = "platform_team"
    ops_staff_cost_month: Decimal = Decimal(0)
    # Checklist item 1 ("GPU model ... match the requirement"): the GPU families the buyer
    # accepts (scoring.reference families: "H100", "B200"); empty accepts any.
    accepted_gpu_families: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _choice(self.workload_profile, WORKLOAD_PROFILES, "workload_profile")
        _choice(self.data_residency, ("none", "mainland_china"), "data_residency")
        _choice(self.ops_capacity, ("none", "small_team", "platform_team"), "ops_capacity")
        staff = _opt_decimal(self.ops_staff_cost_month, "ops_staff_cost_month")
        _set(self, "ops_staff_cost_month", staff)
        _int(self.required_total_gpus, "required_total_gpus", 1)
        _int(self.required_gpu_memory_gib, "required_gpu_memory_gib", 0)
        _int(self.duration_days, "duration_days", 1)
        _int(self.expected_idle_days, "expected_idle_days", 0, self.duration_days)
        _int(self.required_mlps_level, "required_mlps_level", 0, 4)
        _bool(self.require_xinchuang, "require_xinchuang")
        _choice(self.budget_currency, CURRENCIES, "budget_currency")
        _set(self, "budget_total", _opt_decimal(self.budget_total, "budget_total"))
        fraction = _opt_decimal(self.min_busbw_fraction, "min_busbw_fraction")
        _set(self, "min_busbw_fraction", fraction)
        if self.weights is not None:
            _set(self, "weights", _frozen_map(self.weights, "weights"))
        families = self.accepted_gpu_families
        if isinstance(families, str) or not all(isinstance(f, str) for f in families):
            raise ScoringInputError("accepted_gpu_families must be a sequence of GPU families")
        unknown = [family for family in families if not is_gpu_family(family)]
        if unknown:
            raise ScoringInputError(f"accepted_gpu_families names no known GPU family: {unknown}")
        _set(self, "accepted_gpu_families", tuple(families))


@dataclass(frozen=True)
class CandidateInput:
    """An offering inside an evaluation: node count, quoted prices, checklist answers, evidence.

    ``quoted_prices`` override the offering's list prices model by model. ``answers`` maps
    checklist keys to their verification status; a missing key means "unanswered".
    ``reviews`` maps checklist keys to the verdict ("verified" or "contradicted") of a
    document review that still applies to the answer, whatever the evidence says: the one
    source of the status of claims no node output can observe (facts.REVIEW_ONLY_ITEMS).
    """

    candidate_id: int
    label: str
    vendor: VendorFacts
    offering: OfferingFacts
    node_count: int = 1
    quoted_prices: tuple[Price, ...] = ()
    answers: Mapping[str, str] = field(default_factory=dict)
    measured: MeasuredFacts = field(default_factory=MeasuredFacts)
    # The POC plan's failed or missing required runs (scoring.poc.PocShortfall), set by
    # scoring.poc.candidate_with_poc; the must-haves read them (issue #13, section 4).
    poc_shortfalls: tuple[Any, ...] = ()
    reviews: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _int(self.candidate_id, "candidate_id", None)
        _int(self.node_count, "node_count", 1)
        if not isinstance(self.vendor, VendorFacts) or not isinstance(self.offering, OfferingFacts):
            raise ScoringInputError("vendor and offering must be VendorFacts and OfferingFacts")
        if not isinstance(self.measured, MeasuredFacts):
            raise ScoringInputError("measured must be a MeasuredFacts")
        _set(self, "quoted_prices", _prices(self.quoted_prices, "quoted_prices"))
        answers = _frozen_map(self.answers, "answers")
        # Every key and status known (the usual case) in one set comparison each; otherwise
        # (or for an unhashable status) the first unknown one raises as _choice words it.
        try:
            known = answers.keys() <= _CHECKLIST_KEY_SET and _ITEM_STATUS_SET.issuperset(
                answers.values()
            )
        except TypeError:
            known = False
        if not known:
            for key, status in answers.items():
                _choice(key, CHECKLIST_KEYS, "checklist key")
                _choice(status, ITEM_STATUSES, f"status of {key}")
        _set(self, "answers", answers)
        if self.reviews or not isinstance(self.reviews, Mapping):
            reviews = _frozen_map(self.reviews, "reviews")
            for key, verdict in reviews.items():
                _choice(key, CHECKLIST_KEYS, "checklist key")
                _choice(verdict, REVIEW_VERDICTS, f"review verdict of {key}")
            _set(self, "reviews", reviews)
        else:
            _set(self, "reviews", _NO_REVIEWS)
        if self.poc_shortfalls:
            from ..poc.shortfall import PocShortfall

            shortfalls = tuple(self.poc_shortfalls)
            if not all(isinstance(s, PocShortfall) for s in shortfalls):
                raise ScoringInputError("poc_shortfalls must be scoring.poc.PocShortfall values")
            _set(self, "poc_shortfalls", shortfalls)

    @property
    def gpu_count(self) -> int:
        """GPUs in the deployment: node_count x gpus_per_node."""
        return self.node_count * self.offering.gpus_per_node

    def effective_prices(self) -> tuple[Price, ...]:
        """List prices with the quoted ones taking precedence, in BILLING_MODELS order."""
        if not self.quoted_prices:
            return self.offering.prices
        by_model = {p.billing_model: p for p in self.offering.prices}
        by_model.update({p.billing_model: p for p in self.quoted_prices})
        return tuple(by_model[m] for m in BILLING_MODELS if m in by_model)
