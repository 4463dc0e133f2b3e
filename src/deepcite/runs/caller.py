"""Who is asking: the one :class:`Caller` every server front end hands down.

The web app (pages, REST, feeds: :mod:`deepcite.web.who_is_asking`) and the MCP server over HTTP
(:mod:`deepcite.mcp_server.auth`) each decide *how* a request proves who sent it; what
they decide is this one value, so both answer "what may this caller see" and "whose
runs does it start" the same way. It sits in ``runs``, below both front ends, beside
:class:`~deepcite.runs.request.RunOwner`, which it becomes when it starts a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from deepcite.runs.request import RunOwner
from deepcite.store import UserInfo
from deepcite.store.user_rights import Access, access_of

#: How a caller proved who they are: ``open`` nothing (an open server, MCP over stdio
#: or without accounts: the local user), ``token`` the web server's ``--token``,
#: ``session`` a page login, ``api-token`` a personal token (REST or MCP), ``header``
#: the user a trusted proxy names.
Via = Literal["open", "token", "session", "api-token", "header"]


@dataclass(frozen=True)
class Caller:
    """Who asks: ``user`` with accounts (``None``: no one in particular - the open or
    token mode, stdio - who sees everything), and how they proved it."""

    user: UserInfo | None = None
    via: Via = "open"

    @property
    def access(self) -> Access:
        """What the store may show this caller."""
        return access_of(self.user)

    @property
    def owner(self) -> RunOwner | None:
        """Who the runs this caller starts belong to (``None``: no one in particular)."""
        return RunOwner.of(self.user)

    @property
    def name(self) -> str | None:
        """The user's name (``None`` without accounts), for the audit log."""
        return self.user.name if self.user is not None else None

    @property
    def admin(self) -> bool:
        """Whether the caller is an admin (who sees everyone's work)."""
        return self.user is not None and self.user.is_admin


#: The local user: no account, sees everything (an open server, stdio, a script).
LOCAL = Caller()
