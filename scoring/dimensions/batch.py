"""The candidates scored together and the columns their rules read, each fetched once."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from itertools import repeat
from operator import attrgetter, is_not, itemgetter
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ..batching import item_columns, key_positions
from ..batching import read_fields as _read_fields
from ..rubric.model import backs
from ..tco import FloatCache
from ..types import CandidateInput, EvaluationSpec
from .facts import (
    CARRIED_REF_ITEMS,
    CLAIMED,
    DERIVED_COLUMNS,
    DERIVED_ITEMS,
    DERIVED_NOTE_COLUMNS,
    DERIVED_REF_COLUMNS,
    FACTS,
    UNANSWERED,
    FactContext,
    datasheet_refs,
    item_ref_names,
)

if TYPE_CHECKING:
    from ..rubric import Rubric
    from ..tco import PendingTco, Tco

_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_DECIMAL_OR_NONE = frozenset((Decimal, type(None)))


# A column factorised: the index of each value among the distinct values, and those values.
Coded = tuple[np.ndarray, list[Any]]


def factorise(values: list[Any]) -> Coded | None:
    """``values`` as indices into their distinct values (in first-seen order), or None when
    they are not hashable or mostly distinct (a measured figure; a long column whose first
    values are mostly distinct is taken as one): computing a function once per distinct
    value then costs more than once per value, and either gives the same. Distinct means
    unequal: equal values (7.68 and 7.680, 1 and 1.0) share an entry, so only a function of
    a value's equality class (a look-up, a comparison, truth) may be computed per entry;
    except in a column of Decimals (and None), keyed by their exact text, where equal values
    of another text (7.68 and 7.680) take an entry each."""
    count = len(values)
    # Two common columns found without hashing every value (the same result).
    if count >= 8 and values[0] is None and not any(values) and values.count(None) == count:
        # Nothing known (a fact no candidate has). any() stops at the first known value
        # that is true, before counting compares values with None.
        return np.zeros(count, np.intp), [None]
    if count >= 8 and type(values[0]) is bool and values.count(True) + values.count(False) == count:
        # Every value equals True or False (a flag): at most two classes, first seen first.
        # Every value is True or False (or equals one), so numpy's truth is bool()'s.
        codes = np.array(values, dtype=bool)
        codes ^= codes[0]
        if not codes.any():
            return np.zeros(count, np.intp), [values[0]]
        return codes.astype(np.intp), [values[0], values[int(np.argmax(codes))]]
    try:
        if count >= 64 and len(set(values[:32])) > 16:
            # Mostly distinct from the start (a measured figure): not worth hashing all.
            return None
        if count and type(values[0]) in _DECIMAL_OR_NONE:
            kinds = set(map(type, values))
            if Decimal in kinds and kinds <= _DECIMAL_OR_NONE:
                # Decimals (and unknowns) keyed by their exact text: equal Decimals are
                # seldom the same object, and a dict comparing two (or hashing one afresh)
                # costs more than str() of each. Equal text is the same value and exponent
                # (7.68 and 7.680 take an entry each), so any function of the value may be
                # computed per entry.
                return _coded_by_key(values, *key_positions(list(map(str, values))))
        if count and type(values[0]) is Decimal:
            # Equal Decimals are seldom the same object, and each dict operation then
            # compares them: one operation per value (where each first occurs).
            return _coded_by_key(values, *key_positions(values))
        distinct = list(dict.fromkeys(values))
    except TypeError:
        return None
    if len(distinct) * 4 > count:
        return None
    position = {value: index for index, value in enumerate(distinct)}
    return np.fromiter(map(position.__getitem__, values), np.intp, count), distinct


def _coded_by_key(values: list[Any], positions: list[int], firsts: list[int]) -> Coded | None:
    """``values`` (computed once per key, key_positions ``positions`` and ``firsts``) coded
    by key: entry k is the value at firsts[k]. None when mostly distinct (as factorise)."""
    count = len(values)
    if len(firsts) * 4 > count:
        return None
    entry = np.zeros(count, np.intp)
    entry[firsts] = np.arange(len(firsts))
    return entry[np.array(positions, dtype=np.intp)], [values[index] for index in firsts]


def _zero_float(value: Any) -> float:
    """float(value) of a value equal to zero (a Decimal zero's sign read without float())."""
    if type(value) is Decimal:
        return -0.0 if value.is_signed() else 0.0
    return float(value)


def _signed_zero(value: Any) -> bool:
    """Whether ``value`` is a float or Decimal zero (which may be -0)."""
    return isinstance(value, float | Decimal) and not value


def per_value(
    values: list[Any], coded: Coded | None, function: Callable[..., Any], dtype: Any, *extra: Any
) -> np.ndarray:
    """function(value, *extra) of every value as a ``dtype`` array, computed once per
    distinct value when ``coded`` (factorise(values)) is given."""
    if coded is not None:
        codes, values = coded
        return _mapped(values, function, dtype, extra)[codes]
    return _mapped(values, function, dtype, extra)


def _mapped(values: list[Any], function: Callable[..., Any], dtype: Any, extra: tuple) -> Any:
    arguments = [repeat(value) for value in extra]
    return np.fromiter(map(function, values, *arguments), dtype, len(values))


class Batch:
    """The candidates scored together, with the columns the rules read.

    A column is a list with one entry per candidate, in batch order, fetched on first use and
    shared by every rule that reads it.
    """

    __slots__ = ("answers", "by_key", "columns", "ctxs", "nones", "ref_names", "refs")

    def __init__(self, ctxs: Sequence[FactContext]) -> None:
        self.ctxs = ctxs
        self.columns: dict[tuple[str, Any], list[Any]] = {}
        self.answers = self.owners("answers")
        self.refs = self.owners("refs")
        # Most reference names appear in no candidate of a batch: their column is this one.
        self.ref_names: set[str] = set().union(*self.refs)
        self.nones: list[None] = [None] * len(ctxs)
        # id(list) -> (list, key_positions): key columns and the columns computed per key
        # (facts.by_key), whose equal keys hold the very same value.
        self.by_key: dict[int, tuple[Sequence[Any], tuple[list[int], list[int]]]] = {}

    @classmethod
    def of(
        cls,
        candidates: Sequence[CandidateInput],
        evaluation: EvaluationSpec,
        rubric: Rubric,
        tcos: Sequence[Tco | PendingTco | None],
    ) -> Batch:
        """The batch of ``candidates`` (each with its TCO); a candidate's FactContext is made
        only when a fact is fetched for it alone (most facts are read as columns)."""
        return cls(_Contexts(candidates, evaluation, rubric, tcos))

    def fact(self, name: str) -> list[Any]:
        """Fact ``name`` of every candidate as shown in contributions: Decimals as their exact
        text; a fact whose basis depends on the evidence as its (value, basis) pair."""
        column = self.columns.get(("fact", name))
        if column is None:
            column = self.raw(name)
            if FACTS[name].exact_text and FACTS[name].basis is not None:
                column = [None if v is None else str(v) for v in column]
            self.columns["fact", name] = column
        return column

    def raw(self, name: str) -> list[Any]:
        """Fact ``name`` of every candidate as fetched (Decimals as Decimals), as the numeric
        kernel reads it; a fact whose basis depends on the evidence as its (value, basis)
        pair."""
        column = self.columns.get(("raw", name))
        if column is None:
            source = FACTS[name]
            if source.field is not None:
                owner, field = source.field
                column = list(map(attrgetter(field), self.owners(owner)))
            elif source.column is not None:
                column = source.column(self)
            else:
                column = list(map(source.fetch, self.ctxs))
            self.columns["raw", name] = column
        return column

    # --- numpy columns for the ranking kernel (see kernel) ---------------------------------

    def prefetch(self, names: set[str] | frozenset[str]) -> None:
        """Fetch the raw columns of the plain-field facts among ``names`` in one pass over
        each owner (one attrgetter of many fields per object instead of one pass per fact)."""
        by_owner: dict[str, list[tuple[str, str]]] = {}
        for name in sorted(names):
            field = FACTS[name].field
            if field is not None and ("raw", name) not in self.columns:
                by_owner.setdefault(field[0], []).append((name, field[1]))
        for owner, wanted in by_owner.items():
            objects = self.owners(owner)
            if len(wanted) == 1 or not objects:
                for name, _ in wanted:
                    self.raw(name)
                continue
            rows = _read_fields(objects, tuple(field for _, field in wanted))
            for (name, _), column in zip(wanted, zip(*rows, strict=True), strict=True):
                self.columns["raw", name] = list(column)

    def prefetch_statuses(self, items: set[str] | frozenset[str]) -> None:
        """Fetch the status columns of checklist ``items`` (status()) in one pass over the
        candidates' answers: one item look-up of every item per candidate (a candidate that
        leaves one unanswered is read item by item)."""
        wanted = tuple(
            sorted(
                item
                for item in items
                if item not in DERIVED_COLUMNS
                and item not in DERIVED_ITEMS
                and ("status", item) not in self.columns
            )
        )
        if len(wanted) < 2 or not self.answers:
            return
        columns = item_columns(self.answers, wanted, UNANSWERED)
        for item, column in zip(wanted, columns, strict=True):
            self.columns["status", item] = column

    def values(self, name: str) -> list[Any]:
        """raw(name) without the basis: the value of a (value, basis) pair."""
        column = self.columns.get(("values", name))
        if column is None:
            column = self.raw(name)
            if FACTS[name].basis is None:
                column = list(map(_FIRST, column))
            self.columns["values", name] = column
        return column

    def key_positions(self, keys: Sequence[Any]) -> tuple[list[int], list[int]]:
        """batching.key_positions(keys), computed once per key column the batch keeps (a
        column several facts are keyed by); a key column made for one fact is not kept."""
        found = self.by_key.get(id(keys))
        if found is not None and found[0] is keys:
            return found[1]
        positions = key_positions(keys)
        if any(column is keys for column in self.columns.values()):
            self.by_key[id(keys)] = (keys, positions)
        return positions

    def keyed(self, column: list[Any], positions: tuple[list[int], list[int]]) -> None:
        """Record that ``column`` was computed once per key (facts.by_key): its candidates
        with equal keys hold the very same value, at ``positions`` (key_positions)."""
        self.by_key[id(column)] = (column, positions)

    def _keyed(self, name: str) -> tuple[list[int], list[int]] | None:
        """The key positions of fact ``name``'s raw column when it was computed per key."""
        raw = self.raw(name)
        found = self.by_key.get(id(raw))
        return found[1] if found is not None and found[0] is raw else None

    def coded(self, name: str) -> Coded | None:
        """Fact ``name``'s values (values()) factorised (see factorise), or None. A column
        computed per key is coded by its keys: equal keys hold one value (entries of equal
        values from unequal keys compute the same function value)."""
        key = ("coded", name)
        if key not in self.columns:
            keyed = self._keyed(name)
            values = self.values(name)
            if keyed is None:
                self.columns[key] = factorise(values)
            else:
                self.columns[key] = _coded_by_key(values, *keyed)
        return self.columns[key]

    def known(self, name: str) -> np.ndarray:
        """Whether fact ``name`` is known (not None), per candidate."""
        column = self.columns.get(("known", name))
        if column is None:
            values = self.values(name)
            column = per_value(values, self.coded(name), is_not, bool, None)
            self.columns["known", name] = column
        return column

    def claimed(self, name: str) -> np.ndarray | bool:
        """Whether fact ``name`` is a claim, per candidate (one bool for a fixed basis)."""
        source = FACTS[name]
        if source.basis is not None:
            return source.basis == CLAIMED
        column = self.columns.get(("claimed", name))
        if column is None:
            coded = self.coded(name) if self._keyed(name) is not None else None
            if coded is not None:
                # Once per key: equal keys hold the same (value, basis) pair.
                codes, _ = coded
                raw = self.raw(name)
                firsts = self._keyed(name)[1]  # type: ignore[index]
                bases = [raw[index][1] for index in firsts]
                column = np.fromiter(map(CLAIMED.__eq__, bases), bool, len(bases))[codes]
            else:
                bases = list(map(_SECOND, self.raw(name)))
                column = np.fromiter(map(CLAIMED.__eq__, bases), bool, len(bases))
            self.columns["claimed", name] = column
        return column

    def floats(self, name: str) -> np.ndarray | None:
        """Fact ``name`` as float64 (float() of each value, 0.0 where unknown), or None when
        a known value is not a real number or is NaN."""
        key = ("floats", name)
        if key in self.columns:
            return self.columns[key]
        values = every = self.values(name)
        coded = self.coded(name)
        codes = None
        zeros: list[int] = []
        if coded is not None:
            # Per distinct value; but equal zeros need not share the sign float() keeps
            # (-0.0): the candidates of a zero's entry are converted one by one below.
            codes, values = coded
            zeros = [entry for entry, value in enumerate(values) if _signed_zero(value)]
        # Not `None in values`: comparing each Decimal with None is slow.
        if not all(map(is_not, values, repeat(None))):
            values = [0.0 if v is None else v for v in values]
        # float() in a map first: numpy's own conversion of Decimals is twice as slow. And
        # float() of a Decimal costs more than a look-up: catalogue values repeat, so each
        # distinct one is converted once (either way gives the same floats).
        convert: Any = float
        if values and (type(values[0]) is Decimal or type(values[-1]) is Decimal):
            convert = FloatCache().__getitem__
        try:
            column: np.ndarray | None = np.array(list(map(convert, values)), dtype=float)
        except (TypeError, ValueError):
            column = None
        if column is not None and (column.shape != (len(values),) or np.isnan(column).any()):
            column = None
        if column is not None and codes is not None:
            column = column[codes]
            if zeros:
                rows = np.flatnonzero(np.isin(codes, zeros)).tolist()
                column[rows] = list(map(_zero_float, map(every.__getitem__, rows)))
        self.columns[key] = column
        return column

    def factors(self, item: str, factors: Mapping[str, float]) -> np.ndarray:
        """The claim factor of checklist ``item``'s status for every candidate (``factors``
        are the rubric's, the same for every rule of a batch)."""
        column = self.columns.get(("factor", item))
        if column is None:
            statuses = self.status(item)
            column = per_value(statuses, factorise(statuses), factors.__getitem__, float)
            self.columns["factor", item] = column
        return column

    def backed(self, name: str, minimum: Decimal | None = None) -> np.ndarray:
        """Whether fact ``name`` backs a claim (rubric.model.backs: known and above zero, or at
        least ``minimum``), per candidate (a rule's backed_by and backed_from)."""
        key = ("backed", name, minimum)
        column = self.columns.get(key)
        if column is None:
            column = per_value(
                self.values(name), self.coded(name), lambda value: backs(value, minimum), bool
            )
            self.columns[key] = column
        return column

    def allowed(self, name: str, allowed: tuple[Any, ...]) -> np.ndarray:
        """Whether fact ``name``'s value is one of ``allowed`` (an only_if condition)."""
        key = ("allowed", name, allowed)
        column = self.columns.get(key)
        if column is None:
            values = self.raw(name)
            # raw() is values() for a fact with a fixed basis.
            coded = self.coded(name) if FACTS[name].basis is not None else None
            column = per_value(values, coded, allowed.__contains__, bool)
            self.columns[key] = column
        return column

    def shared(self, compute: Callable[[Batch], list[Any]]) -> list[Any]:
        """compute(batch), computed once: a column several fact columns read."""
        column = self.columns.get(("shared", compute))
        if column is None:
            column = self.columns["shared", compute] = compute(self)
        return column

    def owners(self, owner: str) -> list[Any]:
        """``ctx.<owner>`` of every candidate (its vendor, offering or measured facts)."""
        column = self.columns.get(("owner", owner))
        if column is None:
            ctxs = self.ctxs
            if type(ctxs) is _Contexts:
                column = ctxs.owners(owner)
            else:
                column = list(map(attrgetter(owner), ctxs))
            self.columns["owner", owner] = column
        return column

    def status(self, item: str) -> list[str]:
        """The status of claim item ``item`` for every candidate: its checklist answer, or
        what the evidence settled for a derived item (facts.DERIVED_ITEMS, by its column)."""
        column = self.columns.get(("status", item))
        if column is None:
            derived = DERIVED_COLUMNS.get(item)
            if derived is not None:
                column = derived(self)
            elif item in DERIVED_ITEMS:
                column = list(map(DERIVED_ITEMS[item], self.ctxs))
            else:
                # A comprehension: twice as fast as a methodcaller mapped over the answers.
                column = [answers.get(item, UNANSWERED) for answers in self.answers]
            self.columns["status", item] = column
        return column

    def item_ref(self, item: str) -> list[str | None]:
        """The evidence reference recorded under checklist ``item`` (for a derived item, the
        evidence it is judged on: facts.item_ref_names; for an item that carries another's
        evidence, facts.CARRIED_REF_ITEMS) for every candidate; where the GPU's datasheet rules
        the claim out, the datasheet line, and where no reference applies to the GPU, why the
        claim is scored as declared (facts.claim_ref)."""
        carried = CARRIED_REF_ITEMS.get(item)
        if carried is not None:
            column = self.columns.get(("item_ref", item))
            if column is None:
                refs = self.measured_ref(item_ref_names(carried))
                if refs is self.nones:
                    column = refs
                else:
                    column = [
                        ref if status == own else None
                        for ref, status, own in zip(
                            refs, self.status(item), self.status(carried), strict=True
                        )
                    ]
                self.columns["item_ref", item] = column
            return column
        measured = self.measured_ref(item_ref_names(item))
        ruled_out = DERIVED_REF_COLUMNS.get(item)
        if ruled_out is None:
            return measured
        column = self.columns.get(("item_ref", item))
        if column is None:
            reasons = self.shared(ruled_out)
            notes = self.shared(DERIVED_NOTE_COLUMNS[item])
            if reasons.count(None) == len(reasons) and notes.count(None) == len(notes):
                column = measured
            else:
                column = [
                    datasheet or note or ref
                    for datasheet, note, ref in zip(
                        datasheet_refs(reasons), notes, measured, strict=True
                    )
                ]
            self.columns["item_ref", item] = column
        return column

    def measured_ref(self, names: tuple[str, ...]) -> list[str | None]:
        """The first evidence reference recorded under any of ``names`` for every candidate
        (MeasuredFacts drops empty references, so a present one is never falsy)."""
        column = self.columns.get(("ref", names))
        if column is None:
            present = tuple(name for name in names if name in self.ref_names)
            if not present:
                column = self.nones
            else:
                first = present[0]
                column = [refs.get(first) for refs in self.refs]
                if len(present) > 1:
                    rest = present[1:]
                    column = [
                        ref or next(filter(None, map(refs.get, rest)), None)
                        for ref, refs in zip(column, self.refs, strict=True)
                    ]
            self.columns["ref", names] = column
        return column

    def claim(self, item: str) -> list[str | tuple[str, str]]:
        """What a claim under checklist ``item`` depends on besides its value, for every
        candidate: the item's status, or (status, reference) when a reference is recorded."""
        column = self.columns.get(("claim", item))
        if column is None:
            statuses, refs = self.status(item), self.item_ref(item)
            if refs is self.nones:
                column = statuses
            else:
                column = [s if r is None else (s, r) for s, r in zip(statuses, refs, strict=True)]
            self.columns["claim", item] = column
        return column


class _Contexts(Sequence[FactContext]):
    """The FactContexts of a batch's candidates, each made when first asked for."""

    __slots__ = ("candidates", "evaluation", "made", "rubric", "tcos")

    def __init__(
        self,
        candidates: Sequence[CandidateInput],
        evaluation: EvaluationSpec,
        rubric: Rubric,
        tcos: Sequence[Tco | PendingTco | None],
    ) -> None:
        if len(tcos) != len(candidates):
            raise ValueError("one TCO per candidate")
        self.candidates = candidates
        self.evaluation = evaluation
        self.rubric = rubric
        self.tcos = tcos
        self.made: dict[int, FactContext] = {}

    def __len__(self) -> int:
        return len(self.candidates)

    @overload
    def __getitem__(self, index: int) -> FactContext: ...

    @overload
    def __getitem__(self, index: slice) -> list[FactContext]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        count = len(self.candidates)
        if not -count <= index < count:
            raise IndexError(index)
        index %= count
        ctx = self.made.get(index)
        if ctx is None:
            ctx = self.made[index] = FactContext(
                self.candidates[index], self.evaluation, self.rubric, self.tcos[index]
            )
        return ctx

    def owners(self, owner: str) -> list[Any]:
        """FactContext.<owner> of every candidate, read from the candidates themselves."""
        if owner == "candidate":
            return list(self.candidates)
        if owner == "tco":
            return list(self.tcos)
        if owner in ("evaluation", "rubric"):
            return [getattr(self, owner)] * len(self.candidates)
        if owner == "refs":
            return list(map(_REFS_OF, self.candidates))
        return list(map(attrgetter(owner), self.candidates))


_REFS_OF = attrgetter("measured.evidence_refs")
