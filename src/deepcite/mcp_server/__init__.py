"""deepcite as an MCP server: research, search and stored reports as tools for an assistant.

The module is ``mcp_server``, not ``mcp``: a ``deepcite.mcp`` beside the SDK's top-level
``mcp`` package would shadow nothing, but every import and traceback would read as if
one were the other.

:func:`build_server` makes an ``MCPServer`` (the SDK's ``FastMCP`` of mcp 1.x) with six
tools; ``deepcite mcp`` runs it over stdio or streamable HTTP. The research itself is
synchronous, so each long tool runs in a worker thread; the run's events become MCP
progress notifications, sent on the event loop from that thread, and every run is kept
in the history like a ``deepcite ask`` run, so ``get_report`` (or ``deepcite show``)
finds it again.

Tools answer with a :class:`CallToolResult` they build themselves: the Markdown text a
model reads, plus structured content for clients that use it. A
:class:`~deepcite.errors.DeepciteError` comes back as a tool error with its one-line
message; the SDK's own wrapping would prefix it and, for anything else, hide it.

Who asks: over stdio, the local user, who sees everything. Over HTTP without user
accounts, the same. Once a user exists, every HTTP request needs a personal token
(:mod:`deepcite.mcp_server.auth`), and the tools answer for its owner: the runs they
start belong to them, ``get_report`` finds only runs they may see (another user's is
"No run", as a missing one) and collections they may not read are unknown to them.

Nothing here prints: on stdio, stdout is the protocol channel, and logs go to stderr.
"""

from __future__ import annotations

import json
import logging
import signal
import socket
import threading
from collections.abc import Mapping
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent

from deepcite.collections import list_collections as collection_infos
from deepcite.collections.collection import validate_name
from deepcite.config import Settings, load_settings
from deepcite.errors import ConfigError, DeepciteError, InputError
from deepcite.export.markdown import to_json_dict, to_markdown
from deepcite.mcp_server.auth import Asker, Throttle, TokenGate, asker_of
from deepcite.runs import CallbackSink, CancelScope, Recorder, RunRequest
from deepcite.runs.admission import Admitted, admit
from deepcite.runs.build import open_collections
from deepcite.runs.checks import MAX_NAME_CHARS, text_problem, unknown_collection_message
from deepcite.runs.recorder import close_active
from deepcite.search.circuit_breaker import GuardedEngine
from deepcite.search.registry import get_engine, normalise
from deepcite.security.client_address import TrustedProxies
from deepcite.security.hosts import is_loopback
from deepcite.security.terminal import one_line
from deepcite.store import HistoryStore
from deepcite.store.access import Access
from deepcite.types import Event, PhaseStarted, ReportMode, ResearchResult, SectionStarted

if TYPE_CHECKING:
    import uvicorn

logger = logging.getLogger(__name__)

SERVER_NAME = "deepcite"
MAX_RESULTS = 50
"""The most hits ``search`` and ``search_collection`` return: more would flood the
model's context, not inform it."""

INSTRUCTIONS = (
    "deepcite researches questions and answers with citations you can check: every [n] "
    "in an answer points at the source numbered n in its Sources block. Use "
    "quick_research for a short cited answer, detailed_report for a sectioned report, "
    "search and search_collection for raw hits, list_collections to see the user's "
    "indexed documents, and get_report to reopen a stored run by its id.")

Overrides = dict[str, Any]


# ------------------------------------------------------------------ results


def _text_result(text: str, structured: Mapping[str, Any] | None = None,
                 *extra: str) -> CallToolResult:
    content = [TextContent(type="text", text=text)]
    content.extend(TextContent(type="text", text=more) for more in extra)
    return CallToolResult(content=list(content),
                          structured_content=_plain(structured) if structured else None)


def _error(message: str) -> CallToolResult:
    """A tool error the model can read and act on: one line, no traceback."""
    return CallToolResult(content=[TextContent(type="text", text=one_line(message))],
                          is_error=True)


