"""The per-GPU figures of a node (fabric rails and injection bandwidth, local NVMe and the
distributed file system), whether the requirement needs traffic between nodes or GPUs, and
whether NVIDIA's reference figures apply to the GPU (and the evidence lines of the rules that
need them): per candidate, then as columns."""

from __future__ import annotations

import math
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from ...batching import once_per_key
from ...collectives import gpus_per_node_equivalent, scale_gpus
from ...reference import collective_reference_gap, other_accelerator
from ...types import OfferingFacts
from ..rounding import py_round
from .columns import _NODE_COUNT, _gpu_counts, by_key
from .context import UNANSWERED, FactContext
from .values import _nvme_read, _nvme_write

if TYPE_CHECKING:
    from ..batch import Batch


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
    """Whether NVIDIA's reference figures (NVLink, the nccl-tests expectation) apply to the
    offering's GPU: False for a family scoring.reference names without them (Huawei Ascend,
    AMD Instinct: reference.other_accelerator). Such a part is scored no better than an
    unmeasured candidate declaring the same: its collective bus-bandwidth rules count as
    missing (their measurable_if), its interconnect claims as declared and never verified by
    a node output (items.nvlink_datasheet_status). True otherwise (an NVIDIA GPU, or a name
    the table does not know: judged on the claim as before)."""
    return other_accelerator(ctx.offering.gpu_model) is None


_GPU_MODEL = attrgetter("gpu_model")


def _nvlink_reference_column(batch: Batch) -> list[bool]:
    models = list(map(_GPU_MODEL, batch.owners("offering")))
    return once_per_key(models, models, lambda model: other_accelerator(model) is None)


def _collective_reference_note(ctx: FactContext) -> str | None:
    """The evidence line of a collective rule the GPU has no reference for (see
    reference.collective_reference_gap), None for a GPU with one."""
    return collective_reference_gap(ctx.offering.gpu_model)


def _collective_reference_note_column(batch: Batch) -> list[str | None]:
    models = list(map(_GPU_MODEL, batch.owners("offering")))
    return once_per_key(models, models, collective_reference_gap)


# The evidence line a rule that cannot be measured shows, by the measurable_if condition that
# failed (per candidate, and as a column): why no measurement can settle it.
MEASURABLE_NOTES: dict[
    str, tuple[Callable[[FactContext], str | None], Callable[[Batch], list[str | None]]]
] = {
    "derived.nvlink_reference": (_collective_reference_note, _collective_reference_note_column),
}


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
