"""An install line the claim gives ("installing is a one-liner, `pip install quill`")
against the one the source gives for the same installer ("published on PyPI as
`quill-cli`: pip install quill-cli"): another package name is a contradiction, the note
quoting the source's line (with the sentence introducing it, where it ends with a colon:
the command of a code block says little alone).

Only the same installer counts (pip is not npm), and only a package of the source's
whose name holds the claim's or shares a word of it with it ("quill" and "quill-cli"):
a source installing something else as well ("pip install libsass") says nothing of the
claim's package.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from deepcite.factcheck.judgement import Conflict, Judgement, Quote, quote_of_sentence
from deepcite.factcheck.named_otherwise import first_named_otherwise
from deepcite.factcheck.passages import Pool

__all__ = ["Install", "install_against", "installs_in"]

_INSTALL = re.compile(
    r"\b(?P<tool>pip3?|pipx|uv\s+pip|uv\s+tool|npm|pnpm|yarn|brew|apt(?:-get)?|cargo|gem|"
    r"conda|dnf|choco|winget|snap)\s+(?:install|add|i)\s+"
    r"(?:-{1,2}[\w-]+\s+)*(?P<package>[A-Za-z@][\w@./-]*)", re.IGNORECASE)
_VERSION = re.compile(r"(?:[=<>~!]=?|@(?=\d)).*$")
_WORD = re.compile(r"[a-z0-9]+")


class Install(NamedTuple):
    """One install line: its installer, its package and where it is."""

    tool: str
    package: str
    start: int
    end: int


def installs_in(text: str) -> Iterator[Install]:
    """The install lines of ``text``."""
    for match in _INSTALL.finditer(text):
        tool = re.sub(r"\s+", " ", match.group("tool").lower())
        tool = {"pip3": "pip", "apt-get": "apt"}.get(tool, tool)
        package = _VERSION.sub("", match.group("package").lower()).rstrip(".")
        if package:
            yield Install(tool, package, match.start(), match.end())


def _related(mine: str, theirs: str) -> bool:
    return mine in theirs or theirs in mine or bool(
        set(_WORD.findall(mine)) & set(_WORD.findall(theirs)))


def install_against(claim: str, pool: Pool) -> Judgement | None:
    """``contradicted`` where the claim's install line names a package the source's line
    for the same installer names otherwise; None otherwise (and where a source installs
    the claim's package with it)."""
    mine = list(installs_in(claim))
    if not mine:
        return None
    other = first_named_otherwise(pool, mine, installs_in,
                                  lambda my, theirs: my.tool == theirs.tool,
                                  lambda my, theirs: my.package == theirs.package,
                                  lambda my, theirs: _related(my.package, theirs.package))
    if other is None:
        return None
    install, theirs, index = other
    sentence = pool.sentences[index]
    line = sentence.text[theirs.start:theirs.end]
    quotes: tuple[Quote, ...] = (quote_of_sentence(sentence),)
    before = pool.sentences[index - 1] if index > 0 else None
    if before is not None and before.passage == sentence.passage \
            and before.text.rstrip().endswith(":"):
        # "... is published under the name `quill-cli`:" introduces the code block
        line = f"{before.text.strip()} {line}"
        quotes = (quote_of_sentence(before), *quotes)
    return Judgement("contradicted", 0.0, quotes,
                     (Conflict(claim[install.start:install.end], line, 0),))
