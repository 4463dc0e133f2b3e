"""The admin area: the users (add, enable/disable - which is also how self-registered
accounts waiting for approval are approved -, end their sessions, remove them deleting
what they own or handing it to another user) and the audit log.

Only admins see it. Anyone else - a user who is not an admin, or a server without
accounts - gets the same 404 as an unknown page, so the area does not say it exists.
Every change is audited as ``admin.<verb>`` with the admin as the actor and the user
as the target. An admin cannot disable or remove their own account here (that would
lock the last admin out); another admin or ``deepcite users`` can.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

import anyio.to_thread
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.datastructures import FormData

from deepcite.errors import DuplicateUserError, InputError, UnknownUserError
from deepcite.store import UserInfo
from deepcite.store.user_removal import remove_user as remove_user_and_data
from deepcite.web.pages.kit import Kit, PageKit
from deepcite.web.sessions import Session
from deepcite.web.who_is_asking import client_address

#: Audit entries per page of ``/admin/audit`` unless ``limit`` says otherwise, and most.
AUDIT_LIMIT, AUDIT_MAX = 100, 1000
#: The actions the audit filter suggests (any other can be typed).
KNOWN_ACTIONS = ("login", "login.failed", "logout", "user.register", "user.register.taken",
                 "user.passwd", "token.create", "token.revoke", "token.use", "run.delete",
                 "collection.share", "admin.add", "admin.enable", "admin.disable",
                 "admin.end_sessions", "admin.remove")


def admin_user(session: Session) -> UserInfo:
    """The session's user when an admin; else the 404 of an unknown page."""
    if session.user is None or not session.user.is_admin:
        raise HTTPException(status_code=404, detail="Not Found")
    return session.user


def ordered(users: list[UserInfo]) -> list[UserInfo]:
    """Disabled accounts first (those waiting for approval among them), then by name."""
    return sorted(users, key=lambda user: (not user.disabled, user.name.casefold()))


router = APIRouter(include_in_schema=False)


def users_page(kit: PageKit, request: Request, session: Session, status: int = 200, *,
               problem: str | None = None, notice: str | None = None,
               typed_name: str = "", remove: UserInfo | None = None) -> HTMLResponse:
    admin = admin_user(session)
    users = ordered(kit.history.users())
    owned = kit.history.user_belongings(remove.name) if remove is not None else None
    heirs = [user for user in users if remove is not None and user.id != remove.id]
    return kit.render(request, session, "admin.html", status, title="Users",
                      users=users, me=admin.name, problem=problem, notice=notice,
                      typed_name=typed_name, remove=remove, owned=owned,
                      heirs=sorted(heirs, key=lambda user: user.name.casefold()))


@router.get("/admin", response_class=HTMLResponse)
def admin(kit: Kit, request: Request, done: str = "", name: str = "", to: str = "") -> Response:
    session = kit.session_for(request)
    notice = _notice(done, name, to)
    return users_page(kit, request, session, notice=notice)


@router.get("/admin/audit", response_class=HTMLResponse)
def audit(kit: Kit, request: Request, user: str = "", action: str = "",
          limit: str = "") -> Response:
    session = kit.session_for(request)
    admin_user(session)
    try:
        count = max(1, min(AUDIT_MAX, int(limit))) if limit.strip() else AUDIT_LIMIT
    except ValueError:
        count = AUDIT_LIMIT
    actor, verb = user.strip(), action.strip()
    entries = kit.history.audit_log(count, actor=actor or None, action=verb or None)
    return kit.render(request, session, "admin_audit.html", title="Audit log",
                      entries=entries, actor=actor, action=verb, limit=count,
                      actions=KNOWN_ACTIONS, users=kit.history.users())


@router.post("/admin/users")
async def add(kit: Kit, request: Request) -> Response:
    form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(add_user, kit, request, session, form)


def add_user(kit: PageKit, request: Request, session: Session, form: FormData) -> Response:
    admin = admin_user(session)
    name, password = form.get("name"), form.get("password")
    wants_admin = bool(form.get("admin"))
    if not (isinstance(name, str) and isinstance(password, str)):
        return users_page(kit, request, session, 400, problem="Give a name and a password")
    name = name.strip()
    try:
        made = kit.history.add_user(name, password, admin=wants_admin)
    except (InputError, DuplicateUserError) as exc:
        return users_page(kit, request, session, 400, typed_name=name,
                          problem=str(exc).split(" - `deepcite")[0])
    kit.history.audit("admin.add", actor=admin.name, target=made.name,
                      detail={"admin": wants_admin}, address=client_address(request))
    return _done("added", made.name)


def action(verb: str,
           change: Callable[[PageKit, Request, Session, UserInfo, UserInfo], Response]
           ) -> None:
    """A POST route ``/admin/users/{name}/{verb}`` doing ``change`` (on a thread)."""

    async def posted(kit: Kit, request: Request, name: str) -> Response:
        _form, session = await kit.posted(request)
        return await anyio.to_thread.run_sync(run, kit, request, session, name)

    def run(kit: PageKit, request: Request, session: Session, name: str) -> Response:
        admin = admin_user(session)
        try:
            return change(kit, request, session, admin, kit.history.user(name))
        except UnknownUserError:
            return kit.not_found(request, session, f"There is no user {name!r} - the "
                                 "admin page lists them")

    router.add_api_route(f"/admin/users/{{name}}/{verb}", posted, methods=["POST"],
                         name=f"admin_{verb}")


