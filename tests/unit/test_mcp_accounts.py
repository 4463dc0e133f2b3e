"""MCP over HTTP with user accounts: every request needs a personal token, and each
caller sees only their own runs and the collections they may read.

A real server (the SDK's streamable HTTP app behind deepcite's token check, on uvicorn
in a thread of the test process) is spoken to by the SDK's own client over real HTTP;
the history store is real (SQLite and PostgreSQL), and only the chat model is faked.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult, TextContent

import deepcite.runs.build
from deepcite.config import load_settings
from deepcite.mcp_server import build_server, http_app
from deepcite.mcp_server.auth import CALLER, caller_of
from deepcite.runs.caller import Caller
from deepcite.store import HistoryStore
from deepcite.store.user_rights import Access
from deepcite.types import ResearchResult
from deepcite.web.login_throttle import LoginThrottle
from tests.mcp_launcher import scripted_model
from tests.servers import PATIENCE, free_port, running

pytestmark = pytest.mark.enable_socket
QUESTION = "What did we decide about the cache?"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "probe", "version": "1"}}}
WRONG_TOKENS = 3


@dataclass
class Served:
    url: str
    store: HistoryStore
    tokens: dict[str, str]


def _probe_tool(server: Any) -> None:
    """A tool saying who it was told asks: by the request's scope, and by the context
    variable."""

    @server.tool()
    async def whoami(ctx: Context) -> dict[str, Any]:
        by_scope = caller_of(ctx.request_context.request).user
        by_var = CALLER.get()
        return {"scope": by_scope.name if by_scope else None,
                "var": by_var.user.name if by_var and by_var.user else None}


def _serve(store_url: str, users: bool) -> Iterator[Served]:
    store = HistoryStore.from_url(store_url)
    tokens = {}
    if users:
        for name in ("alice", "bob"):
            store.add_user(name, f"{name}-password-1")
            tokens[name] = store.create_token(name, "test")
        store.set_collection_owner("notes", store.user("alice").id)
    port = free_port()
    mcp = build_server()
    _probe_tool(mcp)
    gate = http_app(mcp, host="127.0.0.1", port=port,
                    throttle=LoginThrottle(client_failures=WRONG_TOKENS))
    try:
        with running(uvicorn.Config(gate, host="127.0.0.1", port=port,
                                    log_level="warning")) as base:
            yield Served(f"{base}/mcp", store, tokens)
    finally:
        gate.close()
        store.close()


@pytest.fixture
def served(store_url: str, notes: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    """Alice (who owns the collection "notes") and Bob, each with a token."""
    monkeypatch.setenv("DEEPCITE_STORE_URL", store_url)
    model = scripted_model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    yield from _serve(store_url, users=True)


@pytest.fixture
def open_server(tmp_path: Path, notes: Path,
                monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    url = f"sqlite:///{tmp_path / 'open' / 'history.db'}"
    monkeypatch.setenv("DEEPCITE_STORE_URL", url)
    yield from _serve(url, users=False)


def _session(url: str, token: str | None,
             session: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        with anyio.fail_after(PATIENCE):
            async with create_mcp_http_client(headers=headers) as http, \
                    Client(streamable_http_client(url, http_client=http)) as client:
                await session(client)
    anyio.run(main)


def _call(url: str, token: str | None, tool: str,
          arguments: dict[str, Any] | None = None) -> CallToolResult:
    results: list[CallToolResult] = []

    async def session(client: Client) -> None:
        results.append(await client.call_tool(tool, arguments or {}))

    _session(url, token, session)
    return results[0]


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def _post(url: str, **headers: str) -> httpx.Response:
    return httpx.post(url, content=json.dumps(INITIALIZE), timeout=PATIENCE, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **headers})


def _run_of(store: HistoryStore, owner: str, question: str) -> str:
    run_id = store.begin(question, mode="quick", settings=load_settings(),
                         owner_id=store.user(owner).id)
    store.finish(run_id, ResearchResult(question=question, answer=f"The answer to {question}",
                                        strategy="standard", handler="standard"))
    return run_id


def test_without_a_token_every_request_is_refused_saying_what_to_send(
        served: Served) -> None:
    for reply in (_post(served.url), _post(served.url, Authorization="Bearer dc_wrong"),
                  _post(served.url, Authorization=f"Basic {served.tokens['alice']}")):
        assert reply.status_code == 401
        assert reply.headers["www-authenticate"] == "Bearer"
        message = reply.json()["error"]["message"]
        assert "Authorization: Bearer <your token>" in message
        assert "deepcite users token NAME" in message and "\n" not in message
    assert _post(served.url, Authorization=f"Bearer {served.tokens['alice']}").status_code == 200


def test_another_users_run_is_as_missing_as_no_run(served: Served) -> None:
    alices = _run_of(served.store, "alice", "Alice's question")
    mine = _call(served.url, served.tokens["alice"], "get_report", {"id": alices[:8]})
    assert not mine.is_error, _text(mine)
    assert "The answer to Alice's question" in _text(mine)
    theirs = _call(served.url, served.tokens["bob"], "get_report", {"id": alices[:8]})
    missing = _call(served.url, served.tokens["bob"], "get_report", {"id": "ffffffff"})
    assert theirs.is_error and missing.is_error
    assert _text(theirs).replace(alices[:8], "ffffffff") == _text(missing)
    assert "Alice" not in _text(theirs)


def test_collections_are_only_those_the_caller_may_read(served: Served) -> None:
    alices = _call(served.url, served.tokens["alice"], "list_collections")
    assert "notes" in [c["name"] for c in alices.structured_content["collections"]]
    bobs = _call(served.url, served.tokens["bob"], "list_collections")
    assert not bobs.is_error
    assert "notes" not in [c["name"] for c in bobs.structured_content["collections"]]
    assert "notes" not in _text(bobs)

    found = _call(served.url, served.tokens["alice"], "search_collection",
                  {"name": "notes", "query": "Redis cache"})
    assert not found.is_error and found.structured_content["passages"]
    refused = _call(served.url, served.tokens["bob"], "search_collection",
                    {"name": "notes", "query": "Redis cache"})
    unknown = _call(served.url, served.tokens["bob"], "search_collection",
                    {"name": "nope", "query": "Redis cache"})
    assert refused.is_error and unknown.is_error
    assert _text(refused).replace("notes", "nope") == _text(unknown)

    research = _call(served.url, served.tokens["bob"], "quick_research",
                     {"question": QUESTION, "collections": ["notes"], "iterations": 1})
    unknown_research = _call(served.url, served.tokens["bob"], "quick_research",
                             {"question": QUESTION, "collections": ["nope"], "iterations": 1})
    assert research.is_error and unknown_research.is_error
    assert _text(research).replace("notes", "nope") == _text(unknown_research)
    assert served.store.list(access=_access(served, "bob")) == []


def _access(served: Served, name: str) -> Access:
    return Caller(served.store.user(name)).access


def test_a_research_run_belongs_to_whoever_asked(served: Served) -> None:
    answer = _call(served.url, served.tokens["alice"], "quick_research",
                   {"question": QUESTION, "collections": ["notes"], "iterations": 1})
    assert not answer.is_error, _text(answer)
    run_id = answer.structured_content["id"]
    assert [run.id for run in served.store.list(access=_access(served, "alice"))] == [run_id]
    assert served.store.list(access=_access(served, "bob")) == []
    bobs = _call(served.url, served.tokens["bob"], "get_report", {"id": run_id})
    assert bobs.is_error and "No run" in _text(bobs)
    follow = _call(served.url, served.tokens["bob"], "quick_research",
                   {"question": "And then?", "follow_up": run_id, "collections": ["demo"],
                    "iterations": 1})
    assert follow.is_error and "No run" in _text(follow)


def test_a_revoked_token_stops_working_at_once(served: Served) -> None:
    token = served.tokens["alice"]
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        seen["before"] = await client.call_tool("list_collections", {})
        [made] = served.store.tokens("alice")
        served.store.revoke_token("alice", made.id)
        try:
            seen["after"] = await client.call_tool("list_collections", {})
        except MCPError as exc:  # the next call of the same MCP session is refused
            seen["after"] = exc

    _session(served.url, token, session)
    assert not seen["before"].is_error
    refused = seen["after"]  # the client reads the 401's JSON-RPC error as the answer
    assert isinstance(refused, MCPError) and "revoked" in str(refused)
    assert _post(served.url, Authorization=f"Bearer {token}").status_code == 401


def test_a_disabled_users_token_is_refused(served: Served) -> None:
    served.store.set_disabled("bob", True)
    assert _post(served.url, Authorization=f"Bearer {served.tokens['bob']}").status_code == 401


def test_wrong_tokens_are_throttled_per_address(served: Served) -> None:
    for _ in range(WRONG_TOKENS):
        assert _post(served.url, Authorization="Bearer dc_guess").status_code == 401
    throttled = _post(served.url, Authorization=f"Bearer {served.tokens['alice']}")
    assert throttled.status_code == 429
    assert int(throttled.headers["retry-after"]) > 0
    assert "Too many wrong tokens" in throttled.json()["error"]["message"]


def test_the_caller_reaches_the_tools_by_the_request_and_the_context(
        served: Served) -> None:
    """The SDK runs a session's tools in a task of its own: the request's scope carries
    the caller there, and so does the context variable (the SDK passes the sender's
    context along with each message)."""
    told = _call(served.url, served.tokens["bob"], "whoami")
    assert not told.is_error, _text(told)
    assert told.structured_content is not None
    said = told.structured_content.get("result", told.structured_content)
    assert said == {"scope": "bob", "var": "bob"}


def _rpc(url: str, token: str, body: dict[str, Any], session_id: str | None = None
         ) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    if session_id:
        headers["Mcp-Session-Id"] = session_id
    return httpx.post(url, content=json.dumps(body), headers=headers, timeout=PATIENCE)


def _answer(reply: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC answer in a reply, JSON or one server-sent event."""
    text = reply.text
    if reply.headers["content-type"].startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:")
                    and '"result"' in line)
    answer: dict[str, Any] = json.loads(text)
    return answer


