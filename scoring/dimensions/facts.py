"""The facts a rubric may read: names, bases, evidence references and how each is fetched.

A fact is named "<namespace>.<field>": ``vendor.*`` and ``offering.*`` are the vendor's
claims, ``measured.*`` what the evidence showed (units normalised: NVMe in GB/s),
``answer.<checklist key>`` the verification status of an item, ``derived.*`` values computed
from the others (the TCO ratios, the efficiency of the delivery form at the candidate's scale).
Each fact has a basis: a claimed value is scaled by the rubric's factor for its checklist
item's status; measured, computed and answer values count as they are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter, mul
from typing import TYPE_CHECKING, Any

import numpy as np

from ..batching import once_per_key
from ..collectives import gpus_per_node_equivalent, scale_gpus
from ..reference import form_factor_ruled_out, nvlink_topology_ruled_out, other_accelerator
from ..tco import PendingTco, budget_ratio, effective_price_ratio
from ..types import (
    CHECKLIST_KEYS,
    CandidateInput,
    EvaluationSpec,
    MeasuredFacts,
    OfferingFacts,
    VendorFacts,
)
from .rounding import py_round

if TYPE_CHECKING:
    from ..rubric import Rubric
    from ..tco import Tco
    from .batch import Batch

MEASURED = "measured"
CLAIMED = "claimed"
COMPUTED = "computed"
ANSWER = "answer"
UNANSWERED = "unanswered"
CONTRADICTED = "contradicted"


class FactContext:
    """One candidate's facts for one evaluation, read lazily by the rules."""

    __slots__ = (
        "answers",
        "candidate",
        "evaluation",
        "measured",
        "offering",
        "refs",
        "rubric",
        "tco",
        "vendor",
    )

    def __init__(
        self,
        candidate: CandidateInput,
        evaluation: EvaluationSpec,
        rubric: Rubric,
        tco: Tco | PendingTco | None,
    ) -> None:
        self.candidate = candidate
        self.evaluation = evaluation
        self.rubric = rubric
        self.tco = tco
        self.offering = candidate.offering
        self.vendor = candidate.vendor
        self.measured = candidate.measured
        self.answers = candidate.answers
        self.refs = candidate.measured.evidence_refs


@dataclass(frozen=True)
class FactSource:
    """How to read one fact: ``fetch(ctx)`` returns the value (None = unknown), or the pair
    (value, basis) when ``basis`` is None because it depends on the evidence.
    ``ref_names`` are the evidence_refs keys that reference it; ``exact_text`` marks Decimals,
    shown as strings so "7.68" and "7.680" stay distinct. For fetching many candidates at
    once (equal to fetch on each, but cheaper): ``field`` names the attribute when the fact is
    a plain field of ``ctx.<owner>``, ``column`` is a function of the whole Batch."""

    fetch: Callable[[FactContext], Any]
    basis: str | None
    ref_names: tuple[str, ...] = ()
    exact_text: bool = False
    field: tuple[str, str] | None = None
    column: Callable[[Batch], list[Any]] | None = None


def _owner_fetch(owner: str, name: str) -> Callable[[FactContext], Any]:
    # A dotted attrgetter reads ctx.<owner>.<name> in one C call.
    return attrgetter(f"{owner}.{name}")


def _answer(key: str) -> Callable[[FactContext], Any]:
    return lambda ctx: ctx.answers.get(key, UNANSWERED)


# Measured figures are scored at the precision a report shows them with (NVMe to 10 MB/s,
# fractions to 0.1 %); rounding is monotone, so a better measurement never scores less.
def _gbyte_s(mbyte_s: float | None) -> float | None:
    """fio's MB/s as the GB/s a report shows (2 decimals)."""
    return None if mbyte_s is None else round(mbyte_s / 1000.0, 2)


def _nvme_read(ctx: FactContext) -> float | None:
    return _gbyte_s(ctx.measured.nvme_read_mbyte_s)


def _nvme_write(ctx: FactContext) -> float | None:
    return _gbyte_s(ctx.measured.nvme_write_mbyte_s)


def _busbw_fraction(ctx: FactContext) -> float | None:
    value = ctx.measured.busbw_fraction
    return None if value is None else round(value, 3)


def _has_distributed_fs(ctx: FactContext) -> bool:
    return bool(ctx.offering.distributed_fs.strip())


def _dcgm_failed_count(ctx: FactContext) -> int | None:
    failed = ctx.measured.dcgm_failed_tests
    return None if failed is None else len(failed)


def _dcgm_result(overall: str | None, stressed: bool | None) -> str | None:
    """The DCGM result rubric v2 scores: a pass from quick runs only (level 1 or 2, nothing
    loaded the GPUs) is "pass_short", below a stress-tested pass and a stress test's warning
    (expert review F4: a -r 1 pass earned the full points while a deeper run's warning
    earned half); a depth the outputs do not show leaves the pass as it is."""
    if overall == "pass" and stressed is False:
        return "pass_short"
    return overall


def _dcgm_result_fact(ctx: FactContext) -> str | None:
    return _dcgm_result(ctx.measured.dcgm_overall, ctx.measured.dcgm_stress_tested)


