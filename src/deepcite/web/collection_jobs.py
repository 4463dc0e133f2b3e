"""Collections the web app manages: server folders, uploads, background indexing.

Indexing a folder can take minutes, so a request only starts it: :class:`IndexJobs`
runs it on a thread and keeps its progress (documents done of total, as the indexer
reports them). The folder each collection was indexed from and the last outcome are
also written to the history store's collection registry (the ``web`` entry of its
``settings``), so they survive a restart: re-indexing still knows the folder, and the
failed documents of the last indexing are still shown.

Uploaded files live under ``<data_dir>/uploads/<name>``, one folder per collection
(:func:`upload_folder`); deleting the collection deletes that folder too.

Who may see and change a collection is the store's (:mod:`deepcite.store.sharing_ops`):
:func:`claim_collection` records a new collection as its maker's, and
:func:`delete_collection` forgets its sharing and audits the deletion.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepcite.collections.collection import upload_folder as upload_folder  # re-exported
from deepcite.config import Settings
from deepcite.errors import DeepciteError
from deepcite.store import HistoryStore

if TYPE_CHECKING:  # only named: the app's state (contracts) holds the jobs, and gate needs it
    from deepcite.web.caller import Caller

logger = logging.getLogger(__name__)

#: Failed documents kept per outcome: enough to act on, never a huge registry row.
MAX_FAILED_KEPT = 200


def inside_roots(folder: str, roots: tuple[str, ...]) -> Path | None:
    """The folder, resolved, when it lies inside one of ``roots``; else ``None``.

    A relative ``folder`` is taken relative to each root in turn. Resolving first
    means ``..`` and symlinks cannot lead out of a root.
    """
    text = folder.strip()
    if not text:
        return None
    given = Path(text).expanduser()
    for root in roots:
        try:
            base = Path(root).expanduser().resolve(strict=True)
            path = (given if given.is_absolute() else base / given).resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if path.is_dir() and path.is_relative_to(base):
            return path
    return None


#: The refusal of a server folder to a user who is not an admin (see :func:`may_index_folders`).
FOLDERS_ARE_FOR_ADMINS = ("Only an admin may index a server folder - upload your files "
                          "instead, or ask an admin to index the folder and share it with you")


def may_index_folders(caller: Caller) -> bool:
    """Whether ``caller`` may index (or re-index) a server folder under the folder roots.

    With accounts, only admins: a server folder is the operator's, not any one user's,
    and a folder (or one around it) may be behind another user's private collection -
    a user allowed to index it under a name of their own would read that collection.
    Who else sees a folder's documents is then the admin's decision (sharing). Users
    upload their own files instead. Without accounts (open or token mode) every caller
    is trusted alike and may.
    """
    return caller.user is None or caller.admin


def from_uploads(settings: Settings, name: str, folder: str) -> bool:
    """Whether ``folder`` (an indexing's recorded folder) is ``name``'s upload folder -
    files a user uploaded, which its owner may re-index, unlike a server folder."""
    return Path(folder) == upload_folder(settings, name).resolve()


def folder_problem(roots: tuple[str, ...]) -> str:
    """Why a folder was refused, said so that the one who can fix it knows how."""
    if not roots:
        return ("The server was started with no folder roots - start it with "
                "--folder-root DIR to index server folders, or upload files instead")
    return ("The folder must be an existing folder inside one of the allowed folders "
            f"({', '.join(roots)}) - give its path, absolute or relative to one of them")


@dataclass(frozen=True)
class IndexState:
    """One collection's indexing: running now, or how the last one ended.

    ``state`` is ``indexing``, ``done``, ``failed`` or ``interrupted`` (the server
    stopped while it ran); ``failed`` lists the documents that could not be read, why.
    """

    folder: str
    state: str
    done: int = 0
    total: int = 0
    summary: str = ""
    failed: tuple[tuple[str, str], ...] = ()
    finished: datetime | None = None

    @property
    def label(self) -> str:
        """One line for the pages."""
        if self.state == "indexing":
            return (f"indexing: {self.done}/{self.total} documents" if self.total
                    else "indexing")
        if self.state == "interrupted":
            return "interrupted: the server stopped while indexing - re-index"
        return f"{self.state}: {self.summary}" if self.summary else self.state

    def stored(self) -> dict[str, Any]:
        """What the registry keeps of it."""
        return {"folder": self.folder, "state": self.state, "summary": self.summary,
                "failed": [list(pair) for pair in self.failed[:MAX_FAILED_KEPT]],
                "finished": self.finished.isoformat() if self.finished else None}

    @classmethod
    def from_stored(cls, value: Any) -> IndexState | None:
        """The state the registry kept, or ``None`` for anything not one."""
        if not isinstance(value, dict) or not isinstance(value.get("folder"), str):
            return None
        state = str(value.get("state") or "done")
        finished = None
        with contextlib.suppress(TypeError, ValueError):
            finished = datetime.fromisoformat(str(value.get("finished")))
        failed = tuple((str(pair[0]), str(pair[1])) for pair in value.get("failed") or []
                       if isinstance(pair, list | tuple) and len(pair) == 2)
        return cls(value["folder"], "interrupted" if state == "indexing" else state,
                   summary=str(value.get("summary") or ""), failed=failed,
                   finished=finished)


@dataclass
class IndexJobs:
    """Background indexing of collections, and its state for the collections pages.

    The states live in memory and in the store's registry (:meth:`restore` reads them
    back once, after a restart).
    """

    states: dict[str, IndexState] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _restored: bool = False

    def restore(self, store: HistoryStore) -> None:
        """Read the kept states from ``store`` (once; later calls do nothing)."""
        with self.lock:
            if self._restored:
                return
            self._restored = True
        try:
            entries = store.collections()
        except DeepciteError as exc:
            logger.warning("the collection registry cannot be read: %s", exc)
            return
        with self.lock:
            for entry in entries:
                kept = IndexState.from_stored(entry.settings.get("web"))
                if kept is not None and entry.name not in self.states:
                    self.states[entry.name] = kept

    def snapshot(self, store: HistoryStore) -> dict[str, IndexState]:
        """Every collection's state now."""
        self.restore(store)
        with self.lock:
            return dict(self.states)

    def get(self, name: str, store: HistoryStore) -> IndexState | None:
        """``name``'s state, if it was ever indexed here."""
        return self.snapshot(store).get(name)

    def running(self, name: str) -> bool:
        """Whether ``name`` is being indexed now."""
        with self.lock:
            found = self.states.get(name)
            return found is not None and found.state == "indexing"

    def start(self, name: str, folder: Path, settings: Settings,
              store: HistoryStore) -> bool:
        """Index ``folder`` into the collection ``name`` (created if missing) on a
        thread; ``False`` (nothing started) when ``name`` is being indexed already."""
        self.restore(store)
        with self.lock:
            found = self.states.get(name)
            if found is not None and found.state == "indexing":
                return False
            self.states[name] = IndexState(str(folder), "indexing")
        thread = threading.Thread(target=self._index, args=(name, folder, settings, store),
                                  name=f"deepcite-index-{name}", daemon=True)
        thread.start()
        return True

    def forget(self, name: str) -> None:
        """Drop what is known of ``name`` (it was deleted)."""
        with self.lock:
            self.states.pop(name, None)

    def _set(self, name: str, **changes: Any) -> IndexState:
        with self.lock:
            state = replace(self.states[name], **changes)
            self.states[name] = state
            return state

    def _index(self, name: str, folder: Path, settings: Settings,
               store: HistoryStore) -> None:
        from deepcite.collections.collection import Collection
        from deepcite.collections.indexer import AddProgress

        def progress(step: AddProgress) -> None:
            self._set(name, done=step.done, total=step.total)

        collection = None
        try:
            collection = Collection.create(name, settings=settings)
            _record(store, collection, self._set(name), settings)
            # a server folder (a folder root's, or uploads): no hard links, see files.py
            report = collection.add(folder, progress, refuse_hard_links=True)
            failed = tuple((_shown(path, folder), reason) for path, reason in report.failed)
            changes: dict[str, Any] = {"state": "done", "summary": report.summary(),
                                       "failed": failed}
        except (DeepciteError, OSError) as exc:
            changes = {"state": "failed", "summary": str(exc).splitlines()[0] if str(exc)
                       else type(exc).__name__}
        except Exception as exc:  # a thread has nobody else to tell
            logger.exception("indexing collection %s failed", name)
            changes = {"state": "failed", "summary": type(exc).__name__}
        final = self._set(name, finished=datetime.now(UTC), **changes)
        if collection is not None:
            _record(store, collection, final, settings)


