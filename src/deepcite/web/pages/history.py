"""The history: every stored run, filters, pages of 50, delete with confirmation and undo.

Filters are the store's (:meth:`HistoryStore.list`): status and mode in SQL, collection
and origin in Python (they live in JSON columns).

Deleting asks first (``GET /history/{id}/delete`` is the "Delete run X?" page; its form
posts). A deleted run goes to this server's trash: hidden from the history at once, and
deleted from the store for good :data:`TRASH_SECONDS` later (when the history is next
looked at or posted to), so "Restore" can undo it until then. The trash lives in this
server process's memory: a run deleted just before a restart stays in the store (it is
shown again, never lost by surprise), other server processes and ``deepcite history``
list it until it is purged, and its report page stays reachable by its address. The
undo needs no schema change this way.

With accounts each user's history holds only their runs; an admin's holds everyone's,
with an "Owner" column. Another user's run is as missing as one that never existed:
its delete page, delete and restore answer 404. A deletion is written to the audit log
(``run.delete``), and the trash shows each user only the runs they may see; a purge
deletes with the access of whoever put the run in the trash.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import get_args
from urllib.parse import urlencode

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from deepcite.errors import DeepciteError, UnknownRunError
from deepcite.runs.request import Origin
from deepcite.store import ACTIVE
from deepcite.store.read_models import RunStatus, RunSummary
from deepcite.store.user_rights import Access
from deepcite.types import ReportMode
from deepcite.web.pages._views import waited_seconds
from deepcite.web.pages.kit import Kit, PageKit
from deepcite.web.sessions import Session
from deepcite.web.who_is_asking import client_address

#: Runs per page of the history.
PAGE_SIZE = 50
#: How long a deleted run can be restored before it is deleted for good.
TRASH_SECONDS = 600
#: Longest question shown on a Delete button's label.
LABEL_CHARS = 60
STATUSES: tuple[str, ...] = get_args(RunStatus)
MODES: tuple[str, ...] = get_args(ReportMode)
ORIGINS: tuple[str, ...] = get_args(Origin)


@dataclass
class Trash:
    """Runs deleted on this server and not yet purged: id -> (when, question, the
    access of who deleted it, which the purge deletes with)."""

    entries: dict[str, tuple[float, str, Access]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, run_id: str, question: str, access: Access) -> None:
        with self.lock:
            self.entries[run_id] = (time.monotonic(), question, access)

    def restore(self, run_id: str) -> bool:
        with self.lock:
            return self.entries.pop(run_id, None) is not None

    def expired(self) -> list[tuple[str, Access]]:
        """``(id, deleter's access)`` of the runs whose undo time is over, taken out of
        the trash."""
        now = time.monotonic()
        with self.lock:
            gone = [(i, access) for i, (when, _, access) in self.entries.items()
                    if now - when >= TRASH_SECONDS]
            for run_id, _ in gone:
                del self.entries[run_id]
        return gone

    def listed(self) -> list[tuple[str, str, int]]:
        """(id, question, minutes left) of each run in the trash, newest first."""
        now = time.monotonic()
        with self.lock:
            items = sorted(self.entries.items(), key=lambda item: -item[1][0])
        return [(run_id, question, max(1, round((TRASH_SECONDS - (now - when)) / 60)))
                for run_id, (when, question, _) in items]

    def ids(self) -> set[str]:
        with self.lock:
            return set(self.entries)


def duration(run: RunSummary) -> str:
    """How long the run took (``finished_at - created_at``), ``""`` when unknown."""
    waited = waited_seconds(run.created_at, run.finished_at)
    if waited is None:
        return ""
    seconds = int(waited)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


def cut(text: str, limit: int = LABEL_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"


router = APIRouter(include_in_schema=False)
trash = Trash()


def purge(kit: PageKit) -> None:
    """Delete for good the runs whose undo time is over."""
    for run_id, access in trash.expired():
        # already gone, or the store is down: nothing to undo either way
        with contextlib.suppress(DeepciteError):
            kit.history.delete(run_id, access)


def sees(kit: PageKit, run_id: str, access: Access) -> bool:
    """Whether ``access`` may see run ``run_id`` (still in the store while in the
    trash): another user's deleted run is neither listed nor restorable."""
    if access.sees_all:
        return True
    try:
        kit.history.visible(run_id, access)
    except DeepciteError:
        return False
    return True


def trash_of(kit: PageKit, access: Access) -> list[tuple[str, str, int]]:
    """The trash as ``access`` may see it."""
    return [entry for entry in trash.listed() if sees(kit, entry[0], access)]


@router.get("/history", response_class=HTMLResponse)
def history(kit: Kit, request: Request, q: str = "", status: str = "", mode: str = "",
            collection: str = "", origin: str = "", page: str = "1",
            deleted: str = "") -> Response:
    session = kit.session_for(request)
    access = kit.access(session)
    purge(kit)
    problems = []
    filters = {"status": status, "mode": mode, "collection": collection.strip(),
               "origin": origin}
    for name, allowed in (("status", STATUSES), ("mode", MODES), ("origin", ORIGINS)):
        if filters[name] and filters[name] not in allowed:
            problems.append(f"Unknown {name} {filters[name]!r}: showing every {name}")
            filters[name] = ""
    number = int(page) if page.isdigit() and 0 < int(page) < 1_000_000 else 1
    hidden = trash.ids()
    try:
        runs = kit.history.list(
            search=q or None, limit=PAGE_SIZE + 1 + len(hidden),
            offset=(number - 1) * PAGE_SIZE, status=filters["status"] or None,
            mode=filters["mode"] or None, collection=filters["collection"] or None,
            origin=filters["origin"] or None, access=access)
    except DeepciteError as exc:
        runs = []
        problems.append(str(exc))
    runs = [run for run in runs if run.id not in hidden]
    more = len(runs) > PAGE_SIZE
    runs = runs[:PAGE_SIZE]
    query = {k: v for k, v in {"q": q, **filters}.items() if v}
    filtered = bool(query)

    def page_link(n: int) -> str:
        return "/history?" + urlencode({**query, "page": n})

    return kit.render(
        request, session, "history.html", title="History", runs=runs, q=q,
        filters=filters, filtered=filtered, statuses=STATUSES, modes=MODES,
        origins=ORIGINS, problems=problems, page=number,
        previous=page_link(number - 1) if number > 1 else None,
        next=page_link(number + 1) if more else None,
        trash=trash_of(kit, access), deleted=deleted, duration=duration, cut=cut,
        active=ACTIVE, trash_minutes=TRASH_SECONDS // 60,
        show_owner=bool(session.user and session.user.is_admin))


@router.get("/history/{run_id}/delete", response_class=HTMLResponse)
def confirm(kit: Kit, request: Request, run_id: str) -> Response:
    session = kit.session_for(request)
    try:
        stored = kit.history.get(run_id, kit.access(session))
    except DeepciteError as exc:
        return kit.not_found(request, session, str(exc))
    return kit.render(request, session, "history.html", title="Delete run?",
                      confirm=stored, active=ACTIVE, cut=cut,
                      trash_minutes=TRASH_SECONDS // 60)


@router.post("/history/{run_id}/delete")
async def delete(kit: Kit, request: Request, run_id: str) -> Response:
    _, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(delete_run, kit, request, session, run_id)


@router.post("/history/{run_id}/restore")
async def restore(kit: Kit, request: Request, run_id: str) -> Response:
    _, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(restore_run, kit, request, session, run_id)


def restore_run(kit: PageKit, request: Request, session: Session, run_id: str) -> Response:
    """Take a run the caller may see out of the trash."""
    if not sees(kit, run_id, kit.access(session)) or not trash.restore(run_id):
        return kit.not_found(request, session, "That run is no longer in the trash: "
                             "it was restored or deleted for good")
    return RedirectResponse("/history", status_code=303)


def delete_run(kit: PageKit, request: Request, session: Session, run_id: str) -> Response:
    """Cancel the run if it is active, then put it in the trash (and the audit log)."""
    purge(kit)
    access = kit.access(session)
    try:
        stored = kit.history.get(run_id, access)
    except DeepciteError as exc:
        return kit.not_found(request, session, str(exc))
    try:
        if kit.state.executor.status(stored.id).state in ACTIVE:
            kit.state.executor.cancel(stored.id)
    except (UnknownRunError, KeyError):
        pass
    trash.add(stored.id, stored.result.question, access)
    kit.history.audit("run.delete", actor=session.user.name if session.user else None,
                      target=stored.id,
                      address=client_address(request))
    return RedirectResponse(f"/history?deleted={stored.id}", status_code=303)
