"""The settings page's form: validated values written to the user's config file,
origins shown, the API key never shown back."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from deepcite.config import Settings, explain_settings
from deepcite.web.pages.settings import dump_toml, user_config_file, write_config
from tests.unit.test_web_pages import SECRET, FakeExecutor, _client, _csrf

TAGS = "http://localhost:11434/api/tags"


@pytest.fixture(autouse=True)
def ollama() -> Iterator[respx.MockRouter]:
    """The Ollama server the form's model is checked against (provider ``auto``): faked
    where deepcite's HTTP client meets the network, with the models these tests name."""
    with respx.mock(assert_all_called=False) as router:
        router.get(TAGS).mock(return_value=httpx.Response(200, json={"models": [
            {"name": "gpt-x:latest"}, {"name": "qwen2.5:3b"}, {"name": "llama3.2:latest"}]}))
        yield router


@pytest.fixture
def client(make_settings: Any) -> TestClient:
    settings: Settings = make_settings(**{"llm.api_key": SECRET})
    return _client(settings, FakeExecutor(settings))


def _post(client: TestClient, **fields: Any) -> Any:
    data = {"csrf_token": _csrf(client, "/settings"), "llm.provider": "auto",
            "citations.answer_mode": "auto", **fields}
    return client.post("/settings", data=data)


def test_page_shows_form_origins_path_and_tables(client: TestClient) -> None:
    page = client.get("/settings").text
    assert 'action="/settings"' in page and 'name="llm.model"' in page
    assert str(user_config_file()) in page
    assert "from default" in page
    assert 'type="password" name="llm.api_key" value=""' in page
    assert "<h2>Engines</h2>" in page and "duckduckgo" in page
    assert SECRET not in page and "<script" not in page


def test_save_writes_the_config_file(client: TestClient) -> None:
    response = _post(client, **{"llm.model": "gpt-x", "research.max_searches": "7",
                                "research.max_seconds": "90.5",
                                "citations.answer_mode": "grounded",
                                "search.engines": ["wikipedia"], "llm.api_key": "sk-new"})
    assert response.status_code == 303 and response.headers["location"] == "/settings?saved=1"
    data = tomllib.loads(user_config_file().read_text(encoding="utf-8"))
    # what was not touched (provider "auto", the default shown) is not written
    assert data["llm"] == {"model": "gpt-x", "api_key": "sk-new"}
    assert data["research"] == {"max_searches": 7, "max_seconds": 90.5}
    assert data["search"] == {"engines": ["wikipedia"]}
    assert data["citations"] == {"answer_mode": "grounded"}
    assert user_config_file().stat().st_mode & 0o077 == 0
    origins = {row.key: row.origin for row in explain_settings()}
    assert origins["llm.model"] == str(user_config_file())
    page = client.get("/settings?saved=1").text
    assert "New runs use it from now on" in page and "sk-new" not in page
    pending = re.findall(r"<code>([a-z_.]+)</code></td><td>[^<]*</td><td>[^<]*"
                         r"<span class=\"pending\">", page)
    # the server runs with what was saved (its data folder, given when it was made, is
    # one it reads only at start)
    assert pending == ["data_dir"]
    # blank removes a value again, the key is kept unless removed
    _post(client, **{"llm.model": "", "research.max_searches": ""})
    data = tomllib.loads(user_config_file().read_text(encoding="utf-8"))
    assert "model" not in data["llm"] and data["llm"]["api_key"] == "sk-new"
    assert "research" not in data
    _post(client, clear="llm.api_key")
    left = tomllib.loads(user_config_file().read_text(encoding="utf-8"))
    assert "api_key" not in left.get("llm", {})


def test_bad_values_are_one_line_each_and_kept(client: TestClient) -> None:
    response = _post(client, **{"research.max_tokens": "5", "research.max_searches": "many",
                                "llm.model": "<b>kept</b>", "llm.api_key": "sk-typed-secret"})
    assert response.status_code == 400
    assert "research.max_tokens" in response.text and "whole number" in response.text
    assert 'value="&lt;b&gt;kept&lt;/b&gt;"' in response.text
    assert "sk-typed-secret" not in response.text
    assert not user_config_file().exists()


def test_unreadable_file_is_not_overwritten(client: TestClient) -> None:
    path = user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[llm\nbroken", encoding="utf-8")
    response = _post(client, **{"llm.model": "x"})
    assert response.status_code == 400 and "not valid TOML" in response.text
    assert path.read_text(encoding="utf-8") == "[llm\nbroken"


def test_post_needs_csrf(client: TestClient) -> None:
    client.get("/settings")
    assert client.post("/settings", data={"llm.model": "x"}).status_code == 403
    assert not user_config_file().exists()


def test_toml_writer_round_trips(tmp_path: Any) -> None:
    data = {"top": 1, "llm": {"model": 'a "q" \\ é \x7f\n', "n": 2.5, "on": True},
            "engines": {"searxng": {"url": "http://x", "list": [1, 2]},
                        "odd key": {"x": {"inline": "y"}}}}
    assert tomllib.loads(dump_toml(data)) == data
    write_config(tmp_path / "c.toml", data)
    assert tomllib.loads((tmp_path / "c.toml").read_text(encoding="utf-8")) == data


def test_saving_writes_only_what_was_changed(client: TestClient) -> None:
    page = client.get("/settings").text
    shown = dict(re.findall(r'<input type="(?:text|url|number)" name="([a-z_.]+)" '
                            r'value="([^"]*)"', page))
    assert shown["llm.ollama_url"].startswith("http")  # a default, shown, not written
    # the whole form sent back as shown (provider and answer mode "auto", the defaults
    # the selects show), one value changed
    response = _post(client, **{**shown, "llm.model": "qwen2.5:3b"})
    assert response.status_code == 303
    data = tomllib.loads(user_config_file().read_text(encoding="utf-8"))
    assert data == {"llm": {"model": "qwen2.5:3b"}}
