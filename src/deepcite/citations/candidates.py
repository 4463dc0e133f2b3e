"""The candidate sentences of a grounded answer: the sources' prose, sentence by sentence.

A grounded answer (:mod:`deepcite.citations.grounded`) quotes sentences verbatim, so
what counts as a sentence decides what can be quoted: headings, underlines, table
borders and code-like lines are not, and neither is a fragment or a question the source
asks.

A sentence that points back ("This hypothesis is called the Cobham-Edmonds thesis.",
"It is heavily dependent upon petroleum.", "The wars ended with the Edict of Nantes.")
says what it is about only with the sentence before it. Ranked on its own words it
loses to the sentence it points back to, which restates the question and holds no
answer; so each candidate carries the words of the sentence it points back to as
``context``, which ranking counts as part of what it is about
(:func:`deepcite.citations.grounded.rank_sentences`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deepcite.citations.attribution import looks_like_prose
from deepcite.citations.question_match import terms_of
from deepcite.text.cjk import CJK_RUN, has_cjk
from deepcite.text.sentences import split_sentences
from deepcite.text.stopwords import STOPWORDS
from deepcite.types import Source

MIN_WORDS, _MAX_WORDS, _MAX_SENTENCE_CHARS = 4, 120, 800
_UNDERLINE = re.compile(r"^\s*([=\-~^*#_+])\1{2,}\s*$")
_RULE = re.compile(r"^[\s=\-~^*#_+|:]*[=\-~^*#_+|]{3,}[\s=\-~^*#_+|:]*$")  # table borders
_GUTTER = re.compile(r"^(\s*)\|(?!.*\|)\s?")
_LIST_ITEM = re.compile(r"^(?:[-*+\u2022]|\d{1,2}[.)])\s+")
_CAPS_HEADING = re.compile(r"^[A-Z][A-Z0-9 ]{1,40}$")  # NAME, DESCRIPTION, DATA
_ENDS_SENTENCE = re.compile(r"[.!?\u3002\uff01][\"'\u201d\u2019)\]\u300d\u300f\uff09]*$")
#: Characters of CJK text per word: it has no spaces, and its words are one to three
#: characters long, so a sentence is measured by its characters.
_CJK_CHARS_PER_WORD = 2
_CODE_MARK = re.compile(r"[`{}<>=;]|\w\(|\w\.\w+\(")
# A footnote mark a page kept ("[12]", "[citation needed]") goes with its sentence.
_FOOTNOTE = r"(?:\[[^\]\n]{1,40}\])"
_TRAILING_FOOTNOTES = re.compile(r"(?<=[.!?\"'\u201d\u2019)])" + _FOOTNOTE + "+$")


@dataclass
class Sentence:
    """One candidate sentence: copied verbatim (whitespace collapsed) from ``source``."""

    source: Source
    rank: int  # the source's position in the list given (search rank)
    position: int  # the sentence's position in its source
    text: str
    terms: list[str]
    score: float = 0.0
    coverage: float = 0.0
    #: The terms of the sentence this one points back to (:func:`refers_back`), empty
    #: when it stands alone.
    context: list[str] = field(default_factory=list)

    @property
    def about(self) -> list[str]:
        """What the sentence is about: its own terms and those it points back to."""
        return self.terms + self.context if self.context else self.terms


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _passages(text: str) -> list[str]:
    """Runs of prose lines of ``text``, each as one line.

    Documentation is not all prose: headings (Markdown ``#``, setext underlines, pydoc's
    capitalised NAME/FUNCTIONS), table borders and code-like lines are dropped, and a
    line indented deeper than one ending in ``)`` or ``:`` starts a new run (pydoc's
    ``check_output(*popenargs)`` above its description), so no sentence begins with a
    signature.
    """
    passages = []
    for block in re.split(r"\n[ \t]*\n", text):
        runs: list[list[str]] = [[]]
        previous = ""
        for line in block.splitlines():
            line = _GUTTER.sub(r"\1", line)  # pydoc's " |  " before class members
            stripped = _LIST_ITEM.sub("", line.strip())
            if _UNDERLINE.match(line):
                if runs[-1]:
                    runs[-1].pop()  # the title of a setext heading
                continue
            if (_RULE.match(line) or stripped.startswith(("#", "|"))
                    or _CAPS_HEADING.match(stripped)):
                runs.append([])
                continue
            if runs[-1] and _indent(line) > _indent(previous) and previous.rstrip()[-1:] in (
                    ")", ":"):
                runs.append([])
            runs[-1].append(stripped)
            previous = line
        passages += [" ".join(" ".join(run).split()) for run in runs if run]
    return passages


def _usable(sentence: str) -> bool:
    """A sentence worth quoting: prose of sensible length, ending like a statement (a
    question the source asks, "What is the average speed?", answers nothing)."""
    words = word_count(sentence)
    return (MIN_WORDS <= words <= _MAX_WORDS and len(sentence) <= _MAX_SENTENCE_CHARS
            and _ENDS_SENTENCE.search(sentence) is not None
            and not sentence.rstrip("\"'\u201d\u2019)]\u300d\u300f\uff09 ").endswith(
                ("?", "\uff1f"))
            and (_cjk_prose(sentence) or looks_like_prose(sentence.replace("`", ""))))


def word_count(sentence: str) -> int:
    """Words of ``sentence``: split at spaces; in CJK text, which has none, its
    characters counted :data:`_CJK_CHARS_PER_WORD` to a word."""
    if not has_cjk(sentence):
        return len(sentence.split())
    cjk = sum(len(run) for run in CJK_RUN.findall(sentence))
    rest = CJK_RUN.sub(" ", sentence).split()
    return len(rest) + cjk // _CJK_CHARS_PER_WORD


def _cjk_prose(sentence: str) -> bool:
    """A CJK sentence, not code: mostly CJK characters (a name or number in Latin script
    counted as one) and no code marks. A space-less line is one "word", so
    :func:`looks_like_prose`'s share of plain words cannot tell. (Text with a few CJK
    characters, "The word 自然 means nature.", is judged by its words.)"""
    if not has_cjk(sentence):
        return False
    cjk = sum(len(run) for run in CJK_RUN.findall(sentence))
    others = len(CJK_RUN.sub(" ", sentence).split())
    return cjk >= others and _CODE_MARK.search(sentence) is None


#: Openers that point back to the sentence before: a pronoun, or a demonstrative
#: ("This hypothesis", "Such claims").
_POINTERS = frozenset({"he", "she", "it", "they", "his", "her", "its", "their", "this",
                       "these", "those", "such", "both"})
_OPENING = re.compile(r"[^\W\d_]+")
#: The same openers in Chinese and Japanese ("它由 ...", "该项目 ...", "この機能は ...").
_CJK_POINTER = re.compile(r"(?:它|他|她|该|此|这|其|それ|これ|この|その|同|彼)")


def opens_with_pointer(sentence: str) -> bool:
    """Whether ``sentence`` opens with a pronoun or demonstrative ("He ...", "This
    hypothesis ...", "它 ..."): quoted alone, it does not say who or what it is about."""
    if _CJK_POINTER.match(sentence.lstrip()):
        return True
    words = _OPENING.findall(sentence[:40])
    return bool(words) and words[0].lower() in _POINTERS


def refers_back(sentence: str, before: Sequence[str]) -> bool:
    """Whether ``sentence`` opens by pointing back to the sentence before it (whose
    terms are ``before``): a pronoun or demonstrative ("It is ...", "This hypothesis
    ..."), or "The" with a noun the sentence before says ("The wars finally ended ..."
    after "the French Wars of Religion")."""
    words = _OPENING.findall(sentence[:80])
    if not words or not before:
        return False
    if opens_with_pointer(sentence):
        return True
    noun = terms_of(words[1]) if len(words) > 1 else []  # none for a word in CJK
    return (words[0].lower() == "the" and bool(noun) and words[1].lower() not in STOPWORDS
            and noun[0] in before)


def candidate_sentences(sources: Sequence[Source]) -> list[Sentence]:
    """Every usable prose sentence of ``sources``, in source order, each with the terms
    of the sentence it points back to (:func:`refers_back`) as its ``context``."""
    found: list[Sentence] = []
    for rank, source in enumerate(sources):
        position = 0
        # Chinese and Japanese drop a subject the reader knows: "2021年に田中健一によって
        # 公開されました" in a page on ハヤブサ is about ハヤブサ. A CJK sentence that
        # points back to no sentence points back to its source's title, as "It ..."
        # points back (its own words count more; the title's only where it lacks them).
        title = terms_of(source.title) if has_cjk(source.title) else []
        for passage in _passages(source.text):
            before: list[str] = []
            for raw in split_sentences(passage):  # abbreviations and quotes kept whole
                sentence = _TRAILING_FOOTNOTES.sub("", raw.strip())
                terms = terms_of(sentence)
                if _usable(sentence):
                    context = before if refers_back(sentence, before) else []
                    if not context and title and has_cjk(sentence):
                        context = title
                    found.append(Sentence(source, rank, position, sentence, terms,
                                          context=context))
                    position += 1
                before = terms
    return found


