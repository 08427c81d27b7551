"""The rubric's data model: the point tables of the generic rule kinds, rules, presets, scale."""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import pairwise
from types import MappingProxyType
from typing import Any

from ..reference import match_gpu
from ..types import (
    CHECKLIST_KEYS,
    DIMENSIONS,
    FORMS_BY_FAVOUR,
    RubricError,
    ScoringInputError,
)
from ..types.inputs import parse_mig_layout


def _names_gpu(name: str, pattern: str) -> bool:
    """Whether the lower-cased GPU model ``name`` names ``pattern``'s GPU: the pattern occurs
    with no digit just before or after it ("*" names every GPU)."""
    if pattern == "*":
        return True
    start = name.find(pattern)
    while start >= 0:
        end = start + len(pattern)
        if not (start and name[start - 1].isdigit()) and not (
            end < len(name) and name[end].isdigit()
        ):
            return True
        start = name.find(pattern, start + 1)
    return False


# The forms a node's own output names (the NVIDIA driver's passthrough or vGPU mode:
# verification.bare_metal.delivery_form._node_forms), as opposed to those only the verdict
# implies.
_NAMED_FORMS = frozenset(("passthrough_vm", "vgpu"))


# The checklist item whose status a derived item takes where the datasheet leaves the claim
# open (the dimensions a checklist item feeds count the rules gated by these too); defined
# here, beside the rules that name the items, so the rubric reads it without the scoring
# engine above it (scoring.dimensions.facts judges the items).
DERIVED_ITEM_CHECKLIST: dict[str, str] = {
    "nvlink_topology_datasheet": "nvlink_topology",
    "gpu_form_factor_datasheet": "gpu_match",
}


def _less_favourable(form: str, than: str) -> bool:
    """Whether delivery form ``form`` is less favourable than ``than`` (FORMS_BY_FAVOUR)."""
    return FORMS_BY_FAVOUR.index(form) > FORMS_BY_FAVOUR.index(than)


# --- point tables (one class per generic rule kind) -------------------------------------------


@dataclass(frozen=True)
class BooleanTable:
    """``points`` when the fact is true, ``points_false`` otherwise."""

    points_true: float
    points_false: float

    @property
    def max_points(self) -> float:
        return max(self.points_true, self.points_false, 0.0)

    def points(self, value: Any) -> float:
        return self.points_true if value else self.points_false


@dataclass(frozen=True)
class StepTable:
    """A threshold table on a number; thresholds ascending."""

    direction: str
    thresholds: tuple[float, ...]
    step_points: tuple[float, ...]
    otherwise: float

    @property
    def max_points(self) -> float:
        return max(*self.step_points, self.otherwise, 0.0)

    def points(self, value: Any) -> float:
        x = float(value)
        if self.direction == "higher":
            index = bisect.bisect_right(self.thresholds, x) - 1
            return self.step_points[index] if index >= 0 else self.otherwise
        index = bisect.bisect_left(self.thresholds, x)
        return self.step_points[index] if index < len(self.thresholds) else self.otherwise


@dataclass(frozen=True)
class LinearTable:
    """Piecewise-linear points between anchors (x ascending), flat beyond the ends."""

    xs: tuple[float, ...]
    ys: tuple[float, ...]

    @property
    def max_points(self) -> float:
        return max(*self.ys, 0.0)

    def points(self, value: Any) -> float:
        x = float(value)
        xs, ys = self.xs, self.ys
        if x <= xs[0]:
            return ys[0]
        if x >= xs[-1]:
            return ys[-1]
        i = bisect.bisect_right(xs, x)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


@dataclass(frozen=True)
class ChoiceTable:
    """Points per categorical value, ``default`` for values not listed."""

    choices: Mapping[str, float]
    default: float

    @property
    def max_points(self) -> float:
        return max(*self.choices.values(), self.default, 0.0)

    def points(self, value: Any) -> float:
        return self.choices.get(value, self.default)


Table = BooleanTable | StepTable | LinearTable | ChoiceTable


def backs(value: Any, minimum: Decimal | None = None) -> bool:
    """Whether a rule's backing fact (``Rule.backed_by``) backs its claim: known and above zero
    or, with ``minimum`` (``Rule.backed_from``), at least that (a credit of 0 % or none stated
    backs nothing, nor a token one below the first step the rubric pays for; True for a flag).
    A Decimal shown as its text (a contribution's input) reads as the number it is."""
    if value is None or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, str):
        value = Decimal(value)
    if minimum is None:
        return bool(value > 0)
    return bool(value >= minimum)


