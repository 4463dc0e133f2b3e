"""The layering of ``src/deepcite`` cannot rot: the import rules hold, and the map says so.

``docs/architecture.md`` lists the layers in a ``layers`` block; the import-linter
contracts in ``pyproject.toml`` enforce them. This checks the contracts on the code as
it is, that the page's layers are the contracts' layers, and that every package and
top-level module of ``src/deepcite`` is named on the page - so a new package, a moved
one, or a front end imported from below fails here, with the chain of imports.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "deepcite"
DOC = ROOT / "docs" / "architecture.md"


def _contract_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [layers] = [contract["layers"] for contract in config["tool"]["importlinter"]["contracts"]
                if contract["type"] == "layers"]
    return [" | ".join(part.strip() for part in layer.split("|")) for layer in layers]


def _doc_layers() -> list[str]:
    block = re.search(r"```layers\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block, "docs/architecture.md has no ```layers block"
    return [" | ".join(part.strip() for part in line.split("|"))
            for line in block.group(1).splitlines() if line.strip()]


def _top_level_names() -> set[str]:
    names = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    names |= {path.name for path in PACKAGE.iterdir()
              if path.is_dir() and (path / "__init__.py").exists()}
    return names


def test_the_import_rules_hold() -> None:
    """Every contract kept; a broken one is reported with its chains of imports.

    In a process of its own: import-linter configures logging (``dictConfig``), which
    would switch off every logger the other tests listen to."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         f"sys.exit(lint_imports(config_filename={str(ROOT / 'pyproject.toml')!r}, "
         "no_cache=True, no_logo=True))"],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle anywhere in ``src/`` (imports under ``TYPE_CHECKING`` aside: they
    never run). A cycle makes the import order matter and hides which module is the
    lower one; each found is printed as its chain."""
    import grimp

    graph = grimp.build_graph("deepcite", exclude_type_checking_imports=True)
    cycles: set[tuple[str, ...]] = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                cycles.add((module, *back))
    assert not cycles, "\n".join(" -> ".join(chain) for chain in sorted(cycles))


def test_the_map_lists_the_layers_the_rules_enforce() -> None:
    assert _doc_layers() == _contract_layers()


def test_every_package_is_on_the_map() -> None:
    text = DOC.read_text(encoding="utf-8")
    layered = {name.removeprefix("deepcite.") for layer in _contract_layers()
               for name in layer.split(" | ")}
    for name in sorted(_top_level_names()):
        assert f"`{name}`" in text or f"deepcite.{name}" in text, \
            f"src/deepcite/{name} is not described in docs/architecture.md"
        if name != "__main__":  # the entry point is the CLI's
            assert name in layered, f"deepcite.{name} is in no layer of the import rules"
    for name in layered:
        assert name in _top_level_names(), f"the layer names deepcite.{name}, which is gone"


def test_the_modules_the_map_names_exist() -> None:
    """A dotted ``deepcite.`` or package path on the page names a real module (an
    attribute of one at its end), sub-packages included: a moved module fails here."""
    text = DOC.read_text(encoding="utf-8")
    packages = "|".join(sorted(path.name for path in PACKAGE.iterdir()
                               if (path / "__init__.py").exists()))
    for dotted in set(re.findall(rf"`(?:deepcite\.)?((?:{packages})(?:\.[A-Za-z_]+)+)(?:\(\))?`",
                                 text)):
        parts = dotted.split(".")
        found = max(n for n in range(1, len(parts) + 1)
                    if PACKAGE.joinpath(*parts[:n]).with_suffix(".py").exists()
                    or (PACKAGE.joinpath(*parts[:n]) / "__init__.py").exists())
        if found == len(parts):
            continue
        base = PACKAGE.joinpath(*parts[:found])
        source = (base.with_suffix(".py") if base.with_suffix(".py").exists()
                  else base / "__init__.py").read_text(encoding="utf-8")
        assert re.search(rf"\b{parts[found]}\b", source), \
            f"{dotted}: {'.'.join(parts[:found])} has no {parts[found]}"
