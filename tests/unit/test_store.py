"""The history store on SQLite and on a real PostgreSQL server (see postgres_fixture)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from deepcite.config import Settings
from deepcite.errors import StoreError, UnknownRunError
from deepcite.store import HistoryStore, RunSummary, StoredRun
from deepcite.store.body import stored_body
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import HEAD_REVISION, MIGRATIONS, current_revision, upgrade
from deepcite.store.models import Base
from deepcite.types import (
    CitationCheck,
    Finding,
    Finished,
    ModelCall,
    OutlineEntry,
    OutlineReady,
    PhaseStarted,
    ResearchResult,
    RunMetrics,
    RunNotice,
    RunWarning,
    SearchDone,
    SectionStarted,
    Source,
    SourcesAdded,
    VerificationCounts,
)
from tests.unit import postgres_fixture

# ----------------------------------------------------------------------------- samples


def source(number: int, **changes: Any) -> Source:
    data: dict[str, Any] = {
        "number": number, "title": f"Paper {number}", "url": f"https://ex.org/p{number}?utm=x",
        "canonical_url": f"https://ex.org/p{number}", "snippet": f"Snippet {number}.",
        "engine": "arxiv", "full_text": f"Full text of paper {number}. " * 3,
        "published": "2024-05-01",
        "metadata": {"doi": f"10.1/{number}", "authors": ["A. B", "C. D"], "page": number,
                     "score": 0.5, "nested": {"k": [1, None, True]}},
    }
    data.update(changes)
    return Source(**data)


def quick_result(question: str = "Why is the sky blue?", **changes: Any) -> ResearchResult:
    data: dict[str, Any] = {
        "question": question,
        "answer": "Rayleigh scattering [1]. Shorter wavelengths scatter more [2].",
        "strategy": "source-based", "handler": "standard",
        "sources": [source(1), source(2, full_text=None, published=None, metadata={})],
        "questions_by_iteration": {1: ["sky blue why", "rayleigh"], 2: ["wavelength"]},
        "findings": [Finding(phase="synthesis", question=question, content="done")],
        "metrics": RunMetrics(model_calls=3, prompt_tokens=120, completion_tokens=40,
                              model_seconds=1.25, search_seconds=0.5, searches=4,
                              wall_seconds=2.0),
        "warnings": [RunNotice(code="engine_failed", message="one engine failed"),
                     RunNotice(code="fetch_failed", message="a page could not be fetched")],
        "verification": VerificationCounts(markers_checked=2, supported=1, partial=1),
        "citation_checks": [
            CitationCheck(number=1, sentence="Rayleigh scattering.", outcome="supported",
                          method="exact", source_number=1, start=0, end=4, quote="Full"),
            CitationCheck(number=2, sentence="Shorter wavelengths scatter more.",
                          outcome="partial", method="fuzzy"),
        ],
        "unsupported_sentences": ["An uncited claim."],
    }
    data.update(changes)
    return ResearchResult(**data)


def detailed_result(**changes: Any) -> ResearchResult:
    body = ("## Contents\n\n1. Drivers\n2. Effects\n\n## Drivers\n\n"
            "Wind drives surface currents [1].\n\n### Thermohaline\n\nDensity matters [2].\n\n"
            "## Effects\n\nCurrents move heat [3].")
    data: dict[str, Any] = {
        "mode": "detailed", "title": "Ocean currents", "answer": body,
        "outline": [OutlineEntry(title="Drivers", purpose="what drives them"),
                    OutlineEntry(title="Thermohaline", purpose="density", level=2),
                    OutlineEntry(title="Effects")],
        "sources": [source(n) for n in range(1, 4)],
        "strategy": "detailed", "handler": "precision",
    }
    data.update(changes)
    return quick_result("How do ocean currents work?", **data)


def events() -> list[Any]:
    return [
        PhaseStarted(phase="questions", iteration=1, iterations=2, step=1, total=3),
        SearchDone(iteration=1, query="q", engine="arxiv", results=2, seconds=0.25),
        SearchDone(iteration=1, query="q", engine="brave", results=0, seconds=0.1,
                   error="HTTP 429"),
        SourcesAdded(numbers=[1, 2], total=2),
        ModelCall(purpose="synthesis", prompt_tokens=100, completion_tokens=20, seconds=0.75),
        RunWarning(code="engine_failed", message="brave failed"),
        OutlineReady(entries=[OutlineEntry(title="Drivers")], fallback=True),
        SectionStarted(index=1, total=2, title="Drivers"),
        Finished(),
    ]


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    settings: Settings = make_settings()
    return settings


def save(store: HistoryStore, result: ResearchResult, settings: Settings,
         recorded: list[Any] | None = None, **begin: Any) -> str:
    run_id = store.begin(result.question, mode=result.mode, settings=settings, **begin)
    for event in recorded or []:
        store.record_event(run_id, event)
    store.finish(run_id, result)
    return run_id


def scalar(url: str, sql: str, **params: Any) -> Any:
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(sa.text(sql), params).scalar()
    finally:
        engine.dispose()


# --------------------------------------------------------------------------- round trip


def test_quick_result_round_trips(store: HistoryStore, settings: Settings) -> None:
    result = quick_result()
    run_id = save(store, result, settings, events())
    stored = store.get(run_id)
    assert isinstance(stored, StoredRun)
    assert stored.result == result
    assert stored.events == events_without_time(stored.events, events())
    assert [e.kind for e in stored.events] == [e.kind for e in events()]
    assert (stored.id, stored.status, stored.mode, stored.parent_id) == (
        run_id, "completed", "quick", None)
    assert len(run_id) == 32 and int(run_id, 16) >= 0
    assert stored.created_at.tzinfo == UTC and stored.finished_at is not None
    assert stored.finished_at.tzinfo == UTC and stored.finished_at >= stored.created_at
    assert stored.settings["research"]["strategy"] == settings.research.strategy


def test_warnings_round_trip_with_their_codes_in_order(store: HistoryStore, store_url: str,
                                                       settings: Settings) -> None:
    notices = [RunNotice(code="budget", message="Stopped early"),
               RunNotice(code="engine_failed", message="wikipedia failed: 503"),
               RunNotice(code="budget", message="Not researched: the last part"),
               RunNotice(code="other", message="an old warning")]
    run_id = save(store, quick_result(warnings=notices), settings)
    assert store.get(run_id).result.warnings == notices

    def column(name: str) -> Any:  # the columns are kept: messages, and codes beside them
        value = scalar(store_url, f"SELECT {name} FROM runs WHERE id = :id", id=run_id)
        return json.loads(value) if isinstance(value, str) else value

    assert column("warnings") == [n.message for n in notices]
    assert column("warning_codes") == [n.code for n in notices]


def events_without_time(stored: list[Any], expected: list[Any]) -> list[Any]:
    """``expected`` with the stored ``at`` times, which must themselves round-trip."""
    assert len(stored) == len(expected)
    return [want.model_copy(update={"at": got.at}) for got, want in zip(stored, expected,
                                                                          strict=True)]


def test_event_times_round_trip_exactly(store: HistoryStore, settings: Settings) -> None:
    recorded = events()
    run_id = save(store, quick_result(), settings, recorded)
    assert store.get(run_id).events == recorded


def test_detailed_result_round_trips(store: HistoryStore, settings: Settings) -> None:
    result = detailed_result()
    run_id = save(store, result, settings, events())
    stored = store.get(run_id[:6])
    assert stored.result == result
    assert stored.mode == "detailed" and stored.result.outline[1].level == 2
    [summary] = store.list()
    assert summary == RunSummary(id=run_id, created_at=stored.created_at,
                                 question=result.question, mode="detailed",
                                 status="completed", sources=3, parent_id=None,
                                 strategy="detailed", title="Ocean currents",
                                 finished_at=stored.finished_at, origin="python")


def test_answer_is_stored_without_its_sources_block(store: HistoryStore, settings: Settings,
                                                    store_url: str) -> None:
    reply = ("Rayleigh scattering [1].\n\n## References\n\n[1] Paper 1\n   URL: "
             "https://ex.org/p1\n")
    run_id = save(store, quick_result(answer=reply), settings)
    assert store.get(run_id).result.answer == "Rayleigh scattering [1]."
    body = scalar(store_url, "SELECT body FROM runs WHERE id = :id", id=run_id)
    assert body == "Rayleigh scattering [1]."
    assert "URL:" not in scalar(store_url, "SELECT search_text FROM runs")


def test_stored_body_removes_only_the_sources_section() -> None:
    report = ("# R\n\n## Findings\n\nText [1].\n\n## Sources\n\n[1] A\n\n### More\n\n[2] B\n\n"
              "## Conclusion\n\nEnd [2].\n\n```md\n## References\n```\n")
    assert stored_body(report) == ("# R\n\n## Findings\n\nText [1].\n\n## Conclusion\n\nEnd "
                                   "[2].\n\n```md\n## References\n```")
    assert stored_body("Plain answer [1].\n") == "Plain answer [1].\n"
    assert stored_body("Answer.\n\n# Bibliography\n- x\n\n#### References\n- y") == "Answer."


# ------------------------------------------------------------------------------ lookups


@pytest.fixture
def fixed_ids(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    ids = ["abcd1234" + "0" * 23 + "1", "abcd5678" + "0" * 23 + "2", "ef01" + "9" * 28]
    queue = [uuid.UUID(hex=i) for i in ids]
    monkeypatch.setattr(uuid, "uuid4", lambda: queue.pop(0))
    return ids


def test_runs_are_found_by_unique_prefix(store: HistoryStore, settings: Settings,
                                         fixed_ids: list[str]) -> None:
    for question in ("first", "second", "third"):
        save(store, quick_result(question), settings)
    assert store.get("abcd1").result.question == "first"
    assert store.get("ABCD5678").result.question == "second"
    assert store.get(fixed_ids[2]).result.question == "third"
    assert store.get(" ef01 ").id == fixed_ids[2]


@pytest.mark.parametrize(("ref", "message"), [
    ("abcd", "matches several runs (abcd12340000, abcd56780000) - type more"),
    ("abc", "too short - give at least 4 characters"),
    ("", "too short"),
    ("ffff", "No run 'ffff' in the history"),
    ("zzzzzz", "ids are hexadecimal"),
    ("abcd1234" + "0" * 30, "ids are hexadecimal"),
])
def test_bad_references_are_one_line_errors(store: HistoryStore, settings: Settings,
                                           fixed_ids: list[str], ref: str,
                                           message: str) -> None:
    for question in ("first", "second", "third"):
        save(store, quick_result(question), settings)
    for call in (store.get, store.delete):
        # Every way of naming no single run is "unknown" (a 404 on the web), not a
        # store failure (503): only the words tell the cases apart.
        with pytest.raises(UnknownRunError,
                           match=message.replace("(", r"\(").replace(")", r"\)")
                           ) as caught:
            call(ref)
        assert "\n" not in str(caught.value)
    assert len(store.list()) == 3


# ------------------------------------------------------------------------------ listing


def test_list_is_newest_first_with_search_and_limit(store: HistoryStore,
                                                    settings: Settings) -> None:
    first = save(store, quick_result("Where is the Straße?"), settings)
    second = save(store, detailed_result(title="ÉTUDE of 100% cotton_wool"), settings)
    third = save(store, quick_result("Unrelated", answer="Mentions Zebra stripes [1]."),
                 settings)
    assert [run.id for run in store.list()] == [third, second, first]
    assert [run.id for run in store.list(limit=2)] == [third, second]
    assert store.list(limit=0) == []

    def found(text: str) -> list[str]:
        return [run.id for run in store.list(search=text)]

    assert found("STRASSE") == [first]          # case-folded, not just lower-cased
    assert found("étude") == [second]           # title, non-ASCII case
    assert found("zebra STRIPES") == [third]    # body
    assert found("100%") == [second] and found("n_w") == [second]  # LIKE specials literal
    assert found("100%c") == [] and found("%") == [second]
    assert found("nothing like it") == []
    assert found("  ") == [third, second, first]
    summary = store.list(search="straße")[0]
    assert (summary.sources, summary.status, summary.mode) == (2, "completed", "quick")


def test_list_counts_sources_and_shows_running_runs(store: HistoryStore,
                                                   settings: Settings) -> None:
    running = store.begin("Still going?", mode="quick", settings=settings)
    [summary] = store.list(search="going")
    assert (summary.id, summary.status, summary.sources, summary.strategy) == (
        running, "running", 0, None)


def test_runs_left_running_are_marked_interrupted(store: HistoryStore, store_url: str,
                                                  settings: Settings) -> None:
    done = save(store, quick_result(), settings)
    other = HistoryStore.from_url(store_url)  # another process's store
    try:
        left = other.begin("Left running?", mode="quick", settings=settings)
        other.record_event(left, PhaseStarted(phase="questions", iteration=1,
                                              iterations=1, step=1, total=2))
        other.flush_events()
        # silent for as long as asked: a process that died without ending its run
        assert store.mark_interrupted(stale_after_s=0) == [left]
    finally:
        other.close()
    stored = store.get(left)
    assert (stored.status, stored.finished_at is not None) == ("interrupted", True)
    assert [e.kind for e in stored.events] == ["phase_started"]
    assert store.get(done).status == "completed"
    assert store.mark_interrupted(stale_after_s=0) == []
    assert {s.status for s in store.list()} == {"completed", "interrupted"}


def test_a_run_another_live_process_holds_is_never_marked(store: HistoryStore,
                                                          store_url: str,
                                                          settings: Settings) -> None:
    other = HistoryStore.from_url(store_url)
    try:
        live = other.begin("Still going?", mode="quick", settings=settings)
        assert store.mark_interrupted() == []  # its heartbeat is fresh
        ours = store.begin("Ours?", mode="quick", settings=settings)
        assert store.mark_interrupted(stale_after_s=0) == [live]  # never our own
        assert store.get(ours).status == "running"
        store.finish(ours, quick_result("Ours?"))
    finally:
        other.close()


def test_events_reach_the_store_while_the_run_goes_on(store: HistoryStore, store_url: str,
                                                      settings: Settings) -> None:
    run_id = store.begin("Watched live?", mode="quick", settings=settings)
    for step in (1, 2):
        store.record_event(run_id, PhaseStarted(phase="search", iteration=1, iterations=1,
                                                step=step, total=2))
    reader = HistoryStore.from_url(store_url)  # a second process following the run
    try:
        deadline = time.monotonic() + 30
        while not reader.get(run_id).events and time.monotonic() < deadline:
            time.sleep(0.05)  # the keeper writes them; nothing else does before the end
        assert [e.step for e in reader.get(run_id).events] == [1, 2]  # type: ignore[union-attr]
        assert reader.get(run_id).status == "running"
    finally:
        reader.close()
    store.finish(run_id, quick_result("Watched live?"))
    assert len(store.get(run_id).events) == 2  # nothing written twice


def test_closing_the_store_interrupts_the_runs_it_still_holds(store_url: str,
                                                              settings: Settings) -> None:
    with HistoryStore.from_url(store_url) as first:
        run_id = first.begin("Cut short?", mode="quick", settings=settings)
        first.record_event(run_id, PhaseStarted(phase="search", iteration=1, iterations=1,
                                                step=1, total=2))
    with HistoryStore.from_url(store_url) as again:
        stored = again.get(run_id)
    assert stored.status == "interrupted"
    assert [e.kind for e in stored.events] == ["phase_started"]


def test_interrupt_keeps_the_partial_result(store: HistoryStore, settings: Settings) -> None:
    run_id = store.begin("Stopped?", mode="quick", settings=settings)
    store.interrupt(run_id, quick_result("Stopped?", cancelled=True))
    stored = store.get(run_id)
    assert (stored.status, stored.result.question, stored.result.error) == (
        "interrupted", "Stopped?", None)


# ----------------------------------------------------------------------------- deleting


def test_delete_cascades_and_unlinks_follow_ups(store: HistoryStore, settings: Settings,
                                                store_url: str) -> None:
    parent = save(store, quick_result(), settings, events())
    child = save(store, quick_result("And why is it red at sunset?"), settings, events(),
                 parent_id=parent[:6])
    assert store.get(child).parent_id == parent
    assert store.delete(parent[:5]) == parent
    for table in ("sources", "citation_checks", "events"):
        orphans = scalar(store_url, f"SELECT count(*) FROM {table} WHERE run_id = :id",
                         id=parent)
        assert orphans == 0, table
        assert scalar(store_url, f"SELECT count(*) FROM {table} WHERE run_id = :id",
                      id=child) > 0
    assert store.get(child).parent_id is None
    with pytest.raises(StoreError, match="No run"):
        store.get(parent)
    assert [run.id for run in store.list()] == [child]


# ----------------------------------------------------------------------------- statuses


def test_cancelled_and_failed_results(store: HistoryStore, settings: Settings) -> None:
    cancelled = save(store, quick_result(cancelled=True), settings)
    errored = save(store, quick_result(error="model went away", warnings=[
        RunNotice(code="run_failed", message="stopped")]), settings)
    assert store.get(cancelled).status == "cancelled"
    assert store.get(cancelled).result.cancelled
    stored = store.get(errored)
    assert stored.status == "failed" and stored.result.error == "model went away"


def test_fail_keeps_events_and_partial_result(store: HistoryStore, settings: Settings) -> None:
    crashed = store.begin("Crashes?", mode="quick", settings=settings)
    store.record_event(crashed, PhaseStarted(phase="search"))
    store.fail(crashed, "KeyError: 'x'")
    stored = store.get(crashed)
    assert stored.status == "failed" and stored.result.error == "KeyError: 'x'"
    assert stored.result.answer == "" and stored.result.sources == []
    assert [e.kind for e in stored.events] == ["phase_started"]

    partial = store.begin("Partly?", mode="quick", settings=settings)
    store.fail(partial, "boom", quick_result("Partly?"))
    stored = store.get(partial)
    assert stored.status == "failed" and stored.result.error == "boom"
    assert len(stored.result.sources) == 2 and stored.result.citation_checks


def test_a_run_whose_process_is_gone_reads_back_with_its_events(store_url: str,
                                                                settings: Settings) -> None:
    first = HistoryStore.from_url(store_url)
    run_id = first.begin("Interrupted?", mode="detailed", settings=settings)
    first.record_event(run_id, PhaseStarted(phase="questions"))
    first.flush_events()
    first._stop_keeper()  # the process is killed: nothing more is written
    with HistoryStore.from_url(store_url) as second:
        stored = second.get(run_id)
    assert stored.status == "running" and stored.finished_at is None
    assert stored.mode == "detailed" and stored.result.answer == ""
    assert [e.kind for e in stored.events] == ["phase_started"]
    first._engine.dispose()


def test_finishing_an_unknown_run_is_an_error(store: HistoryStore) -> None:
    with pytest.raises(StoreError, match="not in the history"):
        store.finish("0" * 32, quick_result())


def test_events_from_many_threads(store: HistoryStore, settings: Settings) -> None:
    run_id = store.begin("Threads?", mode="quick", settings=settings)
    threads, per_thread = 8, 150
    start = threading.Barrier(threads)

    def emit(worker: int) -> None:
        start.wait()
        for n in range(per_thread):
            store.record_event(run_id, SearchDone(iteration=worker, query=str(n),
                                                  engine="e", results=n, seconds=0.0))

    workers = [threading.Thread(target=emit, args=(w,)) for w in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    store.finish(run_id, quick_result("Threads?"))
    stored = store.get(run_id).events
    assert len(stored) == threads * per_thread
    for w in range(threads):
        mine = [e.results for e in stored if isinstance(e, SearchDone) and e.iteration == w]
        assert mine == list(range(per_thread))


# ------------------------------------------------------------------------------ secrets


def test_stored_settings_hold_no_secrets(store_url: str, make_settings: Any) -> None:
    settings = make_settings(
        llm={"api_key": "sk-llm-SECRET-1", "base_url": "https://me:pw-SECRET-2@llm.lan/v1"},
        engines={"tavily_api_key": "tv-SECRET-3", "brave_api_key": "br-SECRET-4",
                 "plugins": {"corp": {"api_key": "SECRET-5", "token": "SECRET-6",
                                      "region": "eu", "max_tokens": 5}}})
    with HistoryStore.from_url(store_url) as store:
        run_id = save(store, quick_result(), settings)
        snapshot = store.get(run_id).settings
    raw = scalar(store_url, "SELECT CAST(settings AS TEXT) FROM runs")
    assert "SECRET" not in raw and "**********" not in raw
    if store_url.startswith("sqlite:///"):
        database = Path(store_url.removeprefix("sqlite:///"))
        for path in database.parent.glob(database.name + "*"):  # the WAL file too
            assert b"SECRET" not in path.read_bytes(), path
    assert snapshot["llm"]["api_key"] is None
    assert snapshot["llm"]["base_url"] == "https://me@llm.lan/v1"
    assert snapshot["engines"]["tavily_api_key"] is None
    assert snapshot["engines"]["plugins"]["corp"] == {"api_key": None, "token": None,
                                                     "region": "eu", "max_tokens": 5}
    assert snapshot["llm"]["temperature"] == settings.llm.temperature


# --------------------------------------------------------------------------- migrations


def test_new_database_is_migrated_to_match_the_models(store_url: str) -> None:
    HistoryStore.from_url(store_url).close()
    engine = create_store_engine(store_url)
    try:
        with engine.connect() as connection:
            assert current_revision(connection) == HEAD_REVISION
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            assert compare_metadata(context, Base.metadata) == []
    finally:
        engine.dispose()


def test_head_revision_constant_is_the_newest_revision() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_heads() == [HEAD_REVISION]


def test_stores_opened_at_once_migrate_once(store_url: str) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def open_store() -> None:
        start.wait()
        try:
            HistoryStore.from_url(store_url).close()
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    openers = [threading.Thread(target=open_store) for _ in range(4)]
    for opener in openers:
        opener.start()
    for opener in openers:
        opener.join()
    assert errors == []
    assert scalar(store_url, "SELECT version_num FROM alembic_version") == HEAD_REVISION


def test_upgrade_from_0001_keeps_the_rows(store_url: str) -> None:
    engine = create_store_engine(store_url)
    upgrade(engine, "0001")
    run_id = uuid.uuid4().hex
    json_columns = ("settings", "warnings", "warning_codes", "unsupported_sentences",
                    "outline", "questions_by_iteration", "findings")
    runs = sa.table("runs", sa.column("created_at", sa.DateTime(timezone=True)),
                    *(sa.column(name, sa.JSON) for name in json_columns),
                    *(sa.column(name) for name in ("id", "question", "mode", "status",
                                                   "body", "title", "cancelled", "strategy",
                                                   "handler")))
    sources = sa.table("sources", sa.column("metadata", sa.JSON), *(sa.column(name) for name in (
        "run_id", "number", "title", "url", "canonical_url", "engine", "snippet")))
    with engine.begin() as connection:
        assert current_revision(connection) == "0001"
        connection.execute(sa.insert(runs).values(
            id=run_id, question="Old question", mode="quick", status="completed",
            created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), settings={"llm": {}},
            body="An old Answer about Kelp [1].", title=None, cancelled=False,
            warnings=["An engine failed", "No code kept"], warning_codes=["engine_failed"],
            unsupported_sentences=[], outline=[],
            questions_by_iteration={"1": ["kelp"]}, findings=[], strategy="rapid",
            handler="standard"))
        connection.execute(sa.insert(sources), [
            {"run_id": run_id, "number": n, "title": f"T{n}", "url": f"https://k.org/{n}",
             "canonical_url": f"https://k.org/{n}", "engine": "web", "snippet": "s",
             "metadata": {"page": 2}} for n in (1, 2)])
    engine.dispose()

    with HistoryStore.from_url(store_url) as store:
        stored = store.get(run_id[:8])
        assert [run.id for run in store.list(search="ABOUT KELP")] == [run_id]
    assert stored.result.answer == "An old Answer about Kelp [1]."
    assert [s.number for s in stored.result.sources] == [1, 2]
    assert stored.result.sources[0].metadata == {"page": 2}
    assert stored.result.questions_by_iteration == {1: ["kelp"]}
    assert stored.result.warnings == [RunNotice(code="engine_failed", message="An engine failed"),
                                      RunNotice(code="other", message="No code kept")]
    assert stored.result.citation_checks == [] and stored.events == []
    assert stored.created_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert scalar(store_url, "SELECT version_num FROM alembic_version") == HEAD_REVISION


def test_downgrade_to_0001_keeps_runs_and_sources(store_url: str, settings: Settings) -> None:
    from alembic import command

    from deepcite.store.migrate import _config

    with HistoryStore.from_url(store_url) as store:
        run_id = save(store, quick_result(), settings, events())
    engine = create_store_engine(store_url)
    try:
        with engine.begin() as connection:
            config = _config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0001")
        with engine.connect() as connection:
            assert current_revision(connection) == "0001"
            assert not sa.inspect(connection).has_table("events")
    finally:
        engine.dispose()
    assert scalar(store_url, "SELECT count(*) FROM sources WHERE run_id = :id", id=run_id) == 2
    with HistoryStore.from_url(store_url) as store:  # and up again
        assert len(store.get(run_id).result.sources) == 2


def test_database_of_a_newer_deepcite_is_refused(store_url: str) -> None:
    HistoryStore.from_url(store_url).close()
    engine = create_store_engine(store_url)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '0099'"))
    engine.dispose()
    with pytest.raises(StoreError, match=r"newer deepcite.*upgrade deepcite"):
        HistoryStore.from_url(store_url)


# --------------------------------------------------------------------- odd text, backends


def test_nul_characters_are_storable(store: HistoryStore, settings: Settings,
                                     store_url: str) -> None:
    text = "PDF\x00text with a NUL"
    run_id = save(store, quick_result(sources=[source(1, full_text=text, title="a\x00b")]),
                  settings)
    stored = store.get(run_id).result.sources[0]
    if store_url.startswith("postgresql"):
        assert stored.full_text == text.replace("\x00", "\ufffd")  # same length, offsets hold
    else:
        assert stored.full_text == text and stored.title == "a\x00b"


def test_duplicate_source_numbers_keep_the_first(store: HistoryStore,
                                                 settings: Settings) -> None:
    result = quick_result(sources=[source(1), source(1, title="again"), source(2)])
    stored = store.get(save(store, result, settings)).result
    assert [(s.number, s.title) for s in stored.sources] == [(1, "Paper 1"), (2, "Paper 2")]


def test_open_uses_history_db_in_the_data_dir(tmp_path: Path, make_settings: Any) -> None:
    settings = make_settings(data_dir=str(tmp_path / "new" / "data"))
    with HistoryStore.open(settings) as store:
        save(store, quick_result(), settings)
    assert (tmp_path / "new" / "data" / "history.db").is_file()


def test_an_empty_file_becomes_a_history(tmp_path: Path) -> None:
    (tmp_path / "history.db").touch()
    with HistoryStore.from_url(f"sqlite:///{tmp_path / 'history.db'}") as store:
        assert store.list() == []


def test_open_uses_store_url_when_set(tmp_path: Path, make_settings: Any) -> None:
    elsewhere = tmp_path / "elsewhere" / "runs.sqlite"
    settings = make_settings(store={"url": f"sqlite:///{elsewhere}"})
    with HistoryStore.open(settings) as store:
        save(store, quick_result(), settings)
    assert elsewhere.is_file() and not (settings.data_dir / "history.db").exists()


def test_sqlite_uses_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    HistoryStore.from_url(url).close()
    assert scalar(url, "PRAGMA journal_mode") == "wal"
    assert scalar(url, "PRAGMA foreign_keys") == 1
    assert scalar(url, "PRAGMA busy_timeout") > 0


def test_a_file_that_is_not_a_database_is_a_one_line_error(tmp_path: Path,
                                                         make_settings: Any) -> None:
    settings = make_settings()
    settings.data_dir.mkdir(parents=True)
    (settings.data_dir / "history.db").write_text("these are my notes, not a database\n" * 50)
    with pytest.raises(StoreError, match=r"is not a usable history database.*move it away"
                       ) as caught:
        HistoryStore.open(settings)
    assert "\n" not in str(caught.value) and "history.db" in str(caught.value)


@pytest.mark.parametrize(("url", "message"), [
    ("not a url", "is not a database URL"),
    ("nosuchdb+nodriver://x/y", "No database driver"),
    ("postgresql+psycopg://nobody@/db?host=/nonexistent/socket", "Cannot use the history "
     "database .*check store.url"),
])
def test_unusable_urls_are_one_line_errors(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message) as caught:
        HistoryStore.from_url(url)
    assert "\n" not in str(caught.value)


def test_password_is_not_shown_in_errors() -> None:
    with pytest.raises(StoreError) as caught:
        HistoryStore.from_url("postgresql+psycopg://me:hunter2@/db?host=/nonexistent/socket")
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize("ci", [False, True])
def test_no_postgres_server_skips_but_fails_in_ci(monkeypatch: pytest.MonkeyPatch,
                                                 ci: bool) -> None:
    monkeypatch.setattr(postgres_fixture, "IN_CI", ci)
    monkeypatch.setattr(postgres_fixture.shutil, "which", lambda *args, **kwargs: None)
    monkeypatch.setattr(postgres_fixture.glob, "glob", lambda pattern: [])
    with pytest.raises(postgres_fixture.Unavailable, match="initdb/pg_ctl not found") as why:
        postgres_fixture.Cluster()
    outcome = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(outcome, match="initdb/pg_ctl not found"):
        postgres_fixture.unavailable(str(why.value))


def test_an_event_a_newer_deepcite_wrote_does_not_make_the_run_unreadable(
        tmp_path: Path) -> None:
    """A worker upgraded first writes a phase this version does not know: the run and
    its result still read, without that event."""
    import sqlalchemy as sa

    from deepcite.config import load_settings
    from deepcite.types import PhaseStarted

    settings = load_settings({"data_dir": str(tmp_path)}, config_files=[], environ={})
    with HistoryStore.open(settings) as store:
        run_id = store.begin("Q?", mode="quick", settings=settings)
        store.record_event(run_id, PhaseStarted(phase="search", step=1, total=2))
        store.record_event(run_id, PhaseStarted(phase="synthesis", step=2, total=2))
        store.finish(run_id, quick_result())
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'history.db'}")
    with engine.begin() as connection:
        rows = connection.execute(sa.text("SELECT seq, payload FROM events")).all()
        assert len(rows) == 2
        connection.execute(sa.text("UPDATE events SET payload = :p WHERE seq = :s"),
                           {"p": '{"kind": "phase_started", "phase": "dreaming"}',
                            "s": rows[0][0]})
    engine.dispose()
    with HistoryStore.open(settings) as store:
        stored = store.get(run_id)
    assert [e.phase for e in stored.events if isinstance(e, PhaseStarted)] == ["synthesis"]
    assert stored.result.answer == quick_result().answer
