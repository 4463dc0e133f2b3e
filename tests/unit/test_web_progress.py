"""The research form's defaults and the run page's live progress.

The fold of events (:mod:`deepcite.web.pages._progress`) directly; the pages on a bare
app with a fake executor; and one real pooled run with materials (a scripted model)
whose live counters must be the stored result's.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings
from deepcite.errors import RequestError, UnknownRunError
from deepcite.runs import EventBatch, RunInfo, RunRequest
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.types import (
    Event,
    Finished,
    ModelCall,
    OutlineEntry,
    OutlineReady,
    PhaseStarted,
    QuestionsGenerated,
    ResearchResult,
    RunMetrics,
    SearchDone,
    SectionStarted,
)
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.page_forms import form_choices, page_words
from deepcite.web.pages import mount_static, pages_router
from deepcite.web.pages._progress import elapsed, progress_of
from tests.fakes import ScriptedChatModel, cite_all

CLI_FLAG = re.compile(r"--[a-z]")


class Executor:
    """A RunExecutor whose runs are what the test says they are."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = HistoryStore.open(settings)
        self.infos: dict[str, RunInfo] = {}
        self.event_log: dict[str, list[Event]] = {}

    def add(self, state: str, events: list[Event], *, mode: str = "quick",
            position: int | None = None, result: ResearchResult | None = None) -> str:
        run_id = self.store.begin("Why <b>now</b>?", mode="quick", settings=self.settings)
        if result is not None:
            self.store.finish(run_id, result)
        created = datetime.now(UTC) - timedelta(seconds=75)
        self.infos[run_id] = RunInfo(id=run_id, question="Why <b>now</b>?", mode=mode,
                                     state=state, queue_position=position,
                                     created_at=created)
        self.event_log[run_id] = events
        return run_id

    def submit(self, request: RunRequest) -> str:
        raise RequestError("collections", "No collection named 'nope' - create it with "
                           "`deepcite collection add FOLDER --name nope`")

    def cancel(self, run_id: str) -> bool:
        return True

    def status(self, run_id: str) -> RunInfo:
        if run_id not in self.infos:
            raise UnknownRunError(run_id)
        return self.infos[run_id]

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        events = self.event_log.get(run_id, [])
        return EventBatch([(i, e) for i, e in enumerate(events, 1) if i > after],
                          finished=self.infos[run_id].state not in ("queued", "running"))

    def shutdown(self) -> None:
        self.store.close()


def _client(settings: Settings, executor: Executor) -> TestClient:
    app = FastAPI()
    app.include_router(pages_router(WebState(settings=settings, executor=executor)))  # type: ignore[arg-type]
    mount_static(app)
    return TestClient(app, follow_redirects=False)


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    value: Settings = make_settings()
    return value


@pytest.fixture
def executor(settings: Settings) -> Any:
    made = Executor(settings)
    yield made
    made.shutdown()


@pytest.fixture
def client(settings: Settings, executor: Executor) -> TestClient:
    return _client(settings, executor)


def _checked(page: str, name: str) -> bool:
    match = re.search(rf'<input type="checkbox" name="collections" value="{re.escape(name)}"'
                      r'([^>]*)>', page)
    assert match, f"no {name} collection on the form"
    return "checked" in match.group(1)


def _fact(page: str, name: str) -> str:
    match = re.search(rf'<dd id="{name}"[^>]*>([^<]*)</dd>', page)
    assert match, f"no {name} on the page"
    return match.group(1)


# ------------------------------------------------------------------ the fold


def test_quick_run_phases_bar_and_queries() -> None:
    events: list[Event] = [
        PhaseStarted(phase="index"),
        PhaseStarted(phase="materials"),
        PhaseStarted(phase="questions", iteration=1, iterations=2, step=1, total=4),
        QuestionsGenerated(iteration=1, questions=["boiling <point>", "altitude"]),
        PhaseStarted(phase="search", iteration=1, iterations=2, step=2, total=4),
        SearchDone(iteration=1, query="boiling <point>", engine="local", results=3, seconds=0.1),
    ]
    progress = progress_of(events)
    assert progress.phase == "search" and progress.label == "Searching"
    assert progress.step == "2 of 4" and progress.percent == 25
    assert [(q.text, q.searches) for q in progress.queries] == [
        ("boiling <point>", ["local: 3"]), ("altitude", [])]
    texts = [text for _, text in progress.log]
    assert texts[0].startswith("Building the demo collection") and "Reading your materials" in texts
    assert "Searched local for \u201cboiling <point>\u201d: 3 results" in texts
    finished = progress_of([*events, Finished()])
    assert finished.phase == "saving" and finished.percent == 100  # never "finished" while live


