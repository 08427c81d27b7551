"""Column forms of the per-candidate functions (values, items), for a batch (one evaluation,
one rubric): the same values without a Python call per candidate and fact. A column function
takes the Batch, so it reads the columns other facts fetched already. Most derived facts are
functions of a few values the candidates of a batch share (the evaluation and rubric are the
batch's): those are computed once per distinct key (by_key).

Here: by_key and the delivery-form check's keys; the columns of the NVLink topology, the
delivery form, its efficiency at scale and the elasticity fit; the derived items' statuses and
datasheet references (DERIVED_COLUMNS, DERIVED_REF_COLUMNS); rounded measured figures; the TCO
ratios, DCGM and the answers. The per-GPU figures' columns are in per_gpu.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter, mul
from typing import TYPE_CHECKING, Any

import numpy as np

from ...batching import once_per_key
from ...reference import (
    form_factor_ruled_out,
    interconnect_reference_gap,
    nvlink_topology_ruled_out,
)
from ...tco import PendingTco, budget_ratio, effective_price_ratio
from ..rounding import py_round
from .context import CONTRADICTED, UNANSWERED, FactContext
from .items import DERIVED_ITEMS, _datasheet_ref, delivery_form_status, review_only_status
from .values import (
    _dcgm_result,
    _delivery_form,
    _elasticity_fit,
    _has_distributed_fs,
    _scale_efficiency,
    _seen_or_claimed,
)

if TYPE_CHECKING:
    from ..batch import Batch


def interconnect_note_column(batch: Batch) -> list[str | None]:
    """items.interconnect_note of every candidate (once per GPU model)."""
    models = [offering.gpu_model for offering in batch.owners("offering")]
    return once_per_key(models, models, interconnect_reference_gap)


def _nvlink_topology_column(batch: Batch) -> list[tuple[str | None, str]]:
    seen = batch.raw("measured.nvlink_topology")
    notes = batch.shared(interconnect_note_column)
    if notes.count(None) != len(notes):
        # No node output shows an Ascend's or Instinct's interconnect (values._nvlink_topology).
        seen = [value if note is None else None for value, note in zip(seen, notes, strict=True)]
    return list(
        map(
            _seen_or_claimed,
            seen,
            batch.raw("offering.nvlink_topology"),
            batch.status("nvlink_topology_datasheet"),
        )
    )


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


def _review_only_column(item: str) -> Callable[[Batch], list[str]]:
    """The column of review_only_status of checklist ``item``: the status of a claim under
    it that only a document review verifies (fabric_topology_status, nvme_capacity_status)."""

    def column(batch: Batch) -> list[str]:
        reviews = [candidate.reviews.get(item) for candidate in batch.owners("candidate")]
        return list(map(review_only_status, batch.status(item), reviews))

    return column


def _ruled_out_status(reason: tuple[str, str] | None, status: str) -> str:
    return status if reason is None else CONTRADICTED


_NVLINK_CLAIM = attrgetter(
    "gpu_model", "gpus_per_node", "nvlink_topology", "gpu_form_factor", "gpu_memory_gib"
)
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


def _datasheet_column(
    ruled_out: Callable[[Batch], list[tuple[str, str] | None]], item: str
) -> Callable[[Batch], list[str]]:
    """The column of a claim the GPU's datasheet may rule out: contradicted where
    ``ruled_out`` gives a reason, else checklist ``item``'s status (review_only_status for a
    GPU without NVIDIA's NVLink figures: items._interconnect_status)."""

    def column(batch: Batch) -> list[str]:
        statuses = batch.status(item)
        notes = batch.shared(interconnect_note_column)
        if notes.count(None) != len(notes):
            reviews = [candidate.reviews.get(item) for candidate in batch.owners("candidate")]
            statuses = [
                status if note is None else review_only_status(status, review)
                for status, note, review in zip(statuses, notes, reviews, strict=True)
            ]
        return list(map(_ruled_out_status, batch.shared(ruled_out), statuses))

    return column


# The column form of DERIVED_ITEMS, for a batch.
DERIVED_COLUMNS: dict[str, Callable[[Batch], list[str]]] = {
    "delivery_form": _by_form_check(delivery_form_status),
    "fabric_topology": _review_only_column("fabric"),
    "nvlink_topology_datasheet": _datasheet_column(_nvlink_ruled_out_column, "nvlink_topology"),
    "gpu_form_factor_datasheet": _datasheet_column(_form_factor_ruled_out_column, "gpu_match"),
    "nvme_capacity": _review_only_column("local_nvme"),
}
# The column form of DERIVED_REFS, for a batch.
DERIVED_REF_COLUMNS: dict[str, Callable[[Batch], list[tuple[str, str] | None]]] = {
    "nvlink_topology_datasheet": _nvlink_ruled_out_column,
    "gpu_form_factor_datasheet": _form_factor_ruled_out_column,
}


# The column form of DERIVED_NOTES, for a batch.
DERIVED_NOTE_COLUMNS: dict[str, Callable[[Batch], list[str | None]]] = {
    "nvlink_topology_datasheet": interconnect_note_column,
    "gpu_form_factor_datasheet": interconnect_note_column,
}


def datasheet_refs(reasons: Sequence[tuple[str, str] | None]) -> list[str | None]:
    """_datasheet_ref of each reason (the column form of claim_ref's datasheet part)."""
    return list(map(_datasheet_ref, reasons))


def _elasticity_fit_column(batch: Batch) -> list[tuple[float | None, str]]:
    provisioning = batch.raw("offering.provisioning_time_min")
    keys = list(zip(batch.shared(_form_check_keys), provisioning, strict=True))
    return by_key(batch, keys, _elasticity_fit)


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
