"""Whose work a caller may see: :class:`Access`, passed to every store read and change
that names runs, so the rule "each person sees only their own" lives in one place.

A server without accounts (no user exists) and the command line on the machine that
holds the data see everything (:data:`EVERYTHING`). A user sees the runs they own; an
admin sees everyone's. A run another user owns is *not there* for the caller: the store
answers it as unknown (404 over HTTP), never as forbidden, so an id reveals nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, true

from deepcite.store.models import Run
from deepcite.store.read_models import UserInfo


@dataclass(frozen=True)
class Access:
    """Who is asking, as far as the store cares: ``user_id`` (``None``: nobody in
    particular) and whether they are an admin (who sees every run)."""

    user_id: int | None
    admin: bool = False
    #: The user's name, for the audit log and messages (``None`` with ``user_id``).
    name: str | None = None

    @property
    def sees_all(self) -> bool:
        """Whether every run is visible: an admin, or no accounts at all."""
        return self.admin or self.user_id is None

    @property
    def owner_id(self) -> int | None:
        """Who a run this caller starts belongs to (``None``: no one in particular)."""
        return self.user_id

    def runs(self) -> ColumnElement[bool]:
        """The SQL condition keeping the runs this caller may see."""
        return true() if self.sees_all else Run.owner_id == self.user_id


#: The command line, the Python API, a server without accounts: every run is visible.
EVERYTHING = Access(user_id=None, admin=True)


def access_of(user: UserInfo | None) -> Access:
    """What ``user`` may see; :data:`EVERYTHING` for no user (no accounts, the local
    user) - the one mapping every front end's caller uses."""
    if user is None:
        return EVERYTHING
    return Access(user_id=user.id, admin=user.is_admin, name=user.name)
