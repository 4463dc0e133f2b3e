"""Small text tools of citation handling: excerpts, headings, scripts, Markdown-safe quotes.

Deliberately simple and deterministic: they decide cheap questions (does this sentence
come from that passage? which sentence of a passage answers the question?) without a
model call, so answers stay checkable even when the model is tiny. Words, stop words,
stems and sentence boundaries are :mod:`deepcite.text`'s; de-duplication of sentences
is :mod:`deepcite.citations.dedupe`'s.
"""

from __future__ import annotations

import re
import unicodedata

from deepcite.citations.markers import sub_outside_code
from deepcite.text.cjk import has_cjk
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.sentences import split_sentences
from deepcite.text.words import content_words, overlap

# An "&" that a Markdown renderer would read as a character reference (&lt; &#60;).
_ENTITY_START = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# A backslash that would escape the next character in Markdown (only punctuation is).
_ESCAPING_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~])")
# "<" opening a raw HTML tag, comment or declaration; an autolink <https://x> stays.
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])(?!(?:https?|mailto):[^\s<>]*>)")


#: A heading line with the underline that makes it one (reST, setext Markdown), or an
#: ATX Markdown heading: a document's title is not part of a quote from it.
_HEADING = re.compile(r"^[^\n]*\n[ \t]*([=\-~^*#])\1{2,}[ \t]*$|^[ ]{0,3}#{1,6}[ \t][^\n]*$",
                      re.MULTILINE)


def drop_headings(text: str) -> str:
    """``text`` without its heading lines (a setext title and its underline, an ATX
    ``#`` line), each replaced by a line break so the paragraphs stay apart. Run into
    the sentence after them once whitespace is folded, headings made quotes and
    evidence such as "Kenya, paragraph 7 ======== During excavations ..."."""
    return _HEADING.sub("\n", text)


#: Shortest sentence a closest passage starts from: shorter ones are headings, labels,
#: list debris. A CJK character says about as much as a short English word, so a CJK
#: sentence needs fewer ("灯塔数据库是一个开源的时间序列数据库。" is 19).
_MIN_CHARS = 20
_MIN_CJK = 8


def _matched_units(text: str, *, question: bool = False) -> set[str]:
    """What a question and a sentence are compared on: content words, and the CJK
    character pairs of any CJK text (a Chinese sentence has no words to split)."""
    units = {w.lower() for w in content_words(text)}
    return units | set(cjk_terms(text, question=question)) if has_cjk(text) else units


def best_excerpt(text: str, query: str, max_chars: int = 300) -> str:
    """The sentence (or two) of ``text`` that best matches ``query``, cut to ``max_chars``.

    Headings are left out first: run into the sentence after them they made quotes
    such as "Kenya, paragraph 7 ======== During excavations ...". They stay out when
    every sentence is short (a Chinese or Japanese sentence often is): the body is
    then quoted whole, not the heading run into it ("# 今日の天気 東京は...").
    """
    query_words = _matched_units(query, question=True)
    body = drop_headings(text)
    if not body.strip():
        body = text
    sentences = [" ".join(s.split()) for s in split_sentences(body)]
    sentences = [s for s in sentences if len(s) >= (_MIN_CJK if has_cjk(s) else _MIN_CHARS)
                 ] or [" ".join(body.split())]
    best = max(range(len(sentences)), key=lambda i: (overlap(query_words, _matched_units(
        sentences[i])), -i))
    excerpt = sentences[best]
    if len(excerpt) < max_chars // 2 and best + 1 < len(sentences):
        excerpt = f"{excerpt} {sentences[best + 1]}"
    return cut_at_word(excerpt, max_chars)


def cut_at_word(text: str, max_chars: int) -> str:
    """``text`` cut at a word to ``max_chars``, marked with an ellipsis when cut."""
    if len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit(" ", 1)[0].rstrip(",;:") + " …"


_SCRIPT_GROUPS = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HANGUL": "CJK", "CJK": "CJK"}


def dominant_script(text: str, share: float = 0.6) -> str | None:
    """The writing system of most letters (``LATIN``, ``CJK``, ``CYRILLIC`` ...), or None.

    Small models sometimes answer an English question in Chinese, or the reverse; the
    script is a cheap, reliable signal of that. Languages that share a script (English
    and French) are not told apart. ``None`` when no script holds ``share`` of letters.
    """
    counts: dict[str, int] = {}
    for ch in text:
        if not ch.isalpha():
            continue
        try:
            script = unicodedata.name(ch).split()[0]
        except ValueError:
            continue
        script = _SCRIPT_GROUPS.get(script, script)
        counts[script] = counts.get(script, 0) + 1
    total = sum(counts.values())
    if total < 8:
        return None
    script, count = max(counts.items(), key=lambda item: item[1])
    return script if count / total >= share else None


# ------------------------------------------------------- text from sources in Markdown


def escape_html(text: str) -> str:
    """``text`` with ``<`` and ``>`` as entities, and ``&`` where it would start one.

    For source text shown in Markdown (titles, quoted passages): a ``<script>`` in a
    page title must reach a Markdown renderer as text, never as a tag. A lone ``&``
    ("R&D") renders as itself, so only an ``&`` that would read as a character
    reference is escaped; titles stay readable on a terminal.
    """
    return _ENTITY_START.sub("&amp;", text).replace("<", "&lt;").replace(">", "&gt;")


def escape_quoted(text: str) -> str:
    """Source text made safe to quote verbatim inside our Markdown prose.

    Brackets are escaped (``\\[99\\]``) because the marker tools must never read a
    source's own "[99]" or "[1-1000]" as a citation to renumber or drop; a renderer
    still shows "[99]". Backticks are escaped so that a stray one cannot open a code
    span that hides the quote's citation; a backslash that would escape the next
    character is doubled so the source's own backslashes survive; HTML is escaped as
    in :func:`neutralise_html` (a ``<`` that would open a tag, an ``&`` that would start
    an entity), so the ``>>>`` of an interactive example reads as written, never as
    ``&gt;&gt;&gt;``.
    """
    text = _ESCAPING_BACKSLASH.sub(r"\\\\", text)
    text = text.replace("[", "\\[").replace("]", "\\]").replace("`", "\\`")
    return _TAG_START.sub("&lt;", _ENTITY_START.sub("&amp;", text))


def neutralise_html(markdown: str) -> str:
    """``markdown`` with every raw HTML tag outside code turned into visible text.

    Model answers are Markdown, and Markdown lets raw HTML through to whatever renders
    it; an answer echoing a page's ``<script>`` or ``<img onerror=...>`` must not run.
    Only a ``<`` that opens a tag, comment or declaration becomes ``&lt;``, so "a < b"
    and autolinks read as before, and code spans and blocks (where a tag is shown as
    text anyway) are left alone. Applying it twice changes nothing.
    """
    return sub_outside_code(_TAG_START, lambda m: "&lt;", markdown)
