"""Helpers for computing a column over a batch of candidates."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from itertools import count
from operator import attrgetter, itemgetter
from typing import Any, TypeVar

Item = TypeVar("Item")

_DICT = attrgetter("__dict__")

_PLAIN_FIELDS: dict[tuple[type, tuple[str, ...]], bool] = {}


def _plain_fields(kind: type, names: tuple[str, ...]) -> bool:
    """Whether attributes ``names`` of a ``kind`` instance are read from its __dict__: no
    data descriptor (a property, a slot) of the class takes precedence over it."""
    key = (kind, names)
    found = _PLAIN_FIELDS.get(key)
    if found is None:
        found = kind.__getattribute__ is object.__getattribute__ and not hasattr(kind, "__slots__")
        for name in names:
            attribute = inspect.getattr_static(kind, name, None)
            if hasattr(type(attribute), "__set__") or hasattr(type(attribute), "__delete__"):
                found = False
        if len(_PLAIN_FIELDS) >= 64:
            _PLAIN_FIELDS.clear()
        _PLAIN_FIELDS[key] = found
    return found


def read_fields(objects: list[Any], names: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """attrgetter(*names) (two or more names) of every object, the same values: read from
    each object's __dict__ when all are of one class whose fields are plain instance
    attributes (an item look-up is cheaper than an attribute look-up)."""
    kinds = set(map(type, objects))
    if len(kinds) == 1 and _plain_fields(kinds.pop(), names):
        try:
            return list(map(itemgetter(*names), map(_DICT, objects)))
        except (AttributeError, KeyError):
            pass
    return list(map(attrgetter(*names), objects))


def key_positions(keys: Sequence[Any]) -> tuple[list[int], list[int]]:
    """For every key the position of its first occurrence, and those first positions (in
    order): each key hashed once (setdefault keeps the first)."""
    first: dict[Any, int] = {}
    positions = list(map(first.setdefault, keys, count()))
    return positions, list(first.values())


def once_per_key(
    keys: Sequence[Any],
    items: Sequence[Item],
    compute: Callable[[Item], Any],
    positions: tuple[list[int], list[int]] | None = None,
) -> list[Any]:
    """compute(items[i]) for every i, computed once per distinct key: ``keys[i]`` must hold
    everything ``compute`` reads of ``items[i]`` (whatever else it reads is the same for the
    whole batch), so items with equal keys have equal results (the very same object).
    ``positions`` may pass key_positions(keys) computed before."""
    at, firsts = positions if positions is not None else key_positions(keys)
    values = {index: compute(items[index]) for index in firsts}
    return list(map(values.__getitem__, at))


def item_columns(mappings: list[Any], keys: tuple[Any, ...], default: Any) -> list[list[Any]]:
    """[mapping.get(key, default) of every mapping] for each of ``keys`` (two or more): one
    item look-up of every key per mapping (a mapping missing one is read key by key)."""
    get = itemgetter(*keys)
    try:
        rows = list(map(get, mappings))
    except KeyError:

        def row(mapping: Any) -> tuple[Any, ...]:
            try:
                return get(mapping)
            except KeyError:
                return tuple(mapping.get(key, default) for key in keys)

        rows = list(map(row, mappings))
    if not rows:
        return [[] for _ in keys]
    return list(map(list, zip(*rows, strict=True)))
