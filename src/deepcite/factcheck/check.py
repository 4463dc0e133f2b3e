"""Checking a document claim by claim: the run behind ``deepcite check``.

:func:`run_check` takes a :class:`~deepcite.research.Researcher` - its engines (the
run's collections, web engines), model, budget, cancel token and events - and a
document, and for each claim of :func:`~deepcite.factcheck.claims.split_claims`, in
document order:

1. announces it (``PhaseStarted`` ``check``, step ``k`` of ``total``: "claim 3 of 12");
2. reuses the verdict of an earlier version of the document when the claim's text is
   unchanged (``previous``), its sources numbered again in this result;
3. searches the claim's words on every engine, once per set of words: claims saying
   the same things share one search (and every search counts against the run's
   budget; with the budget spent, a claim is judged from what earlier searches found);
4. judges it without a model (:mod:`deepcite.factcheck.judge`); with a capable model,
   a claim left undecided may get one model call (:mod:`deepcite.factcheck.
   model_judge`), whose verdict counts only with a verbatim quote;
5. numbers the passages its evidence quotes as the result's sources.

Cancelling stops at the next claim (or search) and returns the claims checked so far.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence

from deepcite.citations.answer_mode import use_grounded
from deepcite.errors import DeepciteError
from deepcite.factcheck.claims import Claim, clean_claim, split_claims
from deepcite.factcheck.judge import Judgement, judge, terms_of
from deepcite.factcheck.meaning import Meaning, load_meaning
from deepcite.factcheck.model_judge import ask_model
from deepcite.factcheck.names import capitalised_inside
from deepcite.factcheck.referents import resolve_pronouns
from deepcite.factcheck.render import annotate
from deepcite.research.context import RunContext
from deepcite.research.fulltext import add_full_text
from deepcite.research.parallel import run_searches
from deepcite.research.researcher import Researcher
from deepcite.text.cjk import has_cjk
from deepcite.text.frames import frame
from deepcite.text.language import DEFAULT, detect
from deepcite.text.sentences import sentence_spans
from deepcite.types import (
    ClaimEvidence,
    ClaimVerdict,
    Finished,
    PhaseStarted,
    ResearchResult,
    RunMetrics,
    SearchResult,
    Source,
)

__all__ = ["STRATEGY", "run_check"]

logger = logging.getLogger(__name__)

#: What a check's result names as its strategy and handler.
STRATEGY = "check"
#: The longest query a claim is searched with (a long sentence is cut at a word).
MAX_QUERY_CHARS = 300
#: Below this share of its words found, a claim is not worth a model call.
MODEL_FLOOR = 0.3
_MARK = re.compile(r"\[(\d+)\]")
_HEADING_LINE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_LABEL_CHARS = 80


def _label(document: str, title: str | None) -> str:
    """The result's question: the title given, else the document's first heading, else
    its first words."""
    if title and title.strip():
        return " ".join(title.split())
    heading = _HEADING_LINE.search(document)
    if heading is not None:
        return " ".join(heading.group(1).split())[:_LABEL_CHARS]
    words = " ".join(clean_claim(document[:400]).split())
    spans = sentence_spans(words)
    first = words[: spans[0][1]] if spans else words
    if len(first) > _LABEL_CHARS:
        first = first[:_LABEL_CHARS].rsplit(" ", 1)[0] + "\u2026"
    return first or "Document check"


def _query(claim: Claim, said: str | None = None) -> str:
    text = clean_claim(said or claim.text)
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]
    return text


def _as_result(source: Source) -> SearchResult:
    return SearchResult(title=source.title or source.url, url=source.url,
                        snippet=source.snippet or source.text or source.title or source.url,
                        engine=source.engine, full_text=source.full_text,
                        published=source.published, metadata=dict(source.metadata))


class _Check:
    """One check in progress: its run context, search cache and verdicts so far."""

    def __init__(self, context: RunContext, document: str,
                 materials: Sequence[SearchResult], ask: bool,
                 meaning: Meaning | None = None, claims: Sequence[Claim] = ()) -> None:
        self.ctx = context
        self.meaning = meaning
        self.materials = list(materials)
        self.ask = ask
        self.names = frozenset(capitalised_inside([document]))
        self.language = detect(document)  # the notes' words, as the document's
        # what each claim opening with "it" says of its subject (the text searched and
        # judged; the claim keeps its own)
        self.said = resolve_pronouns(document, claims)
        self.cache: dict[frozenset[str], list[SearchResult]] = {}
        self.found: list[SearchResult] = []  # every passage found, for claims unsearched

    def search(self, claim: Claim) -> list[SearchResult] | None:
        """What the claim's words find (from the cache when another claim searched the
        same words); ``None`` when the budget or a cancel left it unsearched."""
        referent = self.said.get(claim.number)
        query = _query(claim, referent.text if referent is not None else None)
        key = terms_of(query) or frozenset({query.lower()})
        if key in self.cache:
            return self.cache[key]
        ctx = self.ctx
        engines = len(ctx.engines)
        if not engines or ctx.cancel.cancelled or not ctx.budget_left(searches=engines):
            return None
        if not ctx.budget.reserve_searches(1, per_query=engines):
            return None
        outcomes = run_searches([query], ctx.engines,
                                max_results=ctx.settings.search.max_results,
                                concurrency=ctx.settings.search.concurrency,
                                cancel=ctx.cancel)
        done = ctx.record_searches(claim.number, outcomes)
        ctx.budget.refund_searches(engines - done)
        lists = add_full_text(ctx, [o.results for o in outcomes if o.results])
        found = [result for results in lists for result in results]
        self.cache[key] = found
        known = {(r.url, r.snippet) for r in self.found}
        self.found += [r for r in found if (r.url, r.snippet) not in known]
        return found

    def check(self, claim: Claim) -> ClaimVerdict:
        """Search and judge one claim, numbering its evidence as sources."""
        found = self.search(claim)
        passages = [*(found if found is not None else self.found), *self.materials]
        referent = self.said.get(claim.number)
        text = referent.text if referent is not None else claim.text
        judgement = judge(text, passages, names_known=self.names, meaning=self.meaning,
                          subject=referent.subject if referent is not None else "")
        if self.ask and judgement.verdict in ("partly_supported", "not_found") \
                and judgement.score >= MODEL_FLOOR and not self.ctx.cancel.cancelled \
                and self.ctx.budget_left(model_calls=1):
            try:
                asked = ask_model(self.ctx.client, clean_claim(text), passages,
                                  judgement)
            except DeepciteError as exc:
                logger.warning("the model could not judge claim %d: %s", claim.number, exc)
                asked = None
            if asked is not None and asked.verdict != "not_found":
                judgement = asked
        return self.verdict(claim, judgement, passages)

    def verdict(self, claim: Claim, judgement: Judgement,
                passages: Sequence[SearchResult]) -> ClaimVerdict:
        """The claim's record: quotes numbered as sources, the note written with them."""
        numbers: list[int] = []
        for quote in judgement.quotes:
            [source] = self.ctx.register([passages[quote.passage]])
            numbers.append(source.number)
        evidence = [ClaimEvidence(number=number, quote=quote.text, start=quote.start,
                                  end=quote.end)
                    for number, quote in zip(numbers, judgement.quotes, strict=True)]
        return ClaimVerdict(number=claim.number, text=claim.text, start=claim.start,
                            end=claim.end, verdict=judgement.verdict,
                            citations=list(dict.fromkeys(numbers)), evidence=evidence,
                            note=_note(judgement, numbers, self.language))

    def reuse(self, claim: Claim, earlier: ClaimVerdict,
              sources: dict[int, Source]) -> ClaimVerdict:
        """An unchanged claim's verdict from the earlier check, its sources numbered
        again in this one."""
        renumber: dict[int, int] = {}
        for number in dict.fromkeys([*earlier.citations, *(e.number for e in earlier.evidence)]):
            source = sources.get(number)
            if source is not None:
                [again] = self.ctx.register([_as_result(source)])
                renumber[number] = again.number
        evidence = [item.model_copy(update={"number": renumber[item.number]})
                    for item in earlier.evidence if item.number in renumber]
        note = _MARK.sub(lambda m: f"[{renumber.get(int(m.group(1)), int(m.group(1)))}]",
                         earlier.note)
        return ClaimVerdict(number=claim.number, text=claim.text, start=claim.start,
                            end=claim.end, verdict=earlier.verdict,
                            citations=[renumber[n] for n in earlier.citations if n in renumber],
                            evidence=evidence, note=note)