def _form_check(ctx: FactContext) -> tuple[str, str]:
    """(delivery form to score, status of the delivery-form claim) from the evidence."""
    measured = ctx.measured
    return ctx.rubric.delivery_form_check(
        ctx.offering.delivery_form,
        measured.bare_metal_verdict,
        measured.bare_metal_confidence,
        measured.delivery_form_seen,
    )


def _scale_efficiency(ctx: FactContext) -> tuple[float, str]:
    """The efficiency of the delivery form at the job's scale (collectives.scale_gpus: rubric
    v2 the GPUs the job runs on, v1 every delivered GPU). Rubric v2: measured only
    when the evidence verified the form; a refuted claim is a claim (its status,
    "contradicted", scales the efficiency of the least favourable form the evidence allows)."""
    form, status = _form_check(ctx)
    refuted_v1 = status == "contradicted" and ctx.rubric.v2 is None
    basis = MEASURED if status == "verified" or refuted_v1 else CLAIMED
    workload = ctx.evaluation.workload_profile
    gpus = scale_gpus(ctx.candidate.gpu_count, ctx.evaluation, ctx.rubric)
    return round(ctx.rubric.scale.efficiency(form, gpus, workload), 4), basis


def _delivery_form(ctx: FactContext) -> tuple[str, str]:
    """The delivery form the evidence shows (when confident) or the claim, and its basis:
    measured once the evidence verified the form. Rubric v2: a refuted claim is a claim, as in
    _scale_efficiency (its status, "contradicted", scales the points of the least favourable
    form the evidence allows); rubric v1 scores the form the evidence shows as measured."""
    form, status = _form_check(ctx)
    refuted_v1 = status == "contradicted" and ctx.rubric.v2 is None
    return form, (MEASURED if status == "verified" or refuted_v1 else CLAIMED)


def delivery_form_status(ctx: FactContext) -> str:
    """The status of the delivery-form claim: "verified", "contradicted" or "claimed"."""
    return _form_check(ctx)[1]


def review_only_status(status: str, review: str | None) -> str:
    """The status of a claim no node output can observe, filed under a checklist item whose
    status is ``status`` and whose document review (if one still applies) gave ``review``.

    Only the review settles it ("verified" or "contradicted"). Evidence that verified the
    item verified what the nodes show, not this claim: it stays "claimed" (never less than
    a claim the evidence is silent on, so confirming evidence never lowers a score). Any
    other status, a contradiction included, carries over as the item has it."""
    if review is not None:
        return review
    return CLAIMED if status == "verified" else status


def fabric_topology_status(ctx: FactContext) -> str:
    """The status of the fabric's switch-topology claims (oversubscription, cross-rack
    latency): review_only_status of checklist item 3 ("fabric")."""
    return review_only_status(
        ctx.answers.get("fabric", UNANSWERED), ctx.candidate.reviews.get("fabric")
    )


def _nvlink_ruled_out(ctx: FactContext) -> tuple[str, str] | None:
    offering = ctx.offering
    return nvlink_topology_ruled_out(
        offering.gpu_model, offering.gpus_per_node, offering.nvlink_topology
    )


def _form_factor_ruled_out(ctx: FactContext) -> tuple[str, str] | None:
    return form_factor_ruled_out(ctx.offering.gpu_model, ctx.offering.gpu_form_factor)


def nvlink_datasheet_status(ctx: FactContext) -> str:
    """The status of the NVLink topology claim: "contradicted" where the GPU's datasheet rules
    it out (reference.nvlink_topology_ruled_out: NVLink on a GPU without it, a full mesh of
    bridged PCIe cards), else checklist item 2's ("nvlink_topology")."""
    if _nvlink_ruled_out(ctx) is not None:
        return CONTRADICTED
    return ctx.answers.get("nvlink_topology", UNANSWERED)


def form_factor_datasheet_status(ctx: FactContext) -> str:
    """The status of the SXM/PCIe form-factor claim: "contradicted" where the GPU's datasheet
    rules it out (reference.form_factor_ruled_out: an SXM L40S), else checklist item 1's
    ("gpu_match")."""
    if _form_factor_ruled_out(ctx) is not None:
        return CONTRADICTED
    return ctx.answers.get("gpu_match", UNANSWERED)


def _datasheet_ref(reason: tuple[str, str] | None) -> str | None:
    """The reference a claim the datasheet rules out cites: the reason in English and Chinese,
    each naming the datasheet line."""
    return None if reason is None else f"{reason[0]} | {reason[1]}"


def nvme_capacity_status(ctx: FactContext) -> str:
    """The status of the local NVMe capacity claim: review_only_status of checklist item 4
    ("local_nvme"). fio measures bandwidth and IOPS, never a drive's size (no parser reads
    lsblk, nvme list or df), so fio verifying item 4 leaves the capacity a claim."""
    return review_only_status(
        ctx.answers.get("local_nvme", UNANSWERED), ctx.candidate.reviews.get("local_nvme")
    )


