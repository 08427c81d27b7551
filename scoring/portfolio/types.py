"""Portfolio inputs and outputs: frozen dataclasses, constants and small pure helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

EXACT_MAX_CANDIDATES = 10
EXACT_MAX_WORKLOADS = 4
OPS_CAPACITIES = ("none", "small_team", "platform_team")
OPS_FTE = {"none": Decimal(1), "small_team": Decimal("0.5"), "platform_team": Decimal(0)}
BILLING_MODELS = ("hourly", "spot", "monthly", "yearly")
DAYS_PER_MONTH = Decimal(365) / Decimal(12)
CENT = Decimal("0.01")
_ZERO = Decimal(0)


class PortfolioInputError(ValueError):
    """The portfolio problem is malformed (unknown ids, negative money, bad capacity...) or
    an assignment chosen by hand cannot be used. ``en`` and ``zh`` say why (``zh`` is the
    English text where the problem is the caller's, not a person's); ``str()`` is ``en``."""

    def __init__(self, en: str, zh: str | None = None) -> None:
        super().__init__(en)
        self.en = en
        self.zh = zh if zh is not None else en


@dataclass(frozen=True)
class Workload:
    """One demand: ``gpus`` for ``duration_days``; ``min_score`` in 0..100."""

    workload_id: str
    gpus: int
    duration_days: int
    profile: str = "inference"
    tolerates_preemption: bool = False
    latency_sensitive: bool = False
    accepts_far_region: bool = False
    min_score: float = 0.0


@dataclass(frozen=True)
class Candidate:
    """An offering that can host workloads; ``self_managed`` = bare metal the buyer runs.
    ``refuted_claims`` and ``verified_claims`` count its checklist answers the evidence
    contradicted and verified: between plans of equal cost they decide as in the ranking."""

    candidate_id: str
    vendor: str
    region: str
    self_managed: bool = False
    label: str = ""
    refuted_claims: int = 0
    verified_claims: int = 0


@dataclass(frozen=True)
class Option:
    """What one candidate offers one workload: eligibility, score 0..100 and TCO per model."""

    workload_id: str
    candidate_id: str
    score: float
    tco_by_model: tuple[tuple[str, Decimal], ...] = ()
    eligible: bool = True
    knockout_en: str = ""
    knockout_zh: str = ""


@dataclass(frozen=True)
class DataFlow:
    """Data moved between two workloads (checkpoints, shared datasets), GiB per month."""

    workload_a: str
    workload_b: str
    gib_month: Decimal


@dataclass(frozen=True)
class PortfolioProblem:
    workloads: tuple[Workload, ...]
    candidates: tuple[Candidate, ...]
    options: tuple[Option, ...]
    flows: tuple[DataFlow, ...] = ()
    cross_vendor_cny_gib: Decimal = _ZERO
    cross_region_cny_gib: Decimal = _ZERO
    ops_capacity: str = "platform_team"
    ops_staff_cny_month: Decimal = _ZERO
    prefer_fewer_vendors_pct: Decimal = _ZERO
    # (region a, region b, CNY/GiB): overrides cross_region_cny_gib for that pair, either way
    region_rates: tuple[tuple[str, str, Decimal], ...] = ()


@dataclass(frozen=True)
class Line:
    """One workload's placement in a plan."""

    workload_id: str
    candidate_id: str
    vendor: str
    region: str
    billing_model: str
    tco: Decimal
    score: float
    label: str = ""


@dataclass(frozen=True)
class Plan:
    lines: tuple[Line, ...]
    workload_tco: Decimal
    egress_cny: Decimal
    ops_cny: Decimal
    total: Decimal
    vendors: tuple[str, ...]

    def line(self, workload_id: str) -> Line:
        return next(line for line in self.lines if line.workload_id == workload_id)


@dataclass(frozen=True)
class Risk:
    """A risk of a plan, in words (``en``, ``zh``) and as the figures they are made of
    (``params``, by kind), for a caller that words it in its own terms:

    - ``extra_vendor``: ``vendors`` (names);
    - ``egress``: ``amount`` (money, the problem's currency);
    - ``ops_load``: ``offers`` (labels of the self-managed candidates), ``ops_capacity`` (the
      code, one of ``OPS_CAPACITIES``), ``amount`` (the operations staff, money);
    - ``preemption``: ``workloads`` (ids).
    """

    kind: str  # extra_vendor | egress | ops_load | preemption
    en: str
    zh: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Note:
    """A remark on the proposal, in words and as figures (``params``, by kind):

    - ``fewer_vendors``: ``vendors`` and ``optimum_vendors`` (counts), ``extra`` (money the
      proposal costs more than the optimum), ``threshold_pct`` (Decimal, %);
    - ``far_region``: ``workload`` (id), ``region``, ``saving`` (money against the cheapest
      option in another region).
    """

    kind: str
    en: str
    zh: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Unassignable:
    workload_id: str
    reasons_en: tuple[str, ...]
    reasons_zh: tuple[str, ...]


@dataclass(frozen=True)
class PortfolioResult:
    """``proposal`` is None when some workload has no usable option (see ``unassignable``).

    ``optimum`` is the cheapest plan found (equal to ``proposal`` unless fewer vendors were
    preferred); ``single`` is the cheapest plan using one vendor only (one or more of its
    candidates), if any; it is never dearer than any single candidate serving every workload.
    ``saving_cny`` = single.total - proposal.total (0 when there is no single choice).
    """

    proposal: Plan | None
    optimum: Plan | None
    single: Plan | None
    saving_cny: Decimal
    risks: tuple[Risk, ...]
    unassignable: tuple[Unassignable, ...]
    method: str  # exact | heuristic
    nodes: int
    summary_en: str
    summary_zh: str
    notes: tuple[Note, ...] = field(default=())


def burst_gpu_hours(
    *, gpus: int, peak_gpus: int, peak_hours_per_day: int, peak_days_per_week: int, days: int
) -> Decimal:
    """GPU-hours above the base demand: (peak - base) x hours a day x days a week, over
    ``days`` (weeks counted fractionally, 7 days each). 0 without a peak."""
    if peak_gpus <= gpus or not peak_hours_per_day or not peak_days_per_week:
        return _ZERO
    weeks = Decimal(days) / Decimal(7)
    return Decimal(peak_gpus - gpus) * peak_hours_per_day * peak_days_per_week * weeks


def _cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_EVEN)


def _months(days: int) -> Decimal:
    return Decimal(days) / DAYS_PER_MONTH
