"""The candidates scored together and the columns their rules read, each fetched once."""

from __future__ import annotations

from operator import attrgetter, methodcaller
from typing import Any

from .facts import DERIVED_ITEMS, FACTS, UNANSWERED, FactContext


class Batch:
    """The candidates scored together, with the columns the rules read.

    A column is a list with one entry per candidate, in batch order, fetched on first use and
    shared by every rule that reads it.
    """

    __slots__ = ("answers", "columns", "ctxs", "nones", "ref_names", "refs")

    def __init__(self, ctxs: list[FactContext]) -> None:
        self.ctxs = ctxs
        self.answers = [ctx.answers for ctx in ctxs]
        self.refs = [ctx.refs for ctx in ctxs]
        # Most reference names appear in no candidate of a batch: their column is this one.
        self.ref_names: set[str] = set().union(*self.refs)
        self.nones: list[None] = [None] * len(ctxs)
        self.columns: dict[tuple[str, Any], list[Any]] = {}

    def fact(self, name: str) -> list[Any]:
        """Fact ``name`` of every candidate as shown in contributions: Decimals as their exact
        text; a fact whose basis depends on the evidence as its (value, basis) pair."""
        column = self.columns.get(("fact", name))
        if column is None:
            source = FACTS[name]
            if source.field is not None:
                owner, field = source.field
                column = list(map(attrgetter(field), self.owners(owner)))
            elif source.column is not None:
                column = source.column(self.ctxs)
            else:
                column = list(map(source.fetch, self.ctxs))
            if source.exact_text and source.basis is not None:
                column = [None if v is None else str(v) for v in column]
            self.columns["fact", name] = column
        return column

    def owners(self, owner: str) -> list[Any]:
        """``ctx.<owner>`` of every candidate (its vendor, offering or measured facts)."""
        column = self.columns.get(("owner", owner))
        if column is None:
            column = self.columns["owner", owner] = list(map(attrgetter(owner), self.ctxs))
        return column

    def status(self, item: str) -> list[str]:
        """The status of claim item ``item`` for every candidate: its checklist answer, or
        what the evidence settled for a derived item (facts.DERIVED_ITEMS)."""
        column = self.columns.get(("status", item))
        if column is None:
            derived = DERIVED_ITEMS.get(item)
            if derived is not None:
                column = list(map(derived, self.ctxs))
            else:
                column = list(map(methodcaller("get", item, UNANSWERED), self.answers))
            self.columns["status", item] = column
        return column

    def item_ref(self, item: str) -> list[str | None]:
        """The evidence reference recorded under checklist ``item`` for every candidate."""
        return self.measured_ref((item,))

    def measured_ref(self, names: tuple[str, ...]) -> list[str | None]:
        """The first evidence reference recorded under any of ``names`` for every candidate
        (MeasuredFacts drops empty references, so a present one is never falsy)."""
        column = self.columns.get(("ref", names))
        if column is None:
            present = tuple(name for name in names if name in self.ref_names)
            if not present:
                column = self.nones
            else:
                column = list(map(methodcaller("get", present[0]), self.refs))
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
