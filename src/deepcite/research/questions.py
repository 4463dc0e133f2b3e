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

Every follow-up, the model's or derived, holds the question's key terms (names and
numbers, and most of the weight of its rarer words; :func:`with_key_terms`): a
follow-up that drops them searches for something else. Expansion terms must be said
near the question's words and must not be code or markup, for the same reason.

:attr:`QuestionGenerator.derived` says whether the last list came from the model or was
derived, so the caller can tell the user.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from deepcite.citations.cited_answer import Completer
from deepcite.llm import parse_list
from deepcite.research.key_terms import (
    MAX_KEYWORDS,
    KeyTerms,
    asks_about_code,
    code_chunks,
    idf,
    keywords,
    sentence_relevance,
    stems,
    terms_of,
)
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.text.stem import term
from deepcite.text.words import content_words, normalised_words
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
#: The share of the question's key-term weight every follow-up must hold.
KEEP_SHARE = 0.5
#: Expansion terms score at least this share of the best one's.
MIN_TERM_SCORE = 0.2


class QuestionGenerator:
    """Turns a question (and what was found) into new search queries.

    ``client`` may be ``None``, and ``model_queries=False`` keeps the model out of query
    writing altogether (the small-model path, where its lists are rarely usable and a
    call costs seconds): sub-queries are then empty and follow-ups always derived.
    """

    def __init__(self, client: Completer | None, *, model_queries: bool = True,
                 planned_followups: int | None = None) -> None:
        self._client = client
        self._model_queries = model_queries and client is not None
        #: With a number, the first call also plans that many follow-ups, and later
        #: iterations take them (topped up from the results) without a call of their own.
        self._planned_followups = planned_followups
        self._planned: list[str] = []
        #: Whether the last list returned was derived from the results, not the model's.
        self.derived = False

    @property
    def plans(self) -> bool:
        """Whether follow-ups come from the first call's plan (no call per iteration)."""
        return self._model_queries and self._planned_followups is not None

    @property
    def uses_model(self) -> bool:
        """Whether queries are asked of the model (else always derived, no call made)."""
        return self._model_queries

    def initial(self, question: str, count: int, asked: Sequence[str] = ()) -> list[str]:
        """``count`` sub-queries that together cover ``question``, none in ``asked``."""
        self.derived = False
        if count <= 0 or self._client is None or not self._model_queries:
            return []
        more = self._planned_followups or 0
        user = (
            f"Question: {question}\n\nWrite {count + more} short search queries that "
            f"together cover this question."
        )
        reply = self._client.complete("questions", INITIAL_SYSTEM, user,
                                      max_tokens=QUERY_LIST_TOKENS)
        every = filter_queries(parse_list(reply, limit=(count + more) * 3), question, asked,
                               count + more)
        self._planned = every[count:]
        return every[:count]

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
        if self.plans:
            return self._from_plan(question, found, asked, count)
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
        key = KeyTerms.of(question, found)
        anchored = [q for q in (with_key_terms(c, key)
                                for c in parse_list(reply, limit=count * 3)) if q]
        queries = filter_queries(anchored, question, asked, count)
        if queries:
            return queries
        self.derived = True
        return prf_queries(question, found, asked, count)


    def _from_plan(self, question: str, found: Sequence[SearchResult],
                   asked: Sequence[str], count: int) -> list[str]:
        """Planned follow-ups not yet searched, each holding the question's key terms,
        topped up with derived ones; no call."""
        key = KeyTerms.of(question, found)
        anchored = [q for q in (with_key_terms(c, key) for c in self._planned) if q]
        queries = filter_queries(anchored, question, asked, count)  # asked ones are out
        if len(queries) < count:
            queries += prf_queries(question, found, [*asked, *queries], count - len(queries))
        return queries


