"""The settings page, issue 47 item 9: a saved change is what the next run uses, without
a restart; an unknown model is refused in one line saying how to fix it; the engines'
API keys have fields, whose values are never shown back.

The app is the real one with a real executor (a scripted model) where a run must really
be admitted; Ollama is faked only where deepcite's HTTP client meets the network (respx).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from deepcite.config import Settings
from deepcite.runs import RunRequest
from deepcite.runs.local import LocalRunExecutor
from deepcite.watches.service import WatchService
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.pages.settings import user_config_file
from tests.unit.conftest import NotesSite
from tests.unit.test_web_pages import FakeExecutor, _client, _csrf

TAGS = "http://localhost:11434/api/tags"
BRAVE_KEY = "brave-key-never-shown-7731"


@dataclass
class Server:
    """The app as ``deepcite serve`` wires it: state, executor, a watch service told of
    saved settings."""

    client: TestClient
    state: WebState
    executor: LocalRunExecutor
    watches: WatchService
    settings: Settings


@pytest.fixture
def server(notes_site: NotesSite) -> Server:
    # notes_site's settings were started with research.iterations, which the config
    # files do not have: a save must keep it
    state = WebState(settings=notes_site.settings, executor=notes_site.executor)
    watches = WatchService(notes_site.store, notes_site.settings, notes_site.executor)
    state.on_settings.append(watches.use_settings)
    return Server(TestClient(create_app(state), follow_redirects=False), state,
                  notes_site.executor, watches, notes_site.settings)


def _save(client: TestClient, **fields: Any) -> Any:
    data = {"csrf_token": _csrf(client, "/settings"), "llm.provider": "auto",
            "citations.answer_mode": "auto", **fields}
    return client.post("/settings", data=data)


def _saved() -> dict[str, Any]:
    return tomllib.loads(user_config_file().read_text(encoding="utf-8"))


def test_a_saved_change_is_what_the_next_run_uses(server: Server) -> None:
    before = server.executor.submit(RunRequest(question="Where is the cache kept?",
                                               collections=["notes"]))
    reply = _save(server.client, **{"research.max_searches": "3",
                                    "search.collections": ["notes"],
                                    "citations.answer_mode": "grounded"})
    assert reply.status_code == 303, reply.text[:400]
    after = server.executor.submit(RunRequest(question="Where is the cache kept?"))
    store = server.executor.store
    old, new = store.get(before).settings, store.get(after).settings
    assert old["research"]["max_searches"] is None
    assert new["research"]["max_searches"] == 3
    assert new["search"]["collections"] == ["notes"]  # the default collection, no restart
    assert new["citations"]["answer_mode"] == "grounded"
    assert new["research"]["iterations"] == 1  # what the server was started with stays
    assert server.state.settings.research.max_searches == 3
    assert server.watches.settings.research.max_searches == 3  # watch runs too
    page = server.client.get("/settings?saved=1").text
    assert "New runs use it from now on" in page
    row = re.search(r"<code>research.max_searches</code></td><td>([^<]*)</td><td>([^<]*)"
                    r"(<span class=\"pending\">)?", page)
    assert row is not None and row.group(1) == "3" and row.group(3) is None
    # removing the value again is live too: the default (no limit) for the next run
    assert _save(server.client, **{"research.max_searches": ""}).status_code == 303
    last = server.executor.submit(RunRequest(question="Where is the cache kept?"))
    assert store.get(last).settings["research"]["max_searches"] is None


def test_an_environment_variable_still_wins_after_a_save(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page says a DEEPCITE_* variable overrides the file: the live settings agree."""
    monkeypatch.setenv("DEEPCITE_RESEARCH_MAX_SEARCHES", "9")
    assert _save(server.client, **{"research.max_searches": "4"}).status_code == 303
    assert _saved()["research"] == {"max_searches": 4}
    assert server.state.settings.research.max_searches == 9


# ------------------------------------------------------------------- the model


@pytest.fixture
def client(make_settings: Any) -> TestClient:
    settings: Settings = make_settings()
    return _client(settings, FakeExecutor(settings))


def _problem(page: str) -> str:
    found = re.search(r'<span class="problem" id="problem-llm-model">([^<]*)</span>', page)
    assert found is not None, "no problem shown beside the model"
    return found.group(1)


def test_the_local_provider_takes_only_its_own_model(client: TestClient) -> None:
    refused = _save(client, **{"llm.provider": "local", "llm.model": "llama3.2"})
    assert refused.status_code == 400
    line = _problem(refused.text)
    assert line.startswith("llm.model: the local provider runs only SmolLM2-135M-Instruct")
    assert "not llama3.2 - leave the model blank" in line and "\n" not in line
    assert 'aria-invalid="true" aria-describedby="problem-llm-model"' in refused.text
    assert not user_config_file().exists()
    for name in ("SmolLM2-135M-Instruct", "SmolLM2-135M-Instruct.Q4_1.gguf"):
        assert _save(client, **{"llm.provider": "local", "llm.model": name}
                     ).status_code == 303
    assert _saved()["llm"]["model"] == "SmolLM2-135M-Instruct.Q4_1.gguf"


