"""The frozen outputs of the scoring core: contributions, dimension scores, knockouts, results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tco import Tco

# --- outputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Contribution:
    """One rule's share of a dimension score: why the score is what it is.

    ``inputs`` holds the fact(s) the rule read (Decimals shown as strings) and, for claims,
    the checklist status and the factor applied. ``basis`` is "measured", "claimed",
    "computed", "answer", "missing", "not_applicable" or "excluded"; an excluded rule has
    ``max_points`` 0 and does not count.
    """

    rule_id: str
    label_en: str
    label_zh: str
    inputs: Mapping[str, Any]
    points: float
    max_points: float
    basis: str
    evidence_ref: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-safe copy for storage and templates."""
        return {
            "rule_id": self.rule_id,
            "label_en": self.label_en,
            "label_zh": self.label_zh,
            "inputs": dict(self.inputs),
            "points": self.points,
            "max_points": self.max_points,
            "basis": self.basis,
            "evidence_ref": self.evidence_ref,
        }


@dataclass(frozen=True)
class DimensionScore:
    """One dimension's score, 0..100 = 100 x clamp(Σ points / Σ max_points), with its reasons."""

    dimension: str
    score: float
    contributions: tuple[Contribution, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "score": self.score,
            "contributions": [c.as_dict() for c in self.contributions],
        }


@dataclass(frozen=True)
class Knockout:
    """A failed must-have: a stable code, the reason in English and Chinese, the evidence line."""

    code: str
    reason_en: str
    reason_zh: str
    evidence_ref: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "reason_en": self.reason_en,
            "reason_zh": self.reason_zh,
            "evidence_ref": self.evidence_ref,
        }


@dataclass(frozen=True)
class CandidateResult:
    """A scored candidate: six dimension scores, the weighted total 0..100, knockouts, TCO.

    A disqualified candidate keeps its dimension scores for inspection, but the ranking puts
    it after every qualified one and pages show it as disqualified, never as a low score.
    ``tco`` is None when the candidate has no price for any billing model.
    """

    candidate_id: int
    label: str
    dimensions: tuple[DimensionScore, ...]
    total: float
    disqualified: bool
    knockouts: tuple[Knockout, ...]
    tco: Tco | None

    def score(self, dimension: str) -> float:
        """The 0..100 score of one dimension."""
        for item in self.dimensions:
            if item.dimension == dimension:
                return item.score
        raise KeyError(dimension)

    @property
    def scores(self) -> dict[str, float]:
        """Dimension -> score, in DIMENSIONS order."""
        return {item.dimension: item.score for item in self.dimensions}

    def as_dict(self) -> dict[str, Any]:
        return {
            "candidate_id": self.candidate_id,
            "label": self.label,
            "total": self.total,
            "disqualified": self.disqualified,
            "knockouts": [k.as_dict() for k in self.knockouts],
            "dimensions": [d.as_dict() for d in self.dimensions],
            "tco": None if self.tco is None else self.tco.as_dict(),
        }
