"""The answer toolkit every citation handler and strategy shares.

A model's reply becomes an answer here, the same way whoever asked for it: loops are
collapsed, an unusable reply (empty, echoing the question or the prompt, in another
script) is replaced by the most relevant passages quoted and cited, unknown markers are
removed, uncited sentences copied from a source are attributed to it, and a reply that
still cites nothing is flagged and followed by the passages to check it against.

Quoted passages are source text inside our Markdown, so they are escaped
(:func:`~deepcite.citations.text.escape_quoted`): a source's own "[99]" stays "[99]"
for the reader instead of being taken for a citation, and its HTML stays text.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from deepcite.citations.attribution import attribute_sentences
from deepcite.citations.cited_answer import CitedAnswer
from deepcite.citations.display import clean_quote
from deepcite.citations.grounded import rank_sentences
from deepcite.citations.markers import cited_numbers, clean_markers
from deepcite.citations.question_match import Similarity
from deepcite.citations.share import CEILING_CHARS, FLOOR_CHARS, cut_note, share_texts
from deepcite.citations.text import best_excerpt, cut_at_word, dominant_script, escape_quoted
from deepcite.security.fencing import fence
from deepcite.security.terminal import one_line
from deepcite.text.cjk import has_cjk
from deepcite.text.frames import frame, frame_for
from deepcite.text.sentences import split_sentences
from deepcite.text.words import content_words
from deepcite.types import Source

logger = logging.getLogger(__name__)

MIN_CHARS_PER_SOURCE = FLOOR_CHARS
#: Characters of the prompt besides sources, question and earlier knowledge: the
#: headings, the answer cue and the line saying what was cut.
_PROMPT_FRAME_CHARS = 320
EVIDENCE_PASSAGES = 3
EXCERPT_CHARS = 300  # a quoted passage, as long as the excerpts of sources without one
#: Prompt characters kept for a system prompt when the caller does not say how long its
#: own is (the standard handler's is about this long).
SYSTEM_RESERVE_CHARS = 480
#: The frame texts below in English; each is written in the question's language through
#: :func:`deepcite.text.frames.frame_for` where an answer is made.
UNCITED_NOTE = frame("uncited")
FALLBACK_INTRO = frame("fallback")


def build_prompt(question: str, sources: list[Source], budget_chars: int,
                 prior_knowledge: str = "", *, system_chars: int = SYSTEM_RESERVE_CHARS,
                 ceiling_chars: int | None = CEILING_CHARS) -> str:
    """The user prompt: fenced sources, each cut to its fair share, then the question.

    ``system_chars`` is the length of the system prompt sent with it, which shares the
    budget. Every source gets at least :data:`MIN_CHARS_PER_SOURCE` characters and at
    most ``ceiling_chars``, what short sources leave goes to long ones
    (:mod:`deepcite.citations.share`), and sources that do not fit even at the floor are
    left out from the end (callers pass the best first). Whatever was cut, the prompt
    says so on a line of its own: one call answers, so there is no second pass to take
    the rest.
    """
    overhead = system_chars + len(question) + len(prior_knowledge) + _PROMPT_FRAME_CHARS
    texts = [" ".join(source.text.split()) for source in sources]
    fences = [len(fence("", number=s.number, title=s.title)) + 2 for s in sources]
    share = share_texts(texts, budget_chars - overhead, floor=MIN_CHARS_PER_SOURCE,
                        ceiling=ceiling_chars, overheads=fences)
    blocks = [fence(text, number=source.number, title=source.title)
              for source, text in zip(sources, share.texts, strict=False)]
    note = cut_note(share, len(sources))
    if note:
        logger.info("[SOURCE_SHARE] %s", note)
    parts = ["Sources:", *blocks] if blocks else []
    if note:
        parts.append(note)
    if prior_knowledge:
        parts += ["What is already known (with its citations):", prior_knowledge]
    parts += [f"Question: {question}", "Answer, citing sources like [1]:"]
    return "\n\n".join(parts)


def finalise_reply(question: str, reply: str, sources: list[Source], *,
                   extra_numbers: Iterable[int] = ()) -> CitedAnswer:
    """Check a model reply against the sources and make every citation valid.

    ``extra_numbers`` are further numbers that may be cited: those of sources found in
    an earlier round and cited in the earlier knowledge the reply builds on.
    """
    reply = collapse_repeats(reply)
    problem = _unusable(question, reply, sources)
    if problem is not None:
        return CitedAnswer(
            text=evidence_answer(question, sources,
                                 intro=frame_for("fallback", question)),
            model_called=True,
            fallback=problem,
        )
    valid = {s.number for s in sources} | set(extra_numbers)
    text, removed = clean_markers(reply, valid)
    text, attributed = attribute_sentences(text, sources)
    notes = []
    unflagged = None
    if not cited_numbers(text):
        notes.append("uncited")
        unflagged = text.strip()
        text = flag_answer(text, question, sources, frame_for("uncited", question))
    return CitedAnswer(text=text.strip(), model_called=True, removed_markers=removed,
                       attributed=attributed, notes=notes, unflagged=unflagged)


def flag_answer(text: str, question: str, sources: list[Source], note: str, *,
                similarity: Similarity | None = None) -> str:
    """``text``, then ``note`` in italics and the passages to check the answer against.

    The one way an answer is marked as unbacked, wherever that is found out: here for a
    reply that cites nothing, and after verification for an answer whose citations its
    sources did not support (:func:`deepcite.research.steps.flag_unsupported`). The
    mark is in the text itself, so every output form (terminal, file, JSON) carries it.
    ``similarity`` ranks the passages by meaning too (see :func:`evidence_list`).
    """
    backing = (f"{frame_for('check_against', question)}_\n\n"
               f"{evidence_list(question, sources, similarity=similarity)}"
               if sources else f"{frame_for('treat_with_care', question)}_")
    return f"{text.strip()}\n\n_{note}{backing}"


def evidence_list(question: str, sources: list[Source], limit: int = EVIDENCE_PASSAGES, *,
                  similarity: Similarity | None = None) -> str:
    """Bullet list of up to ``limit`` passages bearing on ``question``, one per source, cited.

    The sources whose best sentence is relevant to the question (ranked as grounded
    answers rank them, :func:`~deepcite.citations.sentence_ranking.rank_sentences`) come first,
    best first, each quoted by that sentence; the list is filled with the first other
    sources' best-matching excerpts. Search order alone once put a passage on another
    subject first while the one that answered sat fourth. ``similarity`` (the sentence
    encoder, when installed) lets a paraphrase of the question rank as well as its
    words (:func:`~deepcite.citations.sentence_ranking.rank_sentences`).

    The title follows the marker so that the text a marker covers is the quote alone:
    verification then finds it in the source, as it should. Quote and title are
    escaped (:func:`escape_quoted`), so neither can add, renumber or hide a citation.
    """
    quotes: dict[int, tuple[Source, str]] = {}
    for sentence in rank_sentences(question, sources, similarity=similarity):
        if len(quotes) >= limit:
            break
        quote = cut_at_word(sentence.text, EXCERPT_CHARS)
        quotes.setdefault(id(sentence.source), (sentence.source, quote))
    for source in sources:
        if len(quotes) >= limit:
            break
        quotes.setdefault(id(source), (source, best_excerpt(source.text, question)))
    lines = [
        f"- \u201c{escape_quoted(one_line(clean_quote(quote)))}\u201d "
        f"[{source.number}] ({escape_quoted(one_line(source.title))})"
        for source, quote in quotes.values()
    ]
    return "\n".join(lines)


def evidence_answer(question: str, sources: list[Source], *, intro: str,
                    similarity: Similarity | None = None) -> str:
    """An answer made only of quoted, cited passages; used when the model cannot help."""
    if not sources:
        return frame_for("no_sources", question)
    return f"{intro}\n\n{evidence_list(question, sources, similarity=similarity)}"


def not_found_answer(question: str, sources: list[Source], *,
                     similarity: Similarity | None = None) -> str:
    """The answer when no sentence of ``sources`` answers ``question``: the "not found"
    frame in the question's language with the closest passages quoted.

    A question in Chinese, Japanese or Korean over sources none of whose closest
    passages is written in CJK (a Chinese question over English documentation) gets the
    whole reply in its own language instead: nothing answers it, and the closest
    sources, in another language, are in the sources list. Quoting passages that do not
    answer, in a language the asker did not use, would make most of the reply text the
    asker may not read, and none of it is an answer.
    """
    if not sources:
        return frame_for("no_sources", question)
    listed = evidence_list(question, sources, similarity=similarity)
    if has_cjk(question) and not has_cjk(listed):
        return frame_for("not_answered_elsewhere", question)
    return f"{frame_for('not_answered', question)}\n\n{listed}"


def collapse_repeats(reply: str) -> str:
    """Drop what a looping model already wrote; keep the first of each.

    Sentences of three or more words are kept once. Shorter lines (``def main():``)
    repeat naturally, so only a third sighting marks a loop. Code blocks are left alone.
    """
    seen: set[str] = set()
    short_lines: dict[str, int] = {}
    lines = []
    in_fence = False
    for line in reply.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_fence or line.lstrip().startswith("```") or not line.strip():
            lines.append(line)
            continue
        kept = []
        for sentence in split_sentences(line):
            key = " ".join(sentence.lower().split())
            if len(key.split()) < 3:
                short_lines[key] = short_lines.get(key, 0) + 1
                if short_lines[key] < 3:
                    kept.append(sentence)
            elif key not in seen:
                seen.add(key)
                kept.append(sentence)
        if kept:
            lines.append(" ".join(kept))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# Words that say nothing about the subject: "The answer to your question is:".
_FILLER = frozenset({"answer", "question", "following", "here", "summary", "sources", "source"})


# Words a reply uses to point at sources rather than say what is in them.
_POINTING = frozenset({"cited", "cite", "cites", "citing", "listed", "list", "paragraph",
                       "paragraphs", "referenced", "reference", "references", "used",
                       "provided", "mentioned", "text", "document", "documents", "above",
                       "below", "numbered", "titled", "title", "titles"})


# A reply that opens by describing the sources rather than answering: "The sources cited
# in the answer are:", "The source cited is from a book titled ...".
_ABOUT_SOURCES = re.compile(
    r"^\W*(?:the|these|this|all)\s+(?:sources?|references?)\s+(?:that\s+(?:are|were|is|was)\s+)?"
    r"(?:cited|listed|used|mentioned|referenced|provided|given|quoted|above|below)\b",
    re.IGNORECASE)


def _unusable(question: str, reply: str, sources: Iterable[Source] = ()) -> str | None:
    """Why ``reply`` cannot be used as an answer, or ``None`` when it can.

    Besides empty, echoing and wrong-script replies, a reply that only names the
    sources ("The sources cited are: 1. Chloroplast, paragraph 9 2. ...") says nothing
    of what is in them: small models write that often, and it was kept as the answer.
    So is one that opens by describing the sources ("The sources cited in the answer
    are: ...", "The source cited is from a book titled ..."): 17 of 100 SQuAD replies of
    the bundled model did, and what followed was about the sources, not the question.
    """
    if not reply.strip():
        return "empty reply"
    lowered = reply.lower()
    if "<source" in lowered or "</source>" in lowered or "answer, citing sources" in lowered:
        return "reply repeats the prompt"
    asked, answered = dominant_script(question), dominant_script(reply)
    if asked and answered and asked != answered:
        return f"reply in another script ({answered.lower()}) than the question"
    new_words = content_words(reply) - content_words(question) - _FILLER
    if not new_words:
        return "reply only repeats the question"
    if len(new_words) < 2:
        return "reply too short"
    titles = set().union(*(content_words(source.title) for source in sources))
    if new_words & titles and not new_words - titles - _POINTING:
        return "reply only names the sources"
    if _ABOUT_SOURCES.match(reply):
        return "reply describes the sources instead of answering"
    return None
