"""Small helpers shared by the verifiers: tolerant metric reading, grouping and number text."""

from __future__ import annotations

import contextlib
import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .model import (
    STATUS_CONTRADICTED,
    STATUS_UNVERIFIABLE,
    STATUS_VERIFIED,
    ItemVerification,
    NodeEvidence,
)

# Beyond this many nodes an explanation names the first ones and counts the rest.
MAX_NODES_NAMED = 3


def first(metrics: Mapping[str, Any], *keys: str) -> Any:
    """The value of the first key present and not None."""
    for key in keys:
        value = metrics.get(key)
        if value is not None:
            return value
    return None


def as_float(value: Any) -> float | None:
    """A finite float from int/float/Decimal/numeric text; None for anything else (bools too)."""
    if type(value) is float:  # most values: decided without the checks below
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        result = float(value)
    elif isinstance(value, str):
        try:
            result = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return result if math.isfinite(result) else None


def as_int(value: Any) -> int | None:
    number = as_float(value)
    if number is None or number != int(number):
        return None
    return int(number)


def as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def as_bool(value: Any) -> bool | None:
    """True/False from bools and the words tools print ("Yes", "Enabled"); None otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in {"yes", "true", "enabled", "enable", "on", "1"}:
            return True
        if word in {"no", "false", "disabled", "disable", "off", "0", "none"}:
            return False
    return None


def by_node(evidence: Iterable[NodeEvidence]) -> dict[str, list[NodeEvidence]]:
    """Evidence grouped by node name, nodes and files in a stable order."""
    groups: dict[str, list[NodeEvidence]] = {}
    for ev in sorted(evidence, key=evidence_sort_key):
        groups.setdefault(ev.node_name, []).append(ev)
    return dict(sorted(groups.items()))


_MISSING = object()


class NodeMemo:
    """One node's verdicts kept between verifications of its candidate (bounded, least recently
    used first out): a re-verification after an import recomputes only the nodes whose evidence
    changed and reuses the others'. Kept per node, never per candidate: the checks that compare
    nodes with each other (combining verdicts, collectives, fleet figures) run over every node
    each time. Values are the per-node functions' own results and are never changed by the
    verifiers that read them."""

    def __init__(self, max_items: int = 20000) -> None:
        self.max_items = max_items
        self._items: OrderedDict[Hashable, Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        # Safe to share between threads (a threaded server's refreshes): another thread may
        # evict or add a key between two steps; the worst is a verdict computed twice.
        value = self._items.get(key, _MISSING)
        if value is not _MISSING:
            with contextlib.suppress(KeyError):
                self._items.move_to_end(key)
            return value
        value = compute()
        self._items[key] = value
        while len(self._items) > self.max_items:
            try:
                self._items.popitem(last=False)
            except KeyError:
                break
        return value


# The memo and the per-node keys of the verification running in this context (verify_candidate
# sets them; None: every node is computed).
_NODE_MEMO: ContextVar[tuple[NodeMemo, Mapping[str, Hashable]] | None] = ContextVar(
    "node_memo", default=None
)


def per_node(label: str, node: str, claims: Hashable, compute: Callable[[], Any]) -> Any:
    """``compute()``, a pure function of one node's evidence and the claims, or what it gave
    before for the same node, evidence (the node's key) and claims."""
    state = _NODE_MEMO.get()
    if state is None:
        return compute()
    memo, keys = state
    key = keys.get(node)
    if key is None:
        return compute()
    return memo.get((label, node, key, claims), compute)


def evidence_sort_key(ev: NodeEvidence) -> tuple[str, str, str, str, int]:
    return (ev.node_name, ev.kind, str(ev.upload_id), ev.source, ev.line or 0)


def of_kind(evidence: Sequence[NodeEvidence], *kinds: str) -> list[NodeEvidence]:
    return [ev for ev in evidence if ev.kind in kinds]


def num(value: float, digits: int = 1) -> str:
    """232.2 -> "232.2", 240.0 -> "240", 79.648 -> "79.6" (at most ``digits`` decimals)."""
    text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def size_text(size: float) -> str:
    """A byte count as GiB from 1 GiB on, else as MiB ("16 MiB", "1 GiB")."""
    if size >= 1024**3:
        return f"{num(size / 1024**3)} GiB"
    return f"{num(size / 1048576)} MiB"


def pct(fraction: float) -> str:
    """0.05 -> "5 %"."""
    return f"{num(fraction * 100, 1)} %"


def pct_zh(fraction: float) -> str:
    return f"{num(fraction * 100, 1)}%"


@dataclass(frozen=True)
class NodeResult:
    """One node's verdict on an item, before the nodes are combined."""

    node: str
    status: str
    en: str
    zh: str
    ref: str | None
    details: Mapping[str, Any] = field(default_factory=dict)


def combine_nodes(
    item_key: str,
    results: Sequence[NodeResult],
    *,
    tolerance: str | None,
    tolerance_zh: str | None = None,
    no_evidence_en: str,
    no_evidence_zh: str,
    extra: Mapping[str, Any] | None = None,
) -> ItemVerification:
    """One item verdict from per-node verdicts, judged on the worst node: any contradiction
    wins, then any gap.

    Verified only when every node that gave evidence verified it; no evidence at all is
    unverifiable, never verified.
    """
    details: dict[str, Any] = dict(extra or {})
    details["nodes"] = {r.node: {"status": r.status, **r.details} for r in results}
    if not results:
        return ItemVerification(
            item_key,
            STATUS_UNVERIFIABLE,
            no_evidence_en,
            no_evidence_zh,
            None,
            tolerance,
            details,
            tolerance_zh,
        )
    status = next(
        s
        for s in (STATUS_CONTRADICTED, STATUS_UNVERIFIABLE, STATUS_VERIFIED)
        if any(r.status == s for r in results)
    )
    chosen = [r for r in results if r.status == status]
    # The worst node decides the item; it is named in the explanation and the details.
    details["worst_node"] = chosen[0].node
    en = " ".join(r.en for r in chosen[:MAX_NODES_NAMED])
    zh = "".join(r.zh for r in chosen[:MAX_NODES_NAMED])
    rest = len(chosen) - MAX_NODES_NAMED
    if rest > 0:
        en += f" The same holds on {rest} more node(s)."
        zh += f"另有 {rest} 个节点情况相同。"
    return ItemVerification(
        item_key, status, en, zh, chosen[0].ref, tolerance, details, tolerance_zh
    )


def same_host(a: str, b: str) -> bool:
    """Whether two host names name one host: case-insensitive, and a short name is the same
    host as its FQDN (the one comparison: portal.services.evidence compares a token's node
    with a bundle's hostname through it too)."""
    a, b = a.strip().casefold(), b.strip().casefold()
    return a == b or a.split(".", 1)[0] == b.split(".", 1)[0]
