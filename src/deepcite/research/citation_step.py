"""The citation step: how every strategy's run ends, written once.

Strategies differ in how they search and in the shape of their answer; they do not
differ in how an answer is written from sources and checked. Every strategy ends here:

1. **Exits.** A cancelled run answers with the passages found so far, quoted and cited
   (:meth:`CitationStep.stopped`); a spent budget with the same passages
   (:meth:`CitationStep.quoted`); no sources with the handler's fixed "no sources"
   answer, never a model call for the standard and precision handlers.
2. **The handler.** The configured handler (``citations.handler``) writes the answer
   (:meth:`CitationStep.write`), in the strategy's style when the handler follows one
   (the standard handler does; forced and precision have their own shape). With a
   model too small to write a cited answer, the standard handler's place is taken by
   the grounded answer (:mod:`deepcite.citations.grounded`): the sources' own best
   sentences, each cited, the model only choosing or leading.
3. **Warnings.** Every repair made to the reply is reported (:func:`report_answer`).
4. **Verification and attribution** (:meth:`CitationStep.finish`, called by the
   Researcher for every outcome, exits included): markers resolve, citations are
   verified against their sources, an answer left with no supported citation is
   flagged with passages, the strategy's own passages follow otherwise, and raw HTML is
   made text.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from deepcite.citations.answer import (
    evidence_answer,
    evidence_list,
    not_found_answer,
)
from deepcite.citations.answer_mode import use_grounded
from deepcite.citations.attribution import Attribution, attribute
from deepcite.citations.cited_answer import CitedAnswer
from deepcite.citations.evidence import evidence_sources
from deepcite.citations.grounded import grounded_answer
from deepcite.citations.handlers import DEFAULT_HANDLER, AnswerStyle, CitationHandler
from deepcite.citations.markers import clean_markers
from deepcite.citations.question_match import Similarity, dense_similarity, meaning_available
from deepcite.citations.sentence_vectors import store_for
from deepcite.citations.supported_first import (
    strip_fake_citations,
    supported_first,
    unsupported_last,
)
from deepcite.citations.text import neutralise_html
from deepcite.citations.verify import Verification, verify
from deepcite.errors import ConfigError, DeepciteError
from deepcite.research.context import RunContext, StrategyOutcome
from deepcite.research.steps import flag_unsupported, report_answer
from deepcite.text.frames import frame, frame_for
from deepcite.types import CitationCheck, Finding, PhaseStarted, Source, VerificationCounts

# The frame of each exit in English; every answer writes it in the question's language
# (:func:`deepcite.text.frames.frame_for`).
CANCELLED_INTRO = frame("cancelled")
BUDGET_INTRO = frame("budget")
ERROR_INTRO = frame("error")
EVIDENCE_HEADING = frame("evidence")
NOT_ANSWERED_INTRO = frame("not_answered")


class CitationStep:
    """The end of one run: exits, handler, warnings, verification. See the module doc."""

    def __init__(self, context: RunContext) -> None:
        self._ctx = context

    @property
    def handler(self) -> CitationHandler:
        """The handler this run answers with (resolved once per run)."""
        return self._ctx.handler

    def answer(self, question: str, sources: list[Source],
               by_iteration: Mapping[int, list[str]], findings: list[Finding], *,
               style: AnswerStyle | None = None, draft: str | None = None,
               evidence: bool = False) -> StrategyOutcome:
        """The strategy's outcome: one answer over ``sources`` by the configured handler.

        ``style`` and ``draft`` go to the handler (see :meth:`write`). With
        ``evidence`` the best passages follow a usable answer as "Evidence:", shown
        after verification so they never count as the answer's own support.
        """
        ctx = self._ctx
        sources = self.with_pinned(sources)
        if ctx.cancel.cancelled:
            return self.stopped(question, sources, by_iteration, findings)
        calls_model = draft is None or not self.handler.follows_strategy
        if sources and calls_model and not ctx.budget_left(model_calls=1):
            return self.quoted(question, sources, by_iteration, findings,
                               intro=frame_for("budget", question))
        ctx.phase("synthesis")
        cited = self.write(question, sources, style=style, draft=draft)
        if cited is None:
            return self.stopped(question, sources, by_iteration, findings)
        self.report(cited)
        passages = ""
        if evidence and sources and cited.fallback is None and "uncited" not in cited.notes:
            passages = f"{frame_for('evidence', question)}\n\n{evidence_list(question, sources)}"
        done = [*findings, Finding(phase="synthesis", question=question, content=cited.text)]
        return StrategyOutcome(cited.text, sources, dict(by_iteration), done,
                               passages=passages)

    def write(self, question: str, sources: list[Source], *,
              style: AnswerStyle | None = None, draft: str | None = None
              ) -> CitedAnswer | None:
        """The handler's answer, unreported; ``None`` when the run was cancelled while
        the model wrote it (a reply cut off mid-way is no answer).

        ``style`` asks for the strategy's prompt and length; ``draft`` is a reply the
        strategy already has (the agent's last turn), to be checked instead of asking
        again. Handlers that follow a strategy (standard) take both; forced and
        precision answer in their own shape from the same sources.
        """
        brief = self._ctx.brief
        style = style or brief.style
        if draft is None and sources and self.grounded:
            cited = self._grounded(question, sources)
        else:
            prior = brief.handler_context(has_sources=bool(sources))
            shown = sources if draft is not None else self.evidence(question, sources)
            cited = self.handler.answer(question, shown, prior_knowledge=prior,
                                        style=style, draft=draft)
            if self.handler.follows_strategy and sources:
                cited = self._backed_by_whole(question, sources, cited)
        if cited.model_called and self._ctx.cancel.cancelled:
            return None
        return cited

    def _backed_by_whole(self, question: str, sources: list[Source],
                         cited: CitedAnswer) -> CitedAnswer:
        """``cited`` with its fallback, or the passages its "cited no source" flag points
        to, drawn again from the whole ``sources`` and by meaning.

        The fallback for an unusable reply is the grounded answer (the sources' best
        sentences, a short answer first for a factual question; no model call), quoted
        passages when no sentence is on the question.

        The handler saw each source's evidence passages only, chosen by the question's
        words to keep the prompt short; quoting from those alone missed the sentence
        that answers a paraphrased question (SQuAD, the bundled model behind llama.cpp's
        server: gold paragraph cited 70% -> 83%, gold answer 60% -> 77%;
        ``docs/benchmarks.md``). Answers the model wrote and cited are left as they are.
        """
        similarity = self.similarity
        if cited.fallback is not None and cited.model_called:
            grounded = grounded_answer(question, sources, avoid=self._ctx.brief.avoid,
                                       similarity=similarity)
            intro = frame_for("fallback", question)
            cited.text = (f"{intro}\n\n{grounded.text}" if grounded is not None
                          else evidence_answer(question, sources, intro=intro,
                                               similarity=similarity))
        elif cited.unflagged is not None:  # no claim of the reply a source backs
            cited.text = supported_first(cited.unflagged, question, sources,
                                         keep_model_text=self.keeps_model_text,
                                         avoid=self._ctx.brief.avoid,
                                         similarity=similarity)
        return cited

    def evidence(self, question: str, sources: list[Source]) -> list[Source]:
        """``sources`` as the model is shown them: each one's passages that bear on the
        question (:func:`~deepcite.citations.evidence.evidence_sources`), within
        ``citations.evidence_chars``; whole with 0. The run keeps the full sources, so
        verification and attribution still read every source's whole text."""
        budget = self._ctx.settings.citations.evidence_chars
        if not budget or not sources:
            return sources
        # By the words alone: a model reads a paraphrase well enough once the passage is
        # in front of it, and encoding every passage of every source would cost seconds
        # per answer (and the encoder's load) to save a few hundred tokens.
        return evidence_sources(question, sources, budget)

    @functools.cached_property
    def grounded(self) -> bool:
        """Whether this run's answers are built from the sources' own sentences.

        Only for the standard handler (forced and precision have their own shape) and
        only where :func:`~deepcite.citations.answer_mode.use_grounded` says so: the
        ``citations.answer_mode`` setting, or in ``auto`` a model too small to write a
        cited answer (the bundled one).
        """
        return self.handler.name == DEFAULT_HANDLER and use_grounded(
            self._ctx.settings, self._ctx.client)

    @functools.cached_property
    def keeps_model_text(self) -> bool:
        """Whether model text no source supports is kept below the answer, flagged.

        Not for a model too small to write a cited answer (the bundled one): what it
        writes unsupported is invented more often than not, so it is left out. A larger
        model's unsupported text may still help a reader who checks it.
        """
        return not use_grounded(self._ctx.settings, self._ctx.client)

    @property
    def similarity(self) -> Similarity | None:
        """How sentences are scored by meaning in this run; ``None`` by words alone.

        Through the data dir's sentence vector store
        (:mod:`~deepcite.citations.sentence_vectors`): a sentence an earlier question,
        run or process encoded is not encoded again."""
        if not self._by_meaning:
            return None
        return functools.partial(dense_similarity,
                                 store=store_for(self._ctx.settings.data_dir))

    def _grounded(self, question: str, sources: list[Source]) -> CitedAnswer:
        """The grounded answer, or quoted passages when no sentence is relevant."""
        cited = grounded_answer(question, sources, self._ctx.client,
                                avoid=self._ctx.brief.avoid, similarity=self.similarity)
        if cited is not None:
            return cited
        return CitedAnswer(text=not_found_answer(question, sources),
                           model_called=False,
                           fallback="no sentence of the sources answers the question")

    def _checked_similarity(self) -> Similarity | None:
        """:attr:`similarity` where a setting it cannot honour has already ended the run
        with its error: the answer is then rebuilt by words alone, not raised again."""
        try:
            return self.similarity
        except ConfigError:
            return None

    @functools.cached_property
    def _by_meaning(self) -> bool:
        """Whether grounded answers weigh sentences by meaning (``citations.sentence_meaning``).

        Lexical overlap misses the paraphrase a question makes of its answer ("how did
        he describe himself" for "he declared that he was the flail of God"); the local
        sentence encoder finds it. ``auto`` uses it whenever the meaning or embeddings
        extra is installed (:mod:`deepcite.citations.sentence_meaning`; measured in
        ``docs/benchmarks.md``: gold answer 81% -> 87% on SQuAD with the bundled model);
        ``on`` without it is a one-line error.
        """
        mode = self._ctx.settings.citations.sentence_meaning
        if mode == "off":
            return False
        available = meaning_available()
        if mode == "on" and not available:
            raise ConfigError("citations.sentence_meaning = 'on' needs a sentence encoder: "
                              "pip install 'deepcite[meaning]' (or set it to 'auto')")
        return available

    def with_pinned(self, sources: list[Source]) -> list[Source]:
        """``sources`` with the run's pinned sources (the user's materials) first and a
        follow-up's earlier sources last.

        The pinned sources are the evidence the user handed in, so no ranking or cut may
        leave them out. A follow-up answers from its parent's sources as well as from
        what its own search found: asked about the material the first answer came from,
        its search alone may find nothing, and the answer was then written from the
        model's memory of the earlier answer instead of from any source.
        """
        pinned = self._ctx.pinned
        prior = self._ctx.brief.prior_sources
        if not pinned and not prior:
            return sources
        numbers = {s.number for s in pinned}
        merged = [*pinned, *(s for s in sources if s.number not in numbers)]
        numbers.update(s.number for s in sources)
        return [*merged, *(s for s in prior if s.number not in numbers)]

    def report(self, cited: CitedAnswer, where: str = "") -> None:
        """Warn about the repairs made to ``cited`` (``where``: which part of the answer)."""
        report_answer(self._ctx, cited, where)

    def stopped(self, question: str, sources: list[Source],
                by_iteration: Mapping[int, list[str]], findings: list[Finding]
                ) -> StrategyOutcome:
        """The cancelled exit: the passages found so far, quoted and cited."""
        sources = self.with_pinned(sources)
        answer = evidence_answer(question, sources, intro=frame_for("cancelled", question))
        return StrategyOutcome(answer, sources, dict(by_iteration), list(findings),
                               cancelled=True)

    def quoted(self, question: str, sources: list[Source],
               by_iteration: Mapping[int, list[str]], findings: list[Finding], *,
               intro: str) -> StrategyOutcome:
        """An answer of quoted, cited passages under ``intro`` (budget spent, error)."""
        sources = self.with_pinned(sources)
        answer = evidence_answer(question, sources, intro=intro)
        return StrategyOutcome(answer, sources, dict(by_iteration), list(findings))

    def finish(self, question: str, outcome: StrategyOutcome) -> FinishedAnswer:
        """The answer as it may leave the run, with its verification and attribution.

        In this order, the same for every strategy and every exit: markers resolve,
        citations are verified, uncited factual sentences a source strongly supports
        are attributed to it (the rest are listed as unsupported), an answer left with
        no supported citation is flagged with passages, an answer with some is
        reordered so its unsupported sentences follow below a flag
        (:func:`~deepcite.citations.supported_first.unsupported_last`; the strategy's
        own passages follow), and raw HTML is made text.
        """
        answer = strip_fake_citations(outcome.answer)
        answer, _ = clean_markers(answer, {s.number for s in outcome.sources})
        checked = self._verify(answer, outcome.sources)
        if checked is not None:
            answer = checked.text
        attributed = self._attribute(answer, outcome.sources)
        if attributed is not None:
            answer = attributed.text
        answer, flagged = flag_unsupported(
            self._ctx, question, answer, outcome.sources, checked,
            attributed=len(attributed.added) if attributed else 0,
            keep_model_text=self.keeps_model_text, similarity=self._checked_similarity(),
            guess=bool(getattr(self.handler, "guesses", False)))
        if not flagged and attributed is not None and attributed.unsupported_sentences:
            # supported sentences lead; the unsupported ones follow below a flag
            answer = unsupported_last(answer, attributed.unsupported_sentences, question)
        if outcome.passages.strip() and not flagged:  # a flag brings its own passages
            answer = f"{answer.rstrip()}\n\n{outcome.passages.strip()}"
        unsupported = [] if flagged or attributed is None else attributed.unsupported_sentences
        return FinishedAnswer(neutralise_html(answer), checked, unsupported)

    def _attribute(self, answer: str, sources: list[Source]) -> Attribution | None:
        """Cite what the sources strongly support; ``None`` without sources or checks.

        Runs after verification so that a sentence whose wrong citation was removed can
        be given the source that really holds it; the model is asked about undecided
        sentences only when ``citations.verify_with_model`` allows model checks.
        """
        cfg = self._ctx.settings.citations
        if not cfg.verify or not sources:
            return None
        self._ctx.emit(PhaseStarted(phase="verify"))  # no step: the plan's count is kept
        model = self._ctx.client if cfg.verify_with_model else None
        try:
            result = attribute(answer, sources, model=model,
                               mark_unsupported=cfg.mark_unsupported)
        except DeepciteError as exc:
            self._ctx.warn("verify_failed", f"Attribution failed ({exc}); answer unchanged")
            return None
        return result

    def _verify(self, answer: str, sources: list[Source]) -> Verification | None:
        """Check every citation against its source before the answer leaves the run."""
        cfg = self._ctx.settings.citations
        if not cfg.verify or not sources:
            return None
        model = self._ctx.client if cfg.verify_with_model else None
        try:
            checked = verify(answer, sources, model=model, unsupported=cfg.unsupported)
        except DeepciteError as exc:
            self._ctx.warn("verify_failed",
                           f"Citation check failed ({exc}); answer unchecked")
            return None
        if checked.unsupported:
            done = "removed" if cfg.unsupported == "remove" else "flagged"
            self._ctx.warn("unsupported_citations",
                           f"{checked.unsupported} citation(s) their source does not "
                           f"support were {done}")
        return checked


@dataclass(frozen=True)
class FinishedAnswer:
    """The answer as it leaves a run, and what the checks found on the way."""

    text: str
    verification: Verification | None
    unsupported_sentences: list[str] = field(default_factory=list)


def verification_counts(checked: Verification) -> VerificationCounts:
    """The counts of a verification, as the result carries them."""
    return VerificationCounts.model_validate(
        checked.model_dump(include=set(VerificationCounts.model_fields)))


def citation_checks(checked: Verification) -> list[CitationCheck]:
    """One typed record per checked citation, as the result carries them."""
    return list(checked.citations)
