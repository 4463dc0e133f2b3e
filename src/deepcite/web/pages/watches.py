"""The Watches pages: the caller's watches with a form to add one, and each watch's inbox
of changes - every run with what it found compared with the run before.

Every action goes through :class:`~deepcite.watches.service.WatchService`, as the CLI and
the REST API do (``web.rest.watches``): nothing about scheduling, budgets or comparing runs
is decided here. Every route checks who is asking (:meth:`PageKit.session_for`, or
:meth:`PageKit.posted` with its CSRF check for a post) and reads watches with the
caller's :class:`~deepcite.store.user_rights.Access`: another user's watch is answered exactly
as one that never existed (404, the same words), and only full ids are taken, so an
address cannot be used to guess at prefixes.

The feed token of a watch is shown only when it is made (the store keeps its hash): the
answer to the new-watch form shows the private Atom address once, and the watch's page
has **New feed address** (``POST /watches/{id}/feed``), whose answer shows a new one
once; any earlier address stops working. The webhook secret (the key of the
``X-Deepcite-Signature`` of every webhook delivery) is shown the same way: once in the
answer to the form that made the watch, and once after **New webhook secret**
(``POST /watches/{id}/secret``), which replaces it - as the REST API returns it only
when it makes one.
"""

from __future__ import annotations

import re

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.datastructures import FormData

from deepcite.errors import BudgetError, DeepciteError, RequestError, UnknownWatchError, error_line
from deepcite.store.watch_records import WatchInfo
from deepcite.watches.schedule import FORMS
from deepcite.watches.service import WatchService, feed_path
from deepcite.web.page_forms import field_label, form_choices, page_words
from deepcite.web.pages.kit import Kit, PageKit
from deepcite.web.sessions import Session
from deepcite.web.watch_form import (
    NO_ATTACHMENT,
    WatchFields,
    channel_inputs,
    read_fields,
    request_of,
    targets_of_fields,
)
from deepcite.web.watch_inbox import (
    implicit_shown,
    inbox_of,
    moment,
    signs,
    targets_shown,
    watch_row,
)
from deepcite.web.who_is_asking import client_address

__all__ = ["NOT_FOUND", "router"]

#: What a watch the caller may not see is answered with - the same for a missing one.
NOT_FOUND = "No such watch - the Watches page lists yours"
_WATCH_ID = re.compile(r"[0-9a-f]{32}")
#: What a redirect after an action says (``?done=``): fixed words, nothing reflected.
DONE = {"created": "The watch was created. Run now runs it at once.",
        "started": "The run was started. Its changes show here once it has ended.",
        "paused": "The watch is paused: it runs only when you press Run now.",
        "resumed": "The watch runs on its schedule again, from its next slot.",
        "deleted": "The watch was deleted; its runs stay in the history."}
#: Where an action returns to (``back`` field of its form).
_BACK_TO_LIST = "list"


router = APIRouter(include_in_schema=False)


def service(kit: PageKit) -> WatchService:
    return WatchService(kit.history, kit.state.settings, kit.state.executor)


def list_page(kit: PageKit, request: Request, session: Session, status: int = 200,
              fields: WatchFields | None = None, problems: list[str] | None = None,
              message: str | None = None) -> HTMLResponse:
    watches = service(kit)
    caller = kit.caller(session)
    rows = [watch_row(watches, watch) for watch in watches.list(caller.access)]
    owners = ({user.id: user.name for user in kit.history.users()}
              if caller.admin else {})
    choices = form_choices(kit.state.settings, kit.history, caller.access)
    return kit.render(
        request, session, "watches.html", status, title="Watches", rows=rows,
        fields=fields or WatchFields(collections=tuple(choices.preselected)),
        problems=problems or [], message=message, choices=choices, owners=owners,
        exports=kit.usable_exports(), no_attachment=NO_ATTACHMENT, forms=FORMS,
        channel_inputs=channel_inputs(kit.state.settings), moment=moment)


def watch_page(kit: PageKit, request: Request, session: Session, watch: WatchInfo,
               status: int = 200,
               problem: str | None = None, message: str | None = None,
               feed_url: str | None = None,
               webhook_secret: str | None = None) -> HTMLResponse:
    watches = service(kit)
    row = watch_row(watches, watch)
    return kit.render(
        request, session, "watch.html", status, title=watch.name, row=row,
        watch=watch, inbox=inbox_of(watches, watch), targets=targets_shown(watches, watch),
        implicit=implicit_shown(), deliveries=kit.history.deliveries(watch.id, limit=20),
        problem=problem, message=message, feed_url=feed_url,
        webhook_secret=webhook_secret, has_webhooks=signs(watches, watch),
        moment=moment)


def feed_url_of(kit: PageKit, request: Request, token: str) -> str:
    base = kit.state.settings.watches.base_url or str(request.base_url)
    return base.rstrip("/") + feed_path(token)


