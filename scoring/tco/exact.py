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

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal
from typing import Any, NamedTuple

from ..collectives import (
    Collectives,
    collectives,
)
from ..rubric import Rubric, load_rubric
from ..rubric.model import backs
from ..types import (
    CENT,
    CandidateInput,
    EvaluationSpec,
    Money,
    RubricError,
    ScoringInputError,
    TcoError,
)

COMPONENTS = ("gpu", "storage", "egress", "support", "licence", "setup")
# Rubric v2 adds the minimum-commitment component after the six of v1, and the operations
# staff a buyer must add for self-managed bare metal (issue #16 §4).
COMPONENTS_V2 = (*COMPONENTS, "commitment", "operations")
UNITS = {"hourly": "gpu_hour", "spot": "gpu_hour", "monthly": "month", "yearly": "year"}

_RATE = Decimal("0.0001")
_AVAILABILITY = Decimal("0.000001")
_DAYS_PER_YEAR = Decimal(365)
_HUNDRED = Decimal(100)
_HOURS_PER_DAY = Decimal(24)
_ONE = Decimal(1)
_ZERO = Decimal(0)
_NEGATIVE_ZERO = Decimal("-0")
_ZERO_CENTS = Decimal("0.00")


@dataclass(frozen=True)
class ModelCost:
    """The cost of the whole evaluation under one billing model.

    ``billed_units`` is per GPU: hours (hourly; spot including the preemption allowance),
    whole months (monthly) or whole years (yearly). ``components`` lists (name, amount) in
    COMPONENTS order, each rounded to cents; ``total`` is their exact sum. ``monthly`` is the
    total spread over the duration's months (365/12 days each), rounded to cents.
    """

    billing_model: str
    price_per_gpu: Decimal
    billed_units: Decimal
    components: tuple[tuple[str, Decimal], ...]
    total: Decimal
    monthly: Decimal
    currency: str

    def component(self, name: str) -> Decimal:
        for key, amount in self.components:
            if key == name:
                return amount
        raise KeyError(name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "billing_model": self.billing_model,
            "price_per_gpu": str(self.price_per_gpu),
            "billed_units": str(self.billed_units),
            "unit": UNITS[self.billing_model],
            "components": {k: str(v) for k, v in self.components},
            "total": str(self.total),
            "monthly": str(self.monthly),
            "currency": self.currency,
        }


class _Breakdown(NamedTuple):
    """What Tco.models is built from when first read: per billing model the seven values
    billing_model, price_per_gpu, billed_units, gpu, setup, commitment, total (one flat
    tuple, models one after the other), and the shared parts."""

    rows: tuple[str | Decimal, ...]
    storage: Decimal
    egress: Decimal
    support: Decimal
    licence: Decimal
    duration_months: Decimal
    currency: str
    with_commitment: bool = False
    operations: Decimal = Decimal("0.00")

    def models(self) -> tuple[ModelCost, ...]:
        rows, duration_months, currency = self.rows, self.duration_months, self.currency
        shared = (
            ("storage", self.storage),
            ("egress", self.egress),
            ("support", self.support),
            ("licence", self.licence),
        )
        built = []
        for start in range(0, len(rows), 7):
            model, per_gpu, units, gpu, setup, commitment, total = rows[start : start + 7]
            built.append(
                ModelCost(
                    model,
                    per_gpu,
                    units,
                    (
                        ("gpu", gpu),
                        *shared,
                        ("setup", setup),
                        *(
                            (("commitment", commitment), ("operations", self.operations))
                            if self.with_commitment
                            else ()
                        ),
                    ),
                    total,
                    (total / duration_months).quantize(CENT, ROUND_HALF_EVEN),
                    currency,
                )
            )
        return tuple(built)


