"""Choice values, typed errors, validation helpers, money and prices of the scoring core."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any, Literal

# Choice values; the Django models and the adapter use exactly these strings.
DIMENSIONS = ("stability", "network", "storage", "security", "cost", "support")
DELIVERY_FORMS = ("bare_metal", "passthrough_vm", "vgpu", "mig", "container")
# The delivery forms from most to least favourable (isolation and efficiency, issue #10 §1):
# the rubric's form ordering and the delivery form the evidence shows both read it.
FORMS_BY_FAVOUR = ("bare_metal", "passthrough_vm", "mig", "vgpu", "container")
GPU_FORM_FACTORS = ("sxm", "pcie", "other")
NVLINK_TOPOLOGIES = ("full_mesh", "grouped", "none")
FABRICS = ("infiniband", "roce", "ethernet", "none")
NETWORK_ISOLATIONS = ("none", "vlan", "vxlan", "dedicated")
DATA_WIPE_POLICIES = ("none", "logical", "certified")
SUPPORT_TIERS = ("dedicated_team", "named_contact", "ticket_queue")
BILLING_MODELS = ("hourly", "spot", "monthly", "yearly")
WORKLOAD_PROFILES = ("pretraining", "finetuning", "inference", "development")
ITEM_STATUSES = ("unanswered", "claimed", "verified", "contradicted", "unverifiable")
CURRENCIES = ("CNY", "USD")
CHECKLIST_KEYS = (
    "gpu_match",
    "nvlink_topology",
    "fabric",
    "local_nvme",
    "distributed_storage",
    "compliance",
    "sla",
    "control",
    "monthly_cost",
    "poc_window",
)
BARE_METAL_VERDICTS = ("bare_metal", "virtualised", "uncertain")
DCGM_RESULTS = ("pass", "warn", "fail", "skip")

ItemStatus = Literal["unanswered", "claimed", "verified", "contradicted", "unverifiable"]

CENT = Decimal("0.01")


class ScoringError(Exception):
    """Base class of every error raised by the scoring core.

    ``code`` and ``params`` (optional) name the error for a reader in another language: the
    portal words a known code from its own catalogue (the MIG profile's in
    portal.models.vendors, the weights' in portal.services.evaluations) and shows the English
    text otherwise."""

    def __init__(self, message: str = "", *, code: str = "", params: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.params = dict(params or {})


class ScoringInputError(ScoringError, ValueError):
    """An input value is out of range, of the wrong type or not one of the allowed choices."""


class RubricError(ScoringError):
    """The rubric data is malformed (unknown rule kind, missing label, bad table…)."""


class CurrencyMismatchError(ScoringError):
    """Two amounts in different currencies were combined; the core never converts currencies."""


class TcoError(ScoringError):
    """The total cost of ownership cannot be computed (no price for any billing model…)."""


class WeightsError(ScoringError, ValueError):
    """Dimension weights are malformed (negative, all zero, unknown dimension…)."""


class AhpError(WeightsError):
    """A pairwise-comparison matrix is malformed (not square, not positive, not reciprocal)."""


class AhpInconsistentError(WeightsError):
    """The comparisons are too inconsistent (consistency ratio above the accepted maximum)."""


# --- validation helpers (shared by the dataclasses below and by the other modules) ---------


def to_decimal(value: Any, name: str, *, minimum: Decimal | None = None) -> Decimal:
    """Return ``value`` as a finite Decimal; floats are refused so money never passes a float."""
    if isinstance(value, bool | float):
        raise ScoringInputError(
            f"{name} must be a Decimal, an int or a numeric string, not {type(value).__name__} "
            f"({value!r}): write Decimal('{value}') so no binary rounding creeps in"
        )
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int | str):
        try:
            result = Decimal(value)
        except InvalidOperation:
            raise ScoringInputError(f"{name} must be a number, got {value!r}") from None
    else:
        raise ScoringInputError(f"{name} must be a Decimal, got {type(value).__name__}")
    if not result.is_finite():
        raise ScoringInputError(f"{name} must be finite, got {value!r}")
    if minimum is not None and result < minimum:
        raise ScoringInputError(f"{name} must be at least {minimum}, got {result}")
    return result


def _opt_decimal(value: Any, name: str, minimum: Decimal | None = Decimal(0)) -> Decimal | None:
    return None if value is None else to_decimal(value, name, minimum=minimum)


def _int(value: Any, name: str, minimum: int | None = 0, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScoringInputError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ScoringInputError(f"{name} must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ScoringInputError(f"{name} must be at most {maximum}, got {value}")
    return value


def _opt_int(value: Any, name: str, minimum: int = 0) -> int | None:
    return None if value is None else _int(value, name, minimum)


def _float(value: Any, name: str, minimum: float = 0.0) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ScoringInputError(f"{name} must be a number, got {value!r}")
    result = float(value)
    if not math.isfinite(result) or result < minimum:
        raise ScoringInputError(f"{name} must be a finite number >= {minimum}, got {value!r}")
    return result


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ScoringInputError(f"{name} must be True or False, got {value!r}")
    return value


def _choice(value: Any, allowed: tuple[str, ...], name: str) -> str:
    if value not in allowed:
        raise ScoringInputError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _set(obj: object, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


# --- money and prices ----------------------------------------------------------------------


@dataclass(frozen=True)
class Money:
    """An amount of money in one currency. Adding two currencies raises CurrencyMismatchError."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        _set(self, "amount", to_decimal(self.amount, "amount"))
        _choice(self.currency, CURRENCIES, "currency")

    def __add__(self, other: Money) -> Money:
        if not isinstance(other, Money):
            return NotImplemented
        if other.currency != self.currency:
            raise CurrencyMismatchError(
                f"cannot add {other.currency} to {self.currency}: no currency conversion is done; "
                "enter every amount of one evaluation in the same currency"
            )
        return Money(self.amount + other.amount, self.currency)

    def quantized(self) -> Money:
        """The amount rounded to cents, half to even."""
        return Money(self.amount.quantize(CENT, ROUND_HALF_EVEN), self.currency)

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"


def money_sum(amounts: Iterable[Money], currency: str) -> Money:
    """Sum amounts that must all be in ``currency`` (CurrencyMismatchError otherwise)."""
    total = Money(Decimal(0), currency)
    for amount in amounts:
        total = total + amount
    return total


@dataclass(frozen=True)
class Price:
    """One billing model's price per GPU: per hour (hourly, spot), per month or per year."""

    billing_model: str
    price_per_gpu: Decimal

    def __post_init__(self) -> None:
        _choice(self.billing_model, BILLING_MODELS, "billing_model")
        _set(
            self,
            "price_per_gpu",
            to_decimal(self.price_per_gpu, "price_per_gpu", minimum=Decimal(0)),
        )


def _prices(value: Any, name: str) -> tuple[Price, ...]:
    items = value.items() if isinstance(value, Mapping) else value
    result = []
    for item in items:
        result.append(item if isinstance(item, Price) else Price(*item))
    models = [p.billing_model for p in result]
    if len(set(models)) != len(models):
        raise ScoringInputError(f"{name} lists a billing model twice: {models}")
    # Kept in BILLING_MODELS order, so prices compare and iterate the same way everywhere.
    return tuple(sorted(result, key=lambda p: BILLING_MODELS.index(p.billing_model)))


def _frozen_map(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ScoringInputError(f"{name} must be a mapping, got {type(value).__name__}")
    return MappingProxyType(dict(value))
