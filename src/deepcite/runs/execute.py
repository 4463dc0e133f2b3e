"""One run request, executed: the only place a request becomes research.

:func:`execute` is what every front end and executor calls - the CLI, the Python API,
the web app's pool, the MCP tools, the queue workers, ``deepcite rerun`` - so a run
gives the same result wherever it is asked and executed. It builds the Researcher
(engines, collections, a model whose server passes the egress policy), analyses the
user's materials (their summaries cached on disk by content, so a second turn or a
second process does not summarise them again), builds on a follow-up's parent, and
writes a quick answer or a detailed report - or checks a document claim by claim
(``mode="check"``: :func:`deepcite.factcheck.run_check`, on the previous check of the
document's earlier version when the request names one). Its events go to one sink and it is
stopped through one :class:`~deepcite.runs.cancel_scope.CancelScope`.

:func:`run_recorded` adds the history record around it: events stored as they happen,
the end stored however the run ends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from deepcite.citations.avoid import Avoid
from deepcite.config import Settings
from deepcite.materials import SummaryCache, summary_cache_for
from deepcite.materials.redaction import redacting, texts_of
from deepcite.research import Researcher
from deepcite.research.brief import RunBrief
from deepcite.research.material_runs import MaterialInput, Materials, analyse_materials, log_route
from deepcite.research.report.builder import DetailedReport
from deepcite.runs import build
from deepcite.runs.cancel_scope import CancelScope
from deepcite.runs.kept_materials import missing_text, restore_material_text, unchecked_notice
from deepcite.runs.material_engine import MaterialEngine
from deepcite.runs.recorder import Recorder
from deepcite.runs.request import RunRequest
from deepcite.runs.sink import NullSink, OutlineReviewer, RunSink, tee
from deepcite.security.terminal import one_line
from deepcite.store.convert import USER_MATERIAL
from deepcite.text.sentences import cut_at_sentence
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD, content_words
from deepcite.types import PhaseStarted, ResearchResult, WarningCode

__all__ = ["back_reference_queries", "execute", "follow_up_brief", "material_notices",
           "run_question", "run_recorded"]


def execute(request: RunRequest, settings: Settings, sink: RunSink | None = None,
            cancel: CancelScope | None = None, *, parent: ResearchResult | None = None,
            cache: SummaryCache | None = None,
            reviewer: OutlineReviewer | None = None) -> ResearchResult:
    """Research ``request`` with ``settings`` (the run's own: :func:`~deepcite.runs.
    settings.settings_for_run`) and return the result.

    ``parent`` is the stored result ``request.parent_id`` names (the caller reads it,
    from its store); ``cache`` keeps material summaries between runs (by default the
    one on disk every front end and process of this machine shares); ``reviewer``
    answers ``request.review_outline``. Raises :class:`~deepcite.errors.DeepciteError`
    subclasses for what stops a run before it starts (a missing collection, a model
    server the egress policy refuses).
    """
    scope = cancel if cancel is not None else CancelScope()
    events = sink if sink is not None else NullSink()
    given, notices = material_notices(request)
    # a check searches claim by claim: its materials are searched like a collection
    searched = ([MaterialEngine(request.materials)] if request.mode == "check" and given
                else [])
    with build.build_researcher(settings, events.event,
                                extra_engines=searched) as researcher:
        # with security.redact_material_text, no text of them reaches a log line
        with redacting(given, settings) as redaction:
            if parent is not None:
                redaction.add(s.snippet for s in parent.sources
                              if s.engine == USER_MATERIAL and s.snippet)
            result = _research(request, researcher, scope, parent, given, cache, reviewer,
                               events, redaction.add)
        return result.with_warnings(notices)


def _research(request: RunRequest, researcher: Researcher, scope: CancelScope,
              parent: ResearchResult | None, given: list[MaterialInput],
              cache: SummaryCache | None, reviewer: OutlineReviewer | None,
              events: RunSink, redact: Callable[[Iterable[str]], None]) -> ResearchResult:
    """The research of :func:`execute`: materials analysed, then a report or an answer."""
    if request.mode == "check":
        return _check(request, researcher, scope, parent)
    settings = researcher.settings
    review = reviewer if request.review_outline else None
    builder = DetailedReport(researcher, outline_review=review)
    scope.bind(builder.cancel if request.mode == "detailed" else researcher.cancel)
    if given and cache is None:
        cache = summary_cache_for(settings)
    before = researcher.client.usage
    analysed = None
    if given:
        events.event(PhaseStarted(phase="materials"))
        analysed = analyse_materials(researcher, request.question, given, cache=cache)
        redact(texts_of(analysed))  # summaries and claims made from them
    # the analysis calls are the run's too: its metrics count every ModelCall event
    spent = researcher.client.usage.since(before)
    if request.mode == "detailed":
        result = builder.run(request.question, materials=analysed)
    else:
        result = run_question(researcher, request.question, follow_up=parent,
                              materials=analysed)
    if spent.calls:
        metrics = result.metrics
        result = result.model_copy(update={"metrics": metrics.model_copy(update={
            "model_calls": metrics.model_calls + spent.calls,
            "prompt_tokens": metrics.prompt_tokens + spent.prompt_tokens,
            "completion_tokens": metrics.completion_tokens + spent.completion_tokens,
            "model_seconds": metrics.model_seconds + spent.seconds})})
    return result


def _check(request: RunRequest, researcher: Researcher, scope: CancelScope,
           previous: ResearchResult | None) -> ResearchResult:
    """A document check: its claims researched in the run's sources, with the verdicts
    of ``previous`` (the check of the document's earlier version, read and checked at
    admission like a follow-up's parent) kept for the claims that did not change."""
    document = request.document
    if document is None:  # the request's own validation makes this unreachable
        raise ValueError("a check needs its document")
    # imported here: every ask imports this module, and only a check reads claims
    from deepcite.factcheck import run_check

    scope.bind(researcher.cancel)
    result = run_check(researcher, document.text, title=document.title or document.filename,
                       previous=previous if previous is not None and previous.mode == "check"
                       else None)
    return result.model_copy(update={"mode": "check", "question": request.question})


def run_recorded(request: RunRequest, settings: Settings, recorder: Recorder,
                 sink: RunSink | None = None, cancel: CancelScope | None = None, *,
                 parent: ResearchResult | None = None, cache: SummaryCache | None = None,
                 reviewer: OutlineReviewer | None = None,
                 stopping: Callable[[], bool] = lambda: False) -> ResearchResult:
    """:func:`execute`, with every event and the end recorded by ``recorder``.

    A run that raises is stored as failed (with its events) before the error goes on;
    a cancelled run is stored as interrupted when ``stopping()`` says its process is
    the one that stopped it (a server shutting down), else as cancelled.
    """
    try:
        result = execute(request, settings, tee(recorder, sink), cancel, parent=parent,
                         cache=cache, reviewer=reviewer)
    except BaseException as exc:
        recorder.fail(one_line(str(exc)) or type(exc).__name__)
        raise
    recorder.finish(result, interrupted=result.cancelled and stopping())
    return result


def material_notices(request: RunRequest
                     ) -> tuple[list[MaterialInput], list[tuple[WarningCode, str]]]:
    """The materials a run uses, and the notice when the request switched them off."""
    if not request.materials:
        return [], []
    if not request.materials_enabled:
        return [], [("materials_ignored", f"{len(request.materials)} material(s) ignored: "
                     "materials_enabled is false")]
    return list(request.materials), []


def run_question(researcher: Researcher, question: str, *,
                 follow_up: ResearchResult | None = None,
                 materials: Materials | None = None) -> ResearchResult:
    """One quick run on ``researcher``, building on ``follow_up`` and ``materials``.

    A follow-up checks the earlier answer's citations again when it cites them: a
    material passage the history keeps no text of is taken from ``materials`` when
    the same material is handed in again, else the run says which citations it cannot
    check (see :mod:`deepcite.runs.kept_materials`)."""
    brief = RunBrief()
    unchecked: list[tuple[WarningCode, str]] = []
    if follow_up is not None:
        given = [item.material for item in materials.analysis.items] if materials else []
        sources = restore_material_text(follow_up.sources, given)
        follow_up = follow_up.model_copy(update={"sources": sources})
        missing = missing_text(follow_up)
        if missing:
            unchecked.append(("materials", unchecked_notice(missing,
                                                            where="the earlier answer")))
        researcher.numbering.restore(follow_up.sources)
        brief = follow_up_brief(follow_up, researcher.settings)
        pointed = back_reference_queries(question, follow_up)
        if pointed is not None:
            brief = dataclasses.replace(brief, search_queries=pointed)
    if materials is None:
        return researcher.run(question, brief=brief).with_warnings(unchecked)
    ids = materials.usable_ids
    plan = materials.plan(question, ids, limit=researcher.settings.research.max_sources,
                          whole_question=True,
                          budget_chars=researcher.client.prompt_budget_chars)
    brief = dataclasses.replace(brief, evidence=plan.evidence,
                                search_queries=plan.search_queries,
                                style=plan.style(brief.style))
    result = researcher.run(question, brief=brief)
    log_route("answer", plan, len(ids), result)
    notices: Sequence[tuple[WarningCode, str]] = [
        *unchecked, *(("materials", w) for w in materials.warnings)]
    return result.with_warnings(notices)


#: Words by which a follow-up points back at what was asked before instead of naming
#: it: "How do I write one?", "What is its default delimiter?".
BACK_REFERENCES = frozenset(
    ["it", "its", "it's", "this", "that", "these", "those", "they", "them", "their",
     "theirs", "one", "ones", "such", "same"])
#: Words of the earlier question a pointing follow-up's second search adds at most.
MAX_SUBJECT_WORDS = 4


def back_reference_queries(question: str, parent: ResearchResult) -> tuple[str, ...] | None:
    """What a follow-up that points back at the earlier turn searches: its own question
    first (it leads), then the question with the earlier subject's words it lacks - the
    earlier question's and what that turn searched, so a subject carries along a thread
    of pointing questions. ``None`` for a follow-up that names its own subject: it is
    searched as any question is, and the earlier turns only fill in its answer."""
    words = [w.lower() for w in WORD.findall(question)]
    if not any(w in BACK_REFERENCES for w in words):
        return None
    own = content_words(question)
    subject: list[str] = []
    for text in (parent.question, *parent.questions_by_iteration.get(1, [])):
        for word in (w.lower() for w in WORD.findall(text)):
            if len(word) >= 3 and word not in STOPWORDS and word not in own \
                    and word not in subject:
                subject.append(word)
    if not subject:
        return None
    return question, f"{question} {' '.join(subject[:MAX_SUBJECT_WORDS])}"


def follow_up_brief(parent: ResearchResult, settings: Settings) -> RunBrief:
    """What a follow-up builds on: the parent's answer, cut like a report's written
    context (``report.max_context_chars``), and its sources, whose numbers stay valid.
    A detailed parent contributes its body without the contents list.

    The earlier answer is also what the follow-up must not say again (``avoid``): a
    grounded answer quotes no sentence of it, so "How do I write a CSV file?" after
    "How do I read one?" answers with the writing sentences its own search found,
    not with the reading ones the earlier answer quoted (which its sources, kept for
    their numbers, still rank high for "CSV file")."""
    body = parent.answer
    if body.startswith("## Contents") and "\n## " in body:
        body = "## " + body.split("\n## ", 1)[1]
    prior = cut_at_sentence(body.strip(), settings.report.max_context_chars)
    return RunBrief(prior_knowledge=prior, prior_sources=tuple(parent.sources),
                    avoid=Avoid.said(body, softly=True))