def _checked(check: _Check, claim: Claim) -> ClaimVerdict:
    """``claim`` searched and judged; a bug in judging it leaves it undecided, with a
    warning, and the check goes on: one odd sentence must not cost the claims after it.
    Errors of the run itself (a budget, a model) are :class:`DeepciteError` and stop it."""
    try:
        return check.check(claim)
    except DeepciteError:
        raise
    except Exception as exc:
        logger.exception("claim %d could not be judged", claim.number)
        check.ctx.warn("claim_failed", f"Claim {claim.number} could not be judged "
                                       f"({type(exc).__name__}); see the log")
        return ClaimVerdict(number=claim.number, text=claim.text, start=claim.start,
                            end=claim.end, verdict="not_found",
                            note="not judged: the check failed on this claim")


def as_written(value: str, sentence: str) -> str:
    """``value`` as ``sentence`` writes it: its case, and the rest of a word it cuts
    ("tuesday" read from "roasted on Tuesdays" is shown as "Tuesdays"). A reader checks
    the note against the quote, so it names the source's own words; a value the
    sentence does not hold (one read from a past-tense change, a number in words) is
    shown as the judge gave it."""
    if not value.strip():
        return value
    # (words are cut only in scripts that space them: a CJK value is found as it is)
    start = r"(?<!\w)" if _spaced_letter(value[0]) else ""
    match = re.search(start + re.escape(value), sentence, re.IGNORECASE)
    if match is None:
        return value
    end = match.end()
    if _spaced_letter(value[-1]):
        while end < len(sentence) and _spaced_letter(sentence[end]):
            end += 1
    return sentence[match.start():end]


