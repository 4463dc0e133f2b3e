"""The Researcher: coordinates research runs.

It owns the SourceNumbering, picks the strategy through the factory, hands every part
the same frozen settings snapshot, and reports progress only as typed events through
one callback, so the CLI, the web app and other front ends never reach into the engine.
Whatever goes wrong after sources were found, the result keeps them.

One Researcher serves many runs, one at a time: a detailed report runs one research per
section and follow-ups build on earlier runs. The source numbering is shared, so numbering
continues across runs; everything else is per run - the cancel token, the model usage
the metrics count from, the budget (unless a report shares its own), the warnings.
Used as a context manager it closes its engines (HTTP pools, indexes) at the end.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType

from deepcite.citations.numbering import SourceNumbering
from deepcite.config import Settings
from deepcite.errors import DeepciteError, InputError
from deepcite.llm import ChatClient, model_context_size
from deepcite.llm.client import ChatModel
from deepcite.research.brief import Gathered, RunBrief
from deepcite.research.cancel_token import CancelToken
from deepcite.research.citation_step import (
    CitationStep,
    citation_checks,
    verification_counts,
)
from deepcite.research.context import RunContext, StrategyOutcome
from deepcite.research.strategies import Strategy, create_strategy
from deepcite.research.threads import run_cancellable
from deepcite.search.base import SearchEngine
from deepcite.search.circuit_breaker import SupportsClose
from deepcite.security.text import valid_utf8
from deepcite.text.frames import frame_for
from deepcite.types import (
    Event,
    Finished,
    QuestionsGenerated,
    ResearchResult,
    RunMetrics,
    SearchDone,
)

logger = logging.getLogger(__name__)

#: How long a cancelled run waits for the step in progress before returning without it.
CANCEL_GRACE_SECONDS = 1.0
#: Questions up to this long are always accepted, however small the model's context.
MIN_QUESTION_LIMIT_CHARS = 300


class Researcher:
    """Runs research for questions with one model, one set of engines and one source numbering."""

    def __init__(
        self,
        settings: Settings,
        llm: ChatModel,
        engines: Sequence[SearchEngine],
        on_event: Callable[[Event], None] | None = None,
        *,
        notices: Sequence[str] = (),
    ) -> None:
        self.settings = settings
        self.numbering = SourceNumbering()
        self._on_event = on_event
        self._engines = list(engines)
        self._notices = list(notices)
        self._lock = threading.Lock()
        self._token = CancelToken()
        self._running = False
        self._closed = False
        self.client = ChatClient(
            llm, context_size=model_context_size(llm, settings.llm.context_size),
            max_tokens=settings.llm.max_tokens,
            on_call=self._emit,
        )

    def __enter__(self) -> Researcher:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def cancel_token(self) -> CancelToken:
        """The token of the run in progress, or of the next run when none is."""
        with self._lock:
            return self._token

    def cancel(self) -> None:
        """Stop the run in progress at its next check; ``run`` then returns what it has.

        Called between runs, it cancels the next run. It never reaches further: every
        run ends by giving the Researcher a fresh token for the one after.
        """
        with self._lock:
            self._token.cancel()

    def close(self) -> None:
        """Close the engines that hold resources; the Researcher runs nothing afterwards.

        A failure to close one engine is logged and the others are still closed.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for engine in self._engines:
            if isinstance(engine, SupportsClose):
                try:
                    engine.close()
                except Exception:  # one engine's cleanup must not leak the others'
                    logger.warning("closing engine %s failed", engine.name, exc_info=True)

    def run(self, question: str, *, brief: RunBrief | None = None) -> ResearchResult:
        """Research ``question``; returns a result whose every ``[n]`` resolves.

        ``brief`` is what the run builds on (a report section's written parts and
        budget, a follow-up's earlier answer); see :class:`RunBrief`. Runs one at a
        time: a second call while one is in progress is refused.
        """
        question = " ".join(valid_utf8(question).split())
        if not question:
            raise InputError("The question is empty - ask something, e.g. "
                             "`deepcite ask \"How do I parse command line arguments?\"`")
        self._check_length(question)
        with self._lock:
            if self._closed:
                raise RuntimeError("this Researcher was closed; build a new one")
            if self._running:
                raise RuntimeError("a Researcher runs one question at a time")
            self._running = True
            token = self._token
        cut_before = self.client.cut_replies
        try:
            result = self._run(question, token, brief or RunBrief())
            cut = self.client.cut_replies - cut_before
            if cut:  # the user should know an answer may end mid-sentence
                result = result.with_warnings([("reply_cut", (
                    f"{cut} model repl{'y was' if cut == 1 else 'ies were'} cut at the "
                    "token limit and kept as they came - raise llm.max_tokens"))])
            return result
        finally:
            with self._lock:
                self._running = False
                self._token = CancelToken()

    @contextmanager
    def own_run(self, brief: RunBrief | None = None) -> Iterator[RunContext]:
        """The context of one run that its caller drives itself (a document check, which
        searches and judges claim by claim rather than answering one question).

        The run holds the Researcher as :meth:`run` does - one at a time, its cancel
        token the one :meth:`cancel` sets, a fresh token for the next run afterwards -
        and gets this Researcher's engines, source numbering, model, budget and events,
        with the skipped engines and a missing engine already warned about.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("this Researcher was closed; build a new one")
            if self._running:
                raise RuntimeError("a Researcher runs one question at a time")
            self._running = True
            token = self._token
        try:
            self.client.should_stop = lambda: token.cancelled
            context = RunContext(self._settings_for(brief or RunBrief()), self.client,
                                 self._engines, self.numbering, token, self._emit,
                                 brief=brief or RunBrief())
            for notice in self._notices:
                context.warn("engine_skipped", notice)
            if not self._engines:
                context.warn("no_engines", "No search engine or collection to search")
            yield context
        finally:
            with self._lock:
                self._running = False
                self._token = CancelToken()

    def gather(self, question: str, *, brief: RunBrief, cancel: CancelToken,
               announce: bool = False) -> Gathered | None:
        """Search ``question`` as :meth:`run` would with ``brief``, and return what was
        found, numbered nowhere; ``None`` when the strategy cannot search apart from
        answering, or the search failed (the run then searches itself).

        Safe to call from several threads at once, and while :meth:`run` answers
        another question: a detailed report researches its parts ahead this way and
        then runs each with the gathered results (``RunBrief.gathered``), in order, so
        sources are numbered as if the parts had been researched one after another.
        With ``announce`` (a search nothing else runs beside: a report's first) every
        progress event is sent. Without, only each search done (:class:`SearchDone`),
        as it happens - the searches are the report's own, and a run's page counts them
        live - but not its phases, steps or queries, which would contradict those of the
        part being written meanwhile: the run that adopts what was found announces the
        queries when it begins (:meth:`_run`). ``cancel`` stops the search.
        """
        question = " ".join(valid_utf8(question).split())
        emit = self._emit if announce else self._emit_searches
        context = RunContext(self._settings_for(brief), self.client, self._engines,
                             SourceNumbering(), cancel, emit, brief=brief)
        strategy = create_strategy(self.settings.research.strategy, context,
                                   lambda m: context.warn("strategy", m))
        context.plan = strategy.plan()  # "step k/N" counts as the run's own would
        try:
            gathered = strategy.gather(question)
            return None if gathered is None else dataclasses.replace(
                gathered, announced=announce)
        except DeepciteError as exc:
            logger.warning("researching %r ahead failed: %s", question, exc)
            return None

    def _settings_for(self, brief: RunBrief) -> Settings:
        """The settings a run with ``brief`` uses: its own iteration count, if it has one."""
        settings = self.settings
        if brief.iterations is not None:
            settings = settings.model_copy(update={"research": settings.research.model_copy(
                update={"iterations": brief.iterations})})
        return settings

    def _run(self, question: str, token: CancelToken, brief: RunBrief) -> ResearchResult:
        started = time.perf_counter()
        self.client.should_stop = lambda: token.cancelled
        context = RunContext(self._settings_for(brief), self.client, self._engines,
                             self.numbering, token, self._emit, brief=brief)
        for notice in self._notices:
            context.warn("engine_skipped", notice)
        if brief.gathered is not None:  # the search ran ahead: its cost and warnings
            context.searches += brief.gathered.searches
            context.search_seconds += brief.gathered.search_seconds
            for earlier in brief.gathered.warnings:
                context.warn(earlier.code, earlier.message)
            if not brief.gathered.announced:  # a report's part: its queries, now it begins
                for iteration, queries in sorted(brief.gathered.by_iteration.items()):
                    context.emit(QuestionsGenerated(iteration=iteration,
                                                    questions=list(queries)))
        if not self._engines:
            context.warn("no_engines", "No search engine or collection to search")
        strategy = create_strategy(self.settings.research.strategy, context,
                                   lambda m: context.warn("strategy", m))
        context.plan = strategy.plan()
        step = CitationStep(context)
        if brief.evidence:
            context.pinned = context.register(brief.evidence)
        error: str | None = None
        try:
            if brief.search_queries == ():  # nothing to search: answer from the evidence
                outcome = step.answer(question, [], {}, [])
            else:
                outcome = self._run_strategy(strategy, question, token)
        except DeepciteError as exc:
            logger.warning("run failed: %s", exc)
            error = str(exc)
        except Exception as exc:  # a bug: logged with its traceback, the passages kept
            logger.exception("the %s strategy failed", strategy.name)
            error = (f"the research strategy stopped unexpectedly ({type(exc).__name__}); "
                     "see the log")
        if error is not None:
            context.warn("run_failed", error)
            outcome = step.quoted(question, strategy.found_sources(), strategy.by_iteration,
                                  [], intro=frame_for("error", question))
        if brief.prior_sources:  # earlier numbers stay valid citations, checked as such
            known = {s.number: s for s in (*brief.prior_sources, *outcome.sources)}
            outcome.sources = [known[n] for n in sorted(known)]
        finished = step.finish(question, outcome)
        answer, checked = finished.text, finished.verification
        usage = context.usage
        metrics = RunMetrics(
            model_calls=usage.calls, prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens, model_seconds=usage.seconds,
            search_seconds=context.search_seconds, searches=context.searches,
            wall_seconds=time.perf_counter() - started, cached_tokens=usage.cached_tokens,
            model=self.client.model_label,
        )
        cancelled = outcome.cancelled or token.cancelled
        self._emit(Finished(cancelled=cancelled, error=error))
        return ResearchResult(
            question=question, answer=answer, strategy=strategy.name,
            handler=context.handler.name, sources=outcome.sources,
            questions_by_iteration=outcome.questions_by_iteration,
            findings=outcome.findings, metrics=metrics, warnings=list(context.warnings),
            cancelled=cancelled, error=error,
            verification=verification_counts(checked) if checked is not None else None,
            citation_checks=citation_checks(checked) if checked is not None else [],
            unsupported_sentences=finished.unsupported_sentences,
        )

    def _check_length(self, question: str) -> None:
        """Refuse a question that would crowd the sources out of the model's context.

        Every prompt of a run carries the question next to the passages; past a quarter
        of the prompt budget there is no room left to answer from, so the run would end
        with nothing found and the real cause hidden.
        """
        limit = max(MIN_QUESTION_LIMIT_CHARS, self.client.prompt_budget_chars // 4)
        if len(question) > limit:
            raise InputError(
                f"The question is {len(question):,} characters; with a "
                f"{self.client.context_size:,}-token model context at most {limit:,} fit - "
                "shorten it, or use a model with a larger context (llm.context_size)")

    @staticmethod
    def _run_strategy(strategy: Strategy, question: str,
                      token: CancelToken) -> StrategyOutcome:
        """Run the strategy in a worker; after a cancel, wait at most CANCEL_GRACE seconds.

        Strategies check the cancel token between steps, but one step can be long: a
        model call that cannot be interrupted (prompt evaluation, a remote provider) or a
        slow web request. Rather than make the user wait for it, the run returns what the
        strategy found so far and leaves that step to finish in the background.
        """
        finished, outcome = run_cancellable(
            lambda: strategy.run(question), cancelled=lambda: token.cancelled,
            grace=CANCEL_GRACE_SECONDS, name="deepcite-strategy")
        if finished and outcome is not None:
            return outcome
        logger.info("cancelled run returns without waiting for its last step")
        return strategy.partial(question)

    def emit(self, event: Event) -> None:
        """Send ``event`` to the callback, as the runs' own events are (report builders
        announce outlines and sections this way)."""
        self._emit(event)

    def _emit_searches(self, event: Event) -> None:
        """Send ``event`` when it is a search done (see :meth:`gather`)."""
        if isinstance(event, SearchDone):
            self._emit(event)

    def _emit(self, event: Event) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event(event)
        except Exception:  # a broken progress display must not kill a run
            logger.exception("event callback failed for %s", type(event).__name__)