def test_each_request_counts_as_its_own_caller_not_the_sessions(served: Served) -> None:
    """An MCP session is opened by one request and lives on: a tool call in it is the
    caller of *that* call's token, by the request's scope and by the context variable."""
    opened = _rpc(served.url, served.tokens["alice"], INITIALIZE)
    assert opened.status_code == 200
    session_id = opened.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert _rpc(served.url, served.tokens["alice"], initialized, session_id).status_code == 202
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "whoami", "arguments": {}}}
    said = _answer(_rpc(served.url, served.tokens["bob"], call, session_id))
    told = said["result"]["structuredContent"]
    told = told.get("result", told)
    assert told == {"scope": "bob", "var": "bob"}
    alices = _run_of(served.store, "alice", "Alice's question")
    report = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "get_report", "arguments": {"id": alices}}}
    theirs = _answer(_rpc(served.url, served.tokens["bob"], report, session_id))
    assert theirs["result"]["isError"] is True
    mine = _answer(_rpc(served.url, served.tokens["alice"], report, session_id))
    assert mine["result"]["isError"] is False


def test_without_users_http_stays_open(open_server: Served) -> None:
    assert _post(open_server.url).status_code == 200
    listed = _call(open_server.url, None, "list_collections")
    assert not listed.is_error and "notes" in _text(listed)