def _plain(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` as plain JSON types (source metadata may hold dates or paths)."""
    plain: dict[str, Any] = json.loads(json.dumps(data, default=str))
    return plain


def _settings(overrides: Overrides | None = None) -> Settings:
    """Settings read afresh per call, so a config edit applies without a restart."""
    return load_settings({k: v for k, v in (overrides or {}).items() if v is not None})


def _require_text(value: str, what: str) -> str:
    """``value`` if it is text by the API's own test (:func:`text_problem`)."""
    problem = text_problem(value, what)
    if problem:
        raise InputError(problem)
    return value


def _require_name(value: str, what: str) -> str:
    if len(value) > MAX_NAME_CHARS:
        raise InputError(f"The {what} name is longer than {MAX_NAME_CHARS} characters - "
                         f"no {what} has such a name")
    return value


def _require_count(value: int, what: str) -> int:
    if value < 1 or value > MAX_RESULTS:
        raise InputError(f"{what} must be between 1 and {MAX_RESULTS}, not {value}")
    return value


#: What a run's history says when its client stopped waiting for it.
CLIENT_GONE = ("The MCP client cancelled the call or went away; the run was cancelled "
               "and keeps what it had found")


# ------------------------------------------------------------------ progress


class _Progress:
    """Turns run events into MCP progress values.

    MCP wants progress to grow with every notification, but a detailed report runs the
    phases once per part, so their ``step`` restarts. A report is therefore counted in
    units: the first research is unit 0, part ``i`` is unit ``i``, and a phase adds its
    fraction of a unit. A quick run is its phases, ``step`` of ``total``. Values that
    would not grow are dropped.
    """

    def __init__(self, mode: ReportMode) -> None:
        self._mode = mode
        self._unit = 0
        self._parts: int | None = None
        self._last = 0.0

    def update(self, event: Event) -> tuple[float, float | None, str] | None:
        """``(progress, total, message)`` to send for ``event``, or ``None``."""
        value: float
        total: float | None
        if isinstance(event, SectionStarted):
            self._unit, self._parts = event.index, event.total
            value, total = float(event.index), float(event.total + 1)
            message = f"Part {event.index}/{event.total}: {one_line(event.title)}"
        elif isinstance(event, PhaseStarted) and event.step is not None and event.total:
            message = f"Step {event.step}/{event.total}: {event.phase}"
            if self._mode == "quick":
                value, total = float(event.step), float(event.total)
            else:
                value = self._unit + (event.step - 1) / event.total
                total = float(self._parts + 1) if self._parts is not None else None
        else:
            return None
        if value <= self._last and self._last:
            return None
        self._last = value
        return value, total, message


# ------------------------------------------------------------------ research


def _request(fields: Mapping[str, Any]) -> RunRequest:
    """The run request of a tool call; a bad argument is one line naming it."""
    given = {key: value for key, value in fields.items() if value not in (None, [])}
    return RunRequest.parse(**given, origin="mcp")


def _prepare(request: RunRequest) -> tuple[Admitted, Recorder]:
    """The request admitted as every server admits a run
    (:func:`~deepcite.runs.admission.admit`: its owner as they are now, its settings,
    its parent, the collections it will search) and its history record."""
    base = _settings()
    with HistoryStore.open(base) as store:
        admitted = admit(store, request, base)
    return admitted, admitted.record(None, save=admitted.settings.store.save)


async def _research(ctx: Context, fields: Mapping[str, Any]) -> CallToolResult:
    """Run research in a worker thread, forwarding its progress; the tool's answer.
    The run belongs to the caller, whatever the arguments say."""
    try:
        asker = asker_of(ctx.request_context.request)
        request = _request(fields).asked_by("mcp", asker.owner)
        # The same submit checks as the REST API: a run that cannot work is a tool error
        # now, not a failure minutes into the research.
        admitted, recorder = await anyio.to_thread.run_sync(_prepare, request)
    except DeepciteError as exc:
        return _error(str(exc))
    progress = _Progress(admitted.request.mode)
    scope = CancelScope()
    # Events come from the run's own threads (parallel searches too), not only from the
    # worker this call starts: they reach the loop by its token, one at a time so that
    # the values arrive in the order they were computed.
    loop = anyio.lowlevel.current_token()
    sending = threading.Lock()

    def on_event(event: Event) -> None:
        with sending:
            update = progress.update(event)
            if update is None:
                return
            try:
                anyio.from_thread.run(ctx.report_progress, *update, token=loop)
            except Exception:  # a closed session must not end the research
                logger.debug("progress notification not sent", exc_info=True)

    def research() -> ResearchResult:
        with recorder:
            return admitted.run(recorder, CallbackSink(on_event), scope)

    try:
        result = await anyio.to_thread.run_sync(research, abandon_on_cancel=True)
    except DeepciteError as exc:
        return _error(str(exc))
    except anyio.get_cancelled_exc_class():
        scope.cancel()  # the client gave up: the worker stops and stores what it found
        with anyio.CancelScope(shield=True):  # said now, not when the worker notices
            await anyio.to_thread.run_sync(recorder.stop, CLIENT_GONE)
        raise
    run_id = recorder.run_id
    markdown = to_markdown(result)
    data = to_json_dict(result) | {"id": run_id}
    if run_id is None:
        return _text_result(markdown, data)
    return _text_result(markdown, data,
                        f"Stored as run {run_id} (get_report with its first 8 characters "
                        "shows it again).")


# ------------------------------------------------------------------ the other tools


def _search_sync(engine: str, query: str, max_results: int) -> list[dict[str, Any]]:
    settings = _settings()
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


def _collection_sync(name: str, query: str, k: int, access: Access) -> list[dict[str, Any]]:
    settings = _settings()
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


def _hits_markdown(hits: list[dict[str, Any]], empty: str) -> str:
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


def _collections_sync(access: Access) -> list[dict[str, Any]]:
    """The collections ``access`` may read (all of them for the local user)."""
    settings = _settings()
    infos = collection_infos(settings)
    if not access.sees_all and infos:
        with HistoryStore.open(settings) as store:
            readable = store.readable_collections(access, [info.name for info in infos])
        infos = [info for info in infos if info.name in readable]
    return [{"name": info.name, "documents": info.documents, "chunks": info.chunks,
             "updated": info.updated.isoformat() if info.updated else None,
             "read_only": info.read_only}
            for info in infos]


def _report_sync(ref: str, access: Access) -> tuple[str, dict[str, Any]]:
    """A stored run ``access`` may see; another user's is as unknown as a missing one."""
    with HistoryStore.open(_settings()) as store:
        stored = store.get(ref, access)
    data = to_json_dict(stored.result) | {
        "id": stored.id, "status": stored.status, "parent_id": stored.parent_id,
        "created_at": stored.created_at.isoformat(),
        "finished_at": stored.finished_at.isoformat() if stored.finished_at else None}
    return to_markdown(stored.result), data


# ------------------------------------------------------------------ the server


def _asker(ctx: Context) -> Asker:
    """Who calls this tool (:func:`~deepcite.mcp_server.auth.asker_of`)."""
    return asker_of(ctx.request_context.request)


def build_server() -> MCPServer:
    """The deepcite MCP server with its six tools (run it with ``.run(transport)``)."""
    server: MCPServer = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
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
        return await _research(ctx, {
            "question": question, "mode": "quick", "collections": collections,
            "engines": engines, "strategy": strategy, "iterations": iterations,
            "materials": materials, "parent_id": follow_up})

    @server.tool()
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
        return await _research(ctx, {
            "question": question, "mode": "detailed", "collections": collections,
            "engines": engines, "strategy": strategy, "iterations": iterations,
            "materials": materials})

    @server.tool()
    async def search(query: str, engine: str = "duckduckgo",
                     max_results: int = 5) -> CallToolResult:
        """Search the web with one engine and return the hits: title, url and snippet.

        Raw results, not an answer: nothing is cited or checked. Engines are those of
        `deepcite engines` (duckduckgo, wikipedia, arxiv, ... as configured); the
        egress policy of the user's settings applies. At most 50 results.
        """
        try:
            _require_text(query, "query")
            _require_count(max_results, "max_results")
            _require_name(engine, "engine")
            hits = await anyio.to_thread.run_sync(_search_sync, engine, query, max_results)
        except DeepciteError as exc:
            return _error(str(exc))
        return _text_result(_hits_markdown(hits, f"No results for {query!r}."),
                            {"results": hits})

    @server.tool()
    async def search_collection(name: str, query: str, ctx: Context,
                                k: int = 5) -> CallToolResult:
        """Search a local collection of the user's documents; return the best passages.

        Each passage has its text, the file it comes from, the page (PDFs) and heading.
        Raw passages, not an answer: use quick_research with `collections` for a cited
        one. list_collections names the collections; "demo" is a bundled sample.
        """
        try:
            asker = _asker(ctx)
            validate_name(name)  # a name, never a path on this machine
            _require_text(query, "query")
            _require_count(k, "k")
            passages = await anyio.to_thread.run_sync(_collection_sync, name, query, k,
                                                      asker.access)
        except DeepciteError as exc:
            return _error(str(exc))
        return _text_result(_hits_markdown(passages, f"No passages for {query!r} in {name}."),
                            {"passages": passages})

    @server.tool()
    async def list_collections(ctx: Context) -> CallToolResult:
        """List the user's local document collections: name, documents and chunks.

        These names go to search_collection and to the `collections` argument of
        quick_research and detailed_report ("demo", a bundled sample, always works).
        """
        try:
            infos = await anyio.to_thread.run_sync(_collections_sync, _asker(ctx).access)
        except DeepciteError as exc:
            return _error(str(exc))
        if not infos:
            text = ("No collections yet - `deepcite collection add FOLDER --name NAME` "
                    "indexes one; \"demo\" is a bundled sample.")
        else:
            text = "\n".join(f"- {info['name']}: {info['documents']} documents, "
                             f"{info['chunks']} chunks" for info in infos)
        return _text_result(text, {"collections": infos})

    @server.tool()
    async def get_report(id: str, ctx: Context) -> CallToolResult:
        """Return a stored run's report as Markdown, with its Sources block.

        `id` is a run id or a unique prefix of at least 4 characters (as returned by
        quick_research and detailed_report, or listed by `deepcite history`). Every [n]
        in it points at the listed source numbered n.
        """
        try:
            markdown, data = await anyio.to_thread.run_sync(_report_sync, id,
                                                            _asker(ctx).access)
        except DeepciteError as exc:
            return _error(str(exc))
        return _text_result(markdown, data)

    return server


Transport = Literal["stdio", "streamable-http"]


def http_app(server: MCPServer, *, host: str, port: int, throttle: Throttle) -> TokenGate:
    """``server``'s streamable HTTP app (at ``/mcp``, DNS-rebinding protection for
    ``host``:``port``) behind the token check of user accounts
    (:class:`~deepcite.mcp_server.auth.TokenGate`), which checks tokens against the
    history store of the settings. Close it (``.close()``) when done."""
    app = server.streamable_http_app(transport_security=transport_security_for(host, port),
                                     host=host)
    return TokenGate(app, store=lambda: HistoryStore.open(_settings()), throttle=throttle,
                     proxies=TrustedProxies(_settings().web.trusted_proxies))


def http_config(gate: TokenGate, *, host: str, port: int,
                log_level: str = "warning") -> uvicorn.Config:
    """How ``deepcite mcp --transport http`` runs ``gate``: deepcite's uvicorn settings
    (no proxy headers believed but the named proxies', no secret in the access log -
    see :mod:`deepcite.security.http_server`)."""
    from deepcite.security.http_server import server_config  # uvicorn: HTTP only

    return server_config(gate, host=host, port=port, log_level=log_level)


def serve(transport: Transport = "stdio", *, host: str = "127.0.0.1", port: int = 8766,
          throttle: Throttle | None = None) -> None:
    """Run the server until the client goes (stdio) or the process is stopped (HTTP).
    Over HTTP, ``throttle`` counts wrong tokens per client address (required there:
    ``deepcite mcp`` passes the web app's ``LoginThrottle``)."""
    server = build_server()
    gate = None
    if transport != "stdio":
        if throttle is None:
            raise TypeError("serve() over HTTP needs a throttle for wrong tokens")
        gate = http_app(server, host=host, port=port, throttle=throttle)
    # SIGTERM as an exception, like Ctrl-C: uvicorn (HTTP) re-raises the signal after
    # its shutdown, and its default action would end the process before runs in flight
    # are stored.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        if gate is None:
            server.run("stdio")
        else:
            import uvicorn  # the SDK's own dependency, needed only over HTTP

            anyio.run(uvicorn.Server(http_config(gate, host=host, port=port)).serve)
    except KeyboardInterrupt:
        pass
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
        close_active()
        if gate is not None:
            gate.close()


def transport_security_for(host: str, port: int) -> TransportSecuritySettings:
    """DNS-rebinding protection for an HTTP server bound to ``host``:``port``, whatever
    the address (the SDK turns it on by itself only for the literal ``127.0.0.1``,
    ``localhost`` and ``::1``, so ``127.0.0.2`` was left open). ``Host`` must name this
    server - its bind address, plus the loopback names on loopback, plus the machine's
    names when bound to all interfaces - with this port; ``Origin``, when sent, the
    same over http or https."""
    bare = host.strip().strip("[]").lower()
    names: set[str] = {"127.0.0.1", "localhost", "[::1]"} if is_loopback(bare) else set()
    if bare in ("0.0.0.0", "::"):
        names |= {"127.0.0.1", "localhost", "[::1]", socket.gethostname().lower(),
                  socket.getfqdn().lower()}
    else:
        names.add(f"[{bare}]" if ":" in bare else bare)
    hosts = sorted(f"{name}:{port}" for name in names)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{name}" for name in hosts for scheme in ("http", "https")])


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
