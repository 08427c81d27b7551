"""The frozen outputs of the scoring core: contributions, dimension scores, knockouts, results."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from ..tco import Tco

# --- outputs ---------------------------------------------------------------------------------
#
# A ranking builds thousands of contributions and dimension scores. They are slotted (no dict
# per object: less memory and less garbage-collector work) and their __init__ sets each slot
# through its descriptor, cheaper than the generated frozen __init__'s object.__setattr__ per
# field. Fields, frozen assignment, eq, hash, repr, replace(), asdict() and pickling behave as
# for any frozen dataclass.


@dataclass(frozen=True, slots=True, init=False)
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

    def __init__(
        self,
        rule_id: str,
        label_en: str,
        label_zh: str,
        inputs: Mapping[str, Any],
        points: float,
        max_points: float,
        basis: str,
        evidence_ref: str | None = None,
    ) -> None:
        rule_id_, label_en_, label_zh_, inputs_, points_, max_points_, basis_, ref_ = (
            _CONTRIBUTION_SLOTS
        )
        rule_id_(self, rule_id)
        label_en_(self, label_en)
        label_zh_(self, label_zh)
        inputs_(self, inputs)
        points_(self, points)
        max_points_(self, max_points)
        basis_(self, basis)
        ref_(self, evidence_ref)

    # Pickling (the results read model is cached pickled): the slots' values in field order,
    # as dataclasses' own slotted __getstate__ gives them, without its fields() per object.
    def __getstate__(self) -> tuple[Any, ...]:
        return _CONTRIBUTION_STATE(self)

    def __setstate__(self, state: Sequence[Any]) -> None:
        _set_slots(self, _CONTRIBUTION_SLOTS, state)

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


@dataclass(frozen=True, slots=True, init=False)
class DimensionScore:
    """One dimension's score, 0..100 = 100 x clamp(Σ points / Σ max_points), with its reasons."""

    dimension: str
    score: float
    contributions: tuple[Contribution, ...]

    def __init__(
        self, dimension: str, score: float, contributions: tuple[Contribution, ...]
    ) -> None:
        dimension_, score_, contributions_ = _DIMENSION_SCORE_SLOTS
        dimension_(self, dimension)
        score_(self, score)
        contributions_(self, contributions)

    @classmethod
    def many(
        cls,
        dimension: str,
        scores: Sequence[float],
        contributions: Sequence[tuple[Contribution, ...]],
    ) -> list[DimensionScore]:
        """One dimension's scores of many candidates (score i with contributions i), equal to
        calling the class for each but with no Python-level call per object."""
        count = len(scores)
        if len(contributions) != count:
            raise ValueError("one tuple of contributions per score")
        return build_slotted(
            cls, _DIMENSION_SCORE_SLOTS, (repeat(dimension, count), scores, contributions), count
        )

    def __getstate__(self) -> tuple[Any, ...]:
        return _DIMENSION_SCORE_STATE(self)

    def __setstate__(self, state: Sequence[Any]) -> None:
        _set_slots(self, _DIMENSION_SCORE_SLOTS, state)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "score": self.score,
            "contributions": [c.as_dict() for c in self.contributions],
        }


def slot_setters(cls: type) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of a slotted class' slots, in field order (they bypass frozen assignment)."""
    return tuple(getattr(cls, name).__set__ for name in cls.__slots__)


def build_slotted(
    cls: type,
    setters: Sequence[Callable[[Any, Any], None]],
    columns: Sequence[Any],
    count: int,
) -> list[Any]:
    """``count`` new objects of the slotted class ``cls``, object j's slot i set (through
    ``setters[i]``) to item j of ``columns[i]``, with no Python-level call per object."""
    made = list(map(object.__new__, repeat(cls, count)))
    for setter, values in zip(setters, columns, strict=True):
        # map() runs the slot setters in C; the deque only drains it.
        deque(map(setter, made, values), maxlen=0)
    return made


def _set_slots(obj: Any, setters: Sequence[Callable[[Any, Any], None]], state: Any) -> None:
    """Set ``obj``'s slots (``setters``, field order) from a pickled state: the values in field
    order (a tuple, or the list dataclasses' own __getstate__ gave)."""
    for setter, value in zip(setters, state, strict=True):
        setter(obj, value)


_CONTRIBUTION_SLOTS = slot_setters(Contribution)
_DIMENSION_SCORE_SLOTS = slot_setters(DimensionScore)
# The slots' values in field order, as one tuple (attrgetter runs in C).
_CONTRIBUTION_STATE = attrgetter(*Contribution.__slots__)
_DIMENSION_SCORE_STATE = attrgetter(*DimensionScore.__slots__)


@dataclass(frozen=True)
class Knockout:
    """A failed must-have: a stable code, the reason in English and Chinese, the evidence line.
    ``poc`` holds the POC plan's shortfalls (scoring.poc.PocShortfall) a POC must-have is
    about, for pages to word its runs and evidence in their reader's language."""

    code: str
    reason_en: str
    reason_zh: str
    evidence_ref: str | None = None
    poc: tuple[Any, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "reason_en": self.reason_en,
            "reason_zh": self.reason_zh,
            "evidence_ref": self.evidence_ref,
            "poc": [s.as_dict() for s in self.poc],
        }