class _LazyModels:
    """The descriptor behind Tco.models: a _Breakdown is turned into the ModelCost tuple on
    first read and the tuple kept in its place.

    Ranking needs only each model's total, and most results are never asked for their
    breakdown. A data descriptor on the dataclass field keeps the laziness invisible: the
    generated eq, hash and repr, fields(), replace() and asdict() all read ``models`` as usual.
    """

    def __get__(self, obj: Tco | None, owner: type | None = None) -> tuple[ModelCost, ...]:
        # No class-level value (so dataclasses sees a field without a default), and an
        # instance not yet initialised (as during copying) has none either.
        value = None if obj is None else obj.__dict__.get("models")
        if value is None:
            raise AttributeError("models")
        if type(value) is _Breakdown:
            value = value.models()
            obj.__dict__["models"] = value
        return value

    def __set__(self, obj: Tco, value: tuple[ModelCost, ...] | _Breakdown) -> None:
        obj.__dict__["models"] = value


@dataclass(frozen=True, init=False)
class Tco:
    """The cost picture of one candidate over the evaluation.

    ``models`` lists each priced billing model's costs (ModelCost) in BILLING_MODELS order;
    it is built when first read.
    ``cheapest`` is the billing model with the lowest total (ties: BILLING_MODELS order) and
    ``cheapest_total`` that total.
    ``break_even_used_days`` is the number of used days within the duration above which the
    monthly model's GPU cost is lower than the hourly one's (None without both prices, and
    where hourly pays idle days too: then no count of used days decides it).
    ``cost_per_effective_gpu_hour`` = cheapest total ÷ (GPU-hours x availability x
    efficiency), GPU-hours = GPUs x used_days x 24 (rubric v2: the useful GPUs, at most the
    required ones, in full-GPU equivalents); None when nothing is used.
    ``efficiency``, rubric v1: the measured bus-bandwidth fraction capped at 1 (basis
    "measured") or the rubric's scale rule for the delivery form ("scale_rule"); rubric v2:
    the scale rule times the throughput the job's collectives leave (``collectives``, see
    scoring.collectives), basis "measured" or "assumed" by the all-reduce it read. A TCO
    recorded before may carry the basis "assumed_scale" (display labels keep it).
    """

    currency: str
    gpu_count: int
    duration_days: int
    used_days: int
    gpu_hours: Decimal
    models: tuple[ModelCost, ...] = _LazyModels()  # type: ignore[assignment]
    cheapest: str
    cheapest_total: Decimal
    break_even_used_days: Decimal | None
    availability: Decimal
    availability_basis: str
    efficiency: Decimal
    efficiency_basis: str
    cost_per_effective_gpu_hour: Decimal | None
    recommended: str
    recommended_total: Decimal
    recommended_reason: tuple[str, str]
    gpu_equivalents: Decimal

    def __init__(
        self,
        currency: str,
        gpu_count: int,
        duration_days: int,
        used_days: int,
        gpu_hours: Decimal,
        models: tuple[ModelCost, ...] | _Breakdown,
        cheapest: str,
        cheapest_total: Decimal,
        break_even_used_days: Decimal | None,
        availability: Decimal,
        availability_basis: str,
        efficiency: Decimal,
        efficiency_basis: str,
        cost_per_effective_gpu_hour: Decimal | None,
        recommended: str | None = None,
        recommended_total: Decimal | None = None,
        recommended_reason: tuple[str, str] = ("cheapest total", "总成本最低"),
        gpu_equivalents: Decimal | None = None,
        useful_gpu_equivalents: Decimal | None = None,
        reference_fallback: tuple[str, Decimal] | None = None,
        spot_refused: bool = False,
        currency_basis: tuple[str, Decimal, Decimal, bool] | None = None,
        efficiency_scope: tuple[int, int] | None = None,
        collective: Collectives | None = None,
        staffing: tuple[str, Decimal, str] | None = None,
    ) -> None:
        # One dict update instead of a frozen-safe setattr per field: one Tco per candidate.
        self.__dict__.update(
            currency=currency,
            gpu_count=gpu_count,
            duration_days=duration_days,
            used_days=used_days,
            gpu_hours=gpu_hours,
            models=models,
            cheapest=cheapest,
            cheapest_total=cheapest_total,
            break_even_used_days=break_even_used_days,
            availability=availability,
            availability_basis=availability_basis,
            efficiency=efficiency,
            efficiency_basis=efficiency_basis,
            cost_per_effective_gpu_hour=cost_per_effective_gpu_hour,
            recommended=cheapest if recommended is None else recommended,
            recommended_total=cheapest_total if recommended_total is None else recommended_total,
            recommended_reason=recommended_reason,
            gpu_equivalents=Decimal(gpu_count) if gpu_equivalents is None else gpu_equivalents,
        )
        if useful_gpu_equivalents is not None:
            self.__dict__["useful_gpu_equivalents"] = useful_gpu_equivalents
        if reference_fallback is not None:
            self.__dict__["reference_fallback"] = reference_fallback
        if spot_refused:
            self.__dict__["spot_refused"] = True
        if currency_basis is not None:
            self.__dict__["currency_basis"] = currency_basis
        if efficiency_scope is not None:
            self.__dict__["efficiency_scope"] = efficiency_scope
        if collective is not None:
            self.__dict__["collectives"] = collective
        if staffing is not None:
            self.__dict__["staffing"] = staffing

    @property
    def collectives(self) -> Collectives | None:
        """Rubric v2: what the efficiency rests on (scoring.collectives); None in v1."""
        return self.__dict__.get("collectives")

    @property
    def efficiency_scope(self) -> tuple[int, int] | None:
        """(nodes the all-reduce spanned, the candidate's nodes) when the efficiency is a
        measurement on fewer nodes than the candidate has (rubric v2): it is assumed to hold
        for the whole fleet, an extrapolation the assumptions say; else None."""
        return self.__dict__.get("efficiency_scope")

    @property
    def currency_basis(self) -> tuple[str, Decimal, Decimal, bool] | None:
        """(the evaluation's currency, the rubric's reference GPU-hour price for this GPU in
        the candidate's currency, the same in the evaluation's, whether operations staff
        priced in the evaluation's currency were converted at that rate) when it is priced
        in another currency than the evaluation counts in: its cost score is then compared
        with the reference of its own currency, which amounts to an exchange rate the rubric
        never states (an assumption), else None."""
        return self.__dict__.get("currency_basis")

    @property
    def spot_refused(self) -> bool:
        """Only spot is priced and the job cannot run on spot (rubric v2, spot_allowed): the
        figures still show the spot total, but no billing model the job can use is priced, so
        the cost score and the budget check treat the candidate as unpriced."""
        return self.__dict__.get("spot_refused", False)

    @property
    def reference_fallback(self) -> tuple[str, Decimal] | None:
        """(GPU model, price) when the rubric lists no reference GPU-hour price for the GPU
        and the cost score compares with its "*" fallback (an assumption), else None."""
        return self.__dict__.get("reference_fallback")

    @property
    def useful_gpu_equivalents(self) -> Decimal:
        """The full-GPU equivalents whose hours the cost per effective GPU-hour divides by:
        the delivered ones, or the evaluation's required GPUs when the delivery exceeds them
        (rubric v2, billing.effective_hours "required"). Read from the instance so a Tco
        pickled before this figure existed reads as it was computed (every delivered GPU)."""
        return self.__dict__.get("useful_gpu_equivalents", self.gpu_equivalents)

    @property
    def surplus_gpu_equivalents(self) -> Decimal:
        """Delivered full-GPU equivalents beyond the useful ones (paid, no useful work)."""
        return self.gpu_equivalents - self.useful_gpu_equivalents

    def assumptions(self) -> tuple[tuple[str, str, str], ...]:
        """What the cost per effective GPU-hour assumed rather than read, each line as
        (code, English, Chinese): an availability no verified, backed SLA gives (the floor, or
        a claim's discounted part: "availability_<basis>"), the operations staff self-managed
        bare metal adds, a spot-only quote the job cannot use, a GPU the rubric has no
        reference price for (compared with the fallback), a price in another currency than the
        evaluation's (compared with that currency's reference: an implied exchange rate), an
        all-reduce measured on part of the fleet, the collectives' throughput (rubric v2:
        scoring.collectives) and surplus GPUs left out of the useful GPU-hours."""
        lines = list(self._availability_line())
        staffing = self.__dict__.get("staffing")
        if staffing is not None:
            capacity, fte, rate = staffing
            team_en, team_zh = _OPS_TEAMS.get(capacity, (capacity, capacity))
            lines.append(
                (
                    "operations_staff",
                    f"self-managed bare metal: a buyer with {team_en} adds {_count(fte)} "
                    f"operations engineer(s) (the rubric's staffing) at the evaluation's "
                    f"{rate} per engineer-month for the whole duration",
                    f"自运维裸金属：{team_zh}的买方需增加 {_count(fte)} 名运维工程师（评分细则"
                    f"的人员配置），按评估设定的每人月 {rate} 计全部周期",
                )
            )
        if self.spot_refused:
            lines.append(
                (
                    "spot_refused",
                    "only spot is priced and this job cannot run on spot: the cost score counts "
                    "no usable price and the budget cannot be checked until another billing "
                    "model is quoted",
                    "仅有竞价实例报价，而该任务不能使用竞价实例：成本评分按无可用报价计，"
                    "在获得其他计费方式报价之前无法核对预算",
                )
            )
        fallback = self.reference_fallback
        if fallback is not None and self.cost_per_effective_gpu_hour is not None:
            model, price = fallback
            lines.append(
                (
                    "reference_fallback",
                    f"no reference price for {model}: the rubric's fallback of {price} "
                    f"{self.currency} per GPU-hour is assumed",
                    f"{model} 没有参考价格：假定采用评分细则的兜底价 每 GPU 小时 {price} "
                    f"{self.currency}",
                )
            )
        basis = self.currency_basis
        if basis is not None and self.cost_per_effective_gpu_hour is not None:
            home, own_price, home_price, ops_converted = basis
            rate = (home_price / own_price).quantize(Decimal("0.01"))
            ops_en = ops_zh = ""
            if ops_converted:
                ops_en = (
                    f"; the operations staff cost (in {home}) is converted to {self.currency} "
                    "at the same implied rate"
                )
                ops_zh = f"；运维人员成本（以 {home} 计）按同一隐含汇率折算为 {self.currency}"
            lines.append(
                (
                    "currency_reference",
                    f"priced in {self.currency}, the evaluation counts in {home}: the cost score "
                    f"compares with the rubric's reference of {own_price} {self.currency} per "
                    f"GPU-hour (against {home_price} {home}), as if 1 {self.currency} were "
                    f"{rate} {home}; no market exchange rate is applied{ops_en}",
                    f"以 {self.currency} 报价，评估以 {home} 计：成本评分与评分细则的参考价"
                    f"每 GPU 小时 {own_price} {self.currency}（对应 {home_price} {home}）比较，"
                    f"相当于假定 1 {self.currency} = {rate} {home}；系统不按市场汇率换算{ops_zh}",
                )
            )
        scope = self.efficiency_scope
        if scope is not None and self.cost_per_effective_gpu_hour is not None:
            tested, nodes = scope
            lines.append(
                (
                    "efficiency_partial",
                    f"the all-reduce efficiency was measured on {tested} "
                    f"of the {nodes} nodes and is assumed to hold for all {nodes} (the switch "
                    "tiers and oversubscription of the full fleet were not measured)",
                    f"效率由 {nodes} 个节点中 {tested} 个节点上的 all-reduce "
                    f"测得，假定对全部 {nodes} 个节点成立（未测量全规模下的交换层级与收敛比）",
                )
            )
        collective = self.collectives
        if collective is not None and self.cost_per_effective_gpu_hour is not None:
            line = collective.assumption()
            if line is not None:
                lines.append(line)
        surplus = self.surplus_gpu_equivalents
        if surplus > 0:
            useful, delivered = _count(self.useful_gpu_equivalents), _count(self.gpu_equivalents)
            extra = _count(surplus)
            lines.append(
                (
                    "surplus_gpus",
                    f"cost per effective GPU-hour divides by the {useful} GPUs required, not the "
                    f"{delivered} delivered: {extra} surplus GPU(s) are paid for but add no "
                    "useful work",
                    f"每有效 GPU 小时成本按需求的 {useful} 块 GPU 计算，而非交付的 {delivered} "
                    f"块：多出的 {extra} 块 GPU 需付费但不产生有效算力",
                )
            )
        return tuple(lines)

    def _availability_line(self) -> tuple[tuple[str, str, str], ...]:
        """The availability the cost divides by when it is not a verified, backed SLA."""
        basis, value = self.availability_basis, _percent(self.availability)
        found = _AVAILABILITY_LINES.get(basis)
        if found is None or self.cost_per_effective_gpu_hour is None:
            return ()
        en, zh = found
        return (("availability_" + basis, en.format(value=value), zh.format(value=value)),)

    def model(self, billing_model: str) -> ModelCost:
        for item in self.models:
            if item.billing_model == billing_model:
                return item
        raise KeyError(billing_model)

    @property
    def best(self) -> ModelCost:
        """The cheapest model's costs."""
        return self.model(self.cheapest)

    @property
    def total(self) -> Money:
        """The cheapest model's total for the whole evaluation."""
        return Money(self.cheapest_total, self.currency)

    def as_dict(self) -> dict[str, Any]:
        def opt(value: Decimal | None) -> str | None:
            return None if value is None else str(value)

        return {
            "currency": self.currency,
            "gpu_count": self.gpu_count,
            "duration_days": self.duration_days,
            "used_days": self.used_days,
            "gpu_hours": str(self.gpu_hours),
            "models": [m.as_dict() for m in self.models],
            "cheapest": self.cheapest,
            "total": str(self.cheapest_total),
            "break_even_used_days": opt(self.break_even_used_days),
            "availability": str(self.availability),
            "availability_basis": self.availability_basis,
            "efficiency": str(self.efficiency),
            "efficiency_basis": self.efficiency_basis,
            "cost_per_effective_gpu_hour": opt(self.cost_per_effective_gpu_hour),
            "recommended": self.recommended,
            "recommended_total": str(self.recommended_total),
            "recommended_reason_en": self.recommended_reason[0],
            "recommended_reason_zh": self.recommended_reason[1],
            "gpu_equivalents": str(self.gpu_equivalents),
            "useful_gpu_equivalents": str(self.useful_gpu_equivalents),
            "assumptions": [
                {"code": code, "en": en, "zh": zh} for code, en, zh in self.assumptions()
            ],
        }