def expansion_terms(question: str, found: Sequence[SearchResult],
                    feedback_docs: int = FEEDBACK_DOCS) -> list[str]:
    """Terms of the best-matching results that the question lacks, best first (RM3-like).

    The ``feedback_docs`` results matching most of the question (its key terms weighted
    by how rare they are among the results; earlier results first on ties) are taken as
    relevant, each weighted by that match. A term counts where it is said: each
    occurrence weighs as much as its sentence is about the question
    (:func:`~deepcite.research.key_terms.sentence_relevance`), so a distractor
    paragraph's other topic, named in sentences that share nothing with the question,
    adds nothing. Code identifiers and markup of the results (``__aexit__``, ``&gt;``)
    are not terms either, unless they name a key term (``json.load`` for a JSON
    question) or the question itself names code. The weight is then multiplied by the
    term's inverse document frequency over all of ``found``, so terms every result uses
    (boilerplate, the collection's own vocabulary) do not crowd out distinctive ones.
    """
    key = KeyTerms.of(question, found)
    asked = set(key.words) | {term(w) for w in keywords(question, limit=64)}
    if not found or not key.words:
        return []
    texts = [f"{r.title}\n{r.snippet}" for r in found]
    docs = [terms_of(text) for text in texts]
    # A result naming none of the question's subject is a distractor, however many of
    # its other words it shares.
    shares = [key.share(found_stems) if key.on_topic(found_stems) else 0.0
              for found_stems in (stems(text) for text in texts)]
    best = max(shares)
    if best <= 0:
        return []
    # Results matching under half as well as the best are not taken as relevant, and
    # the match counts squared: feedback from a weak match is mostly noise.
    top = sorted((i for i in range(len(docs)) if shares[i] >= best / 2 and docs[i]),
                 key=lambda i: (-shares[i], i))[:feedback_docs]
    df = Counter(w for doc in docs for w in set(doc))
    code_ok = asks_about_code(question)
    weights: dict[str, float] = {}
    for i in top:
        noise = set() if code_ok else _code_terms(texts[i], key)
        for sentence, related in sentence_relevance(texts[i], key):
            if related <= 0:
                continue
            for word in terms_of(sentence):
                if term(word) not in asked and word not in noise:
                    weights[word] = (weights.get(word, 0.0)
                                     + shares[i] ** 2 * related / len(docs[i]))
    scored = {w: v * idf(df[w], len(docs)) for w, v in weights.items()}
    # A term far behind the best was said only in passing near the question's words
    # (the sentence after a distractor's one on-topic sentence): not an expansion.
    floor = MIN_TERM_SCORE * max(scored.values(), default=0.0)
    scored = {w: v for w, v in scored.items() if v >= floor}
    chosen: list[str] = []
    stems_seen: set[str] = set()
    for word in sorted(scored, key=lambda w: (-scored[w], w)):
        stemmed = term(word)
        if stemmed not in stems_seen:
            stems_seen.add(stemmed)
            chosen.append(word)
    return chosen


def _code_terms(text: str, key: KeyTerms) -> set[str]:
    """Terms of ``text`` said mostly inside code or markup that names no key term."""
    code = Counter(w for chunk in code_chunks(text)
                   if not stems(chunk) & set(key.words) for w in terms_of(chunk))
    every = Counter(terms_of(text))
    return {w for w, n in code.items() if n * 2 >= every[w]}


def base_query(key: KeyTerms, limit: int = MAX_KEYWORDS) -> str:
    """The question's ``limit`` heaviest key terms, in the question's order."""
    order = list(key.words)
    kept = set(sorted(order, key=lambda t: (-key.weights[t], order.index(t)))[:limit])
    return " ".join(key.words[t] for t in order if t in kept)


def with_key_terms(query: str, key: KeyTerms) -> str | None:
    """``query`` holding the question's key terms; ``None`` when it cannot.

    A query keeps the question's names and numbers and at least :data:`KEEP_SHARE` of
    its key terms' weight: what it lacks of them is put in front (names first, then the
    heaviest terms), as the question words of a derived query are. A follow-up that
    would then be too long to be a query is dropped: it is about something else.
    """
    if not key.words:
        return query
    present = stems(query)
    added = {t for t in key.anchors if t not in present}
    have = present | added
    for stemmed in sorted((t for t in key.words if t not in have),
                          key=lambda t: -key.weights[t]):
        if key.share(have) >= KEEP_SHARE:
            break
        added.add(stemmed)
        have.add(stemmed)
    if not added:
        return query
    longer = " ".join([*(key.words[t] for t in key.words if t in added), query])
    return longer if len(longer) <= MAX_QUERY_CHARS else None


def prf_queries(question: str, found: Sequence[SearchResult], asked: Sequence[str],
                count: int) -> list[str]:
    """``count`` queries: the question's key terms plus expansion terms, none in ``asked``.

    No model is involved, so this works whatever the model can do. Each query takes
    the next :data:`TERMS_PER_QUERY` expansion terms, so the queries reach different
    neighbourhoods of the first results. Empty when nothing was found to learn from.
    """
    if count <= 0:
        return []
    base = base_query(KeyTerms.of(question, found)) or " ".join(keywords(question))
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
