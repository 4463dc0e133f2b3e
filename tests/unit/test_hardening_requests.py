"""Requests from others are checked where they arrive (issue 20, items 6, 15 and 17).

A collection is a name, never a server path; a request that cannot run is refused at
submit (422 with its field, a form problem, a tool error) instead of being accepted
and failing later; a resumed event stream survives odd ``Last-Event-ID`` headers; a
damaged history row is one line, not a traceback; the bundled demo cannot be replaced.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from mcp.types import CallToolResult, TextContent
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app as cli_app
from deepcite.collections import Collection, LocalSearchEngine
from deepcite.config import Settings, load_settings
from deepcite.errors import CollectionError, ConfigError, RequestError
from deepcite.mcp_server import build_server
from deepcite.runs.build import open_collections
from deepcite.runs.checks import check_run, check_tool_calling
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.types import PhaseStarted
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.rest import sse_lines
from tests.fakes import ScriptedChatModel
from tests.unit.test_store import quick_result

runner = CliRunner()


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text("# Cache\n\nWe keep the cache in Redis for an hour.\n",
                                     encoding="utf-8")
    loaded = load_settings({"research.iterations": 1})
    Collection.create("notes", settings=loaded).add(folder)
    return loaded


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    fake = ScriptedChatModel(script={"questions": [""], "synthesis": ["Redis it is [1]."]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)
    return fake


@pytest.fixture
def served(settings: Settings, model: ScriptedChatModel,
           tmp_path: Path) -> Iterator[tuple[TestClient, LocalRunExecutor]]:
    roots = tmp_path / "roots"
    (roots / "docs").mkdir(parents=True)
    (roots / "docs" / "a.md").write_text("# A\n\nAlpha.\n", encoding="utf-8")
    executor = LocalRunExecutor(settings, workers=1)
    state = WebState(settings=settings, executor=executor, folder_roots=(str(roots),))
    yield TestClient(create_app(state), follow_redirects=False), executor
    executor.shutdown()


@pytest.fixture
def client(served: tuple[TestClient, LocalRunExecutor]) -> TestClient:
    return served[0]


def _runs(settings: Settings) -> int:
    with HistoryStore.open(settings) as store:
        return len(store.list())


def _refused(client: TestClient, **body: Any) -> dict[str, Any]:
    """POST a research request that must be refused with 422; its error object."""
    reply = client.post("/api/v1/research", json={"question": "Cache?", **body})
    assert reply.status_code == 422, reply.text
    error: dict[str, Any] = reply.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["fields"] and all("\n" not in f["message"] for f in error["fields"])
    assert "\n" not in error["message"]
    return error


def _fields(error: dict[str, Any]) -> set[str]:
    return {field["field"].split(".")[0] for field in error["fields"]}


# ------------------------------------------------------------ item 6: names, not paths


@pytest.mark.parametrize("name", ["/etc/hostname", "../../etc/hostname", "notes/../notes",
                                  "C:\\Windows\\win.ini", "~/.ssh/id_rsa"])
def test_a_path_as_a_collection_name_is_refused_by_the_api(
        client: TestClient, settings: Settings, name: str) -> None:
    error = _refused(client, collections=[name])
    assert _fields(error) == {"collections"}
    assert _runs(settings) == 0  # nothing was queued


def test_the_reply_for_a_path_does_not_tell_whether_the_file_exists(
        client: TestClient, tmp_path: Path) -> None:
    there = tmp_path / "there.sqlite"
    there.write_bytes(b"not a database")
    missing = tmp_path / "missing.sqlite"
    replies = [_refused(client, collections=[str(path)]) for path in (there, missing)]
    messages = [r["fields"][0]["message"].replace(str(path), "PATH")
                for r, path in zip(replies, (there, missing), strict=True)]
    assert messages[0] == messages[1]
    assert "named, not a path" in messages[0]


def test_an_unknown_collection_is_422_whatever_files_exist(
        client: TestClient, settings: Settings, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stray.sqlite").write_bytes(b"x")  # a file of that name elsewhere
    stray = _refused(client, collections=["stray"])
    ghost = _refused(client, collections=["ghost"])
    assert _fields(stray) == _fields(ghost) == {"collections"}
    assert stray["fields"][0]["message"].replace("stray", "N") == \
        ghost["fields"][0]["message"].replace("ghost", "N")
    assert "No collection named" in ghost["fields"][0]["message"]


def test_the_lowest_layer_opens_names_only(settings: Settings, tmp_path: Path) -> None:
    real = Collection.named("notes", settings=settings).path
    for opener in (lambda n: Collection.named(n, settings=settings),
                   lambda n: open_collections(settings, [n]),
                   lambda n: LocalSearchEngine.from_settings(settings, [n])):
        with pytest.raises(CollectionError, match="named, not a path"):
            opener(str(real))  # even the path of a real collection
        with pytest.raises(CollectionError, match="named, not a path"):
            opener("/etc/hostname")
    # the documented Python API still opens a collection file by path
    assert Collection.open(str(real), settings=settings).name == "notes"


def test_a_run_whose_settings_name_a_path_fails_before_any_file_is_read(
        settings: Settings) -> None:
    with pytest.raises(CollectionError, match="named, not a path"):
        deepcite.runs.build.build_engines(settings.model_copy(update={
            "search": settings.search.model_copy(update={"collections": ("/etc/passwd",)})}))


def test_the_cli_ask_takes_names_as_its_help_says(settings: Settings) -> None:
    done = runner.invoke(cli_app, ["ask", "Cache?", "-c", "/etc/hostname"])
    assert done.exit_code != 0
    assert "named, not a path" in done.output and "Traceback" not in done.output


# ------------------------------------------------------------ item 15: checked at submit


def test_a_whitespace_question_is_422(client: TestClient, settings: Settings) -> None:
    assert _fields(_refused(client, question=" \t\n ")) == {"question"}
    assert _runs(settings) == 0


def test_agent_on_the_bundled_model_is_refused_at_submit(
        client: TestClient, settings: Settings) -> None:
    error = _refused(client, collections=["notes"], strategy="agent", provider="local")
    assert _fields(error) == {"strategy"}
    assert "tool calling" in error["message"]
    assert _runs(settings) == 0


def test_agent_is_refused_when_the_server_runs_the_bundled_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    local = load_settings({"llm.provider": "local", "research.strategy": "agent"})
    with pytest.raises(RequestError) as caught:
        check_tool_calling(local, "strategy")
    assert caught.value.field == "strategy"
    remote = load_settings({"llm.provider": "openai", "research.strategy": "agent"})
    check_tool_calling(remote, "strategy")  # a model that can call tools: accepted


def test_a_megabyte_model_name_is_422_and_not_echoed(client: TestClient) -> None:
    reply = client.post("/api/v1/research", json={"question": "Cache?",
                                                  "model": "m" * 1_000_000})
    assert reply.status_code == 422
    assert _fields(reply.json()["error"]) == {"model"}
    assert len(reply.content) < 10_000


@pytest.mark.parametrize(("body", "field"), [
    ({"engines": ["nosuchengine"]}, "engines"),
    ({"engines": ["e" * 100]}, "engines"),
    ({"engines": ["duckduckgo"] * 40}, "engines"),
    ({"engines": ["local"]}, "engines"),
    ({"strategy": "no-such-strategy"}, "strategy"),
    ({"strategy": "s" * 100}, "strategy"),
    ({"provider": "p" * 100}, "provider"),
    ({"collections": ["notes"] * 40}, "collections"),
    ({"collections": ["x" * 65]}, "collections"),
    ({"materials": [{"url": "/a.md", "content": "x"}] * 500}, "materials"),
    ({"materials": [{"url": "/a.md", "content": "x", "title": "t" * 5000}]}, "materials"),
    ({"materials": [{"url": "/a.md", "content": "x",
                     "pages": [{"page": 1, "start": 0, "end": 1}] * 30_000}]}, "materials"),
])
def test_requests_that_cannot_run_are_422_naming_the_field(
        client: TestClient, settings: Settings, body: dict[str, Any], field: str) -> None:
    assert field in _fields(_refused(client, **body))
    assert _runs(settings) == 0


def test_a_replaced_strategy_name_is_still_accepted(client: TestClient) -> None:
    reply = client.post("/api/v1/research", json={
        "question": "Cache?", "collections": ["notes"], "strategy": "standard"})
    assert reply.status_code == 202, reply.text


def test_the_form_shows_submit_problems_instead_of_failing_the_run(
        client: TestClient, settings: Settings) -> None:
    import re

    page = client.get("/")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token
    for fields, expected in ((({"collections": "ghost"}), "No collection named"),
                             ({"collections": "/etc/hostname"}, "named, not a path"),
                             ({"strategy": "agent", "provider": "local"}, "tool calling")):
        reply = client.post("/", data={"csrf_token": token.group(1), "question": "Cache?",
                                       "mode": "quick", **fields})
        assert reply.status_code == 400, fields
        assert "<form" in reply.text and expected in reply.text
    assert _runs(settings) == 0


# ------------------------------------------------------------ MCP tools


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_mcp_tools_refuse_the_same_requests(settings: Settings, model: ScriptedChatModel,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_LLM__PROVIDER", "local")
    results: dict[str, CallToolResult] = {}
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "path": ("quick_research", {"question": "Cache?", "collections": ["/etc/hostname"]}),
        "report": ("detailed_report", {"question": "Cache?", "collections": ["../x"]}),
        "agent": ("quick_research", {"question": "Cache?", "collections": ["notes"],
                                     "strategy": "agent"}),
        "engine": ("quick_research", {"question": "Cache?", "engines": ["nosuchengine"]}),
        "strategy": ("quick_research", {"question": "Cache?", "strategy": "nope-nope"}),
        "search_path": ("search_collection", {"name": "/etc/hostname", "query": "root"}),
        "search_missing": ("search_collection", {"name": "/no/such/file", "query": "root"}),
        "engine_size": ("search", {"query": "x", "engine": "e" * 10_000}),
    }

    async def main() -> None:
        async with Client(build_server()) as mcp_client:
            for key, (tool, arguments) in calls.items():
                results[key] = await mcp_client.call_tool(tool, arguments)

    anyio.run(main)
    for key, result in results.items():
        assert result.is_error, key
        assert "\n" not in _text(result) and len(_text(result)) < 1000, key
    assert "named, not a path" in _text(results["path"])
    assert "tool calling" in _text(results["agent"])
    assert _text(results["search_path"]).replace("/etc/hostname", "P") == \
        _text(results["search_missing"]).replace("/no/such/file", "P")
    assert _runs(settings) == 0


def test_check_run_takes_what_the_run_can_do(settings: Settings) -> None:
    check_run(settings, question="Cache?", collections=["notes", "demo"])
    with pytest.raises(RequestError) as caught:
        check_run(settings, question="Cache?", collections=["notes", "nope"])
    assert caught.value.field == "collections"


# ------------------------------------------------------------ item 17: Last-Event-ID


def _finished_run(client: TestClient) -> str:
    reply = client.post("/api/v1/research", json={"question": "Cache?",
                                                  "collections": ["notes"]})
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["id"]
    deadline = time.monotonic() + 30
    while client.get(f"/api/v1/research/{run_id}").json()["state"] in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return run_id


def test_odd_last_event_ids_are_ignored_not_500(client: TestClient) -> None:
    run_id = _finished_run(client)
    url = f"/api/v1/research/{run_id}/events"
    everything = sse_lines(client.get(url).text)
    assert len([e for e in everything if "id" in e]) >= 2
    for header in ("²", "١٢", "1" * 5000, "-1", "3.5", "abc", " "):
        try:  # the bytes a client sends; "²" is one Latin-1 byte, which isdigit() took
            raw = header.encode("latin-1")
        except UnicodeEncodeError:
            raw = header.encode("utf-8")
        reply = client.get(url, headers={b"Last-Event-ID": raw})
        assert reply.status_code == 200, header
        assert sse_lines(reply.text) == everything, header
    resumed = sse_lines(client.get(url, headers={"Last-Event-ID": "1"}).text)
    assert resumed == everything[1:]


def test_config_ports_with_unicode_digits_are_a_config_error() -> None:
    from deepcite.security.egress import AllowEntry

    for entry in ("searx.lan:²", "searx.lan:" + "8" * 40):
        with pytest.raises(ConfigError):
            AllowEntry.parse(entry)


def test_model_output_with_unicode_digits_does_not_crash() -> None:
    from deepcite.citations.markers import parse_numbers
    from deepcite.research.strategies.topic_organization import _as_int

    assert parse_numbers("²") == [] and parse_numbers("1, ²-3") == [1, 3]
    assert parse_numbers("9" * 5000) == []
    assert _as_int("[²]") is None and _as_int("9" * 5000) is None and _as_int("[4]") == 4


# ------------------------------------------------------------ item 17: damaged history


def _stored(settings: Settings, question: str) -> str:
    with HistoryStore.open(settings) as store:
        run_id = store.begin(question, mode="quick", settings=settings)
        store.record_event(run_id, PhaseStarted(phase="search"))
        store.finish(run_id, quick_result(question=question))
    return run_id


def _damage(settings: Settings, sql: str, *args: object) -> None:
    with sqlite3.connect(settings.data_dir / "history.db") as db:
        db.execute(sql, args)


@pytest.mark.parametrize("sql", [
    "UPDATE runs SET settings = '{not json' WHERE id = ?",
    "UPDATE runs SET findings = '[1, 2' WHERE id = ?",
    "UPDATE runs SET metrics = 'garbage' WHERE id = ?",
    "UPDATE runs SET created_at = 'yesterday-ish' WHERE id = ?",
    "UPDATE sources SET metadata = '{' WHERE run_id = ?",
    "UPDATE events SET payload = 'nope' WHERE run_id = ?",
])
def test_show_of_a_damaged_run_is_one_line_not_a_traceback(
        settings: Settings, sql: str) -> None:
    good = _stored(settings, "What is kept?")
    bad = _stored(settings, "What broke?")
    _damage(settings, sql, bad)
    shown = runner.invoke(cli_app, ["show", bad[:8]])
    assert shown.exit_code != 0
    assert shown.exception is None or isinstance(shown.exception, SystemExit)
    assert "Traceback" not in shown.output
    lines = [line for line in shown.output.splitlines() if line.strip()]
    assert len(lines) == 1, shown.output
    assert bad[:8] in lines[0] and "deepcite rm" in lines[0]
    assert runner.invoke(cli_app, ["show", good[:8]]).exit_code == 0
    listed = runner.invoke(cli_app, ["history"])
    assert listed.exit_code == 0, listed.output
    assert "What is kept?" in listed.output


def test_a_damaged_run_over_http_says_so_instead_of_not_found(
        settings: Settings, client: TestClient) -> None:
    bad = _stored(settings, "What broke?")
    _damage(settings, "UPDATE events SET payload = 'nope' WHERE run_id = ?", bad)
    for path in (f"/api/v1/research/{bad}", f"/api/v1/research/{bad}/export/markdown"):
        reply = client.get(path)
        assert reply.status_code == 500, (path, reply.text)
        error = reply.json()["error"]
        assert error["code"] == "run_unreadable" and "deepcite rm" in error["message"]
        assert "\n" not in error["message"]
    assert client.get(f"/api/v1/research/{'0' * 32}").status_code == 404  # still 404


def test_history_lists_the_readable_runs_around_a_damaged_one(settings: Settings) -> None:
    first = _stored(settings, "First question?")
    bad = _stored(settings, "Broken question?")
    last = _stored(settings, "Last question?")
    _damage(settings, "UPDATE runs SET created_at = 'not a time' WHERE id = ?", bad)
    with HistoryStore.open(settings) as store:
        assert [run.id for run in store.list()] == [last, first]
    _damage(settings, "UPDATE runs SET created_at = '2024-01-01 00:00:00', "
                      "mode = 'weird' WHERE id = ?", bad)
    with HistoryStore.open(settings) as store:
        assert {run.id for run in store.list()} == {last, first}


# ------------------------------------------------------------ item 17: reserved names


@pytest.mark.parametrize("name", ["demo", "Demo", "DEMO"])
def test_the_api_cannot_replace_the_demo_collection(client: TestClient, tmp_path: Path,
                                                   name: str) -> None:
    reply = client.post("/api/v1/collections",
                        json={"name": name, "folder": str(tmp_path / "roots" / "docs")})
    assert reply.status_code == 409
    error = reply.json()["error"]
    assert error["code"] == "reserved_name" and "\n" not in error["message"]
    assert "demo" in error["message"]


def test_the_pages_cannot_replace_the_demo_collection(client: TestClient,
                                                     tmp_path: Path) -> None:
    import re

    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/collections").text)
    assert token
    added = client.post("/collections", data={"csrf_token": token.group(1), "name": "demo",
                                              "folder": str(tmp_path / "roots" / "docs")})
    assert added.status_code == 409 and "bundled" in added.text
    again = client.post("/collections/demo/reindex", data={"csrf_token": token.group(1)})
    assert again.status_code == 409 and "bundled" in again.text
    path = client.post("/collections/..%2F..%2Fetc/reindex",
                       data={"csrf_token": token.group(1)})
    assert path.status_code in (400, 404)


# ------------------------------------------------------------ questions without text (F6)

_NO_TEXT = ["\u200b\u200c\u200d\ufeff", "\u0301\u0301\u0301", "\x00\x01", "\u202e\u2066",
            " \u00a0\u3000\u2028 "]


@pytest.mark.parametrize("question", [*_NO_TEXT, "Cache?\x00", "Why\x1b[31m red?"])
def test_a_question_without_visible_text_or_with_controls_is_422(
        client: TestClient, settings: Settings, question: str) -> None:
    assert _fields(_refused(client, question=question)) == {"question"}
    with pytest.raises(RequestError) as caught:
        check_run(settings, question=question)
    assert caught.value.field == "question"
    assert _runs(settings) == 0


@pytest.mark.parametrize("question", ["Cache?", "Line one\r\nline two\ttabbed?", "€?",
                                      "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645",  # ZWNJ
                                      "\U0001f468\u200d\U0001f373?", "\uff21\uff22"])
def test_questions_with_visible_text_pass_the_check(settings: Settings,
                                                    question: str) -> None:
    check_run(settings, question=question)


def test_mcp_refuses_questions_and_queries_without_text(settings: Settings) -> None:
    results: list[CallToolResult] = []

    async def main() -> None:
        async with Client(build_server()) as mcp_client:
            for question in [*_NO_TEXT, "Cache?\x00"]:
                results.append(await mcp_client.call_tool("quick_research",
                                                          {"question": question}))
            results.append(await mcp_client.call_tool(
                "search_collection", {"name": "notes", "query": "\u200b\u200b"}))

    anyio.run(main)
    for result in results:
        assert result.is_error
        assert "\n" not in _text(result)
        assert "empty" in _text(result) or "control character" in _text(result)
    assert _runs(settings) == 0


@pytest.mark.parametrize("question", [*_NO_TEXT, "Cache?\x00"])
def test_the_form_model_refuses_questions_without_text(question: str) -> None:
    from pydantic import ValidationError

    from deepcite.runs import RunRequest

    with pytest.raises(ValidationError) as caught:
        RunRequest.model_validate({"question": question})
    assert [error["loc"] for error in caught.value.errors()] == [("question",)]
