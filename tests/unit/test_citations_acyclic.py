"""No import cycle runs through the modules of ``deepcite.citations``.

The answer toolkit, attribution, verification and the handlers import each other's
helpers; what they all share (the model slice, the cited answer, the gate's answer)
lives in :mod:`deepcite.citations.cited_answer`, which imports none of them. This test keeps
it that way: every import counts, those inside functions and under ``TYPE_CHECKING``
too, and so do chains that leave the package and come back.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from grimp import ImportGraph

grimp = pytest.importorskip("grimp")

PACKAGE = "deepcite.citations"


def _in_package(module: str) -> bool:
    return module == PACKAGE or module.startswith(PACKAGE + ".")


@pytest.fixture(scope="module")
def graph() -> ImportGraph:
    built: ImportGraph = grimp.build_graph("deepcite", cache_dir=None)
    return built


def test_the_package_is_in_the_graph(graph: ImportGraph) -> None:
    modules = {m for m in graph.modules if _in_package(m)}
    assert {f"{PACKAGE}.answer", f"{PACKAGE}.attribution", f"{PACKAGE}.verify",
            f"{PACKAGE}.cited_answer", f"{PACKAGE}.handlers.base"} <= modules


def test_no_module_level_import_cycle_in_citations(graph: ImportGraph) -> None:
    modules = sorted(m for m in graph.modules if _in_package(m))
    cycles: set[str] = set()
    for first, second in combinations(modules, 2):
        there = graph.find_shortest_chain(importer=first, imported=second)
        if there is None:
            continue
        back = graph.find_shortest_chain(importer=second, imported=first)
        if back is not None:
            cycles.add(_named([*there, *back[1:-1]]))
    assert not cycles, "import cycles:\n" + "\n".join(sorted(cycles))


def _named(loop: list[str]) -> str:
    """The cycle through ``loop`` (each imports the next, the last the first), named
    from its first module in sorted order so that each cycle is named once."""
    start = loop.index(min(loop))
    turn = loop[start:] + loop[:start]
    return " -> ".join([*turn, turn[0]])


def test_cited_answer_imports_nothing_of_the_package(graph: ImportGraph) -> None:
    imported = graph.find_modules_directly_imported_by(f"{PACKAGE}.cited_answer")
    assert not {m for m in imported if _in_package(m)}