# Claim items the scoring derives rather than reads from the checklist. The delivery form is
# checked by the bare-metal verdict and the form the nodes show, so rules about the delivery
# form are gated by that check, not by an item no evidence can verify. The fabric's topology
# (oversubscription, cross-rack latency) sits under checklist item 3, but ibstat reads the
# port type, rate and state of one node and cannot see the switch tree above it: its rules
# are gated by a status only the document review of item 3 can verify. The local NVMe
# capacity sits under checklist item 4, whose evidence (fio) measures bandwidth, not size.
# The NVLink topology and the SXM/PCIe form factor sit under checklist items 2 and 1, but the
# GPU's datasheet (scoring.reference) already rules some declarations out: those are
# contradicted whatever the checklist says, and cite the datasheet (DERIVED_REFS).
DERIVED_ITEMS: dict[str, Callable[[FactContext], str]] = {
    "delivery_form": delivery_form_status,
    "fabric_topology": fabric_topology_status,
    "nvme_capacity": nvme_capacity_status,
    "nvlink_topology_datasheet": nvlink_datasheet_status,
    "gpu_form_factor_datasheet": form_factor_datasheet_status,
}
# The evidence references a derived claim item is judged on: a claim under "delivery_form"
# cites the node output that verified or refuted the form (no checklist answer records one);
# one under "fabric_topology" or "nvme_capacity" cites none of its own (no evidence file
# records one: ibstat and fio are no proof of them).
ITEM_REF_NAMES: dict[str, tuple[str, ...]] = {
    "delivery_form": ("delivery_form", "delivery_form_seen", "bare_metal_verdict"),
    "fabric_topology": (),
    "nvme_capacity": (),
    "nvlink_topology_datasheet": ("nvlink_topology",),
    "gpu_form_factor_datasheet": ("gpu_match",),
}
# Derived items that cite the datasheet where it rules the claim out (before any evidence).
DERIVED_REFS: dict[str, Callable[[FactContext], tuple[str, str] | None]] = {
    "nvlink_topology_datasheet": _nvlink_ruled_out,
    "gpu_form_factor_datasheet": _form_factor_ruled_out,
}
# A derived item that carries its checklist item's status where the evidence left one it
# cannot lift (a POC run missing at the deadline, fio refuting the bandwidth) cites that
# item's evidence while the two statuses agree, and nothing where they differ: fio verified
# item 4's bandwidth, the capacity stays claimed, and fio is no proof of it.
CARRIED_REF_ITEMS: dict[str, str] = {"nvme_capacity": "local_nvme"}


def item_ref_names(item: str) -> tuple[str, ...]:
    """The evidence_refs keys a claim under checklist (or derived) ``item`` cites."""
    return ITEM_REF_NAMES.get(item, (item,))


def claim_ref(ctx: FactContext, item: str) -> str | None:
    """The reference a claim under checklist (or derived) ``item`` cites for one candidate:
    the datasheet line that rules it out (DERIVED_REFS); for an item that carries another's
    evidence (CARRIED_REF_ITEMS), that item's reference while their statuses agree, else
    none; otherwise the first evidence reference recorded under item_ref_names(item)."""
    ruled_out = DERIVED_REFS.get(item)
    if ruled_out is not None:
        found = _datasheet_ref(ruled_out(ctx))
        if found is not None:
            return found
    refs = ctx.refs
    if not refs:
        return None
    carried = CARRIED_REF_ITEMS.get(item)
    if carried is not None:
        if claim_status(ctx, item) != claim_status(ctx, carried):
            return None
        item = carried
    return next(filter(None, map(refs.get, item_ref_names(item))), None)


def claim_status(ctx: FactContext, item: str) -> str:
    """The status of claim item ``item`` for one candidate: a checklist answer, or for a
    derived item (DERIVED_ITEMS) what the evidence (or the GPU's datasheet) settled."""
    derived = DERIVED_ITEMS.get(item)
    if derived is not None:
        return derived(ctx)
    return ctx.answers.get(item, UNANSWERED)


def _nvlink_topology(ctx: FactContext) -> tuple[str | None, str]:
    """The NVLink topology to score and its basis: what the nodes show (measured), else the
    claim. A claim the evidence refuted (checklist item 2 contradicted: nvidia-smi topo -m
    shows a poorer mesh, or nvidia-smi nvlink links down) or the GPU's datasheet rules out
    (nvlink_datasheet_status) is scored as the claim it is, at the contradicted factor, as
    every refuted claim is: misstating the mesh then scores below declaring the seen (or
    possible) topology honestly, instead of exactly like it."""
    return _seen_or_claimed(
        ctx.measured.nvlink_topology,
        ctx.offering.nvlink_topology,
        nvlink_datasheet_status(ctx),
    )


def _seen_or_claimed(seen: str | None, claim: str | None, status: str) -> tuple[str | None, str]:
    if seen is None or status == "contradicted":
        return claim, CLAIMED
    return seen, MEASURED


def _nvlink_topology_column(batch: Batch) -> list[tuple[str | None, str]]:
    return list(
        map(
            _seen_or_claimed,
            batch.raw("measured.nvlink_topology"),
            batch.raw("offering.nvlink_topology"),
            batch.status("nvlink_topology_datasheet"),
        )
    )


def _elasticity_fit(ctx: FactContext) -> tuple[float | None, str]:
    policy = ctx.rubric.v2
    if policy is None:
        return None, COMPUTED
    form, _basis = _delivery_form(ctx)
    fit = policy.elasticity_fit(
        ctx.evaluation.workload_profile, form, ctx.offering.provisioning_time_min
    )
    # The provisioning time is the vendor's word whatever the evidence says about the form:
    # the fit stays a claim (its checklist item's factor applies), so evidence that refutes
    # a form never lifts this rule above the same form declared honestly.
    return round(fit, 3), CLAIMED