@dataclass(frozen=True)
class Rule:
    """One rubric rule; ``table`` turns the fact's value into points before the claim factor."""

    id: str
    dimension: str
    kind: str
    label_en: str
    label_zh: str
    inputs: tuple[str, ...]
    table: Table
    claim_item: str | None = None
    if_missing: str = "zero"
    only_if: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    source: str = ""
    # Conditions under which the rule concerns the candidate at all: when one is not met the
    # rule is "not applicable" and leaves the dimension's maximum (0 of 0), unlike only_if
    # (0 of the rule's maximum). E.g. fabric rules for a need that fits in one node.
    applies_if: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    # Conditions under which the fact the rule reads can be known at all: when one is not met
    # no measurement can settle it (no reference to judge it against), so the rule counts as
    # missing (0 of its maximum, as an unmeasured candidate's), whatever was measured, and
    # shows the condition (runners._unmeasurable). E.g. the collective bus-bandwidth rules
    # for an accelerator without NVIDIA's nccl-tests expectation.
    measurable_if: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    # A claim the buyer can only enforce through another term: the fact that backs it (e.g. the
    # SLA's availability by its credit on breach, "offering.sla_credit_pct"). When that fact
    # does not back it (see backs), the claim counts at most at the factor of status
    # ``unbacked_at_most`` whatever its checklist item's status (a verified text that nothing
    # enforces is still only a claim).
    backed_by: str | None = None
    unbacked_at_most: str = "claimed"
    # The least value of backed_by that backs the claim (None: any value above zero).
    backed_from: Decimal | None = None
    # A contradicted claim's (negative) factor scales the rule's maximum, not the claimed
    # value's points (the rubric's "contradicted_scales": "max_points"): what a refuted item
    # costs is then the same whatever the vendor claimed under it, so a better claim under a
    # contradicted item never lowers the score (else "points", the claimed value's points).
    # "Whatever the vendor claimed" includes nothing: a term left unstated under the
    # contradicted item costs the same (runners._contradicted_unstated), else stating a better
    # term would lower the score.
    contradicted_on_max: bool = False
    # Memo of finished contributions keyed by the fact read, its status and evidence reference:
    # contributions are immutable values, so candidates with equal facts share them.
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False, hash=False)

    @property
    def max_points(self) -> float:
        return self.table.max_points


@dataclass(frozen=True)
class Preset:
    """A workload profile's default weights (percent, summing to 100) and their source."""

    profile: str
    weights: Mapping[str, float]
    source: str


