"""A report's outline built from what the question asks and what the evidence says.

Small models cannot write an outline, and the headings of the passages found are no
outline either: they name the documents' sections ("args* (Python 3)"), not what the
reader asked. This module builds the outline without a model, the same way every time:

1. **Facets of the question.** What it asks decides the first parts: a how-to question
   ("How do I read a CSV file?") gets "How to read a CSV file", a why question its
   reasons, a what-is question its definition, a comparison of X and Y a part on each
   and one on how they differ; any other question is its own first part. Titles are the
   question's own words, never a document's heading.
2. **Facets of the evidence.** Terms that several of the passages found share (a pair
   of words first, "field names", then single words) become parts of their own; parts
   for examples and for limitations exist only when a passage speaks of them ("for
   example", "cannot", "deprecated").
3. **Passages.** Each passage goes to the one facet it matches best (the question's
   words, the facet's term or cue); a passage that shares nothing with the question is
   given to no part. A facet left with no passage is no part: a report never prints an
   empty "Limitations".

Everything is ordered by the passages' order and the facets' fixed order (no set or
time order), so the same request over the same sources gives the same outline. English
question patterns give the templated titles; other questions (Chinese, Japanese, ...)
get parts titled with their own words and with the evidence's shared terms, never an
English template around them; their examples, limitations and comparison parts take
their titles from :mod:`deepcite.text.frames` in the question's language.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deepcite.citations.candidates import candidate_sentences
from deepcite.text.cjk import CJK_RUN, has_cjk, run_pairs
from deepcite.text.frames import frame
from deepcite.text.language import detect
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD
from deepcite.types import OutlineEntry, Source

#: Longest title kept from the question's words (longer ones are cut at a word).
MAX_TITLE_WORDS = 12
#: Most parts made from terms the evidence shares.
MAX_TERM_PARTS = 2

#: "How do I ...", "how to ...": asks for steps, titled "How to ...".
_HOW = re.compile(r"^\s*how\s+(?:(?:do|does|did|can|could|should|would|might|may)\s+"
                  r"(?:i|we|you|one)\s+|to\s+)(?P<rest>.+)$", re.IGNORECASE)
#: "How do programs ...", "how are files ...": how something works, titled with the
#: question's words ("How programs ...", "How are files ...").
_HOW_ELSE = re.compile(r"^\s*how\s+(?:(?:do|does|did)\s+)?(?P<rest>.+)$", re.IGNORECASE)
#: Most passages the first part keeps when other parts can take the rest.
MAIN_PASSAGES = 3
_WHY = re.compile(r"^\s*why\s+(?P<rest>.+)$", re.IGNORECASE)
_WHAT = re.compile(r"^\s*what\s+(?P<aux>is|are|was|were)\s+(?P<rest>.+)$", re.IGNORECASE)
_COMPARE = (
    re.compile(r"\bdifferences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$", re.IGNORECASE),
    re.compile(r"^\s*compare\s+(?P<a>.+?)\s+(?:and|with|to)\s+(?P<b>.+)$", re.IGNORECASE),
    re.compile(r"^(?:.*?\b(?:is|use|choose)\s+)?(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+)$",
               re.IGNORECASE),
    re.compile(r"\bshould\s+(?:i|we|you)\s+use\s+(?P<a>.+?)\s+or\s+(?P<b>.+)$",
               re.IGNORECASE),
    re.compile(r"(?P<a>[^\s，,]+?)(?:和|与|跟)(?P<b>[^\s，,]+?)的?(?:区别|差别|不同)"),
)
_HOW_CJK = re.compile(r"如何|怎么|怎样|どうやって|どのように|方法")
_WHY_CJK = re.compile(r"为什么|為什麼|为何|なぜ|どうして")
_WHAT_CJK = re.compile(r"什么是|是什么|とは|って何")
#: Words that mark a question as English (its titles may then use English templates).
_ENGLISH_WORDS = ("how why what which who when where is are do does can should the a an of "
                  "to in for and or i my")
_ENGLISH = frozenset(_ENGLISH_WORDS.split())

#: Evidence cues: a passage speaks of examples, of limits, of reasons, or defines.
_EXAMPLE = re.compile(r">>>|\bfor (?:example|instance)\b|\be\.g\.|\bexamples?\b|"
                      r"例如|比如|例子|示例|例えば|たとえば|の例", re.IGNORECASE)
_LIMIT = re.compile(r"\b(?:cannot|can't|can not|not supported|unsupported|limit(?:s|ed|"
                    r"ation|ations)?|warning|caution|beware|deprecated|drawbacks?|"
                    r"downsides?|risks?|must not|should not|unsafe|insecure|pitfalls?|"
                    r"fails?)\b|不能|无法|不支持|限制|注意|警告|避免|ただし|できない|できません|制限|"
                    r"非推奨", re.IGNORECASE)
_REASON = re.compile(r"\b(?:because|since|so that|in order to|reasons?|therefore|due to|"
                     r"allows?|lets|avoids?|prevents?)\b|因为|由于|所以|ため", re.IGNORECASE)
_DEFINES = re.compile(r"\b(?:is an?|is the|are|refers to|means)\b|是|とは", re.IGNORECASE)
#: Words too common in documentation to name a part.
_GENERIC_WORDS = """example examples following section chapter page note notes see
also used using use uses default value values function functions method methods module
modules object objects argument arguments return returns returned true false none name
names type types class classes file files string strings data number list item items
way ways case cases thing things new first second one two"""
_GENERIC = frozenset(_GENERIC_WORDS.split())


@dataclass(frozen=True)
class Facet:
    """One part the outline may have: its title, the question its part answers (its
    purpose, which also ranks its sentences), and what a passage must hold to be its."""

    kind: str
    title: str
    purpose: str
    #: The stemmed terms the part is about (the question's, a side's, a shared term).
    terms: frozenset[str] = frozenset()
    cue: re.Pattern[str] | None = None
    #: A passage must hold the cue to be this facet's (examples, limitations).
    needs_cue: bool = False
    #: A passage must hold every term group (a comparison: both sides).
    needs_all: tuple[frozenset[str], ...] = ()
    #: How much a match counts against the other facets'.
    weight: float = 1.0


@dataclass
class FacetOutline:
    """The outline and, for each of its entries (by index), the passages it is given."""

    entries: list[OutlineEntry] = field(default_factory=list)
    passages: dict[int, list[Source]] = field(default_factory=dict)
    #: What the sentences of a part must hold (examples, limitations), by entry index.
    cues: dict[int, re.Pattern[str]] = field(default_factory=dict)


def terms(text: str) -> set[str]:
    """The stemmed content words of ``text``, and the character pairs of its CJK runs."""
    found = {term(w) for w in (m.group(0).lower() for m in WORD.finditer(text))
             if len(w) >= 3 and w not in STOPWORDS}
    for run in CJK_RUN.findall(text):
        found.update(run_pairs(run))
    return found


def question_facets(question: str) -> list[Facet]:
    """The parts ``question`` itself asks for, its main one first."""
    text = " ".join(question.split()).rstrip("?？!！.。 ")
    asked = frozenset(terms(text))
    for pattern in _COMPARE:
        if (m := pattern.search(text)) is not None:
            a, b = _phrase(m.group("a")), _phrase(m.group("b"))
            ta, tb = frozenset(terms(a)), frozenset(terms(b))
            if a and b and ta and tb and ta != tb:
                english = _is_english(text)
                return [
                    Facet("side", _title(a, capitalise=False),
                          f"What is {a}?" if english else a, ta, _DEFINES, weight=1.2),
                    Facet("side", _title(b, capitalise=False),
                          f"What is {b}?" if english else b, tb, _DEFINES, weight=1.2),
                    Facet("comparison",
                          _title(frame("part_comparison", detect(text)).format(a=a, b=b)),
                          f"How does {a} differ from {b}?" if english else question,
                          asked, needs_all=(ta, tb), weight=1.6),
                ]
    if (m := _HOW.match(text)) is not None:
        return [Facet("steps", _title(f"How to {_phrase(m.group('rest'))}"), question,
                      asked, weight=1.5)]
    if (m := _HOW_ELSE.match(text)) is not None:
        return [Facet("how", _title(f"How {_phrase(m.group('rest'))}"), question, asked,
                      weight=1.5)]
    if (m := _WHY.match(text)) is not None:
        return [Facet("reasons", _title(f"Why {_phrase(m.group('rest'))}"), question, asked,
                      _REASON, weight=1.5)]
    if (m := _WHAT.match(text)) is not None:
        rest, aux = _phrase(m.group("rest")), m.group("aux").lower()
        return [Facet("definition", _title(f"What {rest} {aux}"), question, asked, _DEFINES,
                      weight=1.5)]
    kind = ("steps" if _HOW_CJK.search(text) else "reasons" if _WHY_CJK.search(text)
            else "definition" if _WHAT_CJK.search(text) else "answer")
    cue = {"reasons": _REASON, "definition": _DEFINES}.get(kind)
    return [Facet(kind, _title(text), question, asked, cue, weight=1.5)]


def evidence_facets(question: str, main: Sequence[Facet], sources: Sequence[Source], *,
                    slots: int) -> list[Facet]:
    """The parts the evidence adds: terms several passages share (at most ``slots`` in
    all, :data:`MAX_TERM_PARTS` of them), then examples and limitations when a passage
    speaks of them."""
    text = " ".join(question.split()).rstrip("?？!！.。 ")
    english = _is_english(text) and not has_cjk(text)
    subject = _subject(text, main)
    action = subject[len("how to "):] if subject.startswith("how to ") else ""
    added: list[Facet] = []
    taken = set().union(*(f.terms for f in main)) if main else set()
    for surface, stems in shared_terms(sources, exclude=taken)[:min(MAX_TERM_PARTS, slots)]:
        purpose = (f"What about {surface} when you {action}?" if action else
                   f"What about {surface} in {subject}?" if english and subject
                   else f"{text}: {surface}")
        added.append(Facet("term", _title(surface), purpose, frozenset(stems), weight=0.8))
    if not english:  # the question's own words, and part titles in its language
        return (added + _cue_facets(text, sources, detect(text)))[:slots]
    if any(_EXAMPLE.search(s.text) for s in sources):
        added.append(Facet(
            "examples", _title(f"Examples of {subject}" if subject else "Examples"),
            f"What is an example of {subject}?" if subject else f"{text}: an example",
            frozenset(), _EXAMPLE, needs_cue=True))
    if any(_LIMIT.search(s.text) for s in sources):
        title = (f"Caveats when you {action}" if action else
                 f"Limitations of {subject}" if subject else "Limitations and caveats")
        # the words a warning uses, so that its sentence ranks for the part
        purpose = (f"What fails or is not supported when you {action}?" if action else
                   f"What are the limitations of {subject}, what fails or is not "
                   "supported?" if subject else f"{text}: limitations, what fails or is "
                   "not supported")
        added.append(Facet("limitations", _title(title), purpose, frozenset(), _LIMIT,
                           needs_cue=True))
    return added[:slots]


def _cue_facets(text: str, sources: Sequence[Source], language: str) -> list[Facet]:
    """Examples and limitations parts for a question not in English, titled from
    :mod:`deepcite.text.frames` in ``language`` (no English template around its words),
    each only when a passage speaks of it; the question itself ranks their sentences."""
    added: list[Facet] = []
    if any(_EXAMPLE.search(s.text) for s in sources):
        added.append(Facet("examples", frame("part_examples", language), text, frozenset(),
                           _EXAMPLE, needs_cue=True))
    if any(_LIMIT.search(s.text) for s in sources):
        added.append(Facet("limitations", frame("part_limitations", language), text,
                           frozenset(), _LIMIT, needs_cue=True))
    return added


def shared_terms(sources: Sequence[Source], *, exclude: set[str] | frozenset[str] = frozenset()
                 ) -> list[tuple[str, set[str]]]:
    """Terms at least two of ``sources`` hold, as (how the text writes it, its stems):
    pairs of adjacent content words first, then single words, each kind by how many
    passages hold it, ties in order of first appearance. Terms of ``exclude`` (the
    question's), generic documentation words and anything with digits or underscores
    are left out, and so are headings and other lines that are no prose (a manual's
    "FILE csv.py (in the Python standard library)" is on every page of it); a word
    inside a pair already listed is not listed again."""
    counts: dict[tuple[str, ...], int] = {}
    first: dict[tuple[str, ...], tuple[int, str]] = {}
    order = 0
    for source in sources:
        seen: set[tuple[str, ...]] = set()
        prose = " ".join(s.text for s in candidate_sentences([source]))  # no headings
        words = [(m.group(0), term(m.group(0).lower())) for m in WORD.finditer(prose)]
        for index, (word, stem) in enumerate(words):
            keys: list[tuple[tuple[str, ...], str]] = []
            if _content(word, stem, exclude):
                keys.append(((stem,), word))
            if index + 1 < len(words):
                after, after_stem = words[index + 1]
                if (_content(word, stem, exclude, pair=True)
                        and _content(after, after_stem, exclude, pair=True)
                        and not {word.lower(), after.lower()} <= _GENERIC):
                    keys.append(((stem, after_stem), f"{word} {after}"))
            for key, surface in keys:
                if key not in first:
                    first[key] = (order, surface)
                    order += 1
                if key not in seen:
                    seen.add(key)
                    counts[key] = counts.get(key, 0) + 1
    ranked = sorted((key for key, count in counts.items() if count >= 2),
                    key=lambda k: (-len(k), -counts[k], first[k][0]))
    chosen: list[tuple[str, set[str]]] = []
    for key in ranked:
        if any(set(key) <= stems for _, stems in chosen):
            continue
        chosen.append((first[key][1], set(key)))
    return chosen


def assign(facets: Sequence[Facet], sources: Sequence[Source]) -> list[list[Source]]:
    """The passages of each facet: every passage goes to the facet it matches best (ties
    to the earlier facet), none to two. A passage sharing no word with the question
    (the terms of the first facets) goes nowhere, unless no passage shares one."""
    asked = frozenset().union(*(f.terms for f in facets if f.kind not in ("term",)))
    held = [terms(s.text) for s in sources]
    relevant = [bool(asked & h) for h in held]
    if not any(relevant):
        relevant = [True] * len(sources)
    given: list[list[tuple[float, Source, list[float]]]] = [[] for _ in facets]
    for source, have, ok in zip(sources, held, relevant, strict=True):
        if not ok:
            continue
        share = len(asked & have) / len(asked) if asked else 0.0
        scores = [_score(f, source.text, have, share) for f in facets]
        best = max(range(len(facets)), key=lambda i: (scores[i], -i), default=-1)
        if best >= 0 and scores[best] > 0:
            given[best].append((scores[best], source, scores))
    if given and len(given[0]) > MAIN_PASSAGES:  # the rest to the next best other facet
        ranked = sorted(given[0], key=lambda g: -g[0])  # stable: search order on ties
        given[0] = ranked[:MAIN_PASSAGES]
        for score, source, scores in ranked[MAIN_PASSAGES:]:
            other = max(range(1, len(facets)), key=lambda i: (scores[i], -i), default=0)
            given[other if other and scores[other] > 0 else 0].append((score, source, scores))
        order = {id(s): n for n, s in enumerate(sources)}
        given[0].sort(key=lambda g: order[id(g[1])])
    return [[source for _, source, _ in passages] for passages in given]


def facet_outline(question: str, sources: Sequence[Source], *, max_sections: int = 5
                  ) -> FacetOutline:
    """The outline for ``question`` from the facets it asks and the ``sources`` found
    (best first), each entry with its own passages; facets left without passages are
    not in it. Empty when no passage fits any facet."""
    limit = max(1, max_sections)
    sources = on_subject(question, sources)
    main = question_facets(question)[:limit]
    facets = [*main, *evidence_facets(question, main, sources, slots=limit - len(main))]
    outline = FacetOutline()
    seen: set[str] = set()
    for facet, passages in zip(facets, assign(facets, sources), strict=True):
        if not passages or facet.title.casefold() in seen:
            continue
        seen.add(facet.title.casefold())
        outline.passages[len(outline.entries)] = passages
        if facet.needs_cue and facet.cue is not None:
            outline.cues[len(outline.entries)] = facet.cue
        outline.entries.append(OutlineEntry(title=facet.title, purpose=facet.purpose))
    return outline


def on_subject(question: str, sources: Sequence[Source]) -> list[Source]:
    """``sources`` less those from documents off the question's subject: when at least
    half of them come from documents whose title holds a word of the question (the
    "csv" manual for a question on CSV files), a passage of another document (the
    logging manual's "sub-areas 'read CSV files'") matches only by its words, and is
    left to the Summary. Otherwise all are kept (titles say nothing: web pages, FAQs)."""
    asked = terms(question)
    titled = [bool(asked & terms(str(s.metadata.get("document_title") or s.title)))
              for s in sources]
    if not sources or sum(titled) * 2 < len(sources):
        return list(sources)
    return [s for s, on in zip(sources, titled, strict=True) if on]


def _score(facet: Facet, text: str, have: set[str], asked_share: float) -> float:
    """How well a passage (``text``, its terms ``have``, ``asked_share`` of the
    question's terms) fits ``facet``: 0 when it cannot be its."""
    cued = facet.cue is not None and facet.cue.search(text) is not None
    if facet.needs_cue and not cued:
        return 0.0
    if any(not (group & have) for group in facet.needs_all):
        return 0.0
    share = len(facet.terms & have) / len(facet.terms) if facet.terms else 0.0
    if facet.kind == "term":
        return facet.weight * (0.5 + 0.5 * asked_share) if facet.terms <= have else 0.0
    if facet.needs_cue:  # the cue is what the facet is: it outranks the question's words
        return facet.weight + asked_share
    if facet.needs_all:  # holds both sides: the comparison, before either side
        return facet.weight + 0.5 * share
    if share == 0:
        return 0.0
    return facet.weight * share + (0.2 if cued else 0.0)


def _content(word: str, stem: str, exclude: set[str] | frozenset[str], *,
             pair: bool = False) -> bool:
    """Whether ``word`` may name a part: a word of letters, no stopword nor one of the
    question's; a generic documentation word only inside a pair ("field names")."""
    lower = word.lower()
    return (len(word) >= 4 and word.isalpha() and lower not in STOPWORDS
            and (pair or lower not in _GENERIC) and stem not in exclude)


def _phrase(text: str) -> str:
    """Words of the question as a phrase: whitespace and end marks off."""
    return " ".join(text.split()).strip(" ,;:?？!！.。\"'")


def _title(text: str, *, capitalise: bool = True) -> str:
    """A title from words: markup characters off, cut at a word past
    :data:`MAX_TITLE_WORDS`, first letter up (not for a name as the question wrote it,
    "argparse")."""
    cleaned = " ".join(re.sub(r"[`*#<>\[\]{}|]+", " ", text).split())
    words = cleaned.split()
    if len(words) > MAX_TITLE_WORDS:
        cleaned = " ".join(words[:MAX_TITLE_WORDS])
    if not capitalise or not cleaned:
        return cleaned or text
    return cleaned[:1].upper() + cleaned[1:]


def _subject(text: str, main: Sequence[Facet]) -> str:
    """What the question is about, for titles and purposes of the evidence's parts:
    "how to read a CSV file", "a zebra cache", "X and Y"; empty for other questions."""
    if not main or not _is_english(text):
        return ""
    first = main[0]
    if first.kind == "steps" and (m := _HOW.match(text)) is not None:
        return f"how to {_phrase(m.group('rest'))}"
    if first.kind == "definition" and (m := _WHAT.match(text)) is not None:
        return _phrase(m.group("rest"))
    if first.kind == "side" and len(main) >= 2:
        return f"{main[0].title} and {main[1].title}"
    return ""


def _is_english(text: str) -> bool:
    words = [w.lower() for w in WORD.findall(text)]
    return bool(words) and any(w in _ENGLISH for w in words) and not has_cjk(text)