# Column forms of the per-candidate functions above, for a batch (one evaluation, one rubric):
# the same values without a Python call per candidate and fact. A column function takes the
# Batch, so it reads the columns other facts fetched already. Most derived facts are functions
# of a few values the candidates of a batch share (the evaluation and rubric are the batch's):
# those are computed once per distinct key (by_key).


def by_key(batch: Batch, keys: Sequence[Any], fetch: Callable[[FactContext], Any]) -> list[Any]:
    """fetch(ctx) of every candidate of ``batch``, computed once per distinct key: ``keys[i]``
    holds everything ``fetch`` reads of candidate i. The batch keeps where each key first
    occurs, so the column is factorised without hashing its values (Batch.coded)."""
    positions = batch.key_positions(keys)
    column = once_per_key(keys, batch.ctxs, fetch, positions)
    batch.keyed(column, positions)
    return column


def _form_check_key(ctx: FactContext) -> Any:
    """What the delivery-form check reads: the claimed form, and the evidence about it when
    there is a bare-metal verdict or a form seen (a candidate without either, the usual case,
    is keyed by its claim alone)."""
    measured = ctx.measured
    if measured.bare_metal_verdict is None and measured.delivery_form_seen is None:
        return ctx.offering.delivery_form
    return (
        ctx.offering.delivery_form,
        measured.bare_metal_verdict,
        measured.bare_metal_confidence,
        measured.delivery_form_seen,
    )


def _form_check_keys(batch: Batch) -> list[Any]:
    """_form_check_key of every candidate."""
    verdicts = batch.raw("measured.bare_metal_verdict")
    seen = batch.raw("measured.delivery_form_seen")
    if verdicts.count(None) == len(verdicts) and seen.count(None) == len(seen):
        return batch.raw("offering.delivery_form")
    return list(map(_form_check_key, batch.ctxs))


_NODE_COUNT = attrgetter("node_count")


def _gpu_counts(batch: Batch) -> list[int]:
    """The candidate's GPUs (node_count x gpus_per_node) of every candidate."""
    nodes = map(_NODE_COUNT, batch.owners("candidate"))
    return list(map(mul, nodes, batch.raw("offering.gpus_per_node")))


def _scale_efficiency_column(batch: Batch) -> list[tuple[float, str]]:
    keys = list(zip(batch.shared(_form_check_keys), batch.shared(_gpu_counts), strict=True))
    return by_key(batch, keys, _scale_efficiency)


def _by_form_check(fetch: Callable[[FactContext], Any]) -> Callable[[Batch], list[Any]]:
    """The column of a function of the delivery-form check's inputs alone (the claimed form
    and the evidence about it)."""

    def column(batch: Batch) -> list[Any]:
        return by_key(batch, batch.shared(_form_check_keys), fetch)

    return column


_delivery_form_column = _by_form_check(_delivery_form)


def _fabric_topology_column(batch: Batch) -> list[str]:
    statuses = batch.status("fabric")
    reviews = [candidate.reviews.get("fabric") for candidate in batch.owners("candidate")]
    return list(map(review_only_status, statuses, reviews))


def _ruled_out_status(reason: tuple[str, str] | None, status: str) -> str:
    return status if reason is None else CONTRADICTED


_NVLINK_CLAIM = attrgetter("gpu_model", "gpus_per_node", "nvlink_topology")
_FORM_FACTOR_CLAIM = attrgetter("gpu_model", "gpu_form_factor")


def _per_claim(
    claims: list[tuple[Any, ...]], check: Callable[..., tuple[str, str] | None]
) -> list[tuple[str, str] | None]:
    """check(*claim) of every claim, computed once per distinct claim (a batch's offerings
    share a few GPU models and shapes)."""
    return once_per_key(claims, claims, lambda claim: check(*claim))


def _nvlink_ruled_out_column(batch: Batch) -> list[tuple[str, str] | None]:
    claims = list(map(_NVLINK_CLAIM, batch.owners("offering")))
    return _per_claim(claims, nvlink_topology_ruled_out)


def _form_factor_ruled_out_column(batch: Batch) -> list[tuple[str, str] | None]:
    claims = list(map(_FORM_FACTOR_CLAIM, batch.owners("offering")))
    return _per_claim(claims, form_factor_ruled_out)


def _nvlink_datasheet_column(batch: Batch) -> list[str]:
    reasons = batch.shared(_nvlink_ruled_out_column)
    return list(map(_ruled_out_status, reasons, batch.status("nvlink_topology")))


def _form_factor_datasheet_column(batch: Batch) -> list[str]:
    reasons = batch.shared(_form_factor_ruled_out_column)
    return list(map(_ruled_out_status, reasons, batch.status("gpu_match")))


def _nvme_capacity_status_column(batch: Batch) -> list[str]:
    statuses = batch.status("local_nvme")
    reviews = [candidate.reviews.get("local_nvme") for candidate in batch.owners("candidate")]
    return list(map(review_only_status, statuses, reviews))