@dataclass(frozen=True)
class ScaleRules:
    """The source documents' scale rules as parameters.

    ``overhead_anchors`` give the virtualisation overhead (percent) by GPU count, interpolated
    on log10(GPUs); ``fabric_bands`` give the efficiency (percent) a virtualised deployment
    loses to bare metal's control of the fabric inside a GPU-count band.
    """

    single_node_max_gpus: int
    bare_metal_required_min_gpus: int
    overhead_anchors: tuple[tuple[int, float], ...]
    fabric_bands: tuple[tuple[int, int, float], ...]
    sources: Mapping[str, str]
    # Rubric v2: per delivery form (virtualisation overhead factor, fabric-loss factor), and
    # per workload profile the fabric-control loss anchors [(GPUs, percent)], interpolated on
    # log2(GPUs) and flat beyond the last anchor, so the loss never falls as GPUs grow.
    form_factors: Mapping[str, tuple[float, float]] | None = None
    workload_fabric: Mapping[str, tuple[tuple[int, float], ...]] | None = None
    # Rubric v2: per workload profile the share of a step spent in collectives (percent)
    # by the job's GPUs, the same kind of anchors (scoring.collectives).
    collective: Mapping[str, tuple[tuple[int, float], ...]] | None = None
    # Memo of efficiency() by (delivery form, GPU count, workload): a pure function of frozen data.
    memo: dict[tuple[str, int, str | None], float] = field(
        default_factory=dict, compare=False, repr=False, hash=False
    )

    def virtualisation_overhead_pct(self, gpu_count: int) -> float:
        """Throughput lost to virtualisation at ``gpu_count`` GPUs, percent."""
        anchors = self.overhead_anchors
        x = math.log10(max(gpu_count, 1))
        if x <= math.log10(anchors[0][0]):
            return anchors[0][1]
        for (g0, p0), (g1, p1) in pairwise(anchors):
            x0, x1 = math.log10(g0), math.log10(g1)
            if x <= x1:
                return p0 + (p1 - p0) * (x - x0) / (x1 - x0)
        return anchors[-1][1]

    def fabric_control_loss_pct(self, gpu_count: int) -> float:
        """Efficiency a virtualised deployment of ``gpu_count`` GPUs loses for lack of fabric
        control (IB tuning), percent; 0 outside the bands."""
        for low, high, pct in self.fabric_bands:
            if low <= gpu_count <= high:
                return pct
        return 0.0

    def workload_fabric_loss_pct(self, gpu_count: int, workload: str) -> float:
        """Rubric v2: the fabric-control loss of a fully virtualised deployment for a workload,
        percent, interpolated on log2(GPUs) between anchors (no cliff at a band edge)."""
        anchors = (self.workload_fabric or {}).get(workload)
        if not anchors:
            return 0.0
        return _interpolate_log(anchors, gpu_count, math.log2)

    def collective_share(self, gpu_count: int, workload: str) -> float:
        """Rubric v2: the share 0..1 of a step a job of ``gpu_count`` GPUs spends in
        collectives (interpolated on log2(GPUs)); 0 without the table or the workload."""
        anchors = (self.collective or {}).get(workload)
        if not anchors:
            return 0.0
        return _interpolate_log(anchors, gpu_count, math.log2) / 100.0

    def loss_pct(self, delivery_form: str, gpu_count: int, workload: str) -> float:
        """Rubric v2: the efficiency a delivery form loses at a scale for a workload, percent.

        The larger of the form's share of the virtualisation overhead and its share of the
        workload's fabric-control loss; both never fall as GPUs grow, so neither does this."""
        overhead_factor, fabric_factor = (self.form_factors or {}).get(delivery_form, (1.0, 1.0))
        return max(
            overhead_factor * self.virtualisation_overhead_pct(gpu_count),
            fabric_factor * self.workload_fabric_loss_pct(gpu_count, workload),
        )

    def efficiency(self, delivery_form: str, gpu_count: int, workload: str | None = None) -> float:
        """Expected training efficiency 0..1 of a delivery form at a scale (1.0 = bare metal).

        Rubric v1 ignores ``workload``; rubric v2 (``form_factors`` set) uses it."""
        if self.form_factors is None:
            workload = None
        key = (delivery_form, gpu_count, workload)
        found = self.memo.get(key)
        if found is None:
            if self.form_factors is not None:
                found = 1.0 - self.loss_pct(delivery_form, gpu_count, workload or "") / 100.0
            elif delivery_form == "bare_metal":
                found = 1.0
            else:
                loss = max(
                    self.virtualisation_overhead_pct(gpu_count),
                    self.fabric_control_loss_pct(gpu_count),
                )
                found = 1.0 - loss / 100.0
            if len(self.memo) > 4096:
                self.memo.clear()
            self.memo[key] = found
        return found

    def bare_metal_required(self, total_gpus: int) -> bool:
        return total_gpus >= self.bare_metal_required_min_gpus


def _interpolate_log(
    anchors: tuple[tuple[int, float], ...], gpu_count: int, log: Any = math.log10
) -> float:
    x = log(max(gpu_count, 1))
    if x <= log(anchors[0][0]):
        return anchors[0][1]
    for (g0, p0), (g1, p1) in pairwise(anchors):
        x0, x1 = log(g0), log(g1)
        if x <= x1:
            return p0 + (p1 - p0) * (x - x0) / (x1 - x0)
    return anchors[-1][1]


@dataclass(frozen=True)
class FormProfile:
    """Rubric v2: what a delivery form implies when the offering does not say otherwise.

    ``assumed_busbw_fraction`` is the conservative efficiency an unmeasured candidate is
    scored with (measuring at or above it never scores lower); ``spot_preemption_risk_pct``
    the default preemption risk of its spot capacity; ``releasable_hourly`` whether hourly
    capacity of this form is usually released on idle days; ``isolation`` its rank (higher =
    stronger isolation)."""

    assumed_busbw_fraction: float
    spot_preemption_risk_pct: Decimal
    releasable_hourly: bool
    source: str