class Deferred:
    """A value computed when first read: a field holding one resolves it on access (see
    CandidateResult.tco)."""

    __slots__ = ()

    def resolve(self) -> Any:
        raise NotImplementedError


class _ResolvedField:
    """A data descriptor for a dataclass field that may hold a Deferred: the first read
    resolves it and keeps the value in its place, so eq, hash, repr, replace(), asdict(),
    copying and pickling all see the value."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        # No class-level value, so dataclasses sees a field without a default.
        if obj is None:
            raise AttributeError(self.name)
        try:
            value = obj.__dict__[self.name]
        except KeyError:
            raise AttributeError(self.name) from None
        resolved = self.resolve(obj, value)
        if resolved is not value:
            obj.__dict__[self.name] = resolved
        return resolved

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value

    def resolve(self, obj: Any, value: Any) -> Any:
        """The value to keep in place of ``value`` (``value`` itself when it is final), which
        ``obj`` holds."""
        return value.resolve() if isinstance(value, Deferred) else value


class DeferredRows:
    """The dimension scores of a batch of results, each result's tuple built when first read
    (row ``index`` for the result whose _score_index is ``index``; see CandidateResult)."""

    __slots__ = ()

    def row(self, index: int) -> tuple[DimensionScore, ...]:
        raise NotImplementedError


class _RowField(_ResolvedField):
    """CandidateResult.dimensions: a tuple, or the DeferredRows of the result's batch, whose
    row (the result's _score_index) is built on the first read and kept in its place."""

    def resolve(self, obj: Any, value: Any) -> Any:
        if isinstance(value, DeferredRows):
            return value.row(obj.__dict__["_score_index"])
        return value


class _ClaimCount(_ResolvedField):
    """A data descriptor for a count of a candidate's checklist answers with one status: an
    int, or the answers themselves (a mapping item -> status), counted when first read and
    kept in its place. A ranking reads the counts only where totals tie, so it passes the
    answers and never counts the rest."""

    def __init__(self, status: str) -> None:
        self.status = status

    def resolve(self, obj: Any, value: Any) -> Any:
        return value if type(value) is int else list(value.values()).count(self.status)


class ScoreBlock:
    """The dimension scores of a batch of results as one candidates x DIMENSIONS float64
    array (read-only): row i holds the same floats as the DimensionScores of the batch's
    result i. Each result of a ranking keeps the block and its row, so an analysis of many
    results (robustness) reads their scores without visiting 6 objects per result. Copies
    and pickles of a result leave it out (it is a cache of the scores, not a field)."""

    __slots__ = ("matrix",)

    def __init__(self, matrix: Any) -> None:
        self.matrix = matrix


@dataclass(frozen=True, init=False)
class CandidateResult:
    """A scored candidate: six dimension scores, the weighted total 0..100, knockouts, TCO.

    A disqualified candidate keeps its dimension scores for inspection, but the ranking puts
    it after every qualified one and pages show it as disqualified, never as a low score.
    ``tco`` is None when the candidate has no price for any billing model.
    ``refuted_claims`` and ``verified_claims`` count the candidate's checklist answers the
    evidence contradicted and verified: among equal totals the ranking puts fewer refuted
    claims first, then more verified ones (see scoring.ranking.tie_key). Each is given as an
    int or as the answers themselves (counted when first read).
    """

    candidate_id: int
    label: str
    # A ranking passes its batch's DeferredRows: the result's tuple is built when first read.
    dimensions: tuple[DimensionScore, ...] = _RowField()  # type: ignore[assignment]
    total: float
    disqualified: bool
    knockouts: tuple[Knockout, ...]
    # A ranking passes a Deferred (tco.PendingTco): the exact TCO is built when first read.
    tco: Tco | None = _ResolvedField()  # type: ignore[assignment]
    refuted_claims: int = _ClaimCount("contradicted")  # type: ignore[assignment]
    verified_claims: int = _ClaimCount("verified")  # type: ignore[assignment]
    # Set by the ranking that scored the result (see ScoreBlock); not fields.
    _score_block: ClassVar[ScoreBlock | None] = None
    _score_index: ClassVar[int] = 0

    def __init__(
        self,
        candidate_id: int,
        label: str,
        dimensions: tuple[DimensionScore, ...],
        total: float,
        disqualified: bool,
        knockouts: tuple[Knockout, ...],
        tco: Tco | Deferred | None,
        refuted_claims: int | Mapping[str, str] = 0,
        verified_claims: int | Mapping[str, str] = 0,
    ) -> None:
        self.__dict__.update(
            candidate_id=candidate_id,
            label=label,
            dimensions=dimensions,
            total=total,
            disqualified=disqualified,
            knockouts=knockouts,
            tco=tco,
            refuted_claims=refuted_claims,
            verified_claims=verified_claims,
        )

    def __getstate__(self) -> dict[str, Any]:
        # A copy or a pickle holds the exact TCO and counts, never what computes them.
        state = dict(self.__dict__)
        state["dimensions"] = self.dimensions
        state["tco"] = self.tco
        state["refuted_claims"] = self.refuted_claims
        state["verified_claims"] = self.verified_claims
        state.pop("_score_block", None)
        state.pop("_score_index", None)
        return state

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
