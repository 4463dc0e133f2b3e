"""deepcite asks the model server how large its context window is, instead of assuming.

The servers are faked at the HTTP boundary (respx, under the egress transport), with the
JSON each kind of server really answers; the chat SDKs are stand-in modules that record
what the provider builds them with.
"""

from __future__ import annotations

import logging
import sys
import types
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from deepcite.config import LLMSettings, SecuritySettings, Settings
from deepcite.errors import ModelError
from deepcite.llm import get_chat_model, model_context_size
from deepcite.llm.client import REMOTE_CONTEXT_TOKENS
from deepcite.llm.context_window import (
    forget_windows,
    known_window,
    ollama_window,
    openai_compatible_window,
)
from deepcite.llm.providers import prompt_need_tokens

OLLAMA = "http://localhost:11434"
SERVER = "http://127.0.0.1:8080"


@pytest.fixture(autouse=True)
def _fresh_windows() -> Iterator[None]:
    forget_windows()
    yield
    forget_windows()


def settings(**llm: Any) -> Settings:
    return Settings(llm=LLMSettings(**llm))


class ServedFake(GenericFakeChatModel):
    """A chat model with the attributes ChatOpenAI / ChatOllama carry."""

    model_name: str | None = None
    openai_api_base: str | None = None
    num_ctx: int | None = None


def fake_sdk(monkeypatch: pytest.MonkeyPatch, module: str, cls: str) -> list[dict[str, Any]]:
    created: list[dict[str, Any]] = []

    class Factory:  # a class, as the SDK's is: providers may subclass it
        def __new__(cls, **kwargs: Any) -> ServedFake:  # type: ignore[misc]
            created.append(kwargs)
            return ServedFake(messages=iter(["ok"]), model_name=kwargs.get("model"),
                              openai_api_base=kwargs.get("base_url"),
                              num_ctx=kwargs.get("num_ctx"))

    monkeypatch.setitem(sys.modules, module, types.SimpleNamespace(**{cls: Factory}))
    return created


# ------------------------------------------------------------------------------ ollama


@respx.mock
def test_ollama_window_from_model_info_of_its_architecture() -> None:
    respx.post(f"{OLLAMA}/api/show").mock(return_value=httpx.Response(200, json={
        "parameters": 'stop "<|eot_id|>"',
        "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768,
                       "qwen2.embedding_length": 896},
    }))
    assert ollama_window(OLLAMA, "qwen2.5:0.5b") == 32768


@respx.mock
def test_ollama_modelfile_num_ctx_beats_the_trained_window() -> None:
    respx.post(f"{OLLAMA}/api/show").mock(return_value=httpx.Response(200, json={
        "parameters": "num_ctx                        4096\ntemperature 0.7",
        "model_info": {"general.architecture": "llama", "llama.context_length": 131072},
    }))
    assert ollama_window(OLLAMA, "my-llama") == 4096


@respx.mock
def test_ollama_sends_num_ctx_sized_to_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    created = fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    show = respx.post(f"{OLLAMA}/api/show").mock(side_effect=[
        httpx.Response(200, json={"model_info": {"general.architecture": "gemma3",
                                                 "gemma3.context_length": 2048}}),
        httpx.Response(200, json={"model_info": {"general.architecture": "llama",
                                                 "llama.context_length": 131072}}),
    ])
    small = get_chat_model(settings(provider="ollama", model="tiny"))
    assert created[-1]["num_ctx"] == 2048
    assert model_context_size(small, None) == 2048
    # A 128k model gets what deepcite's largest prompt needs, not 128k of KV cache.
    get_chat_model(settings(provider="ollama", model="big"))
    need = prompt_need_tokens(settings())
    assert created[-1]["num_ctx"] == need
    assert 8192 < need < 131072
    assert show.call_count == 2


@respx.mock
def test_ollama_setting_wins_without_asking(monkeypatch: pytest.MonkeyPatch) -> None:
    created = fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    show = respx.post(f"{OLLAMA}/api/show").mock(return_value=httpx.Response(200, json={}))
    get_chat_model(settings(provider="ollama", model="tiny", context_size=6000))
    assert created[-1]["num_ctx"] == 6000
    assert not show.called


