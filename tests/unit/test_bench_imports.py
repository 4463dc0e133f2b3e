"""Every ``deepcite`` name a script in ``bench/`` imports exists.

The benchmark scripts import lazily, inside functions, and no test runs them; after the
layout issue moved modules, ``bench_collections.py`` and ``bench_rerun.py`` failed only
when someone ran them for a figure. This reads each script's imports and resolves them.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _imports(script: Path) -> list[tuple[str, str]]:
    """``(module, name)`` for each ``from deepcite... import name`` in ``script``."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    return [(node.module, alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            and node.module.split(".")[0] == "deepcite" for alias in node.names]


@pytest.mark.parametrize("script", sorted(BENCH.glob("*.py")), ids=lambda p: p.name)
def test_a_bench_script_imports_only_names_that_exist(script: Path) -> None:
    missing = []
    for module, name in _imports(script):
        found = importlib.import_module(module)
        if not hasattr(found, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{module}.{name}")
    assert missing == [], f"{script.name} imports names that do not exist: {missing}"
