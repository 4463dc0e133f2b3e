"""The user's own account page (``/account``): change the password, make, list and
revoke personal API tokens.

Only with user accounts: without them there is no one to be, and ``/account`` answers
404 like any unknown page. A password change ends every session of the user
(:meth:`HistoryStore.set_password`), so whoever held the old one is logged out
everywhere at once - and this browser is logged in again with a fresh session, so the
person who changed it carries on. Wrong current passwords count against the login
throttle: a borrowed session cannot be used to guess the password at leisure.

A password change also revokes every API token of the user (a token made by whoever
knew the old password must not outlive it); the page says how many, and new ones are
made below.

A new token is shown once, on the page the form's POST answers (never in a URL, never
again: the store keeps only its hash). Token and password changes are audited with
the user as the actor.
"""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.datastructures import FormData

from deepcite.errors import InputError, UnknownUserError
from deepcite.store import UserInfo
from deepcite.web.pages.kit import Kit, PageKit
from deepcite.web.sessions import Session
from deepcite.web.who_is_asking import client_address

#: The notices ``/account?done=...`` shows after a change.
NOTICES = {
    "password": "Password changed. Every other session of yours has been logged out.",
    "revoked": "Token revoked: it stops working at once.",
}


def notice_of(done: str, revoked: str = "") -> str | None:
    """The notice of ``/account?done=...``; after a password change, how many API
    tokens it revoked (``revoked``) too."""
    notice = NOTICES.get(done)
    if notice is None or done != "password" or not revoked.isdigit() or revoked == "0":
        return notice
    count = min(int(revoked[:6]), 999_999)
    tokens = "token was" if count == 1 else "tokens were"
    return f"{notice} Your {count} API {tokens} revoked; create new ones below."


#: Longest token label kept (the store cuts at 200 too).
LABEL_CHARS = 200


def account_user(session: Session) -> UserInfo:
    """The session's user; a 404 like an unknown page without accounts."""
    if session.user is None:
        raise HTTPException(status_code=404, detail="Not Found")
    return session.user


router = APIRouter(include_in_schema=False)


def account_page(kit: PageKit, request: Request, session: Session, status: int = 200, *,
                 problem: str | None = None, notice: str | None = None,
                 new_token: str | None = None, new_label: str = "") -> HTMLResponse:
    user = account_user(session)
    return kit.render(request, session, "account.html", status, title="Your account",
                      account=user, tokens=kit.history.tokens(user.name),
                      problem=problem, notice=notice, new_token=new_token,
                      new_label=new_label)


@router.get("/account", response_class=HTMLResponse)
def account(kit: Kit, request: Request, done: str = "", revoked: str = "") -> Response:
    session = kit.session_for(request)
    return account_page(kit, request, session, notice=notice_of(done, revoked))


@router.post("/account/password")
async def password(kit: Kit, request: Request) -> Response:
    form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(change_password, kit, request, session, form)


def change_password(kit: PageKit, request: Request, session: Session, form: FormData) -> Response:
    user = account_user(session)
    host = client_address(request)
    wait = kit.throttle.retry_after(host, user.name)
    if wait is not None:
        refused = account_page(kit, request, session, 429, problem="Too many wrong "
                               f"passwords - try again in {wait} s")
        refused.headers["Retry-After"] = str(wait)
        return refused
    current, new, again = (form.get("current"), form.get("password"), form.get("again"))
    if not (isinstance(current, str) and isinstance(new, str) and isinstance(again, str)):
        return account_page(kit, request, session, 400, problem="Give your current password "
                            "and the new one twice")
    if kit.history.check_password(user.name, current) is None:
        kit.throttle.failed(host, user.name)
        kit.history.audit("user.passwd.failed", actor=user.name, target=user.name,
                          address=host)
        return account_page(kit, request, session, 400, problem="The current password is "
                            "wrong - type the one you log in with")
    if new != again:
        return account_page(kit, request, session, 400, problem="The two new passwords "
                            "differ - type the same one twice")
    try:  # ends every session of the user, revokes every token
        revoked = kit.history.set_password(user.name, new)
    except InputError as exc:
        return account_page(kit, request, session, 400, problem=str(exc))
    kit.throttle.succeeded(host, user.name)
    kit.history.audit("user.passwd", actor=user.name, target=user.name, address=host,
                      detail={"via": "web", "tokens_revoked": revoked})
    sessions = kit.sessions
    said = f"&revoked={revoked}" if revoked else ""
    response = RedirectResponse(f"/account?done=password{said}", status_code=303)
    sessions.store(response, sessions.log_in(kit.history.user(user.name)), request)
    return response


@router.post("/account/tokens")
async def create_token(kit: Kit, request: Request) -> Response:
    form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(make_token, kit, request, session, form)


def make_token(kit: PageKit, request: Request, session: Session, form: FormData) -> Response:
    user = account_user(session)
    label = str(form.get("label") or "").strip()[:LABEL_CHARS]
    token = kit.history.create_token(user.name, label)
    made = kit.history.tokens(user.name)[-1]  # newest last
    kit.history.audit("token.create", actor=user.name, target=user.name,
                      detail={"id": made.id, "label": made.label, "via": "web"},
                      address=client_address(request))
    return account_page(kit, request, session, 201, new_token=token, new_label=made.label)


@router.post("/account/tokens/{token_id}/revoke")
async def revoke_token(kit: Kit, request: Request, token_id: int) -> Response:
    _form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(revoke, kit, request, session, token_id)


def revoke(kit: PageKit, request: Request, session: Session, token_id: int) -> Response:
    user = account_user(session)
    try:
        changed = kit.history.revoke_token(user.name, token_id)
    except UnknownUserError:
        return kit.not_found(request, session, f"You have no token {token_id} - the "
                             "account page lists yours")
    if changed:
        kit.history.audit("token.revoke", actor=user.name, target=user.name,
                          detail={"id": token_id, "via": "web"},
                          address=client_address(request))
    return RedirectResponse("/account?done=revoked", status_code=303)
