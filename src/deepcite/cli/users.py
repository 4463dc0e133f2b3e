"""``deepcite users ...`` and ``deepcite audit``: user accounts, their API tokens, and
the audit log, in the history store.

Every command that changes something writes an audit entry with the actor ``cli``.
Passwords are read from a prompt (typed twice, not echoed) or, with
``--password-stdin``, from the first line of standard input; they are never printed or
logged. A token is printed once, when it is made.

The store (SQLAlchemy, Alembic) and argon2-cffi are imported when a command runs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from deepcite.cli.common import out, settings_from, user_errors, warn

if TYPE_CHECKING:
    from deepcite.store import HistoryStore, UserRemoval

users_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None)
ACTOR = "cli"
"""The actor of the audit entries these commands write."""

NameArg = Annotated[str, typer.Argument(help="The user name (case does not matter).")]
StdinOption = Annotated[bool, typer.Option(
    "--password-stdin", help="Read the password from the first line of standard input.")]


def _open() -> HistoryStore:
    from deepcite.store import HistoryStore

    return HistoryStore.open(settings_from({}))


def _password(from_stdin: bool) -> str:
    from deepcite.store.users_ops import check_new_password

    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return check_new_password(password)


def _audit(store: HistoryStore, action: str, target: str,
           detail: dict[str, Any] | None = None) -> None:
    store.audit(action, actor=ACTOR, target=target, detail=detail)


@users_app.command("add", help="Add a user (prompts for the password twice).")
def add_command(
    name: NameArg,
    admin: Annotated[bool, typer.Option("--admin", help="Make the user an admin.")] = False,
    password_stdin: StdinOption = False,
) -> None:
    """Add a user."""
    with user_errors():
        password = _password(password_stdin)
        with _open() as store:
            user = store.add_user(name, password, admin=admin)
            _audit(store, "user.add", user.name, {"admin": admin})
    out.print(Text(f"Added user {user.name}{' (admin)' if admin else ''}"))


@users_app.command("list", help="List the users.")
def list_command() -> None:
    """List the users: name, admin, disabled, created, live tokens."""
    with user_errors(), _open() as store:
        users = store.users()
    if not users:
        out.print(Text("No users yet - `deepcite users add NAME` adds one"))
        return
    table = Table("name", "admin", "disabled", "created", "tokens")
    for user in users:
        table.add_row(Text(user.name), "yes" if user.is_admin else "no",
                      "yes" if user.disabled else "no",
                      user.created_at.strftime("%Y-%m-%d %H:%M"), str(user.tokens))
    out.print(table)


@users_app.command("passwd", help="Set a user's password. Ends their web sessions and "
                   "revokes their API tokens.")
def passwd_command(name: NameArg, password_stdin: StdinOption = False) -> None:
    """Set a user's password (their sessions end, their API tokens are revoked)."""
    with user_errors():
        password = _password(password_stdin)
        with _open() as store:
            revoked = store.set_password(name, password)
            user = store.user(name)
            _audit(store, "user.passwd", user.name, {"tokens_revoked": revoked})
    out.print(Text(f"Password of {user.name} changed"))
    if revoked:
        out.print(Text(f"Their {revoked} API token{'' if revoked == 1 else 's'} "
                       f"{'was' if revoked == 1 else 'were'} revoked; make new ones with "
                       f"`deepcite users token {user.name}` (or on the Account page)"))


def _set_disabled(name: str, disabled: bool) -> None:
    with user_errors(), _open() as store:
        changed = store.set_disabled(name, disabled)
        user = store.user(name)
        if changed:
            _audit(store, "user.disable" if disabled else "user.enable", user.name)
    state = "disabled" if disabled else "enabled"
    out.print(Text(f"User {user.name} {state}" if changed
                   else f"User {user.name} was already {state}"))


@users_app.command("disable", help="Disable a user: their password and tokens stop working.")
def disable_command(name: NameArg) -> None:
    """Disable a user."""
    _set_disabled(name, True)


@users_app.command("enable", help="Enable a disabled user again.")
def enable_command(name: NameArg) -> None:
    """Enable a user again."""
    _set_disabled(name, False)


@users_app.command("logout", help="End every web session of a user, at once.")
def logout_command(name: NameArg) -> None:
    """End a user's web sessions (they log in again; tokens are not touched)."""
    with user_errors(), _open() as store:
        user = store.user(name)
        ended = store.end_sessions(name)
        _audit(store, "user.logout", user.name, {"sessions": ended})
    out.print(Text(f"Ended {ended} session{'' if ended == 1 else 's'} of {user.name}"))


@users_app.command(
    "rm", help="Remove a user. Say what becomes of what they own: --delete-data deletes "
    "their runs, watches and collections with the account; --transfer-to OTHER hands them "
    "to the user OTHER. Their API tokens and sessions end either way.")
