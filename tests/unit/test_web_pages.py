"""The server-rendered pages, on a bare FastAPI app with a fake executor.

No create_app and no real runs: the executor below records requests and writes a
finished run to a history store in tmp_path, so the report pages have data.
"""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from deepcite.config import Settings
from deepcite.errors import UnknownRunError
from deepcite.runs import EventBatch, RunInfo, RunRequest
from deepcite.store import HistoryStore
from deepcite.types import (
    CitationCheck,
    Event,
    ModelCall,
    PhaseStarted,
    ResearchResult,
    RunNotice,
    RunWarning,
    Source,
    SourcesAdded,
    VerificationCounts,
)
from deepcite.web.contracts import WebState
from deepcite.web.page_forms import MAX_UPLOAD_BYTES
from deepcite.web.pages import STATIC_DIR, mount_static, pages_router
from deepcite.web.sessions import logged_in
from tests.unit.web_forms import csrf_token

XSS_TITLE = "<script>alert(1)</script>"
HTML_QUESTION = "Why <b>does</b> water <img src=x onerror=alert(2)> boil?"
SECRET = "sk-test-very-secret-value-123"
TOKEN = "the-access-token-4567"


def _result(question: str) -> ResearchResult:
    sources = [
        Source(number=1, title=XSS_TITLE, url="https://example.org/boil",
               canonical_url="https://example.org/boil", snippet="boiling", engine="web"),
        Source(number=2, title="Ice facts", url="https://example.org/ice",
               canonical_url="https://example.org/ice", snippet="ice", engine="web"),
    ]
    checks = [
        CitationCheck(number=1, sentence="Water boils at 100 C [1].", outcome="supported",
                      method="exact", source_number=1, start=0, end=20,
                      quote="water boils at 100 degrees Celsius"),
        CitationCheck(number=2, sentence="Ice melts at 0 C [2].", outcome="unsupported",
                      method="overlap", source_number=2),
    ]
    return ResearchResult(
        question=question, answer="Water boils at 100 C [1]. Ice melts at 0 C [2].",
        strategy="standard", handler="standard", sources=sources, citation_checks=checks,
        verification=VerificationCounts(markers_checked=2, supported=1, unsupported=1),
        warnings=[RunNotice(code="engine_failed", message="engine <i>web</i> failed: 503")],
    )