@dataclass(frozen=True)
class V2Policy:
    """Rubric v2's cost, elasticity and MIG policy (each figure with its source)."""

    forms: Mapping[str, FormProfile]
    spot_checkpoint_overhead_pct: Decimal
    spot_max_uninterruptible_days: int
    # Per workload: the node count from which its job is one synchronous run (a preempted node
    # stops every node); a workload absent here (inference, development) is not a batch job.
    synchronous_min_nodes: Mapping[str, int]
    # Per workload: provisioning-time anchors [(minutes, fit 0..1)] or None when the
    # workload values a dedicated fleet instead; dedicated-fleet fit per delivery form.
    provisioning_fit: Mapping[str, tuple[tuple[float, float], ...] | None]
    dedicated_fit: Mapping[str, float]
    mig_compute_slices: tuple[int, ...]
    mig_max_instances: int
    # Per GPU family (scoring.reference's family: "A100", "H100", "A30"...) the compute-slice
    # sizes its MIG profiles may have; the largest is the GPU's whole (7, or 4 on an A30).
    mig_gpus: Mapping[str, tuple[int, ...]]
    sources: Mapping[str, str]
    # Operations engineers (FTE) a buyer's team must add for self-managed bare metal, by its
    # operations capacity (none / small_team / platform_team); sources["operations"].
    ops_fte: Mapping[str, Decimal] = field(default_factory=lambda: MappingProxyType({}))
    # The checklist item whose document review verifies billing terms that no evidence can
    # measure (a lower-than-default spot preemption risk, hourly release of bare metal).
    billing_terms_item: str = "monthly_cost"
    # Whether the cost per effective GPU-hour divides by the GPU-hours the buyer requires when
    # the delivery exceeds them ("required"), or by every delivered GPU-hour ("delivered", the
    # reading of a rubric text recorded before the billing section named it).
    effective_hours: str = "delivered"

    def form(self, delivery_form: str) -> FormProfile:
        found = self.forms.get(delivery_form)
        # "virtualised" (a bare-metal claim the evidence refutes) is judged as the weakest
        # virtualised form with a profile: container.
        return found if found is not None else self.forms["container"]

    def elasticity_fit(
        self, workload: str, delivery_form: str, provisioning_min: int | None
    ) -> float:
        """How well the offering's elasticity suits the workload, 0..1. ``provisioning_min``
        None is unanswered (0); 0 is an answer (capacity available at once: the best fit)."""
        anchors = self.provisioning_fit.get(workload)
        if anchors is None:
            return self.dedicated_fit.get(delivery_form, 0.0)
        if provisioning_min is None:
            return 0.0  # not stated: unanswered, never a claim of instant provisioning
        xs = [x for x, _ in anchors]
        ys = [y for _, y in anchors]
        return LinearTable(tuple(xs), tuple(ys)).points(provisioning_min)


