"""Who may search a collection: its owner, everyone, or named users.

A collection made by a user (on the web pages or over the API) is theirs alone until an
admin shares it with everyone or with named users. A collection with no record here -
one indexed with the command line, or before accounts existed - belongs to no one: only
admins may search it until an admin shares it (or gives it an owner). The bundled
``demo`` collection is everyone's. Without accounts (:data:`~deepcite.store.user_rights.
EVERYTHING`) every collection may be searched.

A collection the caller may not read is *not there* for them: it is left out of
listings, and naming it is answered as for a collection that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import delete, exc, select
from sqlalchemy.orm import Session

from deepcite.store.base import StoreBase
from deepcite.store.models import CollectionAccessRow, UserRow
from deepcite.store.read_models import CollectionSharing
from deepcite.store.user_rights import Access
from deepcite.store.users_ops import UserOps

#: Collections every user may search, whatever is recorded.
PUBLIC_COLLECTIONS = frozenset({"demo"})


class SharingOps(StoreBase):
    """The collection-access side of :class:`~deepcite.store.HistoryStore`."""

    def set_collection_owner(self, name: str, owner_id: int | None) -> None:
        """Record ``owner_id`` as the owner of collection ``name`` (made by them), not
        shared with anyone; an existing record keeps its sharing."""
        with self._writing() as session:
            row = session.get(CollectionAccessRow, name)
            if row is None:
                session.add(CollectionAccessRow(name=name, owner_id=owner_id, shared_all=False,
                                                shared_with=[], updated_at=datetime.now(UTC)))
            else:
                row.owner_id = owner_id
                row.updated_at = datetime.now(UTC)

    def claim_new_collection(self, name: str, owner_id: int) -> bool:
        """Record ``name`` as a new collection of ``owner_id``'s, private to them, as one
        atomic claim; whether ``name`` is now theirs.

        The name is the table's primary key, so of two users making the same new name
        at once exactly one insert commits (on SQLite the write lock orders them, on
        PostgreSQL the unique index makes the second wait and fail); the loser gets
        ``False`` and must treat the name as taken - never index into it. A record
        with no owner (a stale one: sharing set for a name before it existed) is
        replaced in the same transaction, so it cannot share the new collection.
        ``True`` also when the record is already ``owner_id``'s (the same user twice).
        """
        with self._database_errors():
            try:
                with self._transaction() as session:
                    session.execute(delete(CollectionAccessRow).where(
                        CollectionAccessRow.name == name,
                        CollectionAccessRow.owner_id.is_(None)))
                    session.add(CollectionAccessRow(
                        name=name, owner_id=owner_id, shared_all=False, shared_with=[],
                        updated_at=datetime.now(UTC)))
                return True
            except exc.IntegrityError:  # another claim committed first
                pass
        with self._reading() as session:
            row = session.get(CollectionAccessRow, name)
            return row is not None and row.owner_id == owner_id

    def share_collection(self, name: str, *, everyone: bool | None = None,
                         add_users: Iterable[str] = (), remove_users: Iterable[str] = (),
                         private: bool = False) -> CollectionSharing:
        """Change who may search ``name``: ``everyone`` on or off, users added or
        removed by name (an :class:`~deepcite.errors.UnknownUserError` for a name with no
        account), or ``private`` (only its owner again; applied first, so the other
        changes given with it are kept). Returns the new sharing."""
        with self._writing() as session:
            row = session.get(CollectionAccessRow, name)
            if row is None:
                row = CollectionAccessRow(name=name, owner_id=None, shared_all=False,
                                          shared_with=[], updated_at=datetime.now(UTC))
                session.add(row)
            # private first: "--private --user bob" leaves bob, not no one
            ids = [] if private else [int(i) for i in row.shared_with or []]
            if private:
                row.shared_all = False
            for user in add_users:
                found = UserOps._user_row(session, user).id
                if found not in ids:
                    ids.append(found)
            for user in remove_users:
                found = UserOps._user_row(session, user).id
                ids = [i for i in ids if i != found]
            if everyone is not None:
                row.shared_all = everyone
            row.shared_with = ids
            row.updated_at = datetime.now(UTC)
            session.flush()
            return self._sharing(session, row)

    def collection_sharing(self, name: str) -> CollectionSharing:
        """Who may search ``name`` (a collection with no record: no owner, not shared)."""
        with self._reading() as session:
            row = session.get(CollectionAccessRow, name)
            if row is None:
                return CollectionSharing(name=name, public=name in PUBLIC_COLLECTIONS)
            return self._sharing(session, row)

    def readable_collections(self, access: Access, names: Iterable[str]) -> set[str]:
        """Those of ``names`` that ``access`` may search."""
        wanted = set(names)
        if access.sees_all:
            return wanted
        readable = wanted & PUBLIC_COLLECTIONS
        with self._reading() as session:
            rows = session.scalars(select(CollectionAccessRow).where(
                CollectionAccessRow.name.in_(wanted - readable)))
            for row in rows:
                if row.owner_id == access.user_id or row.shared_all \
                        or access.user_id in (row.shared_with or []):
                    readable.add(row.name)
        return readable

    def may_change_collection(self, access: Access, name: str) -> bool:
        """Whether ``access`` may re-index or delete ``name``: an admin, or its owner."""
        if access.sees_all:
            return True
        with self._reading() as session:
            row = session.get(CollectionAccessRow, name)
            return row is not None and row.owner_id == access.user_id

    def forget_collection(self, name: str) -> None:
        """Drop the access record of a deleted collection (a new one of that name
        starts private to whoever makes it)."""
        with self._writing() as session:
            session.execute(delete(CollectionAccessRow).where(CollectionAccessRow.name == name))

    @staticmethod
    def _sharing(session: Session, row: CollectionAccessRow) -> CollectionSharing:
        ids = [int(i) for i in row.shared_with or []]
        names = {user_id: name for user_id, name in session.execute(
            select(UserRow.id, UserRow.name).where(UserRow.id.in_(
                [*ids, *([row.owner_id] if row.owner_id is not None else [])])))}
        return CollectionSharing(
            name=row.name, owner=names.get(row.owner_id) if row.owner_id is not None else None,
            everyone=row.shared_all, users=sorted(names[i] for i in ids if i in names),
            public=row.name in PUBLIC_COLLECTIONS)