def test_detailed_report_is_not_finished_after_its_first_research() -> None:
    first: list[Event] = [
        PhaseStarted(phase="synthesis", step=3, total=3), Finished(),
        PhaseStarted(phase="outline"),
    ]
    progress = progress_of(first, mode="detailed")
    assert progress.label == "Writing the outline" and progress.percent is None
    assert progress.step == "one model call, then the parts"  # not "-" while it writes
    parts = [*first,
             OutlineReady(entries=[OutlineEntry(title="A", purpose=""),
                                   OutlineEntry(title="B", purpose="")]),
             SectionStarted(index=1, total=2, title="A"),
             PhaseStarted(phase="questions", step=1, total=2)]
    progress = progress_of(parts, mode="detailed")
    assert progress.section == "1 of 2: A" and progress.percent == 33
    assert progress.phase == "questions"
    # a step is the part's own, never the summary's "3 of 3" beside "part 1 of 2"
    assert progress.step == "1 of 2 (part 1 of 2)"
    last = progress_of([*parts, SectionStarted(index=2, total=2, title="B"), Finished()],
                       mode="detailed")
    assert last.phase == "assembling" and last.percent == 99


def test_page_words_have_no_cli_flags() -> None:
    for message in ("local searches collections - pass --collection NAME",
                    "No collection named 'x' - create it with "
                    "`deepcite collection add FOLDER --name x`",
                    "the bundled model has none - use --strategy source-based",
                    "offline - use --provider local or a local server (llm.base_url)"):
        assert not CLI_FLAG.search(page_words(message)), page_words(message)
    assert "Collections page" in page_words("create it with `deepcite collection add "
                                            "FOLDER --name x`")
    assert elapsed(datetime(2026, 1, 1, tzinfo=UTC),
                   datetime(2026, 1, 1, 0, 3, 5, tzinfo=UTC)) == "3 min 05 s"


# ------------------------------------------------------------------ the form


def test_offline_form_preselects_demo_and_opens_sources(make_settings: Any) -> None:
    settings: Settings = make_settings(**{"security.offline": True})
    executor = Executor(settings)
    try:
        page = _client(settings, executor).get("/").text
    finally:
        executor.shutdown()
    assert _checked(page, "demo")
    assert '<details id="sources-and-model" open>' in page
    assert "This server is offline" in page
    assert "duckduckgo needs the internet and the run is offline" in page  # why not
    assert re.search(r'value="duckduckgo" disabled', page)
    body = page.split("<main", 1)[1]
    assert not CLI_FLAG.search(body), CLI_FLAG.search(body)


def test_online_form_preselects_nothing(client: TestClient) -> None:
    page = client.get("/").text
    assert not _checked(page, "demo")
    assert '<details id="sources-and-model">' in page
    assert 'value="wikipedia"> wikipedia <span class="hint">ready</span>' in page


def test_offline_form_preselects_the_last_used_collection(make_settings: Any,
                                                          tmp_path: Path) -> None:
    settings: Settings = make_settings(**{"security.offline": True})
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome notes.\n", encoding="utf-8")
    Collection.create("notes", settings=settings).add(folder)
    used = settings.model_copy(update={"search": settings.search.model_copy(
        update={"collections": ("notes",)})})
    executor = Executor(settings)
    try:
        executor.store.begin("earlier", mode="quick", settings=used)
        page = _client(settings, executor).get("/").text
    finally:
        executor.shutdown()
    assert _checked(page, "notes") and not _checked(page, "demo")
    assert "ready: 1 document" in page
    choices = form_choices(settings)  # no store: nothing to remember
    assert choices.preselected == ["demo"] and not choices.web_usable


def test_a_refused_request_is_told_in_page_words(client: TestClient) -> None:
    form = client.get("/").text
    token = re.search(r'name="csrf_token" value="([^"]+)"', form)
    assert token
    page = client.post("/", data={"csrf_token": token.group(1), "question": "Why?",
                                  "collections": ["nope"]}).text
    problem = page.split('class="problem"', 1)[1].split("</div>", 1)[0]
    assert "Collections: No collection named" in problem and "Collections page" in problem
    assert not CLI_FLAG.search(problem) and "deepcite collection" not in problem
    assert '<details id="sources-and-model" open>' in page  # the problem is in there


