"""Make Chinese, Japanese and Korean text searchable with overlapping character bigrams.

SQLite's ``unicode61`` tokenizer splits on spaces and punctuation, which CJK writing
does not use between words: a whole Chinese sentence becomes one token, and searching
for a word inside it finds nothing. The classic remedy (Lucene's CJKAnalyzer does the
same) is to index every pair of adjacent CJK characters: ``自然语言`` is indexed as
``自然 然语 语言``, and any word of two or more characters is found through the pairs
it is made of. One more token per run - its last character on its own - makes every
single character the first character of some token, so a one-character query works
as a prefix query. Text without CJK characters costs nothing. Which characters are CJK,
and a run's tokens, are :mod:`deepcite.text.cjk`'s (re-exported here).
"""

from __future__ import annotations

from deepcite.text.cjk import CJK_CHARS as CJK_CHARS
from deepcite.text.cjk import CJK_RUN as CJK_RUN
from deepcite.text.cjk import SENTENCE_END as SENTENCE_END
from deepcite.text.cjk import has_cjk as has_cjk
from deepcite.text.cjk import run_pairs
from deepcite.text.cjk import run_tokens as run_tokens


def bigram_text(*texts: str | None) -> str | None:
    """Space-separated index tokens of every CJK run in ``texts``; ``None`` if there are none.

    The result goes into an FTS5 column with the ordinary ``unicode61`` tokenizer,
    which sees each space-separated pair as one token.
    """
    tokens: list[str] = []
    for text in texts:
        if text:
            for run in CJK_RUN.findall(text):
                tokens.extend(run_tokens(run))
    return " ".join(tokens) if tokens else None


def query_atoms(run: str) -> list[str]:
    """FTS5 query atoms for a CJK run typed by a user: its pairs, or a prefix for one char.

    The pairs are OR-ed with the other query terms, so BM25 ranks a passage holding
    all of a word's pairs (almost always the word itself) above one holding a few.
    """
    if len(run) == 1:
        return [f'"{run}"*']
    return [f'"{pair}"' for pair in run_pairs(run)]
