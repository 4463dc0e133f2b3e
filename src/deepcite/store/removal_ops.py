"""Removing a user, and deciding - explicitly - what becomes of everything they own.

A removed account must leave nothing that a later account could inherit or that could
still be read in its name. Ids are never reused (revision 0008), and removal goes
further: in one transaction it either **deletes** what the user owns or **hands it
over** to a named user, and refuses (:class:`~deepcite.errors.UserOwnsDataError`) when
the user owns something and neither was asked. What happens to each kind of thing:

========================  ==========================  ===================================
What                      ``delete_data``             ``transfer_to``
========================  ==========================  ===================================
runs                      deleted (with their         the heir's (a queued run's stored
                          sources, checks, events)    request names the heir too)
watches                   deleted, with their watch   the heir's, **paused**, feed token
                          runs and outbox             cleared: the heir reviews the targets
                                                      and makes a new feed address
collections they own      records deleted; the files  the heir's, sharing kept
                          are the caller's to delete
                          (:attr:`UserRemoval.
                          delete_collections`)
shared with them          taken off every list        taken off every list (the heir does
                                                      not inherit others' shares)
API tokens, sessions      deleted                     deleted (credentials never move)
========================  ==========================  ===================================

A user who owns nothing is removed with neither option. The audit log keeps its
entries: it records what was done, by name, and is the admins' alone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from deepcite.errors import InputError, UserOwnsDataError
from deepcite.store.base import StoreBase
from deepcite.store.models import (
    ApiTokenRow,
    CollectionAccessRow,
    CollectionRow,
    DeliveryRow,
    Run,
    UserRow,
    WatchRow,
    WatchRunRow,
    WebSessionRow,
)
from deepcite.store.read_models import UserBelongings, UserRemoval
from deepcite.store.users_ops import UserOps


def _owner(row: UserRow) -> dict[str, Any]:
    """A stored run request's ``owner`` (a :class:`~deepcite.runs.request.RunOwner` as
    JSON, defaults left out as :meth:`RunRequest.stored` leaves them)."""
    owner: dict[str, Any] = {"id": row.id, "name": row.name}
    if row.is_admin:
        owner["admin"] = True
    return owner


def _handed_over(request: dict[str, Any] | None, heir: UserRow) -> dict[str, Any] | None:
    """``request`` with its owner replaced by ``heir`` (a request without one as is)."""
    if not isinstance(request, dict) or not isinstance(request.get("owner"), dict):
        return request
    return {**request, "owner": _owner(heir)}


class RemovalOps(StoreBase):
    """The removal side of :class:`~deepcite.store.HistoryStore` (see the module
    docstring)."""

    def user_belongings(self, name: str) -> UserBelongings:
        """What the user ``name`` owns (an :class:`~deepcite.errors.UnknownUserError`
        for no such user)."""
        with self._reading() as session:
            return self._belongings(session, UserOps._user_row(session, name))

    @staticmethod
    def _belongings(session: Session, row: UserRow) -> UserBelongings:
        def count(model: Any, where: Any) -> int:
            return session.scalar(select(func.count()).select_from(model).where(where)) or 0

        collections = sorted(session.scalars(select(CollectionAccessRow.name).where(
            CollectionAccessRow.owner_id == row.id)))
        return UserBelongings(
            runs=count(Run, Run.owner_id == row.id),
            watches=count(WatchRow, WatchRow.owner_id == row.id),
            collections=collections,
            tokens=count(ApiTokenRow, (ApiTokenRow.user_id == row.id)
                         & ApiTokenRow.revoked_at.is_(None)))

    def remove_user(self, name: str, *, delete_data: bool = False,
                    transfer_to: str | None = None) -> UserRemoval:
        """Remove the user ``name`` and decide the fate of what they own: deleted
        (``delete_data``) or handed to the user ``transfer_to`` - see the module
        docstring. Their API tokens and sessions end either way.

        Raises :class:`~deepcite.errors.UserOwnsDataError` when they own runs, watches
        or collections and neither was given, an :class:`InputError` for both or for
        handing to themselves, an :class:`~deepcite.errors.UnknownUserError` for an
        unknown name. The files of deleted collections are the caller's to delete
        (:func:`deepcite.store.user_removal.remove_user` does it).
        """
        if delete_data and transfer_to is not None:
            raise InputError("Either delete the user's data or transfer it to another "
                             "user, not both")
        with self._writing() as session:
            row = UserOps._user_row(session, name)
            heir = UserOps._user_row(session, transfer_to) if transfer_to is not None else None
            if heir is not None and heir.id == row.id:
                raise InputError(f"Cannot transfer {row.name}'s data to {row.name} - name "
                                 "another user")
            owned = self._belongings(session, row)
            if owned.any_data and not delete_data and heir is None:
                raise UserOwnsDataError(
                    f"User {row.name!r} owns {owned.summary()} - say whether to delete them "
                    "with the account or transfer them to another user")
            deleted_runs: list[str] = []
            if heir is not None:
                self._hand_over(session, row, heir)
            else:
                deleted_runs = self._delete_owned(session, row)
            self._forget_shares(session, row.id)
            session.execute(delete(ApiTokenRow).where(ApiTokenRow.user_id == row.id))
            session.execute(delete(WebSessionRow).where(WebSessionRow.user_name == row.name))
            session.execute(delete(UserRow).where(UserRow.id == row.id))
            removal = UserRemoval(
                user=row.name, owned=owned,
                transferred_to=heir.name if heir is not None and owned.any_data else None,
                delete_collections=[] if heir is not None else owned.collections)
        with self._lock:  # runs this process began and no longer exist
            for run_id in deleted_runs:
                self._pending.pop(run_id, None)
                self._held.discard(run_id)
        return removal

    def _delete_owned(self, session: Session, row: UserRow) -> list[str]:
        """Delete the runs, watches and collection records of ``row``; the run ids."""
        runs = list(session.scalars(select(Run.id).where(Run.owner_id == row.id)))
        session.execute(delete(Run).where(Run.owner_id == row.id))
        watches = select(WatchRow.id).where(WatchRow.owner_id == row.id)
        session.execute(delete(DeliveryRow).where(DeliveryRow.watch_id.in_(watches)))
        session.execute(delete(WatchRunRow).where(WatchRunRow.watch_id.in_(watches)))
        session.execute(delete(WatchRow).where(WatchRow.owner_id == row.id))
        names = select(CollectionAccessRow.name).where(CollectionAccessRow.owner_id == row.id)
        session.execute(delete(CollectionRow).where(CollectionRow.name.in_(names)))
        session.execute(delete(CollectionAccessRow).where(
            CollectionAccessRow.owner_id == row.id))
        return runs

    def _hand_over(self, session: Session, row: UserRow, heir: UserRow) -> None:
        """Make everything ``row`` owns ``heir``'s (their watches paused, feeds closed)."""
        now = datetime.now(UTC)
        session.execute(update(Run).where(Run.owner_id == row.id, Run.request.is_(None))
                        .values(owner_id=heir.id))
        for run in list(session.scalars(select(Run).where(Run.owner_id == row.id))):
            run.owner_id, run.request = heir.id, _handed_over(run.request, heir)
        for watch in list(session.scalars(select(WatchRow).where(
                WatchRow.owner_id == row.id))):
            watch.owner_id, watch.request = heir.id, _handed_over(watch.request, heir) or {}
            watch.status, watch.feed_token_hash, watch.updated_at = "paused", None, now
        for access in list(session.scalars(select(CollectionAccessRow).where(
                CollectionAccessRow.owner_id == row.id))):
            access.owner_id, access.updated_at = heir.id, now
            access.shared_with = [i for i in access.shared_with or [] if int(i) != heir.id]
        session.flush()

    @staticmethod
    def _forget_shares(session: Session, user_id: int) -> None:
        """Take ``user_id`` off every collection's list of users it is shared with."""
        for access in list(session.scalars(select(CollectionAccessRow))):
            ids = [int(i) for i in access.shared_with or []]
            if user_id in ids:
                access.shared_with = [i for i in ids if i != user_id]
                access.updated_at = datetime.now(UTC)
