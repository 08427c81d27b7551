"""A result table's header and rows: the columns a header names and reading one row."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .formats import _DEFAULT_PREFIXES, _HEADER_ALIASES, _NOT_AVAILABLE, _WRONG_COLUMNS


@dataclass
class _Header:
    prefix: list[str]
    groups: list[list[str]]
    labels: list[str]
    line: int

    def __post_init__(self) -> None:
        # Read for every row: computed once per table.
        self.sizes = [len(g) for g in self.groups]
        self.width = len(self.prefix) + sum(self.sizes)
        # A row as wide as the header (nearly all of them) is read by position: where each
        # prefix column is (the last of a repeated name, as a dict of the prefix keeps it)...
        where = {name: index for index, name in enumerate(self.prefix)}
        self.at = tuple(where.get(name) for name in ("size", "count", "type", "redop", "root"))
        # ...and each group's label, columns and first token.
        spans = []
        position = len(self.prefix)
        for index, names in enumerate(self.groups):
            label = self.labels[index] if index < len(self.labels) else f"group{index}"
            spans.append((label, tuple(names), position))
            position += len(names)
        self.spans = tuple(spans)
        # Where each group holds the columns a reduced table reads (the last of a repeated
        # name, as the group's dict keeps it; None when absent).
        picks = []
        for names in self.groups:
            where = {name: index for index, name in enumerate(names)}
            picks.append(tuple(where.get(n) for n in ("busbw", "algbw", "time", "wrong", "error")))
        self.picks = tuple(picks)
        # Two groups under one label share one entry of a row's results (the last wins): such
        # a table, or one with fewer than two prefix columns, is never reduced on the fast path.
        distinct = len({label for label, _n, _s in spans}) == len(spans)
        self.reducible = distinct and len(self.prefix) >= 2
        # The same picks as indexes into a row's cells after the prefix.
        first = len(self.prefix)
        self.flat = tuple(
            (label, *(None if at is None else start - first + at for at in pick))
            for (label, _names, start), pick in zip(spans, picks, strict=True)
        )


class _Row:
    """One result row; ``best`` is the group (out-of-place or in-place) with the larger busbw.
    A plain class with slots: a big log makes hundreds of thousands of them."""

    __slots__ = (
        "best",
        "best_label",
        "count",
        "line",
        "redop",
        "results",
        "root",
        "size_bytes",
        "type",
        "unreadable",
    )  # fmt: skip

    def __init__(
        self,
        line: int,
        size_bytes: int,
        count: int | None,
        type: str | None,
        redop: str | None,
        root: int | None,
        results: dict[str, dict[str, Any]],
        unreadable: bool = False,
    ) -> None:
        self.line = line
        self.size_bytes = size_bytes
        self.count = count
        self.type = type
        self.redop = redop
        self.root = root
        self.results = results
        self.unreadable = unreadable
        best_label: str | None = None
        best: dict[str, Any] | None = None
        for label, values in results.items():
            busbw = values.get("busbw")
            if busbw is not None and (best is None or busbw > best["busbw"]):
                best_label, best = label, values
        self.best_label = best_label
        self.best = best


def _number(token: str) -> float | None:
    if len(token) > 40 or "_" in token:
        return None
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _byte_count(token: str) -> int | None:
    """An integer byte/element count; ``%g`` values are snapped to the power of two they round."""
    if len(token) <= 20 and token.isascii() and token.isdigit():
        return int(token)
    value = _number(token)
    if value is None or value < 0 or value > 2.0**63:
        return None
    if value < 1e6 and value != int(value):
        # %g prints every integer below 10**6 whole: "579.3" is a time, not a count.
        return None
    if value >= 1:
        # %g keeps 6 significant digits: a power of two within that rounding is the true value.
        power = 2 ** round(math.log2(value))
        if abs(power - value) <= value * 5e-6:
            return int(power)
    return round(value)


def _parse_header(line: str, line_no: int, labels: list[str]) -> _Header | None:
    tokens = [t.lower() for t in line.strip().lstrip("#").split()]
    if len(tokens) < 5 or tokens[0] not in ("size", "bytes") or "busbw" not in tokens:
        return None
    tokens = [_HEADER_ALIASES.get(t, t) for t in tokens]
    if "time" not in tokens:
        return None
    first = tokens.index("time")
    groups: list[list[str]] = []
    for name in tokens[first:]:
        if name == "time":
            groups.append([])
        groups[-1].append(name)
    return _Header(tokens[:first], groups, labels or ["out-of-place", "in-place"], line_no)


def _default_header(tokens: list[str], line_no: int) -> _Header | None:
    """The columns of a row met before any header, from its width. The last cell of each group
    is a ``#wrong`` count, or in pre-2020 tables an ``error`` (the largest deviation: "2e-07",
    "0.000"): a cell that is not a whole number names the column so, and a deviation is never
    read as a count of wrong results."""
    prefix = _DEFAULT_PREFIXES.get(len(tokens))
    if prefix is None:
        return None
    last = tokens[len(prefix) + 3 :: 4]
    deviation = any(
        cell not in _NOT_AVAILABLE and not cell.isdigit() and _is_number(cell) for cell in last
    )
    group = ["time", "algbw", "busbw", "error" if deviation else "wrong"]
    return _Header(list(prefix), [group, list(group)], ["out-of-place", "in-place"], line_no)


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _parse_group(names, tokens, flags: list[bool] | None = None) -> dict[str, Any] | None:
    """One group's cells by name; None when a figure is unreadable. An unreadable #wrong or
    error cell is kept as "unreadable" (and ``flags``, when given, gets True)."""
    result: dict[str, Any] = {}
    for name, token in zip(names, tokens, strict=True):
        if token in _NOT_AVAILABLE:
            result[name] = None
            continue
        # _number inlined (millions of cells in a big log).
        value = None
        if len(token) <= 40 and "_" not in token:
            try:
                value = float(token)
            except ValueError:
                value = None
            if value is not None and value - value != 0:  # inf or nan
                value = None
        if value is None:
            if name in _WRONG_COLUMNS:
                result[name] = "unreadable"
                if flags is not None:
                    flags.append(True)
                continue
            return None
        result[name] = value
    return result


def _full_row(
    tokens: list[str],
    header: _Header,
    line_no: int,
    counts: dict[str, int | None],
    plain: bool = False,
) -> _Row | None:
    """``_parse_row`` for a row as wide as its header, read by position (the same result).
    ``counts`` caches byte and element counts by their text: a log sweeps the same sizes in
    every table, so each distinct one is read (and held) once."""
    at_size, at_count, at_type, at_redop, at_root = header.at
    if at_size is None:
        return None
    token = tokens[at_size]
    size = counts.get(token)
    if size is None:
        size = _byte_count(token)
        if size is None:
            return None
        if len(counts) < 4096:
            counts[token] = size
    count = None
    if at_count is not None:
        token = tokens[at_count]
        count = counts.get(token)
        if count is None:
            count = _byte_count(token)
            if count is None:
                return None
            if len(counts) < 4096:
                counts[token] = count
    root = None
    if at_root is not None:
        root_value = _number(tokens[at_root])
        if root_value is None:
            return None
        root = int(root_value)
    flags: list[bool] = []
    results: dict[str, dict[str, Any]] = {}
    # Cells without "_" (which float() would accept) and of at most 40 characters: a group
    # that float() reads whole, to finite numbers, is what _parse_group would make of it.
    plain = plain and max(map(len, tokens)) <= 40
    for label, names, start in header.spans:
        cells = tokens[start : start + len(names)]
        parsed = None
        if plain:
            try:
                values = list(map(float, cells))
            except ValueError:  # N/A, a cut cell...
                values = None
            if values is not None:
                total = sum(values)
                if total - total == 0:  # all finite
                    parsed = dict(zip(names, values, strict=True))
        if parsed is None:
            parsed = _parse_group(names, cells, flags)
            if parsed is None:
                return None
        results[label] = parsed
    return _Row(
        line_no,
        size,
        count,
        tokens[at_type] if at_type is not None else None,
        tokens[at_redop] if at_redop is not None else None,
        root,
        results,
        bool(flags),
    )


def _groups_fitting(token_count: int, header: _Header) -> int:
    """How many of ``header``'s column groups (out-of-place, in-place) a row of
    ``token_count`` tokens holds, counted from the right; 0 when none fits. Blank cells (an
    old alltoall's empty redop, a tool that leaves in-place empty) shorten a row: the groups
    that fit are kept from the right, since every column is right-aligned."""
    sizes = header.sizes
    if token_count >= header.width and len(header.prefix) >= 2:
        return len(sizes)
    groups_used = len(sizes)
    pre = token_count - sum(sizes)
    while pre < 2 or pre > len(header.prefix):
        groups_used -= 1
        if groups_used == 0:
            return 0
        pre = token_count - sum(sizes[len(sizes) - groups_used :])
    return groups_used


def _parse_row(
    tokens: list[str],
    header: _Header,
    line_no: int,
    counts: dict[str, int | None] | None = None,
    plain: bool = False,
) -> _Row | None:
    """One result row read with ``header``'s columns; None when it cannot be read. ``plain``:
    the row's text holds no "_" (see _full_row)."""
    sizes = header.sizes
    width = header.width
    if len(tokens) >= width and len(header.prefix) >= 2:
        return _full_row(tokens, header, line_no, {} if counts is None else counts, plain)
    groups_used = _groups_fitting(len(tokens), header)
    if groups_used == 0:
        return None
    pre = len(tokens) - sum(sizes[len(sizes) - groups_used :])
    prefix = dict(zip(header.prefix, tokens[:pre], strict=False))
    size = _byte_count(prefix.get("size", ""))
    if size is None:
        return None
    if _number(prefix.get("type", "-")) is not None:
        return None  # a number where the type name goes: the tail of a row cut by other lines
    count_token = prefix.get("count")
    count = _byte_count(count_token) if count_token is not None else None
    if count_token is not None and count is None:
        return None
    root_token = prefix.get("root")
    root = None
    if root_token is not None:
        root_value = _number(root_token)
        if root_value is None:
            return None
        root = int(root_value)
    results: dict[str, dict[str, Any]] = {}
    position = pre
    first_group = len(sizes) - groups_used
    flags: list[bool] = []
    for index in range(first_group, len(sizes)):
        chunk = tokens[position : position + sizes[index]]
        position += sizes[index]
        parsed = _parse_group(header.groups[index], chunk, flags)
        if parsed is None:
            return None
        label = header.labels[index] if index < len(header.labels) else f"group{index}"
        results[label] = parsed
    return _Row(
        line_no, size, count, prefix.get("type"), prefix.get("redop"), root, results, bool(flags)
    )


def _group_labels(line: str) -> list[str]:
    """The column groups a label line names, in its order. A line naming one group only is a
    paste cut inside it ("     in-place"): nccl-tests prints out-of-place first, so the
    default order stands (the lone label's place says nothing of the group it missed)."""
    found = [(m.start(), m.group(0)) for m in re.finditer(r"out-of-place|in-place", line)]
    labels = [label for _, label in sorted(found)]
    return labels if len(set(labels)) > 1 else []
