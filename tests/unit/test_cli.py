"""The deepcite command as a user drives it, with the model faked at its boundary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.citations import cited_numbers
from deepcite.cli import app
from tests.fakes import ScriptedChatModel

runner = CliRunner()


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text(
        "# Cache decision\n\nWe decided to keep the cache in Redis with a one hour expiry, "
        "because the database was overloaded.\n", encoding="utf-8")
    (folder / "team.txt").write_text("The team meets on Tuesdays to plan the sprint.\n",
                                     encoding="utf-8")
    return folder


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    model = ScriptedChatModel(script={
        "questions": ["cache expiry decision"],
        "followups": ["redis cache"],
        "synthesis": ["We keep the cache in Redis with a one hour expiry [1]. Also [42]."],
    })
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    return model


def _add(folder: Path) -> Any:
    return runner.invoke(app, ["collection", "add", str(folder), "--name", "notes"])


def test_add_then_ask_prints_cited_answer_and_sources(notes: Path,
                                                      fake_model: ScriptedChatModel) -> None:
    added = _add(notes)
    assert added.exit_code == 0, added.output
    assert "2 added" in added.output
    result = runner.invoke(app, ["ask", "What did we decide about the cache?",
                                 "--collection", "notes", "--iterations", "2", "-q"])
    assert result.exit_code == 0, result.output
    answer, _, sources = result.stdout.partition("## Sources")
    assert "Redis" in answer and "[42]" not in answer
    for number in cited_numbers(answer):
        assert f"[{number}]" in sources or f"[{number}," in sources
    assert "cache.md" in sources and "Collection: notes" in sources


def test_second_add_is_incremental(notes: Path) -> None:
    assert _add(notes).exit_code == 0
    again = _add(notes)
    assert again.exit_code == 0 and "0 added" in again.output and "2 unchanged" in again.output


def test_json_output_has_the_documented_shape(notes: Path, fake_model: ScriptedChatModel,
                                              tmp_path: Path) -> None:
    _add(notes)
    target = tmp_path / "answer.md"
    result = runner.invoke(app, ["ask", "cache decision", "-c", "notes", "--json", "-q",
                                 "-o", str(target)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"answer", "sources", "questions_by_iteration", "metrics"} <= set(data)
    assert {"model_calls", "prompt_tokens", "completion_tokens", "model_seconds",
            "search_seconds", "wall_seconds"} <= set(data["metrics"])
    assert data["sources"][0]["number"] == 1 and data["sources"][0]["url"].startswith("file://")
    assert target.read_text(encoding="utf-8").count("## Sources") == 1


@pytest.mark.parametrize(("args", "message"), [
    (["ask", "  ", "-c", "notes"], "question is empty"),
    (["ask", "What?", "--engine", "nope"], "Unknown search engine 'nope'"),
    (["ask", "What?", "--engine", "brave"], "BRAVE_API_KEY"),
    (["ask", "What?", "--since", "last year"], "search.since"),
    (["ask", "What?", "--engine", "local"], "--collection"),
    (["ask", "What?", "-c", "nope"], "No collection named 'nope'"),
    (["ask", "What?", "-c", "notes", "--provider", "gpt"], "llm.provider"),
    (["collection", "add", "/no/such/folder", "--name", "x"], "Folder not found"),
])
def test_bad_input_is_one_line_error_with_nonzero_exit(notes: Path, args: list[str],
                                                       message: str) -> None:
    _add(notes)
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_missing_gguf_is_a_clear_error(notes: Path) -> None:
    _add(notes)
    result = runner.invoke(app, ["ask", "cache?", "-c", "notes", "--provider", "local",
                                 "--gguf", "/no/model.gguf", "-q"])
    assert result.exit_code == 1
    assert "/no/model.gguf" in result.output and "Traceback" not in result.output


def test_config_show_names_origins(notes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_RESEARCH_ITERATIONS", "3")
    result = runner.invoke(app, ["config", "show", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in json.loads(result.stdout)}
    assert rows["research.iterations"] == {"key": "research.iterations", "value": 3,
                                           "origin": "env DEEPCITE_RESEARCH_ITERATIONS"}
    assert rows["llm.provider"]["origin"] == "default"


def test_models_lists_every_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    monkeypatch.delenv("OPENAI_API_KEY")
    result = runner.invoke(app, ["models", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    names = {p["name"] for p in data["providers"]}
    assert {"local", "ollama", "openai", "anthropic"} <= names
    openai = next(p for p in data["providers"] if p["name"] == "openai")
    assert not openai["usable"]
    # what is missing, whichever it is: the extra, a model name or a key
    assert any(hint in openai["detail"] for hint in (
        "OPENAI_API_KEY", "deepcite[openai]", "set llm.model"))
    assert data["auto_picks"] == "local"


def test_ctrl_c_cancels_and_keeps_what_was_found(make_settings: Any) -> None:
    """Ctrl-C during a search: the run stops and the passages found so far are cited."""
    import _thread
    import signal
    import sys
    import threading

    from deepcite.cli.progress import RunProgress
    from deepcite.research import Researcher
    from tests.fakes import MemoryEngine, passage

    running = sys.modules["deepcite.cli.running"]
    engine = MemoryEngine([passage("cache", "We keep the cache in Redis for an hour.")])
    model = ScriptedChatModel(script={"questions": ["redis cache"]})
    researcher = Researcher(make_settings(iterations=3), model, [engine])
    original = engine.search
    searching = threading.Event()

    def slow_search(query: str, *, max_results: int) -> Any:
        hits = original(query, max_results=max_results)
        searching.set()
        researcher.cancel_token.wait(60)  # blocks like a slow engine until Ctrl-C
        return hits

    engine.search = slow_search  # type: ignore[method-assign]
    # Ctrl-C as a terminal delivers it, whatever handler an earlier test left installed
    # (interrupt_main does nothing unless Python's own SIGINT handler is in place).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=lambda: (searching.wait(60),
                                         _thread.interrupt_main())).start()
        with RunProgress(enabled=False) as progress:
            result = running.run_interruptibly(lambda: researcher.run("cache?"),
                                               researcher.cancel, progress)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result.cancelled
    assert "[1]" in result.answer and result.sources[0].title == "cache"
    assert "synthesis" not in model.purposes()


def _wiki_search(request: Any) -> Any:
    import httpx

    if request.url.params.get("list") == "search":
        return httpx.Response(200, json={"query": {"search": [
            {"ns": 0, "title": "Cache (computing)", "pageid": 7,
             "snippet": "A cache stores data so that future requests are served faster.",
             "timestamp": "2024-05-01T12:00:00Z"}]}})
    return httpx.Response(200, json={"query": {"pages": [
        {"pageid": 7, "title": "Cache (computing)",
         "extract": "In computing, a cache stores data so future requests are faster."}]}})


def _no_ollama() -> None:
    """Inside ``respx.mock``: the ``auto`` provider's Ollama probe (made whenever the
    ollama extra is installed) finds no server, as on a machine without Ollama."""
    import httpx
    import respx

    respx.get(url__regex=r"/api/tags$").mock(side_effect=httpx.ConnectError("no Ollama"))


def test_hybrid_run_cites_web_and_local_sources(notes: Path, fake_model: ScriptedChatModel
                                                ) -> None:
    import respx

    _add(notes)
    with respx.mock:
        _no_ollama()
        wiki = respx.get("https://en.wikipedia.org/w/api.php").mock(side_effect=_wiki_search)
        result = runner.invoke(app, ["ask", "cache decision", "-c", "notes", "-e", "wikipedia",
                                     "--iterations", "1", "--json", "-q"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    engines = {s["engine"] for s in data["sources"]}
    assert engines == {"local", "wikipedia"} and wiki.called
    wiki_source = next(s for s in data["sources"] if s["engine"] == "wikipedia")
    assert wiki_source["url"] == "https://en.wikipedia.org/wiki/Cache_(computing)"


def test_failing_web_engine_leaves_local_results(notes: Path, fake_model: ScriptedChatModel,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx
    import respx

    _add(notes)
    monkeypatch.setenv("DEEPCITE_ENGINES_CIRCUIT_FAILURES", "1")
    with respx.mock:
        _no_ollama()
        respx.get("https://en.wikipedia.org/w/api.php").mock(return_value=httpx.Response(503))
        result = runner.invoke(app, ["ask", "cache decision", "-c", "notes", "-e", "wikipedia",
                                     "--iterations", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["sources"] and all(s["engine"] == "local" for s in data["sources"])
    messages = [w["message"] for w in data["warnings"]]
    assert any("wikipedia failed" in m and "503" in m for m in messages)
    assert any("skipped for the rest of the run" in m for m in messages)


def test_offline_skips_web_engines_and_says_so(notes: Path, fake_model: ScriptedChatModel
                                               ) -> None:
    _add(notes)
    result = runner.invoke(app, ["ask", "cache decision", "-c", "notes", "-e", "wikipedia",
                                 "-e", "duckduckgo", "--offline", "--provider", "local",
                                 "--iterations", "1", "--json", "-q"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    skipped = [w for w in data["warnings"] if w["message"].startswith("Skipped engine")]
    assert len(skipped) == 2 and "offline" in skipped[0]["message"]
    assert {w["code"] for w in skipped} == {"engine_skipped"}
    assert data["sources"]


def test_offline_refuses_cloud_models(notes: Path) -> None:
    _add(notes)
    result = runner.invoke(app, ["ask", "cache?", "-c", "notes", "--offline",
                                 "--provider", "anthropic", "-q"])
    assert result.exit_code == 1 and "offline" in result.output


def test_engines_command_lists_usability(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    result = runner.invoke(app, ["engines", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["wikipedia"]["usable"] and not rows["tavily"]["usable"]
    assert "TAVILY_API_KEY" in rows["tavily"]["detail"]


def test_links_turn_citations_into_hyperlinks(notes: Path, fake_model: ScriptedChatModel
                                              ) -> None:
    _add(notes)
    result = runner.invoke(app, ["ask", "cache decision", "-c", "notes", "-q",
                                 "--links", "number"])
    assert result.exit_code == 0, result.output
    body, _, sources = result.stdout.partition("## Sources")
    assert "[[1]](file://" in body and "[[" not in sources
    bad = runner.invoke(app, ["ask", "cache decision", "-c", "notes", "--links", "fancy"])
    assert bad.exit_code == 2 and "citations.links" in bad.output


def test_verify_command_checks_a_saved_report(notes: Path, fake_model: ScriptedChatModel,
                                              tmp_path: Path) -> None:
    _add(notes)
    asked = runner.invoke(app, ["ask", "cache decision", "-c", "notes", "-q", "--json"])
    sources = tmp_path / "sources.json"
    sources.write_text(asked.stdout, encoding="utf-8")
    report = tmp_path / "report.md"
    report.write_text("We keep the cache in Redis with a one hour expiry [1]. "
                      "The moon is made of cheese [1]. See also [7].\n", encoding="utf-8")
    result = runner.invoke(app, ["verify", str(report), "--sources", str(sources), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["markers_removed"] == 1 and data["unsupported"] == 1
    assert "cheese [1]" not in data["text"] and "expiry [1]" in data["text"]