@respx.mock
def test_ollama_model_not_pulled_says_how_to_pull(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    respx.post(f"{OLLAMA}/api/show").mock(
        return_value=httpx.Response(404, json={"error": "model 'qwen3:4b' not found"}))
    with pytest.raises(ModelError) as info:
        get_chat_model(settings(provider="ollama", model="qwen3:4b"))
    assert str(info.value) == ("Ollama at localhost:11434 has no model qwen3:4b - "
                               "run `ollama pull qwen3:4b`")


@respx.mock
def test_ollama_unknown_window_keeps_the_old_default(monkeypatch: pytest.MonkeyPatch) -> None:
    created = fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    respx.post(f"{OLLAMA}/api/show").mock(return_value=httpx.Response(500, text="oops"))
    get_chat_model(settings(provider="ollama", model="tiny"))
    assert created[-1]["num_ctx"] == REMOTE_CONTEXT_TOKENS


# ------------------------------------------------------------------- openai-compatible


@respx.mock
def test_vllm_max_model_len() -> None:
    respx.get(f"{SERVER}/v1/models").mock(return_value=httpx.Response(200, json={
        "object": "list",
        "data": [{"id": "other", "max_model_len": 32768},
                 {"id": "Qwen/Qwen2.5-7B", "object": "model", "max_model_len": 16384}],
    }))
    assert openai_compatible_window(f"{SERVER}/v1", "Qwen/Qwen2.5-7B") == 16384


@respx.mock
def test_llama_cpp_server_props_beat_the_trained_window() -> None:
    respx.get(f"{SERVER}/v1/models").mock(return_value=httpx.Response(200, json={
        "object": "list",
        "data": [{"id": "model.gguf", "meta": {"n_ctx_train": 131072, "n_vocab": 32000}}],
    }))
    respx.get(f"{SERVER}/props").mock(return_value=httpx.Response(200, json={
        "default_generation_settings": {"n_ctx": 2048, "temperature": 0.8},
        "total_slots": 1,
    }))
    assert openai_compatible_window(f"{SERVER}/v1", "anything") == 2048


@respx.mock
def test_lm_studio_loaded_context_length() -> None:
    respx.get(f"{SERVER}/v1/models").mock(return_value=httpx.Response(200, json={
        "data": [{"id": "qwen2.5-7b-instruct", "object": "model", "owned_by": "organization"},
                 {"id": "text-embedding-nomic", "object": "model"}],
    }))
    respx.get(f"{SERVER}/props").mock(return_value=httpx.Response(404))
    respx.get(f"{SERVER}/api/v0/models/qwen2.5-7b-instruct").mock(
        return_value=httpx.Response(200, json={
            "id": "qwen2.5-7b-instruct", "state": "loaded", "max_context_length": 32768,
            "loaded_context_length": 4096}))
    assert openai_compatible_window(f"{SERVER}/v1", "qwen2.5-7b-instruct") == 4096


@respx.mock
def test_context_length_field_of_other_servers() -> None:
    respx.get(f"{SERVER}/v1/models").mock(return_value=httpx.Response(200, json={
        "data": [{"id": "m", "context_length": 65536}]}))
    assert openai_compatible_window(f"{SERVER}/v1", "m") == 65536


@respx.mock
def test_asked_once_per_server_and_model() -> None:
    models = respx.get(f"{SERVER}/v1/models").mock(return_value=httpx.Response(200, json={
        "data": [{"id": "a", "max_model_len": 4096}, {"id": "b", "max_model_len": 8000}]}))
    assert openai_compatible_window(f"{SERVER}/v1", "a") == 4096
    assert openai_compatible_window(f"{SERVER}/v1/", "a") == 4096
    assert openai_compatible_window(f"{SERVER}/v1", "b") == 8000
    assert models.call_count == 2


@respx.mock
def test_a_dead_server_gives_the_default_and_one_debug_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    respx.get(url__startswith=SERVER).mock(side_effect=httpx.ConnectError("refused"))
    with caplog.at_level(logging.DEBUG, logger="deepcite.llm.context_window"):
        assert openai_compatible_window(f"{SERVER}/v1", "m") is None
        assert openai_compatible_window(f"{SERVER}/v1", "m") is None
    lines = [r for r in caplog.records if "did not say its context window" in r.message]
    assert len(lines) == 1
    assert all(r.levelno == logging.DEBUG for r in caplog.records)


@respx.mock
def test_probe_obeys_offline_mode() -> None:
    route = respx.get(url__startswith="https://llm.example.com").mock(
        return_value=httpx.Response(200, json={"data": [{"id": "m", "max_model_len": 4096}]}))
    offline = Settings(security=SecuritySettings(offline=True))
    assert openai_compatible_window("https://llm.example.com/v1", "m", offline) is None
    assert not route.called


@respx.mock
def test_built_openai_model_plans_for_the_served_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_sdk(monkeypatch, "langchain_openai", "ChatOpenAI")
    models = respx.get(f"{SERVER}/v1/models").mock(return_value=httpx.Response(200, json={
        "data": [{"id": "local", "max_model_len": 2048}]}))
    model = get_chat_model(settings(provider="openai", model="local", base_url=f"{SERVER}/v1"))
    assert model_context_size(model, None) == 2048
    assert model_context_size(model, 4096) == 4096  # the setting still wins
    pinned = get_chat_model(settings(provider="openai", model="local",
                                     base_url=f"{SERVER}/v1", context_size=3000))
    assert model_context_size(pinned, 3000) == 3000
    assert models.call_count == 1


# -------------------------------------------------------------------------- hosted


@pytest.mark.parametrize(("name", "window"), [
    ("gpt-4o-mini", 128_000), ("gpt-4o-2024-08-06", 128_000), ("gpt-4.1-nano", 1_047_576),
    ("gpt-4", 8_192), ("o3-mini", 200_000), ("o1-mini", 128_000),
    ("openai/gpt-4o", 128_000), ("claude-3-5-sonnet-latest", 200_000),
    ("claude-sonnet-4-5", 200_000), ("claude-opus-4-1-20250805", 200_000),
    ("mistral-small", None), ("", None),
])
def test_known_windows_of_hosted_models(name: str, window: int | None) -> None:
    assert known_window(name) == window


def test_hosted_model_without_a_server_answer_uses_the_table() -> None:
    hosted = ServedFake(messages=iter([]), model_name="gpt-4o-mini")
    assert model_context_size(hosted, None) == 128_000
    unknown = ServedFake(messages=iter([]), model_name="some-local-model")
    assert model_context_size(unknown, None) == REMOTE_CONTEXT_TOKENS
