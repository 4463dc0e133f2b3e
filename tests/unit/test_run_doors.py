"""The command line and the Python API pass the same door as the servers
(:func:`deepcite.runs.admission.admit`), as the local user (:attr:`Door.LOCAL`).

- A follow-up of a run that does not exist is refused by admission, in the same words,
  by ``deepcite ask --follow-up`` and by ``quick_summary(follow_up=...)``; a follow-up
  of a stored run by id builds on it the same way from both, and ``deepcite rerun`` of
  a follow-up builds on the same parent again.
- What the doors decide differently, on one store: the local user is not held to the
  server's limits, may follow up any run in the history and keeps the settings they
  chose (a strategy name the run falls back from); a server request is capped, sees
  only its owner's runs and has its settings checked. Without a history the local
  door admits a run but no follow-up.

Real stores on SQLite and PostgreSQL (``store_url``), a real collection, the real CLI;
a scripted model in place of the real one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import deepcite
import deepcite.runs.build
from deepcite.cli import app
from deepcite.config import Settings, load_settings
from deepcite.errors import RequestError
from deepcite.runs import RunRequest
from deepcite.runs.admission import Door, admit
from deepcite.runs.request import RunBudget, RunOwner
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult
from tests.mcp_launcher import scripted_model

QUESTION = "What did we decide about the cache?"
FOLLOW_UP = "And when does the team meet?"
PASSWORD = "correct horse battery"
runner = CliRunner()


@pytest.fixture
def settings(notes: Path, store_url: str, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The ``notes`` collection, the history at ``store_url`` (the CLI and the API find
    both from the environment) and a fresh scripted model for every run."""
    monkeypatch.setenv("DEEPCITE_STORE_URL", store_url)
    monkeypatch.setenv("DEEPCITE_RESEARCH_ITERATIONS", "1")
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: scripted_model())
    return load_settings()


@pytest.fixture
def store(settings: Settings, store_url: str) -> Iterator[HistoryStore]:
    with HistoryStore.from_url(store_url) as opened:
        yield opened


def _ask(*args: str) -> str:
    """``deepcite ask`` on the notes; the id of the run it kept."""
    done = runner.invoke(app, ["ask", *args, "-c", "notes", "-q"])
    assert done.exit_code == 0, done.output
    with HistoryStore.open(load_settings()) as store:
        return store.list(limit=1)[0].id


def _shape(result: ResearchResult) -> tuple[str, list[tuple[int, str]]]:
    return result.answer, [(source.number, source.url) for source in result.sources]


def _one_line(text: str) -> str:
    """A message as one line, however the terminal wrapped it."""
    return " ".join(text.split())


# ------------------------------------------------- the CLI and the API, through the door


def test_a_follow_up_of_a_missing_run_is_refused_in_the_same_words_by_cli_and_api(
        settings: Settings, store: HistoryStore) -> None:
    shown = runner.invoke(app, ["ask", FOLLOW_UP, "-c", "notes", "-q",
                                "--follow-up", "feedface"])
    with pytest.raises(RequestError) as refused:
        deepcite.quick_summary(FOLLOW_UP, collections=["notes"], follow_up="feedface")
    assert refused.value.field == "parent_id"
    line = str(refused.value)
    assert line.startswith("No run 'feedface' to follow up")
    assert shown.exit_code == 2
    assert _one_line(shown.stderr) == f"Error: {line}"
    assert store.list() == []  # refused before anything was recorded


def test_the_python_api_follows_up_a_stored_run_by_id_as_the_cli_does(
        settings: Settings, store: HistoryStore) -> None:
    first = _ask(QUESTION)
    by_cli = store.get(_ask(FOLLOW_UP, "--follow-up", first[:8]))
    by_id = deepcite.quick_summary(FOLLOW_UP, collections=["notes"], follow_up=first[:8])
    by_object = deepcite.quick_summary(FOLLOW_UP, collections=["notes"],
                                       follow_up=store.get(first).result)
    assert by_cli.parent_id == first
    kept = {(s.number, s.url) for s in store.get(first).result.sources}
    assert kept and kept <= set(_shape(by_id)[1])
    assert _shape(by_id) == _shape(by_object) == _shape(by_cli.result)


