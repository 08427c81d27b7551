"""Claim items, one candidate at a time: the delivery-form check, the items the scoring derives
rather than reads from the checklist (DERIVED_ITEMS, their references ITEM_REF_NAMES,
DERIVED_REFS and CARRIED_REF_ITEMS), and the status and reference of a claim under any item
(claim_status, claim_ref)."""

from __future__ import annotations

from collections.abc import Callable

from ...reference import (
    form_factor_ruled_out,
    interconnect_reference_gap,
    nvlink_topology_ruled_out,
)
from .context import CLAIMED, CONTRADICTED, UNANSWERED, FactContext


def _form_check(ctx: FactContext) -> tuple[str, str]:
    """(delivery form to score, status of the delivery-form claim) from the evidence."""
    measured = ctx.measured
    return ctx.rubric.delivery_form_check(
        ctx.offering.delivery_form,
        measured.bare_metal_verdict,
        measured.bare_metal_confidence,
        measured.delivery_form_seen,
    )


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
        offering.gpu_model,
        offering.gpus_per_node,
        offering.nvlink_topology,
        offering.gpu_form_factor,
        offering.gpu_memory_gib,
    )


def _form_factor_ruled_out(ctx: FactContext) -> tuple[str, str] | None:
    return form_factor_ruled_out(ctx.offering.gpu_model, ctx.offering.gpu_form_factor)


def interconnect_note(ctx: FactContext) -> str | None:
    """The evidence line of an NVLink or SXM/PCIe claim of a GPU without NVIDIA's NVLink
    figures (reference.interconnect_reference_gap), None for a GPU with them."""
    return interconnect_reference_gap(ctx.offering.gpu_model)


def _interconnect_status(ctx: FactContext, item: str) -> str:
    """Checklist ``item``'s status for an interconnect claim: as the item has it, except for a
    GPU without NVIDIA's NVLink figures (an Ascend's HCCS, an Instinct's Infinity Fabric),
    whose claim no node output the portal reads can observe: review_only_status (evidence
    that verified the item verified something else; only a document review settles it)."""
    status = ctx.answers.get(item, UNANSWERED)
    if interconnect_note(ctx) is None:
        return status
    return review_only_status(status, ctx.candidate.reviews.get(item))


def nvlink_datasheet_status(ctx: FactContext) -> str:
    """The status of the NVLink topology claim: "contradicted" where the GPU's datasheet rules
    it out (reference.nvlink_topology_ruled_out: NVLink on a GPU without it, a full mesh of
    bridged PCIe cards), else checklist item 2's ("nvlink_topology"), at most "claimed" for a
    GPU without NVIDIA's NVLink figures until a document review (_interconnect_status)."""
    if _nvlink_ruled_out(ctx) is not None:
        return CONTRADICTED
    return _interconnect_status(ctx, "nvlink_topology")


def form_factor_datasheet_status(ctx: FactContext) -> str:
    """The status of the SXM/PCIe form-factor claim: "contradicted" where the GPU's datasheet
    rules it out (reference.form_factor_ruled_out: an SXM L40S), else checklist item 1's
    ("gpu_match"), at most "claimed" for a GPU without NVIDIA's NVLink figures until a
    document review (_interconnect_status)."""
    if _form_factor_ruled_out(ctx) is not None:
        return CONTRADICTED
    return _interconnect_status(ctx, "gpu_match")


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
# Derived items that cite why a claim is scored as declared where no reference applies (after
# the datasheet, before any evidence): an Ascend's or Instinct's interconnect.
DERIVED_NOTES: dict[str, Callable[[FactContext], str | None]] = {
    "nvlink_topology_datasheet": interconnect_note,
    "gpu_form_factor_datasheet": interconnect_note,
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
    the datasheet line that rules it out (DERIVED_REFS); why it is scored as declared
    (DERIVED_NOTES); for an item that carries another's
    evidence (CARRIED_REF_ITEMS), that item's reference while their statuses agree, else
    none; otherwise the first evidence reference recorded under item_ref_names(item)."""
    ruled_out = DERIVED_REFS.get(item)
    if ruled_out is not None:
        found = _datasheet_ref(ruled_out(ctx))
        if found is not None:
            return found
    note = DERIVED_NOTES.get(item)
    if note is not None:
        found = note(ctx)
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
