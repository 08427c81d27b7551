"""The public facade of the scoring core for the portal's adapter and for scripting users.

Everything here is pure: the same inputs give the same outputs, with no clock, no I/O (other
than reading the packaged rubric once) and no hidden randomness.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import ranking as _ranking
from . import robustness as _robustness
from . import tco as _tco
from .rubric import Rubric, load_rubric
from .types import (
    DIMENSIONS,
    CandidateInput,
    CandidateResult,
    EvaluationSpec,
    MeasuredFacts,
    OfferingFacts,
    Price,
    VendorFacts,
)
from .weights import AhpResult, ahp, ahp_weights, normalise_weights

__all__ = [
    "DIMENSIONS",
    "AhpResult",
    "CandidateInput",
    "EvaluationSpec",
    "MeasuredFacts",
    "OfferingFacts",
    "Price",
    "VendorFacts",
    "ahp",
    "ahp_weights",
    "compute_tco",
    "load_rubric",
    "normalise_weights",
    "preset_weights",
    "robustness",
    "rubric_rules",
    "score_candidate",
    "score_candidates",
]


def score_candidates(
    candidates: Iterable[CandidateInput],
    evaluation: EvaluationSpec,
    *,
    rubric_version: str = "1",
    explain: bool | None = None,
    rubric: Rubric | None = None,
) -> _ranking.Ranking:
    """Score and rank an evaluation's candidates.

    Each result has six dimension scores 0..100 with their contributions, the weighted total
    0..100, knockouts (a disqualified candidate is ranked after every qualified one) and the
    TCO. Scores of one candidate never depend on the other candidates. ``explain``: build
    the contributions now (True) or on first read (False); see ranking.score_candidates_batch.
    ``rubric``: score with this rubric instead of the packaged ``rubric_version`` (a recorded
    decision's own rubric, from ``scoring.rubric.load_rubric_text``).
    """
    if rubric is None:
        rubric = load_rubric(rubric_version)
    return _ranking.rank(candidates, evaluation, rubric, explain=explain)


def score_candidate(
    candidate: CandidateInput,
    evaluation: EvaluationSpec,
    *,
    rubric_version: str = "1",
    rubric: Rubric | None = None,
) -> CandidateResult:
    """Score one candidate (the same result it gets inside score_candidates); ``rubric`` as
    there."""
    if rubric is None:
        rubric = load_rubric(rubric_version)
    return _ranking.score_candidate(candidate, evaluation, rubric)


def compute_tco(
    offering: OfferingFacts,
    evaluation: EvaluationSpec,
    *,
    node_count: int = 1,
    quoted_prices: Iterable[Price | tuple[str, Any]] = (),
    measured: MeasuredFacts | None = None,
    rubric_version: str = "1",
) -> _tco.Tco:
    """The TCO of ``node_count`` nodes of an offering over the evaluation's duration.

    Per billing model: components (gpu, storage, egress, support, licence, setup) that sum
    exactly to the total, the monthly figure; the cheapest model, the hourly/monthly
    break-even in used days and the cost per effective GPU-hour. Raises TcoError without a
    price, ScoringInputError on a malformed input.
    """
    candidate = CandidateInput(
        candidate_id=0,
        label="tco",
        vendor=VendorFacts(name="-"),
        offering=offering,
        node_count=node_count,
        quoted_prices=tuple(quoted_prices),
        measured=measured or MeasuredFacts(),
    )
    return _tco.compute_tco(candidate, evaluation, load_rubric(rubric_version))


def robustness(
    ranking: _ranking.Ranking | Sequence[CandidateResult],
    weights: Mapping[str, Any] | None = None,
    *,
    draws: int = 1000,
    perturbation_pct: float = 20.0,
    seed: int = 0,
) -> _robustness.Robustness:
    """Weight-flip thresholds of the leader against each other candidate and rank stability
    (share of seeded weight draws, each weight ±perturbation_pct %, in which each candidate
    ranks first). ``weights`` default to the ranking's."""
    if weights is None:
        if not isinstance(ranking, _ranking.Ranking):
            raise TypeError("pass weights when giving a list of results instead of a Ranking")
        weights = ranking.weights
    return _robustness.robustness(
        ranking, weights, draws=draws, perturbation_pct=perturbation_pct, seed=seed
    )


def preset_weights(profile: str, *, rubric_version: str = "1") -> dict[str, float]:
    """A workload profile's default weights in percent (pretraining, finetuning, inference,
    development)."""
    return load_rubric(rubric_version).preset_weights(profile)


def rubric_rules(rubric_version: str = "1") -> list[dict[str, Any]]:
    """The rubric's rules as plain data, for a page that explains the scoring."""
    rubric: Rubric = load_rubric(rubric_version)
    return [
        {
            "id": rule.id,
            "dimension": rule.dimension,
            "kind": rule.kind,
            "label_en": rule.label_en,
            "label_zh": rule.label_zh,
            "inputs": list(rule.inputs),
            "claim_item": rule.claim_item,
            "max_points": rule.max_points,
            "source": rule.source,
        }
        for rule in rubric.rules
    ]