def audited(kit: PageKit, request: Request, admin: UserInfo, verb: str, target: UserInfo,
            **detail: object) -> None:
    kit.history.audit(f"admin.{verb}", actor=admin.name, target=target.name,
                      detail=dict(detail) or None, address=client_address(request))


def enable(kit: PageKit, request: Request, session: Session, admin: UserInfo,
               target: UserInfo) -> Response:
    if kit.history.set_disabled(target.name, False):
        audited(kit, request, admin, "enable", target)
    return _done("enabled", target.name)


def disable(kit: PageKit, request: Request, session: Session, admin: UserInfo,
                target: UserInfo) -> Response:
    if target.id == admin.id:
        return refuse_self(kit, request, session, "disable")
    if kit.history.set_disabled(target.name, True):  # ends their sessions
        audited(kit, request, admin, "disable", target)
    return _done("disabled", target.name)


def end_sessions(kit: PageKit, request: Request, session: Session, admin: UserInfo,
                     target: UserInfo) -> Response:
    ended = kit.history.end_sessions(target.name)
    audited(kit, request, admin, "end_sessions", target, ended=ended)
    return _done("ended", target.name)

action("enable", enable)
action("disable", disable)
action("end_sessions", end_sessions)


@router.get("/admin/users/{name}/remove", response_class=HTMLResponse)
def confirm_remove(kit: Kit, request: Request, name: str) -> Response:
    session = kit.session_for(request)
    admin_user(session)
    try:
        target = kit.history.user(name)
    except UnknownUserError:
        return kit.not_found(request, session, f"There is no user {name!r} - the admin "
                             "page lists them")
    return users_page(kit, request, session, remove=target)


@router.post("/admin/users/{name}/remove")
async def do_remove(kit: Kit, request: Request, name: str) -> Response:
    form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(remove_user, kit, request, session, name, form)


def remove_user(kit: PageKit, request: Request, session: Session, name: str,
                form: FormData) -> Response:
    admin = admin_user(session)
    try:
        target = kit.history.user(name)
    except UnknownUserError:
        return kit.not_found(request, session, f"There is no user {name!r} - the admin "
                             "page lists them")
    if target.id == admin.id:
        return refuse_self(kit, request, session, "remove")
    fate, heir = form.get("fate"), form.get("to")
    if fate not in ("delete", "transfer", "none") or (
            fate == "transfer" and not (isinstance(heir, str) and heir.strip())):
        return users_page(kit, request, session, 400, remove=target, problem="Say whether "
                          f"to delete what {target.name} owns or hand it to another user")
    try:
        removal, _left = remove_user_and_data(
            kit.history, kit.state.settings, target.name, delete_data=fate == "delete",
            transfer_to=heir.strip() if fate == "transfer" and isinstance(heir, str)
            else None)
    except (InputError, UnknownUserError) as exc:  # owns something now, unknown heir
        return users_page(kit, request, session, 400, remove=target,
                          problem=str(exc).split(" - `deepcite")[0])
    owned = removal.owned
    audited(kit, request, admin, "remove", target, runs=owned.runs, watches=owned.watches,
            collections=len(owned.collections), fate=fate,
            **({"to": removal.transferred_to} if removal.transferred_to else {}))
    if removal.transferred_to:
        return _done("removed-transferred", target.name, removal.transferred_to)
    return _done("removed-deleted" if owned.any_data else "removed", target.name)


def refuse_self(kit: PageKit, request: Request, session: Session, verb: str) -> Response:
    return users_page(kit, request, session, 400, problem=f"You cannot {verb} your own "
                      "account here - ask another admin, or use deepcite users")


_NOTICES = {
    "added": "Added {name}.",
    "enabled": "{name} is enabled and can log in.",
    "disabled": "{name} is disabled: their sessions and tokens stopped working at once.",
    "ended": "Every session of {name} has ended.",
    "removed": "Removed {name}; they owned nothing.",
    "removed-deleted": "Removed {name} and deleted their runs, watches and collections.",
    "removed-transferred": "Removed {name}; {to} now owns their runs, watches and "
                           "collections (the watches are paused until {to} resumes them).",
}


def _done(what: str, name: str, to: str = "") -> Response:
    """Back to the users list, saying what was done to ``name`` (and who got their
    things: ``to``)."""
    return RedirectResponse("/admin?" + urlencode({"done": what, "name": name,
                                                   **({"to": to} if to else {})}),
                            status_code=303)


def _notice(done: str, name: str, to: str = "") -> str | None:
    text = _NOTICES.get(done)
    return text.format(name=name[:200], to=to[:200]) if text is not None else None