# The column form of DERIVED_ITEMS, for a batch.
DERIVED_COLUMNS: dict[str, Callable[[Batch], list[str]]] = {
    "delivery_form": _by_form_check(delivery_form_status),
    "fabric_topology": _fabric_topology_column,
    "nvlink_topology_datasheet": _nvlink_datasheet_column,
    "gpu_form_factor_datasheet": _form_factor_datasheet_column,
    "nvme_capacity": _nvme_capacity_status_column,
}
# The column form of DERIVED_REFS, for a batch.
DERIVED_REF_COLUMNS: dict[str, Callable[[Batch], list[tuple[str, str] | None]]] = {
    "nvlink_topology_datasheet": _nvlink_ruled_out_column,
    "gpu_form_factor_datasheet": _form_factor_ruled_out_column,
}


def datasheet_refs(reasons: Sequence[tuple[str, str] | None]) -> list[str | None]:
    """_datasheet_ref of each reason (the column form of claim_ref's datasheet part)."""
    return list(map(_datasheet_ref, reasons))


def _elasticity_fit_column(batch: Batch) -> list[tuple[float | None, str]]:
    provisioning = batch.raw("offering.provisioning_time_min")
    keys = list(zip(batch.shared(_form_check_keys), provisioning, strict=True))
    return by_key(batch, keys, _elasticity_fit)


# The evidence references of the facts the delivery-form check derives.
_FORM_REFS = ("delivery_form_seen", "bare_metal_verdict")


def _rounded_column(field: str, scale: float | None, digits: int) -> Callable[..., list]:
    """round(value / scale, digits) (or round(value, digits)) of a measured float field for
    every candidate, None where unknown: Python's rounding, vectorised (kernel.py_round)."""
    get = attrgetter(field)

    def column(batch: Batch) -> list[Any]:
        values = list(map(get, batch.owners("measured")))
        known = None
        # numpy reads None as NaN, and a measured figure is never NaN (MeasuredFacts keeps
        # finite values only): NaN in the array means some figure is unknown.
        raw = np.array(values, float)
        if np.isnan(raw).any():
            known = [v is not None for v in values]
            values = [v if k else 0.0 for v, k in zip(values, known, strict=True)]
            raw = np.array(values, float)
        if scale is not None:
            raw = raw / scale
        rounded = py_round(raw, digits).tolist()
        if known is None:
            return rounded
        return [r if k else None for r, k in zip(rounded, known, strict=True)]

    return column


def _gpus_per_node_equivalent(ctx: FactContext) -> float:
    """A node's GPUs in full-GPU equivalents (rubric v2 counts MIG slices by their fraction)."""
    return gpus_per_node_equivalent(ctx.offering, ctx.rubric)


def _inter_node_traffic(ctx: FactContext) -> bool:
    """Whether the requirement needs traffic between nodes on this offering: the required GPUs
    do not fit in one of its nodes. A 1-node (or 1-GPU) need crosses no fabric. One node, not
    one declared NVLink domain (offering.nvlink_domain_gpus): the domain is a claim, and a
    scheduler may place the job's nodes in two domains, across the fabric (conservative; the
    fabric rules' sources say so)."""
    return ctx.evaluation.required_total_gpus > _gpus_per_node_equivalent(ctx)


def _per_gpu(rails: int, gpus: int) -> float | None:
    return round(rails / gpus, 3) if gpus > 0 else None


def _rails_per_gpu(ctx: FactContext) -> float | None:
    """The claimed compute rails (NICs) per GPU of a node: a rail-optimised node gives each
    GPU its own NIC (1.0), whatever the node's size."""
    return _per_gpu(ctx.offering.nics_per_node, ctx.offering.gpus_per_node)


def _measured_rails_per_gpu(ctx: FactContext) -> float | None:
    """The rails ibstat showed Active per GPU (the worst node's, measured.ib_rails_min), None
    where not measured or where the evidence refuted the fabric claim (checklist item 3
    contradicted): a refuted claim is scored as the claim it is, at the contradicted factor,
    so misstating the fabric scores below declaring it honestly."""
    rails = ctx.measured.ib_rails_min
    if rails is None or ctx.answers.get("fabric", UNANSWERED) == "contradicted":
        return None
    return _per_gpu(rails, ctx.offering.gpus_per_node)


def _fabric_gbit_s_per_gpu(ctx: FactContext) -> float | None:
    """The claimed compute-fabric injection bandwidth per GPU, Gb/s: the NICs of a node times
    their claimed rate, shared by the node's GPUs (nics_per_node x fabric_rate_gbit_s /
    gpus_per_node). What a collective between nodes moves per GPU, whatever the NICs' count:
    16 x 200G and 8 x 400G on 8 GPUs both give 400."""
    offering = ctx.offering
    return _gbit_s_per_gpu(offering.nics_per_node, offering.fabric_rate_gbit_s, offering)


def _gbit_s_per_gpu(rails: int, rate: float, offering: OfferingFacts) -> float | None:
    gpus = offering.gpus_per_node
    return round(rails * rate / gpus, 1) if gpus > 0 else None


