"""One call at a time into a model that is not thread safe, in the order they came.

The bundled llama.cpp model is one ``Llama`` object per loaded file, shared by every
run of the process, and it must not be called from two threads at once. A plain
``threading.Lock`` would serialise the calls but is not fair: a thread that releases it
and asks again at once (a run's next call) usually wins over threads that have been
waiting, so with several runs on one server one run could take every turn while the
others' calls waited for minutes. :class:`CallQueue` hands out tickets and serves them
in order, so each waiting call goes next in the order it asked.

A waiting call also watches its run: when ``should_stop`` says the run was cancelled,
it leaves the queue within :data:`POLL_SECONDS` instead of waiting for every call
ahead of it to finish, and its ticket is skipped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType

__all__ = ["POLL_SECONDS", "CallQueue"]

POLL_SECONDS = 0.1
"""How often a waiting call asks ``should_stop`` (a cancelled waiter leaves this fast)."""


class CallQueue:
    """A first-come, first-served lock; its waiters may leave when their run stops.

    ``with queue:`` waits unconditionally (as a lock); :meth:`turn` may give up.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition(threading.Lock())
        self._next_ticket = 0
        self._serving = 0
        self._left: set[int] = set()

    def acquire(self, should_stop: Callable[[], bool] | None = None) -> bool:
        """Wait for this caller's turn; ``False`` (no turn taken) when ``should_stop``
        said so while waiting."""
        with self._changed:
            ticket = self._next_ticket
            self._next_ticket += 1
            try:
                while ticket != self._serving:
                    if should_stop is not None and should_stop():
                        self._leave(ticket)
                        return False
                    self._changed.wait(None if should_stop is None else POLL_SECONDS)
            except BaseException:  # should_stop raised, or Ctrl-C: never block the rest
                self._leave(ticket)
                raise
            return True

    @property
    def waiting(self) -> int:
        """Calls waiting for their turn now (not counting the one being served)."""
        with self._changed:
            issued = self._next_ticket - self._serving - len(self._left)
            return max(0, issued - 1)

    def release(self) -> None:
        """End the current turn; the next waiting ticket (skipping those that left) goes."""
        with self._changed:
            self._advance()

    def _leave(self, ticket: int) -> None:
        """Give up ``ticket`` (the condition's lock held): skipped when its turn comes."""
        if ticket == self._serving:
            self._advance()
        else:
            self._left.add(ticket)

    def _advance(self) -> None:
        self._serving += 1
        while self._serving in self._left:
            self._left.discard(self._serving)
            self._serving += 1
        self._changed.notify_all()

    @contextmanager
    def turn(self, should_stop: Callable[[], bool] | None = None) -> Iterator[bool]:
        """Hold a turn for the ``with`` block; yields ``False`` (and holds nothing)
        when the caller stopped waiting."""
        got = self.acquire(should_stop)
        try:
            yield got
        finally:
            if got:
                self.release()

    def __enter__(self) -> CallQueue:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()
