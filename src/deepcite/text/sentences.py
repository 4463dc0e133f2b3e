"""Sentence boundaries that a reader would draw, in every language deepcite handles.

Grounded answers quote sources sentence by sentence, so a wrong boundary is a wrong quote:
a cut after "U.S." starts a quote with "Navy, is ...", and a cut inside a quotation
starts one mid-quote. :func:`sentence_spans` therefore splits only where a sentence
really ends:

* after ``.``, ``!``, ``?`` or an ellipsis (with any closing quotes, brackets and
  footnote marks such as ``[12]`` kept with the sentence), before a capital, digit,
  opening quote or bracket - or, in informal text (forum posts, comments), before a
  lower-case word when a plain lower-case word or a number ends the sentence ("in
  april. always the back wheel"); after ``。！？`` in Chinese, Japanese and Korean
  text, where no space follows;
* never after an abbreviation that does not end sentences (``Dr.``, ``e.g.``, ``Fig.``,
  ``No. 5``), nor after one that may (``U.S.``, ``etc.``, ``et al.``, initials such as
  ``J. R. R.``) unless the next word is one that starts sentences ("The", "He", "In");
  never inside a decimal or version number, nor after a list enumerator ("1.");
* never inside a quotation (paired ``"..."``, ``“...”``, ``「...」``, ``«...»``) or a
  short parenthesis, so a quoted passage stays in one sentence;
* always at a blank line (a paragraph is never joined to the next).

The rules are deterministic and cheap: they run on every sentence of every source and
of every answer, and a tokenizer model would tie the citation checks to a download.

Where only the last sentence end before a limit is wanted (a chunk's end, the context a
report's next part is given), :data:`SENTENCE_END` and :func:`cut_at_sentence` find it:
``.!?…`` followed by whitespace, and ``。！？`` followed by anything (CJK text has no
spaces, so a Chinese paragraph is otherwise one endless sentence). "The same sentence"
for de-duplication is :mod:`deepcite.citations.dedupe`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Abbreviations that (almost) never end a sentence: the next word belongs to them.
_NEVER_END = frozenset("""mr mrs ms mx dr prof rev fr hon gen col lt sgt capt cmdr adm gov sen
    rep pres st mt ft fig figs eq eqs vol vols pp ch chap sec sect art e.g i.e cf vs viz
    approx ca c.f esp incl""".split())  # noqa: SIM905 - word blocks read better
# Abbreviations that end a sentence only when a sentence plainly starts after them.
_MAY_END = frozenset("""etc inc ltd co corp llc plc jr sr al dept univ bros a.m p.m ph.d
    b.a m.a b.sc m.sc ave blvd rd""".split())  # noqa: SIM905
# Before a number these are labels ("No. 5", "p. 12", "Art. 3"), not sentence ends.
_BEFORE_NUMBER = frozenset({"no", "nos", "p", "art", "ch", "sec", "op", "nr"})
# Words that start most sentences; after an ambiguous abbreviation they decide the cut.
_STARTERS = frozenset("""the a an this that these those it its he she they we i you his her
    their our my there here in on at for but and however when after before as if although
    though while since during by from with some many most all one each both then thus so
    also other such according what which who why how where no not yet only later today
    finally meanwhile moreover instead""".split())  # noqa: SIM905

_LATIN_END = re.compile(
    r"(?P<punct>[.!?\u2026]+)(?P<close>[\"'\u201d\u2019)\]\u00bb]*)"
    r"(?P<notes>(?:\[[^\]\n]{1,40}\])*)(?P<space>\s+)")
_CJK_END = re.compile(
    r"(?P<punct>[\u3002\uff01\uff1f]+|[!?](?=[\u201d\u2019\u300d\u300f\uff09)]*[\u3400-\u9fff]))"
    r"(?P<close>[\u201d\u2019\u300d\u300f\uff09)\u3011\u300b\"']*)"
    r"(?P<notes>(?:\[[^\]\n]{1,40}\])*)(?P<space>\s*)")
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_OPENERS = "\"'\u201c\u2018([\u00ab\u00bf\u00a1*_"
_ACRONYM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")  # "U.S" of "U.S.", "e.g" of "e.g."
_ENUMERATOR = re.compile(r"\d{1,3}|[A-Za-z]|[ivxlcIVXLC]{1,6}")
_PAIRS = {"\u201c": "\u201d", "\u300c": "\u300d", "\u300e": "\u300f", "\u00ab": "\u00bb",
          "(": ")", "\uff08": "\uff09"}
_MAX_QUOTE = 600  # a "quotation" longer than this is a stray quote mark, not a quote
_MAX_PARENTHESIS = 250
_NOT_CJK = re.compile(r"[^\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the sentences of ``text``, without surrounding space."""
    spans: list[tuple[int, int]] = []
    start = 0
    for paragraph in _PARAGRAPH.finditer(text):
        spans += _paragraph_spans(text, start, paragraph.start())
        start = paragraph.end()
    spans += _paragraph_spans(text, start, len(text))
    return spans


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see the module's rules), each as written there."""
    return [text[a:b] for a, b in sentence_spans(text)]


def _paragraph_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    protected = _quoted_ranges(text, start, end)
    cuts = sorted({cut for cut, resume in _boundaries(text, start, end)
                   if not any(a < cut < b for a, b in protected)} | {end})
    spans = []
    for cut in cuts:
        piece = text[start:cut]
        lead = len(piece) - len(piece.lstrip())
        if piece.strip():
            spans.append((start + lead, start + len(piece.rstrip())))
        start = cut
    return spans


