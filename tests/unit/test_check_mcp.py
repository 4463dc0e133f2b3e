"""The MCP tool ``check_document``, driven by the SDK's own client in process: the
verdicts as structured content, progress claim by claim, the check kept in the history,
and a bad argument as one line. The model is faked at its boundary and says nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

import deepcite.runs.build
from deepcite.config import load_settings
from deepcite.mcp_server import build_server
from deepcite.store import HistoryStore
from tests.fakes import ScriptedChatModel

DRAFT = ("We keep the cache in Redis with a one hour expiry. "
         "The team meets on Fridays to plan the sprint.")


@pytest.fixture(autouse=True)
def silent_model(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)


def _call(arguments: dict[str, Any]) -> tuple[CallToolResult, list[tuple[float, str | None]],
                                              dict[str, str]]:
    seen: dict[str, Any] = {"progress": []}

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen["progress"].append((progress, message))

    async def main() -> None:
        async with Client(build_server()) as client:
            listed = await client.list_tools()
            seen["tools"] = {tool.name: tool.description or "" for tool in listed.tools}
            seen["result"] = await client.call_tool("check_document", arguments,
                                                    progress_callback=on_progress)
    anyio.run(main)
    return seen["result"], seen["progress"], seen["tools"]


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_check_document_returns_the_verdicts_and_keeps_the_check(notes: Path) -> None:
    result, progress, tools = _call({"text": DRAFT, "collections": ["notes"],
                                     "title": "Planning notes"})
    assert "contradicted" in tools["check_document"]
    assert not result.is_error, _text(result)
    data = result.structured_content or {}
    assert {"id", "claims", "sources", "counts"} <= set(data)
    verdicts = {claim["text"]: claim["verdict"] for claim in data["claims"]}
    assert verdicts["We keep the cache in Redis with a one hour expiry."] == "supported"
    assert "We keep the cache in Redis" in _text(result) and "## Sources" in _text(result)
    assert any(message and message.startswith("Claim 1/") for _, message in progress)
    values = [value for value, _ in progress]
    assert values == sorted(values)  # MCP progress only grows
    with HistoryStore.open(load_settings()) as store:
        stored = store.get(data["id"])
    assert stored.mode == "check" and stored.result.claims
    assert stored.request is not None and stored.request["document"]["text"] == DRAFT


def test_a_bad_argument_is_a_tool_error_of_one_line(notes: Path) -> None:
    result, _, _ = _call({"text": "  ", "collections": ["notes"]})
    assert result.is_error and "The document is empty" in _text(result)
    unknown, _, _ = _call({"text": DRAFT, "collections": ["nowhere"]})
    assert unknown.is_error and "nowhere" in _text(unknown)
    assert "\n" not in _text(unknown).strip()
