"""What the TCO prices with besides the prices: form, efficiency, availability, staff, spot."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from ...collectives import collectives
from ...rubric import Rubric
from ...rubric.model import backs
from ...types import CENT, CandidateInput, EvaluationSpec, RubricError

_RATE = Decimal("0.0001")
_AVAILABILITY = Decimal("0.000001")
_DAYS_PER_YEAR = Decimal(365)
_HUNDRED = Decimal(100)
_HOURS_PER_DAY = Decimal(24)
_ONE = Decimal(1)
_ZERO = Decimal(0)
_NEGATIVE_ZERO = Decimal("-0")
_ZERO_CENTS = Decimal("0.00")


def _cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, ROUND_HALF_EVEN)


def priced_form(candidate: CandidateInput, rubric: Rubric) -> str:
    """The delivery form the TCO prices: the claim, or the form the evidence shows when it
    refutes the claim (efficiency and the spot risk follow it; hourly release, a contract
    term, follows the claim: see _billing_terms). A bare-metal claim on nodes that show a
    hypervisor is never priced with bare metal's efficiency."""
    measured = candidate.measured
    form = candidate.offering.delivery_form
    if measured.bare_metal_verdict is None:
        return form
    return rubric.observed_delivery_form(
        form,
        measured.bare_metal_verdict,
        measured.bare_metal_confidence,
        measured.delivery_form_seen,
    )[0]


def efficiency_for(
    candidate: CandidateInput, rubric: Rubric, evaluation: EvaluationSpec
) -> tuple[Decimal, str]:
    """Training efficiency 0..1 used for the effective GPU-hour, and its basis.

    Rubric v1: the measured bus-bandwidth fraction (capped at 1, basis "measured") or else the
    scale rule ("scale_rule"). Rubric v2: the delivery form's scale rule times the throughput
    the job's collectives leave (scoring.collectives: the measured or assumed all-reduce, the
    fabric's share of the reference, the workload's share of step time in collectives); the
    basis says whether the all-reduce was "measured" or "assumed"."""
    cap, basis = _efficiency_cap(candidate, rubric, evaluation)
    return Decimal(repr(cap)).quantize(_RATE, ROUND_HALF_EVEN), basis


def _efficiency_cap(
    candidate: CandidateInput, rubric: Rubric, evaluation: EvaluationSpec
) -> tuple[float, str]:
    """efficiency_for() before its rounding to 4 decimals (of the float's shortest repr)."""
    if rubric.v2 is not None:
        found = collectives(candidate, evaluation, rubric, priced_form(candidate, rubric))
        return found.efficiency, found.basis
    fraction = candidate.measured.busbw_fraction
    if fraction is not None:
        return min(fraction, 1.0), "measured"
    form = priced_form(candidate, rubric)
    return rubric.scale.efficiency(form, candidate.gpu_count, evaluation.workload_profile), (
        "scale_rule"
    )


def is_self_managed(candidate: CandidateInput, rubric: Rubric | None = None) -> bool:
    """Bare metal the buyer must run itself: no vendor-managed (platform) option offered.

    With rubric v2 a vendor-managed option is a cost input no evidence can show: it removes
    the operations staff only once the all-in cost statement (checklist item 9, which prices
    the managed service) is verified; until then the conservative default (self-managed)."""
    offering = candidate.offering
    if offering.delivery_form != "bare_metal":
        return False
    if not offering.vendor_managed:
        return True
    policy = rubric.v2 if rubric is not None else None
    return policy is not None and claim_status(candidate, policy.billing_terms_item) != "verified"


def operations_cost(
    candidate: CandidateInput,
    evaluation: EvaluationSpec,
    rubric: Rubric,
    duration_months: Decimal,
) -> Decimal:
    """Rubric v2: the operations staff a buyer without a platform team adds for self-managed
    bare metal: rubric FTE for its capacity x the evaluation's engineer-month rate x the
    duration's months, in cents. 0 in v1, for managed offerings and for a platform team.
    An offering priced in another currency than the evaluation's rate gets the staff cost
    converted at the rate the rubric's reference GPU-hour prices of the two currencies imply
    for its GPU (the rate its cost score is already compared at, said in the TCO's
    assumptions); 0 only when the rubric has no reference to imply one."""
    policy = rubric.v2
    if policy is None or not is_self_managed(candidate, rubric):
        return _ZERO_CENTS
    fte = policy.ops_fte.get(evaluation.ops_capacity, _ZERO)
    rate = evaluation.ops_staff_cost_month
    if not fte or not rate:
        return _ZERO_CENTS
    cost = fte * rate * duration_months
    offering = candidate.offering
    if offering.currency != evaluation.budget_currency:
        try:
            own = rubric.reference_gpu_hour_price(offering.gpu_model, offering.currency)
            home = rubric.reference_gpu_hour_price(offering.gpu_model, evaluation.budget_currency)
        except (KeyError, RubricError):
            return _ZERO_CENTS
        cost = cost * own / home
    return cost.quantize(CENT, ROUND_HALF_EVEN)


def claim_status(candidate: CandidateInput, item: str) -> str:
    """The document-review status of a checklist item ("unanswered" when not reviewed)."""
    return candidate.answers.get(item, "unanswered")