def _shown(path: Path, folder: Path) -> str:
    """``path`` relative to the indexed folder where it lies inside it."""
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return str(path)


def _record(store: HistoryStore, collection: Any, state: IndexState,
            settings: Settings) -> None:
    """Keep ``state`` in the registry; a failure is logged, never lost indexing."""
    try:
        info = collection.info()
        location = (collection.index.get_meta("index") or ""
                    if info.backend == "elasticsearch" else str(info.path))
        store.register_collection(
            info.name, backend=info.backend, location=location, documents=info.documents,
            chunks=info.chunks,
            settings={"chunk_tokens": settings.search.chunk_tokens,
                      "chunk_overlap_tokens": settings.search.chunk_overlap_tokens,
                      "web": state.stored()})
    except Exception as exc:  # noqa: BLE001 - the registry is a record, not the index
        logger.warning("collection %s is not recorded in the history store: %s",
                       collection.name, exc)


def collection_exists(name: str, settings: Settings, store: HistoryStore) -> bool:
    """Whether ``name`` (a valid name) is a collection already: its file is here, the
    registry lists it, or someone has made it (its indexing may not have begun yet)."""
    from deepcite.collections.collection import collection_path

    if collection_path(name, settings).exists():
        return True
    try:
        if any(entry.name == name for entry in store.collections()):
            return True
    except DeepciteError:
        pass
    return store.collection_sharing(name).owner is not None


