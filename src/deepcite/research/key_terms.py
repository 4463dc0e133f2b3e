"""The question's key terms, weighted, and what in the results is prose about them.

Follow-up queries drift when they lose the words that say what the question is about
(a name, the rare noun) or pick up words that merely travel with the results: a
distractor paragraph's other topic, API identifiers of a code sample, markup. Three
small tools guard against that, shared by query writing and the drift check:

- :class:`KeyTerms` weighs the question's key terms by how rare they are among the
  results (a word every result has says nothing about which one answers), and tells
  how much of that weight a text carries;
- :func:`code_chunks` finds the words of a text that are code or markup
  (``__aexit__``, ``json.load``, ``<div>``, ``&gt;``, ``:py:data:``), so their pieces
  are not taken for prose words;
- :func:`sentence_relevance` scores each sentence of a passage by the key terms in it
  (and half of its neighbours'), so a term is related to the question only where it is
  said near the question's words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from deepcite.citations.grounded import anchor_terms
from deepcite.citations.question_match import question_terms, subject_terms
from deepcite.text.sentences import split_sentences
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import TERM, content_words
from deepcite.types import SearchResult

MAX_KEYWORDS = 8
# Signs that a whitespace-separated word is code or markup rather than prose.
_CODE_SIGNS = re.compile(
    r"\w_|_\w"              # snake_case, __dunder__
    r"|[a-z]\.[a-z_]"       # dotted names: json.load, os.path (not "U.S.")
    r"|^[a-z]+[A-Z]"        # lowerCamelCase
    r"|\(\)|::|->|=>|[=`{}<>|\\]"  # calls, scopes, arrows, assignments, tags, pipes
    r"|&#?\w+;"             # HTML entities
    r"|^:\w+:|\w:\w+:"      # reST roles (:py:data:)
)
# Lines of code samples: an interpreter prompt, a shell prompt, an indented block.
_CODE_LINE = re.compile(r"^(?:\s*(?:>>>|\.\.\.|\$)\s|(?: {4}|\t))")
_EDGE_PUNCT = re.compile(r"^[\"'(\[]+|[\"'.,;:!?)\]]+$")


def keywords(question: str, limit: int = MAX_KEYWORDS) -> list[str]:
    """The question's content words in order, each once: its keyword query."""
    seen: dict[str, None] = {}
    for word in TERM.findall(question):
        lower = word.lower()
        if len(lower) >= 3 and lower not in STOPWORDS and lower not in seen:
            seen[lower] = None
    return list(seen)[:limit]


def terms_of(text: str) -> list[str]:
    """Lower-cased candidate terms: three letters or more, not stopwords, not bare numbers."""
    return [w for w in (t.lower() for t in TERM.findall(text))
            if len(w) >= 3 and w not in STOPWORDS and not w.isdigit()]


def code_chunks(text: str) -> list[str]:
    """The whitespace-separated words of ``text`` that are code or markup."""
    found: list[str] = []
    for line in text.splitlines():
        words = line.split()
        if _CODE_LINE.match(line):
            found.extend(words)
            continue
        found.extend(w for w in words if _CODE_SIGNS.search(_EDGE_PUNCT.sub("", w)))
    return found


def asks_about_code(question: str) -> bool:
    """Whether the question itself names code (``__aexit__``, ``os.path``): then the
    identifiers of the results are what it is about, not noise."""
    return bool(code_chunks(question))


@dataclass(frozen=True)
class KeyTerms:
    """The question's key terms (stemmed) with their weights, and its names/numbers.

    A key term is a content word of the question that says what it is about ("how
    much", "name", "kind" do not). Its weight is its inverse document frequency over
    the results given (all equal without results), so the distinctive words dominate.
    """

    weights: dict[str, float]
    #: Surface form of each key term, in the question's order (for writing queries).
    words: dict[str, str]
    #: Names and numbers of the question
    #: (see :func:`~deepcite.citations.sentence_ranking.anchor_terms`).
    anchors: frozenset[str]
    #: What the results agree the question is about: its names and numbers, and the key
    #: term most of the results hold (:func:`~deepcite.citations.question_match.subject_terms`).
    topic: frozenset[str] = frozenset()

    @classmethod
    def of(cls, question: str, found: Sequence[SearchResult] = ()) -> KeyTerms:
        """The key terms of ``question``, weighted by rarity among ``found``."""
        meaningful = question_terms(question)
        words: dict[str, str] = {}
        for word in keywords(question, limit=64):
            stemmed = term(word)
            if stemmed not in words and any(term(p) in meaningful
                                            for p in content_words(word)):
                words[stemmed] = word
        docs = [stems(f"{r.title} {r.snippet}") for r in found]
        total = len(docs)
        weights = {t: idf(sum(t in d for d in docs), total) if docs else 1.0 for t in words}
        anchors = frozenset(a for a in anchor_terms(question) if a in words)
        common = subject_terms(words, [terms_in(f"{r.title} {r.snippet}") for r in found])
        return cls(weights, words, anchors, anchors | common)

    def on_topic(self, present: Iterable[str]) -> bool:
        """Whether the stems ``present`` hold a :attr:`topic` term (true without one)."""
        return not self.topic or bool(self.topic & set(present))

    @property
    def total(self) -> float:
        """The weight of all key terms together."""
        return sum(self.weights.values())

    def share(self, present: Iterable[str]) -> float:
        """The share of the key terms' weight among the stems ``present`` (0 to 1)."""
        total = self.total
        if total <= 0:
            return 0.0
        return sum(self.weights.get(t, 0.0) for t in set(present)) / total

    def share_of(self, text: str) -> float:
        """The share of the key terms' weight that ``text`` mentions."""
        return self.share(stems(text))


def idf(df: int, total: int) -> float:
    """Inverse document frequency, positive even for a term every document has."""
    return math.log((total + 1) / (df + 0.5))


def terms_in(text: str) -> list[str]:
    """Every stemmed term of ``text``, repeats kept (as :func:`stems` finds them)."""
    return [term(w) for w in terms_of(text)]


def stems(text: str) -> set[str]:
    """The stemmed terms of ``text`` (its words and the pieces of hyphenated words)."""
    found = {term(w) for w in terms_of(text)}
    found.update(term(w) for w in content_words(text))
    return found


def sentence_relevance(text: str, key: KeyTerms) -> list[tuple[str, float]]:
    """Each sentence of ``text`` with how much it is about the question (0 to 1).

    A sentence's own key-term share, or half of a neighbour's when that is more: the
    sentence after the one naming the subject often says "it" instead.
    """
    sentences = [" ".join(s.split()) for s in split_sentences(text)] or [text]
    own = [key.share_of(s) for s in sentences]
    scored: list[tuple[str, float]] = []
    for i, sentence in enumerate(sentences):
        near = [own[j] / 2 for j in (i - 1, i + 1) if 0 <= j < len(own)]
        scored.append((sentence, max([own[i], *near])))
    return scored
