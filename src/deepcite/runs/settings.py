"""The settings of one run: the base settings with what its request chose.

One function, :func:`settings_for_run`, turns (base settings, request) into the run's
settings for every front end, so a request field means the same thing from the CLI,
the REST API, MCP and the queue. Only what a request may choose is changed - named
fields (engines, collections, strategy, handler, provider, model, iterations), the
answer mode and the budget; a request never reaches where data is kept, the egress
policy or a server URL, which are the operator's.

:func:`checked_settings` is the submit-time check of the settings, part of
:func:`deepcite.runs.admission.admit` (which every executor and server front end
calls): what would fail the run later fails the request now, as a
:class:`~deepcite.errors.RequestError` naming the request field.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from deepcite.config import Settings
from deepcite.errors import RequestError
from deepcite.runs.checks import check_run
from deepcite.runs.request import RunRequest

__all__ = ["checked_settings", "settings_for_run"]


def _changes(request: RunRequest) -> dict[str, dict[str, Any]]:
    """What ``request`` changes, section by section (``research.iterations`` ...)."""
    changes: dict[str, dict[str, Any]] = {"search": {}, "research": {}, "llm": {},
                                          "citations": {}, "report": {}}
    for key, value in request.settings.items():  # first: the named fields win
        section, _, name = key.partition(".")
        changes[section][name] = value
    if request.engines:
        changes["search"]["engines"] = tuple(request.engines)
    if request.collections:
        changes["search"]["collections"] = tuple(request.collections)
    if request.strategy:
        changes["research"]["strategy"] = request.strategy
    if request.iterations is not None:
        changes["research"]["iterations"] = request.iterations
    if request.budget is not None:
        changes["research"].update(request.budget.limits())
    if request.provider:
        changes["llm"]["provider"] = request.provider
    if request.model:
        changes["llm"]["model"] = request.model
    if request.handler:
        changes["citations"]["handler"] = request.handler
    if request.answer_mode:
        changes["citations"]["answer_mode"] = request.answer_mode
    return changes


#: Request fields named after the setting they change, by setting name and section.
_NAMED = {"engines": "search", "collections": "search", "strategy": "research",
          "iterations": "research", "provider": "llm", "model": "llm",
          "handler": "citations", "answer_mode": "citations"}


def settings_for_run(base: Settings, request: RunRequest) -> Settings:
    """``base`` with ``request``'s choices, validated section by section, so a bad value
    is a one-line :class:`RequestError` naming the request field (422 over the API) at
    submit time, not a failed run later."""
    update: dict[str, BaseModel] = {}
    for name, values in _changes(request).items():
        if not values:
            continue
        section: BaseModel = getattr(base, name)
        try:
            update[name] = type(section).model_validate({**dict(section), **values})
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join([name, *(str(part) for part in problem["loc"])])
            key = str(problem["loc"][0]) if problem["loc"] else ""
            field = (key if key in _NAMED and _NAMED[key] == name else
                     "settings" if f"{name}.{key}" in request.settings else name)
            raise RequestError(field, f"{where}: {problem['msg']}") from None
    return base.model_copy(update=update) if update else base


def checked_settings(base: Settings, request: RunRequest) -> Settings:
    """The run's settings (:func:`settings_for_run`), with the request checked against
    them: a question with text, known collections and engines, a known strategy the
    model can run (:func:`deepcite.runs.checks.check_run`). Admission
    (:func:`deepcite.runs.admission.admit`) calls this for every run a server takes,
    so the API, the pages, MCP, the queue and watches agree."""
    settings = settings_for_run(base, request)
    check_run(settings, question=request.question, collections=request.collections,
              engines=request.engines, strategy=request.strategy,
              provider=request.provider, model=request.model)
    return settings
