"""The six dimension scores: the facts a rubric reads and the engine that applies its rules."""

from .batch import Batch
from .engine import (
    clear_memo,
    evaluate_rule,
    score_dimensions,
    score_dimensions_batch,
    score_dimensions_columns,
    score_dimensions_deferred,
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
from .kernel import DeferredDimensionScore, py_round, py_sum, weighted_totals_array

__all__ = [
    "FACTS",
    "FACT_NAMES",
    "Batch",
    "DeferredDimensionScore",
    "FactContext",
    "FactSource",
    "budget_ratio",
    "clear_memo",
    "effective_price_ratio",
    "evaluate_rule",
    "fact_value",
    "py_round",
    "py_sum",
    "score_dimensions",
    "score_dimensions_batch",
    "score_dimensions_columns",
    "score_dimensions_deferred",
    "weighted_totals",
    "weighted_totals_array",
]