def found(kit: PageKit, request: Request, session: Session, watch_id: str) -> WatchInfo | Response:
    """The caller's watch ``watch_id``, or the 404 page (another user's included)."""
    if not _WATCH_ID.fullmatch(watch_id):
        return kit.not_found(request, session, NOT_FOUND)
    try:
        return service(kit).get(watch_id, kit.access(session))
    except UnknownWatchError:
        return kit.not_found(request, session, NOT_FOUND)


def done(kit: PageKit, watch: WatchInfo, what: str, back: str = "") -> Response:
    target = "/watches" if back == _BACK_TO_LIST else f"/watches/{watch.id}"
    return RedirectResponse(f"{target}?done={what}", status_code=303)


# ------------------------------------------------------------------ pages
@router.get("/watches", response_class=HTMLResponse)
def watches(kit: Kit, request: Request, done: str = "") -> Response:
    session = kit.session_for(request)
    return list_page(kit, request, session, message=DONE.get(done))


@router.get("/watches/{watch_id}", response_class=HTMLResponse)
def watch(kit: Kit, request: Request, watch_id: str, done: str = "") -> Response:
    session = kit.session_for(request)
    shown = found(kit, request, session, watch_id)
    if not isinstance(shown, WatchInfo):
        return shown
    return watch_page(kit, request, session, shown, message=DONE.get(done))


# ------------------------------------------------------------------ actions
@router.post("/watches")
async def create(kit: Kit, request: Request) -> Response:
    form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(create_watch, kit, request, session, form)


@router.post("/watches/{watch_id}/{action}")
async def act(kit: Kit, request: Request, watch_id: str, action: str) -> Response:
    form, session = await kit.posted(request)
    back = form.get("back")
    return await anyio.to_thread.run_sync(
        acted, kit, request, session, watch_id, action, back if isinstance(back, str) else "")


def create_watch(kit: PageKit, request: Request, session: Session, form: FormData) -> Response:
    """Add the watch the form describes, or show the form again with why not (what
    was typed kept, nothing stored)."""
    fields = read_fields(form)
    run, problems = request_of(fields)
    if run is None:
        return list_page(kit, request, session, 400, fields, problems)
    caller = kit.caller(session)
    try:
        watch, token = service(kit).add(run.asked_by("web", caller.owner), fields.schedule,
                                     targets=targets_of_fields(fields),
                                     name=fields.name or None)
    except DeepciteError as exc:
        problem = page_words(error_line(exc))
        if isinstance(exc, RequestError):
            problem = f"{field_label(exc.field)}: {problem}"
        return list_page(kit, request, session, 429 if isinstance(exc, BudgetError) else 400,
                         fields, [problem])
    kit.history.audit("watch.add", actor=caller.name, target=watch.id,
                      detail={"schedule": watch.schedule},
                      address=client_address(request))
    # The answer to the post itself, not a redirect: the feed address and the
    # webhook secret are shown this once (as a new API token is), never in a URL.
    secret = (kit.history.webhook_secret(watch.id) if signs(service(kit), watch)
              else None)
    return watch_page(kit, request, session, watch, 201, message=DONE["created"],
                      feed_url=feed_url_of(kit, request, token), webhook_secret=secret)


def acted(kit: PageKit, request: Request, session: Session, watch_id: str, action: str,
          back: str) -> Response:
    """Run now, pause, resume, delete, or a new feed address - for the caller's
    watch only."""
    shown = found(kit, request, session, watch_id)
    if not isinstance(shown, WatchInfo):
        return shown
    watches, access, caller = service(kit), kit.access(session), kit.caller(session)
    try:
        if action == "run":
            watches.run_now(shown.id, access)
            return done(kit, shown, "started", back)
        if action == "pause":
            return done(kit, watches.pause(shown.id, access), "paused", back)
        if action == "resume":
            return done(kit, watches.resume(shown.id, access), "resumed", back)
        if action == "delete":
            removed = watches.remove(shown.id, access)
            kit.history.audit("watch.delete", actor=caller.name, target=removed,
                              address=client_address(request))
            return RedirectResponse("/watches?done=deleted", status_code=303)
        if action == "feed":
            token = watches.rotate_feed_token(shown.id, access)
            return watch_page(kit, request, session, shown,
                              feed_url=feed_url_of(kit, request, token))
        if action == "secret":
            secret = watches.rotate_webhook_secret(shown.id, access)
            kit.history.audit("watch.secret", actor=caller.name, target=shown.id,
                              address=client_address(request))
            return watch_page(kit, request, session, shown, webhook_secret=secret)
    except UnknownWatchError:  # deleted meanwhile
        return kit.not_found(request, session, NOT_FOUND)
    except BudgetError as exc:
        return watch_page(kit, request, session, shown, 429, problem=error_line(exc))
    except DeepciteError as exc:
        return watch_page(kit, request, session, shown, 409, problem=error_line(exc))
    return kit.not_found(request, session, f"No such action on a watch: {action[:40]}")
