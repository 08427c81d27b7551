"""The six dimension scores: the facts a rubric reads and the engine that applies its rules."""

from .batch import Batch
from .engine import (
    clear_memo,
    evaluate_rule,
    score_dimensions,
    score_dimensions_batch,
    score_dimensions_columns,
    weighted_totals,
)
from .facts import (
    FACT_NAMES,
    FACTS,
    FactContext,
    FactSource,
    budget_ratio,
    effective_price_ratio,
    fact_value,
)

__all__ = [
    "FACTS",
    "FACT_NAMES",
    "Batch",
    "FactContext",
    "FactSource",
    "budget_ratio",
    "clear_memo",
    "effective_price_ratio",
    "evaluate_rule",
    "fact_value",
    "score_dimensions",
    "score_dimensions_batch",
    "score_dimensions_columns",
    "weighted_totals",
]
