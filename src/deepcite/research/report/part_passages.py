"""Passages of its own for every part of a detailed report.

Each part of a report is researched on its own, but the parts of one question find
much the same passages, and when a small model cannot answer a part the citation step
quotes the closest passages instead - so, unchecked, every part prints the same three
quotes. :class:`PartPassages` keeps what the report has printed so far and gives each
part its own:

* **Pinned evidence**: the passages an outline built from the question's facets gave a
  part (:mod:`~deepcite.research.report.facets`) are its run's evidence, so its
  answer, or its quoted passages, come from its own passages. A passage is pinned to
  one part only.
* **No passage quoted twice**: a quoted passage (``- “…” [n] (title)``) that an earlier
  part already quoted or was pinned, or whose sentences the report already says, is
  replaced by one of the part's own passages that is still unused (chosen for the
  part's query), or left out; a part left with nothing of its own says so in one line.

The grounded sentences of a part are kept from repeating by the run itself (the brief's
``avoid``); this works on the passages, and adds no model call.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deepcite.citations.answer import evidence_list
from deepcite.citations.candidates import candidate_sentences
from deepcite.citations.supported_first import leads_with_flag
from deepcite.text.frames import frame, frame_for
from deepcite.text.sentences import split_sentences
from deepcite.types import SearchResult, Source

from .outline import heading_keys, title_key, word_share

#: The engine name of the user's own materials: bound to parts by the outline, never
#: handed to another part as found evidence.
MATERIAL_ENGINE = "user_material"
ALREADY_QUOTED_LINE = frame("already_quoted")  # in the question's language: frame_for
_QUOTE_LINE = re.compile(r"^- \u201c(?P<quote>.*)\u201d \[(?P<number>\d+)\]")
_MARKERS = re.compile(r"\\?\[\d+(?:\s*,\s*\d+)*\\?\]")
#: The shortest sentence quoted on its own (shorter ones are headings, fragments).
_MIN_QUOTE_CHARS = 20
#: Sentences shorter than this (in words) repeat naturally ("See below.").
_MIN_REPEAT_WORDS = 5
#: The longest paragraph read as the intro of a block of quotes ("The closest passages
#: found:").
_MAX_INTRO_CHARS = 200


def as_result(source: Source) -> SearchResult:
    """``source`` as a search result again, to be registered (it keeps its number)."""
    return SearchResult(title=source.title or source.url, url=source.url,
                        snippet=source.snippet, engine=source.engine,
                        full_text=source.full_text, published=source.published,
                        metadata=dict(source.metadata))


@dataclass
class PartPassages:
    """What the parts of one report have quoted or been given so far (by number)."""

    #: The passages the outline was built from: their shared title suffixes clean
    #: headings as the outline's were cleaned.
    outline_sources: Sequence[Source] = ()
    #: The titles of the report's parts: a passage under another part's heading is that
    #: part's, never a spare for this one.
    titles: Sequence[str] = ()
    used: set[int] = field(default_factory=set)
    #: The passages pinned to the part being written: its own, free for it to quote.
    current: set[int] = field(default_factory=set)

    def pin(self, own: Sequence[Source]) -> None:
        """``own`` are the passages of the part about to be written (its facet's): free
        for it to quote, used from now on."""
        self.current = {s.number for s in own}
        self.used.update(self.current)

    def unrepeated(self, title: str, text: str, query: str, sources: Sequence[Source],
                   written: str, *, prose: bool = False) -> str:
        """``text`` (part ``title`` as written) with every quoted passage that an
        earlier part used, or that sits under another part's heading, dropped; one
        that repeats a sentence of ``written`` quoted from its other sentences; and
        the block topped up from unused passages of ``sources`` (the part's own);
        records what it quotes. With ``prose`` (a part written from its own passages),
        its cited sentences the report already says are dropped too. A part left with
        nothing of its own says so in one line."""
        taken = self.used - self.current
        self.current = set()
        key = title_key(title)
        others = {title_key(t) for t in self.titles} - {key, ""}
        mine = [s for s in sources
                if not any(_under(k, self._keys(s, sources)) for k in others)]
        spare = sorted((s for s in mine if s.number not in self.used),
                       key=lambda s: (not _under(key, self._keys(s, sources)),
                                      -word_share(query, s.text)))
        by_number = {s.number: s for s in mine}
        kept: list[str] = []
        for paragraph in text.split("\n\n"):
            lines = paragraph.splitlines()
            if not lines or not all(_QUOTE_LINE.match(line) for line in lines):
                new = _unsaid(paragraph, written, sources) if prose else paragraph
                if new:
                    kept.append(new)
                elif kept and _is_intro(kept[-1]):
                    kept.pop()
                continue
            wanted = [by_number.get(int(m.group("number"))) for line in lines
                      if (m := _QUOTE_LINE.match(line)) is not None]
            quotes = self._fresh(wanted, len(lines), query, spare, written, taken)
            if quotes:
                kept.append("\n".join(quotes))
            elif kept and _is_intro(kept[-1]):
                kept.pop()  # its intro goes with the block
        result = "\n\n".join(kept).strip()
        # the part's answer was all repeated quotes: the model's unsupported text below
        # it must not become the part's opening
        return (frame_for("already_quoted", query) if not result or leads_with_flag(result)
                else result)

    def _fresh(self, wanted: list[Source | None], count: int, query: str,
               spare: list[Source], written: str, taken: set[int]) -> list[str]:
        """Quote lines for the ``wanted`` passages that are new to the report (not
        ``taken`` by an earlier part, sentences not ``written``), topped up to ``count``
        from ``spare``; their numbers become used and taken."""
        fresh: list[str] = []
        for source in [*wanted, *spare]:
            if len(fresh) >= count:
                break
            if source is None or source.number in taken:
                continue
            line = _quote(source, query, written)
            if line is not None:
                fresh.append(line)
                self.used.add(source.number)
                taken.add(source.number)
        return fresh

    def _keys(self, source: Source, pool: Sequence[Source]) -> set[str]:
        return heading_keys(source, [*self.outline_sources, *pool])


def _quote(source: Source, query: str, written: str) -> str | None:
    """The quote line of ``source`` (as the citation step writes it) from its prose
    sentences the report has not said yet, best for ``query``; ``None`` when it said
    them all or none shares a word with ``query``. Headings, table rows and navigation
    lines are no sentences to quote (:func:`candidate_sentences` leaves them out)."""
    unsaid = [s.text for s in candidate_sentences([source])
              if len(s.text) >= _MIN_QUOTE_CHARS and not _repeats(s.text, written)]
    if not unsaid:
        return None
    best = max(unsaid, key=lambda s: word_share(query, s))  # the first among equals
    if word_share(query, best) == 0:
        return None  # nothing of it bears on the part: an unrelated quote misleads
    return evidence_list(query, [source.model_copy(update={"full_text": best})])


def answers(text: str) -> bool:
    """Whether a part's ``text`` answers with a cited sentence of its own, rather than
    only listing the closest passages under an intro ("No sentence of the sources
    answers this directly ...") - quotes that may bear on the part's subject but not
    on what it is for."""
    for paragraph in text.split("\n\n"):
        lines = paragraph.strip().splitlines()
        if (lines and not _is_intro(paragraph) and _MARKERS.search(paragraph)
                and not all(_QUOTE_LINE.match(line) for line in lines)):
            return True
    return False


def _unsaid(paragraph: str, written: str, sources: Sequence[Source]) -> str:
    """``paragraph`` without the sentences copied from ``sources`` that the report
    already says (a part's grounded sentences may bring back, with a sentence that
    points back to it, one the Summary quotes); an intro line, and what a model wrote
    in its own words, are kept as they are."""
    if _is_intro(paragraph) or not _MARKERS.search(paragraph):
        return paragraph
    sentences = cited_units(paragraph)
    copied = [_normalised(s.text) for s in sources]
    kept = [s for s in sentences if not (
        _repeats(s, written)
        and any(_normalised(s).rstrip(".!?;:, ") in text for text in copied))]
    return paragraph if len(kept) == len(sentences) else " ".join(kept)


_CITED_UNIT = re.compile(r".+?(?:\\?\[\d+\\?\])+[.!?。！？]?(?=\s|$)\s*|.+$", re.DOTALL)


#: The most words a line standing alone without an end mark may have to be a heading.
_MAX_HEADING_WORDS = 12


def headline(unit: str, sources: Sequence[Source]) -> bool:
    """Whether the cited sentence ``unit`` is, in its source, a line of its own with no
    end mark ("getopt - Parser for command line options", "csv - CSV parsing and
    writing"): a heading or a navigation line, not a sentence to quote."""
    plain = " ".join(_MARKERS.sub(" ", unit).replace("\\", "").split()).rstrip(".!?。！？ ")
    if not plain or len(plain.split()) > _MAX_HEADING_WORDS:
        return False
    for source in sources:
        for line in source.text.splitlines():
            if " ".join(line.split()).strip(" -*#=|") == plain:
                return True
    return False


def without_headlines(text: str, sources: Sequence[Source]) -> str:
    """``text`` (a part) without the cited sentences that are headlines of
    ``sources`` (:func:`headline`)."""
    kept: list[str] = []
    for paragraph in text.split("\n\n"):
        lines = paragraph.strip().splitlines()
        if (not lines or _is_intro(paragraph) or not _MARKERS.search(paragraph)
                or all(_QUOTE_LINE.match(line) for line in lines)):
            kept.append(paragraph)
            continue
        units = [u for u in cited_units(paragraph) if not headline(u, sources)]
        if units:
            kept.append(" ".join(units))
    return "\n\n".join(kept).strip()


def cited_units(paragraph: str) -> list[str]:
    """``paragraph`` cut after each run of citation markers ("... fields [6]."): the
    sentences of a grounded answer with their markers, whatever their punctuation."""
    return [unit.strip() for unit in _CITED_UNIT.findall(paragraph.strip()) if unit.strip()]


def on_cue(text: str, cue: re.Pattern[str]) -> str:
    """``text`` (a part) with only the cited sentences and quote lines that hold
    ``cue``: a part of examples or of limitations keeps what gives an example or names
    a limit, not the other sentences of its passages."""
    kept: list[str] = []
    for paragraph in text.split("\n\n"):
        lines = paragraph.strip().splitlines()
        if lines and all(_QUOTE_LINE.match(line) for line in lines):
            block = [line for line in lines if cue.search(line)]
            if block:
                kept.append("\n".join(block))
            elif kept and _is_intro(kept[-1]):
                kept.pop()
        elif _is_intro(paragraph) or not _MARKERS.search(paragraph):
            kept.append(paragraph)
        elif units := [u for u in cited_units(paragraph) if cue.search(u)]:
            kept.append(" ".join(units))
        elif kept and _is_intro(kept[-1]):
            kept.pop()
    return "\n\n".join(kept).strip()


def _under(key: str, keys: set[str]) -> bool:
    """Whether a part titled ``key`` is about a passage under ``keys``: one of its
    headings is the title, or starts with it ("argparse" and "argparse command line
    parsing library")."""
    return any(k == key or k.startswith(key + " ") for k in keys)


def _normalised(text: str) -> str:
    """``text`` without citation markers, escapes and case, whitespace collapsed."""
    return " ".join(_MARKERS.sub(" ", text).replace("\\", "").casefold().split())


def _repeats(quote: str, written: str) -> bool:
    """Whether ``quote`` and ``written`` share a sentence of five words or more: one
    of the quote's is in ``written``, or one of its sentences is in the quote (a quote
    may open with a heading word the report's sentence lacks)."""
    said, said_sentences = _said(written)
    quote = quote.replace("\u2026", " ")
    plain_quote = _normalised(quote)
    for sentence in split_sentences(quote):
        plain = _normalised(sentence).rstrip(".!?;:, ")
        if len(plain.split()) >= _MIN_REPEAT_WORDS and plain in said:
            return True
    return any(sentence in plain_quote for sentence in said_sentences)


@functools.lru_cache(maxsize=16)
def _said(written: str) -> tuple[str, tuple[str, ...]]:
    """``written`` normalised, and its sentences of five words or more, normalised
    with their end marks off (computed once per part, not once per quote)."""
    found = (_normalised(s).rstrip(".!?;:, ") for s in split_sentences(written))
    return _normalised(written), tuple(s for s in found
                                       if len(s.split()) >= _MIN_REPEAT_WORDS)


def _is_intro(paragraph: str) -> bool:
    """Whether ``paragraph`` only announces the quotes after it ("... found:")."""
    text = paragraph.strip()
    return len(text) <= _MAX_INTRO_CHARS and text.endswith((":", "\uff1a")) and "\n" not in text