# ------------------------------------------------------------------ the run page


def test_run_page_names_phase_and_shows_bar_log_elapsed(client: TestClient,
                                                        executor: Executor) -> None:
    run_id = executor.add("running", [
        PhaseStarted(phase="questions", iteration=1, iterations=2, step=1, total=4),
        QuestionsGenerated(iteration=1, questions=["what <now>"]),
        ModelCall(purpose="questions", prompt_tokens=1000, completion_tokens=205, seconds=1.0),
    ])
    page = client.get(f"/runs/{run_id}").text
    assert 'data-phase="questions">Writing search queries</strong>' in page
    assert '<progress id="bar" max="100" value="0"' in page
    assert _fact(page, "tokens") == "1,205" and _fact(page, "calls") == "1"
    assert _fact(page, "elapsed").startswith("1 min 1")  # started 75 s ago
    assert '<details id="log">' in page and "what &lt;now&gt;" in page
    assert "Why &lt;b&gt;now&lt;/b&gt;?" in page and "<b>now</b>" not in page
    assert _fact(page, "state") == "running"


def test_queued_only_when_something_is_ahead(client: TestClient, executor: Executor) -> None:
    alone = executor.add("queued", [], position=1)
    page = client.get(f"/runs/{alone}").text
    assert _fact(page, "state") == "starting"
    behind = executor.add("queued", [], position=3)
    assert _fact(client.get(f"/runs/{behind}").text, "state") == "queued: 2 runs ahead of it"


def test_a_cancelled_run_says_cancelled_with_stored_counts(client: TestClient,
                                                           executor: Executor) -> None:
    result = ResearchResult(question="q", answer="", strategy="standard", handler="standard",
                            cancelled=True, metrics=RunMetrics(model_calls=1, prompt_tokens=200,
                                                               completion_tokens=39))
    run_id = executor.add("cancelled", [
        ModelCall(purpose="material_analysis", prompt_tokens=900, completion_tokens=66,
                  seconds=1.0),
        Finished(cancelled=True)], result=result)
    page = client.get(f"/runs/{run_id}").text
    assert 'data-phase="cancelled">Cancelled</strong>' in page and "finished" not in page.lower()
    assert _fact(page, "calls") == "1" and _fact(page, "tokens") == "239"
    assert "Counts from the stored result" in page


# ------------------------------------------------------------------ one real run


def _wait(client: TestClient, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        info: dict[str, Any] = client.get(f"/api/v1/research/{run_id}").json()
        if info["state"] not in ("queued", "running"):
            return info
        time.sleep(0.02)
    raise AssertionError(f"run {run_id} did not end")


@pytest.mark.parametrize("mode", ["quick", "detailed"])
def test_live_counters_match_the_stored_result(make_settings: Any, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               mode: str) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    settings: Settings = make_settings(**{"research.iterations": 1})
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text("# Cache\n\nWe keep the cache in Redis for an hour.\n",
                                     encoding="utf-8")
    Collection.create("notes", settings=settings).add(folder)
    fake = ScriptedChatModel(script={
        "questions": [""], "synthesis": [cite_all], "section": [cite_all],
        "outline": ["1. Cache storage - where the cache lives\n"],
        "material_analysis": ["The memo says the cache lives in Redis."]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)
    executor = LocalRunExecutor(settings, workers=1)
    try:
        client = TestClient(create_app(WebState(settings=settings, executor=executor)))
        reply = client.post("/api/v1/research", json={
            "question": "Where is the cache kept?", "collections": ["notes"], "mode": mode,
            "materials": [{"url": "/pasted/memo", "title": "Memo",
                           "content": "The cache is kept in Redis. " * 20}]})
        assert reply.status_code == 202, reply.text
        run_id = reply.json()["id"]
        info = _wait(client, run_id)
        assert info["state"] == "completed", info
        events = [e for _, e in executor.events(run_id).events]
    finally:
        executor.shutdown()
    live = progress_of(events, mode=mode)
    metrics = info["result"]["metrics"]
    assert live.model_calls == metrics["model_calls"] == len(fake.calls)
    assert live.tokens == metrics["prompt_tokens"] + metrics["completion_tokens"]
    phases = [e.phase for e in events if isinstance(e, PhaseStarted)]
    assert "materials" in phases
    assert ("outline" in phases) == (mode == "detailed")
