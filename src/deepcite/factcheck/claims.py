"""A document's checkable claims, each with its exact place in the document.

A check marks the claims of the document as written, so every claim keeps the
character offsets of its text in the original (``document[claim.start:claim.end] ==
claim.text``); front ends highlight it in place and a later version of the document is
compared claim by claim.

What is a claim: a sentence, or a clause of one cut at ``;``, of prose - paragraphs,
list items, block quotes - asserting something a source could confirm: a number, a
date, a name, or enough content words to state a fact. What is not: Markdown headings,
code blocks, tables, rules, front matter and link definitions (nothing to check, or no
prose), questions, opinions and advice ("I think", "we recommend", "should"),
greetings, and sentences about the document itself ("This note summarises ...") or
introducing a list (ending in ``:``). Sentence boundaries are :mod:`deepcite.text.
sentences`', so Chinese, Japanese and Korean text splits at ``。！？`` too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepcite.factcheck.comments import without_comment
from deepcite.text.cjk import CJK_RUN
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.sentences import sentence_spans
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD

__all__ = ["Claim", "clean_claim", "split_claims"]


@dataclass(frozen=True)
class Claim:
    """One checkable claim: ``number`` from 1 in document order, ``text`` exactly as the
    document has it at ``start``..``end``."""

    number: int
    text: str
    start: int
    end: int


_LINE = re.compile(r"[^\n]*\n?")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^[ \t]{0,3}(?:=+|-+)[ \t]*$")
_RULE = re.compile(r"^[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE = re.compile(r"^[ \t]*\|")
_LINK_DEFINITION = re.compile(r"^[ \t]{0,3}\[[^\]]+\]:[ \t]")
_TAG_LINE = re.compile(r"^[ \t]*<[^>]*>[ \t]*$")
# A line all in bold or italics with no full stop - "**Retention**", "*Pricing:*" - is
# a heading written as emphasis: it ends the paragraph before and opens none (the lines
# under it, with no blank line between, are another paragraph, not its continuation)
_EMPHASIS_HEADING = re.compile(r"^[ \t]{0,3}(\*{1,2}|_{1,2})(?=\S)[^*_\n]{1,80}(?<=[^\s.!?])"
                               r"\1[ \t]*:?[ \t]*$")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)")
# List markers, task boxes and block-quote marks a line may open with (not part of a claim).
_MARKER = re.compile(
    r"^[ \t]*(?:>[ \t]?)*(?:(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?")
_CLAUSE = re.compile(r"[;\uff1b]\s*")
# ", and it will ...", ", but they are ...": a clause of its own on the same subject
_AND_PRONOUN = re.compile(r",(?=\s+(?:and|but)\s+(?:it|they)\s+[a-z]+\b)"
                          r"\s+(?:and|but)\s+(?=(?:it|they)\b)")
# Markdown that is not words: links keep their text, images and code marks go - but an
# underscore inside a word is the word's ("catalog_path", "MAX_WORKERS": a source writes
# the name whole, so the claim must too)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*`~]+|(?<![^\W_])_+|_+(?![^\W_])|\[\d+(?:[,\s\u2013-]+\d+)*\]"
                     r"|<[^>]{1,80}>")

_OPINION = re.compile(
    r"\b(?:i|we)\s+(?:think|believe|feel|guess|suppose|hope|recommend|suggest|propose|"
    r"would|should|must|need to|want|expect)\b|\bin (?:my|our) (?:opinion|view)\b|"
    r"\b(?:let's|let us|hopefully|personally|arguably|it seems|seems to me|"
    r"would be (?:nice|great|better|good))\b|"
    r"\b(?:is|are|was|were) (?:great|awesome|amazing|terrible|wonderful|excellent|bad)\b|"
    r"^\W*(?:great|awesome|nice|well done|good job|congratulations|congrats|happy|"
    r"good luck|see you|looking forward)\b",
    re.IGNORECASE)
# Words of advice or doubt: an opinion, unless the sentence states a number ("New
# patients should arrive 15 minutes early" is a rule a source can confirm).
_HEDGE = re.compile(r"\b(?:should|ought to|perhaps|maybe|might want)\b", re.IGNORECASE)
_CJK_OPINION = re.compile(r"我认为|我觉得|我想|我们认为|应该|应当|建议|希望|と思|思う|べき|"
                          r"でしょう|생각합니다|생각해|해야|것 같")
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|dear|thanks|thank you|cheers|regards|best regards|kind regards|"
    r"best wishes|good (?:morning|afternoon|evening)|welcome|sincerely|you\s*'re welcome)\b",
    re.IGNORECASE)
# Requests and instructions to the reader state nothing a source could confirm.
_REQUEST = re.compile(
    r"^\W*(?:please|see|note that|remember|contact|click|read|let|make sure|feel free|"
    r"don't|do not forget|be sure|try|reach out|ping|join|call)\b", re.IGNORECASE)
# A reminder wraps a statement ("Note that the car park closes at 6pm", "Remember,
# cash is not accepted"): what follows it is the claim, as checkable as without it. Not
# one followed by "to" ("Remember to bring ID"): that is an instruction (:data:`_REQUEST`).
_REMINDER = re.compile(
    r"^\W*(?:please\s+)?(?:note|remember|bear in mind|keep in mind|be aware|"
    r"don't forget|do not forget|never forget)(?:\s+that\b|\s*,|\s*:)?(?!\s*to\b)\s*"
    # "The big one is that ...", "The best part is ...", "The good news is that ...":
    # the writer's weighing of what follows
    r"|^\W*the\s+(?:big|biggest|main|best|good|great|nice|other|key|important|"
    r"annoying|bad)\s+(?:one|thing|part|news|change|bit|difference)\s+(?:is|was)"
    r"(?:\s+that\b)?\s*:?\s*",
    re.IGNORECASE)
# The writer's belief a fact is so ("I think the last boat is at 22:30", "As far as I
# know, Kestrel Lane opens on Sundays"): a hedged fact a source can confirm - when what
# follows gives a value or a name; else it is an opinion ("I believe the cache is too
# small"). The lead-in is no part of what a source must say.
_BELIEF = re.compile(
    r"^\W*(?:(?:i|we)\s+(?:think|believe|guess|suppose|reckon|understand|gather)(?:\s+that)?"
    r"|(?:i'm|i am|we're|we are)\s+(?:pretty\s+|fairly\s+|quite\s+)?(?:sure|certain)"
    r"(?:\s+that)?|as\s+far\s+as\s+(?:i|we)\s+(?:know|can\s+tell)"
    r"|if\s+i\s+(?:remember|recall)(?:\s+(?:right|rightly|correctly))?)\s*,?\s+",
    re.IGNORECASE)
# A warning's lead-in before a colon ("One thing to be careful with:", "Heads up:",
# "A word of warning:", "The catch:"): the writer's, no part of what a source must say.
_HEADS_UP = re.compile(
    r"^\W*(?:(?:one|a|the|another|big|main|only)\s+(?:\w+\s+){0,2}?(?:thing|catch|caveat|"
    r"gotcha|snag|warning|word\s+of\s+(?:warning|caution))(?:\s+(?:to|worth)\s+[^:.;]{0,30})?|"
    r"heads[-\s]up|"
    r"(?:be\s+)?careful|watch\s+out|caveat|warning|important|worth\s+(?:noting|knowing))"
    r"\s*:\s*", re.IGNORECASE)
# Requests that point elsewhere ("See page 4", "Click 2 to continue"): never a claim, even
# with a number in them.
_POINTER = re.compile(r"^\W*(?:please\s+)?(?:see|read|click|tap|press|visit)\b",
                      re.IGNORECASE)
_ABOUT_ITSELF = re.compile(
    r"\b(?:this|the following|these|below|above) (?:document|draft|memo|note|notes|summary|"
    r"report|section|page|list|text|email|message|post)\b", re.IGNORECASE)
_CJK_QUESTION_END = re.compile(r"[吗呢么か까요][\s。.!！]*$")
_DIGIT = re.compile(r"\d")
# A number in figures or words: "should arrive 15 minutes early", "within five days".
# (every number word: "for at least fifteen minutes" is as checkable as "15 minutes")
_AMOUNT = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                     r"twelve|(?:thir|four|fif|six|seven|eigh|nine)teen|"
                     r"(?:twen|thir|for|fif|six|seven|eigh|nine)ty|hundred|thousand|"
                     r"million|billion|dozen)\b",
                     re.IGNORECASE)
#: A claim without a number or a name states a fact only with this many content words.
MIN_CONTENT_WORDS = 2
_ASSERTING = frozenset("""is are was were has have had does do did can cannot must will
    won't isn't aren't wasn't weren't doesn't don't didn't can't""".split())  # noqa: SIM905
