"""The evidence an answer call is given: the passages of each source that bear on the
question, not the whole pages.

A model writing a cited answer reads every token it is sent, and a user on a paid API
pays for each one, on a local GPU waits for it. Most of a page is not about the
question: sent whole, ten sources fill a 2,048-token window before the question is
asked. So the answer prompt gets, for each source, its passages (runs of whole
sentences, about :data:`PASSAGE_CHARS` long) that share most of the question's weighted
terms (:mod:`deepcite.citations.question_match`: rarity over all the passages, the key
phrase, and meaning when an encoder is given), within one budget for all sources:

1. each source's best passage, best sources first, so every source found can be cited;
2. then the next best passages of any source, until the budget is spent;
3. then the opening passage of each source none of whose passages shares a term with
   the question (found by a follow-up on a neighbouring subject), while room is left.

A source that gets none is left out of the prompt (it cannot be cited for this
answer). Passages keep their source's order and
are joined with " … ", so what the model reads is the source's own text. Only the
prompt changes: citations are still checked against each source's full text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepcite.citations import question_match
from deepcite.citations.question_match import Similarity, question_terms, terms_of
from deepcite.citations.text import drop_headings
from deepcite.text.sentences import sentence_spans
from deepcite.types import Source

#: Characters of source text an answer prompt carries by default (about 900 tokens).
EVIDENCE_CHARS = 3600
#: A passage is whole sentences up to about this long (a longer sentence is its own).
PASSAGE_CHARS = 360
GAP = " … "


@dataclass(frozen=True)
class Passage:
    """Whole sentences of one source: ``text[start:end]`` of its normalised text."""

    source: int  # index in the sources given
    position: int  # passage index within its source
    text: str
    score: float


def passages_of(text: str, size: int = PASSAGE_CHARS) -> list[str]:
    """``text`` (headings left out, whitespace normalised) in runs of whole sentences
    about ``size`` long."""
    flat = " ".join(drop_headings(text).split())
    if not flat:
        return []
    found: list[str] = []
    start = end = 0
    for a, b in sentence_spans(flat):
        if end > start and b - start > size:
            found.append(flat[start:end].strip())
            start = a
        end = b
    if end > start:
        found.append(flat[start:end].strip())
    tail = flat[end:].strip()
    if tail:
        found.append(tail)
    return [p for p in found if p]


def _scored(question: str, sources: Sequence[Source],
            similarity: Similarity | None) -> list[Passage]:
    texts = [passages_of(source.text) for source in sources]
    flat = [(i, j, p) for i, ps in enumerate(texts) for j, p in enumerate(ps)]
    terms = [terms_of(p) for _, _, p in flat]
    weights = question_match.weigh(question, terms)
    wanted = question_terms(question)
    cosines = similarity(question, [p for _, _, p in flat]) if similarity and flat else None
    scored = []
    for k, ((i, j, text), held) in enumerate(zip(flat, terms, strict=True)):
        lexical = weights.coverage(held) if wanted & set(held) else 0.0
        meaning = max(cosines[k], 0.0) if cosines and lexical else 0.0
        scored.append(Passage(i, j, text, lexical + meaning))
    return scored


def select_evidence(question: str, sources: Sequence[Source], budget_chars: int = EVIDENCE_CHARS,
                    *, similarity: Similarity | None = None) -> dict[int, str]:
    """The excerpt of each source worth sending for ``question``, by source number.

    Sources with nothing bearing on the question are absent; see the module doc for the
    order passages are taken in. Each excerpt is its passages in source order, joined
    with :data:`GAP`, and starts or ends with it where the source goes on.
    """
    scored = _scored(question, sources, similarity)
    passages = [p for p in scored if p.score > 0]
    best: dict[int, Passage] = {}
    for passage in passages:
        held = best.get(passage.source)
        if held is None or passage.score > held.score:
            best[passage.source] = passage
    chosen: list[Passage] = []
    used = 0
    firsts = sorted(best.values(), key=lambda p: p.source)  # sources come best first
    rest = sorted((p for p in passages if best[p.source] is not p),
                  key=lambda p: (-p.score, p.source, p.position))
    openings = [p for p in scored if p.position == 0 and p.source not in best]
    for passage in [*firsts, *rest, *openings]:
        cost = len(passage.text) + len(GAP)
        if chosen and used + cost > budget_chars:
            continue
        chosen.append(passage)
        used += cost
    taken = {p.source for p in chosen}
    counts: dict[int, int] = {}  # passages per source chosen from (split once, above)
    for passage in scored:
        if passage.source in taken:
            counts[passage.source] = max(counts.get(passage.source, 0), passage.position + 1)
    excerpts: dict[int, str] = {}
    for index, total in counts.items():
        mine = sorted((p for p in chosen if p.source == index), key=lambda p: p.position)
        parts = [GAP.strip()] if mine[0].position else []
        for k, passage in enumerate(mine):
            if k and passage.position != mine[k - 1].position + 1:
                parts.append(GAP.strip())
            parts.append(passage.text)
        if mine[-1].position + 1 < total:
            parts.append(GAP.strip())
        excerpts[sources[index].number] = " ".join(parts)
    return excerpts


def evidence_sources(question: str, sources: Sequence[Source],
                     budget_chars: int = EVIDENCE_CHARS, *,
                     similarity: Similarity | None = None) -> list[Source]:
    """``sources`` as the answer call should see them: each one's excerpt as its text,
    in the same order and with the same numbers; sources without one left out, unless
    none has one (then all are given whole, and the prompt's own share cuts them)."""
    excerpts = select_evidence(question, sources, budget_chars, similarity=similarity)
    if not excerpts:
        return list(sources)
    return [source.model_copy(update={"full_text": excerpts[source.number]})
            for source in sources if source.number in excerpts]


__all__ = ["EVIDENCE_CHARS", "PASSAGE_CHARS", "evidence_sources", "passages_of",
           "select_evidence"]
