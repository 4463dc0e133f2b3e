"""Which process holds an in-process run, and whether that process still exists.

A run researched in-process (a CLI report, MCP, an in-process ``deepcite serve``) is
kept alive by its process's heartbeat; a process that died without a word (``kill -9``,
a power cut) leaves it ``running``, and the heartbeat rule can only call it dead after
:data:`~deepcite.store.held.STALE_S` seconds of silence. When the holder was a process
of *this* host, there is no need to wait: the store records who holds each run (host,
pid and the process's start time) and a reader on the same host asks the operating
system whether that process is still there.

"This host" means the same kernel boot and the same PID namespace, so pids compare:
the host name alone is not enough (two containers may share one, two machines may
both be called ``localhost``), so it is joined with the boot id and the PID namespace's
inode. The start time guards against a pid reused by a later process. Where any of
this cannot be read (no ``/proc``: not Linux), a run is taken for gone only when its
pid names no process at all; the heartbeat rule covers the rest.
"""

from __future__ import annotations

import functools
import os
import socket
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Holder", "is_gone", "this_host", "this_process"]

_PROC = Path("/proc")


@dataclass(frozen=True)
class Holder:
    """A process that holds runs: its host identity, pid and start time (clock ticks
    since boot, ``None`` where it cannot be read)."""

    host: str
    pid: int
    started: int | None


@functools.cache
def this_host() -> str:
    """The identity of this host as the store records it (at most 200 characters)."""
    parts = [socket.gethostname()[:100]]
    try:
        parts.append((_PROC / "sys/kernel/random/boot_id").read_text().strip())
        parts.append(str(os.stat(_PROC / "self/ns/pid").st_ino))
    except OSError:
        pass
    return "/".join(parts)[:200]


def _started(pid: int) -> tuple[int, str] | None:
    """The start time (clock ticks since boot) and state letter of process ``pid``;
    ``None`` when there is no such process or ``/proc`` cannot tell."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses
    fields = stat[stat.rfind(")") + 2:].split()
    try:
        return int(fields[19]), fields[0]
    except (IndexError, ValueError):
        return None


def this_process() -> Holder:
    """The holder this process records with the runs it begins."""
    pid = os.getpid()
    found = _started(pid)
    return Holder(this_host(), pid, found[0] if found else None)


def is_gone(pid: int, started: int | None) -> bool:
    """Whether the process ``pid`` (of this host) that started at ``started`` no longer
    exists: no such pid, a zombie (it has exited), or a later process that reused the
    pid. Errs on "alive" when it cannot tell."""
    if pid <= 0:
        return False
    found = _started(pid)
    if found is not None:
        ticks, state = found
        return state in ("Z", "X") or (started is not None and ticks != started)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists, under another user
        return False
    # the pid exists but /proc did not say so: a system without /proc
    return False
