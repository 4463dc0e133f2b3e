"""A run records the model that answered, by name and where it runs (issue 47, item 3):
the report and compare name it instead of the configured ``auto``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepcite.llm.client import ChatClient
from deepcite.llm.local import LlamaCppChatModel
from tests.fakes import ScriptedChatModel


def _label(model: Any) -> str:
    return ChatClient(model, context_size=4096, max_tokens=100).model_label


def test_the_in_process_model_is_named_by_its_file() -> None:
    model = LlamaCppChatModel(model_path=Path("/opt/models/SmolLM2-135M-Instruct.Q4_1.gguf"))
    assert _label(model) == "SmolLM2-135M-Instruct.Q4_1.gguf (in-process llama.cpp)"


def test_a_served_model_is_named_as_its_server_knows_it() -> None:
    class ChatOllama:  # the attribute LangChain's Ollama model keeps its name in
        model = "llama3.2"

    assert _label(ChatOllama()) == "llama3.2 (Ollama)"


def test_a_run_records_its_model(tmp_path: Path) -> None:
    from deepcite.config import load_settings
    from deepcite.research import Researcher
    from deepcite.types import SearchResult
    from tests.fakes import MemoryEngine

    settings = load_settings({"data_dir": str(tmp_path), "iterations": 1},
                             config_files=[], environ={})
    passage = SearchResult(title="Cache", url="https://ex.org/cache",
                           snippet="The cache keeps entries for 300 seconds.", engine="web")
    model = ScriptedChatModel(script={"questions": [""],
                                      "synthesis": ["Entries stay 300 seconds [1]."]})
    with Researcher(settings, model, [MemoryEngine([passage])]) as researcher:
        result = researcher.run("How long does the cache keep entries?")
    assert result.metrics.model == "ScriptedChatModel"