@respx.mock
def test_an_ollama_model_is_checked_against_the_servers_list(client: TestClient) -> None:
    tags = respx.get(TAGS).mock(return_value=httpx.Response(200, json={"models": [
        {"name": "llama3.2:latest"}, {"name": "qwen2.5:3b"}]}))
    refused = _save(client, **{"llm.provider": "ollama", "llm.model": "mistral"})
    assert refused.status_code == 400 and tags.called
    assert _problem(refused.text) == (
        "llm.model: Ollama at http://localhost:11434 has no model mistral (it has "
        "llama3.2:latest, qwen2.5:3b) - run `ollama pull mistral` or enter one it has")
    assert 'value="mistral"' in refused.text  # what was typed is kept to correct
    assert not user_config_file().exists()
    assert _save(client, **{"llm.provider": "ollama", "llm.model": "llama3.2"}
                 ).status_code == 303  # ":latest" is Ollama's own default tag
    assert _saved()["llm"] == {"provider": "ollama", "model": "llama3.2"}


@respx.mock
def test_an_unreachable_ollama_is_said_not_taken_as_yes(client: TestClient) -> None:
    respx.get(TAGS).mock(side_effect=httpx.ConnectError("connection refused"))
    for provider in ("ollama", "auto"):
        refused = _save(client, **{"llm.provider": provider, "llm.model": "llama3.2"})
        assert refused.status_code == 400
        assert _problem(refused.text) == (
            "llm.model: cannot check the model llama3.2: Ollama is not reachable at "
            "http://localhost:11434 - start it (`ollama serve`), correct the Ollama URL, "
            "or leave the model blank")
    assert not user_config_file().exists()
    # auto naming the bundled model needs no Ollama; a change that is not the model's
    # does not ask Ollama at all
    assert _save(client, **{"llm.model": "SmolLM2-135M-Instruct"}).status_code == 303
    token = _csrf(client, "/settings")  # the page's provider table asks Ollama too
    calls = respx.calls.call_count
    assert client.post("/settings", data={
        "csrf_token": token, "llm.provider": "auto", "citations.answer_mode": "auto",
        "llm.model": "SmolLM2-135M-Instruct", "research.max_model_calls": "5"}
        ).status_code == 303
    assert respx.calls.call_count == calls
    assert _saved()["research"] == {"max_model_calls": 5}


@respx.mock
def test_a_changed_ollama_url_checks_the_model_there(client: TestClient) -> None:
    respx.get(TAGS).mock(return_value=httpx.Response(200, json={"models": [
        {"name": "llama3.2:latest"}]}))
    other = respx.get("http://localhost:11500/api/tags").mock(
        return_value=httpx.Response(200, json={"models": [{"name": "phi4:latest"}]}))
    refused = _save(client, **{"llm.provider": "ollama", "llm.model": "llama3.2",
                               "llm.ollama_url": "http://localhost:11500"})
    assert other.called and "Ollama at http://localhost:11500 has no model llama3.2 (it " \
        "has phi4:latest)" in _problem(refused.text)


# ------------------------------------------------------------------- the keys


def test_engine_keys_have_fields_and_are_never_shown_back(client: TestClient) -> None:
    page = client.get("/settings").text
    for setting in ("engines.brave_api_key", "engines.tavily_api_key",
                    "engines.perplexity_api_key", "engines.semantic_scholar_api_key",
                    "engines.pubmed_api_key", "engines.elasticsearch_api_key"):
        assert f'type="password" name="{setting}" value=""' in page
        assert f'name="clear" value="{setting}"' in page
    assert re.search(r'id="state-engines-brave_api_key">not set<', page)
    assert _save(client, **{"engines.brave_api_key": BRAVE_KEY}).status_code == 303
    assert _saved() == {"engines": {"brave_api_key": BRAVE_KEY}}
    assert user_config_file().stat().st_mode & 0o077 == 0
    page = client.get("/settings?saved=1").text
    assert BRAVE_KEY not in page
    state = re.search(r'id="state-engines-brave_api_key">([^<]*)<', page)
    assert state is not None and state.group(1) == f"set (from {user_config_file()})"
    brave = re.search(r"<tr><td>brave</td><td>(yes|no)</td>", page)
    assert brave is not None and brave.group(1) == "yes"  # usable now, no restart
    # blank keeps it, "Remove" removes it
    assert _save(client, **{"engines.brave_api_key": ""}).status_code == 303
    assert _saved()["engines"]["brave_api_key"] == BRAVE_KEY
    assert _save(client, clear="engines.brave_api_key").status_code == 303
    assert not user_config_file().read_text(encoding="utf-8").strip()
    brave = re.search(r"<tr><td>brave</td><td>(yes|no)</td>", client.get("/settings").text)
    assert brave is not None and brave.group(1) == "no"


def test_a_key_from_the_environment_says_so(client: TestClient,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-from-env-5512")
    page = client.get("/settings").text
    assert "tvly-from-env-5512" not in page
    assert re.search(r'id="state-engines-tavily_api_key">set \(from TAVILY_API_KEY\)<', page)


def test_workers_keys_need_their_restart_said_beside_the_keys_only(
        make_settings: Any) -> None:
    plain = _client(make_settings(), FakeExecutor(make_settings())).get("/settings").text
    form = plain.split('<form method="post" action="/settings"')[1].split("</form>")[0]
    assert "restart" not in form  # no field of the form waits for a restart
    queued_settings: Settings = make_settings(**{"queue.url": "redis://localhost:6379/0"})
    queued = _client(queued_settings, FakeExecutor(queued_settings)).get("/settings").text
    keys = queued.split('<fieldset class="keys">')[1].split("</fieldset>")[0]
    assert "restart them after changing a key here" in keys
    assert queued.count("restart them") == 1