def _boundaries(text: str, start: int, end: int) -> Iterable[tuple[int, int]]:
    """Candidate cuts: where one sentence's text (with its closers) ends."""
    for match in _LATIN_END.finditer(text, start, end):
        resume = match.end()
        if resume < end and (_starts_sentence(text[resume:end]) or _informal_end(
                text, start, match)) and not _abbreviation(text, start, match):
            yield match.start("space"), resume
    for match in _CJK_END.finditer(text, start, end):
        if match.end() < end:
            yield match.start("space"), match.end()


def _starts_sentence(rest: str) -> bool:
    """Whether ``rest`` opens like a sentence: a capital, a digit or a CJK character,
    perhaps after opening quotes, brackets or emphasis."""
    first = rest.lstrip(_OPENERS)[:1]
    return bool(first) and (first.isupper() or first.isdigit() or not _NOT_CJK.match(first)
                            or rest[:1] == "[")


# A word a sentence of informal text ends on before a lower-case start: two or more
# lower-case letters (an apostrophe or digit among them: "here", "tbh", "it's"), or a
# number ("since 2019. theyre heavy").
_INFORMAL_WORD = re.compile(r"[a-z][a-z0-9']+|\d+")


def _informal_end(text: str, start: int, match: re.Match[str]) -> bool:
    """Whether ``match`` ends a sentence of informal text whose next one opens in lower
    case: "got a new bike in april. always the back wheel." Forum posts and comments
    rarely capitalise, and joined up their sentences become one long "sentence" that no
    quote can be cut from, often without a full stop at its end (then never quoted).
    Only a single ``.``, ``!`` or ``?`` (or a run of ``!``/``?``) after a plain lower-case
    word counts - never an ellipsis, a closing quote, or a capitalised or one-letter
    token ("Jan. and", "p. 12", "e.g. the" stay whole); abbreviations are still
    :func:`_abbreviation`'s to rule out."""
    punct = match.group("punct")
    if match.group("close") or match.group("notes") or not (
            punct == "." or set(punct) <= {"!", "?"}):
        return False
    before = text[start:match.start()]
    token = before.rsplit(None, 1)[-1] if before.strip() else ""
    following = text[match.end():]
    return (_INFORMAL_WORD.fullmatch(token) is not None and following[:1].islower()
            and token not in _NEVER_END and token not in _MAY_END)


def _abbreviation(text: str, start: int, match: re.Match[str]) -> bool:
    """Whether the full stop of ``match`` closes an abbreviation rather than a sentence."""
    if match.group("punct") != "." or match.group("close"):
        return False
    before = text[start:match.start()]
    token = before.rsplit(None, 1)[-1] if before.strip() else ""
    token = token.lstrip(_OPENERS)
    if not token:
        return False
    lower = token.lower()
    following = text[match.end():].lstrip(_OPENERS)
    next_word = following.split(None, 1)[0] if following.strip() else ""
    if lower in _BEFORE_NUMBER and next_word[:1].isdigit():
        return True
    line_start = before[: len(before) - len(token)].rsplit("\n", 1)[-1]
    if not line_start.strip(" \t-*+>") and _ENUMERATOR.fullmatch(token):
        return True  # "1. The context manager ..." at the start of a line
    if lower in _NEVER_END or lower.rsplit("-", 1)[-1] in _NEVER_END:  # "Trinity-St."
        return True
    ambiguous = (lower in _MAY_END or _ACRONYM.fullmatch(token) is not None
                 or (len(token) == 1 and token.isalpha()))
    if not ambiguous:
        return False
    initial = re.fullmatch(r"[A-Z]\.", next_word) is not None
    return initial or next_word.rstrip(",;:").lower() not in _STARTERS


def _quoted_ranges(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``(open, close + 1)`` of the quotations and short parentheses in ``text[start:end]``
    whose closing mark is found; no sentence boundary may fall strictly inside one."""
    ranges: list[tuple[int, int]] = []
    stacks: dict[str, list[int]] = {}
    closers = {close: open_ for open_, close in _PAIRS.items()}
    straight: int | None = None
    for i in range(start, end):
        ch = text[i]
        if ch == '"':
            if straight is None:
                straight = i
            else:
                if i - straight <= _MAX_QUOTE:
                    ranges.append((straight, i + 1))
                straight = None
        elif ch in _PAIRS:
            stacks.setdefault(ch, []).append(i)
        elif ch in closers and stacks.get(closers[ch]):
            opened = stacks[closers[ch]].pop()
            limit = _MAX_PARENTHESIS if closers[ch] in "(\uff08" else _MAX_QUOTE
            if i - opened <= limit:
                ranges.append((opened, i + 1))
    return ranges


SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*(?=\s)"
                          r"|[\u3002\uff01\uff1f][\u201d\u2019\u300d\u300f\uff09]*")
"""The end of a sentence, closing quotes and brackets included: ``.!?…`` before whitespace,
or a full-width ``。！？``, which needs none. A match ends where the sentence does."""


def cut_at_sentence(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at the last sentence end before it
    (:data:`SENTENCE_END`), else at the last space, else at ``limit``.

    A Chinese or Japanese sentence ends at ``。！？`` whether or not a space follows, so
    context in those languages is cut between sentences, not mid-sentence.
    """
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = None
    for match in SENTENCE_END.finditer(text, 0, limit + 1):
        if match.end() <= limit:
            end = match.end()
    if end:
        return head[:end].rstrip()
    return head.rsplit(" ", 1)[0].rstrip() if " " in head else head
