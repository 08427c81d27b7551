"""The import contract of ``scoring``: it never imports Django, the portal or other frameworks.

numpy is allowed (a numeric library, not a framework): the ranking and robustness kernels use
it (issue #15). Everything else scoring imports is the standard library.

Run ``python -m scoring.contract``: it reads every module's imports statically and then imports
every module and checks what landed in ``sys.modules``; it exits 1 naming each violation.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from pathlib import Path

FORBIDDEN = ("django", "rest_framework", "celery", "plotly", "portal", "redis", "psycopg")
PACKAGE_DIR = Path(__file__).resolve().parent


def _forbidden(module: str) -> bool:
    return module.split(".")[0] in FORBIDDEN


def static_violations() -> list[str]:
    """Import statements in scoring/ that name a forbidden top-level package."""
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                if _forbidden(name):
                    rel = path.relative_to(PACKAGE_DIR.parent)
                    found.append(f"{rel}:{node.lineno} imports {name}")
    return found


def runtime_violations() -> list[str]:
    """Forbidden packages present in sys.modules after importing every scoring module."""
    before = set(sys.modules)
    package = importlib.import_module("scoring")
    for info in pkgutil.walk_packages(package.__path__, prefix="scoring."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    loaded = set(sys.modules) - before
    return sorted(f"importing scoring loaded {m}" for m in loaded if _forbidden(m))


def main() -> int:
    problems = static_violations() + runtime_violations()
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print("scoring/ import contract holds: no Django, portal or framework imports")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
