"""A name in code the claim says something was renamed to, against the name the source
says it was renamed to: "The `on_save` hook is now called `after_save`" against "The
hook `on_save` was renamed to `post_save`" is contradicted, the note quoting the
source's sentence.

The new name is one no passage may have (the draft's own invention), so the claim's
words alone may not find the sentence: the old name, said in a sentence renaming it,
does. Only names written as code count - in backticks, or with an underscore, a dot, a
colon or a slash in them (``on_page``, ``tessera.toml``) - so ordinary words ("is now
called the Garden Room") are left to the names check.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.named_otherwise import first_named_otherwise
from deepcite.factcheck.passages import Pool

__all__ = ["Rename", "renamed_otherwise", "renames_in"]

_NAME = r"`?([A-Za-z_][\w.:/-]*[\w/])`?"
_BE = (r"(?:is|are|was|were|has\s+been|have\s+been|had\s+been|got|gets|will\s+be)\s+"
       r"(?:now\s+)?")
_NOW_CALLED = r"(?:called|named|known\s+as|renamed(?:\s+to)?)"
# "`on_page` (hook) was renamed (from `a`) to `b`", "`a` is now called `b`"
_AFTER_OLD = re.compile(
    _NAME + r"(?:\s+[a-z]+){0,3}?\s+" + _BE +
    r"(?:renamed\s+(?:from\s+" + _NAME + r"\s+)?to|" + _NOW_CALLED + r")\s+" + _NAME)
# "renamed `a` to `b`", "renamed from `a` to `b`"
_RENAMED = re.compile(r"\brenamed\s+(?:from\s+)?(?:the\s+[a-z]+\s+)?" + _NAME
                      + r"\s+to\s+" + _NAME)


class Rename(NamedTuple):
    """One renaming a text states: the old name, the new one and where it is said."""

    old: str
    new: str
    start: int
    end: int


def _code(name: str, text: str) -> bool:
    """Whether ``name`` is written as code in ``text``: in backticks, or with a mark no
    word of prose has."""
    return f"`{name}`" in text or bool(re.search(r"[_.:/]", name))


def renames_in(text: str) -> Iterator[Rename]:
    """The renamings of names in code ``text`` states (each once)."""
    seen: set[tuple[str, str]] = set()
    for pattern in (_AFTER_OLD, _RENAMED):
        for match in pattern.finditer(text):
            old, new = (match.group(2) or match.group(1), match.group(3)) \
                if pattern is _AFTER_OLD else (match.group(1), match.group(2))
            if _code(old, text) and _code(new, text) and (old, new) not in seen:
                seen.add((old, new))
                yield Rename(old, new, match.start(), match.end())


def renamed_otherwise(claim: str, pool: Pool) -> Judgement | None:
    """``contradicted`` where ``claim`` says a name in code was renamed to one and a
    sentence of ``pool`` renames it to another; None otherwise (and where a sentence
    renames it to the claim's name: the rest of the claim is judged as usual)."""
    mine = list(renames_in(claim))
    if not mine:
        return None
    found = first_named_otherwise(pool, mine, renames_in,
                                  lambda my, theirs: my.old.lower() == theirs.old.lower(),
                                  lambda my, theirs: my.new.lower() == theirs.new.lower())
    if found is None:
        return None
    rename, theirs, index = found
    sentence = pool.sentences[index]
    # the sentence up to the renaming's end, with its full stop ("... was renamed to
    # `post_save`.", not what the same line says next)
    end = theirs.end + (sentence.text[theirs.end:theirs.end + 1] == ".")
    conflict = Conflict(claim[rename.start:rename.end].replace("`", ""),
                        sentence.text[:end].strip(), 0)
    return Judgement("contradicted", 0.0, (quote_of_sentence(sentence),), (conflict,))
