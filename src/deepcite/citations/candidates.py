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
(:func:`deepcite.citations.sentence_ranking.rank_sentences`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deepcite.citations.attribution import looks_like_prose
from deepcite.citations.question_match import terms_of
from deepcite.citations.table_cells import row_cells
from deepcite.text.cjk import CJK_RUN, has_cjk
from deepcite.text.sentences import split_sentences
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.tables import markdown_cells
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
#: A page's NAME line, "name - what it is" (pydoc's "heapq - Heap queue algorithm
#: (a.k.a. priority queue).", a man page's "ls - list directory contents").
_NAME_LINE = re.compile(r"^\s*[A-Za-z_][\w.]*\s+(?:-|—|–)\s+\S")
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
    #: The terms of the heading or signature the sentence is under (see
    #: :func:`heading_line`): what a section is about, said once for all its sentences.
    heading: list[str] = field(default_factory=list)
    #: The code example the source shows with this sentence (verbatim lines, see
    #: :func:`_passages`), empty without one.
    example: str = ""
    #: The call signature the sentence describes, as the source writes it (pydoc's
    #: ``listdir(path=None)`` above "Return a list containing the names of the files
    #: in the directory."), empty when its heading is none: it names the API a how-to
    #: answer is about when the sentence does not.
    signature: str = ""
    #: The passage (paragraph, list item) of its source the sentence is in, counted from
    #: 0; -1 when unknown. Sentences of one passage make one point together.
    passage: int = -1
    #: The header cells of the table the sentence is a row of ("项目", "S1", "S3"), as
    #: the source writes them; empty for prose and for a table without a header.
    columns: tuple[str, ...] = ()
    #: Whether it is its page's NAME line restating the title (:func:`restates_title`):
    #: "heapq - Heap queue algorithm (a.k.a. priority queue)." It says what the page's
    #: subject is, and nothing asked of it.
    name_line: bool = False

    @property
    def about(self) -> list[str]:
        """What the sentence is about: its own terms, those of the sentence it points
        back to and those of the heading it is under."""
        if not (self.context or self.heading):
            return self.terms
        return self.terms + self.context + self.heading


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


#: Sentence-ending punctuation, Latin and CJK: a line ending so closes its sentence.
_CLOSES = ".!?;:。！？；：\"'\u201d\u2019)]"
#: Words a wrapped line of prose may end on, never a heading.
_DANGLING = frozenset({"a", "an", "the", "of", "and", "or", "to", "in", "for", "with", "by",
                       "on", "at", "from", "as", "is", "are", "that", "which", "be", "not"})
_SIGNATURE = re.compile(r"^[\w.]+\s*\(.*\)\s*(?:->\s*\S+)?$")  # csv.reader(csvfile, ...)
_CODE_LINE = re.compile(r"^(?:>>>|\.\.\.(?:\s|$)|\$\s|```|~~~)")
#: Navigation trails ("Home > Guide > Install", "Docs » API"): separators between
#: short segments.
_NAV = re.compile(r"^(?:[^>»|/]{1,40}\s(?:>|»|›|/|\|)\s){2,}[^>»|/]{1,40}$")
#: An admonition's label run into its text ("Note The manager works by ..."): the
#: label is not part of the sentence.
_LABEL = re.compile(r"^(?:Note|Notes|Warning|Tip|Hint|Important|Caution|Attention|Danger"
                    r"|See also|Example|Examples)\s+(?=[A-Z])")
_PILCROW = "\u00b6"  # Sphinx's permalink sign after every heading ("Module Contents¶")


def heading_line(line: str, previous: str = "", following: str = "") -> bool:
    """Whether ``line`` is a heading, label or navigation trail rather than prose.

    Text extracted from HTML often loses the markup that said so: a Sphinx heading
    keeps only its permalink sign ("Module Contents¶"), an admonition its label
    ("Note", "See also") on a line of its own, a page its breadcrumb trail. Joined to
    the prose that follows, they were quoted as part of a sentence ("csv - CSV parsing
    and writing [1]"). A heading here is a line that ends in the permalink sign, a
    navigation trail, a bare call signature, or a short line (eight words at most)
    without closing punctuation that follows a finished sentence (not a wrapped line of
    one) and is followed by a line that starts a new one.
    """
    text = line.strip()
    if not text:
        return False
    if text.endswith(_PILCROW) or _NAV.match(text) or _SIGNATURE.match(text):
        return True
    words = text.split()
    if len(words) > 8 or len(text) > 70 or text[-1] in _CLOSES + ",":
        return False
    if words[-1].lower() in _DANGLING:
        return False
    before = previous.strip()
    if before and before[-1] not in _CLOSES and not before.endswith(_PILCROW):
        return False  # the end of a wrapped line of prose
    after = _LIST_ITEM.sub("", following.strip())
    return not after or not after[0].islower()


def code_line(line: str) -> bool:
    """Whether ``line`` is a line of code shown in running text: an interpreter prompt
    (``>>>``, ``...``), a shell prompt or a fence."""
    return _CODE_LINE.match(line.strip()) is not None


@dataclass
class _Passage:
    """A run of prose lines as one line, with the code example shown with it."""

    text: str
    #: The heading, label or call signature the run is under ("reader(...)",
    #: "Reading files"), empty when none came before it in the source.
    heading: str = ""
    #: Code lines shown right before the run (pydoc: a signature's example above its
    #: description) or right after it when it ends by introducing them ("... like
    #: this:"), verbatim; empty without one.
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    #: A row of a Markdown table ("尘盒容量 | 400毫升"): a fact of its own, quoted whole.
    row: bool = False
    #: The header cells of the table the row is in (see :attr:`Sentence.columns`).
    columns: tuple[str, ...] = ()


#: A Markdown table row: ``| cell | cell |``, two cells or more.
_TABLE_ROW = re.compile(r"^\s*\|(?:[^|\n]*\|){2,}\s*$")


def table_row(line: str) -> str | None:
    """The cells of a Markdown table row as the source writes them, without its outer
    bars ("| 尘盒容量 | 400毫升 |" -> "尘盒容量 | 400毫升"); ``None`` for any other line,
    a border ("|---|---|") or a row with fewer than two cells that say something.

    A specification table states one fact a row - a weight, a capacity, a default -
    and a question about it is answered by that row, not by the prose around it."""
    if not _TABLE_ROW.match(line) or _RULE.match(line):
        return None
    cells = markdown_cells(line)
    if sum(1 for cell in cells if re.search(r"\w", cell)) < 2:
        return None
    return " ".join(line.strip().strip("|").split())


#: What a line of code has and a list of names does not: an operator, a call, a bracket
#: or a statement keyword.
_CODE_SYNTAX = re.compile(r"[=(){}\[\]]|^(?:import|from|def|class|for|if|while|return"
                          r"|with|try|print)\b")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _code_start(line: str, previous: str, signature: bool) -> bool:
    """Whether ``line`` opens an indented code example: deeper than the line before,
    which introduced it (ends in ``:``) or was a call signature, and not prose."""
    deeper = _indent(line) > _indent(previous) if previous else _indent(line) > 0
    introduced = signature or previous.rstrip().endswith(":")
    text = line.strip()
    # a code span in prose (``s``) is prose's, as :func:`_usable` reads it
    return (deeper and introduced and not looks_like_prose(line.replace("`", ""))
            and _CODE_SYNTAX.search(text) is not None
            and not (text.endswith(".") and not text.endswith("...")))


def _cut_code(line: str) -> bool:
    """Whether ``line``, before any prose of a piece cut from a document, is code whose
    opening was cut off: it has code syntax and is not prose, or opens on a bracket or an
    operator no sentence opens with (``[optional keyword args])``, ``= reader(...``)."""
    text = line.strip()
    if not text or _CODE_SYNTAX.search(text) is None or (
            text.endswith(".") and not text.endswith("...")):
        return False
    # a code span in prose (``s``) is prose's, as :func:`_usable` reads it
    return not looks_like_prose(line.replace("`", "")) or text[0] in "=[](){}"


class _Splitter:
    """Splits a source's text into :class:`_Passage` runs (see :func:`_passages`).

    It keeps what one line needs of those before it: the prose run being built, the code
    lines being collected, the code not yet given to a run, the heading in force and
    whether a fence is open.
    """

    def __init__(self, cut: bool = False) -> None:
        self.passages: list[_Passage] = []
        #: The text is a piece cut from a longer document (a collection's chunk) and no
        #: prose has come yet: it may open inside a code example whose introducing line
        #: was cut off (``= reader(iterable [, dialect='excel']``), see :meth:`block`.
        self.opening = cut
        self.run: list[str] = []
        self.code: list[str] = []
        self.pending: list[str] = []  # code not yet given to a run
        self.heading = ""
        self.fenced = False
        #: The header cells of the table being read: the row above its border.
        self.columns: tuple[str, ...] = ()

    def close(self) -> None:
        """End the prose run and the code block being built, if any."""
        if self.run:
            self.passages.append(_Passage(" ".join(" ".join(self.run).split()),
                                          heading=self.heading, before=self.pending.copy()))
            self.pending.clear()
            self.run = []
        if self.code:
            last = self.passages[-1] if self.passages else None
            if last is not None and not last.after and last.text.endswith(":"):
                last.after = self.code
            else:
                self.pending = self.code
            self.code = []

    def block(self, lines: list[str]) -> None:
        """Take one block of lines (the text between blank lines)."""
        previous = ""
        signature = False
        self.columns = ()  # a table is one block
        for index, line in enumerate(lines):
            if _FENCE.match(line):
                self.close()
                self.fenced = not self.fenced
                continue
            if self.fenced or code_line(line) or (
                    self.code and _indent(line) >= _indent(self.code[0]) and line.strip()
            ) or _code_start(line, previous, signature) or (
                    self.opening and _cut_code(line)):
                if not self.code:
                    self.close()
                self.code.append(line.rstrip())
                continue
            if self.code:
                self.close()
            stripped = _LIST_ITEM.sub("", line.strip())
            row = table_row(line) if stripped == line.strip() else _fact_item(line, stripped)
            if row is not None:
                self.close()
                columns = self.columns if stripped == line.strip() else ()
                self.passages.append(_Passage(row, heading=self.heading, row=True,
                                              columns=columns))
                continue
            if stripped.startswith("|") and _RULE.match(line):
                self.close()  # a table's border: no heading, the table's stays in force
                if index and table_row(lines[index - 1]) and self.passages[-1].row:
                    # the row above the border is the header: labels, no fact to quote
                    self.columns = row_cells(self.passages.pop().text)
                continue
            if _UNDERLINE.match(line):
                if self.run:
                    self.run.pop()  # the title of a setext heading
                continue
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if (_RULE.match(line) or stripped.startswith(("#", "|"))
                    or _CAPS_HEADING.match(stripped)
                    or heading_line(line, previous, following)):
                self.close()
                self.opening = False
                self.pending.clear()  # an example does not cross a heading
                self.heading = stripped.lstrip("#").strip().removesuffix(_PILCROW)
                signature = _SIGNATURE.match(line.strip()) is not None
                previous = line if signature else ""
                continue
            labelled = _LABEL.match(stripped)
            if labelled:
                stripped = stripped[labelled.end():]
            if self.run and (labelled or _LIST_ITEM.match(line.strip()) or (
                    _indent(line) > _indent(previous)
                    and previous.rstrip()[-1:] in (")", ":"))):
                self.close()
            self.run.append(stripped.removesuffix(_PILCROW))
            self.opening = False
            previous = line
            signature = False
        self.close()


def _passages(text: str, cut: bool = False) -> list[_Passage]:
    """Runs of prose lines of ``text``, each as one line, with their code examples.

    Documentation is not all prose: headings (Markdown ``#``, setext underlines, pydoc's
    capitalised NAME/FUNCTIONS, and those :func:`heading_line` recognises in extracted
    HTML), table borders and navigation trails are dropped, a list item starts a run of
    its own, and a line indented deeper than one ending in ``)`` or ``:`` starts a new
    run (pydoc's ``check_output(*popenargs)`` above its description), so no sentence
    begins with a signature or a heading. Code - fenced blocks, interpreter sessions,
    a block indented under the line that introduces it - is kept apart, verbatim, with
    the run it illustrates: a how-to question is often answered by an example.

    With ``cut`` (``text`` is a chunk cut from a longer document) code lines before its
    first prose are code even though the line that introduced them was cut off: search
    often returns the chunk that starts inside a signature's example, and that example
    is what a how-to question asks for.
    """
    splitter = _Splitter(cut)
    for block in re.split(r"\n[ \t]*\n", text):
        splitter.block([_GUTTER.sub(r"\1", line) for line in block.splitlines()])  # " |  "
    return splitter.passages


def _fact_item(line: str, item: str) -> str | None:
    """The text of a CJK list item that states a fact without a full stop
    ("- 100英寸：约2.66米", "- 日除湿量：20升/天"), as a table row states one; ``None``
    for any other line. Chinese and Japanese specification lists leave the full stop
    off, and such an item was no sentence at all, so the value it gives could not be
    quoted. An item ending like a sentence is prose, split as usual."""
    if item == line.strip() or not has_cjk(item) or _ENDS_SENTENCE.search(item):
        return None
    return item


def _usable(sentence: str) -> bool:
    """A sentence worth quoting: prose of sensible length, ending like a statement (a
    question the source asks, "What is the average speed?", answers nothing)."""
    words = word_count(sentence)
    return (MIN_WORDS <= words <= _MAX_WORDS and len(sentence) <= _MAX_SENTENCE_CHARS
            and _ENDS_SENTENCE.search(sentence) is not None
            and not sentence.rstrip("\"'\u201d\u2019)]\u300d\u300f\uff09 ").endswith(
                ("?", "\uff1f"))
            and (_cjk_prose(sentence) or looks_like_prose(sentence.replace("`", ""))))


def _unclosed_last(pieces: Sequence[str], index: int) -> bool:
    """Whether ``pieces[index]`` is the last sentence of a passage of several, written
    without closing punctuation: "Took tweezers to get it out lol" after "Last year I
    found a tiny bit of glass stuck in mine." Forum posts and comments often end so; the
    sentences before it show the passage is prose, not a heading or a label, so it is
    judged as a sentence (a lone line without a full stop still is not)."""
    return (index == len(pieces) - 1 and index > 0
            and _ENDS_SENTENCE.search(pieces[index].strip()) is None
            and _ENDS_SENTENCE.search(pieces[index - 1].strip()) is not None)


def _usable_row(row: str) -> bool:
    """A table row worth quoting: a short fact, not a row of code or of one word."""
    return (2 <= word_count(row) <= _MAX_WORDS and len(row) <= _MAX_SENTENCE_CHARS
            and _CODE_MARK.search(row.replace("`", "")) is None)


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


#: At most this many words make an elliptical sentence (:func:`_elliptical`).
ELLIPTICAL_WORDS = 5


def _elliptical(sentence: str, before: Sequence[str]) -> bool:
    """Whether ``sentence`` is a short lower-case follow-on that leaves out what the
    sentence before said: "i've had like 6 flats since. always the back wheel." Forum
    posts write so; "always the back wheel" answers "Which wheel keeps going flat?" only
    with the flats of the sentence before, as "It ..." does with its antecedent."""
    words = sentence.split()
    return bool(before) and len(words) <= ELLIPTICAL_WORDS and words[0][:1].islower()


def _fragment(sentence: str) -> bool:
    """Whether ``sentence`` opens like the tail of a sentence: a lower-case function
    word ("has", "that", "and") or punctuation."""
    first = sentence.split(maxsplit=1)[0] if sentence.strip() else ""
    return bool(first) and (not first[0].isalnum() or (
        first[0].islower() and first.strip(",;:") in STOPWORDS))


#: At most this many lines of a code example are shown with its sentence.
EXAMPLE_LINES = 12


def _example(lines: list[str]) -> str:
    """Code lines as shown: their common indent removed, at most :data:`EXAMPLE_LINES`;
    empty when they are only call signatures."""
    kept = lines[:EXAMPLE_LINES]
    if all(_SIGNATURE.match(line.strip()) or not line.strip() for line in kept):
        return ""  # a method's signature ("abs(self)"), not an example of its use
    indent = min((_indent(line) for line in kept if line.strip()), default=0)
    return "\n".join(line[indent:] for line in kept).strip("\n")


def _cut_from_document(source: Source) -> bool:
    """Whether ``source`` is a chunk that starts inside its document (a collection's
    search hit records where: ``start``) - it may open in the middle of an example."""
    start = source.metadata.get("start")
    return isinstance(start, int) and not isinstance(start, bool) and start > 0


def restates_title(sentence: str, terms: Sequence[str], title: set[str]) -> bool:
    """Whether ``sentence`` is its page's NAME line (:data:`_NAME_LINE`) saying nothing
    its title does not: what the page's subject is. It answers "What is textwrap
    for?", and nothing else asked of the subject, though any question about the subject
    finds it close in meaning ("heapq - Heap queue algorithm" is 0.72 from "How do I add
    a timeout to heapq.heappush?")."""
    if not _NAME_LINE.match(sentence):
        return False
    words = [t for t in terms if t not in STOPWORDS]
    return bool(words) and set(words) <= title


def candidate_sentences(sources: Sequence[Source]) -> list[Sentence]:
    """Every usable prose sentence of ``sources``, in source order, each with the terms
    of the sentence it points back to (:func:`refers_back`) as its ``context``.

    A source that opens on a lower-case function word opens mid-sentence (a passage cut
    from a page): its first piece is a fragment ("has not yet been bound to a value
    ..."), not quoted; "argparse was added ..." opens with a name and is kept.
    """
    found: list[Sentence] = []
    for rank, source in enumerate(sources):
        position = 0
        # Chinese and Japanese drop a subject the reader knows: "2021年に田中健一によって
        # 公開されました" in a page on ハヤブサ is about ハヤブサ. A CJK sentence that
        # points back to no sentence points back to its source's title, as "It ..."
        # points back (its own words count more; the title's only where it lacks them).
        title_terms = terms_of(source.title)
        title = title_terms if has_cjk(source.title) else []
        titled = set(title_terms)
        found_in_source = False  # a passage cut from a page may open mid-sentence
        cut = _cut_from_document(source)
        for index, passage in enumerate(_passages(source.text, cut)):
            before: list[str] = []
            quoted: list[Sentence] = []
            pieces = [passage.text] if passage.row else split_sentences(passage.text)
            signature = passage.heading if _SIGNATURE.match(passage.heading) else ""
            for piece, raw in enumerate(pieces):  # abbreviations, quotes kept whole
                sentence = _TRAILING_FOOTNOTES.sub("", raw.strip())
                terms = terms_of(sentence)
                # "... call its extract method:" introduces the example that follows
                introduces = bool(passage.after) and sentence.endswith(":")
                judged = (sentence[:-1] + "." if introduces
                          else sentence + "." if _unclosed_last(pieces, piece)
                          else sentence)
                usable = _usable_row(sentence) if passage.row else _usable(judged)
                if usable and not (not found_in_source and _fragment(sentence)):
                    context = (before if refers_back(sentence, before)
                               or _elliptical(sentence, before) else [])
                    if not context and title and has_cjk(sentence):
                        context = title
                    quoted.append(Sentence(source, rank, position, sentence, terms,
                                           context=context,
                                           heading=terms_of(" ".join(
                                               (passage.heading, *passage.columns))),
                                           signature=signature, passage=index,
                                           columns=passage.columns,
                                           name_line=restates_title(sentence, terms,
                                                                    titled)))
                    position += 1
                found_in_source = True
                before = terms
            if quoted and passage.before:
                quoted[0].example = _example(passage.before)
            if quoted and passage.after:
                quoted[-1].example = _example(passage.after)
            found += quoted
    return found