def availability_for(candidate: CandidateInput, rubric: Rubric) -> tuple[Decimal, str]:
    """Availability 0..1 used for the effective GPU-hour, and its basis.

    Rubric v1: the stated SLA (basis "sla"), else the rubric's assumed figure ("assumed").
    Rubric v2 is monotone and honest about the claim: no SLA is "unanswered" and takes the
    conservative floor (``assumed_availability_pct``); an SLA the document review found
    "contradicted" is treated exactly like no SLA; any other stated SLA never falls below the
    floor, and only the part above it counts, scaled by the SLA item's claim factor (in full
    when "verified", 70 % when claimed, …), so typing a high figure buys at most the discounted
    gap and a verified SLA buys it in full. Where the availability rule names a backing
    (``backed_by``: the credit on breach) and the offering's is zero or unstated, the factor is
    at most the rule's ``unbacked_at_most`` (claimed): a verified SLA that nothing enforces
    buys the discounted gap (basis "unbacked"). Bases: "unanswered", "contradicted",
    "stated", "verified", "unbacked"."""
    stated = candidate.offering.sla_availability_pct
    floor = rubric.assumed_availability_pct / _HUNDRED
    if rubric.v2 is None:
        if stated is None:
            return floor, "assumed"
        return stated / _HUNDRED, "sla"
    if stated is None:
        return floor, "unanswered"
    status = claim_status(candidate, "sla")
    if status == "contradicted":
        return floor, "contradicted"
    basis = "verified" if status == "verified" else "stated"
    factor = rubric.status_factors[status]
    backing = rubric.backing(_SLA_FACT)
    if backing is not None and not _backed(candidate, backing[0], backing[2]):
        # The availability rule's backed_by: an SLA with no credit on breach counts at most
        # as a claim, here as in the stability score.
        cap = rubric.status_factors[backing[1]]
        if factor > cap:
            factor, basis = cap, "unbacked"
    gap = stated / _HUNDRED - floor
    if gap <= 0:
        return floor, basis
    return (floor + gap * Decimal(repr(factor))).quantize(_AVAILABILITY, ROUND_HALF_EVEN), basis


_SLA_FACT = "offering.sla_availability_pct"


def _backed(candidate: CandidateInput, fact: str, minimum: Decimal | None = None) -> bool:
    """Whether the candidate's ``fact`` ("offering.<field>" or "vendor.<field>", a rule's
    backed_by) backs a claim (rubric.model.backs; ``minimum``: the rule's backed_from)."""
    owner, _, name = fact.partition(".")
    return backs(getattr(getattr(candidate, owner), name), minimum)


def _sla_backed(candidate: CandidateInput, rubric: Rubric) -> bool | None:
    """Whether the candidate's SLA is backed (what availability_for reads of the availability
    rule's backed_by), for a memo key: None for a rubric whose rule names no backing."""
    backing = rubric.backing(_SLA_FACT) if rubric.v2 is not None else None
    return None if backing is None else _backed(candidate, backing[0], backing[2])


def spot_risk_pct(candidate: CandidateInput, rubric: Rubric) -> Decimal:
    """The spot preemption risk (percent) the TCO prices with.

    Rubric v1: the stated risk, 0 when unstated. Rubric v2: the delivery form's default,
    unless the vendor states a higher one (always believed: it only costs the vendor) or a
    lower one the cost statement's review verified (checklist item "monthly_cost"). No
    evidence the portal collects can measure a preemption rate, so an unverified lower figure
    is ignored instead of taken at face value."""
    offering = candidate.offering
    stated = offering.spot_preemption_risk_pct
    policy = rubric.v2
    if policy is None:
        return _ZERO if stated is None else stated
    default = policy.form(priced_form(candidate, rubric)).spot_preemption_risk_pct
    if stated is None or stated == default:
        return default
    if stated > default or claim_status(candidate, policy.billing_terms_item) == "verified":
        return stated
    return default


def releasable_hourly(candidate: CandidateInput, rubric: Rubric) -> bool:
    """Whether hourly capacity is released on idle days (rubric v2; True in v1).

    The delivery form's usual case unless the vendor states otherwise; a statement in the
    vendor's favour (releasable where the form usually is not: bare metal) counts only once
    the cost statement's review verified it (checklist item "monthly_cost")."""
    policy = rubric.v2
    if policy is None:
        return True
    # The claimed form's: a contract term (see _billing_terms), not the form the evidence shows.
    default = policy.form(candidate.offering.delivery_form).releasable_hourly
    stated = candidate.offering.releasable_hourly
    if stated is None or stated == default or not stated:
        return default if stated is None else stated
    return claim_status(candidate, policy.billing_terms_item) == "verified"


def spot_allowed(evaluation: EvaluationSpec, rubric: Rubric, node_count: int = 1) -> bool:
    """Whether spot may be recommended (rubric v2): never for a long uninterruptible job.

    A job is uninterruptible when it is one synchronous run across the deployment: a
    workload whose ``synchronous_min_nodes`` the candidate's node count reaches (pre-training
    from one node, fine-tuning from two; inference and development are requests and sessions
    that restart on their own). It is long when it runs beyond the checkpoint-free window
    (``spot_max_uninterruptible_days``): one preemption then loses the whole window's work on
    every node. Derived from workload, nodes and duration, never from a list of workloads."""
    policy = rubric.v2
    if policy is None:
        return True
    min_nodes = policy.synchronous_min_nodes.get(evaluation.workload_profile)
    if min_nodes is None or node_count < min_nodes:
        return True
    return evaluation.duration_days <= policy.spot_max_uninterruptible_days
