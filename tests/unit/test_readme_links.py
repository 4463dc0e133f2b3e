"""The README is the page a newcomer reads first: its set-up commands are the ones the
Makefile runs, and every link in it leads to a file of the repository (the docs site's
strict build checks the links inside docs/, not the README's)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_gives_the_two_set_up_commands() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")

    assert "make demo\nmake test\n" in README
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:.*\bdocs\b", makefile,
                                                                re.M)


def test_every_relative_link_in_the_readme_exists() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    relative = [t for t in targets if "://" not in t]

    assert relative
    assert [t for t in relative if not (ROOT / t).exists()] == []
