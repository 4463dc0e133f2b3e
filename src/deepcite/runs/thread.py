"""A report and its follow-ups, read as one conversation: the thread.

A thread is a root run (a quick answer or a detailed report) and the follow-ups asked
on it, each built on the turn before it (:mod:`deepcite.runs.parents`), oldest first.
The report page, ``GET /api/v1/runs/{id}/thread`` and the MCP ``get_thread`` tool all
read it here, with the caller's :class:`~deepcite.store.user_rights.Access`: any
turn's id opens the whole thread, and a turn another user owns is not part of it
(as a run it may not read is not there).

A new follow-up in a thread (:meth:`Thread.follow_up`) builds on the *last* turn
that has an answer, so the numbers of the sources keep rising along the whole thread
and the earlier turns are part of what the new one builds on; it searches what the
thread's root searched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deepcite.citations.markers import cited_numbers
from deepcite.errors import RequestError
from deepcite.runs.checks import question_problem
from deepcite.runs.request import RunRequest
from deepcite.store import ACTIVE, HistoryStore, StoredRun
from deepcite.store.snapshot import snapshot_collections
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.types import Source

__all__ = ["MAX_TURNS", "Thread", "new_sources", "read_thread", "thread_record"]

#: Turns read of one thread: a page or a reply of a hundred answers is already long.
MAX_TURNS = 100
#: What a follow-up takes over from the turn it builds on: where and how to research
#: (never its materials, whose text is not kept, nor a detailed report's outline review).
_CARRIED = ("collections", "engines", "strategy", "handler", "provider", "model",
            "iterations", "answer_mode", "settings", "budget")


@dataclass(frozen=True)
class Thread:
    """The turns of one thread, root first, and the one a caller asked for."""

    turns: tuple[StoredRun, ...]
    #: The full id of the turn the caller named (shown highlighted on the page).
    asked: str

    @property
    def root(self) -> StoredRun:
        """The run the thread started with."""
        return self.turns[0]

    def tip(self) -> StoredRun:
        """The turn a new follow-up builds on: the last one that ended with an answer.

        A :class:`~deepcite.errors.RequestError` (``parent_id``) while a later turn is
        still queued or running - the next question would not see its answer - or when
        no turn has an answer to build on."""
        for turn in reversed(self.turns):
            if turn.status in ACTIVE:
                raise RequestError("parent_id", "The last question of this thread has "
                                   "not been answered yet - ask the next one once it has")
            if turn.status == "completed" and turn.result.answer.strip():
                return turn
        raise RequestError("parent_id", "No answer in this thread to build on - ask the "
                           "question again instead")

    def follow_up(self, question: str) -> RunRequest:
        """The request for a follow-up ``question`` in this thread: a quick answer
        built on :meth:`tip`, searching what that turn searched (its stored request's
        collections, engines and research choices; the collections of its settings for
        a run stored without its request). Unchecked: the executor admits it."""
        problem = question_problem(question)
        if problem:  # the question's own problem, named as the field it is (422)
            raise RequestError("question", problem)
        if self.root.mode == "check":  # its parent is the document's earlier check
            raise RequestError("parent_id", "A document check has no follow-ups - ask "
                               "the question as a new run instead")
        tip = self.tip()
        fields: dict[str, Any] = {}
        stored = tip.request if isinstance(tip.request, Mapping) else {}
        for name in _CARRIED:
            if name in stored:
                fields[name] = stored[name]
        if "collections" not in fields:
            fields["collections"] = list(snapshot_collections(tip.settings))
        return RunRequest.parse(**fields, question=question, mode="quick",
                                parent_id=tip.id)


def read_thread(store: HistoryStore, ref: str, access: Access = EVERYTHING) -> Thread:
    """The thread run ``ref`` (an id or unique prefix) belongs to, as ``access`` may
    read it: an :class:`~deepcite.errors.UnknownRunError` for a run it may not see,
    exactly as :meth:`HistoryStore.get` answers. A turn deleted while the thread is
    read is left out."""
    from deepcite.errors import UnknownRunError

    asked = store.visible(ref, access)
    turns = []
    ids = store.thread_ids(asked, access, limit=MAX_TURNS)
    if asked not in ids:  # a turn past the first MAX_TURNS: shown after them
        ids = [*ids[:-1], asked]
    for run_id in ids:
        try:
            turns.append(store.get(run_id, access))
        except UnknownRunError:
            if run_id == asked:
                raise
    return Thread(tuple(turns), asked)


def new_sources(turn: StoredRun, earlier: set[int]) -> list[Source]:
    """The sources to list under ``turn``: those its answer cites and those it found,
    never the earlier turns' sources it carries without citing them."""
    cited = set(cited_numbers(turn.result.answer))
    return [s for s in turn.result.sources if s.number in cited or s.number not in earlier]


def thread_record(thread: Thread) -> dict[str, Any]:
    """The thread as JSON-ready data, what REST and MCP both answer: each turn's id,
    parent, question, mode, state, times, answer (Markdown, without its Sources block)
    and the sources listed under it (number, title, url), in order."""
    turns = []
    seen: set[int] = set()
    for turn in thread.turns:
        listed = new_sources(turn, seen)
        seen.update(s.number for s in turn.result.sources)
        turns.append({
            "id": turn.id, "parent_id": turn.parent_id, "question": turn.result.question,
            "mode": turn.mode, "status": turn.status,
            "created_at": turn.created_at.isoformat(),
            "finished_at": turn.finished_at.isoformat() if turn.finished_at else None,
            "answer": turn.result.answer, "error": turn.result.error,
            "sources": [{"number": s.number, "title": s.title,
                         "url": s.url or s.canonical_url} for s in listed]})
    return {"id": thread.root.id, "asked": thread.asked, "turns": turns}
