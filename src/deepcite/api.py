"""The Python API.

>>> from deepcite import quick_summary
>>> result = quick_summary("How do I parse command line arguments?", collections=["demo"])
>>> print(result.answer)

Keyword overrides take the same names as settings: dotted keys are not valid Python
names, so a unique leaf name (``iterations=3``, ``provider="ollama"``) or a section
mapping (``llm={"provider": "ollama", "model": "llama3.2"}``) is used instead.

Scripts call these functions with whatever they have, so arguments are checked here and
a wrong one is a :class:`~deepcite.errors.DeepciteError` subclass with a one-line
message (``InputError`` for arguments, ``ConfigError`` for settings), never a bare
``TypeError`` or ``AttributeError`` from deep inside a run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from deepcite.collections import Collection, LocalSearchEngine, ensure_demo_collection
from deepcite.config import Settings, load_settings
from deepcite.errors import ConfigError, EgressDenied, InputError, ModelError
from deepcite.llm import get_chat_model, resolve_provider
from deepcite.materials import SummaryCache
from deepcite.report.detailed import DetailedReport, OutlineReview, cut_at_sentence
from deepcite.research import Researcher
from deepcite.research.brief import RunBrief
from deepcite.research.material_runs import MaterialInput, Materials, analyse_materials, log_route
from deepcite.search.base import SearchEngine
from deepcite.search.guard import GuardedEngine
from deepcite.search.registry import (
    check_engine_tables,
    get_engine,
    normalise,
    unavailable_reason,
)
from deepcite.security import EgressPolicy
from deepcite.types import Event, ResearchResult, WarningCode

DEMO_COLLECTION = "demo"


def open_collections(settings: Settings, names: Sequence[str]) -> list[Collection]:
    """Open the named collections; ``demo`` is built on first use.

    Names only (:meth:`Collection.named`), never file paths: ``search.collections`` can
    come from a web or MCP request, and a path there must not open a server file."""
    opened = []
    for name in dict.fromkeys(names):
        if name == DEMO_COLLECTION:
            opened.append(ensure_demo_collection(settings))
        else:
            opened.append(Collection.named(name, settings=settings))
    return opened


DEFAULT_WEB_ENGINE = "duckduckgo"


def engine_names_for(settings: Settings) -> list[str]:
    """Engines a run uses: the configured ones, else the web default unless collections
    were given (then the run stays on the user's documents)."""
    names = [normalise(n) for n in settings.search.engines]
    if not names and not settings.search.collections:
        names = [DEFAULT_WEB_ENGINE]
    return list(dict.fromkeys(n for n in names if n != "local"))


def build_engines(settings: Settings) -> tuple[list[SearchEngine], list[str]]:
    """The engines of a run and notices about the ones skipped (offline).

    Each engine is wrapped in a circuit breaker. An engine the user named that cannot
    run (missing key, unknown name) is a ConfigError, except offline, where skipping
    web engines is the point and the run says which it skipped.
    """
    if "local" in (normalise(n) for n in settings.search.engines) and \
            not settings.search.collections:
        raise ConfigError("The local engine searches collections - pass --collection NAME")
    check_engine_tables(settings)
    engines: list[SearchEngine] = []
    notices: list[str] = []
    collections = open_collections(settings, settings.search.collections)
    if collections:
        engines.append(LocalSearchEngine(collections))
    for name in engine_names_for(settings):
        reason = unavailable_reason(name, settings)
        if reason and settings.security.offline:
            notices.append(f"Skipped engine {name}: {reason}")
            continue
        engines.append(get_engine(name, settings))
    failures = settings.engines.circuit_failures
    return [GuardedEngine(engine, failures) for engine in engines], notices


def check_model_egress(settings: Settings) -> None:
    """The model's server must pass the egress policy as a configured service: its
    exact origin is allowed, a link-local or metadata address never is, and an offline
    run may only use a model on this machine or the user's network."""
    provider = resolve_provider(settings)
    urls = {"ollama": settings.llm.ollama_url, "openai": settings.llm.base_url,
            "anthropic": None}
    if provider not in urls:
        return
    url = urls[provider]
    if url is None:
        if settings.security.offline:
            raise ModelError(f"The {provider} provider needs the internet and the run is "
                             "offline - use --provider local or a local server (llm.base_url)")
        return
    try:
        EgressPolicy.from_settings(settings, [url]).check(url)
    except EgressDenied as exc:
        raise ModelError(f"The {provider} server is not allowed: {exc}") from None


def build_researcher(
    settings: Settings, on_event: Callable[[Event], None] | None = None
) -> Researcher:
    """A Researcher wired from settings: chat model, engines, event callback."""
    _require_settings(settings, "build_researcher()")
    _require_callback(on_event, "build_researcher()")
    engines, notices = build_engines(settings)
    check_model_egress(settings)
    return Researcher(settings, get_chat_model(settings), engines, on_event, notices=notices)


def quick_summary(
    question: str, *, on_event: Callable[[Event], None] | None = None,
    follow_up: ResearchResult | None = None,
    materials: Sequence[MaterialInput] | None = None, materials_enabled: bool = True,
    material_cache: SummaryCache | None = None, **overrides: Any
) -> ResearchResult:
    """Research ``question`` and return a short cited answer.

    ``overrides`` are settings (see module docstring), e.g. ``collections=["demo"]``.
    ``follow_up`` is an earlier result (``HistoryStore.get(id).result``) to build on:
    its answer is what is already known, its sources keep their numbers and new ones
    continue the count. ``materials`` are the user's own documents
    (:class:`deepcite.materials.UserMaterial` or mappings with ``url`` and ``content``),
    cited like any source; the web is searched only for what they leave open when the
    question asks to build on them. ``material_cache`` (a
    :class:`deepcite.materials.SummaryCache` kept between the turns of a conversation)
    saves summarising the same material twice. Raises
    :class:`deepcite.errors.DeepciteError` subclasses with one-line messages.
    """
    _require_question(question, "quick_summary()")
    _require_callback(on_event, "quick_summary()")
    _require_parent(follow_up, "quick_summary()")
    settings = load_settings(overrides)
    # One question, one Researcher: close its engines (HTTP pools, open indexes) after.
    with build_researcher(settings, on_event) as researcher:
        given, notices = material_inputs(materials, materials_enabled)
        analysed = (analyse_materials(researcher, question, given, cache=material_cache)
                    if given else None)
        result = run_question(researcher, question, follow_up=follow_up, materials=analysed)
        return with_notices(result, notices)


def detailed_report(
    question: str, *, on_event: Callable[[Event], None] | None = None,
    outline_review: OutlineReview | None = None,
    materials: Sequence[MaterialInput] | None = None, materials_enabled: bool = True,
    material_cache: SummaryCache | None = None, **overrides: Any
) -> ResearchResult:
    """Research ``question`` as a sectioned report (``result.mode == "detailed"``).

    The question is researched once, the model proposes an outline, and every part is
    researched and written on the same Researcher, so numbers run through the whole
    report. ``outline_review`` gets the proposed outline and returns the one to write
    (the same, edited) or ``None`` to stop. ``materials`` as for :func:`quick_summary`;
    the outline binds them to the parts they serve. ``to_markdown(result)`` gives the
    document with its Sources block. Settings as for :func:`quick_summary` (``report.*``
    shape the outline and the writer's context).
    """
    _require_question(question, "detailed_report()")
    _require_callback(on_event, "detailed_report()")
    if outline_review is not None and not callable(outline_review):
        raise InputError("detailed_report(): outline_review must be a function taking "
                         f"the outline, or None, not {_kind(outline_review)}")
    settings = load_settings(overrides)
    with build_researcher(settings, on_event) as researcher:
        given, notices = material_inputs(materials, materials_enabled)
        analysed = (analyse_materials(researcher, question, given, cache=material_cache)
                    if given else None)
        builder = DetailedReport(researcher, outline_review=outline_review)
        return with_notices(builder.run(question, materials=analysed), notices)


def material_inputs(materials: Sequence[MaterialInput] | None, enabled: bool
                    ) -> tuple[list[MaterialInput], list[tuple[WarningCode, str]]]:
    """The materials a run uses, and the notice when they are switched off."""
    if materials is None:
        return [], []
    if isinstance(materials, (str, bytes)) or not isinstance(materials, Sequence):
        raise InputError("materials must be a list of UserMaterial objects or mappings "
                         f"with url and content, not {_kind(materials)}")
    if not materials:
        return [], []
    if not enabled:
        return [], [("materials_ignored", f"{len(materials)} material(s) ignored: "
                     "materials_enabled is false")]
    return list(materials), []


def with_notices(result: ResearchResult, notices: Sequence[tuple[WarningCode, str]]
                 ) -> ResearchResult:
    """``result`` with warnings raised before its run began (materials switched off)."""
    if not notices:
        return result
    return result.model_copy(update={
        "warnings": [*(m for _, m in notices), *result.warnings],
        "warning_codes": [*(c for c, _ in notices), *result.warning_codes]})


def run_question(researcher: Researcher, question: str, *,
                 follow_up: ResearchResult | None = None,
                 materials: Materials | None = None) -> ResearchResult:
    """One quick run on ``researcher``, building on ``follow_up`` and ``materials``."""
    brief = RunBrief()
    if follow_up is not None:
        researcher.registry.restore(follow_up.sources)
        brief = follow_up_brief(follow_up, researcher.settings)
    if materials is None:
        return researcher.run(question, brief=brief)
    ids = materials.usable_ids
    plan = materials.plan(question, ids, limit=researcher.settings.research.max_sources,
                          whole_question=True)
    brief = dataclasses.replace(brief, evidence=plan.evidence,
                                search_queries=plan.search_queries)
    result = researcher.run(question, brief=brief)
    log_route("answer", plan, len(ids), result)
    return with_notices(result, [("materials", w) for w in materials.warnings])


def follow_up_brief(parent: ResearchResult, settings: Settings) -> RunBrief:
    """What a follow-up builds on: the parent's answer, cut like a report's written
    context (``report.max_context_chars``), and its sources, whose numbers stay valid.
    A detailed parent contributes its body without the contents list."""
    body = parent.answer
    if body.startswith("## Contents") and "\n## " in body:
        body = "## " + body.split("\n## ", 1)[1]
    prior = cut_at_sentence(body.strip(), settings.report.max_context_chars)
    return RunBrief(prior_knowledge=prior, prior_sources=tuple(parent.sources))


def _kind(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _require_question(question: object, where: str) -> None:
    if not isinstance(question, str):
        raise InputError(f"{where} takes the question as text (str), not {_kind(question)}")


def _require_parent(parent: object, where: str) -> None:
    if parent is not None and not isinstance(parent, ResearchResult):
        raise InputError(f"{where}: follow_up must be an earlier ResearchResult "
                         f"(e.g. HistoryStore.get(id).result), not {_kind(parent)}")


def _require_settings(settings: object, where: str) -> None:
    if not isinstance(settings, Settings):
        raise InputError(f"{where} takes a Settings object (deepcite.load_settings(...)), "
                         f"not {_kind(settings)}")


def _require_callback(on_event: object, where: str) -> None:
    if on_event is not None and not callable(on_event):
        raise InputError(f"{where}: on_event must be a function taking an event, or None, "
                         f"not {_kind(on_event)}")
