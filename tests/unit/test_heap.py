"""deepcite serve and worker limit glibc's malloc arenas (their memory stays flat over a
long soak, bench/bench_soak.py); a user's own MALLOC_ARENA_MAX stands."""

from __future__ import annotations

import sys

import pytest

from deepcite.runs import heap

GLIBC = sys.platform.startswith("linux") and heap._glibc() is not None


@pytest.mark.skipif(not GLIBC, reason="only glibc has malloc arenas to limit")
def test_a_server_process_takes_the_arena_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert heap.limit_malloc_arenas() is True


def test_the_users_malloc_arena_max_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "8")
    assert heap.limit_malloc_arenas() is False


def test_nothing_is_changed_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert heap.limit_malloc_arenas() is False
