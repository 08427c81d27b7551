"""The collective a table fits when the output never names one (busbw/algbw, counts)."""

from __future__ import annotations

from .table import _Row

_TYPE_BYTES = {
    "int8": 1, "uint8": 1, "char": 1, "fp8": 1, "f8e4m3": 1, "f8e5m2": 1, "float8": 1,
    "half": 2, "float16": 2, "bfloat16": 2, "bf16": 2,
    "int32": 4, "uint32": 4, "int": 4, "float": 4, "float32": 4,
    "int64": 8, "uint64": 8, "double": 8, "float64": 8,
}  # fmt: skip
_NO_REDOP = {None, "", "none"}
_RATIO_TOLERANCE = 0.03


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _RATIO_TOLERANCE * max(abs(b), 1e-9)


def _ratio_and_split(rows: list[_Row]) -> tuple[float, int | None, bool] | None:
    """The table's median busbw/algbw, its size/count/type size (None without a count) and
    whether the ratio is rough (no row with algbw >= 1 GB/s: printed with two decimals, 0.01 and
    0.02 make 2.0 of what may be 1.875), or None when no row holds both bandwidths."""
    ratios: list[float] = []
    big: list[float] = []
    splits: list[float] = []
    for row in rows:
        best = row.best or {}
        algbw, busbw = best.get("algbw"), best.get("busbw")
        if algbw and busbw and algbw > 0:
            ratios.append(busbw / algbw)
            if algbw >= 1.0:  # two printed decimals: small values give rough ratios
                big.append(busbw / algbw)
        type_bytes = _TYPE_BYTES.get((row.type or "").lower())
        if type_bytes and row.count:
            splits.append(row.size_bytes / (row.count * type_bytes))
    if not ratios:
        return None
    return _median(big or ratios), round(_median(splits)) if splits else None, not big


_SPLIT_COLLECTIVES = {"all_gather", "reduce_scatter", "alltoall", "gather", "scatter"}


def _ranks_of(collective: str, rows: list[_Row]) -> int | None:
    """The rank count a table of a named ``collective`` implies, or None when it cannot.

    all_reduce: busbw/algbw = 2(n-1)/n (1.0 is 2 ranks); all_gather, reduce_scatter, alltoall:
    the count column's split, else busbw/algbw = (n-1)/n; broadcast, reduce and sendrecv print
    busbw = algbw whatever n is. Past 16 ranks two printed decimals no longer pin n down.
    """
    figures = _ratio_and_split(rows)
    if figures is None:
        return None
    ratio, split, rough = figures
    if collective in _SPLIT_COLLECTIVES and split is not None and split > 1:
        return split
    if rough:
        return None
    guess: int | None = None
    if collective == "all_reduce" and 1 - _RATIO_TOLERANCE <= ratio < 2 - 1e-6:
        guess = round(2 / (2 - ratio))
        expected = 2 * (guess - 1) / guess if guess else 0.0
    elif collective in _SPLIT_COLLECTIVES and ratio < 1 - _RATIO_TOLERANCE:
        guess = round(1 / (1 - ratio))
        expected = (guess - 1) / guess if guess else 0.0
    if guess is not None and 2 <= guess <= 16 and _close(ratio, expected):
        return guess
    return None


def _infer_collective(
    rows: list[_Row], ranks: int | None
) -> tuple[list[str], int | None, str] | None:
    """The collective(s) a table fits when the output never names one.

    nccl-tests' bus bandwidth is algbw * factor: 2(n-1)/n for all_reduce, (n-1)/n for
    all_gather, reduce_scatter and alltoall, 1 for broadcast, reduce and sendrecv. For the
    collectives that split the buffer per rank (all_gather, reduce_scatter, alltoall, gather,
    scatter) the count column is size / (type size * n). A reduction op (sum, prod...) rules
    out the copy-only collectives; a root >= 0 means broadcast/reduce/gather/scatter.
    Returns (candidates, n or None, reason), or None when the rows hold no usable figures.
    """
    figures = _ratio_and_split(rows)
    if figures is None:
        return None
    ratio, split, rough = figures
    redops = {(row.redop or "").lower() or None for row in rows}
    roots = {row.root for row in rows}
    reduces = bool(redops - _NO_REDOP)
    copies = redops <= _NO_REDOP
    rooted = any(r is not None and r >= 0 for r in roots)
    unrooted = all(r is not None and r < 0 for r in roots)
    n = ranks
    reason = f"busbw/algbw = {ratio:.3f}"
    if rough:
        # Every algbw is below 1 GB/s: the ratio tells the collective's family, not n.
        reason += " (rough: every algbw is below 1 GB/s)"
    candidates: list[str] = []
    if split is not None and split > 1:
        # The buffer is split per rank: n is the split.
        n = split
        reason += f", size/count/type size = {split} ranks"
        if not rough and not _close(ratio, (n - 1) / n):
            expected = (n - 1) / n
            reason += f" (old nccl-tests print busbw = algbw, not (n-1)/n = {expected:.3f})"
        if rooted:
            candidates = ["gather", "scatter"]
        elif reduces:
            candidates = ["reduce_scatter"]
        elif copies:
            candidates = ["all_gather", "alltoall"]
        else:
            candidates = ["all_gather", "reduce_scatter", "alltoall"]
    elif ratio > 1 + _RATIO_TOLERANCE:
        # Only all_reduce moves more bus bytes than algorithm bytes (up to 2x).
        if ratio <= 2 + _RATIO_TOLERANCE and not rooted and not (copies and redops != {None}):
            candidates = ["all_reduce"]
            guess = round(2 / (2 - ratio)) if ratio < 2 - 1e-6 else None
            # Past ~16 ranks, two printed decimals no longer pin n down.
            if n is None and guess is not None and 2 <= guess <= 16 and not rough:
                n = guess
                reason += f" = 2(n-1)/n with n = {guess}"
            else:
                reason += " = 2(n-1)/n (all_reduce)"
    elif _close(ratio, 1.0):
        if rooted:
            candidates = ["reduce"] if reduces else ["broadcast"] if copies else []
            candidates = candidates or ["broadcast", "reduce"]
        elif n is not None and n > 2:
            candidates = ["sendrecv"]  # an all_reduce over n > 2 ranks has a ratio > 1
        elif unrooted and reduces:
            candidates = ["all_reduce", "sendrecv"]
        else:
            candidates = ["sendrecv"]
    elif ratio < 1 - _RATIO_TOLERANCE:
        guess = round(1 / (1 - ratio))
        if guess >= 2 and _close(ratio, (guess - 1) / guess) and (n is None or n == guess):
            if not rough:
                n = guess
                reason += f" = (n-1)/n with n = {guess}"
            if reduces:
                candidates = ["reduce_scatter"]
            elif copies:
                candidates = ["all_gather", "alltoall"]
            else:
                candidates = ["all_gather", "reduce_scatter", "alltoall"]
    return candidates, n, reason
