"""Turn a natural-language question into a safe SQLite FTS5 query.

Users type questions, not FTS5 syntax: ``AND``, ``-``, ``"``, ``:`` or ``*`` in a
question must not become operators or syntax errors, and filler words such as "how do
I" must not drown out the terms that matter.
"""

from __future__ import annotations

import re

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
MAX_QUERY_TERMS = 32
_TOKEN = re.compile(r"\w+")


def build_match_query(question: str) -> str | None:
    """A safe FTS5 query for a natural-language question, or ``None`` if nothing is left.

    The question is reduced to lowercase word tokens, stopwords and duplicates are
    dropped, and each remaining term is quoted and OR-ed; BM25 then rewards chunks that
    match more and rarer terms. ``None`` means "search for nothing", not an error.
    """
    terms: list[str] = []
    for token in _TOKEN.findall(question.lower()):
        if token not in STOPWORDS and token not in terms:
            terms.append(token)
    if not terms:
        return None
    return " OR ".join(f'"{term}"' for term in terms[:MAX_QUERY_TERMS])