def rm_command(
    name: NameArg,
    delete_data: Annotated[bool, typer.Option(
        "--delete-data", help="Delete the user's runs, watches and collections (their "
        "files too) with the account.")] = False,
    transfer_to: Annotated[str | None, typer.Option(
        "--transfer-to", metavar="OTHER", help="Hand the user's runs, watches and "
        "collections to the user OTHER (watches arrive paused, with no feed address).")
    ] = None,
    old_keep: Annotated[bool, typer.Option("--keep-runs", hidden=True)] = False,
    old_delete: Annotated[bool, typer.Option("--delete-runs", hidden=True)] = False,
) -> None:
    """Remove a user, deleting or handing over what they own."""
    from deepcite.errors import InputError, UserOwnsDataError
    from deepcite.store.user_removal import remove_user

    with user_errors():
        if old_keep or old_delete:
            raise InputError("--keep-runs and --delete-runs are gone - use --delete-data to "
                             "delete what the user owns, or --transfer-to OTHER to hand it "
                             "to another user")
        settings = settings_from({})
        with _open() as store:
            user = store.user(name)
            try:
                removal, warnings = remove_user(store, settings, name,
                                                delete_data=delete_data,
                                                transfer_to=transfer_to)
            except UserOwnsDataError:
                owned = store.user_belongings(name).summary()
                raise InputError(f"User {user.name} owns {owned} - add --delete-data to "
                                 "delete them with the account, or --transfer-to OTHER to "
                                 "hand them to another user") from None
            _audit(store, "user.remove", user.name, _removal_detail(removal))
    for warning in warnings:
        warn(warning)
    out.print(Text(removal_line(removal)))


def _removal_detail(removal: UserRemoval) -> dict[str, Any]:
    """The audit detail of a removal: what was owned and where it went."""
    owned = removal.owned
    return {"runs": owned.runs, "watches": owned.watches,
            "collections": len(owned.collections),
            "fate": ("transfer" if removal.transferred_to
                     else "delete" if owned.any_data else "none"),
            **({"to": removal.transferred_to} if removal.transferred_to else {})}


def removal_line(removal: UserRemoval) -> str:
    """``Removed user bob (3 runs and 1 watch deleted)``, or ``...; alice now owns``."""
    owned = removal.owned
    if removal.transferred_to:
        paused = " (watches paused)" if owned.watches else ""
        return (f"Removed user {removal.user}; {removal.transferred_to} now owns their "
                f"{owned.summary()}{paused}")
    if owned.any_data:
        return f"Removed user {removal.user} ({owned.summary()} deleted)"
    return f"Removed user {removal.user} (they owned nothing)"


@users_app.command("token", help="Make an API token for a user (shown once).")
def token_command(
    name: NameArg,
    label: Annotated[str, typer.Option("--label", help="What the token is for.")] = "",
) -> None:
    """Make an API token."""
    with user_errors(), _open() as store:
        token = store.create_token(name, label)
        made = store.tokens(name)[-1]
        _audit(store, "token.create", made.user, {"token_id": made.id, "label": made.label})
    out.print(Text(f"Token {made.id} of {made.user}: {token}"))
    out.print(Text("It will not be shown again - keep it somewhere safe."))


@users_app.command("revoke", help="Revoke a user's API token, at once.")
def revoke_command(
    name: NameArg,
    token_id: Annotated[int, typer.Argument(help="The token's id (from `users token`).")],
) -> None:
    """Revoke an API token."""
    with user_errors(), _open() as store:
        changed = store.revoke_token(name, token_id)
        user = store.user(name)
        if changed:
            _audit(store, "token.revoke", user.name, {"token_id": token_id})
    out.print(Text(f"Token {token_id} of {user.name} revoked" if changed
                   else f"Token {token_id} of {user.name} was already revoked"))


def audit_command(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1,
                                       help="Show at most N entries (the newest).")] = 50,
    user: Annotated[str | None, typer.Option(
        "--user", help="Only entries whose actor is NAME (`cli` for this command line).")
    ] = None,
    action: Annotated[str | None, typer.Option(
        "--action", help="Only entries of this action (user.add, token.revoke...).")] = None,
) -> None:
    """Show the audit log, newest first."""
    with user_errors(), _open() as store:
        entries = store.audit_log(limit, actor=user, action=action)
    if not entries:
        out.print(Text("No audit entries"))
        return
    table = Table("when", "actor", "action", "target", "detail", "address")
    for entry in entries:
        detail = ", ".join(f"{key}={value}" for key, value in (entry.detail or {}).items())
        table.add_row(entry.at.strftime("%Y-%m-%d %H:%M:%S"), Text(entry.actor or "-"),
                      Text(entry.action), Text(entry.target or "-"), Text(detail),
                      Text(entry.address or "-"))
    out.print(table)
