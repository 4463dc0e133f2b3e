"""Grounded answers: built from the sources' own sentences, for models too small to write one.

A 135M model asked to write a cited answer usually writes something else: a code fence
opener, the question back, a sentence with no ``[n]``. Its answers then fall back to
quoted passages, which is honest but not an answer. This module answers without
trusting the model for any fact:

1. **Candidates.** Every prose sentence of every source (headings, underlines and
   code-like lines dropped), whitespace-collapsed but otherwise verbatim, with the
   words of the sentence it points back to ("It ...", "This hypothesis ...";
   :mod:`deepcite.citations.candidates`).
2. **Ranking.** Each sentence is scored against the whole question
   (:mod:`deepcite.citations.question_match`): BM25 of the question's terms weighted by
   rarity over the candidates and by the question's key phrase, times an answer-type
   cue (:mod:`deepcite.citations.answer_type`), a small search-rank prior and, with the
   embeddings extra, the sentence's closeness in meaning. A sentence that covers too
   little of the question (one shared common word) is not relevant; when none is,
   there is no grounded answer (``None``) and the caller says nothing answers it.
3. **Selection.** The best sentences, near-duplicates dropped (the one that says it
   all kept), cut to a few sentences and a character budget, each followed by the
   ``[n]`` of the source it was copied from, so every citation is true by
   construction (verification finds each sentence verbatim).
4. **Short answer first.** For factual questions (count, amount, share, age, date
   or period, person, place, name, score) a candidate of that kind from the lead
   sentence leads the answer, cited; a lead sentence without one gives no short answer.
5. **The model helps, never decides facts.** One optional call: for a factual question
   the model proposes the short answer (kept only when it is, or names, a candidate
   found in the sentences); otherwise it writes a one-line lead, kept only when a
   selected source holds it as an exact or fuzzy span
   (:class:`deepcite.citations.support.SourceIndex`, names and numbers included), and
   then cited. A lead that repeats a sentence the model was shown is its choice of the
   best one, which then comes first. Anything else the model wrote is dropped.

:func:`use_grounded` decides when this path replaces the abstractive one: by the
``citations.answer_mode`` setting, and in ``auto`` mode for models known to be small.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import replace

from deepcite.citations import answer_type as types
from deepcite.citations import question_match
from deepcite.citations.candidates import (
    MIN_WORDS,
    Sentence,
    candidate_sentences,
    opens_with_pointer,
    word_count,
)
from deepcite.citations.cited_answer import CitedAnswer, Completer
from deepcite.citations.dedupe import dedupe_sentences
from deepcite.citations.display import clean_quote
from deepcite.citations.injection import addressed_to_reader
from deepcite.citations.intent import Intent, gives, question_intent
from deepcite.citations.markers import clean_markers
from deepcite.citations.question_match import Similarity, question_terms, terms_of
from deepcite.citations.support import SourceIndex
from deepcite.citations.text import escape_quoted, neutralise_html
from deepcite.errors import ModelError
from deepcite.security.fencing import UNTRUSTED_NOTICE
from deepcite.security.terminal import one_line
from deepcite.text.cjk import CJK_CHARS, CJK_RUN, has_cjk
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import ALNUM_WORD, WORD, contains_words, content_words
from deepcite.types import Source

#: Answer kinds (:func:`deepcite.citations.answer_type.answer_type`) that get a short
#: answer first.
FACTUAL_KINDS = frozenset(types.KINDS)
MAX_SENTENCES = 3
MAX_CHARS = 900
MIN_COVERAGE = question_match.MIN_COVERAGE  # see :func:`deepcite.citations.question_match.relevant`
RELATIVE_FLOOR = 0.4  # sentences scoring under this share of the best one are left out
NEAR_DUPLICATE = 0.6
CUE_BOOST = 0.5
#: A sentence that gives what a how-to, why or what-is question asks for
#: (:mod:`deepcite.citations.intent`) weighs this much more.
INTENT_BOOST = 0.5
#: A question term only the sentence a candidate points back to holds
#: (:func:`~deepcite.citations.candidates.refers_back`) counts this share of one the
#: candidate says itself.
CONTEXT_WEIGHT = 0.5
MODEL_SENTENCES = 5
LEAD_TOKENS = 60
_K1, _B = 1.2, 0.75
#: With embeddings, a sentence's cosine to the question adds this much to its share of
#: the best word score: a paraphrase ("became enraged at the widespread burning" for
#: "became angry at the widespread destruction") then outranks a sentence that only
#: repeats the question's words.
MEANING_WEIGHT = 2.0
_LEAD_SYSTEM = (
    "You answer questions from numbered sentences. Write one short sentence that answers "
    "the question, using only what the sentences say. " + UNTRUSTED_NOTICE
)
_SHORT_SYSTEM = (
    "You answer questions from numbered sentences. Reply with the short answer only (a "
    "name, date, number or place) copied from the sentences: no sentence, no "
    "explanation. " + UNTRUSTED_NOTICE
)


# ------------------------------------------------------------------ candidates, ranking


def anchor_terms(question: str) -> set[str]:
    """The terms that name what ``question`` is about: names and numbers.

    Capitalised words other than the first, and numbers of two or more digits
    ("Who won the IEEE Frank Rosenblatt Award in 2010?" -> ieee, frank, rosenblatt,
    award, 2010). A source about the question mentions most of them; one that does not
    is about something else, however many common words it shares.
    """
    anchors: set[str] = set()
    cjk = has_cjk(question)
    if cjk:  # CJK has no capitals: a Latin word in it is a name wherever it stands
        question = CJK_RUN.sub(" ", question)
    for index, match in enumerate(ALNUM_WORD.finditer(question)):
        word = match.group(0)
        if word.isdigit() and len(word) >= 2:
            anchors.add(word)
        elif (index or cjk) and word[0].isupper() and len(word) >= 2 and (
                word.lower() not in STOPWORDS):
            # Sentences are split into words of Latin letters (``text.WORD``): a name in
            # another script is held as its longest such piece, if any.
            piece = max(WORD.findall(word), key=len, default="")
            if len(piece) >= 3:
                anchors.add(term(piece))
    return anchors


def off_topic(question: str, sentences: Sequence[Sentence]) -> bool:
    """Whether the sentences miss most of the question's names and numbers (see
    :func:`anchor_terms`): then nothing in them answers it, and a sentence that shares a
    verb with the question must not be passed off as the answer."""
    anchors = anchor_terms(question)
    if not anchors:
        return False
    present = set().union(*(set(s.terms) for s in sentences)) & anchors
    return len(present) * 2 < len(anchors)


def _about_subject(wanted: set[str], sentences: list[Sentence],
                   close: Collection[int] = ()) -> list[Sentence]:
    """The sentences of the sources that name the question's subject (the term most of
    the sources hold, :func:`~deepcite.citations.question_match.subject_terms`); all of them
    when the sources agree on none. A passage on large prime numbers found for "Where
    are ctenophores found in large numbers?" shares three of its four words, and the
    rarity weights favour it, as every other source says "ctenophores".

    A sentence whose ``id`` is in ``close`` (its meaning very close to the question's)
    is kept wherever it is: the sources' majority may be about a word of the question
    that is not its subject ("piece" for "What is Norman art's most well known piece?",
    when search found museums' pieces), and the one source about Norman art then holds
    the answer ("By far the most famous work of Norman art is the Bayeux Tapestry")."""
    by_source: dict[int, list[str]] = {}
    for sentence in sentences:
        if sentence.rank not in by_source:  # the title names the subject as well
            by_source[sentence.rank] = question_match.terms_of(sentence.source.title)
        by_source[sentence.rank].extend(sentence.terms)
    subject = question_match.subject_terms(wanted, list(by_source.values()))
    if not subject:
        return sentences
    about = {rank for rank, terms in by_source.items() if subject & set(terms)}
    return [s for s in sentences if s.rank in about or id(s) in close]


def _admissible(sentence: Sentence) -> bool:
    """Whether ``sentence`` may be quoted at all: not one addressed to the reader or the
    model (an instruction, a phishing line - :mod:`deepcite.citations.injection`).
    Such sentences are data a page carries, never the answer."""
    return not addressed_to_reader(sentence.text)


def _once_each(ranked: list[Sentence]) -> list[Sentence]:
    """``ranked`` without the later copies of a sentence (compared as
    :func:`~deepcite.citations.dedupe.sentence_key` does: case, markers, punctuation
    aside), so no answer says the same thing twice."""
    seen: set[str] = set()
    return [sentence for sentence in ranked if dedupe_sentences([sentence.text], seen)]


def rank_sentences(question: str, sources: Sequence[Source], *,
                   similarity: Similarity | None = None
                   ) -> list[Sentence]:
    """The relevant candidate sentences of ``sources``, best first (scores set).

    Relevant is :func:`deepcite.citations.question_match.relevant`: a real share of the whole
    question, weighted by rarity over the candidates and by the question's key phrase,
    and, when ``similarity`` gives cosines (the embeddings extra), by meaning; in
    sources that mention at least half of the question's names and numbers
    (:func:`off_topic`). An empty list means nothing in the sources is about the
    question. ``similarity=None`` ranks by the words alone.
    """
    sentences = [s for s in candidate_sentences(sources) if _admissible(s)]
    wanted = question_terms(question)
    if not sentences or not wanted or off_topic(question, sentences):
        return []
    sharing = [s for s in sentences if wanted & set(s.about)]
    cosines = similarity(question, [s.text for s in sharing]) if similarity and sharing else None
    cosine = dict(zip(map(id, sharing), cosines, strict=True)) if cosines else {}
    close = {key for key, value in cosine.items() if value >= question_match.DENSE_STRONG}
    sentences = _about_subject(wanted, sentences, close)
    kept = set(map(id, sentences))
    sharing = [s for s in sharing if id(s) in kept]
    weights = question_match.weigh(question, [s.terms for s in sentences])
    total = len(sentences)
    average = sum(len(s.terms) for s in sentences) / total
    kind = types.answer_type(question)
    intent = Intent.OTHER if kind in FACTUAL_KINDS else question_intent(question)
    lexical: dict[int, float] = {}
    ranked = []
    for sentence in sharing:
        if not question_match.relevant(weights, sentence.about, cosine.get(id(sentence))):
            continue
        sentence.coverage = weights.coverage(sentence.about)
        counts = Counter(t for t in sentence.terms if t in wanted)
        norm = _K1 * (1 - _B + _B * len(sentence.terms) / average)
        lexical[id(sentence)] = sum(weights.weight[t] * n * (_K1 + 1) / (n + norm)
                                    for t, n in counts.items())
        # Said by the sentence it points back to or by the heading it is under.
        pointed = wanted.intersection(sentence.context + sentence.heading).difference(counts)
        if pointed:  # normed as the pair of sentences it is said in
            pair = _K1 * (1 - _B + _B * len(sentence.about) / average)
            lexical[id(sentence)] += sum(CONTEXT_WEIGHT * weights.weight[t] * (_K1 + 1)
                                         / (1 + pair) for t in pointed)
        ranked.append(sentence)
    best = max(lexical.values(), default=1.0) or 1.0
    for sentence in ranked:
        prior = 1 + 0.1 / (1 + sentence.rank) + (0.05 if sentence.position == 0 else 0.0)
        cue = CUE_BOOST if types.holds(kind, sentence.text, question) else 0.0
        if gives(intent, sentence.text) or (intent is Intent.HOWTO and sentence.example):
            cue += INTENT_BOOST
        meaning = MEANING_WEIGHT * max(cosine.get(id(sentence), 0.0), 0.0)
        sentence.score = (lexical[id(sentence)] / best + meaning) * (1 + cue) * prior
    ranked.sort(key=lambda s: (-s.score, s.rank, s.position))
    return ranked


def _similar(a: Sentence, b: Sentence, *, inside: bool = True,
             threshold: float = NEAR_DUPLICATE) -> bool:
    """Near-duplicates: most content words shared, or (``inside``) one sentence's words
    nearly all in the other, which then says it all."""
    x = {t for t in a.terms if t not in STOPWORDS}
    y = {t for t in b.terms if t not in STOPWORDS}
    if not x or not y:
        return False
    shared = len(x & y)
    return shared / len(x | y) >= threshold or (
        inside and shared / min(len(x), len(y)) >= 0.8)


def _says_more(a: Sentence, b: Sentence) -> bool:
    """Whether ``a`` says nearly all ``b`` says (:func:`_similar`'s "inside") and more."""
    x = {t for t in a.terms if t not in STOPWORDS}
    y = {t for t in b.terms if t not in STOPWORDS}
    return bool(y) and len(x) > len(y) and len(x & y) / len(y) >= 0.8


def select(ranked: Sequence[Sentence], *, max_sentences: int = MAX_SENTENCES,
           max_chars: int = MAX_CHARS) -> list[Sentence]:
    """The best sentences within the budget, near-duplicates and weak ones left out.

    Of two near-duplicates the one that says it all is kept: "Tesla died on 7 January
    1943." ranks above "On 7 January 1943, at the age of 86, Tesla died alone in room
    3327", which holds all of it and the age asked for, and takes its place.
    """
    chosen: list[Sentence] = []
    used = 0
    for sentence in ranked:
        if len(chosen) >= max_sentences:
            break
        if chosen and sentence.score < RELATIVE_FLOOR * chosen[0].score:
            break
        alike = [i for i, other in enumerate(chosen) if _similar(sentence, other)]
        if alike:
            shorter = chosen[alike[0]]
            grown = used + len(sentence.text) - len(shorter.text)
            if len(alike) == 1 and _says_more(sentence, shorter) and grown <= max_chars:
                chosen[alike[0]] = sentence
                used = grown
            continue
        if chosen and used + len(sentence.text) > max_chars:
            continue
        chosen.append(sentence)
        used += len(sentence.text)
    return chosen


# ------------------------------------------------------------------ the answer


def _cite(sentence: str, number: int) -> str:
    """``sentence`` with ``[number]`` before its final punctuation (``x [2].``)."""
    body = sentence.rstrip()
    end = len(body)
    while end and body[end - 1] in ".!?;:\u3002\uff01\uff1f\uff1b\uff1a":
        end -= 1
    return f"{body[:end].rstrip()} [{number}]{body[end:] or '.'}"


def _shown(text: str) -> str:
    """Source text readable and safe inside our Markdown: its markup (reST roles, table
    pipes, entities) cleaned for display (:func:`~deepcite.citations.display.clean_quote`;
    verification maps it back), one line, brackets and HTML escaped."""
    return escape_quoted(one_line(clean_quote(text)))


def fenced(code: str) -> str:
    """``code`` as a Markdown code block: shown as written, never read as Markdown, HTML
    or a citation (:func:`~deepcite.citations.markers.prose_only` blanks code blocks),
    with a fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{code}\n{fence}"


def _numbered(question: str, sentences: Sequence[Sentence]) -> str:
    lines = [f"{i}. {one_line(s.text)}" for i, s in enumerate(sentences, 1)]
    return "Sentences:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"


def _first_line(reply: str) -> str:
    text, _ = clean_markers(reply, ())
    line = next((ln for ln in text.splitlines() if ln.strip() and "```" not in ln), "")
    line = re.sub(r"^\s*(?:\d+[.)]\s*)?(?:(?:the )?(?:short )?answer(?: is)?\s*[:\-]?\s*)?",
                  "", line, flags=re.IGNORECASE)
    return " ".join(line.split()).strip(" *\"'`.,;:")


def _short_answer(question: str, kind: str, chosen: Sequence[Sentence],
                  proposed: str) -> tuple[str, list[int], str] | None:
    """The short answer of the lead sentence, the sources citing it, how it was chosen.

    Only a candidate of the kind the question asks for
    (:mod:`deepcite.citations.answer_type`) found in the lead sentence qualifies: the
    model's proposal when it is, or names, one of them; otherwise the lead sentence's
    best. A lead sentence without one gives no short answer: the cited sentence still
    answers, and a year is no answer to "how many".
    """
    if not chosen:
        return None
    lead = chosen[0]
    answer = types.pick(kind, lead.text, question, proposed)
    if answer is None and len(chosen) > 1 and _follows(chosen[1], lead):
        answer = types.pick(kind, chosen[1].text, question, proposed)
    if answer is None or not _short_enough(question, answer):
        return None
    how = ("model" if (proposed and _contains(proposed, answer)) or _contains(answer, proposed)
           else "lead sentence")
    # Cited where it is written in full: "Countries" alone also occurs in other sentences.
    numbers = list(dict.fromkeys(s.source.number for s in chosen if _contains(s.text, answer)))
    return answer, numbers, how


def _follows(sentence: Sentence, before: Sentence) -> bool:
    """Whether ``sentence`` comes right after ``before`` in the same source."""
    return sentence.rank == before.rank and sentence.position == before.position + 1


def _neighbour(sentence: Sentence, offset: int) -> Sentence | None:
    """The quotable sentence ``offset`` places from ``sentence`` in its source (-1: the
    one before, +1: the one after), with the same search rank; ``None`` if there is none."""
    return next((replace(s, rank=sentence.rank) for s in candidate_sentences([sentence.source])
                 if s.position == sentence.position + offset and _admissible(s)), None)


def _with_answer_after(question: str, kind: str, chosen: list[Sentence],
                       limit: int = MAX_SENTENCES) -> list[Sentence]:
    """``chosen`` with the sentence after the lead put second, when the lead holds no
    answer of the kind asked for and that next sentence does.

    The sentence that best matches a question often restates it ("The first recorded
    travels by Europeans to China date from this time.") and the answer follows ("The
    most famous traveller of the period was Marco Polo ..."): the next sentence shares
    few of the question's words, so it would never be chosen on its own.
    """
    lead = chosen[0]
    if types.holds(kind, lead.text, question):
        return chosen
    after = _neighbour(lead, +1)
    if after is None or not types.holds(kind, after.text, question):
        return chosen
    return _second(chosen, after, limit)


def _with_continuation(chosen: list[Sentence], limit: int = MAX_SENTENCES
                        ) -> list[Sentence]:
    """``chosen`` with the sentence after the lead put second, when it opens by pointing
    back to the lead ("This allows ...", "It ...").

    The sentence that best matches a question often sets the scene ("The Mini boxes
    connect to the main box over Wi-Fi.") and the next one, pointing back to it, says
    what the question asks ("This allows all boxes in a household to share
    recordings."). For a factual question :func:`_with_answer_after` does this by the
    kind of answer the next sentence holds.
    """
    lead = chosen[0]
    after = _neighbour(lead, +1)
    if after is None or after.context != lead.terms or not opens_with_pointer(after.text):
        return chosen
    return _second(chosen, after, limit)


def _with_same_point(question: str, chosen: list[Sentence], limit: int = MAX_SENTENCES,
                     max_chars: int = MAX_CHARS) -> list[Sentence]:
    """``chosen`` with the sentence after the lead put second, when it is in the lead's
    passage and carries on its point: it names what the lead names, or, for a why
    question whose lead only names the behaviour, it gives the reason.

    An instruction is often half the answer: "To register a station, run ``station
    add``." is followed by "Tidewell then contacts the station and stores its serial
    number."; "Stations buffer readings for ten minutes." by "This is done to save
    battery power". The next sentence shares few of the question's words, so it is
    never chosen on its own. Only the lead's own paragraph or list item is looked at: a
    neighbour across a heading or a blank line makes another point.
    """
    lead = chosen[0]
    after = _neighbour(lead, +1)
    if after is None or lead.passage < 0 or after.passage != lead.passage:
        return chosen
    intent = question_intent(question)
    shared = {t for t in lead.terms if t not in STOPWORDS} & set(after.terms)
    reason = intent is Intent.REASON and gives(intent, after.text) and not gives(
        intent, lead.text)
    if not (shared or reason or opens_with_pointer(after.text)):
        return chosen
    # one over the limit: the continuation is part of the lead, not a sentence of its own
    grown = _second(chosen, after, limit + 1)
    while len(grown) > 2 and sum(len(s.text) for s in grown) > max_chars:
        grown.pop()
    return grown


def _second(chosen: list[Sentence], after: Sentence, limit: int) -> list[Sentence]:
    """``chosen`` with ``after``, the sentence following the lead, put second; as it is
    when that sentence, or one like it, is already chosen."""
    lead = chosen[0]
    if any(_follows(s, lead) or _similar(s, after) for s in chosen):
        return chosen
    return [lead, after, *chosen[1:]][:limit]


def _with_antecedent(chosen: list[Sentence], limit: int = MAX_SENTENCES
                      ) -> list[Sentence]:
    """``chosen`` with the sentence before the lead put first, when the lead opens with a
    pronoun or demonstrative that points back to it.

    "He also describes the distillation of sea-water for drinking" answers "Who wrote
    about the distillation of drinking water?" only with the sentence before it, which
    names him; quoted alone it names no one, and a reader cannot tell who "he" is. So
    for "This created new orders ...": what "this" is, is the answer to "What created
    them?". ("The tower was completed in 1889" after "Construction of the tower began"
    reads well alone: a noun that points back needs no antecedent quoted.)
    """
    lead = chosen[0]
    if lead.position == 0 or not lead.context or not opens_with_pointer(lead.text):
        return chosen
    before = _neighbour(lead, -1)
    if before is None or before.terms != lead.context:
        return chosen
    rest = [s for s in chosen if not (s.rank == lead.rank and s.position == before.position)]
    return [before, *rest][:limit]  # first, when it was chosen further down


def _short_enough(question: str, answer: str | None) -> bool:
    """A short answer is a few words and not the question's own subject."""
    return answer is not None and len(answer.split()) <= 8 and not _contains(question, answer)


_contains = contains_words  # whole-word containment, one home: deepcite.text.words


# Whole words: no word character on either side, except CJK, which has no spaces (the
# "三百秒" of "保留三百秒。" is a whole word of it).
_BEFORE = rf"(?<![^\W{CJK_CHARS}])"
_AFTER = rf"(?![^\W{CJK_CHARS}])"


def _supporting(claim: str, chosen: Sequence[Sentence]) -> int | None:
    """The number of a chosen sentence's source holding ``claim`` as a span.

    Exact or fuzzy spans only: word overlap would accept a small model's recombination
    of a source's words ("the engine is reduced") that the source never says.
    """
    best: tuple[int, float, int] | None = None
    rank = {"exact": 2, "fuzzy": 1}
    for number, source in {s.source.number: s.source for s in chosen}.items():
        evidence = SourceIndex(source.text).check(claim)
        if evidence.outcome != "supported" or evidence.method not in rank:
            continue
        key = (rank[evidence.method], evidence.score, -number)
        if best is None or key > best:
            best = key
    return -best[2] if best is not None else None


def _lead(reply: str, question: str, chosen: list[Sentence], shown: Sequence[Sentence]
          ) -> tuple[str | None, list[Sentence], str]:
    """Apply the model's lead: (lead text with its marker or None, order, what happened).

    A lead that repeats one of the sentences the model was shown is its choice of the
    best one, which then comes first; any other lead must be supported by a chosen
    sentence's source, or it is dropped.
    """
    line = _first_line(reply)
    context = question + " " + " ".join(s.text for s in shown)
    if not MIN_WORDS <= word_count(line) <= 60 or not _meaningful(line) & _meaningful(
            context) or _restates(line, question):
        return None, chosen, "model lead unusable"
    probe = Sentence(chosen[0].source, 0, 0, line, terms_of(line))
    picked = next((s for s in shown if _similar(probe, s, inside=False, threshold=0.8)),
                  None)
    if picked is not None:
        rest = [s for s in chosen if (s.source.number, s.position) != (
            picked.source.number, picked.position)]
        if len(rest) == len(chosen):  # a sentence not chosen: it replaces the weakest
            rest = rest[:-1]
        return None, [picked, *rest], "model chose a sentence"
    number = _supporting(line, chosen)
    if number is None:
        return None, chosen, "model lead dropped (unsupported)"
    return _cite(neutralise_html(line), number), chosen, "model lead kept (supported)"


def _restates(line: str, question: str) -> bool:
    """Whether a CJK ``line`` says nothing but the question's own terms ("灯塔的写入缓冲区"
    for "灯塔的写入缓冲区是怎么工作的？"): a phrase of the question, no answer to it.
    (CJK only: an English lead of four words or more was always judged by its words.)"""
    if not has_cjk(line):
        return False
    said = set(terms_of(line))
    return not said - set(terms_of(question))


def _meaningful(text: str) -> set[str]:
    """The words of ``text`` that carry meaning: its content words and CJK term pairs."""
    return content_words(text) | set(cjk_terms(text)) if has_cjk(text) else content_words(
        text)


def _ask(client: Completer, system: str, user: str) -> str | None:
    try:
        return client.complete("grounded", system, user, max_tokens=LEAD_TOKENS)
    except ModelError:
        return None  # the answer stands on the sources alone


def grounded_answer(question: str, sources: Sequence[Source],
                    client: Completer | None = None, *, max_sentences: int = MAX_SENTENCES,
                    max_chars: int = MAX_CHARS, avoid: str = "",
                    similarity: Similarity | None = None
                    ) -> CitedAnswer | None:
    """An answer made of the sources' best sentences, each cited; see the module docs.

    ``None`` when no sentence of ``sources`` is relevant to ``question``: the caller
    then falls back to quoted passages (or the "no sources" answer). ``client`` is
    optional; with it, one call (purpose ``grounded``) proposes a short answer or a
    lead sentence, and only what the sources support of it is used. A sentence found in
    ``avoid`` (what a report already says, whitespace collapsed) is not quoted again.
    ``similarity`` scores meaning (see :func:`rank_sentences`).
    """
    ranked = rank_sentences(question, sources, similarity=similarity)
    if avoid:  # written with its citation before the full stop: compare without it
        ranked = [s for s in ranked if s.text.rstrip(".!?。！？ ") not in avoid]
    ranked = _once_each(ranked)  # a sentence two sources repeat is quoted once
    chosen = select(ranked, max_sentences=max_sentences, max_chars=max_chars)
    if not chosen:
        return None
    kind = types.answer_type(question)
    factual = kind in FACTUAL_KINDS
    chosen = (_with_answer_after(question, kind, chosen, max_sentences) if factual
              else _with_same_point(question, _with_continuation(chosen, max_sentences),
                                    max_sentences, max_chars))
    ranked_first = chosen  # the short answer is looked for here before the antecedent
    chosen = _with_antecedent(chosen, max_sentences)
    notes = ["grounded", kind]
    reply: str | None = None
    shown = select(ranked, max_sentences=MODEL_SENTENCES, max_chars=2 * max_chars)
    if client is not None:
        reply = _ask(client, _SHORT_SYSTEM if factual else _LEAD_SYSTEM,
                     _numbered(question, shown))
        if reply is None:
            notes.append("model call failed")
    lead: str | None = None
    if reply is not None and not factual:
        lead, chosen, what = _lead(reply, question, chosen, shown)
        notes.append(what)
    parts: list[str] = []
    if factual:
        proposed = _first_line(reply or "")
        short = _short_answer(question, kind, ranked_first, proposed)
        if short is None and chosen is not ranked_first:  # "He ...": who "he" is
            short = _short_answer(question, kind, chosen, proposed)
        if short is not None:
            answer, numbers, how = short
            parts.append(f"**{_shown(answer)}** " + "".join(f"[{n}]" for n in numbers))
            notes.append(f"short answer: {how}")
    body = [_cite(_shown(s.text), s.source.number) for s in chosen]
    # A how-to answer shows the first example a chosen sentence comes with, right after
    # that sentence: the sentence's citation vouches for it.
    shows = (next((i for i, s in enumerate(chosen) if s.example), None)
             if question_intent(question) is Intent.HOWTO and not factual else None)
    if shows is None:
        parts.append(" ".join(([lead] if lead else []) + body))
    else:
        parts.append(" ".join(([lead] if lead else []) + body[:shows + 1]))
        parts.append(fenced(chosen[shows].example))
        parts += [" ".join(body[shows + 1:])] if body[shows + 1:] else []
        notes.append("example")
    return CitedAnswer(text="\n\n".join(parts), model_called=client is not None,
                       notes=notes)


__all__ = [
    "FACTUAL_KINDS",
    "Sentence",
    "candidate_sentences",
    "grounded_answer",
    "rank_sentences",
    "select",
]
