"""Generating search queries, robust to small models.

The model is asked for queries, and its reply is parsed leniently and then filtered:
queries that repeat the question, repeat each other (near-duplicates included) or repeat
the prompt are dropped. Small models often leave nothing usable, so query generation
does not depend on the model following a format:

- **Sub-queries** (before anything was found): an unusable reply gives an empty list,
  and the caller searches the question itself.
- **Follow-ups** (after a first search): an unusable reply, or no model at all, gives
  queries derived by *pseudo-relevance feedback* (RM3-like): the results that best
  match the question are taken as relevant, the terms that are frequent in them and
  rare in the other results are the expansion, and each query is the question's
  keywords plus a few of those terms. So a run whose model cannot write queries still
  searches more than once, and the expansion finds passages that use the sources'
  words rather than the question's.

:attr:`QuestionGenerator.derived` says whether the last list came from the model or was
derived, so the caller can tell the user.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from deepcite.citations.grounded import term
from deepcite.citations.records import Completer
from deepcite.citations.text import STOPWORDS, content_words, normalised_words
from deepcite.llm import parse_list
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.types import SearchResult

INITIAL_SYSTEM = (
    "You write web and document search queries. Reply with one query per line and "
    "nothing else."
)
FOLLOWUP_SYSTEM = (
    "You plan research. From what was found so far, write search queries that would "
    "find what is still missing. Reply with one query per line and nothing else. "
    + UNTRUSTED_NOTICE
)
MAX_QUERY_CHARS = 200
NEAR_DUPLICATE = 0.8
CONTEXT_SNIPPET_CHARS = 300
QUERY_LIST_TOKENS = 160  # a few short lines; more is the model rambling
_PROMPT_ECHOES = ("search quer", "one query per line", "<source", "write ", "reply with")
FEEDBACK_DOCS = 5  # results taken as relevant for pseudo-relevance feedback
TERMS_PER_QUERY = 3
MAX_KEYWORDS = 8
_TERM = re.compile(r"[^\W_][\w'’-]*[^\W_]|[^\W_]")


class QuestionGenerator:
    """Turns a question (and what was found) into new search queries.

    ``client`` may be ``None``, and ``model_queries=False`` keeps the model out of query
    writing altogether (the small-model path, where its lists are rarely usable and a
    call costs seconds): sub-queries are then empty and follow-ups always derived.
    """

    def __init__(self, client: Completer | None, *, model_queries: bool = True) -> None:
        self._client = client
        self._model_queries = model_queries and client is not None
        #: Whether the last list returned was derived from the results, not the model's.
        self.derived = False

    @property
    def uses_model(self) -> bool:
        """Whether queries are asked of the model (else always derived, no call made)."""
        return self._model_queries

    def initial(self, question: str, count: int, asked: Sequence[str] = ()) -> list[str]:
        """``count`` sub-queries that together cover ``question``, none in ``asked``."""
        self.derived = False
        if count <= 0 or self._client is None or not self._model_queries:
            return []
        user = (
            f"Question: {question}\n\nWrite {count} short search queries that together "
            f"cover this question."
        )
        reply = self._client.complete("questions", INITIAL_SYSTEM, user,
                                      max_tokens=QUERY_LIST_TOKENS)
        return filter_queries(parse_list(reply, limit=count * 3), question, asked, count)

    def followups(
        self, question: str, found: Sequence[SearchResult], asked: Sequence[str], count: int
    ) -> list[str]:
        """``count`` follow-up queries, given recent results and the queries asked.

        Derived by pseudo-relevance feedback (:func:`prf_queries`) when the model's
        reply leaves nothing usable, or without a call when there is no model to ask.
        """
        self.derived = False
        if count <= 0:
            return []
        if self._client is None or not self._model_queries:
            self.derived = True
            return prf_queries(question, found, asked, count)
        budget = self._client.prompt_budget_chars - 600
        blocks: list[str] = []
        used = 0
        for result in reversed(found):  # newest first, so they survive the budget
            snippet = " ".join(result.snippet.split())[:CONTEXT_SNIPPET_CHARS]
            block = fence(snippet, title=result.title)
            if used + len(block) > budget:
                break
            blocks.append(block)
            used += len(block)
        asked_text = "\n".join(f"- {q}" for q in asked)
        user = (
            f"Question: {question}\n\nQueries already searched:\n{asked_text}\n\n"
            "Found so far:\n\n" + "\n\n".join(reversed(blocks)) +
            f"\n\nWrite {count} new search queries for what is still missing."
        )
        reply = self._client.complete("followups", FOLLOWUP_SYSTEM, user,
                                      max_tokens=QUERY_LIST_TOKENS)
        queries = filter_queries(parse_list(reply, limit=count * 3), question, asked, count)
        if queries:
            return queries
        self.derived = True
        return prf_queries(question, found, asked, count)


def keywords(question: str, limit: int = MAX_KEYWORDS) -> list[str]:
    """The question's content words in order, each once: its keyword query."""
    seen: dict[str, None] = {}
    for word in _TERM.findall(question):
        lower = word.lower()
        if len(lower) >= 3 and lower not in STOPWORDS and lower not in seen:
            seen[lower] = None
    return list(seen)[:limit]