def _measured_fabric_gbit_s_per_gpu(ctx: FactContext) -> float | None:
    """The injection bandwidth per GPU ibstat showed, Gb/s: the rails Active on the worst node
    (measured.ib_rails_min) times the slowest active rail's rate (ib_rate_gbit_s_min), over
    the node's GPUs. None where not measured or where the evidence refuted the fabric claim
    (checklist item 3 contradicted): a refuted claim is scored as the claim it is, at the
    contradicted factor, as for the rails (_measured_rails_per_gpu). No rail Active is 0
    whatever the rate. None too for a summary stored before the rails were counted (a rate,
    no rails): its NIC count is the vendor's, so _claimed_nics_at_measured_rate scores it."""
    measured = ctx.measured
    if ctx.answers.get("fabric", UNANSWERED) == "contradicted":
        return None
    rails, rate = measured.ib_rails_min, measured.ib_rate_gbit_s_min
    if rails == 0:
        return 0.0
    if rate is None or rails is None:
        return None
    return _gbit_s_per_gpu(rails, rate, ctx.offering)


def _claimed_nics_at_measured_rate(ctx: FactContext) -> float | None:
    """Gb/s per GPU for a summary stored before the rails were counted (ibstat's rate, no rail
    count): the claimed NICs less the ports down per node, as the cost's fabric share counts
    them (collectives.declared_fabric), at the slowest rate ibstat showed. The NIC count is
    the vendor's word, so the figure is a claim (its checklist item's factor applies, as the
    rails rule scores the same NICs): it never scores as measured. None where ibstat counted
    the rails (_measured_fabric_gbit_s_per_gpu reads them), showed no rate, or the evidence
    refuted the fabric claim."""
    measured = ctx.measured
    if ctx.answers.get("fabric", UNANSWERED) == "contradicted":
        return None
    rate = measured.ib_rate_gbit_s_min
    if measured.ib_rails_min is not None or rate is None:
        return None
    down = math.ceil((measured.ib_ports_down or 0) / max(ctx.candidate.node_count, 1))
    rails = max(ctx.offering.nics_per_node - down, 0)
    return _gbit_s_per_gpu(rails, rate, ctx.offering)


def _storage_per_gpu(value: Any, gpus: float) -> float | None:
    """A storage figure shared by ``gpus`` GPUs, per GPU (3 decimals; None where unknown).
    Rounding is monotone, so more capacity or bandwidth never scores less."""
    if value is None or gpus <= 0:
        return None
    return round(float(value) / gpus, 3)


def _nvme_capacity_tib_per_gpu(ctx: FactContext) -> float | None:
    """The claimed local NVMe capacity of a node over its GPUs, TiB per GPU: what one GPU's
    data pipeline can stage locally (a DGX H100's 8 x 3.84 TB = 27.94 TiB gives 3.49). None
    (not stated) where the offering gives no capacity: its column holds 0 when the vendor
    stated none, and no node has 0 TiB of NVMe, so 0 is no claim of 0 (the rule scores an
    unknown input at 0 points as it scored 0 TiB, and says it was not stated)."""
    offering = ctx.offering
    capacity = offering.nvme_capacity_tib
    if capacity is not None and not capacity > 0:
        return None
    return _storage_per_gpu(capacity, offering.gpus_per_node)


def _nvme_read_gbyte_s_per_gpu(ctx: FactContext) -> float | None:
    """The claimed NVMe read bandwidth of a node over its GPUs, GB/s per GPU."""
    offering = ctx.offering
    return _storage_per_gpu(offering.nvme_read_gbyte_s, offering.gpus_per_node)


def _nvme_write_gbyte_s_per_gpu(ctx: FactContext) -> float | None:
    """The claimed NVMe write bandwidth of a node over its GPUs, GB/s per GPU."""
    offering = ctx.offering
    return _storage_per_gpu(offering.nvme_write_gbyte_s, offering.gpus_per_node)


def _measured_nvme_read_gbyte_s_per_gpu(ctx: FactContext) -> float | None:
    """fio's NVMe read bandwidth of the worst node (measured.nvme_read_gbyte_s, as a report
    shows it) over the node's GPUs, GB/s per GPU."""
    return _storage_per_gpu(_nvme_read(ctx), ctx.offering.gpus_per_node)


def _measured_nvme_write_gbyte_s_per_gpu(ctx: FactContext) -> float | None:
    """fio's NVMe write bandwidth of the worst node over the node's GPUs, GB/s per GPU."""
    return _storage_per_gpu(_nvme_write(ctx), ctx.offering.gpus_per_node)


def _dfs_gbyte_s_per_gpu(ctx: FactContext) -> float | None:
    """The claimed aggregate bandwidth of the distributed file system over the GPUs the job
    runs on (collectives.scale_gpus: the requirement, at most the GPUs delivered), GB/s per
    GPU: the file system is shared by every node of the job, so its size, not a node's, is
    the divisor."""
    gpus = scale_gpus(ctx.candidate.gpu_count, ctx.evaluation, ctx.rubric)
    return _storage_per_gpu(ctx.offering.distributed_fs_bandwidth_gbyte_s, gpus)


def _per_gpu_column(
    field: str, fetch: Callable[[FactContext], Any]
) -> Callable[[Batch], list[Any]]:
    """The column of a node figure (``field`` of the offering) over the node's GPUs."""

    def column(batch: Batch) -> list[Any]:
        keys = list(zip(batch.raw(field), batch.raw("offering.gpus_per_node"), strict=True))
        return by_key(batch, keys, fetch)

    return column


