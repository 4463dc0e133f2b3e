"""Logging in and out: with the server token, or as a user (accounts), and
self-registration when ``web.registration`` is on.

Neither says whether a user name exists: a wrong name and a wrong password are the same
"Wrong name or password" (after the same work: an unknown name verifies a dummy hash),
and sign-up answers a taken name exactly as a free one (:func:`_signed_up`)."""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.datastructures import FormData

from deepcite.errors import DuplicateUserError, InputError
from deepcite.store import UserInfo
from deepcite.store.users_ops import check_new_password, check_user_name
from deepcite.web.pages.kit import Kit, PageKit
from deepcite.web.sessions import CSRF_FIELD, Session, safe_next
from deepcite.web.who_is_asking import client_address

router = APIRouter(include_in_schema=False)


@router.get("/login", response_class=HTMLResponse)
def login(kit: Kit, request: Request, next: str = "/") -> Response:
    session = kit.gate.page_session(kit.sessions.load(request), request)
    if not kit.sessions.login_required or session.authed:
        return RedirectResponse(safe_next(next), status_code=303)
    return kit.render(request, session, "login.html", title="Log in", next=safe_next(next))


@router.post("/login")
async def do_login(kit: Kit, request: Request) -> Response:
    form = await request.form()
    # the store is read and written on a thread: the event loop never waits on it
    return await anyio.to_thread.run_sync(_log_in, kit, request, form)


@router.post("/logout")
async def logout(kit: Kit, request: Request) -> Response:
    form = await request.form()
    return await anyio.to_thread.run_sync(_log_out, kit, request, form)


@router.get("/register", response_class=HTMLResponse)
def register(kit: Kit, request: Request) -> Response:
    session = kit.sessions.load(request)
    if not _registration_open(kit):
        return kit.not_found(request, session, "There is no sign-up on this server - "
                             "ask an admin for an account")
    return kit.render(request, session, "register.html", title="Create an account")


@router.post("/register")
async def do_register(kit: Kit, request: Request) -> Response:
    form = await request.form()
    return await anyio.to_thread.run_sync(_register, kit, request, form)


def _registration_open(kit: PageKit) -> bool:
    return kit.sessions.accounts and kit.state.settings.web.registration


def _log_in(kit: PageKit, request: Request, form: FormData) -> Response:
    sessions = kit.sessions
    session = sessions.check_csrf(request, form.get(CSRF_FIELD))
    host = client_address(request)
    target = safe_next(form.get("next"))
    name_field = form.get("name")
    name = name_field.strip() if sessions.accounts and isinstance(name_field, str) else None
    wait = kit.throttle.retry_after(host, name)  # before the password: even the right one waits
    if wait is not None:
        refused = kit.render(request, session, "login.html", 429, title="Log in",
                             next=target, user_name=name or "", problem="Too many wrong "
                             f"passwords - try again in {wait} s")
        refused.headers["Retry-After"] = str(wait)
        return refused
    password = form.get("password")
    user: UserInfo | None = None
    if sessions.accounts:
        if name and isinstance(password, str):
            user = kit.history.check_password(name, password)
        ok = user is not None
    else:
        ok = sessions.password_ok(password)
    if not ok:
        kit.throttle.failed(host, name)
        if sessions.accounts:
            kit.history.audit("login.failed", actor=None, target=(name or "")[:200] or None,
                              address=host)
        return kit.render(request, session, "login.html", 401, title="Log in",
                          next=target, user_name=name or "", problem="Wrong name or password"
                          if sessions.accounts else "Wrong password")
    kit.throttle.succeeded(host, name)
    if user is not None:
        kit.history.audit("login", actor=user.name, address=host)
    response = RedirectResponse(target, status_code=303)
    sessions.store(response, sessions.log_in(user), request)
    return response


def _log_out(kit: PageKit, request: Request, form: FormData) -> Response:
    sessions = kit.sessions
    session = sessions.check_csrf(request, form.get(CSRF_FIELD))
    sessions.log_out(session)
    if session.user is not None:
        kit.history.audit("logout", actor=session.user.name, address=client_address(request))
    response = RedirectResponse("/login" if sessions.login_required else "/", status_code=303)
    sessions.store(response, sessions.new(authed=False), request)
    return response


def _register(kit: PageKit, request: Request, form: FormData) -> Response:
    sessions = kit.sessions
    session: Session = sessions.check_csrf(request, form.get(CSRF_FIELD))
    if not _registration_open(kit):
        return kit.not_found(request, session, "There is no sign-up on this server - ask "
                             "an admin for an account")
    host = client_address(request)
    wait = kit.throttle.retry_after(host)
    if wait is not None:  # sign-ups count as attempts: no one fills the table for free
        refused = kit.render(request, session, "register.html", 429,
                             title="Create an account",
                             problem=f"Too many attempts - try again in {wait} s")
        refused.headers["Retry-After"] = str(wait)
        return refused
    name, password, again = (form.get("name"), form.get("password"), form.get("again"))
    if not (isinstance(name, str) and isinstance(password, str) and isinstance(again, str)):
        problem = "Give a name and a password, twice"
    elif password != again:
        problem = "The two passwords differ - type the same one twice"
    else:
        name = name.strip()
        try:
            check_user_name(name)
            check_new_password(password)
        except InputError as exc:
            problem = str(exc)
        else:
            return _signed_up(kit, request, session, name, password, host)
    return kit.render(request, session, "register.html", 400, title="Create an account",
                      user_name=name if isinstance(name, str) else "", problem=problem)


def _signed_up(kit: PageKit, request: Request, session: Session, name: str, password: str,
               host: str | None) -> Response:
    """Make the account, or find the name taken - and answer both the same.

    Whether a name exists is nobody's business before they log in: a taken name gets
    the same status and page as a free one, after the same work (the password is hashed
    either way, one audit entry is written either way). No one is logged in here, not
    even with a free name and no approval needed: that would tell the two apart. The
    person logs in with the name and password they chose; if that fails, the name was
    taken (the page says so), and the admins see the attempt in the audit log
    (``user.register.taken``)."""
    approval = kit.state.settings.web.registration_approval
    kit.throttle.failed(host)  # one sign-up per attempt slot, made or not
    try:
        user = kit.history.add_user(name, password, disabled=approval)
    except DuplicateUserError:
        kit.history.audit("user.register.taken", actor=None, target=name, address=host,
                          detail={"approval": approval})
    else:
        kit.history.audit("user.register", actor=user.name, address=host,
                          detail={"approval": approval})
    return kit.render(request, session, "register.html", 202, title="Account requested",
                      done=True, user_name=name, approval=approval)