def _spaced_letter(char: str) -> bool:
    """A letter of a script written with spaces between words: not CJK (whose ranges
    :mod:`deepcite.text.cjk` states once)."""
    return char.isalpha() and not has_cjk(char)


def _note(judgement: Judgement, numbers: Sequence[int], language: str = DEFAULT) -> str:
    """Why the verdict: both values of every contradiction, what was and was not stated,
    in the document's language (a Chinese draft reads "文稿：30 天；来源 [2]：90 天"); the
    values themselves are quoted as the draft and the source write them."""
    def words(key: str, **values: object) -> str:
        return frame(key, language).format(**values)

    listed = words("list_separator").join
    if judgement.verdict == "contradicted":
        return words("clause_separator").join(
            words("note_conflict", draft=c.draft, n=numbers[c.quote],
                  source=as_written(c.source, judgement.quotes[c.quote].text))
            for c in judgement.conflicts)
    if judgement.verdict == "not_found":
        return words("note_not_found")
    first = words("note_source", n=numbers[0]) if numbers else words("note_the_sources")
    if judgement.verdict == "supported":
        return words("note_stated_by", who=first) + (
            words("colon") + listed(judgement.stated) if judgement.stated else "")
    said = words("note_states", who=first, what=listed(judgement.stated)) \
        if judgement.stated else words("note_states_part", who=first)
    return said + (words("clause_separator")
                   + words("note_not_stated", what=listed(judgement.missing))
                   if judgement.missing else "")


def run_check(researcher: Researcher, document: str, *, title: str | None = None,
              previous: ResearchResult | None = None,
              materials: Sequence[SearchResult] = (),
              meaning: Meaning | bool = True) -> ResearchResult:
    """Check ``document`` claim by claim with ``researcher``'s engines and model.

    ``title`` names the check (else the document's first heading or words);
    ``previous`` is an earlier check of another version of the document, whose verdicts
    unchanged claims keep; ``materials`` are passages every claim is judged against
    besides what the search finds (the user's own documents). The result's ``claims``
    are in document order, its ``answer`` the annotated document (without a Sources
    block), every ``[n]`` one of its ``sources``; a cancelled check returns the claims
    checked until then. ``meaning``: the sentence encoder matching claims worded
    otherwise than their sources (``True``: the embeddings extra's, when installed;
    ``False``: words alone).
    """
    started = time.perf_counter()
    claims = split_claims(document)
    earlier = {" ".join(c.text.split()): c for c in previous.claims} if previous else {}
    earlier_sources = {s.number: s for s in previous.sources} if previous else {}
    checked: list[ClaimVerdict] = []
    error: str | None = None
    with researcher.own_run() as ctx:
        ask = not use_grounded(ctx.settings, ctx.client)
        encoder: Meaning | None = None
        if meaning is True:
            encoder = load_meaning(ctx.settings) if any(
                " ".join(c.text.split()) not in earlier for c in claims) else None
        elif meaning is not False:
            encoder = meaning
        check = _Check(ctx, document, materials, ask, encoder, claims)
        try:
            for claim in claims:
                if ctx.cancel.cancelled:
                    break
                ctx.emit(PhaseStarted(phase="check", step=claim.number, total=len(claims)))
                old = earlier.get(" ".join(claim.text.split()))
                if old is not None:
                    checked.append(check.reuse(claim, old, earlier_sources))
                elif not ctx.cancel.cancelled:
                    checked.append(_checked(check, claim))
        except DeepciteError as exc:
            logger.warning("check failed: %s", exc)
            error = str(exc)
        except Exception as exc:  # a bug: logged with its traceback, the verdicts kept
            logger.exception("the check failed at claim %d", len(checked) + 1)
            error = f"the check stopped unexpectedly ({type(exc).__name__}); see the log"
        if error is not None:
            ctx.warn("run_failed", f"{error}; {len(checked)} of {len(claims)} claims checked")
        cancelled = ctx.cancel.cancelled and len(checked) < len(claims)
        usage = ctx.usage
        metrics = RunMetrics(
            model_calls=usage.calls, prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens, model_seconds=usage.seconds,
            search_seconds=ctx.search_seconds, searches=ctx.searches,
            wall_seconds=time.perf_counter() - started, cached_tokens=usage.cached_tokens,
            model=researcher.client.model_label)
        if cancelled:
            ctx.warn("cancelled", f"Cancelled after {len(checked)} of {len(claims)} claims")
        ctx.emit(Finished(cancelled=cancelled, error=error))
        return ResearchResult(
            question=_label(document, title), title=title, answer=annotate(document, checked),
            strategy=STRATEGY, handler=STRATEGY, sources=ctx.run_sources(),
            metrics=metrics, warnings=list(ctx.warnings), cancelled=cancelled, error=error,
            claims=checked)
