"""The blocking reads behind the lookup tools (``search``, ``search_collection``,
``list_collections``, ``get_report``, ``get_thread``) and the thread a follow-up is
asked in (``ask_follow_up``): each runs on a worker thread, reads the settings
afresh and answers only what the caller's :class:`~deepcite.store.user_rights.Access` may see
- another user's run or an unreadable collection is as unknown as a missing one.
"""

from __future__ import annotations

from typing import Any

from deepcite.collections import list_collections as collection_infos
from deepcite.errors import ConfigError, InputError
from deepcite.export.markdown import to_json_dict, to_markdown
from deepcite.mcp_server.calls import fresh_settings
from deepcite.runs.build import open_collections
from deepcite.runs.checks import unknown_collection_message
from deepcite.runs.thread import read_thread, thread_record
from deepcite.search.circuit_breaker import GuardedEngine
from deepcite.search.registry import get_engine, normalise
from deepcite.security.terminal import one_line
from deepcite.store import HistoryStore
from deepcite.store.user_rights import Access


def web_hits(engine: str, query: str, max_results: int) -> list[dict[str, Any]]:
    """One web engine's hits for ``query``, behind its circuit breaker."""
    settings = fresh_settings()
    if normalise(engine) == "local":
        raise ConfigError("The local engine searches collections - use the "
                          "search_collection tool with the collection's name")
    built = GuardedEngine(get_engine(engine, settings), settings.engines.circuit_failures)
    try:
        hits = built.search(query, max_results=max_results)
    finally:
        built.close()
    return [{"title": hit.title, "url": hit.url, "snippet": hit.snippet,
             "published": hit.published, "engine": hit.engine} for hit in hits]


def collection_passages(name: str, query: str, k: int,
                        access: Access) -> list[dict[str, Any]]:
    """The best ``k`` passages of collection ``name``, if ``access`` may read it."""
    settings = fresh_settings()
    if not access.sees_all:
        with HistoryStore.open(settings) as store:
            if name not in store.readable_collections(access, [name]):
                raise InputError(unknown_collection_message(name))  # as if there were none
    collection = open_collections(settings, [name])[0]
    passages = []
    for hit in collection.search(query, k):
        meta = hit.metadata
        passages.append({"title": hit.title, "file": meta.get("path"), "page": meta.get("page"),
                         "heading": meta.get("heading"), "text": hit.snippet, "url": hit.url,
                         "score": meta.get("score")})
    return passages


def hits_markdown(hits: list[dict[str, Any]], empty: str) -> str:
    """Hits or passages as a numbered Markdown list (``empty`` when there are none)."""
    if not hits:
        return empty
    lines = []
    for number, hit in enumerate(hits, 1):
        where = hit.get("file") or hit.get("url")
        if hit.get("page") is not None:
            where = f"{where}, page {hit['page']}"
        text = hit.get("snippet") or hit.get("text") or ""
        lines.append(f"{number}. **{one_line(hit['title'])}** - {where}\n   {one_line(text)}")
    return "\n".join(lines)


def readable_collections(access: Access) -> list[dict[str, Any]]:
    """The collections ``access`` may read (all of them for the local user)."""
    settings = fresh_settings()
    infos = collection_infos(settings)
    if not access.sees_all and infos:
        with HistoryStore.open(settings) as store:
            readable = store.readable_collections(access, [info.name for info in infos])
        infos = [info for info in infos if info.name in readable]
    return [{"name": info.name, "documents": info.documents, "chunks": info.chunks,
             "updated": info.updated.isoformat() if info.updated else None,
             "read_only": info.read_only}
            for info in infos]


def stored_report(ref: str, access: Access) -> tuple[str, dict[str, Any]]:
    """A stored run ``access`` may see; another user's is as unknown as a missing one."""
    with HistoryStore.open(fresh_settings()) as store:
        stored = store.get(ref, access)
    data = to_json_dict(stored.result) | {
        "id": stored.id, "status": stored.status, "parent_id": stored.parent_id,
        "created_at": stored.created_at.isoformat(),
        "finished_at": stored.finished_at.isoformat() if stored.finished_at else None}
    return to_markdown(stored.result), data


def stored_thread(ref: str, access: Access) -> tuple[str, dict[str, Any]]:
    """The thread of run ``ref`` as ``access`` may read it: Markdown with each turn's
    question, answer and the sources listed under it, and the record REST answers
    (``GET /api/v1/runs/{id}/thread``)."""
    with HistoryStore.open(fresh_settings()) as store:
        record = thread_record(read_thread(store, ref, access))
    return thread_markdown(record), record


def thread_markdown(record: dict[str, Any]) -> str:
    """A thread record (:func:`~deepcite.runs.thread.thread_record`) as Markdown: one
    section per turn, its sources after its answer; numbers run on along the thread."""
    parts = []
    for number, turn in enumerate(record["turns"], 1):
        text = turn["answer"].strip() if turn["answer"].strip() else (
            f"({turn['status']}{': ' + one_line(turn['error']) if turn['error'] else ''})")
        lines = [f"## {number}. {one_line(turn['question'])}",
                 f"Run {turn['id']} · {turn['mode']} · {turn['status']}", "", text]
        if turn["sources"]:
            lines += ["", "Sources:", *(f"[{s['number']}] {one_line(s['title'])} - {s['url']}"
                                         for s in turn["sources"])]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def follow_up_fields(ref: str, question: str, access: Access) -> dict[str, Any]:
    """The request of a follow-up ``question`` in run ``ref``'s thread, as the tool's
    arguments would give it: built on the thread's last answer, searching what it
    searched (:meth:`~deepcite.runs.thread.Thread.follow_up`)."""
    with HistoryStore.open(fresh_settings()) as store:
        request = read_thread(store, ref, access).follow_up(question)
    return request.model_dump(mode="json", exclude_defaults=True,
                              exclude={"origin", "owner"})
