"""Settings that are URLs or names are refused with the same rule wherever they are
written: the config file, an override, and the admin settings page.

A base URL is a service deepcite connects to (or, for ``watches.base_url``, links to),
so only ``http``/``https`` with a host; a collection name becomes a file name under the
data folder, so never a path - the rule of
:func:`deepcite.collections.collection.validate_name`, with its words.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.collections.collection import validate_name
from deepcite.config import Settings, load_settings
from deepcite.errors import CollectionError, ConfigError
from deepcite.web.pages.settings import user_config_file
from tests.unit.test_web_pages import FakeExecutor, _client, _csrf

URL_SETTINGS = ("llm.base_url", "llm.ollama_url", "engines.searxng_url",
                "engines.elasticsearch_url", "watches.base_url")
BAD_URLS = ("file:///etc/passwd", "gopher://127.0.0.1:70/_x", "javascript:alert(1)",
            "ftp://files.example/", "//example.org/v1", "example.org", "http://",
            "http://[::1", "FILE:///etc/shadow", " dict://x:11211/")
GOOD_URLS = ("http://localhost:11434", "https://api.example.org/v1",
             "HTTPS://Research.Example.org", "http://10.0.0.5:8080/")
BAD_NAMES = ("../etc", "a/b", "..", ".hidden", "x\\y", "/abs", "-dash", "", "a" * 65,
             "name with space")


def _write(tmp_path: Path, key: str, value: Any) -> Path:
    section, name = key.split(".")
    path = tmp_path / "deepcite.toml"
    shown = repr(value).replace("'", '"') if isinstance(value, list) else f'"{value}"'
    path.write_text(f"[{section}]\n{name} = {shown}\n".replace("\\", "\\\\"),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("key", URL_SETTINGS)
@pytest.mark.parametrize("url", BAD_URLS)
def test_url_settings_take_only_http_and_https(tmp_path: Path, key: str, url: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(key)) as caught:
        load_settings({key: url}, config_files=[], environ={})
    message = str(caught.value)
    assert "\n" not in message and "http://" in message
    with pytest.raises(ConfigError, match=re.escape(key)):
        load_settings(config_files=[_write(tmp_path, key, url)], environ={})


@pytest.mark.parametrize("key", URL_SETTINGS)
def test_url_settings_keep_web_addresses(key: str) -> None:
    for url in GOOD_URLS:
        settings = load_settings({key: url}, config_files=[], environ={})
        section, name = key.split(".")
        assert getattr(getattr(settings, section), name) == url


@pytest.mark.parametrize("name", BAD_NAMES)
def test_collection_settings_refuse_what_requests_refuse_in_its_words(tmp_path: Path,
                                                                      name: str) -> None:
    with pytest.raises(CollectionError) as refused:
        validate_name(name)
    with pytest.raises(ConfigError) as caught:
        load_settings({"search.collections": ["notes", name]}, config_files=[], environ={})
    assert str(refused.value) in str(caught.value)
    with pytest.raises(ConfigError, match=r"search\.collections"):
        load_settings(config_files=[_write(tmp_path, "search.collections", [name])],
                      environ={})


def test_good_collection_names_and_index_names_still_load() -> None:
    settings = load_settings({"search.collections": ["notes", "Team_2024.v2"],
                              "engines.elasticsearch_index": "docs-2024.v1"},
                             config_files=[], environ={})
    assert settings.search.collections == ("notes", "Team_2024.v2")


@pytest.mark.parametrize("index", ["..", ".", "../_security", "a/b", "Docs", "-x", "_all",
                                   "a b", "x?y", "a,b"])
def test_the_elasticsearch_index_is_a_name_not_a_path(index: str) -> None:
    with pytest.raises(ConfigError, match=r"engines\.elasticsearch_index"):
        load_settings({"engines.elasticsearch_index": index}, config_files=[], environ={})


# ------------------------------------------------------------- the settings page


@pytest.fixture
def client(make_settings: Any) -> TestClient:
    settings: Settings = make_settings()
    return _client(settings, FakeExecutor(settings))


def _post(client: TestClient, **fields: Any) -> Any:
    data = {"csrf_token": _csrf(client, "/settings"), "llm.provider": "auto",
            "citations.answer_mode": "auto", **fields}
    return client.post("/settings", data=data)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "gopher://127.0.0.1:70/_x",
                                 "javascript:alert(1)"])
def test_the_settings_page_refuses_a_base_url_that_is_not_http(client: TestClient,
                                                               url: str) -> None:
    reply = _post(client, **{"llm.base_url": url})
    assert reply.status_code == 400
    assert "llm.base_url" in reply.text and "not an http(s) URL" in reply.text
    assert not user_config_file().exists()


@pytest.mark.parametrize("name", ["../../etc", "a/b", "..", "x\\y"])
def test_the_settings_page_refuses_a_path_as_a_collection(client: TestClient,
                                                          name: str) -> None:
    reply = _post(client, **{"search.collections": [name]})
    assert reply.status_code == 400
    assert "search.collections" in reply.text and "Invalid collection name" in reply.text
    assert not user_config_file().exists()


def test_the_settings_page_saves_good_values(client: TestClient) -> None:
    reply = _post(client, **{"llm.base_url": "https://llm.example.org/v1",
                             "search.collections": ["notes"]})
    assert reply.status_code == 303
    data = tomllib.loads(user_config_file().read_text(encoding="utf-8"))
    assert data["llm"]["base_url"] == "https://llm.example.org/v1"
    assert data["search"]["collections"] == ["notes"]
