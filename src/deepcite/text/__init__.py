"""Text in every language deepcite handles: words, stop words, stems, sentences, CJK.

The bottom layer every other package may use (it imports nothing of deepcite): one
home for what a word is (:mod:`~deepcite.text.words`), which words say nothing
(:mod:`~deepcite.text.stopwords`), how inflections meet (:mod:`~deepcite.text.stem`),
where sentences end, ``。！？`` without a space included (:mod:`~deepcite.text.sentences`),
how Chinese, Japanese and Korean runs are cut into comparable pairs
(:mod:`~deepcite.text.cjk`) and which of those pairs carry meaning
(:mod:`~deepcite.text.cjk_terms`), which language a question is in
(:mod:`~deepcite.text.language`) and the frame of an answer in that language
(:mod:`~deepcite.text.frames`), and the cells of a Markdown table row
(:mod:`~deepcite.text.tables`). All of it is deterministic and needs no model or download.
"""

from __future__ import annotations

from deepcite.text.cjk import CJK_CHARS, CJK_RUN, has_cjk, run_pairs, run_tokens
from deepcite.text.cjk_terms import cjk_chains, cjk_terms
from deepcite.text.frames import frame, frame_for, variants
from deepcite.text.language import detect
from deepcite.text.sentences import SENTENCE_END, cut_at_sentence, sentence_spans, split_sentences
from deepcite.text.stem import singular, stem, stems, term
from deepcite.text.stopwords import (
    OVERLAP_STOPWORDS,
    QUERY_STOPWORDS,
    SEARCH_STOPWORDS,
    STOPWORDS,
    TITLE_STOPWORDS,
)
from deepcite.text.tables import markdown_cells
from deepcite.text.words import (
    ALNUM_WORD,
    ANY_WORD,
    TERM,
    WORD,
    WORD_OR_CJK_RUN,
    content_words,
    normalised_words,
    overlap,
)

__all__ = [
    "ALNUM_WORD", "ANY_WORD", "CJK_CHARS", "CJK_RUN", "OVERLAP_STOPWORDS", "QUERY_STOPWORDS",
    "SEARCH_STOPWORDS", "SENTENCE_END", "STOPWORDS", "TERM", "TITLE_STOPWORDS", "WORD",
    "WORD_OR_CJK_RUN", "cjk_chains", "cjk_terms", "content_words", "cut_at_sentence",
    "detect", "frame", "frame_for", "has_cjk", "markdown_cells", "normalised_words",
    "overlap", "run_pairs", "run_tokens", "sentence_spans", "singular", "split_sentences",
    "stem", "stems", "term", "variants",
]
