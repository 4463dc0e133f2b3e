"""Turn a natural-language question into a safe SQLite FTS5 query.

Users type questions, not FTS5 syntax: ``AND``, ``-``, ``"``, ``:`` or ``*`` in a
question must not become operators or syntax errors, and filler words such as "how do
I" must not drown out the terms that matter. Chinese, Japanese and Korean runs in a
question become the character pairs the index stores for them (see
:mod:`deepcite.collections.index.cjk`).
"""

from __future__ import annotations

from deepcite.collections.index.cjk import has_cjk, query_atoms
from deepcite.text.cjk_synonyms import synonym_terms
from deepcite.text.cjk_terms import cjk_across, cjk_singles
from deepcite.text.stopwords import CJK_PARTICLES, QUERY_STOPWORDS
from deepcite.text.words import WORD_OR_CJK_RUN

MAX_QUERY_TERMS = 32


def match_atoms(question: str) -> list[str]:
    """The quoted FTS5 terms of a question (see :func:`build_match_query`), in order."""
    atoms: list[str] = []
    for match in WORD_OR_CJK_RUN.finditer(question.lower()):
        token = match.group()
        if match.group("cjk"):
            if token in CJK_PARTICLES:
                continue
            candidates = query_atoms(token)
        elif token in QUERY_STOPWORDS:
            continue
        else:
            candidates = [f'"{token}"']
        atoms.extend(atom for atom in candidates if atom not in atoms)
    if has_cjk(question):  # "借" asked, "借期" written: a one-character word as a prefix
        atoms.extend(f'"{char}"*' for char in cjk_singles(question)
                     if f'"{char}"*' not in atoms)
        # "客服" asked, "服务热线" written: the pairs of a word's near-synonyms, after
        # the question's own (which the cut below keeps first)
        atoms.extend(f'"{pair}"' for pair in synonym_terms(question)
                     if f'"{pair}"' not in atoms)
        # "一整年的卡" asked, "年卡" written: the pair across the particle, last
        atoms.extend(f'"{pair}"' for pair in cjk_across(question)
                     if f'"{pair}"' not in atoms)
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
