"""Keep a long-lived server's memory flat: fewer malloc arenas for its many threads.

glibc's malloc gives each thread that allocates concurrently its own arena, up to eight
per core, and memory freed in one arena serves only that arena's later allocations. A
server that runs research in threads (the model's calls, searches, SQLite, exports, the
event streams) spreads its allocations over many arenas, and each run's freed memory
lingers where the next run's thread may never look. Measured with ``bench/bench_soak.py``
(in-process executor, SQLite, 300 s): the server's peak RSS grew from 1,041 MiB in the
first third to 1,464 MiB in the last; with two arenas it stayed at 976 -> 1,041 MiB
with the same runs done.

So the processes deepcite owns (``deepcite serve``, ``deepcite worker``) ask for two
arenas as they start, before their threads exist. ``MALLOC_ARENA_MAX`` in the
environment, which glibc reads itself, wins. Elsewhere (macOS, musl, Windows) this does
nothing: those allocators behave differently and have no such setting.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys

logger = logging.getLogger(__name__)

SERVER_ARENAS = 2
"""Arenas for a server process: what the soak measured flat (the Ruby and Java worlds'
usual ``MALLOC_ARENA_MAX=2`` for thread-heavy servers)."""

_M_ARENA_MAX = -8  # from glibc's <malloc.h>


def limit_malloc_arenas(arenas: int = SERVER_ARENAS) -> bool:
    """Ask glibc for at most ``arenas`` malloc arenas; True when it took the setting.

    Call it once, early, in a process that is about to start threads. False (and
    nothing changed) where the allocator is not glibc's, or ``MALLOC_ARENA_MAX`` is
    set: the user's own choice stands.
    """
    if not sys.platform.startswith("linux") or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    libc = _glibc()
    if libc is None:
        return False
    took = bool(libc.mallopt(_M_ARENA_MAX, arenas))
    logger.debug("malloc arenas limited to %d: %s", arenas, took)
    return took


def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc's (it has ``gnu_get_libc_version``), else None."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallopt"):
        return None
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.mallopt.restype = ctypes.c_int
    return libc


__all__ = ["SERVER_ARENAS", "limit_malloc_arenas"]
