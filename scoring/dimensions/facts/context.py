"""What a fact is read from and how: the bases and statuses facts carry, FactContext (one
candidate's facts for one evaluation) and FactSource (how to read one fact, for one candidate
or for a whole batch)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...types import CandidateInput, EvaluationSpec

if TYPE_CHECKING:
    from ...rubric import Rubric
    from ...tco import PendingTco, Tco
    from ..batch import Batch


MEASURED = "measured"
CLAIMED = "claimed"
COMPUTED = "computed"
ANSWER = "answer"
UNANSWERED = "unanswered"
CONTRADICTED = "contradicted"


class FactContext:
    """One candidate's facts for one evaluation, read lazily by the rules."""

    __slots__ = (
        "answers",
        "candidate",
        "evaluation",
        "measured",
        "offering",
        "refs",
        "rubric",
        "tco",
        "vendor",
    )

    def __init__(
        self,
        candidate: CandidateInput,
        evaluation: EvaluationSpec,
        rubric: Rubric,
        tco: Tco | PendingTco | None,
    ) -> None:
        self.candidate = candidate
        self.evaluation = evaluation
        self.rubric = rubric
        self.tco = tco
        self.offering = candidate.offering
        self.vendor = candidate.vendor
        self.measured = candidate.measured
        self.answers = candidate.answers
        self.refs = candidate.measured.evidence_refs


@dataclass(frozen=True)
class FactSource:
    """How to read one fact: ``fetch(ctx)`` returns the value (None = unknown), or the pair
    (value, basis) when ``basis`` is None because it depends on the evidence.
    ``ref_names`` are the evidence_refs keys that reference it; ``exact_text`` marks Decimals,
    shown as strings so "7.68" and "7.680" stay distinct. For fetching many candidates at
    once (equal to fetch on each, but cheaper): ``field`` names the attribute when the fact is
    a plain field of ``ctx.<owner>``, ``column`` is a function of the whole Batch."""

    fetch: Callable[[FactContext], Any]
    basis: str | None
    ref_names: tuple[str, ...] = ()
    exact_text: bool = False
    field: tuple[str, str] | None = None
    column: Callable[[Batch], list[Any]] | None = None
