"""Re-scoring the tantivy index's candidates, and the analyzer both share.

tantivy ranks by its own BM25; :func:`rescore` orders its ``POOL`` best chunks again
with the Lucene IDF (from tantivy's document frequencies) and a length norm in
characters, the scoring that keeps recall@10 on the Python FAQ benchmark where the FTS5
path has it (``docs/collections.md``). Term frequencies are counted by scanning only the
candidates' text for words that may stem to a question term, which is several times
faster than analyzing every candidate. Kept apart from :mod:`.inverted`, which owns the
index's files, its crash-safe sync and the search transaction.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections import Counter

import tantivy

K1, B = 1.2, 0.75
MAX_TOKEN_CHARS = 100
"""Longer tokens are not indexed here; a question holding one is answered by FTS5."""
TOKENIZER = "deepcite_en"
_STEMS: dict[str, tuple[str, ...]] = {}
_STEMS_MAX = 200_000


def _analyzer() -> tantivy.TextAnalyzer:
    """Words split at non-alphanumerics, lower-cased, English-stemmed (Snowball)."""
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(MAX_TOKEN_CHARS))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stemmer("english"))
            .build())


ANALYZER = _analyzer()


def _stems(word: str) -> tuple[str, ...]:
    """The index terms of one word, remembered (the vocabulary of a collection is small)."""
    stems = _STEMS.get(word)
    if stems is None:
        if len(_STEMS) >= _STEMS_MAX:
            _STEMS.clear()
        stems = _STEMS[word] = tuple(ANALYZER.analyze(word))
    return stems


_DOTTED_HEAD = re.compile(r"\b([A-Za-z_][\w]*)\.(?=[A-Za-z_])")


def dotted_heads(question: str) -> frozenset[str]:
    """The index terms of the names a question writes before a dot ("zipfile" and
    "ZipFile" in "zipfile.ZipFile.extractall"): the pages such a name lives on."""
    return frozenset(t for m in _DOTTED_HEAD.finditer(question)
                     for t in ANALYZER.analyze(m.group(1)))


@functools.lru_cache(maxsize=4096)
def _title_terms(title: str) -> tuple[str, ...]:
    """The index terms of a document title (a handful of titles recur in every search)."""
    return tuple(ANALYZER.analyze(title))


def _candidate_words(terms: list[str]) -> list[re.Pattern[str]]:
    """Patterns for the words that may stem to one of ``terms``: those starting with all
    but a term's last letter (English stemming only rewrites the end of a word).
    Matching these and stemming only them finds the same term frequencies as analyzing
    the whole text, several times faster; one pattern per prefix, because a pattern
    that starts with a literal is searched for with a fast scan, an alternation is
    tried at every word."""
    prefixes = {t[:max(1, len(t) - 1)] for t in terms}
    return [_prefix_pattern(prefix) for prefix in sorted(prefixes)]


@functools.lru_cache(maxsize=8192)
def _prefix_pattern(prefix: str) -> re.Pattern[str]:
    """Compiled once per prefix: ``re``'s own cache holds 512 patterns, fewer than the
    prefixes a busy server's questions bring, and compiling was 4% of a search."""
    return re.compile(re.escape(prefix) + r"\w*")


def _word_counts(texts: list[str], patterns: list[re.Pattern[str]]) -> list[Counter[str]]:
    """How often each candidate word occurs as a whole word, for each of ``texts``.

    The texts are scanned as one string (each pattern once, not once per text), and a
    match is given to its text by offset; a word that two prefixes find counts once.
    """
    joined = "\n".join(texts).lower().replace("_", " ")  # the index splits at "_" too
    starts = list(itertools.accumulate((len(t) + 1 for t in texts[:-1]), initial=0))
    words: list[dict[int, str]] = [{} for _ in texts]
    for pattern in patterns:
        for match in pattern.finditer(joined):
            at = match.start()
            if at == 0 or not joined[at - 1].isalnum():
                words[bisect.bisect_right(starts, at) - 1][at] = match.group()
    return [Counter(found.values()) for found in words]


def rescore(searcher: tantivy.Searcher, terms: list[str], texts: dict[int, str],
             ids: list[int], avg_chars: float, k: int,
             titles: dict[int, str] | None = None,
             heads: frozenset[str] = frozenset()) -> list[tuple[int, float]]:
    """The ``k`` best ``(chunk id, score)`` of ``ids`` (best first as tantivy ranked
    them), by BM25 with the Lucene IDF and a length norm in characters.

    A term the question writes at the head of a dotted name (``heads``: "zipfile" in
    "zipfile.ZipFile.extractall") that the chunk's document title holds scores as if
    saturated in every chunk of that document, whatever the chunk's text says: the page
    is the one the name lives on, so the chunk that repeats the page's name most is no
    more relevant than the one holding the rare word asked ("extractall"). Counted by
    text alone, zipfile's class listing outweighed the method. Only for such heads: done
    for every title term, "function" saturated every chunk of "Built-in Functions" and
    recall@10 on the Python FAQ fell from 0.458 to 0.404; counting a title term once per
    chunk instead lost the title page's lead on how-to questions (gold page first for
    16 of 25 instead of 21).
    """
    titled = {chunk_id: frozenset(_title_terms(title)) & heads
              for chunk_id, title in (titles or {}).items()}
    n = max(searcher.num_docs, 1)
    idf = {}
    for term in terms:
        df = searcher.doc_freq("text", term)
        idf[term] = math.log(1 + (n - df + 0.5) / (df + 0.5))
    ids = [i for i in ids if i in texts]
    counts = _word_counts([texts[i] for i in ids], _candidate_words(terms))
    terms_of: dict[str, list[str]] = {}
    scored = []
    for position, (chunk_id, words) in enumerate(zip(ids, counts, strict=True)):
        tf: dict[str, int] = {}
        for word, count in words.items():
            found = terms_of.get(word)
            if found is None:
                found = terms_of[word] = [t for t in _stems(word) if t in idf]
            for term in found:
                tf[term] = tf.get(term, 0) + count
        norm = 1 - B + B * len(texts[chunk_id]) / max(avg_chars, 1.0)
        about = titled.get(chunk_id, frozenset()) & idf.keys()
        score = sum(idf[t] * f * (K1 + 1) / (f + K1 * norm)
                    for t, f in tf.items() if t not in about)
        score += sum(idf[t] * (K1 + 1) for t in about)  # saturated: the page is about it
        scored.append((score, -position, chunk_id))
    scored.sort(reverse=True)
    return [(chunk_id, score) for score, _, chunk_id in scored[:k] if score > 0]
