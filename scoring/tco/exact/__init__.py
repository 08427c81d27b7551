"""Each candidate's exact TCO, money in Decimal: per billing model, recommended, effective cost.

``result``: what a TCO is (ModelCost per billing model, Tco with its assumptions);
``terms``: what it prices with besides the prices (the form priced, efficiency, availability,
operations staff, spot risk, hourly release); ``compute``: compute_tco and the evaluation-wide
TcoPlan (its docstring states the conventions).
"""

from .compute import TcoPlan, compute_tco
from .result import COMPONENTS, COMPONENTS_V2, UNITS, ModelCost, Tco
from .terms import (
    availability_for,
    claim_status,
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
    "UNITS",
    "ModelCost",
    "Tco",
    "TcoPlan",
    "availability_for",
    "claim_status",
    "compute_tco",
    "efficiency_for",
    "is_self_managed",
    "operations_cost",
    "priced_form",
    "releasable_hourly",
    "spot_allowed",
    "spot_risk_pct",
]