def _terms(text: str) -> list[str]:
    """Lower-cased candidate terms: three letters or more, not stopwords, not bare numbers."""
    return [w for w in (t.lower() for t in _TERM.findall(text))
            if len(w) >= 3 and w not in STOPWORDS and not w.isdigit()]


def expansion_terms(question: str, found: Sequence[SearchResult],
                    feedback_docs: int = FEEDBACK_DOCS) -> list[str]:
    """Terms of the best-matching results that the question lacks, best first (RM3-like).

    The ``feedback_docs`` results matching most of the question (its words weighted by
    how rare they are among the results; earlier results first on ties) are taken as
    relevant, each weighted by that match. A term's weight is the weighted sum of its
    relative frequency in them, times its inverse document frequency over all of
    ``found``, so terms every result uses (boilerplate, the collection's own
    vocabulary) do not crowd out the distinctive ones.
    """
    asked = {term(w) for w in keywords(question, limit=64)}
    if not found or not asked:
        return []
    docs = [_terms(f"{r.title} {r.snippet}") for r in found]
    doc_stems = [{term(w) for w in doc} for doc in docs]
    total = len(docs)

    def idf(df: int) -> float:
        return math.log((total + 1) / (df + 0.5))

    asked_idf = {t: idf(sum(t in d for d in doc_stems)) for t in asked}
    asked_weight = sum(asked_idf.values()) or 1.0
    shares = [sum(asked_idf[t] for t in asked & d) / asked_weight for d in doc_stems]
    best = max(shares)
    if best <= 0:
        return []
    # Results matching under half as well as the best are not taken as relevant, and
    # the match counts squared: feedback from a weak match is mostly noise.
    top = sorted((i for i in range(total) if shares[i] >= best / 2 and docs[i]),
                 key=lambda i: (-shares[i], i))[:feedback_docs]
    df = Counter(w for doc in docs for w in set(doc))
    weights: dict[str, float] = {}
    for i in top:
        for word, n in Counter(docs[i]).items():
            if term(word) not in asked:
                weights[word] = weights.get(word, 0.0) + shares[i] ** 2 * n / len(docs[i])
    scored = {w: v * idf(df[w]) for w, v in weights.items()}
    chosen: list[str] = []
    stems_seen: set[str] = set()
    for word in sorted(scored, key=lambda w: (-scored[w], w)):
        key = term(word)
        if key not in stems_seen:
            stems_seen.add(key)
            chosen.append(word)
    return chosen


def prf_queries(question: str, found: Sequence[SearchResult], asked: Sequence[str],
                count: int) -> list[str]:
    """``count`` queries: the question's keywords plus expansion terms, none in ``asked``.

    No model is involved, so this works whatever the model can do. Each query takes
    the next :data:`TERMS_PER_QUERY` expansion terms, so the queries reach different
    neighbourhoods of the first results. Empty when nothing was found to learn from.
    """
    if count <= 0:
        return []
    base = " ".join(keywords(question))
    terms = expansion_terms(question, found)
    candidates = [
        f"{base} {' '.join(terms[i:i + TERMS_PER_QUERY])}".strip()
        for i in range(0, min(len(terms), TERMS_PER_QUERY * count * 2), TERMS_PER_QUERY)
    ]
    return filter_queries(candidates, question, asked, count, echoes=False)


def filter_queries(
    candidates: Sequence[str], question: str, asked: Sequence[str], limit: int, *,
    echoes: bool = True,
) -> list[str]:
    """Keep usable, new, mutually distinct queries, at most ``limit``.

    ``echoes=False`` skips the check for prompt echoes ("write", "reply with"): derived
    queries hold the question's own words, which may well be "write".
    """
    kept: list[str] = []
    seen = [_key(question), *(_key(q) for q in asked)]
    for raw in candidates:
        query = " ".join(raw.split()).strip(" \"'`")
        if not _usable(query, echoes=echoes):
            continue
        words = _key(query)
        if any(_similar(words, other) for other in seen):
            continue
        kept.append(query)
        seen.append(words)
        if len(kept) >= limit:
            break
    return kept


def _usable(query: str, *, echoes: bool = True) -> bool:
    lowered = query.lower()
    return (
        3 <= len(query) <= MAX_QUERY_CHARS
        and bool(content_words(query))
        and not (echoes and any(echo in lowered for echo in _PROMPT_ECHOES))
    )


def _key(text: str) -> frozenset[str]:
    return frozenset(normalised_words(text))


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= NEAR_DUPLICATE
