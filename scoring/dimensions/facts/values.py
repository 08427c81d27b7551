"""Per-candidate fact functions beyond the per-GPU figures (per_gpu): a field's and an
answer's fetchers, measured figures at the precision a report shows, DCGM's result, the
delivery form and its efficiency at the job's scale, the NVLink topology and the elasticity
fit."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from ...collectives import scale_gpus
from .context import CLAIMED, COMPUTED, MEASURED, UNANSWERED, FactContext
from .items import _form_check, interconnect_note, nvlink_datasheet_status


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


def _nvlink_topology(ctx: FactContext) -> tuple[str | None, str]:
    """The NVLink topology to score and its basis: what the nodes show (measured), else the
    claim. A claim the evidence refuted (checklist item 2 contradicted: nvidia-smi topo -m
    shows a poorer mesh, or nvidia-smi nvlink links down) or the GPU's datasheet rules out
    (nvlink_datasheet_status) is scored as the claim it is, at the contradicted factor, as
    every refuted claim is: misstating the mesh then scores below declaring the seen (or
    possible) topology honestly, instead of exactly like it."""
    # An Ascend's or Instinct's interconnect is no NVLink a node output shows: the claim only.
    seen = ctx.measured.nvlink_topology if interconnect_note(ctx) is None else None
    return _seen_or_claimed(seen, ctx.offering.nvlink_topology, nvlink_datasheet_status(ctx))


def _seen_or_claimed(seen: str | None, claim: str | None, status: str) -> tuple[str | None, str]:
    if seen is None or status == "contradicted":
        return claim, CLAIMED
    return seen, MEASURED


def _elasticity_fit(ctx: FactContext) -> tuple[float | None, str]:
    policy = ctx.rubric.v2
    if policy is None:
        return None, COMPUTED
    workload, provisioning = ctx.evaluation.workload_profile, ctx.offering.provisioning_time_min
    if provisioning is None and policy.provisioning_fit.get(workload) is not None:
        # The fit is read from the provisioning time, which the vendor did not state: the
        # rule is "missing" (0 points, as the 0.0 fit earned), not a claimed fit of 0.0.
        return None, CLAIMED
    form, _basis = _delivery_form(ctx)
    fit = policy.elasticity_fit(workload, form, provisioning)
    # The provisioning time is the vendor's word whatever the evidence says about the form:
    # the fit stays a claim (its checklist item's factor applies), so evidence that refutes
    # a form never lifts this rule above the same form declared honestly.
    return round(fit, 3), CLAIMED
