"""Builds that must happen once: one builder at a time, across threads and processes.

Some things are built on first use and then read by everyone: the demo collection's
index, a collection while folders are added to it. Two runs starting at the same moment
(two threads of ``deepcite serve``, or a server and a ``deepcite collection add``) once
built the same thing twice at once, and one of them failed. :func:`build_once` is the
pattern every such build follows (double-checked locking):

1. look without any lock (the fast path: built already, which is almost always);
2. otherwise take :class:`BuildLock` - a lock file next to the data, so processes wait
   for each other, and a lock per file inside this process, so its threads queue
   without polling the file;
3. look again under the lock: whoever waited finds what the first builder made;
4. only then build.

The lock is an OS lock on an open file (``flock`` through the ``filelock`` package), so
a builder that dies - even by ``SIGKILL`` - releases it with its process; what it left
half-built must be recognisable as such by the check of step 3 (the demo stamps its
index only when it is complete), and the next holder builds again. A waiter is told
(``on_wait``) before it starts waiting, so a front end can show that it is waiting
for a build rather than hanging.

The lock file is never removed: removing it while another process waits on the old
one would let two builders in. It is an empty file, by default ``<target>.lock``
(:func:`lock_file`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import filelock

from deepcite.errors import DeepciteError

__all__ = ["LOCK_SUFFIX", "BuildLock", "build_once", "lock_file"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

LOCK_SUFFIX = ".lock"
"""The lock file of ``target`` is ``<target>.lock``, beside it."""
POLL_SECONDS = 0.05
"""How often a waiting process tries the lock file again."""

_THREAD_LOCKS: dict[Path, threading.Lock] = {}
_REGISTRY = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    """The one in-process lock of ``path`` (threads of this process queue on it: some
    file systems give ``flock`` per process, and a thread lock needs no polling)."""
    with _REGISTRY:
        return _THREAD_LOCKS.setdefault(path, threading.Lock())


def lock_file(target: Path) -> Path:
    """The lock file beside ``target``: ``<target>.lock``."""
    return Path(f"{target}{LOCK_SUFFIX}")


class BuildLock:
    """Exclusive right to build what the lock file ``path`` stands for (``what``, in
    messages), held by one thread of one process at a time.

    ``error`` is the :class:`~deepcite.errors.DeepciteError` subclass raised when the
    lock file cannot be made (a read-only folder), so each caller's users get the error
    kind they already handle. Not reentrant: a holder that asks again waits forever.
    """

    def __init__(self, path: Path, *, what: str,
                 error: type[DeepciteError] = DeepciteError) -> None:
        self.path = path
        self.what = what
        self.error = error

    @contextlib.contextmanager
    def held(self, on_wait: Callable[[], None] | None = None) -> Iterator[bool]:
        """Hold the lock for the ``with`` block; yields whether it had to wait.

        ``on_wait`` is called once, before waiting, when someone else holds it.
        """
        local = _thread_lock(self.path.resolve())
        waited = False
        if not local.acquire(blocking=False):
            waited = True
            self._waiting(on_wait)
            local.acquire()
        try:
            with self._file_lock(on_wait, told=waited) as file_waited:
                yield waited or file_waited
        finally:
            local.release()

    def _waiting(self, on_wait: Callable[[], None] | None) -> None:
        logger.info("waiting for another builder of %s to finish", self.what)
        if on_wait is not None:
            on_wait()

    @contextlib.contextmanager
    def _file_lock(self, on_wait: Callable[[], None] | None, *, told: bool
                   ) -> Iterator[bool]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock = filelock.FileLock(self.path, thread_local=False)
            waited = False
            try:
                lock.acquire(timeout=0)
            except filelock.Timeout:
                waited = True
                if not told:
                    self._waiting(on_wait)
                lock.acquire(timeout=-1, poll_interval=POLL_SECONDS)
        except OSError as exc:
            raise self.error(
                f"Cannot lock {self.path} to build {self.what} ({exc.strerror or exc}) - "
                f"make {self.path.parent} writable, or use a writable data folder "
                f"(DEEPCITE_DATA_DIR or data_dir in the config)") from exc
        try:
            yield waited
        finally:
            lock.release()


def build_once(lock: BuildLock, find: Callable[[], T | None], build: Callable[[], T],
               on_wait: Callable[[], None] | None = None) -> T:
    """What ``find`` finds, else what ``build`` makes, with one builder at a time.

    ``find`` is asked without the lock and again under it (so a caller that waited
    uses what the builder made); it must say ``None`` for anything half-built.
    ``on_wait`` is told when the lock is someone else's (see :meth:`BuildLock.held`).
    """
    found = find()
    if found is not None:
        return found
    with lock.held(on_wait):
        found = find()
        if found is not None:
            return found
        return build()
