"""Structured regions: data residency knockouts, egress tiers, far-region placement and latency.

Pure Python, no Django. A region is country (ISO 3166-1 alpha-2; Hong Kong, Macao and Taiwan
have their own codes, so "CN" means mainland China), province or city, and zone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

RESIDENCIES = ("none", "mainland_china")
# A latency-sensitive workload scores 100 at or under its target RTT, falling linearly to 0 at
# ZERO_AT_TARGETS x the target; packet loss above LOSS_MAX_PCT caps the score at LOSS_CAP, since
# a lossy path stalls TCP far more than its average RTT suggests.
ZERO_AT_TARGETS = 3.0
LOSS_MAX_PCT = 1.0
LOSS_CAP = 50.0
# A latency-sensitive workload's option score blends the rubric total with the latency score.
LATENCY_WEIGHT = 0.25
_ZERO = Decimal(0)


class RegionError(ValueError):
    """A region or residency value that cannot be understood."""


@dataclass(frozen=True)
class Region:
    country: str
    province: str = ""
    zone: str = ""

    def __post_init__(self) -> None:
        if len(self.country) != 2 or not self.country.isalpha() or not self.country.isupper():
            raise RegionError(f"country must be a two-letter upper-case code, got {self.country!r}")

    @property
    def key(self) -> str:
        return "-".join(part for part in (self.country, self.province, self.zone) if part)

    def __str__(self) -> str:
        return self.key


@dataclass(frozen=True)
class EgressRates:
    """CNY per GiB leaving a region: within a country, and across a border."""

    cross_province_cny_gib: Decimal = _ZERO
    cross_border_cny_gib: Decimal = _ZERO


def egress_rate_cny_gib(a: Region, b: Region, rates: EgressRates) -> Decimal:
    """0 inside one province (zones of one city share a backbone); else the tier's rate."""
    if a.country != b.country:
        return rates.cross_border_cny_gib
    if a.province.casefold() != b.province.casefold():
        return rates.cross_province_cny_gib
    return _ZERO


def is_far(home: Region | None, region: Region | None) -> bool:
    """A region is far from the buyer's home when it is in another province or country."""
    if home is None or region is None:
        return False
    return egress_rate_cny_gib(home, region, EgressRates(Decimal(1), Decimal(1))) > 0


def residency_knockout(requirement: str, region: Region | None) -> tuple[str, str] | None:
    """(English, Chinese) reason when the region breaks the residency requirement, else None."""
    if requirement not in RESIDENCIES:
        raise RegionError(f"unknown residency requirement {requirement!r}")
    if requirement == "none":
        return None
    if region is None:
        return (
            "data must stay in mainland China but the offering states no structured region",
            "数据须留在中国大陆，但该方案未填写结构化区域",
        )
    if region.country != "CN":
        return (
            f"data must stay in mainland China; {region.key} is outside it",
            f"数据须留在中国大陆；{region.key} 不在中国大陆",
        )
    return None


@dataclass(frozen=True)
class RttMeasurement:
    """One measured path (parsed ``rtt`` evidence): target endpoint, RTT in ms, loss in %."""

    target: str
    rtt_avg_ms: float
    rtt_min_ms: float
    rtt_max_ms: float
    loss_pct: float


@dataclass(frozen=True)
class LatencyScore:
    score: float  # 0..100
    basis: str  # measured | claimed | unknown
    rtt_ms: float | None
    en: str
    zh: str


def _curve(rtt_ms: float, target_ms: float) -> float:
    if rtt_ms <= target_ms:
        return 100.0
    zero_at = target_ms * ZERO_AT_TARGETS
    if rtt_ms >= zero_at:
        return 0.0
    return round(100.0 * (zero_at - rtt_ms) / (zero_at - target_ms), 1)


def latency_score(
    *,
    target_ms: float,
    measurements: Sequence[RttMeasurement] = (),
    endpoints: Sequence[str] = (),
    claimed_ms: float | None = None,
) -> LatencyScore:
    """Score a latency-sensitive workload's path against ``target_ms`` (> 0).

    Measured RTT wins over the claim. With ``endpoints`` named, only measurements to those
    targets count; the worst (highest average RTT) endpoint decides, because every user group
    must be served. Without a measurement the claim is scored and marked as claimed.
    """
    if target_ms <= 0:
        raise RegionError("the target RTT must be positive")
    wanted = {e.casefold() for e in endpoints}
    usable = [m for m in measurements if not wanted or m.target.casefold() in wanted]
    if usable:
        worst = max(usable, key=lambda m: (m.rtt_avg_ms, m.loss_pct, m.target))
        lossiest = max(m.loss_pct for m in usable)
        score = _curve(worst.rtt_avg_ms, target_ms)
        en = (
            f"measured RTT {worst.rtt_avg_ms:.1f} ms to {worst.target} "
            f"(target {target_ms:.1f} ms): {score:.0f}/100"
        )
        zh = (
            f"实测到 {worst.target} 的 RTT {worst.rtt_avg_ms:.1f} ms"
            f"（目标 {target_ms:.1f} ms）：{score:.0f}/100"
        )
        if lossiest > LOSS_MAX_PCT and score > LOSS_CAP:
            score = LOSS_CAP
            en += f"; packet loss {lossiest:.1f}% caps it at {LOSS_CAP:.0f}"
            zh += f"；丢包 {lossiest:.1f}%，上限 {LOSS_CAP:.0f}"
        return LatencyScore(score, "measured", worst.rtt_avg_ms, en, zh)
    if claimed_ms is not None:
        score = _curve(claimed_ms, target_ms)
        return LatencyScore(
            score,
            "claimed",
            claimed_ms,
            f"claimed RTT {claimed_ms:.1f} ms, not measured (target {target_ms:.1f} ms): "
            f"{score:.0f}/100",
            f"声称 RTT {claimed_ms:.1f} ms，未实测（目标 {target_ms:.1f} ms）：{score:.0f}/100",
        )
    return LatencyScore(
        0.0,
        "unknown",
        None,
        "no RTT measured or claimed: latency scores 0",
        "无实测或声称的 RTT：时延得 0 分",
    )


def with_latency(total: float, latency: LatencyScore) -> float:
    """The option score 0..100 of a latency-sensitive workload (LATENCY_WEIGHT on latency)."""
    return round((1 - LATENCY_WEIGHT) * total + LATENCY_WEIGHT * latency.score, 2)


@dataclass(frozen=True)
class Placement:
    """Whether a workload may run in a region, and why not."""

    eligible: bool
    far: bool
    knockout_en: str = ""
    knockout_zh: str = ""


def placement(
    *,
    residency: str,
    home: Region | None,
    region: Region | None,
    accepts_far_region: bool,
) -> Placement:
    """Residency first (a hard legal limit), then distance: a far region only when accepted."""
    far = is_far(home, region)
    reason = residency_knockout(residency, region)
    if reason:
        return Placement(False, far, *reason)
    if far and not accepts_far_region:
        return Placement(
            False,
            far,
            f"{region} is far from {home} and this workload does not accept a farther region",
            f"{region} 距离 {home} 较远，该工作负载不接受较远区域",
        )
    return Placement(True, far)
