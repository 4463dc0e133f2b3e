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

Every call is admitted like a run of the command line
(:func:`deepcite.runs.admission.admit`, :attr:`~deepcite.runs.admission.Door.LOCAL`):
the script runs as the local user, who owns the settings and the history - no server
caps, any stored run to follow up - and a follow-up named by run id is refused with
the same one line as ``deepcite ask --follow-up``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from deepcite.config import Settings, load_settings
from deepcite.errors import InputError
from deepcite.materials import SummaryCache, UserMaterial
from deepcite.research import Researcher
from deepcite.runs import build
from deepcite.runs.admission import Admitted, Door, admit
from deepcite.runs.execute import execute
from deepcite.runs.request import RunRequest
from deepcite.runs.rerun import rerun_plan
from deepcite.runs.sink import CallbackSink, OutlineReviewer, RunSink
from deepcite.store import HistoryStore
from deepcite.types import Event, ResearchResult

#: A material as a script hands it in: the object, or a mapping with url and content.
MaterialInput = UserMaterial | Mapping[str, Any]

__all__ = ["build_researcher", "detailed_report", "quick_summary", "rerun"]


def build_researcher(
    settings: Settings, on_event: Callable[[Event], None] | None = None
) -> Researcher:
    """A Researcher wired from settings: chat model, engines, event callback."""
    return build.build_researcher(settings, on_event)


def quick_summary(
    question: str, *, on_event: Callable[[Event], None] | None = None,
    follow_up: ResearchResult | str | None = None,
    materials: Sequence[MaterialInput] | None = None, materials_enabled: bool = True,
    material_cache: SummaryCache | None = None, **overrides: Any
) -> ResearchResult:
    """Research ``question`` and return a short cited answer.

    ``overrides`` are settings (see module docstring), e.g. ``collections=["demo"]``.
    ``follow_up`` is an earlier result to build on - the object
    (``HistoryStore.get(id).result``), or a stored run's id or unique prefix, read from
    the history as ``deepcite ask --follow-up`` reads it: its answer is what is already
    known, its sources keep their numbers and new ones continue the count.
    ``materials`` are the user's own documents
    (:class:`deepcite.materials.UserMaterial` or mappings with ``url`` and ``content``),
    cited like any source; the web is searched only for what they leave open when the
    question asks to build on them. ``material_cache`` (a
    :class:`deepcite.materials.SummaryCache` kept between the turns of a conversation)
    saves summarising the same material twice. Raises
    :class:`deepcite.errors.DeepciteError` subclasses with one-line messages.
    """
    where = "quick_summary()"
    ref = follow_up if isinstance(follow_up, str) else None
    request = _request(question, where, mode="quick", materials=materials,
                       materials_enabled=materials_enabled, parent_id=ref)
    sink = _sink(on_event, where)
    if follow_up is not None and not isinstance(follow_up, (ResearchResult, str)):
        raise InputError(f"{where}: follow_up must be an earlier ResearchResult "
                         f"(e.g. HistoryStore.get(id).result) or a stored run's id, "
                         f"not {build.kind(follow_up)}")
    admitted = _admitted(request, load_settings(overrides))
    parent = follow_up if isinstance(follow_up, ResearchResult) else admitted.parent_result
    return execute(admitted.request, admitted.settings, sink, parent=parent,
                   cache=material_cache)


def detailed_report(
    question: str, *, on_event: Callable[[Event], None] | None = None,
    outline_review: OutlineReviewer | None = None,
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
    where = "detailed_report()"
    if outline_review is not None and not callable(outline_review):
        raise InputError(f"{where}: outline_review must be a function taking "
                         f"the outline, or None, not {build.kind(outline_review)}")
    request = _request(question, where, mode="detailed", materials=materials,
                       materials_enabled=materials_enabled,
                       review=outline_review is not None)
    sink = _sink(on_event, where)
    admitted = _admitted(request, load_settings(overrides))
    return execute(admitted.request, admitted.settings, sink, reviewer=outline_review,
                   cache=material_cache)


def rerun(ref: str, *, on_event: Callable[[Event], None] | None = None) -> ResearchResult:
    """Run stored run ``ref`` (an id or unique prefix) again: its request with the
    settings it was made with (this machine's secrets, data folder and store), kept in
    the history as a new run. ``compare_runs(store.get(ref), result)`` shows what
    changed. Materials are not kept in the history, so a rerun goes without them."""
    if not isinstance(ref, str):
        raise InputError(f"rerun() takes a run id (str), not {build.kind(ref)}")
    sink = _sink(on_event, "rerun()")
    settings = load_settings()
    with HistoryStore.open(settings) as store:
        plan = rerun_plan(store.get(ref), settings)
        admitted = admit(store, plan.request, plan.settings, Door.LOCAL)
        with admitted.record(store) as recorder:
            result = admitted.run(recorder, sink)
    return result.with_warnings([("other", note) for note in plan.notes])


def _admitted(request: RunRequest, settings: Settings) -> Admitted:
    """``request`` admitted as the local user's run, its parent (if it names one) read
    from the history of ``settings``, which is opened for that only."""
    with _history(settings, request.parent_id is not None) as store:
        return admit(store, request, settings, Door.LOCAL)


@contextmanager
def _history(settings: Settings, needed: bool) -> Iterator[HistoryStore | None]:
    """The history store of ``settings`` when ``needed``, closed after; else ``None``."""
    if not needed:
        yield None
        return
    with HistoryStore.open(settings) as store:
        yield store


def _request(question: object, where: str, *, mode: str,
             materials: Sequence[MaterialInput] | None, materials_enabled: bool,
             review: bool = False, parent_id: str | None = None) -> RunRequest:
    """The run request of an API call; a wrong argument is an :class:`InputError`."""
    if not isinstance(question, str):
        raise InputError(f"{where} takes the question as text (str), not {build.kind(question)}")
    if materials is not None and (isinstance(materials, (str, bytes))
                                  or not isinstance(materials, Sequence)):
        raise InputError("materials must be a list of UserMaterial objects or mappings "
                         f"with url and content, not {build.kind(materials)}")
    return RunRequest.parse(question=question, mode=mode, materials=list(materials or []),
                            materials_enabled=materials_enabled, review_outline=review,
                            parent_id=parent_id)


def _sink(on_event: Callable[[Event], None] | None, where: str) -> RunSink | None:
    if on_event is not None and not callable(on_event):
        raise InputError(f"{where}: on_event must be a function taking an event, or None, "
                         f"not {build.kind(on_event)}")
    return CallbackSink(on_event) if on_event is not None else None
