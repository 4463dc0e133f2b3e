"""The MCP server, driven by the SDK's own client: in-process, and over real stdio pipes.

The model is faked at its boundary (``deepcite.runs.build.get_chat_model``; in the server
process by ``tests/mcp_launcher.py``); collections, the index, the history store and
the protocol are real.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.citations import cited_numbers
from deepcite.cli import app
from deepcite.mcp_server import build_server
from deepcite.security.hosts import is_loopback
from tests.mcp_launcher import scripted_model

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"quick_research", "detailed_report", "check_document", "search", "search_collection",
         "list_collections", "get_report", "ask_follow_up", "get_thread"}
QUESTION = "What did we decide about the cache?"
runner = CliRunner()


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    model = scripted_model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def _in_process(session: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(build_server()) as client:
            await session(client)
    anyio.run(main)


def _over_stdio(session: Callable[[Client], Awaitable[None]]) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tests.mcp_launcher"], cwd=str(ROOT),
        env={**os.environ, "PYTHONPATH": str(ROOT)})

    async def main() -> None:
        with anyio.fail_after(120):
            async with Client(params) as client:
                await session(client)
    anyio.run(main)


def _check_cited_answer(markdown: str) -> None:
    body, _, block = markdown.partition("## Sources")
    listed = {int(n) for n in re.findall(r"^\[(\d+)\]", block, re.M)}
    cited = set(cited_numbers(body))
    assert cited, markdown
    assert cited <= listed, markdown


def test_stdio_server_researches_stores_and_reports_progress(notes: Path) -> None:
    """The real thing: a server process on stdio, its tools, a run, its progress, its
    history entry."""
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        listed = await client.list_tools()
        seen["tools"] = {tool.name: tool.description or "" for tool in listed.tools}
        seen_progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen_progress.append((progress, total, message))

        answer = await client.call_tool("quick_research",
                                        {"question": QUESTION, "collections": ["notes"],
                                         "iterations": 1},
                                        progress_callback=on_progress)
        seen["answer"], seen["progress"] = answer, seen_progress
        run_id = (answer.structured_content or {})["id"]
        seen["report"] = await client.call_tool("get_report", {"id": run_id[:6]})

    _over_stdio(session)
    tools = seen["tools"]
    assert set(tools) == TOOLS
    assert all(len(description) > 40 for description in tools.values())
    assert "[n]" in tools["quick_research"] and "[n]" in tools["get_report"]
    answer = seen["answer"]
    assert not answer.is_error, _text(answer)
    markdown = _text(answer)
    _check_cited_answer(markdown)
    assert "cache.md" in markdown
    structured = answer.structured_content
    assert structured["question"] == QUESTION and structured["sources"]
    report = seen["report"]
    assert not report.is_error, _text(report)
    assert _text(report) == markdown
    values = [value for value, _, _ in seen["progress"]]
    assert values and values == sorted(set(values))  # grows with every notification
    assert all(message and message.startswith("Step ") for _, _, message in seen["progress"])


def test_stdio_errors_are_one_line_tool_errors(notes: Path) -> None:
    results: dict[str, CallToolResult] = {}

    async def session(client: Client) -> None:
        results["collection"] = await client.call_tool(
            "search_collection", {"name": "nope", "query": "cache"})
        results["engine"] = await client.call_tool(
            "search", {"query": "cache", "engine": "duckduckgoo"})

    _over_stdio(session)
    for result in results.values():
        assert result.is_error
        assert "\n" not in _text(result) and "Traceback" not in _text(result)
    assert "nope" in _text(results["collection"])
    assert "duckduckgo" in _text(results["engine"])  # the did-you-mean


def test_collections_are_listed_and_searched(notes: Path) -> None:
    results: dict[str, CallToolResult] = {}

    async def session(client: Client) -> None:
        results["list"] = await client.call_tool("list_collections", {})
        results["search"] = await client.call_tool(
            "search_collection", {"name": "notes", "query": "Redis cache expiry", "k": 3})

    _in_process(session)
    listing = results["list"]
    assert not listing.is_error
    assert "notes: 2 documents" in _text(listing)
    assert [c["name"] for c in listing.structured_content["collections"]] == ["notes"]
    found = results["search"]
    assert not found.is_error, _text(found)
    passages = found.structured_content["passages"]
    assert passages and passages[0]["file"].endswith("cache.md")
    assert "Redis" in passages[0]["text"]
    assert "page" in passages[0]
    assert "cache.md" in _text(found)


def test_detailed_report_is_sectioned_and_reports_parts(notes: Path, fake_model: None) -> None:
    results: dict[str, Any] = {}

    async def session(client: Client) -> None:
        seen_progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen_progress.append((progress, total, message))

        results["report"] = await client.call_tool(
            "detailed_report", {"question": QUESTION, "collections": ["notes"],
                                "iterations": 1}, progress_callback=on_progress)
        results["progress"] = seen_progress

    _in_process(session)
    report = results["report"]
    assert not report.is_error, _text(report)
    markdown = _text(report)
    # a part whose passages the Summary already quotes is left out (no empty part)
    assert "## 1. Cache storage" in markdown
    _check_cited_answer(markdown)
    assert report.structured_content["mode"] == "detailed"
    values = [value for value, _, _ in results["progress"]]
    assert values == sorted(set(values))
    messages = [message or "" for _, _, message in results["progress"]]
    assert any(m.startswith("Part 1/2: Cache storage") for m in messages)
    assert any(m.startswith("Part 2/2") for m in messages)


def test_bad_input_and_unknown_runs_are_tool_errors(notes: Path, fake_model: None) -> None:
    results: dict[str, CallToolResult] = {}

    async def session(client: Client) -> None:
        results["empty"] = await client.call_tool("quick_research", {"question": "  "})
        results["missing"] = await client.call_tool(
            "quick_research", {"question": QUESTION, "collections": ["nope"]})
        results["run"] = await client.call_tool("get_report", {"id": "ffffffff"})
        results["k"] = await client.call_tool(
            "search_collection", {"name": "notes", "query": "cache", "k": 0})
        results["local"] = await client.call_tool("search", {"query": "x", "engine": "local"})

    _in_process(session)
    for name, result in results.items():
        assert result.is_error, name
        assert "\n" not in _text(result), name
    assert "empty" in _text(results["empty"])
    assert "nope" in _text(results["missing"])
    assert "ffffffff" in _text(results["run"])
    assert "search_collection" in _text(results["local"])


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True),
    ("0.0.0.0", False), ("192.168.1.20", False), ("example.org", False)])
def test_only_loopback_counts_as_local(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_http_on_a_public_address_is_refused_without_allow_remote() -> None:
    refused = runner.invoke(app, ["mcp", "--transport", "http", "--host", "0.0.0.0"])
    assert refused.exit_code == 2
    assert "--allow-remote" in refused.output


def test_without_the_sdk_the_command_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in sys.modules if n.startswith("deepcite.mcp_server")]:
        monkeypatch.delitem(sys.modules, name)  # the package and its modules, imported anew
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it -> ImportError
    result = runner.invoke(app, ["mcp"])
    assert result.exit_code == 2
    assert "pip install 'deepcite[mcp]'" in result.output
    assert "Traceback" not in result.output
