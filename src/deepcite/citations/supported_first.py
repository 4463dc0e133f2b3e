"""The one rule for model text no source supports: it never leads an answer.

A small model asked to answer a follow-up wrote "The zebra cache keeps entries for 30
seconds ... [citation: The original source of this information can be found on a
website]" where the source said 300; verification took the citation away and the answer
still opened with the invented sentence, a flag and the passage only after it. Read
top-down, the wrong figure was the answer.

Wherever the checks find that the model's text has no supported claim - a reply that
cites nothing attribution can back (:func:`deepcite.citations.answer.finalise_reply`),
or one whose every citation verification refuted
(:func:`deepcite.research.steps.flag_unsupported`) - :func:`supported_first` builds the
answer instead: the grounded answer (the sources' own best sentences, each cited; no
model call, :func:`~deepcite.citations.grounded.grounded_answer`) or, when no sentence
is on the question, the honest not-found answer with the closest passages. The model's
text is dropped for a model too small to write a cited answer; for a larger one it
follows, below a flag that says no source supports it, so a reader can still judge it.

An answer that mixes supported sentences with unsupported ones (sentences that, after
verification and attribution, carry no valid citation:
:attr:`deepcite.citations.attribution.Attribution.unsupported_sentences`) is reordered
by :func:`unsupported_last`: the supported sentences lead, in their order; the
unsupported ones follow below a one-line flag in the question's language (the
``unsupported_below`` frame), quoted. They are moved, never dropped: the checks find
that no source *supports* a sentence, not that it is wrong or empty - a correct
inference, a definition the sources take for granted, a caveat - and telling "adds
nothing" from "adds something unsourced" would take a judgement (a model call) the
answer does not have. Below the flag it can no longer read as the answer, and the reader
keeps it to judge. Only text moves: a moved sentence keeps its own markers (none valid
by default; with ``citations.unsupported = "flag"`` a refuted one stays, marked
``^(unverified)``), a marker that ends the sentence before it stays with that sentence,
so every ``[n]`` still resolves and the sources list, ``--json`` and exports are
unchanged.

Citation-shaped text the model invents ("[citation: ...]", "(Source: a website)",
"[source needed]") is never a citation: :func:`strip_fake_citations` removes it before
anything checks or shows the answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence

from deepcite.citations.answer import not_found_answer
from deepcite.citations.attribution import UNSUPPORTED_MARK, sentence_claim
from deepcite.citations.avoid import NOTHING, Avoid
from deepcite.citations.grounded import grounded_answer
from deepcite.citations.markers import clean_markers
from deepcite.citations.question_match import Similarity
from deepcite.text.frames import FRAMES, frame, frame_for, variants
from deepcite.text.sentences import sentence_spans
from deepcite.types import Source

#: The honest not-found answer's opening (the closest passages follow it).
NOT_ANSWERED_INTRO = frame("not_answered")  # in the question's language: frame_for
#: Said under a grounded answer that replaced the model's unsupported one.
DROPPED_NOTE = frame("model_text_dropped")  # in the question's language: frame_for
#: Heads the model's unsupported text when it is kept (a model big enough to write).
BELOW_NOTE = frame("model_text_below")

# "[citation: ...]", "[source: ...]", "[ref 3: ...]", "(Source: ...)", "[citation needed]":
# a bracket that opens with a word naming a citation and a colon (or "needed"), with no
# bracket inside. A source's own "(source code is on GitHub)" has no colon and stays.
_FAKE = re.compile(
    r"\s?[\[(【（]\s*(?:citations?|cite|sources?|refs?|references?|footnotes?|出处|来源|引用"
    r"|参考(?:资料|文献)?)\s*\d*\s*(?:[:：]|needed\b)[^\[\]()【】（）\n]{0,400}[\])】）]",
    re.IGNORECASE,
)


def strip_fake_citations(text: str) -> str:
    """``text`` without citation-shaped brackets that are not ``[n]`` markers.

    A real citation is a number that resolves to a source; "[citation: The original
    source of this information can be found on a website ...]" resolves to nothing and
    looks, to a reader, like a reference. Only a bracket that opens with such a word and
    a colon (or "needed") is one; a source's "(source code is on GitHub)" is kept.
    """
    return _FAKE.sub("", text)


def supported_first(model_text: str, question: str, sources: Sequence[Source], *,
                    keep_model_text: bool, avoid: Avoid = NOTHING,
                    similarity: Similarity | None = None) -> str:
    """The answer to show when ``model_text`` has no claim a source supports.

    The grounded answer over ``sources`` leads (or the not-found answer with the
    closest passages); ``model_text`` follows below :data:`BELOW_NOTE` with its
    markers and invented citations removed when ``keep_model_text``, else a one-line
    note says it was left out. No model call: the answer's one call was the reply.
    """
    listed = list(sources)
    grounded = grounded_answer(question, listed, avoid=avoid,
                               similarity=similarity)
    lead = (grounded.text if grounded is not None
            else not_found_answer(question, listed, similarity=similarity))
    own, _ = clean_markers(strip_fake_citations(model_text), ())
    own = own.strip()
    if not own:
        return lead
    if not keep_model_text:
        return f"{lead}\n\n{frame_for('model_text_dropped', question)}"
    quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in own.splitlines())
    return f"{lead}\n\n{frame_for('model_text_below', question)}\n\n{quoted}"


@functools.cache
def _frame_sentences() -> frozenset[str]:
    """Every sentence of every frame text, in every language, as attribution lists it."""
    return frozenset(sentence_claim(text[start:end]) for table in FRAMES.values()
                     for text in table.values() for start, end in sentence_spans(text))


# A line that is not prose to reorder: a heading, table row, quote or note.
_NOT_PROSE = ("#", "|", ">", "_")
# Markers that open a piece belong to the sentence before it ("Claim. [2] Next").
_LEADING_MARKERS = re.compile(r"^(?:\[\d+\][^\s\[]*\s*)+")


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def _as_written(sentence: str) -> str:
    """A moved sentence as the answer had it, less its bullet and ``^(unsupported)``
    mark (the flag above it says so): its own markers stay, so that with
    ``citations.unsupported = "flag"`` a refuted citation keeps the ``^(unverified)``
    that setting promises, and every kept ``[n]`` still resolves."""
    text = " ".join(_BULLET.sub("", sentence.replace(UNSUPPORTED_MARK, "")).split())
    return re.sub(r"\s+([.!?:;])$", r"\1", text)


def unsupported_last(answer: str, unsupported: Collection[str], question: str) -> str:
    """``answer`` with its ``unsupported`` sentences moved below a flag.

    ``unsupported`` lists sentences as attribution does
    (:func:`~deepcite.citations.attribution.sentence_claim`). The rest of the answer
    keeps its order and lines; a line left empty is dropped. Code blocks, headings,
    tables and quotes are left where they are. When nothing supported would be left
    above the flag the answer is returned unchanged: that case is
    :func:`supported_first`'s, which builds the answer from the sources instead.
    """
    wanted = {" ".join(claim.split()) for claim in unsupported if claim.strip()}
    wanted -= _frame_sentences()  # deepcite's own words (an exit's intro) claim nothing
    if not wanted:
        return answer
    kept: list[str] = []
    moved: list[str] = []
    in_fence = False
    for line in answer.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if in_fence or not line.strip() or line.lstrip().startswith(_NOT_PROSE):
            kept.append(line)
            continue
        rebuilt, last, took = [], 0, False
        for start, end in sentence_spans(line):
            piece = line[start:end]
            lead = _LEADING_MARKERS.match(piece)
            own = piece[lead.end():] if lead else piece
            if own.strip() and sentence_claim(own) in wanted:
                rebuilt.append(line[last:start] + (lead.group(0).rstrip() if lead else ""))
                moved.append(_as_written(own))
                took = True
            else:
                rebuilt.append(line[last:end])
            last = end
        rebuilt.append(line[last:])
        if not took:
            kept.append(line)
            continue
        text = re.sub(r"[ \t]{2,}", " ", "".join(rebuilt)).rstrip()
        if sentence_claim(text).strip(" -*+"):
            kept.append(text)
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    if not moved or not any(sentence_claim(line) for line in body.splitlines()
                            if not line.lstrip().startswith(_NOT_PROSE)):
        return answer
    quoted = "\n>\n".join(f"> {sentence}" for sentence in moved)
    return f"{body}\n\n{frame_for('unsupported_below', question)}\n\n{quoted}"


def leads_with_flag(text: str) -> bool:
    """Whether ``text`` opens with the note that belongs under an answer: what stood
    above it (a report part's quotes already used by an earlier part) was cut, and the
    model's unsupported text below it must not be left to lead."""
    return text.lstrip().startswith(
        (*variants("model_text_below"), *variants("model_text_dropped")))


__all__ = ["BELOW_NOTE", "DROPPED_NOTE", "NOT_ANSWERED_INTRO", "leads_with_flag",
           "strip_fake_citations", "supported_first", "unsupported_last"]
