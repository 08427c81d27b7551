"""The error codes raised in scoring/evidence, read from the source (no import of the parsers):
each ``EvidenceParseError`` / ``BundleRejected`` call site's codes and param names, and the
coded details ``base.detail`` makes without raising (what the collector recorded, how a file
that is not UTF-8 was read).

Used by the tests that keep every raise site coded and every code in the portal's catalogue.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ERROR_CLASSES = ("EvidenceParseError", "BundleRejected", "EvidenceTimeRefused")
# Coded messages made without raising (base.detail, imported as _detail by bundle.py).
DETAIL_FUNCTIONS = ("detail", "_detail")
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class RaiseSite:
    """One construction of an evidence error: where, its possible codes and its param names.

    ``codes`` is empty when the call has no literal code (a constant, or ``a if c else b`` of
    constants); ``params`` is None when the params are not a dict literal with text keys.
    """

    path: str
    line: int
    codes: tuple[str, ...]
    params: frozenset[str] | None


def _constants(node: ast.expr | None) -> tuple[str, ...]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return (node.value,)
    if isinstance(node, ast.IfExp):
        body, orelse = _constants(node.body), _constants(node.orelse)
        return body + orelse if body and orelse else ()
    return ()


def _keys(node: ast.expr | None) -> frozenset[str] | None:
    if node is None:
        return frozenset()
    if isinstance(node, ast.Dict) and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys
    ):
        return frozenset(k.value for k in node.keys)  # type: ignore[union-attr]
    return None


def raise_sites(directory: Path = HERE) -> list[RaiseSite]:
    """Every call of an evidence error class in ``directory``'s modules (its packages' too:
    ``nccl/``), in file order."""
    sites = []
    for path in sorted(directory.rglob("*.py")):
        name = path.relative_to(directory).as_posix()  # "bundle.py", "nccl/runs.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            if node.func.id in DETAIL_FUNCTIONS:
                code = _constants(node.args[0]) if node.args else ()
                names = frozenset(k for k in keywords if k is not None)
                sites.append(RaiseSite(name, node.lineno, code, names))
                continue
            if node.func.id not in ERROR_CLASSES:
                continue
            sites.append(
                RaiseSite(
                    name,
                    node.lineno,
                    _constants(keywords.get("code")),
                    _keys(keywords.get("params")),
                )
            )
    return sites
