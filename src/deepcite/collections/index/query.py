"""Turn a natural-language question into a safe SQLite FTS5 query.

Users type questions, not FTS5 syntax: ``AND``, ``-``, ``"``, ``:`` or ``*`` in a
question must not become operators or syntax errors, and filler words such as "how do
I" must not drown out the terms that matter. Chinese, Japanese and Korean runs in a
question become the character pairs the index stores for them (see
:mod:`deepcite.collections.index.cjk`).
"""

from __future__ import annotations

import re

from deepcite.collections.index.cjk import CJK_CHARS, query_atoms

_STOPWORD_TEXT = """
    a about above after again all am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me
    more most my no nor not of off on once only or other our out over own same she should
    so some such than that the their them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
CJK_PARTICLES = frozenset("的了是在和与或也吗呢吧啊のはがをにでともかへや이가은는을를의에")
"""One-character CJK function words: alone in a question they match nearly everything."""
MAX_QUERY_TERMS = 32
_TOKEN = re.compile(f"(?P<cjk>[{CJK_CHARS}]+)|(?:(?![{CJK_CHARS}])\\w)+")


def match_atoms(question: str) -> list[str]:
    """The quoted FTS5 terms of a question (see :func:`build_match_query`), in order."""
    atoms: list[str] = []
    for match in _TOKEN.finditer(question.lower()):
        token = match.group()
        if match.group("cjk"):
            if token in CJK_PARTICLES:
                continue
            candidates = query_atoms(token)
        elif token in STOPWORDS:
            continue
        else:
            candidates = [f'"{token}"']
        atoms.extend(atom for atom in candidates if atom not in atoms)
    return atoms[:MAX_QUERY_TERMS]


def build_match_query(question: str) -> str | None:
    """A safe FTS5 query for a natural-language question, or ``None`` if nothing is left.

    The question is reduced to lowercase word tokens, stopwords and duplicates are
    dropped, and each remaining term is quoted and OR-ed; BM25 then rewards chunks that
    match more and rarer terms. A CJK run contributes its character pairs. ``None``
    means "search for nothing", not an error.
    """
    atoms = match_atoms(question)
    return " OR ".join(atoms) if atoms else None