def test_rerunning_a_follow_up_builds_on_the_same_parent_again(
        settings: Settings, store: HistoryStore) -> None:
    first = _ask(QUESTION)
    follow_up = _ask(FOLLOW_UP, "--follow-up", first[:8])
    again = runner.invoke(app, ["rerun", follow_up[:8], "-q"])
    assert again.exit_code == 0, again.output
    newest = store.list(limit=1)[0].id
    assert newest != follow_up
    assert store.get(newest).parent_id == first
    assert _shape(store.get(newest).result) == _shape(store.get(follow_up).result)
    api = deepcite.rerun(follow_up[:8])
    assert store.list(limit=1)[0].parent_id == first
    assert _shape(api) == _shape(store.get(follow_up).result)


# ------------------------------------------------------- what each door decides


def _finished_run(store: HistoryStore, settings: Settings, owner: str) -> str:
    run_id = store.begin(QUESTION, mode="quick", settings=settings,
                         owner_id=store.user(owner).id)
    store.finish(run_id, ResearchResult(question=QUESTION, answer="Weekly [1].",
                                        strategy="source-based", handler="standard"))
    return run_id


def _as(store: HistoryStore, name: str, **fields: object) -> RunRequest:
    user = store.user(name)
    return RunRequest.parse(question=FOLLOW_UP, **fields).asked_by(
        "api", RunOwner(id=user.id, name=user.name))


def test_the_local_user_is_not_capped_a_server_request_is(
        settings: Settings, store: HistoryStore) -> None:
    base = settings.model_copy(update={"research": settings.research.model_copy(
        update={"max_searches": 5})})
    store.add_user("bob", PASSWORD)
    asked = _as(store, "bob", budget=RunBudget(max_searches=50))
    with pytest.raises(RequestError) as refused:
        admit(store, asked, base, Door.SERVER)
    assert refused.value.field == "budget" and "this server's limit" in str(refused.value)
    local = RunRequest.parse(question=FOLLOW_UP, budget=RunBudget(max_searches=50))
    assert admit(store, local, base, Door.LOCAL).settings.research.max_searches == 50


def test_the_local_user_follows_up_any_run_a_server_user_only_their_own(
        settings: Settings, store: HistoryStore) -> None:
    for name in ("alice", "bob"):
        store.add_user(name, PASSWORD)
    alices = _finished_run(store, settings, "alice")
    with pytest.raises(RequestError) as refused:
        admit(store, _as(store, "bob", parent_id=alices[:8]), settings, Door.SERVER)
    assert refused.value.field == "parent_id"
    assert str(refused.value).startswith(f"No run {alices[:8]!r} to follow up")
    local = admit(store, RunRequest.parse(question=FOLLOW_UP, parent_id=alices[:8]),
                  settings, Door.LOCAL)
    assert local.request.parent_id == alices  # named by full id from here on
    assert local.parent is not None and local.parent_result is not None
    assert local.parent_result.answer == "Weekly [1]."
    server = admit(store, _as(store, "alice", parent_id=alices[:8]), settings, Door.SERVER)
    assert server.request.parent_id == alices


def test_the_local_users_settings_are_theirs_a_server_requests_are_checked(
        settings: Settings, store: HistoryStore) -> None:
    """``deepcite ask -s no-such`` runs with the fallback strategy and a warning; a
    server refuses the name at submit."""
    store.add_user("bob", PASSWORD)
    with pytest.raises(RequestError) as refused:
        admit(store, _as(store, "bob", strategy="no-such-strategy"), settings, Door.SERVER)
    assert refused.value.field == "strategy"
    local = admit(store, RunRequest.parse(question=FOLLOW_UP, strategy="no-such-strategy"),
                  settings, Door.LOCAL)
    assert local.settings.research.strategy == "no-such-strategy"


def test_without_a_history_the_local_door_admits_a_run_but_no_follow_up(
        settings: Settings) -> None:
    admitted = admit(None, RunRequest.parse(question=QUESTION), settings, Door.LOCAL)
    assert admitted.settings == settings and admitted.parent is None
    with pytest.raises(RequestError) as refused:
        admit(None, RunRequest.parse(question=QUESTION, parent_id="feedface"), settings,
              Door.LOCAL)
    assert refused.value.field == "parent_id" and "history" in str(refused.value)
