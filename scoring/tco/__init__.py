"""Total cost of ownership: each candidate's exact TCO (``exact``: money in Decimal, per billing
model, with the recommended model, its assumptions and the effective cost per GPU-hour) and
the figures a ranking reads of a whole batch at once (``batch``: float columns that settle to
the exact TCO's figures bit for bit, or read it)."""

from .batch import (
    FLOAT_MIN_CANDIDATES,
    FloatCache,
    PendingTco,
    TextFloats,
    budget_ratio,
    effective_price_ratio,
    pending_tcos,
)
from .exact import (
    COMPONENTS,
    COMPONENTS_V2,
    UNITS,
    ModelCost,
    Tco,
    TcoPlan,
    availability_for,
    claim_status,
    compute_tco,
    efficiency_for,
    is_self_managed,
    operations_cost,
    priced_form,
    releasable_hourly,
    spot_allowed,
    spot_risk_pct,
)

__all__ = [
    "COMPONENTS",
    "COMPONENTS_V2",
    "FLOAT_MIN_CANDIDATES",
    "UNITS",
    "FloatCache",
    "ModelCost",
    "PendingTco",
    "Tco",
    "TcoPlan",
    "TextFloats",
    "availability_for",
    "budget_ratio",
    "claim_status",
    "compute_tco",
    "effective_price_ratio",
    "efficiency_for",
    "is_self_managed",
    "operations_cost",
    "pending_tcos",
    "priced_form",
    "releasable_hourly",
    "spot_allowed",
    "spot_risk_pct",
]
