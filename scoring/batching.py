"""Helpers for computing a column over a batch of candidates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import count
from typing import Any, TypeVar

Item = TypeVar("Item")


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
