"""The same request through every front end gives the same run.

CLI, Python API, REST and MCP all hand their request to the application layer
(:mod:`deepcite.runs`), so one question - with the user's materials, and then a
follow-up on the stored run - must come back with the same sources in the same
numbers and the same answer from each. The model is faked at its boundary (it cites
every source it is shown); the collection, the index, the history store, the HTTP app
and the MCP protocol are real.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from typer.testing import CliRunner

import deepcite
import deepcite.runs.build
from deepcite.cli import app
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.mcp_server import build_server
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.mcp_launcher import scripted_model

QUESTION = "What did we decide about the cache?"
FOLLOW_UP = "And when does the team meet?"
MATERIAL = {"url": "https://example.org/cache-review", "title": "Cache review",
            "content": "The cache review found that a one hour expiry keeps the database "
                       "load low and the answers fresh enough for the dashboard."}
runner = CliRunner()


@pytest.fixture
def settings(notes: Path) -> Settings:
    loaded = load_settings({"research.iterations": 1})
    Collection.create("notes", settings=loaded).add(notes)
    return loaded


@pytest.fixture(autouse=True)
def _model(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh scripted model for every run, so no front end sees another's replies."""
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: scripted_model())


@pytest.fixture
def web(settings: Settings) -> Iterator[TestClient]:
    executor = LocalRunExecutor(settings, workers=1)
    with TestClient(create_app(WebState(settings=settings, executor=executor))) as client:
        yield client
    executor.shutdown()


def _shape(result: ResearchResult) -> tuple[str, list[tuple[int, str]]]:
    """What a user compares: the answer, and which source each number is."""
    return result.answer, [(source.number, source.url) for source in result.sources]


def _stored(settings: Settings, run_id: str) -> ResearchResult:
    with HistoryStore.open(settings) as store:
        return store.get(run_id).result


def _latest_id(settings: Settings) -> str:
    with HistoryStore.open(settings) as store:
        return store.list(limit=1)[0].id


# ------------------------------------------------------------------ front ends


def _cli(settings: Settings, tmp_path: Path, question: str, *, parent: str | None = None,
         materials: bool = False) -> str:
    args = ["ask", question, "-c", "notes", "-q", "--iterations", "1"]
    if materials:
        listing = tmp_path / "materials.json"
        listing.write_text(json.dumps([MATERIAL]), encoding="utf-8")
        args += ["--materials", str(listing)]
    if parent is not None:
        args += ["--follow-up", parent]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    return _latest_id(settings)


def _rest(client: TestClient, question: str, *, parent: str | None = None,
          materials: bool = False) -> str:
    body: dict[str, Any] = {"question": question, "collections": ["notes"]}
    if materials:
        body["materials"] = [MATERIAL]
    if parent is not None:
        body["parent_id"] = parent
    reply = client.post("/api/v1/research", json=body)
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        info = client.get(f"/api/v1/research/{run_id}").json()
        if info["state"] == "completed":
            return run_id
        assert info["state"] in ("queued", "running"), info
        time.sleep(0.02)
    raise AssertionError(f"run {run_id} did not complete")


def _mcp(question: str, *, parent: str | None = None, materials: bool = False) -> str:
    arguments: dict[str, Any] = {"question": question, "collections": ["notes"],
                                 "iterations": 1}
    if materials:
        arguments["materials"] = [MATERIAL]
    if parent is not None:
        arguments["follow_up"] = parent
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server()) as client:
            seen["reply"] = await client.call_tool("quick_research", arguments)

    anyio.run(main)
    reply = seen["reply"]
    assert not reply.is_error, reply.content
    run_id: str = (reply.structured_content or {})["id"]
    return run_id


# ------------------------------------------------------------------ the tests


def test_one_request_is_the_same_run_from_every_front_end(
        settings: Settings, tmp_path: Path, web: TestClient) -> None:
    api = deepcite.quick_summary(QUESTION, collections=["notes"], iterations=1,
                                 materials=[MATERIAL])
    cli = _stored(settings, _cli(settings, tmp_path, QUESTION, materials=True))
    rest = _stored(settings, _rest(web, QUESTION, materials=True))
    mcp = _stored(settings, _mcp(QUESTION, materials=True))
    expected = _shape(api)
    assert any(source.url == MATERIAL["url"] for source in api.sources)
    assert any(source.url.endswith("cache.md") for source in api.sources)
    for name, result in (("cli", cli), ("rest", rest), ("mcp", mcp)):
        assert _shape(result) == expected, name


def test_a_follow_up_builds_on_the_stored_run_from_every_front_end(
        settings: Settings, tmp_path: Path, web: TestClient) -> None:
    first_id = _cli(settings, tmp_path, QUESTION)
    first = _stored(settings, first_id)
    api = deepcite.quick_summary(FOLLOW_UP, collections=["notes"], iterations=1,
                                 follow_up=first)
    runs = {"cli": _cli(settings, tmp_path, FOLLOW_UP, parent=first_id[:8]),
            "rest": _rest(web, FOLLOW_UP, parent=first_id),
            "mcp": _mcp(FOLLOW_UP, parent=first_id[:8])}
    # the parent's numbers stay what they were, new sources continue the count
    kept = {(s.number, s.url) for s in first.sources}
    assert kept <= set(_shape(api)[1])
    with HistoryStore.open(settings) as store:
        for name, run_id in runs.items():
            stored = store.get(run_id)
            assert stored.parent_id == first_id, name
            assert _shape(stored.result) == _shape(api), name


