"""Helpers for computing a column over a batch of candidates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

Item = TypeVar("Item")


def once_per_key(
    keys: Sequence[Any], items: Sequence[Item], compute: Callable[[Item], Any]
) -> list[Any]:
    """compute(items[i]) for every i, computed once per distinct key: ``keys[i]`` must hold
    everything ``compute`` reads of ``items[i]`` (whatever else it reads is the same for the
    whole batch), so items with equal keys have equal results."""
    count = len(keys)
    # Each distinct key's first item (a later write of a key wins: reversed order).
    first = dict(zip(reversed(keys), range(count - 1, -1, -1), strict=True))
    values = {key: compute(items[index]) for key, index in first.items()}
    return list(map(values.__getitem__, keys))
