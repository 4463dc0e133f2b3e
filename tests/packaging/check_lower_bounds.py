"""Install the oldest versions pyproject.toml declares, and use them (``make lower-bounds``).

Every ``name>=X`` of the core dependencies and of the ``local`` and ``web`` extras is
pinned to ``name==X`` (a pip constraints file) and the wheel is installed with those
into a fresh venv with the pip it comes with; then the installed command goes through
the runtime checks of ``check_artefacts.py`` (version, installed files, an offline answer
on the demo, an HTML collection, ``serve``). The ``mcp`` extra needs a newer pydantic
than the core's floor, so its floor gets a venv of its own (``local`` and ``mcp`` pinned,
the rest as pip resolves it). The other extras' floors are not installed here.

A floor that cannot be resolved, installed or used fails the run: raise it in
pyproject.toml to the oldest version that passes (and say why there). The first run
compiles the oldest llama-cpp-python (about 6 minutes on 2 cores with the Makefile's
CMAKE_ARGS); pip caches that build.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script
from tests.packaging import check_artefacts as artefacts

#: (label, the groups whose floors are pinned, the extras installed)
SETS = (("core, local and web at their floors", ("core", "local", "web"), "local,web"),
        ("local and mcp at their floors", ("local", "mcp"), "local,mcp"))


def floors(groups: tuple[str, ...]) -> dict[str, str]:
    """``name -> oldest declared version`` of every requirement in ``groups``."""
    project = tomllib.loads((artefacts.ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    pinned: dict[str, str] = {}
    for group in groups:
        lines = (project["dependencies"] if group == "core"
                 else project["optional-dependencies"][group])
        for line in lines:
            requirement = Requirement(line)
            lowest = [spec.version for spec in requirement.specifier if spec.operator == ">="]
            if lowest:
                pinned[canonicalize_name(requirement.name)] = lowest[0]
    return pinned


def installed_versions(venv: Path) -> dict[str, str]:
    listed = artefacts.run([str(venv / "bin" / "python"), "-m", "pip", "list",
                            "--format", "json"]).stdout
    return {canonicalize_name(item["name"]): item["version"] for item in json.loads(listed)}


def main() -> int:
    parser = argparse.ArgumentParser(description="Install and use the declared floors.")
    parser.add_argument("--dist", type=Path, help="use the wheel already in DIR")
    parser.add_argument("--keep", action="store_true", help="keep the venvs")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="deepcite-floors-"))
    try:
        version = artefacts.source_version()
        wheel, _ = artefacts.artefacts_in(args.dist) if args.dist else artefacts.build(
            work / "dist")
        python = getattr(sys, "_base_executable", sys.executable)
        major, minor = sys.version_info[:2]
        prefix = artefacts.isolated_prefix()
        for index, (label, groups, extras) in enumerate(SETS):
            pinned = floors(groups)
            constraints = work / f"floors-{index}.txt"
            constraints.write_text("".join(f"{name}=={floor}\n"
                                           for name, floor in sorted(pinned.items())))
            pip_env = dict(os.environ)
            pip_env["PIP_CONSTRAINT"] = " ".join(
                filter(None, [os.environ.get("PIP_CONSTRAINT", ""), str(constraints)]))
            target = artefacts.Install(python=python, python_version=f"{major}.{minor}",
                                       artefact=wheel, extras=extras,
                                       venv=work / f"floors-{index}" / "venv")
            target.venv.parent.mkdir(parents=True)
            artefacts.log(f"{label}: {len(pinned)} pins")
            artefacts.install(target, pip_env)
            got = installed_versions(target.venv)
            wrong = {name: got.get(name) for name, floor in pinned.items()
                     if got.get(name) is None or Version(got[name]) != Version(floor)}
            if wrong:
                raise artefacts.CheckFailed(f"not installed at the floor: {wrong}")
            artefacts.log("  " + ", ".join(f"{name}=={floor}"
                                           for name, floor in sorted(pinned.items())))
            artefacts.check_in_namespace(target, version, prefix)
            if not args.keep:
                shutil.rmtree(target.venv.parent)
        artefacts.log("The declared floors install and work.")
        return 0
    except artefacts.CheckFailed as exc:
        artefacts.log(f"FAILED: {exc}")
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