class FakeExecutor:
    """A RunExecutor that 'runs' each request at once into the history store."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.requests: list[RunRequest] = []
        self.cancelled: list[str] = []
        self.infos: dict[str, RunInfo] = {}
        self.event_log: dict[str, list[Event]] = {}
        self.lock = threading.Lock()
        self.store = HistoryStore.open(settings)

    def submit(self, request: RunRequest) -> str:
        self.requests.append(request)
        with HistoryStore.open(self.settings) as store:
            run_id = store.begin(request.question, mode=request.mode, settings=self.settings)
            store.finish(run_id, _result(request.question))
        self.infos[run_id] = RunInfo(id=run_id, question=request.question, mode=request.mode,
                                     state="completed", created_at=datetime.now(UTC))
        return run_id

    def use_settings(self, settings: Settings) -> None:
        """What the settings page hands on after a save: later submits run with it."""
        self.settings = settings

    def add_running(self, question: str, events: list[Event]) -> str:
        run_id = f"running{len(self.infos)}"
        self.infos[run_id] = RunInfo(id=run_id, question=question, mode="quick",
                                     state="running", created_at=datetime.now(UTC))
        self.event_log[run_id] = events
        return run_id

    def cancel(self, run_id: str) -> bool:
        if run_id not in self.infos:
            raise UnknownRunError(run_id)
        self.cancelled.append(run_id)
        return True

    def status(self, run_id: str) -> RunInfo:
        return self.infos[run_id]

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        events = self.event_log.get(run_id, [])
        return EventBatch([(i, e) for i, e in enumerate(events, 1) if i > after],
                          finished=self.infos[run_id].state not in ("queued", "running"))

    def shutdown(self) -> None:
        pass


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    value: Settings = make_settings(**{"llm.api_key": SECRET})
    return value


@pytest.fixture
def executor(settings: Settings) -> FakeExecutor:
    return FakeExecutor(settings)


def _client(settings: Settings, executor: FakeExecutor, *, token: str | None = None,
            roots: tuple[str, ...] = ()) -> TestClient:
    app = FastAPI()
    app.include_router(pages_router(WebState(settings=settings, executor=executor,
                                             token=token, folder_roots=roots)))
    mount_static(app)
    return TestClient(app, follow_redirects=False)


@pytest.fixture
def client(settings: Settings, executor: FakeExecutor) -> TestClient:
    return _client(settings, executor)


_csrf = csrf_token


def _submit(client: TestClient, **fields: Any) -> Any:
    data = {"csrf_token": _csrf(client), "question": "How hot is boiling water?",
            "mode": "quick", **fields}
    return client.post("/", data=data)


# ------------------------------------------------------------------ research form


def test_form_renders_with_csrf_field(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert 'name="csrf_token"' in page.text
    assert 'name="question"' in page.text and 'type="file"' in page.text
    assert "<script" not in page.text  # the form needs no JavaScript
    assert client.get("/static/style.css").status_code == 200


def test_post_without_or_with_bad_csrf_is_403(client: TestClient,
                                               executor: FakeExecutor) -> None:
    client.get("/")
    assert client.post("/", data={"question": "q"}).status_code == 403
    assert client.post("/", data={"question": "q", "csrf_token": "forged"}).status_code == 403
    fresh = TestClient(client.app, follow_redirects=False)  # a token from another session
    assert fresh.post("/", data={"question": "q", "csrf_token": _csrf(client)}
                      ).status_code == 403
    assert executor.requests == []


def test_good_post_submits_and_redirects(client: TestClient, executor: FakeExecutor) -> None:
    response = _submit(client, mode="detailed", strategy="standard", engines=["wiki", "arxiv"],
                       collections=["notes"], provider="openai", model="gpt-x", iterations="3")
    assert response.status_code == 303
    [request] = executor.requests
    assert response.headers["location"] == f"/runs/{next(iter(executor.infos))}"
    assert request.question == "How hot is boiling water?"
    assert (request.mode, request.strategy, request.provider, request.model) == (
        "detailed", "standard", "openai", "gpt-x")
    assert request.engines == ["wiki", "arxiv"] and request.collections == ["notes"]
    assert request.iterations == 3 and request.materials == []


def test_invalid_form_is_shown_again_with_problems(client: TestClient,
                                                   executor: FakeExecutor) -> None:
    response = _submit(client, question="", mode="bogus")
    assert response.status_code == 400
    assert "not started" in response.text and executor.requests == []


def test_uploaded_and_pasted_materials(client: TestClient, executor: FakeExecutor) -> None:
    files = [("files", ("notes.md", b"# Notes\n\nWater boils at 100 C at sea level.\n",
                        "text/markdown"))]
    data = {"csrf_token": _csrf(client), "question": "Boiling?", "mode": "quick",
            "pasted": "Pasted fact: ice is cold.", "pasted_title": "My note"}
    response = client.post("/", data=data, files=files)
    assert response.status_code == 303, response.text
    [request] = executor.requests
    upload, pasted = request.materials
    assert "Water boils at 100 C" in upload.content
    assert upload.url == "/uploads/notes.md"
    assert pasted.content == "Pasted fact: ice is cold." and pasted.title == "My note"


@pytest.mark.parametrize(("name", "content", "message"), [
    ("tool.exe", b"MZ...", "not accepted"),
    ("big.txt", b"x" * (MAX_UPLOAD_BYTES + 1), "20 MB limit"),
])
def test_refused_uploads(client: TestClient, executor: FakeExecutor, name: str,
                         content: bytes, message: str) -> None:
    data = {"csrf_token": _csrf(client), "question": "Boiling?"}
    response = client.post("/", data=data, files=[("files", (name, content, "text/plain"))])
    assert response.status_code == 400
    assert message in response.text and name in response.text
    assert executor.requests == []


# ------------------------------------------------------------------ runs and reports


def test_completed_run_page_redirects_to_report(client: TestClient,
                                                executor: FakeExecutor) -> None:
    run_id = _submit(client).headers["location"].rsplit("/", 1)[1]
    response = client.get(f"/runs/{run_id}")
    assert response.status_code == 303 and response.headers["location"] == f"/reports/{run_id}"


def test_running_run_page_shows_progress_and_cancel(client: TestClient,
                                                    executor: FakeExecutor) -> None:
    events: list[Event] = [
        PhaseStarted(phase="search", iteration=1, iterations=2),
        SourcesAdded(numbers=[1, 2, 3], total=3),
        ModelCall(purpose="questions", prompt_tokens=100, completion_tokens=20, seconds=1.0),
        RunWarning(code="engine_failed", message="wiki <failed>"),
    ]
    run_id = executor.add_running("Live <question>", events)
    page = client.get(f"/runs/{run_id}")
    assert page.status_code == 200
    text = page.text
    assert "Live &lt;question&gt;" in text and "wiki &lt;failed&gt;" in text
    assert 'data-phase="search">Searching</strong>' in text and '<dd id="tokens">120</dd>' in text
    assert '<dd id="sources">3</dd>' in text and "1 of 2" in text
    assert f'data-events="/api/v1/research/{run_id}/events"' in text
    assert "/static/run.js" in text and 'http-equiv="refresh"' in text  # no-JS reload
    token = _csrf(client, f"/runs/{run_id}")
    assert client.post(f"/runs/{run_id}/cancel", data={}).status_code == 403
    response = client.post(f"/runs/{run_id}/cancel", data={"csrf_token": token})
    assert response.status_code == 303 and executor.cancelled == [run_id]
    # the page says at once that the cancel was taken, while the run ends its step
    after = client.get(response.headers["location"]).text
    assert 'id="cancelling" role="status"' in after and ">Cancel</button>" not in after


def test_report_page(client: TestClient) -> None:
    run_id = _submit(client).headers["location"].rsplit("/", 1)[1]
    page = client.get(f"/reports/{run_id}")
    assert page.status_code == 200
    text = page.text
    assert "Water boils at 100 C" in text
    assert f'href="/runs/{run_id}/sources/1" class="cite" data-evidence="1"' in text
    assert f'href="/runs/{run_id}/sources/2" class="cite" data-evidence="2"' in text
    evidence = text.split('id="evidence-1"', 1)[1].split("</div>", 1)[0]
    assert "water boils at 100 degrees Celsius" in evidence
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in evidence
    assert 'href="#source-1"' in evidence and 'id="source-1"' in text
    assert "No checked quote" in text.split('id="evidence-2"', 1)[1].split("</div>", 1)[0]
    assert "Citations checked</dt><dd>2" in text and "Supported</dt><dd>1" in text
    assert f'href="/api/v1/research/{run_id}/export/markdown"' in text
    assert f'href="/api/v1/research/{run_id}/export/json"' in text
    assert ('<li data-code="engine_failed">engine &lt;i&gt;web&lt;/i&gt; failed: 503</li>'
            in text)


def test_untrusted_text_renders_as_text(client: TestClient) -> None:
    run_id = _submit(client, question=HTML_QUESTION).headers["location"].rsplit("/", 1)[1]
    for path in (f"/reports/{run_id}", "/history"):
        text = client.get(path).text
        assert XSS_TITLE not in text and "<img src=x" not in text and "<b>does</b>" not in text
        assert "Why &lt;b&gt;does&lt;/b&gt; water" in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get(f"/reports/{run_id}").text
    assert re.findall(r"<script[^>]*>", client.get(f"/reports/{run_id}").text) == [
        '<script src="/static/report.js" defer>', '<script src="/static/thread.js" defer>',
        '<script src="/static/copy.js" defer>']


def test_unknown_report_is_404(client: TestClient) -> None:
    assert client.get("/reports/ffffffffffff").status_code == 404


# ------------------------------------------------------------------ history


def test_history_search_and_delete(client: TestClient, executor: FakeExecutor) -> None:
    _submit(client, question="Boiling point of water")
    _submit(client, question="Melting point of iron")
    ids = list(executor.infos)
    page = client.get("/history")
    assert "Boiling point of water" in page.text and "Melting point of iron" in page.text
    found = client.get("/history", params={"q": "iron"}).text
    assert "Melting point of iron" in found and "Boiling point of water" not in found
    assert 'value="iron"' in found
    assert client.post(f"/history/{ids[1]}/delete", data={}).status_code == 403
    response = client.post(f"/history/{ids[1]}/delete", data={"csrf_token": _csrf(client)})
    assert response.status_code == 303
    listed = client.get("/history").text.split('<table class="runs">')[1]
    assert "Melting point of iron" not in listed and "Boiling point of water" in listed


# ------------------------------------------------------------------ collections and settings


def test_collections_folder_must_be_inside_roots(settings: Settings,
                                                 executor: FakeExecutor,
                                                 tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    client = _client(settings, executor, roots=(str(root),))
    assert "No collections yet" in client.get("/collections").text
    for folder in (str(tmp_path), str(root / ".."), "/etc", str(root / "missing")):
        response = client.post("/collections", data={
            "csrf_token": _csrf(client, "/collections"), "name": "notes", "folder": folder})
        assert response.status_code == 400
        assert "inside one of the allowed folders" in response.text
    bad_name = client.post("/collections", data={
        "csrf_token": _csrf(client, "/collections"), "name": "../x", "folder": str(root)})
    assert bad_name.status_code == 400


def test_collections_indexes_a_folder(settings: Settings, executor: FakeExecutor,
                                      tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# Boiling\n\nWater boils at 100 C.\n", encoding="utf-8")
    client = _client(settings, executor, roots=(str(root),))
    response = client.post("/collections", data={
        "csrf_token": _csrf(client, "/collections"), "name": "notes", "folder": str(root)})
    assert response.status_code == 303  # to the collection's page, showing progress
    assert response.headers["location"] == "/collections/notes"
    for thread in threading.enumerate():
        if thread.name == "deepcite-index-notes":
            thread.join(timeout=30)
    page = client.get("/collections").text
    assert ">notes</a></td>" in page and "done:" in page and "Re-index" in page


def test_settings_page_never_shows_a_key(client: TestClient) -> None:
    page = client.get("/settings")
    assert page.status_code == 200
    assert SECRET not in page.text
    assert "<code>llm.api_key</code></td><td>set</td>" in page.text
    assert "llm.provider" in page.text


# ------------------------------------------------------------------ login


def test_login_required_when_token_set(settings: Settings, executor: FakeExecutor) -> None:
    client = _client(settings, executor, token=TOKEN)
    for path in ("/", "/history", "/settings", "/collections", "/reports/abc"):
        response = client.get(path)
        assert response.status_code == 303
        assert response.headers["location"].startswith("/login")
    login = client.get("/login?next=/history")
    assert login.status_code == 200 and 'type="password"' in login.text
    token = _csrf(client, "/login")
    wrong = client.post("/login", data={"csrf_token": token, "password": "nope",
                                        "next": "/history"})
    assert wrong.status_code == 401 and "Wrong password" in wrong.text
    assert client.post("/login", data={"password": TOKEN}).status_code == 403
    good = client.post("/login", data={"csrf_token": token, "password": TOKEN,
                                       "next": "/history"})
    assert good.status_code == 303 and good.headers["location"] == "/history"
    cookie = good.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert client.get("/history").status_code == 200
    assert client.get("/settings").status_code == 200
    # the API can accept the same cookie for the SSE stream and export links
    request = Request({"type": "http", "headers": [
        (b"cookie", f"deepcite_session={client.cookies['deepcite_session']}".encode())]})
    with HistoryStore.open(settings) as store:  # where the pages recorded the login
        assert logged_in(request, TOKEN, store)
        assert not logged_in(request, "another-token", store)


def test_login_next_cannot_leave_the_site(settings: Settings, executor: FakeExecutor) -> None:
    client = _client(settings, executor, token=TOKEN)
    token = _csrf(client, "/login")
    response = client.post("/login", data={"csrf_token": token, "password": TOKEN,
                                           "next": "//evil.example/"})
    assert response.headers["location"] == "/"


def test_forged_session_cookie_is_not_logged_in(settings: Settings,
                                                executor: FakeExecutor) -> None:
    client = _client(settings, executor, token=TOKEN)
    client.cookies.set("deepcite_session", "eyJzaWQiOiJ4IiwiYXV0aCI6dHJ1ZX0.deadbeef")
    assert client.get("/history").status_code == 303


def test_no_login_on_loopback(client: TestClient) -> None:
    assert client.get("/login").status_code == 303
    assert client.get("/history").status_code == 200


# ------------------------------------------------------------------ without JavaScript


def test_pages_do_not_depend_on_javascript(client: TestClient, executor: FakeExecutor) -> None:
    run_id = _submit(client).headers["location"].rsplit("/", 1)[1]
    for path in ("/", "/history", "/collections", "/settings", f"/reports/{run_id}"):
        text = client.get(path).text
        assert "<noscript" not in text or path.startswith("/runs")
        # scripts only ever load from our static folder, deferred: no inline code
        for tag in re.findall(r"<script[^>]*>.*?</script>", text, flags=re.S):
            assert re.fullmatch(r'<script src="/static/\w+\.js" defer></script>', tag)
    assert (STATIC_DIR / "run.js").is_file() and (STATIC_DIR / "report.js").is_file()
    report = client.get(f"/reports/{run_id}").text
    assert ".evidence:target" in (STATIC_DIR / "style.css").read_text(encoding="utf-8")
    assert 'class="evidence" id="evidence-1"' in report  # clicking a citation opens it
