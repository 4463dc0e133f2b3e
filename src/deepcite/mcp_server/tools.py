"""The nine MCP tools, one ordinary function each; :data:`TOOLS` lists them for
:func:`~deepcite.mcp_server.server.build_server`.

A tool's docstring is its description for the model, and its signature the arguments'
schema: say there what it does, what it returns and how long it takes. A tool checks
its arguments (:mod:`deepcite.mcp_server.calls`), does its blocking work on a worker
thread (:mod:`deepcite.mcp_server.research_runs`, :mod:`deepcite.mcp_server.lookups`)
and answers a :class:`~mcp.types.CallToolResult`; a
:class:`~deepcite.errors.DeepciteError` is a tool error with its one line. A new tool
is a function here and a line in :data:`TOOLS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from deepcite.collections.collection import validate_name
from deepcite.errors import DeepciteError
from deepcite.mcp_server.calls import (
    caller,
    require_count,
    require_name,
    require_text,
    text_result,
    tool_error,
)
from deepcite.mcp_server.lookups import (
    collection_passages,
    follow_up_fields,
    hits_markdown,
    readable_collections,
    stored_report,
    stored_thread,
    web_hits,
)
from deepcite.mcp_server.research_runs import run_research


async def quick_research(question: str, ctx: Context,
                         collections: list[str] | None = None,
                         engines: list[str] | None = None,
                         strategy: str | None = None,
                         iterations: int | None = None,
                         materials: list[dict[str, Any]] | None = None,
                         follow_up: str | None = None) -> CallToolResult:
    """Research a question and return a short cited answer as Markdown.

    The answer ends with a Sources block; every [n] in it points at the listed
    source numbered n (a web page, or a file and page of a local collection).
    `collections` names local collections to search (see list_collections; "demo"
    is a bundled sample); `engines` names web search engines (default duckduckgo,
    none when collections are given); `strategy` and `iterations` tune the research.
    `materials` are the user's own documents to build on, each {"url": an absolute
    path or http(s) URL naming it, "content": its whole text, optional "title",
    "material_id", "publish_time"}; they are cited like any source and never
    fetched. `follow_up` is the id of a stored run to build on: its answer is what
    is already known and its sources keep their numbers.
    The run is stored in the history: the result names its id for get_report.
    Progress notifications report the research phases. Takes seconds to minutes.
    """
    return await run_research(ctx, {
        "question": question, "mode": "quick", "collections": collections,
        "engines": engines, "strategy": strategy, "iterations": iterations,
        "materials": materials, "parent_id": follow_up})


async def detailed_report(question: str, ctx: Context,
                          collections: list[str] | None = None,
                          engines: list[str] | None = None,
                          strategy: str | None = None,
                          iterations: int | None = None,
                          materials: list[dict[str, Any]] | None = None
                          ) -> CallToolResult:
    """Research a question as a sectioned report and return it as Markdown.

    The model proposes an outline and each part is researched and written in turn;
    one Sources block ends the report, and every [n] in it points at the listed
    source numbered n. Arguments as for quick_research (`materials` are bound to
    the parts they serve). The run is stored in the history (its id is returned).
    Progress notifications report each part. Takes minutes: use quick_research for
    a short answer.
    """
    return await run_research(ctx, {
        "question": question, "mode": "detailed", "collections": collections,
        "engines": engines, "strategy": strategy, "iterations": iterations,
        "materials": materials})


async def check_document(text: str, ctx: Context,
                         collections: list[str] | None = None,
                         engines: list[str] | None = None,
                         title: str | None = None,
                         previous: str | None = None) -> CallToolResult:
    """Check a document claim by claim against the user's sources; return the verdicts.

    `text` is the whole document (a draft, notes, another tool's report; Markdown or
    plain text, at most 100,000 characters). Each checkable claim in it - names,
    numbers, dates, causes, comparisons - is researched in `collections` and
    `engines` (as for quick_research) and gets a verdict: supported,
    partly_supported, contradicted (the note names the source's own value, e.g.
    "draft: 30 days; source [2]: 90 days") or not_found. Returns the document
    annotated as Markdown (each claim followed by its verdict and [n], then a
    Sources block) and, as structured content, each claim's number, text, offsets,
    verdict, citations, evidence quotes and note, with counts per verdict.
    `previous` is the id of the check of this document's earlier version: only new
    or changed claims are checked again. The check is stored in the history (its id
    is returned). Progress notifications report each claim. Takes seconds per claim.
    """
    return await run_research(ctx, {
        "mode": "check", "document": {"text": text, "title": title},
        "collections": collections, "engines": engines, "parent_id": previous})


async def search(query: str, engine: str = "duckduckgo",
                 max_results: int = 5) -> CallToolResult:
    """Search the web with one engine and return the hits: title, url and snippet.

    Raw results, not an answer: nothing is cited or checked. Engines are those of
    `deepcite engines` (duckduckgo, wikipedia, arxiv, ... as configured); the
    egress policy of the user's settings applies. At most 50 results.
    """
    try:
        require_text(query, "query")
        require_count(max_results, "max_results")
        require_name(engine, "engine")
        hits = await anyio.to_thread.run_sync(web_hits, engine, query, max_results)
    except DeepciteError as exc:
        return tool_error(str(exc))
    return text_result(hits_markdown(hits, f"No results for {query!r}."),
                        {"results": hits})


async def search_collection(name: str, query: str, ctx: Context,
                            k: int = 5) -> CallToolResult:
    """Search a local collection of the user's documents; return the best passages.

    Each passage has its text, the file it comes from, the page (PDFs) and heading.
    Raw passages, not an answer: use quick_research with `collections` for a cited
    one. list_collections names the collections; "demo" is a bundled sample.
    """
    try:
        who = caller(ctx)
        validate_name(name)  # a name, never a path on this machine
        require_text(query, "query")
        require_count(k, "k")
        passages = await anyio.to_thread.run_sync(collection_passages, name, query, k,
                                                  who.access)
    except DeepciteError as exc:
        return tool_error(str(exc))
    return text_result(hits_markdown(passages, f"No passages for {query!r} in {name}."),
                        {"passages": passages})


async def list_collections(ctx: Context) -> CallToolResult:
    """List the user's local document collections: name, documents and chunks.

    These names go to search_collection and to the `collections` argument of
    quick_research and detailed_report ("demo", a bundled sample, always works).
    """
    try:
        infos = await anyio.to_thread.run_sync(readable_collections, caller(ctx).access)
    except DeepciteError as exc:
        return tool_error(str(exc))
    if not infos:
        text = ("No collections yet - `deepcite collection add FOLDER --name NAME` "
                "indexes one; \"demo\" is a bundled sample.")
    else:
        text = "\n".join(f"- {info['name']}: {info['documents']} documents, "
                         f"{info['chunks']} chunks" for info in infos)
    return text_result(text, {"collections": infos})


async def get_report(id: str, ctx: Context) -> CallToolResult:
    """Return a stored run's report as Markdown, with its Sources block.

    `id` is a run id or a unique prefix of at least 4 characters (as returned by
    quick_research and detailed_report, or listed by `deepcite history`). Every [n]
    in it points at the listed source numbered n.
    """
    try:
        markdown, data = await anyio.to_thread.run_sync(stored_report, id,
                                                        caller(ctx).access)
    except DeepciteError as exc:
        return tool_error(str(exc))
    return text_result(markdown, data)


async def ask_follow_up(id: str, question: str, ctx: Context) -> CallToolResult:
    """Ask the next question of a thread and return its cited answer as Markdown.

    `id` is any run of the thread (a report or one of its follow-ups; an id or a
    unique prefix). The answer builds on the thread's last answer - the earlier
    questions and answers are its context, their sources keep their numbers and
    new ones continue the count - and searches what the thread searched. The run
    is stored as the thread's next turn (get_thread shows them all). Progress
    notifications report the research phases. Takes seconds to minutes.
    """
    try:
        require_text(question, "question")
        fields = await anyio.to_thread.run_sync(follow_up_fields, id, question,
                                                caller(ctx).access)
    except DeepciteError as exc:
        return tool_error(str(exc))
    return await run_research(ctx, fields)


async def get_thread(id: str, ctx: Context) -> CallToolResult:
    """Return a report and its follow-ups, oldest first, as Markdown.

    `id` is any run of the thread (an id or a unique prefix of at least 4
    characters). Each turn gives its question, state, answer and the sources it
    cites or found; the numbers run on along the thread, so an [n] in a later
    answer may point at a source listed under an earlier one.
    """
    try:
        markdown, data = await anyio.to_thread.run_sync(stored_thread, id,
                                                        caller(ctx).access)
    except DeepciteError as exc:
        return tool_error(str(exc))
    return text_result(markdown, data)


#: Every tool the server offers, in the order clients list them.
TOOLS: tuple[Callable[..., Any], ...] = (quick_research, detailed_report, check_document,
                                         search, search_collection, list_collections,
                                         get_report, ask_follow_up, get_thread)
