"""Helpers for computing a column over a batch of candidates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import count
from typing import Any, TypeVar

Item = TypeVar("Item")


def once_per_key(
    keys: Sequence[Any], items: Sequence[Item], compute: Callable[[Item], Any]
) -> list[Any]:
    """compute(items[i]) for every i, computed once per distinct key: ``keys[i]`` must hold
    everything ``compute`` reads of ``items[i]`` (whatever else it reads is the same for the
    whole batch), so items with equal keys have equal results."""
    # Each key's first position (setdefault keeps the first), each key hashed once.
    first: dict[Any, int] = {}
    positions = list(map(first.setdefault, keys, count()))
    values = {index: compute(items[index]) for index in first.values()}
    return list(map(values.__getitem__, positions))