def test_a_follow_up_of_an_unknown_run_is_refused_by_name_everywhere(
        settings: Settings, web: TestClient) -> None:
    reply = web.post("/api/v1/research", json={"question": FOLLOW_UP,
                                              "collections": ["notes"],
                                              "parent_id": "feedface"})
    assert reply.status_code == 422, reply.text
    assert "parent_id" in reply.text and "feedface" in reply.text
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server()) as client:
            seen["reply"] = await client.call_tool(
                "quick_research", {"question": FOLLOW_UP, "follow_up": "feedface"})

    anyio.run(main)
    assert seen["reply"].is_error
    assert "feedface" in seen["reply"].content[0].text


def test_the_python_api_reruns_a_stored_run_and_compares(
        settings: Settings, tmp_path: Path) -> None:
    first_id = _cli(settings, tmp_path, QUESTION)
    again = deepcite.rerun(first_id[:8])
    with HistoryStore.open(settings) as store:
        original = store.get(first_id)
        newest = store.list(limit=1)[0].id
        again_request = dict(store.get(newest).request or {})
        again_request.pop("settings", None)  # the per-run settings it was made with
        assert newest != first_id and again_request == original.request
    comparison = deepcite.compare_runs(original, again)
    assert not comparison.sources_gained and not comparison.sources_lost
    assert [(k.a_number, k.b_number) for k in comparison.sources_kept] == \
        [(s.number, s.number) for s in original.result.sources]


def test_the_report_page_follows_up_on_its_run(settings: Settings, web: TestClient) -> None:
    first_id = _rest(web, QUESTION)
    page = web.get(f"/reports/{first_id}").text
    form = re.search(r'<form id="follow-up" class="card follow-up" method="post" '
                     r'action="([^"]+)".*?</form>', page, re.S)
    assert form, "a completed quick answer offers a follow-up"
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"',
                             form.group(0)))
    posted = web.post(form.group(1), data={**fields, "question": FOLLOW_UP},
                      follow_redirects=False)
    assert posted.status_code == 303, posted.text
    run_id = posted.headers["location"].rsplit("/", 1)[-1].split("#", 1)[0]
    deadline = time.monotonic() + 30
    while web.get(f"/api/v1/research/{run_id}").json()["state"] != "completed":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    with HistoryStore.open(settings) as store:
        follow_up = store.get(run_id)
        first = store.get(first_id)
    assert follow_up.parent_id == first_id
    assert (follow_up.request or {}).get("collections") == ["notes"]  # searched the same
    kept = {(s.number, s.url) for s in first.result.sources}
    assert kept <= {(s.number, s.url) for s in follow_up.result.sources}


def test_a_long_material_is_summarised_once_for_every_front_end(
        settings: Settings, tmp_path: Path, web: TestClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary cache is on disk: a material summarised for a CLI run is not
    summarised again for the same material handed in over REST or MCP."""
    models: list[Any] = []

    def counted(settings: Settings) -> Any:
        model = scripted_model()
        model.script["material_summary"] = ["The review keeps a one hour cache expiry."]
        model.script["material_reduce"] = ["The review keeps a one hour cache expiry."]
        models.append(model)
        return model

    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", counted)
    long_text = " ".join(f"Finding {i}: the one hour cache expiry held up." for i in range(3000))
    material = {"url": "https://example.org/long-review", "content": long_text}
    listing = tmp_path / "long.json"
    listing.write_text(json.dumps([material]), encoding="utf-8")
    done = runner.invoke(app, ["ask", QUESTION, "-c", "notes", "-q", "--materials",
                               str(listing)])
    assert done.exit_code == 0, done.output
    first_calls = sum(m.purposes().count("material_summary") for m in models)
    assert first_calls >= 1
    reply = web.post("/api/v1/research", json={"question": QUESTION, "collections": ["notes"],
                                               "materials": [material]})
    assert reply.status_code == 202, reply.text
    run_id = reply.json()["id"]
    deadline = time.monotonic() + 30
    while web.get(f"/api/v1/research/{run_id}").json()["state"] != "completed":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    _mcp(QUESTION, materials=False)
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server()) as client:
            seen["reply"] = await client.call_tool("quick_research", {
                "question": QUESTION, "collections": ["notes"], "materials": [material]})

    anyio.run(main)
    assert not seen["reply"].is_error
    assert sum(m.purposes().count("material_summary") for m in models) == first_calls


def test_each_run_says_which_front_end_asked_for_it(
        settings: Settings, tmp_path: Path, web: TestClient) -> None:
    cli = _cli(settings, tmp_path, QUESTION)
    reply = web.post("/api/v1/research", json={"question": QUESTION, "collections": ["notes"],
                                               "origin": "cli"})  # a client cannot say
    rest = reply.json()["id"]
    _rest(web, QUESTION)  # waits for the runs before it too (one worker)
    mcp = _mcp(QUESTION)
    with HistoryStore.open(settings) as store:
        origins = {name: (store.get(run_id).request or {}).get("origin", "python")
                   for name, run_id in (("cli", cli), ("rest", rest), ("mcp", mcp))}
    assert origins == {"cli": "cli", "rest": "api", "mcp": "mcp"}
