"""The REST API and the run executor, driven over HTTP in-process with a scripted model."""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

import deepcite.runs.build
from deepcite.citations import cited_numbers
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.export import export_report
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.rest import sse_lines
from tests.fakes import ScriptedChatModel, cite_all, write_notes

QUESTION = "What did we decide about the cache?"
OUTLINE = "1. Cache storage - where the cache lives\n2. Team rhythm - when the team meets\n"


class Gate:
    """Holds the model's first ``questions`` call until released, so a run can be
    caught while it works."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, prompt: str) -> str:
        self.entered.set()
        self.release.wait(10)
        return ""


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = write_notes(tmp_path / "notes")
    loaded = load_settings({"research.iterations": 1})
    Collection.create("notes", settings=loaded).add(folder)
    return loaded


@pytest.fixture
def gate() -> Iterator[Gate]:
    held = Gate()
    yield held
    held.release.set()


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    fake = ScriptedChatModel(script={
        "questions": [""], "synthesis": [cite_all], "section": [cite_all],
        "outline": [OUTLINE]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)
    return fake


def _app(settings: Settings, *, workers: int = 2, token: str | None = None,
         roots: tuple[str, ...] = ()) -> tuple[TestClient, LocalRunExecutor]:
    executor = LocalRunExecutor(settings, workers=workers)
    state = WebState(settings=settings, executor=executor, token=token, folder_roots=roots)
    return TestClient(create_app(state)), executor


@pytest.fixture
def client(settings: Settings, model: ScriptedChatModel) -> Iterator[TestClient]:
    client, executor = _app(settings)
    yield client
    executor.shutdown()


def _submit(client: TestClient, question: str = QUESTION, **body: Any) -> str:
    reply = client.post("/api/v1/research", json={"question": question,
                                                  "collections": ["notes"], **body})
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["id"]
    return run_id


def _wait(client: TestClient, run_id: str, *states: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        info: dict[str, Any] = client.get(f"/api/v1/research/{run_id}").json()
        if info["state"] in states:
            return info
        time.sleep(0.02)
    raise AssertionError(f"run {run_id} never reached {states}: {info}")


def _events(client: TestClient, run_id: str, **headers: str) -> list[dict[str, str]]:
    reply = client.get(f"/api/v1/research/{run_id}/events", headers=headers)
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/event-stream")
    return sse_lines(reply.text)


# ------------------------------------------------------------------------- runs


def test_a_run_completes_with_resolving_citations(client: TestClient) -> None:
    run_id = _submit(client)
    info = _wait(client, run_id, "completed", "failed")
    assert info["state"] == "completed", info
    result = info["result"]
    numbers = {source["number"] for source in result["sources"]}
    assert numbers and set(cited_numbers(result["answer"])) <= numbers
    assert client.get("/api/v1/history").json()[0]["id"] == run_id


def test_a_detailed_run_has_its_outline(client: TestClient) -> None:
    run_id = _submit(client, mode="detailed")
    info = _wait(client, run_id, "completed", "failed")
    assert info["state"] == "completed", info
    titles = [e["title"] for e in info["result"]["outline"]]
    # a part whose passages the Summary already quotes is left out (no empty part)
    assert titles[0] == "Cache storage" and set(titles) <= {"Cache storage", "Team rhythm"}


def test_events_stream_in_order_the_same_for_every_reader(client: TestClient) -> None:
    run_id = _submit(client)
    first, second = _events(client, run_id), _events(client, run_id)
    assert first == second
    assert first[-1]["event"] == "end" and '"completed"' in first[-1]["data"]
    numbered = first[:-1]
    assert [int(e["id"]) for e in numbered] == list(range(1, len(numbered) + 1))
    assert numbered[-1]["event"] == "finished"
    resumed = _events(client, run_id, **{"Last-Event-ID": "2"})
    assert resumed == first[2:]
    by_query = sse_lines(client.get(f"/api/v1/research/{run_id}/events?after=3").text)
    assert by_query == first[3:]


def test_cancel_a_running_run(settings: Settings, model: ScriptedChatModel,
                              gate: Gate) -> None:
    model.script["synthesis"] = [gate]
    client, executor = _app(settings)
    try:
        run_id = _submit(client)
        assert gate.entered.wait(10)
        assert client.get(f"/api/v1/research/{run_id}").json()["state"] == "running"
        assert client.post(f"/api/v1/research/{run_id}/cancel").status_code == 200
        gate.release.set()
        assert _wait(client, run_id, "cancelled", "completed", "failed")["state"] == \
            "cancelled"
        assert executor.store.get(run_id).status == "cancelled"
        again = client.post(f"/api/v1/research/{run_id}/cancel")
        assert again.status_code == 409 and again.json()["error"]["code"] == "run_ended"
    finally:
        executor.shutdown()


def test_runs_past_the_workers_wait_in_a_visible_queue(
        settings: Settings, model: ScriptedChatModel, gate: Gate) -> None:
    model.script["synthesis"] = [gate, ""]
    client, executor = _app(settings, workers=1)
    try:
        first = _submit(client)
        assert gate.entered.wait(10)
        second, third = _submit(client, "When does the team meet?"), _submit(client, "Who?")
        assert client.get(f"/api/v1/research/{second}").json()["queue_position"] == 1
        assert client.get(f"/api/v1/research/{third}").json()["queue_position"] == 2
        assert client.post(f"/api/v1/research/{second}/cancel").status_code == 200
        assert client.get(f"/api/v1/research/{third}").json()["queue_position"] == 1
        gate.release.set()
        assert _wait(client, third, "completed")["queue_position"] is None
        assert _wait(client, first, "completed")["state"] == "completed"
        assert executor.store.get(second).status == "cancelled"
        assert _events(client, second) == [{"event": "end", "data": '{"state": "cancelled"}'}]
    finally:
        executor.shutdown()


def test_runs_left_running_are_interrupted_after_a_restart(
        settings: Settings, model: ScriptedChatModel) -> None:
    with HistoryStore.open(settings) as store:
        left = store.begin("Crashed?", mode="quick", settings=settings)
    client, executor = _app(settings)
    try:
        info = client.get(f"/api/v1/research/{left}").json()
        assert (info["state"], info["finished_at"] is not None) == ("interrupted", True)
        assert _events(client, left)[-1]["event"] == "end"
    finally:
        executor.shutdown()


def test_shutdown_stores_running_runs_as_interrupted(
        settings: Settings, model: ScriptedChatModel, gate: Gate) -> None:
    model.script["synthesis"] = [gate]
    client, executor = _app(settings, workers=1)
    running = _submit(client)
    assert gate.entered.wait(10)
    queued = _submit(client, "Queued?")
    threading.Timer(0.2, gate.release.set).start()
    executor.shutdown()
    with HistoryStore.open(settings) as store:
        assert store.get(running).status == "interrupted"
        assert store.get(queued).status == "interrupted"


def test_materials_are_checked_at_submit(client: TestClient) -> None:
    reply = client.post("/api/v1/research", json={"question": "Q?", "materials": [{"x": 1}]})
    error = reply.json()["error"]
    assert reply.status_code == 422 and error["code"] == "invalid_request"
    assert [f["field"] for f in error["fields"]] == ["materials"]


def test_bad_overrides_are_422_before_the_run(client: TestClient) -> None:
    reply = client.post("/api/v1/research", json={"question": "Q?", "provider": "nonsense"})
    assert reply.status_code == 422, reply.text
    error = reply.json()["error"]
    assert "llm.provider" in error["message"]
    assert [f["field"] for f in error["fields"]] == ["provider"]


# ----------------------------------------------------------------------- errors


def test_a_bad_body_is_422_naming_the_fields(client: TestClient) -> None:
    reply = client.post("/api/v1/research", json={"question": "", "iterations": 99,
                                                  "colour": "red"})
    assert reply.status_code == 422
    error = reply.json()["error"]
    assert error["code"] == "invalid_request"
    assert {f["field"] for f in error["fields"]} == {"question", "iterations", "colour"}
    assert "question" in error["message"]


def test_unknown_runs_are_404_json(client: TestClient) -> None:
    for path in ("/api/v1/research/ffffffffffff", "/api/v1/research/ffff/events",
                 "/api/v1/research/ffffffff/export/markdown"):
        reply = client.get(path)
        assert reply.status_code == 404, path
        assert reply.json()["error"]["code"] == "unknown_run"
    assert client.post("/api/v1/research/abcd/cancel").status_code == 404
    assert client.get("/api/v1/nowhere").json()["error"]["code"] == "not_found"


# ---------------------------------------------------------------------- exports


@pytest.mark.parametrize(("fmt", "media", "suffix"), [
    ("markdown", "text/markdown", ".md"), ("html", "text/html", ".html"),
    ("json", "application/json", ".json")])
def test_exports_download_with_a_file_name(client: TestClient, fmt: str, media: str,
                                           suffix: str) -> None:
    run_id = _submit(client)
    _wait(client, run_id, "completed")
    reply = client.get(f"/api/v1/research/{run_id}/export/{fmt}")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith(media)
    disposition = reply.headers["content-disposition"]
    assert disposition.startswith("attachment; filename=") and suffix + '"' in disposition
    assert b"Redis" in reply.content or b"cache" in reply.content.lower()


@pytest.mark.parametrize("fmt", ["markdown", "html", "latex", "bibtex", "ris", "csl-json",
                                 "json"])
def test_a_web_export_names_local_documents_without_the_servers_paths(
        client: TestClient, settings: Settings, tmp_path: Path, fmt: str) -> None:
    """Downloaded from the web app, a local document is its collection and file name:
    no ``file:`` URL, no directory of the server; the same run exported with the
    default options (the CLI's, for its user's own files) keeps the path."""
    run_id = _submit(client)
    _wait(client, run_id, "completed")
    stored = HistoryStore.open(settings)
    try:
        result = stored.get(run_id).result
    finally:
        stored.close()
    assert any(s.url.startswith("file:") for s in result.sources)  # local documents
    served = client.get(f"/api/v1/research/{run_id}/export/{fmt}")
    assert served.status_code == 200
    text = served.content.decode("utf-8")
    root = tmp_path.resolve()
    for path in (str(root), root.as_uri(), quote(str(root))):
        assert path not in text, fmt
    assert "file:" not in text and "cache.md" in text and "notes" in text, text[-1500:]
    local = export_report(result, fmt).data.decode("utf-8")
    assert "file:" in local and str(root) in local.replace("%20", " ")


def test_unknown_export_format_is_404(client: TestClient) -> None:
    run_id = _submit(client)
    _wait(client, run_id, "completed")
    reply = client.get(f"/api/v1/research/{run_id}/export/pfd")
    assert reply.status_code == 404 and reply.json()["error"]["code"] == "unknown_format"


def test_a_missing_extra_is_501_with_the_install_hint(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from deepcite.export import ExporterStatus
    monkeypatch.setattr("deepcite.web.rest.runs.exporter_status", lambda name: ExporterStatus(
        "pdf", False, "needs WeasyPrint: pip install 'deepcite[pdf]'", "", True))
    reply = client.get("/api/v1/research/ffffffff/export/pdf")
    assert reply.status_code == 501
    assert "deepcite[pdf]" in reply.json()["error"]["message"]


# --------------------------------------------------------------------- security


def test_the_token_guards_every_route_but_health(
        settings: Settings, model: ScriptedChatModel, monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[bytes] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append(a)
        return real(a, b)

    monkeypatch.setattr("deepcite.web.who_is_asking.hmac.compare_digest", spy)
    client, executor = _app(settings, token="s3cret")
    try:
        assert client.get("/api/v1/health").status_code == 200
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            reply = client.get("/api/v1/history", headers=headers)
            assert reply.status_code == 401
            assert reply.json()["error"]["code"] == "unauthorized"
        assert client.post("/api/v1/research", json={"question": "Q?"}).status_code == 401
        ok = client.get("/api/v1/history", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        assert b"s3cret" in compared
    finally:
        executor.shutdown()


def test_security_headers(client: TestClient) -> None:
    headers = client.get("/api/v1/health").headers
    assert headers["x-content-type-options"] == "nosniff"
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["referrer-policy"]


def test_collections_only_from_folder_roots(settings: Settings, model: ScriptedChatModel,
                                            tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    (allowed / "docs").mkdir(parents=True)
    (allowed / "docs" / "a.md").write_text("# A\n\nAlpha notes about caching.\n")
    client, executor = _app(settings, roots=(str(allowed),))
    try:
        outside = client.post("/api/v1/collections",
                              json={"name": "x", "folder": str(tmp_path / "notes")})
        assert outside.status_code == 403
        sneaky = client.post("/api/v1/collections",
                             json={"name": "x", "folder": f"{allowed}/../notes"})
        assert sneaky.status_code == 403
        relative_out = client.post("/api/v1/collections",
                                   json={"name": "x", "folder": "../notes"})
        assert relative_out.status_code == 403
        reply = client.post("/api/v1/collections", json={"name": "alpha", "folder": "docs"})
        assert reply.status_code == 202  # relative to the folder root, as on the page
        deadline = time.monotonic() + 20
        names: set[str] = set()
        while "alpha" not in names and time.monotonic() < deadline:
            names = {c["name"] for c in client.get("/api/v1/collections").json()}
            time.sleep(0.05)
        assert {"alpha", "notes"} <= names
    finally:
        executor.shutdown()


# ------------------------------------------------------------------------ serve


def test_serve_refuses_a_network_address_without_a_token(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from deepcite.cli import app
    from deepcite.security.hosts import is_loopback

    ran: list[Any] = []
    monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: ran.append(args))
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "DEEPCITE_WEB_TOKEN" in result.output
    assert ran == []
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("192.168.1.2")