def _measured_per_gpu_column(field: str) -> Callable[[Batch], list[Any]]:
    """The column of a measured fio figure in MB/s (``field`` of MeasuredFacts) as GB/s over
    the node's GPUs: what _measured_nvme_read_gbyte_s_per_gpu (or write) gives each candidate,
    computed from the two columns (a measured figure is seldom shared, so keying it per
    candidate cost more than the arithmetic)."""
    get = attrgetter(field)

    def column(batch: Batch) -> list[Any]:
        values = list(map(get, batch.owners("measured")))
        if values.count(None) == len(values):
            return values  # nothing measured (the usual batch)
        # round(round(v / 1000, 2) / gpus, 3) of each, in numpy (py_round is round() bit for
        # bit; IEEE division is the same in both); None where unmeasured or no GPU.
        mbyte_s = np.array([np.nan if v is None else v for v in values], dtype=float)
        gpus = np.array(batch.raw("offering.gpus_per_node"), dtype=float)
        known = ~np.isnan(mbyte_s) & (gpus > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            per_gpu = py_round(py_round(mbyte_s / 1000.0, 2) / gpus, 3)
        return _none_where(per_gpu, known)

    return column


def _none_where(values: np.ndarray, known: np.ndarray) -> list[float | None]:
    """``values`` as a list of floats, None where not ``known``."""
    out: list[Any] = values.tolist()
    if not known.all():
        for index in np.flatnonzero(~known).tolist():
            out[index] = None
    return out


def _dfs_gbyte_s_per_gpu_column(batch: Batch) -> list[float | None]:
    keys = list(
        zip(
            batch.raw("offering.distributed_fs_bandwidth_gbyte_s"),
            batch.shared(_gpu_counts),
            strict=True,
        )
    )
    return by_key(batch, keys, _dfs_gbyte_s_per_gpu)


def _gpu_to_gpu_traffic(ctx: FactContext) -> bool:
    """Whether the requirement needs traffic between GPUs at all (more than one GPU)."""
    return ctx.evaluation.required_total_gpus > 1


def _nvlink_reference(ctx: FactContext) -> bool:
    """Whether the rubric's NVLink and SXM/PCIe rules apply to the offering's GPU: False for
    a family scoring.reference names without NVIDIA's figures (Huawei Ascend, AMD Instinct:
    reference.other_accelerator), whose own interconnect the rubric has no reference for, so
    it is neither scored as an NVIDIA part without NVLink nor credited; True otherwise (an
    NVIDIA GPU, or a name the table does not know: judged on the claim as before)."""
    return other_accelerator(ctx.offering.gpu_model) is None


_GPU_MODEL = attrgetter("gpu_model")


def _nvlink_reference_column(batch: Batch) -> list[bool]:
    models = list(map(_GPU_MODEL, batch.owners("offering")))
    return once_per_key(models, models, lambda model: other_accelerator(model) is None)


_NODE_SHAPE = attrgetter("gpus_per_node", "mig_profile", "gpu_model")


def _inter_node_traffic_column(batch: Batch) -> list[bool]:
    # A function of the evaluation (shared by the batch) and the offering's node shape.
    keys = list(map(_NODE_SHAPE, batch.owners("offering")))
    return by_key(batch, keys, _inter_node_traffic)


def _rails_per_gpu_column(batch: Batch) -> list[float | None]:
    keys = list(
        zip(batch.raw("offering.nics_per_node"), batch.raw("offering.gpus_per_node"), strict=True)
    )
    return by_key(batch, keys, _rails_per_gpu)


def _measured_rails_per_gpu_column(batch: Batch) -> list[float | None]:
    rails = batch.raw("measured.ib_rails_min")
    if rails.count(None) == len(rails):
        return list(rails)  # nothing measured (the usual batch)
    keys = list(
        zip(rails, batch.raw("offering.gpus_per_node"), batch.status("fabric"), strict=True)
    )
    return by_key(batch, keys, _measured_rails_per_gpu)


def _fabric_gbit_s_per_gpu_column(batch: Batch) -> list[float | None]:
    keys = list(
        zip(
            batch.raw("offering.nics_per_node"),
            batch.raw("offering.fabric_rate_gbit_s"),
            batch.raw("offering.gpus_per_node"),
            strict=True,
        )
    )
    return by_key(batch, keys, _fabric_gbit_s_per_gpu)


_IBSTAT_FACTS = attrgetter("ib_rails_min", "ib_rate_gbit_s_min", "ib_ports_down")


def _ibstat_arrays(batch: Batch) -> dict[str, np.ndarray] | None:
    """What the two fabric-bandwidth facts read, as arrays (NaN where unknown), or None when
    no candidate of the batch has ibstat's rails or rate (the usual batch)."""
    ibstat = list(map(_IBSTAT_FACTS, batch.owners("measured")))
    if all(rails is None and rate is None for rails, rate, _down in ibstat):
        return None
    rails, rate, down = (
        np.array([np.nan if v is None else v for v in column], dtype=float)
        for column in zip(*ibstat, strict=True)
    )
    return {
        "rails": rails,
        "rate": rate,
        "down": np.nan_to_num(down, nan=0.0),  # `ports_down or 0`
        "nics": np.array(batch.raw("offering.nics_per_node"), dtype=float),
        "gpus": np.array(batch.raw("offering.gpus_per_node"), dtype=float),
        "nodes": np.array(list(map(_NODE_COUNT, batch.owners("candidate"))), dtype=float),
        "refuted": np.array([s == "contradicted" for s in batch.status("fabric")], dtype=bool),
    }


def _per_gpu_gbit_s(rails: np.ndarray, rate: np.ndarray, gpus: np.ndarray) -> np.ndarray:
    """round(rails * rate / gpus, 1) of each (_gbit_s_per_gpu), in numpy."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return py_round(rails * rate / gpus, 1)


def _measured_fabric_gbit_s_per_gpu_column(batch: Batch) -> list[float | None]:
    """_measured_fabric_gbit_s_per_gpu of every candidate, computed over the batch."""
    a = batch.shared(_ibstat_arrays)
    if a is None:
        return [None] * len(batch.owners("measured"))
    rails, rate = a["rails"], a["rate"]
    no_rail = rails == 0
    value = np.where(no_rail, 0.0, _per_gpu_gbit_s(rails, rate, a["gpus"]))
    known = ~a["refuted"] & (no_rail | (~np.isnan(rate) & ~np.isnan(rails) & (a["gpus"] > 0)))
    return _none_where(value, known)


def _claimed_nics_at_measured_rate_column(batch: Batch) -> list[float | None]:
    """_claimed_nics_at_measured_rate of every candidate, computed over the batch."""
    a = batch.shared(_ibstat_arrays)
    if a is None:
        return [None] * len(batch.owners("measured"))
    rate = a["rate"]
    # ceil(down / max(nodes, 1)) ports lost per node, as collectives.declared_fabric counts.
    lost = np.ceil(a["down"] / np.maximum(a["nodes"], 1.0))
    rails = np.maximum(a["nics"] - lost, 0.0)
    value = _per_gpu_gbit_s(rails, rate, a["gpus"])
    known = ~a["refuted"] & np.isnan(a["rails"]) & ~np.isnan(rate) & (a["gpus"] > 0)
    return _none_where(value, known)


def _gpu_to_gpu_traffic_column(batch: Batch) -> list[bool]:
    if not batch.ctxs:
        return []
    return [_gpu_to_gpu_traffic(batch.ctxs[0])] * len(batch.ctxs)


def _budget_ratio_column(batch: Batch) -> list[float | None]:
    ctxs = batch.ctxs
    if not ctxs:
        return []
    evaluation = ctxs[0].evaluation
    budget = evaluation.budget_total
    if budget is None or budget <= 0:
        return [None] * len(ctxs)
    # A ranking's PendingTco carries the ratio already (no Decimal division per candidate).
    tcos = batch.owners("tco")
    found = _pending_figures(tcos, "budget_ratio")
    if found is not None:
        return found
    return [budget_ratio(tco, evaluation) for tco in tcos]


_PENDING_FIGURES = {name: attrgetter(name) for name in ("budget_ratio", "effective_price_ratio")}


def _pending_figures(tcos: list[Any], name: str) -> list[Any] | None:
    """Figure ``name`` (budget_ratio or effective_price_ratio) of every TCO, as those
    functions give it, read from the slots when every TCO is a ranking's PendingTco or None
    (no price: no figure); None when some TCO is an exact one."""
    kinds = set(map(type, tcos))
    unpriced = type(None) in kinds
    kinds.discard(type(None))
    if kinds and kinds != {PendingTco}:
        return None
    get = _PENDING_FIGURES[name]
    if unpriced:
        return [None if tco is None else get(tco) for tco in tcos]
    return list(map(get, tcos))


def _effective_price_ratio_column(batch: Batch) -> list[float | None]:
    found = _pending_figures(batch.owners("tco"), "effective_price_ratio")
    if found is not None:
        return found
    models = map(attrgetter("gpu_model"), batch.owners("offering"))
    rubric = batch.ctxs[0].rubric if batch.ctxs else None
    return [
        effective_price_ratio(tco, model, rubric)  # type: ignore[arg-type]
        for tco, model in zip(batch.owners("tco"), models, strict=True)
    ]


def _has_distributed_fs_column(batch: Batch) -> list[bool]:
    names = batch.raw("offering.distributed_fs")
    return by_key(batch, names, _has_distributed_fs)


def _dcgm_failed_count_column(batch: Batch) -> list[int | None]:
    failed = map(attrgetter("dcgm_failed_tests"), batch.owners("measured"))
    return [None if tests is None else len(tests) for tests in failed]


def _dcgm_result_column(batch: Batch) -> list[str | None]:
    return list(
        map(
            _dcgm_result,
            batch.raw("measured.dcgm_overall"),
            batch.raw("measured.dcgm_stress_tested"),
        )
    )


def _answer_column(key: str) -> Callable[[Batch], list[str]]:
    def column(batch: Batch) -> list[str]:
        if key not in DERIVED_ITEMS and key not in DERIVED_COLUMNS:
            # The same list as the item's claim status (Batch.status), read once for both.
            return batch.status(key)
        return [answers.get(key, UNANSWERED) for answers in batch.answers]

    return column


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


def fact_value(name: str, ctx: FactContext) -> tuple[Any, str]:
    """The value and basis of one fact for one candidate."""
    source = FACTS[name]
    if source.basis is None:
        return source.fetch(ctx)
    return source.fetch(ctx), source.basis
