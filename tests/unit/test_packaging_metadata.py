"""What people installing the package read and type: the extras docs/install.md documents,
the `all` extra, the licence. (tests/packaging/check_artefacts.py installs the real
artefacts; this only keeps the documentation and the declarations in step.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
EXTRAS = PROJECT["optional-dependencies"]
DEVELOPMENT = {"dev", "bench"}


def install_section() -> str:
    """The "Install as a package" section of the install page (the README links to it)."""
    page = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    return page.split("## Install as a package", 1)[1].split("\n## ", 1)[0]


def test_every_user_extra_is_in_the_readme_table() -> None:
    rows = [line for line in install_section().splitlines() if line.startswith("| `")]
    documented = {name for row in rows for name in re.findall(r"`([a-z]+)`", row.split("|")[1])}

    assert documented == set(EXTRAS) - DEVELOPMENT


def test_all_is_every_front_end_and_exporter_and_names_real_extras() -> None:
    (requirement,) = EXTRAS["all"]
    found = re.fullmatch(r"deepcite\[([a-z,]+)\]", requirement)
    assert found, requirement
    named = set(found.group(1).split(","))

    assert named <= set(EXTRAS) - DEVELOPMENT - {"all"}
    assert {"local", "web", "mcp", "pdf", "pandoc"} <= named


def test_the_readme_shows_the_package_commands() -> None:
    section = install_section()

    assert "pipx install 'deepcite[local]'" in section
    assert "uv tool install 'deepcite[local]'" in section


def test_licence_file_is_the_apache_2_text_the_metadata_names() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")

    assert PROJECT["license"] == "Apache-2.0"
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