def claim_collection(name: str, settings: Settings, store: HistoryStore,
                     caller: Caller) -> str | None:
    """Make ``name`` the caller's before it is indexed: a new collection is recorded as
    theirs (with accounts) and private to them; an existing one is left as it is. The
    problem (a 409, one line) when ``name`` is a collection the caller may not change,
    so one user can never add documents to another's.

    Claiming a new name is atomic (:meth:`~deepcite.store.HistoryStore.
    claim_new_collection`): of two users making the same new name at once, one wins
    and the other is answered exactly as for a name that existed before - even an
    admin, who meant to make a new collection, not to fill someone else's."""
    if collection_exists(name, settings, store):
        if store.may_change_collection(caller.access, name):
            return None
        return taken_message(name)
    if caller.user is not None and not store.claim_new_collection(name, caller.user.id):
        return taken_message(name)
    return None


def taken_message(name: str) -> str:
    """The one answer for a name that is someone else's collection (or just became one)."""
    return f"The name {name} is taken - choose another name"


def readable(store: HistoryStore, caller: Caller, name: str) -> bool:
    """Whether ``caller`` may see collection ``name`` (else it is answered as missing)."""
    return name in store.readable_collections(caller.access, [name])


def delete_collection(name: str, settings: Settings, store: HistoryStore,
                      actor: str | None = None) -> str | None:
    """Delete the collection ``name``: its index, its registry entry, its uploads, who
    it was shared with; the deletion is audited (``collection.delete`` by ``actor``).

    The caller has refused the bundled demo, a collection being indexed and one it may
    not change. Raises
    :class:`~deepcite.errors.CollectionError` when there is no such collection or it
    cannot be removed; returns a warning when something was left behind.
    """
    from deepcite.collections.collection import remove_collection, remove_uploads

    warning = remove_collection(name, settings)
    with contextlib.suppress(DeepciteError):
        store.remove_collection(name)
    store.forget_collection(name)
    store.audit("collection.delete", actor=actor, target=name)
    return remove_uploads(settings, name) or warning
