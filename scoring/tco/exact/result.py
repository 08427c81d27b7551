"""The exact TCO as computed: each billing model's costs and the candidate's cost picture."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, NamedTuple

from ...collectives import Collectives
from ...types import CENT, Money

COMPONENTS = ("gpu", "storage", "egress", "support", "licence", "setup")
# Rubric v2 adds the minimum-commitment component after the six of v1, and the operations
# staff a buyer must add for self-managed bare metal (issue #16 §4).
COMPONENTS_V2 = (*COMPONENTS, "commitment", "operations")
UNITS = {"hourly": "gpu_hour", "spot": "gpu_hour", "monthly": "month", "yearly": "year"}


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