@dataclass(frozen=True)
class Rubric:
    """A validated rubric: rules per dimension, claim factors, presets and scale parameters."""

    version: str
    rules: tuple[Rule, ...]
    status_factors: Mapping[str, float]
    presets: Mapping[str, Preset]
    scale: ScaleRules
    reference_prices: Mapping[str, tuple[tuple[str, Decimal], ...]]
    reference_prices_source: str
    bare_metal_min_confidence: float
    assumed_availability_pct: Decimal
    by_dimension: Mapping[str, tuple[Rule, ...]]
    v2: V2Policy | None = None
    # Memo of reference_gpu_hour_price() by (GPU model, currency).
    memo: dict[tuple[str, str], Decimal] = field(
        default_factory=dict, compare=False, repr=False, hash=False
    )

    def observed_delivery_form(
        self,
        claimed: str,
        verdict: str | None,
        confidence: float | None,
        seen: str | None = None,
    ) -> tuple[str, str]:
        """The delivery form to score and its basis ("measured" when the evidence settled it,
        else "claimed"): see delivery_form_check."""
        form, status = self.delivery_form_check(claimed, verdict, confidence, seen)
        return form, ("measured" if status in ("verified", "contradicted") else "claimed")

    def delivery_form_check(
        self,
        claimed: str,
        verdict: str | None,
        confidence: float | None,
        seen: str | None = None,
    ) -> tuple[str, str]:
        """(form to score, status of the claim) from the bare-metal verdict
        when it is confident enough (``bare_metal_min_confidence``) and ``seen``, the form the
        evidence names (MeasuredFacts.delivery_form_seen). The status is "verified",
        "contradicted" or "claimed" (nothing confident either way). Rubric v2: a node that
        names the very virtualised form claimed (passthrough, vGPU) verifies it even where
        the verdict is not confident.

        Rubric v1: a refuted bare-metal claim becomes "virtualised"; anything else stays.
        Rubric v2: the verdict only detects a hypervisor, so "bare metal" confirms a bare-metal
        claim and nothing else (MIG slices and containers run on hosts without one). A claim
        the evidence refutes (bare metal under a hypervisor, or a form more favourable than
        the one a node shows: passthrough > vGPU > container; a MIG claim is about the GPU and
        stands beside a container or a vGPU) is scored as the least
        favourable form consistent with the evidence: the form a node shows, or a container
        when only a hypervisor shows (a container can run in any VM)."""
        sure = verdict in ("bare_metal", "virtualised") and (confidence or 0.0) >= (
            self.bare_metal_min_confidence
        )
        if not sure:
            # Rubric v2: a form a node names (the NVIDIA driver reports passthrough or vGPU
            # mode) settles the claim however unsure the hypervisor verdict is (a
            # passed-through full board also shows physical signs: NVSwitches, the host's
            # DMI): it verifies the very form claimed and refutes a more favourable one, as a
            # confident verdict would; trusting the driver only where it favours the vendor
            # would not be honest. Bare metal is only ever seen through the verdict, so it
            # needs its confidence.
            if self.v2 is not None and seen in _NAMED_FORMS:
                if seen == claimed:
                    return claimed, "verified"
                if claimed != "mig" and _less_favourable(seen, claimed):
                    return seen, "contradicted"
            return claimed, "claimed"
        if verdict == "bare_metal":
            if claimed == "bare_metal":
                return "bare_metal", "verified"
            if self.v2 is not None:
                return claimed, "claimed"
            return "bare_metal", "verified"
        if self.v2 is None:
            if claimed == "bare_metal":
                return "virtualised", "contradicted"
            return claimed, "verified"
        shown = seen if seen in FORMS_BY_FAVOUR and seen != "bare_metal" else None
        if claimed == "bare_metal":
            return shown or "container", "contradicted"
        # MIG partitions the GPU, not the host: its slices are handed out in containers or in
        # MIG-backed vGPU VMs, so neither contradicts a MIG claim.
        if shown is not None and claimed != "mig" and _less_favourable(shown, claimed):
            return shown, "contradicted"
        return claimed, "verified"

    def gpu_fraction(self, gpu_model: str, mig_profile: str) -> float:
        """What one delivered GPU unit counts as in full-GPU equivalents: 1.0 for a whole GPU
        (and always in rubric v1); for a MIG slice the smaller of its compute fraction (slices
        over the GPU's compute slices: 7, or 4 on an A30) and its memory fraction.

        The GPU is recognised with scoring.reference.match_gpu (so an A10 is not an A100 and an
        L40S has no MIG). ScoringInputError when the GPU cannot run MIG, when the profile does
        not exist on it, or when the instances stated per GPU ("2x3g.40gb") do not fit: at most
        as many instances as compute slices, instances x slices within the GPU's slices and
        instances x memory within its memory (1 GB per instance of rounding: NVIDIA names
        profiles in whole GB, 3g.71gb is half of an H200's 141)."""
        policy = self.v2
        if policy is None or not mig_profile:
            return 1.0
        key = ("mig", gpu_model, mig_profile)
        found = self.memo.get(key)  # type: ignore[call-overload]
        if found is not None:
            return float(found)
        instances, slices, memory = parse_mig_layout(mig_profile)
        spec = match_gpu(gpu_model)
        sizes = policy.mig_gpus.get(spec.family) if spec is not None else None
        if spec is None or sizes is None:
            which = f" (read as {spec.display_name})" if spec is not None else ""
            raise ScoringInputError(
                "MIG needs an Ampere-or-newer data-centre GPU that supports it (A100, A30, "
                f"H100, H200, H20, GH200, B200…), got {gpu_model!r}{which}",
                code="mig.gpu",
                params={"gpu": gpu_model},
            )
        whole = max(sizes)
        if slices not in sizes:
            raise ScoringInputError(
                f"MIG profiles on the {spec.family} have {', '.join(map(str, sizes))} compute "
                f"slices, got {mig_profile!r}",
                code="mig.slices",
                params={
                    "family": spec.family,
                    "sizes": ", ".join(map(str, sizes)),
                    "profile": mig_profile,
                },
            )
        full = spec.memory_gib
        if memory > full:
            raise ScoringInputError(
                f"MIG profile {mig_profile!r} has more memory than the whole GPU ({full} GB)",
                code="mig.memory",
                params={"profile": mig_profile, "memory": full},
            )
        if instances is not None:
            limit = min(whole, policy.mig_max_instances)
            if instances > limit:
                raise ScoringInputError(
                    f"the {spec.family} holds at most {limit} MIG instances, got {instances} in "
                    f"{mig_profile!r}",
                    code="mig.instances",
                    params={
                        "family": spec.family,
                        "limit": limit,
                        "instances": instances,
                        "profile": mig_profile,
                    },
                )
            if instances * slices > whole:
                raise ScoringInputError(
                    f"{instances} instances of {slices} compute slices need {instances * slices} "
                    f"slices, the {spec.family} has {whole} ({mig_profile!r})",
                    code="mig.instance_slices",
                    params={
                        "instances": instances,
                        "slices": slices,
                        "needed": instances * slices,
                        "family": spec.family,
                        "whole": whole,
                        "profile": mig_profile,
                    },
                )
            if instances * memory > full + instances:
                raise ScoringInputError(
                    f"{instances} instances of {memory} GB need {instances * memory} GB, "
                    f"more memory than the whole GPU ({full} GB) ({mig_profile!r})",
                    code="mig.instance_memory",
                    params={
                        "instances": instances,
                        "memory": memory,
                        "needed": instances * memory,
                        "whole": full,
                        "profile": mig_profile,
                    },
                )
        fraction = min(slices / whole, memory / full)
        if len(self.memo) > 4096:
            self.memo.clear()
        self.memo[key] = fraction  # type: ignore[index]
        return fraction

    def checklist_dimensions(self) -> dict[str, tuple[str, ...]]:
        """The dimensions each checklist item feeds, derived from the rules (a rule feeds its
        dimension from the item it names as claim_item or reads as ``answer.<key>``): the one
        definition the checklist fixtures and pages must agree with. DIMENSIONS order."""
        fed: dict[str, set[str]] = {key: set() for key in CHECKLIST_KEYS}
        for rule in self.rules:
            keys = {rule.claim_item} | {i[7:] for i in rule.inputs if i.startswith("answer.")}
            for named in keys - {None}:
                # A derived item checked against the datasheet first feeds from its checklist
                # item; any other ("delivery_form") is no checklist item.
                key = DERIVED_ITEM_CHECKLIST.get(named, named)
                if key in fed:
                    fed[key].add(rule.dimension)
        return {key: tuple(d for d in DIMENSIONS if d in dims) for key, dims in fed.items()}

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)

    def backing(self, fact: str) -> tuple[str, str, Decimal | None] | None:
        """(backing fact, status it counts at most at unbacked, least backing value or None
        for any above zero) of the first rule reading
        ``fact`` with a ``backed_by``, or None: the TCO reads a claim as its rule does (the
        SLA's availability)."""
        key = ("backing", fact)
        if key in self.memo:  # type: ignore[operator]
            return self.memo[key]  # type: ignore[index, return-value]
        found = next(
            (
                (rule.backed_by, rule.unbacked_at_most, rule.backed_from)
                for rule in self.rules
                if rule.backed_by is not None and fact in rule.inputs
            ),
            None,
        )
        self.memo[key] = found  # type: ignore[index, assignment]
        return found

    def preset_weights(self, profile: str) -> dict[str, float]:
        """The default weights of a workload profile (percent)."""
        try:
            return dict(self.presets[profile].weights)
        except KeyError:
            raise RubricError(f"no preset for workload profile {profile!r}") from None

    def reference_gpu_hour_price(self, gpu_model: str, currency: str) -> Decimal:
        """The planning price of one GPU-hour for a GPU model (the first pattern found in the
        lower-cased model name with no digit either side, so "a100" prices an "A100-SXM4" but
        not an "RTX A1000", nor "h20" an "H200"; "*" matches anything)."""
        found = self.memo.get((gpu_model, currency))
        if found is not None:
            return found
        name = gpu_model.lower()
        for pattern, price in self.reference_prices[currency]:
            if _names_gpu(name, pattern):
                if len(self.memo) > 4096:
                    self.memo.clear()
                self.memo[(gpu_model, currency)] = price
                return price
        raise RubricError(f"no reference price for {gpu_model!r} in {currency}")

    def reference_gpu_hour_pattern(self, gpu_model: str, currency: str) -> str:
        """The pattern of reference_gpu_hour_prices that prices ``gpu_model``: "*" when the
        rubric lists no price of its own for it (the fallback, an assumption to be said)."""
        name = gpu_model.lower()
        for pattern, _price in self.reference_prices[currency]:
            if _names_gpu(name, pattern):
                return pattern
        raise RubricError(f"no reference price for {gpu_model!r} in {currency}")