#: ... or, in Chinese, Japanese or Korean, this many meaningful character pairs.
MIN_CJK_TERMS = 3


def clean_claim(text: str) -> str:
    """``text`` without Markdown marks, links' targets and citation markers: the words a
    source would have to say (and the query a claim is searched by)."""
    text = " ".join(_MARKUP.sub(" ", _LINK.sub(r"\1", text)).split())
    # "Bear in mind that ...", "Note that ...": the reminder's words are no part of
    # what a source must say (they would weigh as words of the claim)
    reminder = _REMINDER.match(text) or _HEADS_UP.match(text) or _belief(text)
    return text[reminder.end():] if reminder and reminder.end() < len(text) else text


def _prose_segments(document: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each run of prose lines: a paragraph, a list item with its
    continuation lines, a block-quote line; headings, code and tables left out."""
    lines = [(m.start(), m.group(0).rstrip("\n")) for m in _LINE.finditer(document)
             if m.group(0)]
    segments: list[tuple[int, int]] = []
    current: list[int] | None = None

    def close() -> None:
        nonlocal current
        if current is not None and current[1] > current[0]:
            segments.append((current[0], current[1]))
        current = None

    fence: str | None = None
    index = 0
    if lines and lines[0][1].strip() == "---":  # YAML front matter
        for later in range(1, len(lines)):
            if lines[later][1].strip() in ("---", "..."):
                index = later + 1
                break
    while index < len(lines):
        at, line = lines[index]
        index += 1
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        opened = _FENCE.match(line)
        if opened:
            close()
            fence = opened.group(1)[:3]
            continue
        following = lines[index][1] if index < len(lines) else ""
        if (not line.strip() or _HEADING.match(line) or _RULE.match(line)
                or _SETEXT.match(line) or _TABLE.match(line) or _LINK_DEFINITION.match(line)
                or _TAG_LINE.match(line) or _EMPHASIS_HEADING.match(line)
                or (current is None and _INDENTED_CODE.match(line))
                or (_SETEXT.match(following) and line.strip() and current is None)):
            close()
            if _SETEXT.match(following) and line.strip() and not _RULE.match(line):
                index += 1  # the underline of a setext heading
            continue
        marker = _MARKER.match(line)
        content = at + (marker.end() if marker else 0)
        body = line[content - at:]
        if not body.strip():
            close()
            continue
        content += len(body) - len(body.lstrip())
        end = at + len(line.rstrip())
        if current is None or (marker is not None and marker.group(0).strip()):
            close()
            current = [content, end]
        else:
            current[1] = end
    close()
    return segments


def _clauses(document: str, start: int, end: int) -> list[tuple[int, int]]:
    """A sentence cut at ``;`` where both sides are claims of their own - or at ", and
    it ...": a second statement of the same subject by a pronoun ("Pruning keeps 7
    daily backups, and it never removes the newest one"), which a source may confirm
    while it contradicts the first."""
    for pattern in (_CLAUSE, _AND_PRONOUN):
        pieces: list[tuple[int, int]] = []
        at = start
        for match in pattern.finditer(document, start, end):
            pieces.append((at, match.start() + (pattern is _CLAUSE)))
            at = match.end()
        pieces.append((at, end))
        if len(pieces) > 1 and all(_checkable(document[a:b]) for a, b in pieces):
            return [piece for a, b in pieces
                    for piece in (_clauses(document, a, b) if pattern is _CLAUSE else [(a, b)])
                    if piece[1] > piece[0]]
    return [(start, end)]


def _belief(text: str) -> re.Match[str] | None:
    """The lead-in of a belief (:data:`_BELIEF`) before a value or a name, if ``text``
    opens with one."""
    belief = _BELIEF.match(text)
    if belief is None or belief.end() >= len(text):
        return None
    rest = text[belief.end():]
    tokens = WORD.findall(rest)
    named = any(token[0].isupper() and token.lower() not in STOPWORDS for token in tokens)
    return belief if _AMOUNT.search(rest) or named else None


def _checkable(text: str) -> bool:
    """Whether ``text`` asserts something a source could confirm (see the module docs)."""
    # (the writer's comment it ends with - "which would let us retire the cron jobs" -
    # is no part of what a source confirms)
    words = without_comment(clean_claim(text))
    if not words:
        return False
    bare = words.rstrip("\"'\u201d\u2019)]*_ ")
    if bare.endswith(("?", "\uff1f")) or (
            _CJK_QUESTION_END.search(bare) and CJK_RUN.search(bare)):
        return False
    if bare.endswith((":", "\uff1a")):
        return False
    belief = _belief(words)
    if belief is not None:
        return _checkable(words[belief.end():])
    if _OPINION.search(words) or _CJK_OPINION.search(words) or _GREETING.match(words) \
            or (_HEDGE.search(words) and not _AMOUNT.search(words)):
        return False
    reminder = _REMINDER.match(words)
    if reminder and reminder.end() < len(words):
        return _checkable(words[reminder.end():])
    if _ABOUT_ITSELF.search(words):
        return False
    if _REQUEST.match(words) and (_POINTER.match(words) or not _AMOUNT.search(words)):
        # an instruction states nothing a source could confirm, unless it gives an
        # amount ("Contact the office to book a stall for £35 a day")
        return False
    if CJK_RUN.search(words):
        return bool(_DIGIT.search(words)) or len(set(cjk_terms(words))) >= MIN_CJK_TERMS
    tokens = WORD.findall(words)
    if len(tokens) < 3:
        return False
    if _DIGIT.search(words):
        return True
    if any(token[0].isupper() and token.lower() not in STOPWORDS for token in tokens[1:]):
        return True
    if any(len(token) > 1 and token[1:] != token[1:].lower() for token in tokens):
        return True  # an acronym or a name such as "TLS", "PostgreSQL" opening the sentence
    content = [t for t in tokens if t.lower() not in STOPWORDS and len(t) > 1]
    if len(content) > MIN_CONTENT_WORDS:
        return True
    # as short as "Helmets are required.": a statement only with a verb that asserts
    return len(content) == MIN_CONTENT_WORDS and any(
        t.lower() in _ASSERTING for t in tokens)


# A full stop before a word in lower case: the shared splitter waits for a capital, but
# a name written in lower case ("... version 2.4.0. quillfetch can ...") starts a
# sentence too, unless the stop ends an abbreviation.
_LOWER_START = re.compile(r"(?<=[\w)\]`'\"])\.\s+(?=[a-z])")
_ABBREVIATIONS = frozenset("""e.g i.e etc vs approx cf incl viz ca al fig figs no nos vol
    pp p ch sec mr mrs ms dr st jr sr inc ltd co corp resp""".split())  # noqa: SIM905


def _lower_starts(document: str, start: int, end: int) -> list[tuple[int, int]]:
    """``start``..``end`` cut where a sentence starts with a word in lower case."""
    pieces: list[tuple[int, int]] = []
    at = start
    for match in _LOWER_START.finditer(document, start, end):
        word = re.search(r"([A-Za-z.]+)$", document[at:match.start()])
        if word is not None and word.group(1).lower().rstrip(".") in _ABBREVIATIONS:
            continue
        pieces.append((at, match.start() + 1))
        at = match.end()
    pieces.append((at, end))
    return pieces


def split_claims(document: str) -> list[Claim]:
    """The checkable claims of ``document`` (Markdown or plain text), in order, each
    with its exact offsets (``document[start:end] == text``)."""
    claims: list[Claim] = []
    for seg_start, seg_end in _prose_segments(document):
        spans = [piece for start, end in sentence_spans(document[seg_start:seg_end])
                 for piece in _lower_starts(document, seg_start + start, seg_start + end)]
        for start, end in spans:
            for a, b in _clauses(document, start, end):
                text = document[a:b]
                lead = len(text) - len(text.lstrip())
                a, b = a + lead, a + len(text.rstrip())
                if b > a and _checkable(document[a:b]):
                    claims.append(Claim(len(claims) + 1, document[a:b], a, b))
    return claims