_AVAILABILITY_LINES = {
    "unanswered": (
        "no SLA stated: the availability is taken at the rubric's conservative floor, {value}",
        "未声明 SLA：可用性按评分细则的保守下限 {value} 计",
    ),
    "assumed": (
        "no SLA stated: the availability is assumed at {value}",
        "未声明 SLA：可用性假定为 {value}",
    ),
    "contradicted": (
        "the document review contradicted the SLA: the availability is taken at the floor, {value}",
        "文档审核否定了该 SLA：可用性按下限 {value} 计",
    ),
    "stated": (
        "the SLA is a claim until the document review verifies it: only part of it above the "
        "floor counts, {value}",
        "SLA 经文档审核核实前仅为声明：只计高于下限部分的一部分，{value}",
    ),
    "unbacked": (
        "the SLA has no service credit the rubric pays for (at least its first step): it counts "
        "as a claim, {value}",
        "该 SLA 没有达到评分细则起付档的服务赔偿：按声明计，{value}",
    ),
}
_OPS_TEAMS = {
    "none": ("no operations team", "无运维团队"),
    "small_team": ("a small team", "小型团队"),
    "platform_team": ("a platform team", "平台团队"),
}


def _percent(value: Decimal) -> str:
    return f"{(value * 100).normalize():f} %"


def _count(value: Decimal) -> str:
    """A GPU count as shown: whole numbers without decimals, equivalents as they are."""
    return (
        str(value.to_integral_value())
        if value == value.to_integral_value()
        else str(value.normalize())
    )


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
