"""A prompt too long for the server, or a reply cut at the token limit, is not the end
of a question: the client cuts the prompt to the window the server states and asks once
more, and asks once more with room for a cut-off reply.

The model is faked at its boundary: ``WindowedModel`` refuses prompts over its window
with the error text a real server sends, and stops replies at ``max_tokens`` with the
``finish_reason`` real servers report. Prompts are built by the real prompt builder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from deepcite.citations.answer import build_prompt
from deepcite.errors import ModelError
from deepcite.llm import ChatClient, model_context_size
from deepcite.llm.context_window import forget_windows
from deepcite.llm.overflow import CUT_NOTE, parse_overflow, shrink_prompt
from deepcite.types import Source

SERVER = "http://127.0.0.1:8080/v1"
LLAMA_CPP_PYTHON = (
    "Error code: 400 - {{'error': {{'message': \"This model's maximum context length is "
    "{window} tokens. However, you requested {total} tokens ({prompt} in the messages, "
    "{reply} in the completion). Please reduce the length of the messages or completion."
    "\", 'type': 'invalid_request_error', 'param': 'messages', "
    "'code': 'context_length_exceeded'}}}}"
)


@pytest.fixture(autouse=True)
def _fresh_windows() -> Iterator[None]:
    forget_windows()
    yield
    forget_windows()


class ServerError(Exception):
    """What an SDK raises for an HTTP 400/404 (its text is the server's body)."""


class WindowedModel(BaseChatModel):
    """A served model with a real window: 3 characters a token, replies cut at the limit."""

    window: int = 2048
    max_tokens: int = 400
    model_name: str = "local"
    openai_api_base: str = SERVER
    answer: str = "Paris is the capital of France [1]."
    error: str = LLAMA_CPP_PYTHON
    prompts: list[str] = Field(default_factory=list)
    limits: list[int] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "windowed-fake"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        limit = int(kwargs.get("max_tokens", self.max_tokens))
        prompt = "\n".join(str(m.content) for m in messages)
        self.prompts.append(str(messages[-1].content))
        self.limits.append(limit)
        tokens = len(prompt) // 3
        if tokens >= self.window:
            raise ServerError(self.error.format(window=self.window, total=tokens + limit,
                                                prompt=tokens, reply=limit))
        words = self.answer.split()
        cut = len(words) > limit
        message = AIMessage(
            content=" ".join(words[:limit]),
            usage_metadata={"input_tokens": tokens, "output_tokens": min(limit, len(words)),
                            "total_tokens": tokens + min(limit, len(words))},
            response_metadata={"finish_reason": "length" if cut else "stop"},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def sources(count: int = 8, words: int = 500) -> list[Source]:
    return [Source(number=n, title=f"Doc {n}", url=f"https://docs.example/{n}",
                   canonical_url=f"https://docs.example/{n}", engine="memory",
                   snippet=" ".join(f"fact{n}w{i}" for i in range(words)))
            for n in range(1, count + 1)]


QUESTION = "Which city is the capital of France?"


def big_prompt(client: ChatClient) -> str:
    return build_prompt(QUESTION, sources(), client.prompt_budget_chars)


# ------------------------------------------------------------------ error shapes


@pytest.mark.parametrize(("message", "window", "prompt"), [
    (LLAMA_CPP_PYTHON.format(window=2048, total=2600, prompt=2200, reply=400), 2048, 2200),
    ("Error code: 400 - {'error': {'message': \"This model's maximum context length is "
     "128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the "
     "length of the messages.\", 'code': 'context_length_exceeded'}}", 128000, 130512),
    ("'max_tokens' or 'max_completion_tokens' is too large: 400. This model's maximum "
     "context length is 4096 tokens and your request has 3900 input tokens "
     "(400 > 4096 - 3900).", 4096, 3900),
    ('Error code: 400 - {"error": {"code": 400, "message": "the request exceeds the '
     'available context size, try increasing it", "type": "exceed_context_size_error", '
     '"n_prompt_tokens": 2301, "n_ctx": 2048}}', 2048, 2301),
    ("the request exceeds the available context size, try increasing it", None, None),
    ("Requested tokens (2100) exceed context window of 2048", 2048, 2100),
    ("Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', "
     "'message': 'prompt is too long: 210317 tokens > 200000 maximum'}}", 200000, 210317),
    ("input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, "
     "decrease input length or `max_tokens` and try again", 200000, 198000),
    ("the input length exceeds the context length (status code: 400)", None, None),
])
def test_context_errors_of_each_server_are_read(message: str, window: int | None,
                                                 prompt: int | None) -> None:
    overflow = parse_overflow(message)
    assert overflow is not None
    assert (overflow.window, overflow.prompt_tokens) == (window, prompt)


@pytest.mark.parametrize("message", [
    "Error code: 401 - invalid api key", "Connection refused", "rate limit: 60 tokens/min",
    "model 'x' not found, try pulling it first",
])
def test_other_errors_are_not_overflows(message: str) -> None:
    assert parse_overflow(message) is None


# --------------------------------------------------------------- shrinking prompts


def test_shrunk_prompt_keeps_best_sources_whole_and_the_question() -> None:
    prompt = build_prompt(QUESTION, sources(), 60_000)
    cut = shrink_prompt(prompt, 5000)
    assert len(cut) <= 5000
    assert cut.endswith(f"Question: {QUESTION}\n\nAnswer, citing sources like [1]:")
    assert cut.startswith("Sources:")
    assert CUT_NOTE in cut
    assert cut.count("<source") == cut.count("</source>") >= 1
    assert 'id="1"' in cut
    assert 'id="8"' not in cut  # the last (weakest) sources go first


def test_shrinking_plain_text_keeps_head_and_last_paragraph() -> None:
    text = "Intro line. " + "filler words " * 2000 + "\n\nNow answer: what is X?"
    cut = shrink_prompt(text, 1000)
    assert len(cut) <= 1000
    assert cut.startswith("Intro line.")
    assert cut.endswith("Now answer: what is X?")


# -------------------------------------------------------------- the overflow retry


def test_too_long_prompt_is_cut_to_the_stated_window_and_answered() -> None:
    model = WindowedModel(window=2048)
    client = ChatClient(model, context_size=8192, max_tokens=400)
    answer = client.complete("synthesis", "Answer from the sources.", big_prompt(client))
    assert answer == "Paris is the capital of France [1]."
    assert len(model.prompts) == 2
    retried = model.prompts[1]
    assert len(retried) // 3 < 2048 - 400
    assert retried.endswith("Answer, citing sources like [1]:")
    assert QUESTION in retried
    assert retried.count("<source") == retried.count("</source>")
    # Later prompts are planned for the window the server stated, by this client and
    # by any client built for the same server and model.
    assert client.context_size == 2048
    assert client.complete("synthesis", "s", big_prompt(client)).startswith("Paris")
    assert len(model.prompts) == 3
    assert model_context_size(WindowedModel(), None) == 2048
    assert model_context_size(WindowedModel(), 1024) == 1024  # the setting still wins
    assert client.usage.calls == 2  # refused prompts cost no tokens and are not calls


def test_window_without_numbers_still_retries_smaller() -> None:
    model = WindowedModel(window=3000, error="the input length exceeds the context length")
    client = ChatClient(model, context_size=4096, max_tokens=400)
    user = "Context: " + "word " * 2200 + "\n\nQuestion: why?"
    assert client.complete("answer", "", user).startswith("Paris")
    assert len(model.prompts) == 2
    assert model.prompts[1].endswith("Question: why?")


def test_second_refusal_is_one_line_naming_the_server() -> None:
    model = WindowedModel(window=2048, error="This model's maximum context length is 8192 "
                          "tokens ({prompt} in the messages)")
    client = ChatClient(model, context_size=8192, max_tokens=400)
    with pytest.raises(ModelError) as info:
        client.complete("synthesis", "s", big_prompt(client))
    message = str(info.value)
    assert "127.0.0.1:8080" in message
    assert "llm.context_size" in message
    assert "\n" not in message
    assert len(model.prompts) == 2


def test_window_too_small_for_any_prompt_says_so() -> None:
    model = WindowedModel(window=600)
    client = ChatClient(model, context_size=8192, max_tokens=400)
    with pytest.raises(ModelError, match=r"127\.0\.0\.1:8080 has room for only 600 tokens"):
        client.complete("synthesis", "S" * 1500, big_prompt(client))


def test_other_failures_name_the_server() -> None:
    model = WindowedModel(error="Error code: 401 - invalid api key", window=0)
    with pytest.raises(ModelError, match=r"failed at 127\.0\.0\.1:8080: ServerError: .*401"):
        ChatClient(model, context_size=4096, max_tokens=400).complete("p", "", "hi")


class ChatOllamaFake(WindowedModel):
    """Shaped like ChatOllama: ``model`` and ``base_url``, 404 for a model not pulled."""

    model: str = "qwen3:4b"
    base_url: str = "http://localhost:11434"
    openai_api_base: str = ""
    model_name: str = ""


def test_ollama_model_not_pulled_says_run_ollama_pull() -> None:
    model = ChatOllamaFake(window=0, error="model \"qwen3:4b\" not found, try pulling it "
                           "first (status code: 404)")
    with pytest.raises(ModelError) as info:
        ChatClient(model, context_size=4096, max_tokens=400).complete("p", "", "hi")
    assert str(info.value) == ("Ollama at localhost:11434 has no model qwen3:4b - "
                               "run `ollama pull qwen3:4b`")


# ------------------------------------------------------------ replies cut at the limit


def test_a_reply_cut_while_thinking_is_asked_again_with_more_room() -> None:
    answer = "<think> " + " ".join(f"step{i}" for i in range(500)) + " </think> Paris [1]."
    model = WindowedModel(window=8192, answer=answer)
    client = ChatClient(model, context_size=8192, max_tokens=400)
    reply = client.complete("synthesis", "s", "short question?")
    assert reply == "Paris [1]."
    assert model.limits == [400, 800]
    assert client.cut_replies == 0


def test_a_cut_reply_that_is_mostly_answer_is_kept_without_a_second_call() -> None:
    answer = " ".join(f"word{i}" for i in range(600)) + " [1]."
    model = WindowedModel(window=8192, answer=answer)
    client = ChatClient(model, context_size=8192, max_tokens=400)
    reply = client.complete("synthesis", "s", "short question?")
    assert reply.split()[-1] == "word399"
    assert model.limits == [400]
    assert client.cut_replies == 1


def test_cut_reply_is_kept_and_counted_when_the_window_has_no_room() -> None:
    answer = " ".join(f"word{i}" for i in range(600))
    model = WindowedModel(window=2048, answer=answer)
    client = ChatClient(model, context_size=2048, max_tokens=400)
    reply = client.complete("synthesis", "s", "x " * 2400)  # ~1600 tokens of prompt
    assert reply.split()[-1] == "word399"
    assert model.limits == [400]
    assert client.cut_replies == 1


def test_a_looping_reply_is_not_asked_again() -> None:
    model = WindowedModel(window=8192,
                          answer="<think> " + "the same thought again and again. " * 200)
    client = ChatClient(model, context_size=8192, max_tokens=400)
    client.complete("synthesis", "s", "q?")
    assert model.limits == [400]
    assert client.cut_replies == 1


def test_short_capped_reply_is_not_asked_again() -> None:
    model = WindowedModel(window=8192, answer=" ".join(f"q{i}" for i in range(100)))
    client = ChatClient(model, context_size=8192, max_tokens=400)
    reply = client.complete("questions", "s", "list queries", max_tokens=40)
    assert model.limits == [40]
    assert re.fullmatch(r"(q\d+ ){39}q39", reply)


def test_a_run_whose_answer_was_cut_says_so(make_settings: Any) -> None:
    from deepcite.research import Researcher
    from tests.fakes import MemoryEngine, passage

    answer = " ".join(f"Paris word{i} [1]." for i in range(300))  # longer than any room
    model = WindowedModel(window=2048, answer=answer)
    settings = make_settings(**{"llm.context_size": 2048, "llm.max_tokens": 400,
                                "citations.answer_mode": "abstractive",
                                "research.iterations": 1,
                                "research.questions_per_iteration": 0})
    engine = MemoryEngine([passage("france", "Paris is the capital of France. " * 30)])
    with Researcher(settings, model, [engine]) as researcher:
        result = researcher.run(QUESTION)
    cut = [w.message for w in result.warnings if w.code == "reply_cut"]
    assert cut and "raise llm.max_tokens" in cut[0]
