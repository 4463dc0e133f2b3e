"""One document, checked from every front end - the command line, REST, the web page and
MCP - gets the same verdicts and notes: each is the same run (``mode="check"``) through
the same door and :func:`deepcite.runs.execute`. The model is faked and says nothing."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.config import load_settings
from deepcite.mcp_server import build_server
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.fakes import ScriptedChatModel

DRAFT = ("# Planning\n\nWe keep the cache in Redis with a one hour expiry. "
         "The team meets on Fridays to plan the sprint. "
         "The office roof holds twelve beehives.\n")

Verdicts = list[tuple[str, str, str, int, int]]


def _verdicts(claims: list[dict[str, Any]]) -> Verdicts:
    return [(c["text"], c["verdict"], c["note"], c["start"], c["end"]) for c in claims]


def _by_cli(tmp_path: Path) -> Verdicts:
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    done = CliRunner().invoke(app, ["check", str(draft), "-c", "notes", "--json", "-q"])
    assert done.exit_code == 0, done.output
    return _verdicts(json.loads(done.stdout)["claims"])


def _by_rest_and_page(settings: Any) -> tuple[Verdicts, Verdicts]:
    with HistoryStore.open(settings) as store:
        executor = LocalRunExecutor(settings, workers=1, store=store)
        try:
            client = TestClient(create_app(WebState(settings=settings, executor=executor)),
                                follow_redirects=False)
            posted = client.post("/api/v1/checks", json={"text": DRAFT,
                                                         "collections": ["notes"]})
            assert posted.status_code == 202, posted.text
            rest = _ended(client, posted.json()["id"])
            form = client.get("/check").text
            token = re.search(r'name="csrf_token" value="([^"]+)"', form)
            assert token
            page = client.post("/check", data={"csrf_token": token.group(1), "text": DRAFT,
                                               "collections": "notes"})
            assert page.status_code == 303, page.text[:300]
            page_id = page.headers["location"].removeprefix("/runs/")
            _ended(client, page_id)
            stored = store.get(page_id).result
        finally:
            executor.shutdown()
    return _verdicts(rest["claims"]), _verdicts([c.model_dump() for c in stored.claims])


def _ended(client: TestClient, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        reply: dict[str, Any] = client.get(f"/api/v1/checks/{run_id}").json()
        if reply["state"] not in ("queued", "running"):
            return reply
        time.sleep(0.05)
    raise AssertionError(f"check {run_id} never ended")


def _by_mcp() -> Verdicts:
    found: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server()) as client:
            result = await client.call_tool("check_document",
                                            {"text": DRAFT, "collections": ["notes"]})
            found.update(result.structured_content or {})
    anyio.run(main)
    return _verdicts(found["claims"])


def test_every_front_end_gives_the_same_verdicts(notes: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel())
    cli = _by_cli(tmp_path)
    rest, page = _by_rest_and_page(load_settings())
    mcp = _by_mcp()
    assert len(cli) >= 3
    assert rest == cli and page == cli and mcp == cli