def test_the_local_user_sees_everything_in_process(served: Served) -> None:
    alices = _run_of(served.store, "alice", "Alice's question")
    results: list[CallToolResult] = []

    async def main() -> None:
        async with Client(build_server()) as client:
            results.append(await client.call_tool("get_report", {"id": alices[:8]}))
            results.append(await client.call_tool("list_collections", {}))
    anyio.run(main)
    report, listed = results
    assert not report.is_error, _text(report)
    assert "notes" in _text(listed)


def test_the_servers_default_collections_are_checked_as_every_front_end_checks_them(
        served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that names no collections searches the server's defaults, whatever its
    engines: one the caller may not read refuses the run (as the REST API does) rather
    than letting it open alice's private notes."""
    monkeypatch.setenv("DEEPCITE_SEARCH_COLLECTIONS", "notes")  # read afresh per call
    bobs = _call(served.url, served.tokens["bob"], "quick_research",
                 {"question": QUESTION, "iterations": 1})
    assert bobs.is_error
    assert _text(bobs) == ("The server's default collections include one you may not "
                           "search - name the collections to search")
    assert served.store.list(access=_access(served, "bob")) == []
    alices = _call(served.url, served.tokens["alice"], "quick_research",
                   {"question": QUESTION, "iterations": 1})
    assert not alices.is_error, _text(alices)
