"""A stored report: rendered like the HTML export, with its evidence popovers,
downloads, its thread of follow-ups and the box to ask the next, "Run again" and
"Compare with..."; a document check's is the document with its claims marked by
verdict (:mod:`deepcite.web.pages.checks`), and has no follow-ups.

Any turn of a thread (:mod:`deepcite.runs.thread`) opens the whole thread at that turn.

With accounts a report is shown only to its owner and the admins (another user's run
is as missing as one that never existed); the "Compare with..." list offers only runs
the caller may see (with their owners, for an admin), and what "Run again" starts
belongs to the caller."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from deepcite.errors import ConfigError, DeepciteError, InputError, RequestError, error_line
from deepcite.runs.caller import Caller
from deepcite.runs.thread import Thread, new_sources, read_thread
from deepcite.store import ACTIVE, StoredRun
from deepcite.store.user_rights import Access
from deepcite.types import ResearchResult
from deepcite.web.page_forms import page_words
from deepcite.web.pages._progress import PHASE_LABELS, Progress, progress_of
from deepcite.web.pages._views import Evidence, evidence, report_body, waited_seconds
from deepcite.web.pages.checks import check_view
from deepcite.web.pages.kit import Kit, PageKit, quote_path
from deepcite.web.sessions import Session

#: Runs offered in the "Compare with..." list.
MAX_COMPARE_CHOICES = 20
BUNDLED_NOTICE = "Written by the bundled 135M model: check the citations"
_IN_PROCESS = " (in-process llama.cpp)"
NO_MODEL_NOTICE = ("No model wrote this answer: its sentences are quoted from the sources, "
                   "each checked against the passage it cites")
NO_MODEL_CHECK_NOTICE = ("No model judged these claims: each verdict comes from comparing "
                         "the claim with the words and values of the passages found")


router = APIRouter(include_in_schema=False)


@router.get("/reports/{run_id}", response_class=HTMLResponse)
def report(kit: Kit, request: Request, run_id: str) -> Response:
    session = kit.session_for(request)
    return thread_page(kit, request, session, run_id)


def thread_page(kit: PageKit, request: Request, session: Session, run_id: str,
                status: int = 200, problem: str | None = None,
                asking: str = "") -> Response:
    """The thread ``run_id`` belongs to: its root's report, the follow-ups under it
    and the box to ask the next; the facts, downloads, "Run again" and "Compare
    with..." are those of ``run_id``'s own turn, which is marked. ``problem`` and
    ``asking`` put a refused follow-up back in its box."""
    access = kit.access(session)
    try:
        thread = read_thread(kit.history, run_id, access)
        stored = next(turn for turn in thread.turns if turn.id == thread.asked)
        runs = kit.history.list(search=stored.result.question,
                                limit=MAX_COMPARE_CHOICES, access=access)
        choices = _compare_choices(runs, stored, parent_shown(kit, stored, access),
                                   owners=bool(session.user and session.user.is_admin))
    except DeepciteError as exc:
        return kit.not_found(request, session, str(exc))
    result = stored.result
    if stored.mode == "check":  # its parent is the document's earlier check, not a turn
        root, turns, can_ask = stored, [], False
        check = check_view(stored, f"/runs/{quote_path(stored.id)}/sources/")
    else:
        root, turns, check = thread.root, later_turns(kit, thread), None
        try:
            thread.tip()
            can_ask = True
        except DeepciteError:
            can_ask = False
    return kit.render(request, session, "report.html", status,
                  title=root.result.title or root.result.question, run=stored,
                  result=result, root=root, check=check,
                  body="" if check else report_body(root.result, root.settings,
                                                    kit.state.settings, root.id),
                  turns=turns, can_ask=can_ask,
                  phase_labels=PHASE_LABELS,
                  follow_up_problem=page_words(problem) if problem else None,
                  follow_up_text=asking,
                  evidence=evidence(root.result), exports=kit.usable_exports(),
                  export_base=f"/api/v1/research/{quote_path(stored.id)}/export/",
                  viewer_base=f"/runs/{quote_path(root.id)}/sources/",
                  compare_choices=choices,
                  model_notice=model_notice(root.result, root.settings),
                  searched=searched(root.settings),
                  duration=run_seconds(stored), queries=_queries(result.questions_by_iteration))


@dataclass(frozen=True)
class Turn:
    """A follow-up as the thread shows it: its question, its answer with the sources
    it cites or found (ids prefixed, so that every turn's anchors are its own), its
    popovers, and its progress while it runs."""

    run: StoredRun
    #: Its place in the thread, the root being 1.
    number: int
    #: What its anchors, Sources ids and popover keys start with (``t2-``).
    prefix: str
    body: str
    evidence: list[Evidence]
    asked: bool
    active: bool
    progress: Progress | None
    viewer_base: str


def later_turns(kit: PageKit, thread: Thread) -> list[Turn]:
    """The follow-ups of ``thread`` (every turn after its root), as :class:`Turn`."""
    turns = []
    seen = {s.number for s in thread.root.result.sources}
    for number, turn in enumerate(thread.turns[1:], start=2):
        listed = new_sources(turn, seen)
        seen.update(s.number for s in turn.result.sources)
        prefix = f"t{number}-"
        active = turn.status in ACTIVE
        shown = turn.result.model_copy(update={"sources": listed})
        body = "" if active or not turn.result.answer.strip() else demoted(prefixed(
            report_body(shown, turn.settings, kit.state.settings, turn.id), prefix))
        progress = None
        if active:
            progress = progress_of(turn.events, mode=turn.mode,
                                   started=turn.created_at.timestamp())
        turns.append(Turn(turn, number, prefix, body, evidence(shown),
                          turn.id == thread.asked, active, progress,
                          f"/runs/{quote_path(turn.id)}/sources/"))
    return turns


_ANCHORED = re.compile(r'\b(id="|href="#|data-evidence=")([^"]+)"')


def prefixed(fragment: str, prefix: str) -> str:
    """``fragment`` (a sanitised report body) with every id, in-page link and popover
    key starting with ``prefix``: the root's report and each follow-up share one page,
    so a second ``id="source-1"`` would make links and screen readers land on the
    first."""
    return _ANCHORED.sub(lambda m: f'{m[1]}{prefix}{m[2]}"', fragment)


_HEADING_TAG = re.compile(r"<(/?)h([1-6])\b")


def demoted(fragment: str) -> str:
    """``fragment``'s headings two levels down: a follow-up's answer sits under its
    question (``h3``), so its "Sources" is an ``h4``, never a sibling of "Follow-ups"."""
    return _HEADING_TAG.sub(lambda m: f"<{m[1]}h{min(6, int(m[2]) + 2)}", fragment)


@router.post("/reports/{run_id}/follow-up")
async def follow_up(kit: Kit, request: Request, run_id: str) -> Response:
    """Ask the next question of ``run_id``'s thread. Without scripts the browser is
    sent back to the thread, at the new turn; thread.js asks for JSON instead and
    shows the new turn in place."""
    form, session = await kit.posted(request)
    question = str(form.get("question") or "")
    outcome = await anyio.to_thread.run_sync(submit_follow_up, kit, run_id, question,
                                             kit.caller(session))
    wants_json = "application/json" in request.headers.get("accept", "")
    if isinstance(outcome, tuple):
        status, message = outcome
        if wants_json:
            return JSONResponse({"error": page_words(message)}, status_code=status)
        return await anyio.to_thread.run_sync(
            lambda: thread_page(kit, request, session, run_id, status, message, question))
    where = f"/reports/{quote_path(outcome)}#turn-{quote_path(outcome)}"
    if wants_json:
        return JSONResponse({"id": outcome, "url": where}, status_code=202)
    return RedirectResponse(where, status_code=303)


def submit_follow_up(kit: PageKit, run_id: str, question: str,
                     caller: Caller) -> str | tuple[int, str]:
    """The new turn's id, or ``(status, message)`` when it cannot be asked: 404 for a
    thread the caller may not see, 422 for a question or thread that cannot be
    followed up (the executor's own checks as for the research form)."""
    try:
        thread = read_thread(kit.history, run_id, caller.access)
    except DeepciteError as exc:
        return 404, error_line(exc)
    try:
        asked = thread.follow_up(question).asked_by("web", caller.owner)
        return kit.state.executor.submit(asked)
    except RequestError as exc:
        return 422, error_line(exc)
    except (InputError, ConfigError) as exc:
        return 400, error_line(exc)


@router.post("/reports/{run_id}/rerun")
async def rerun(kit: Kit, request: Request, run_id: str) -> Response:
    _, session = await kit.posted(request)
    outcome = await anyio.to_thread.run_sync(submit_rerun, kit, run_id, kit.caller(session))
    if isinstance(outcome, tuple):
        status, message = outcome
        return await anyio.to_thread.run_sync(
            lambda: kit.render(request, session, "error.html", status,
                               title="Cannot run again", message=message))
    return RedirectResponse(f"/runs/{quote_path(outcome)}", status_code=303)


def parent_shown(kit: PageKit, stored: StoredRun, access: Access) -> bool:
    """Whether the run ``stored`` follows up may be offered to compare with: one the
    caller may see (an admin's follow-up of a user's run is the admin's)."""
    if stored.parent_id is None or access.sees_all:
        return stored.parent_id is not None
    try:
        kit.history.visible(stored.parent_id, access)
    except DeepciteError:
        return False
    return True


def submit_rerun(kit: PageKit, run_id: str, caller: Caller) -> str | tuple[int, str]:
    """The new run's id, or ``(status, message)`` when it cannot be run again.

    The executor starts from its own settings: the plan's request carries the
    per-run settings the stored run was made with, the rest (model server, keys,
    data) is the server's. The stored run must be one ``caller`` may see, and the
    new run is theirs."""
    from deepcite.runs.rerun import rerun_plan

    try:
        stored = kit.history.get(run_id, caller.access)
        plan = rerun_plan(stored, kit.state.settings)
        asked = plan.request.asked_by("web", caller.owner)
        return kit.state.executor.submit(asked)
    except (InputError, ConfigError) as exc:
        return 400, error_line(exc)
    except DeepciteError as exc:
        return 404, error_line(exc)


def _compare_choices(runs: list[Any], stored: StoredRun, parent: bool = True, *,
                     owners: bool = False) -> list[tuple[str, str]]:
    """``(id, label)`` of the runs this one can be compared with: the same question
    (recent first) and, when ``parent``, its parent; never itself. ``runs`` are those
    the caller may see; ``owners`` (an admin's page) names whose each run is."""
    question = " ".join(stored.result.question.split()).casefold()
    choices: list[tuple[str, str]] = []
    for run in runs:
        if run.id == stored.id or " ".join(run.question.split()).casefold() != question:
            continue
        label = f"{run.created_at:%Y-%m-%d %H:%M} · {run.mode} · {run.status}"
        if run.id == stored.parent_id:
            label += " · parent"
        if owners and run.owner:
            label += f" · {run.owner}"
        choices.append((run.id, label))
    if parent and stored.parent_id and all(run_id != stored.parent_id for run_id, _ in choices):
        choices.insert(0, (stored.parent_id, "the run this follows up"))
    return choices


def model_notice(result: ResearchResult, snapshot: dict[str, Any]) -> str | None:
    """Who wrote the answer, as the run recorded it: no model at all (0 calls: every
    sentence is quoted from the sources), the bundled 135M model (check the citations),
    or the model that answered by name; for a document check, whether a model judged
    any claim. Runs stored before the model was recorded fall
    back to what their settings say (:func:`bundled_notice`)."""
    if result.metrics.model_calls == 0:
        if result.mode == "check":
            return NO_MODEL_CHECK_NOTICE if result.claims else None
        return NO_MODEL_NOTICE if result.sources else None
    model = result.metrics.model
    if result.mode == "check":  # a model only judged the claims the comparison left open
        return (f"Claims the comparison left undecided were judged by {model or 'the model'}"
                ", each verdict counted only with a quote found in its source")
    if model is None:
        return bundled_notice(snapshot)
    llm = snapshot.get("llm")
    own_file = isinstance(llm, dict) and bool(llm.get("gguf_path"))
    if model.endswith(_IN_PROCESS) and not own_file:
        return f"{BUNDLED_NOTICE} ({model.removesuffix(_IN_PROCESS)})"
    return f"Written by {model}"


def searched(snapshot: dict[str, Any]) -> str | None:
    """What the run searched, from its settings: its collections and web engines (the
    default web engine when it named neither), e.g. "collections demo, notes · engines
    duckduckgo"."""
    from deepcite.runs.build import DEFAULT_WEB_ENGINE

    search = snapshot.get("search")
    if not isinstance(search, dict):
        return None
    collections = [c for c in search.get("collections") or [] if isinstance(c, str)]
    engines = [e for e in search.get("engines") or []
               if isinstance(e, str) and e != "local"]
    if not engines and not collections:
        engines = [DEFAULT_WEB_ENGINE]
    parts = []
    if collections:
        parts.append(("collection " if len(collections) == 1 else "collections ")
                     + ", ".join(collections))
    if engines:
        parts.append(("engine " if len(engines) == 1 else "engines ") + ", ".join(engines))
    return " · ".join(parts)


def bundled_notice(snapshot: dict[str, Any]) -> str | None:
    """The notice for a run the bundled model may have written, else ``None``.

    ``local`` without ``llm.gguf_path`` is the bundled SmolLM2-135M; ``auto`` is too
    unless an Ollama model answered, which the snapshot cannot tell, so it says so."""
    llm = snapshot.get("llm")
    if not isinstance(llm, dict) or llm.get("gguf_path"):
        return None
    provider = llm.get("provider")
    if provider == "local":
        return BUNDLED_NOTICE
    if provider == "auto":
        return f"{BUNDLED_NOTICE} (unless a local Ollama model answered)"
    return None


def run_seconds(stored: StoredRun) -> float | None:
    """How long the person waited: submitted to finished, as the history lists it (the
    research's own wall time leaves out a queue and loading the model, so the two pages
    disagreed); the research's time when the run has no end recorded."""
    waited = waited_seconds(stored.created_at, stored.finished_at)
    if waited is not None:
        return waited
    wall = stored.result.metrics.wall_seconds
    return wall if wall > 0 else None


def _queries(by_iteration: Any) -> list[list[str]]:
    """The queries searched, per iteration (whatever shape the store gave back)."""
    rounds = by_iteration.values() if isinstance(by_iteration, dict) else by_iteration
    shown = []
    for queries in rounds or []:
        if isinstance(queries, list | tuple):
            texts = [q for q in queries if isinstance(q, str) and q]
            if texts:
                shown.append(texts)
    return shown
