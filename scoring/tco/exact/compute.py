"""Total cost of ownership per billing model, the cheapest model, break-even and effective cost.

All money is Decimal in the offering's currency. Each cost component is rounded to cents
(half to even) once, and a total is the exact sum of its rounded components, so a TCO always
equals the sum of its parts. Conventions (documented in the README):

- a month is 365/12 days; the evaluation runs ``duration_days`` of which
  ``expected_idle_days`` are unused, so ``used_days = duration_days - expected_idle_days``;
- hourly: price x GPUs x used_days x 24 (released while idle);
- spot: as hourly, divided by (1 - preemption risk) because preempted time must be re-run;
- monthly: price x GPUs x whole months covering the duration (idle days are paid);
- yearly: price x GPUs x whole years covering the duration;
- storage, egress and support (month totals) and vGPU licences (per GPU-month) are paid for
  the whole duration, prorated by days;
- setup: the one-off fee plus ``setup_days`` paid at the model's daily rate before use (rubric
  v2: only those the whole months or years billed do not already cover).

Rubric v2 (issue #10 §3) adds:

- spot: the preemption risk is the delivery form's default unless the vendor states a higher
  one or a lower one the cost statement's review verified (spot_risk_pct), and the hours also
  grow by the checkpoint/restart overhead: used hours x (1 + overhead) / (1 - risk);
- hourly: an offering that cannot be released by the hour (``releasable_hourly`` false, or
  unstated or unverified for a form that usually cannot: bare metal) pays every day, idle ones
  included (releasable_hourly);
- commitment: when the evaluation is shorter than the minimum commitment, the cheaper of
  paying the rest of the commitment at the model's day rate and the early-termination fee;
- the recommended billing model: the cheapest one allowed for the workload (spot is never
  recommended for a long synchronous job, from workload, node count and duration: see
  spot_allowed), with its reason; the cost score and the budget use its total;
- efficiency: the scale rule, capped by the measured bus-bandwidth fraction (at most 1) or, when
  unmeasured, by the delivery form's conservative assumed fraction (basis "assumed");
- GPU-hours of the effective cost count MIG slices in full-GPU equivalents, and only the
  GPUs the evaluation requires when the delivery exceeds them (billing.effective_hours
  "required"): surplus GPUs are paid but add no useful work (Tco.assumptions says so);
- availability (availability_for) never falls below the rubric's conservative floor: no SLA
  ("unanswered") and a contradicted one ("contradicted") take it; a stated SLA adds the gap
  above it at the SLA item's claim factor ("stated"), in full once "verified", but at most
  at the claimed factor ("unbacked") when the availability rule's backing (backed_by: the
  credit on breach) is zero or not stated;
- operations staff: a vendor-managed option counts once the cost statement is verified.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal
from typing import Any

from ...collectives import collectives
from ...rubric import Rubric, load_rubric
from ...types import CENT, CandidateInput, EvaluationSpec, RubricError, ScoringInputError, TcoError
from .result import Tco, _Breakdown
from .terms import (
    _DAYS_PER_YEAR,
    _HOURS_PER_DAY,
    _HUNDRED,
    _NEGATIVE_ZERO,
    _ONE,
    _RATE,
    _ZERO,
    _ZERO_CENTS,
    _sla_backed,
    availability_for,
    efficiency_for,
    operations_cost,
    priced_form,
    releasable_hourly,
    spot_allowed,
)


class TcoPlan:
    """The evaluation-wide quantities every candidate's TCO uses (computed once per ranking),
    and what candidates of one ranking share: the GPU count as a Decimal with its used
    GPU-hours, and the spot hours per preemption risk (both functions of a value alone)."""

    __slots__ = (
        "allow_spot",
        "availability",
        "duration",
        "duration_hours",
        "duration_months",
        "gpus",
        "months_billed",
        "spot_hours",
        "used_days",
        "used_hours",
        "years_billed",
    )

    def __init__(self, evaluation: EvaluationSpec) -> None:
        self.duration = evaluation.duration_days
        self.used_days = self.duration - evaluation.expected_idle_days
        self.duration_months = Decimal(self.duration * 12) / _DAYS_PER_YEAR
        self.months_billed = self.duration_months.to_integral_value(ROUND_CEILING)
        self.years_billed = (Decimal(self.duration) / _DAYS_PER_YEAR).to_integral_value(
            ROUND_CEILING
        )
        self.used_hours = Decimal(self.used_days) * _HOURS_PER_DAY
        self.duration_hours = Decimal(self.duration) * _HOURS_PER_DAY
        self.gpus: dict[int, tuple[Decimal, Decimal]] = {}
        self.spot_hours: dict[tuple[Decimal, bool], Decimal] = {}
        # spot_allowed() by rubric id, then node count: a function of those and the evaluation.
        self.allow_spot: dict[int, dict[int, bool]] = {}
        # availability_for() by rubric id, then (stated SLA, SLA item status, backed).
        self.availability: dict[int, dict[tuple[Any, Any], tuple[Decimal, str]]] = {}


def compute_tco(
    candidate: CandidateInput,
    evaluation: EvaluationSpec,
    rubric: Rubric | None = None,
    plan: TcoPlan | None = None,
) -> Tco:
    """The TCO of ``candidate`` over ``evaluation``'s duration and idle days (see the module
    docstring for the conventions). ``plan`` may be passed to reuse TcoPlan(evaluation).

    Raises TcoError when the candidate has no price for any billing model.
    """
    rubric = rubric or load_rubric()
    plan = plan or TcoPlan(evaluation)
    offering = candidate.offering
    prices = candidate.effective_prices()
    if not prices:
        raise TcoError(
            f"candidate {candidate.label!r} has no price for any billing model "
            "(enter a quoted or list price: hourly, spot, monthly or yearly)"
        )
    currency = offering.currency
    gpu_count = candidate.gpu_count
    found = plan.gpus.get(gpu_count)
    if found is None:
        gpus = Decimal(gpu_count)
        found = plan.gpus[gpu_count] = (gpus, gpus * plan.used_hours)
    gpus, gpu_hours = found
    duration_months = plan.duration_months
    used_hours = plan.used_hours
    cent, half_even = CENT, ROUND_HALF_EVEN

    # Components that do not depend on the billing model.
    storage = (offering.storage_cost_month * duration_months).quantize(cent, half_even)
    egress = (offering.network_egress_cost_month * duration_months).quantize(cent, half_even)
    support = (offering.support_cost_month * duration_months).quantize(cent, half_even)
    licence = (offering.licence_cost_gpu_month * gpus * duration_months).quantize(cent, half_even)
    shared = storage + egress + support + licence
    setup_fee, setup_days = offering.setup_fee, offering.setup_days
    if not setup_days:
        # The day-rate term is then a zero carrying the price's sign, and a zero term can
        # change the rounded sum only through that sign: one rounding serves every model
        # priced with an unsigned number.
        setup_without_days = (setup_fee + _ZERO).quantize(cent, half_even)

    policy = rubric.v2
    operations = _ZERO_CENTS
    staffing = None
    if policy is not None:
        operations = operations_cost(candidate, evaluation, rubric, duration_months)
        shared += operations
        if operations > 0:
            capacity = evaluation.ops_capacity
            staffing = (
                capacity,
                policy.ops_fte[capacity],
                f"{evaluation.ops_staff_cost_month} {evaluation.budget_currency}",
            )
    risk, hourly_hours, commitment_days, allow_spot = _billing_terms(
        candidate, evaluation, rubric, plan
    )

    # Only each model's total is needed to rank; its ModelCost is built when first read.
    rows: list[str | Decimal] = []
    best_model, best_total = "", None
    rec_model, rec_total = "", None
    hourly_day_rate = monthly_gpu = None
    for price in prices:
        model, per_gpu = price.billing_model, price.price_per_gpu
        all_gpus = per_gpu * gpus
        if model == "hourly":
            units = hourly_hours
            hourly_day_rate = all_gpus * _HOURS_PER_DAY
        elif model == "spot":
            units = _spot_hours(plan, risk, policy)
        elif model == "monthly":
            units = plan.months_billed
        else:
            units = plan.years_billed
        gpu = (all_gpus * units).quantize(cent, half_even)
        if model == "monthly":
            monthly_gpu = gpu
        # Rubric v2: the days a month or a year billed in full covers beyond the duration pay
        # for the setup days first (they fall inside the rented span, so pricing them again
        # at the day rate counted them twice: cost-model review, stop 30), then towards a
        # minimum commitment, which the setup days paid at the day rate count towards too
        # (the rented term starts with the setup).
        extra = _billed_extra_days(model, plan) if policy is not None else _ZERO
        setup_paid = max(_ZERO, setup_days - extra) if extra else setup_days
        if setup_days:
            day_rate = _day_rate(model, all_gpus, risk)
            setup = (setup_fee + day_rate * setup_paid).quantize(cent, half_even)
        elif per_gpu.is_signed():
            setup = (setup_fee + _NEGATIVE_ZERO).quantize(cent, half_even)
        else:
            setup = setup_without_days
        unpaid_days = commitment_days and max(0, commitment_days - extra - setup_paid)
        if unpaid_days:
            rest = _day_rate(model, all_gpus, risk) * unpaid_days
            fee = offering.early_termination_fee
            commitment = (rest if fee is None else min(rest, fee)).quantize(cent, half_even)
            total = gpu + shared + setup + commitment
        else:
            commitment = _ZERO_CENTS
            total = gpu + shared + setup
        rows += (model, per_gpu, units, gpu, setup, commitment, total)
        # effective_prices() lists models in BILLING_MODELS order and only a strictly lower
        # total replaces the best, so ties go to the earlier billing model.
        if best_total is None or total < best_total:
            best_model, best_total = model, total
        if (model != "spot" or allow_spot) and (rec_total is None or total < rec_total):
            rec_model, rec_total = model, total
    break_even = None
    # A break-even in used days only where hourly bills the used days: capacity not released
    # on idle days (bare metal) pays every day of the duration whatever the use, so "from N
    # used days monthly costs less" would not hold (cost-model review, stop 30).
    if (
        hourly_day_rate is not None
        and monthly_gpu is not None
        and hourly_day_rate > 0
        and hourly_hours == plan.used_hours
    ):
        break_even = (monthly_gpu / hourly_day_rate).quantize(cent, half_even)
    reason = ("cheapest total", "总成本最低")
    spot_refused = rec_total is None
    if spot_refused:
        # Only spot is priced and spot is not allowed: it stays the figure, flagged, and the
        # ranking reads it as no usable price (Tco.spot_refused).
        rec_model, rec_total = best_model, best_total
        reason = (
            f"only spot is priced, though a {evaluation.duration_days}-day "
            f"{evaluation.workload_profile} job on {candidate.node_count} node(s) cannot be "
            "interrupted: ask for another model",
            f"仅有竞价实例报价，但 {candidate.node_count} 个节点上 {evaluation.duration_days} "
            "天的任务不可中断：请索取其他计费方式报价",
        )
    elif rec_model != best_model:
        reason = (
            f"spot is cheaper but a {evaluation.duration_days}-day "
            f"{evaluation.workload_profile} job on {candidate.node_count} node(s) cannot be "
            "interrupted; cheapest of the rest",
            f"竞价实例更便宜，但 {candidate.node_count} 个节点上 {evaluation.duration_days} "
            "天的任务不可中断；取其余方式中最便宜者",
        )

    availability, availability_basis = _plan_availability(candidate, rubric, plan)
    collective = None
    if policy is not None:
        collective = collectives(candidate, evaluation, rubric, priced_form(candidate, rubric))
        efficiency = Decimal(repr(collective.efficiency)).quantize(_RATE, half_even)
        efficiency_basis = collective.basis
    else:
        efficiency, efficiency_basis = efficiency_for(candidate, rubric, evaluation)
    efficiency_scope = None
    tested = candidate.measured.busbw_nodes
    if (
        policy is not None
        and efficiency_basis == "measured"
        and tested is not None
        and tested < candidate.node_count
    ):
        efficiency_scope = (tested, candidate.node_count)
    equivalents = gpus
    effective_hours = gpu_hours
    if policy is not None and offering.mig_profile:
        try:
            fraction = rubric.gpu_fraction(offering.gpu_model, offering.mig_profile)
        except ScoringInputError:
            fraction = 1.0  # disqualified by the mig_profile knockout; priced as whole GPUs
        equivalents = (gpus * Decimal(repr(fraction))).quantize(_RATE, half_even)
        effective_hours = equivalents * used_hours
    useful = equivalents
    if policy is not None and policy.effective_hours == "required":
        required = Decimal(evaluation.required_total_gpus)
        if equivalents > required:
            # Surplus GPUs (a node size above the need) are paid for but do no useful work:
            # the buyer's required GPU-hours are what the total buys (expert review F2).
            useful = required
            effective_hours = required * used_hours
    fallback = None
    try:
        if rubric.reference_gpu_hour_pattern(offering.gpu_model, currency) == "*":
            fallback = (
                offering.gpu_model,
                rubric.reference_gpu_hour_price(offering.gpu_model, currency),
            )
    except (KeyError, RubricError):
        fallback = None  # no reference at all: the cost score says so (effective_price_ratio)
    currency_basis = None
    home = evaluation.budget_currency
    if currency != home:
        # The operations staff (v2) a self-managed offering adds are priced in the
        # evaluation's currency and converted at the references' rate (operations_cost).
        ops_converted = operations > 0
        try:
            currency_basis = (
                home,
                rubric.reference_gpu_hour_price(offering.gpu_model, currency),
                rubric.reference_gpu_hour_price(offering.gpu_model, home),
                ops_converted,
            )
        except (KeyError, RubricError):
            currency_basis = None  # a currency without references: no cost figure to explain
    effective = None
    if effective_hours > 0 and efficiency > 0:
        effective = (rec_total / (effective_hours * availability * efficiency)).quantize(
            _RATE, half_even
        )
    return Tco(
        currency,
        gpu_count,
        plan.duration,
        plan.used_days,
        gpu_hours,
        _Breakdown(
            tuple(rows),
            storage,
            egress,
            support,
            licence,
            duration_months,
            currency,
            policy is not None,
            operations,
        ),
        best_model,
        best_total,
        break_even,
        availability,
        availability_basis,
        efficiency,
        efficiency_basis,
        effective,
        rec_model,
        rec_total,
        reason,
        equivalents,
        useful,
        fallback,
        spot_refused,
        currency_basis,
        efficiency_scope,
        collective,
        staffing,
    )


def _billing_terms(
    candidate: CandidateInput, evaluation: EvaluationSpec, rubric: Rubric, plan: TcoPlan
) -> tuple[Decimal, Decimal, int, bool]:
    """What prices a candidate's billing models besides the prices: the spot preemption risk
    (percent), the hours the hourly model pays, the commitment days beyond the duration and
    whether spot may be recommended."""
    offering = candidate.offering
    policy = rubric.v2
    hourly_hours = plan.used_hours
    commitment_days = 0
    if policy is None:
        risk = offering.spot_preemption_risk_pct
        if risk is None:
            risk = _ZERO
    else:
        profile = policy.form(priced_form(candidate, rubric))
        # The form's defaults when nothing is stated (the common case) without a call each.
        # spot_risk_pct() inlined: one call per candidate shows in ranking 1,000.
        risk, default = offering.spot_preemption_risk_pct, profile.spot_preemption_risk_pct
        if risk is None or (
            risk < default and candidate.answers.get(policy.billing_terms_item) != "verified"
        ):
            risk = default
        # Hourly release is a term of the contract, written for the form the vendor sold: the
        # claimed form's default, never the form the evidence shows (a refuted bare-metal
        # claim priced as a releasable VM cost less than the honest claim; GPU expert review
        # of the cost model, stop 30). The spot risk above follows the form shown: shared
        # capacity is preempted more, which only ever costs a refuted claim more.
        releasable = offering.releasable_hourly
        contracted = policy.form(offering.delivery_form).releasable_hourly
        if releasable is None:
            releasable = contracted
        elif releasable and not contracted:
            releasable = releasable_hourly(candidate, rubric)
        if not releasable:
            # Not released on idle days: every day of the duration is paid.
            hourly_hours = plan.duration_hours
        if offering.min_commitment_days > plan.duration:
            commitment_days = offering.min_commitment_days - plan.duration
    by_nodes = plan.allow_spot.get(id(rubric))
    if by_nodes is None:
        by_nodes = plan.allow_spot[id(rubric)] = {}
    nodes = candidate.node_count
    allow_spot = by_nodes.get(nodes)
    if allow_spot is None:
        allow_spot = by_nodes[nodes] = spot_allowed(evaluation, rubric, nodes)
    return risk, hourly_hours, commitment_days, allow_spot


def _spot_hours(plan: TcoPlan, risk: Decimal, policy: Any) -> Decimal:
    """The GPU-hours spot bills per GPU at a preemption risk (shared by a plan's candidates).

    Preempted time must be run again, so the hours needed grow by 1 / (1 - risk); rubric v2
    adds the checkpoint/restart overhead."""
    key = (risk, policy is not None)
    units = plan.spot_hours.get(key)
    if units is None:
        keep = _ONE - risk / _HUNDRED
        hours = plan.used_hours
        if policy is not None:
            hours = hours * (_ONE + policy.spot_checkpoint_overhead_pct / _HUNDRED)
        units = plan.spot_hours[key] = (hours / keep).quantize(_RATE, ROUND_HALF_EVEN)
    return units


def _plan_availability(
    candidate: CandidateInput, rubric: Rubric, plan: TcoPlan
) -> tuple[Decimal, str]:
    """availability_for(), shared by the candidates of a plan: a function of the stated SLA,
    the SLA item's status and whether the SLA is backed (its rule's backed_by)."""
    by_sla = plan.availability.get(id(rubric))
    if by_sla is None:
        by_sla = plan.availability[id(rubric)] = {}
    key = (
        candidate.offering.sla_availability_pct,
        candidate.answers.get("sla"),
        _sla_backed(candidate, rubric),
    )
    found = by_sla.get(key)
    if found is None:
        found = by_sla[key] = availability_for(candidate, rubric)
    return found


def _billed_extra_days(model: str, plan) -> Decimal:
    """Days this billing model pays beyond the evaluation's duration (a month or a year is
    billed whole), which already count towards a minimum commitment."""
    if model == "monthly":
        billed = plan.months_billed * _DAYS_PER_YEAR / 12
    elif model == "yearly":
        billed = plan.years_billed * _DAYS_PER_YEAR
    else:
        return _ZERO
    return max(_ZERO, billed - plan.duration)


def _day_rate(model: str, all_gpus: Decimal, spot_risk_pct: Decimal) -> Decimal:
    """What a day costs under a billing model, for the setup days paid before use."""
    if model == "hourly":
        return all_gpus * _HOURS_PER_DAY
    if model == "spot":
        return all_gpus * _HOURS_PER_DAY / (_ONE - spot_risk_pct / _HUNDRED)
    if model == "monthly":
        return all_gpus * 12 / _DAYS_PER_YEAR
    return all_gpus / _DAYS_PER_YEAR
