"""The Researcher: coordinates one research run.

It owns the SourceRegistry, picks the strategy through the factory, hands every part
the same frozen settings snapshot, and reports progress only as typed events through
one callback, so the CLI, the web app and other front ends never reach into the engine.
Whatever goes wrong after sources were found, the result keeps them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from langchain_core.language_models import BaseChatModel

from deepcite.citations.handlers.standard import evidence_answer
from deepcite.citations.markers import clean_markers
from deepcite.citations.registry import SourceRegistry
from deepcite.citations.text import neutralise_html
from deepcite.citations.verify import Verification, verify
from deepcite.config import Settings
from deepcite.errors import DeepciteError, InputError
from deepcite.llm import ChatClient, model_context_size
from deepcite.research.cancel import CancelToken
from deepcite.research.context import RunContext, StrategyOutcome
from deepcite.research.steps import CANCELLED_INTRO, flag_unsupported
from deepcite.research.strategies import Strategy, create_strategy
from deepcite.search.base import SearchEngine
from deepcite.security.text import valid_utf8
from deepcite.types import Event, Finished, ResearchResult, RunMetrics, Source

logger = logging.getLogger(__name__)

ERROR_INTRO = "The run stopped with an error before an answer was written. Passages found:"
#: How long a cancelled run waits for the step in progress before returning without it.
CANCEL_GRACE_SECONDS = 1.0
#: Questions up to this long are always accepted, however small the model's context.
MIN_QUESTION_LIMIT_CHARS = 300


class Researcher:
    """Runs research for questions with one model, one set of engines and one registry."""

    def __init__(
        self,
        settings: Settings,
        llm: BaseChatModel,
        engines: Sequence[SearchEngine],
        on_event: Callable[[Event], None] | None = None,
        *,
        cancel: CancelToken | None = None,
        notices: Sequence[str] = (),
    ) -> None:
        self.settings = settings
        self.registry = SourceRegistry()
        self.cancel_token = cancel or CancelToken()
        self._on_event = on_event
        self._engines = list(engines)
        self._notices = list(notices)
        self.client = ChatClient(
            llm, context_size=model_context_size(llm, settings.llm.context_size),
            max_tokens=settings.llm.max_tokens,
            on_call=self._emit,
        )
        self.client.should_stop = lambda: self.cancel_token.cancelled

    def cancel(self) -> None:
        """Stop the run at its next check; ``run`` then returns what it has."""
        self.cancel_token.cancel()

    def run(self, question: str) -> ResearchResult:
        """Research ``question``; returns a result whose every ``[n]`` resolves."""
        question = " ".join(valid_utf8(question).split())
        if not question:
            raise InputError("The question is empty - ask something, e.g. "
                             "`deepcite ask \"How do I parse command line arguments?\"`")
        self._check_length(question)
        started = time.perf_counter()
        context = RunContext(self.settings, self.client, self._engines, self.registry,
                             self.cancel_token, self._emit)
        for notice in self._notices:
            context.warn("engine_skipped", notice)
        if not self._engines:
            context.warn("no_engines", "No search engine or collection to search")
        strategy = create_strategy(self.settings.research.strategy, context,
                                   lambda m: context.warn("strategy", m))
        error: str | None = None
        try:
            outcome = self._run_cancellable(strategy, question)
        except DeepciteError as exc:
            logger.warning("run failed: %s", exc)
            error = str(exc)
            context.warn("run_failed", error)
            sources = self.registry.sources()
            outcome = StrategyOutcome(evidence_answer(question, sources, intro=ERROR_INTRO),
                                      sources, {}, [])
        answer, checked = self._checked_answer(question, outcome, context)
        usage = self.client.usage
        metrics = RunMetrics(
            model_calls=usage.calls, prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens, model_seconds=usage.seconds,
            search_seconds=context.search_seconds, searches=context.searches,
            wall_seconds=time.perf_counter() - started,
        )
        cancelled = outcome.cancelled or self.cancel_token.cancelled
        self._emit(Finished(cancelled=cancelled, error=error))
        return ResearchResult(
            question=question, answer=answer, sources=outcome.sources,
            questions_by_iteration=outcome.questions_by_iteration,
            findings=outcome.findings, metrics=metrics, warnings=list(context.warnings),
            warning_codes=list(context.warning_codes), cancelled=cancelled, error=error,
            verification=_counts(checked) if checked is not None else {},
            citation_checks=[c.model_dump() for c in checked.citations] if checked else [],
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

    def _checked_answer(self, question: str, outcome: StrategyOutcome,
                        context: RunContext) -> tuple[str, Verification | None]:
        """The answer as it may leave the run, and its verification (``None`` when off).

        In this order, the same for every strategy: markers resolve, citations are
        verified, an answer left with no supported citation is flagged with passages
        (the strategy's own passages follow otherwise), and raw HTML is made text.
        """
        answer, _ = clean_markers(outcome.answer, {s.number for s in outcome.sources})
        checked = self._verify(answer, outcome.sources, context)
        if checked is not None:
            answer = checked.text
        answer, flagged = flag_unsupported(context, question, answer, outcome.sources, checked)
        if outcome.passages.strip() and not flagged:  # a flag brings its own passages
            answer = f"{answer.rstrip()}\n\n{outcome.passages.strip()}"
        return neutralise_html(answer), checked

    def _verify(self, answer: str, sources: list[Source],
                context: RunContext) -> Verification | None:
        """Check every citation against its source before the answer leaves the run."""
        cfg = self.settings.citations
        if not cfg.verify or not sources:
            return None
        model = self.client if cfg.verify_with_model else None
        try:
            checked = verify(answer, sources, model=model, unsupported=cfg.unsupported)
        except DeepciteError as exc:
            context.warn("verify_failed", f"Citation check failed ({exc}); answer unchecked")
            return None
        if checked.unsupported:
            done = "removed" if cfg.unsupported == "remove" else "flagged"
            context.warn("unsupported_citations",
                         f"{checked.unsupported} citation(s) their source does not support "
                         f"were {done}")
        return checked

    def _run_cancellable(self, strategy: Strategy, question: str) -> StrategyOutcome:
        """Run the strategy in a worker; after a cancel, wait at most CANCEL_GRACE seconds.

        Strategies check the cancel token between steps, but one step can be long: a
        model call that cannot be interrupted (prompt evaluation, a remote provider) or a
        slow web request. Rather than make the user wait for it, the run returns what the
        registry holds and leaves that step to finish in the background.
        """
        box: dict[str, StrategyOutcome | DeepciteError] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["outcome"] = strategy.run(question)
            except DeepciteError as exc:
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="deepcite-strategy", daemon=True).start()
        while not done.wait(0.05):
            if self.cancel_token.cancelled:
                if not done.wait(CANCEL_GRACE_SECONDS):
                    logger.info("cancelled run returns without waiting for its last step")
                    partial = getattr(strategy, "partial", None)
                    if partial is not None:
                        outcome: StrategyOutcome = partial(question)
                        return outcome
                    sources = self.registry.sources()
                    answer = evidence_answer(question, sources, intro=CANCELLED_INTRO)
                    return StrategyOutcome(answer, sources, {}, [], cancelled=True)
                break
        found = box.get("outcome") or box.get("error")
        if isinstance(found, DeepciteError):
            raise found
        if found is None:  # the strategy raised something that is not ours
            raise DeepciteError("the research strategy stopped unexpectedly; see the log")
        return found

    def _emit(self, event: Event) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event(event)
        except Exception:  # a broken progress display must not kill a run
            logger.exception("event callback failed for %s", type(event).__name__)


def _counts(checked: Verification) -> dict[str, int]:
    return {"markers_checked": checked.markers_checked,
            "markers_removed": checked.markers_removed, "supported": checked.supported,
            "partial": checked.partial, "unsupported": checked.unsupported,
            "undecided": checked.undecided, "model_calls": checked.model_calls}
