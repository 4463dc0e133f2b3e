"""Unit tests for deepcite.llm: parsing, ChatClient accounting, the provider registry."""

from __future__ import annotations

import sys
import threading
import types
from pathlib import Path
from typing import Any, ClassVar

import httpx
import numpy as np
import pytest
import respx
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from deepcite.config import LLMSettings, Settings
from deepcite.errors import ConfigError, ModelError
from deepcite.llm import (
    PROVIDERS,
    ChatClient,
    LlamaCppChatModel,
    Usage,
    describe_providers,
    get_chat_model,
    get_provider,
    parse_json_lenient,
    parse_list,
    prompt_budget_chars,
    resolve_provider,
    strip_thinking,
)
from deepcite.llm import local as local_module
from deepcite.types import ModelCall

OLLAMA_TAGS = "http://localhost:11434/api/tags"


def llm_settings(**llm: Any) -> Settings:
    return Settings(llm=LLMSettings(**llm))


# ----------------------------------------------------------------------------- parsing


class TestStripThinking:
    def test_removes_closed_block(self) -> None:
        assert strip_thinking("<think>plan the answer</think>\nParis.") == "Paris."

    def test_removes_several_blocks_case_insensitive(self) -> None:
        assert strip_thinking("<THINK>a</THINK>one <think>b</think>two") == "one two"

    def test_unclosed_leading_think_gives_empty(self) -> None:
        assert strip_thinking("<think>still reasoning when the tokens ran out") == ""

    def test_stray_closing_tag_keeps_text_after(self) -> None:
        assert strip_thinking("reasoning whose tag was in the template</think>Answer") == "Answer"

    def test_plain_text_untouched_but_stripped(self) -> None:
        assert strip_thinking("  just text \n") == "just text"
        assert strip_thinking("") == ""


class TestParseJsonLenient:
    def test_fenced_json(self) -> None:
        assert parse_json_lenient('```json\n{"queries": ["a", "b"]}\n```') == {
            "queries": ["a", "b"]
        }

    def test_broken_json_is_repaired(self) -> None:
        assert parse_json_lenient('["a", "b",') == ["a", "b"]
        assert parse_json_lenient('{"k": "v",}') == {"k": "v"}

    def test_after_think_block(self) -> None:
        assert parse_json_lenient('<think>{"no": 1}</think>{"yes": 2}') == {"yes": 2}

    @pytest.mark.parametrize("text", ["", "   ", "no json here at all", "<think>x</think>"])
    def test_nothing_readable_gives_none(self, text: str) -> None:
        assert parse_json_lenient(text) is None


class TestParseList:
    def test_json_array(self) -> None:
        assert parse_list('["alpha", "beta"]', limit=5) == ["alpha", "beta"]

    def test_json_object_with_list_in_fence_after_preamble(self) -> None:
        text = 'Here you go:\n```json\n{"queries": ["q one", "q two", "q three"]}\n```'
        assert parse_list(text, limit=2) == ["q one", "q two"]

    def test_broken_json_array(self) -> None:
        assert parse_list('["first query", "second query', limit=5) == [
            "first query",
            "second query",
        ]

    def test_json_array_of_objects(self) -> None:
        assert parse_list('[{"query": "a b"}, {"query": "c d"}]', limit=5) == ["a b", "c d"]

    def test_numbered_and_bulleted_lines_with_preamble(self) -> None:
        text = (
            "Here are the search queries:\n"
            "1. **History of the printing press**\n"
            '2) "Gutenberg movable type",\n'
            "- Q: printing press impact on literacy\n"
            "* Query: Gutenberg Bible date.\n"
        )
        assert parse_list(text, limit=10) == [
            "History of the printing press",
            "Gutenberg movable type",
            "printing press impact on literacy",
            "Gutenberg Bible date.",
        ]

    def test_prose_preamble_without_colon_dropped_when_items_are_marked(self) -> None:
        text = "Sure, these should help.\nQuery 1: alpha\nQuery 2: beta\nHope that helps"
        assert parse_list(text, limit=5) == ["alpha", "beta"]

    def test_inner_quotes_kept(self) -> None:
        assert parse_list("- reviews of the 'Matrix'\n- \"quoted\",", limit=5) == [
            "reviews of the 'Matrix'",
            "quoted",
        ]

    def test_inline_json_after_colon(self) -> None:
        assert parse_list('Queries: ["a b", "c d"]', limit=5) == ["a b", "c d"]

    def test_brackets_inside_list_items_are_not_json(self) -> None:
        assert parse_list('- a ["quoted"] thing\n- b', limit=5) == ['a ["quoted"] thing', "b"]

    def test_bracket_numbered_lines_are_not_json(self) -> None:
        assert parse_list("[1] first thing\n[2] second thing", limit=5) == [
            "first thing",
            "second thing",
        ]

    def test_dedupes_case_insensitively_keeping_first(self) -> None:
        assert parse_list("- Solar power\n- solar POWER\n- Wind", limit=5) == [
            "Solar power",
            "Wind",
        ]

    def test_drops_overlong_and_empty_lines(self) -> None:
        text = "- " + "x" * 301 + "\n-   \n- fine"
        assert parse_list(text, limit=5) == ["fine"]

    def test_think_block_ignored(self) -> None:
        assert parse_list("<think>- not this</think>\n- this", limit=5) == ["this"]

    @pytest.mark.parametrize("text", ["", "   \n  ", "<think>unfinished", "```\n```", "[]", "{}"])
    def test_garbage_gives_empty_list(self, text: str) -> None:
        assert parse_list(text, limit=5) == []

    def test_limit_zero(self) -> None:
        assert parse_list("- a\n- b", limit=0) == []

    def test_never_raises_on_odd_input(self) -> None:
        for text in ['{"a": [1, {"b": null}]', "[[[[", "```json", "\x00\x01", ": : :", "}{"]:
            assert isinstance(parse_list(text, limit=3), list)


# ------------------------------------------------------------------------- ChatClient


class PurposeFake(BaseChatModel):
    """Answers by the ``deepcite:<purpose>`` tag, as the research tests' fakes do."""

    replies: dict[str, Any]
    usage: dict[str, int] | None = None
    seen_tags: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "purpose-fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tags = run_manager.tags if run_manager else []
        self.seen_tags.extend(tags)
        purpose = next(t.split(":", 1)[1] for t in tags if t.startswith("deepcite:"))
        reply = self.replies[purpose]
        if isinstance(reply, Exception):
            raise reply
        message = AIMessage(content=reply)
        if self.usage is not None:
            message = AIMessage(
                content=reply,
                usage_metadata={
                    "input_tokens": self.usage["in"],
                    "output_tokens": self.usage["out"],
                    "total_tokens": self.usage["in"] + self.usage["out"],
                },
            )
        return ChatResult(generations=[ChatGeneration(message=message)])


def make_client(model: BaseChatModel, **kw: Any) -> ChatClient:
    return ChatClient(model, context_size=4096, max_tokens=400, **kw)


class TestChatClient:
    def test_reply_by_purpose_tag_with_reported_usage(self) -> None:
        events: list[ModelCall] = []
        model = PurposeFake(
            replies={"questions": "  <think>hm</think> - a\n- b  "},
            usage={"in": 120, "out": 7},
            seen_tags=[],
        )
        client = make_client(model, on_call=events.append)
        assert client.complete("questions", "sys", "user") == "- a\n- b"
        assert "deepcite:questions" in model.seen_tags
        assert client.usage.calls == 1
        assert (client.usage.prompt_tokens, client.usage.completion_tokens) == (120, 7)
        assert len(events) == 1
        assert events[0].purpose == "questions"
        assert (events[0].prompt_tokens, events[0].completion_tokens) == (120, 7)
        assert events[0].seconds >= 0

    def test_estimates_tokens_without_usage_metadata(self) -> None:
        model = GenericFakeChatModel(messages=iter(["x" * 40]))
        client = make_client(model)
        client.complete("synthesis", "s" * 8, "u" * 12)  # 20 prompt characters
        assert client.usage == Usage(
            calls=1, prompt_tokens=5, completion_tokens=10, seconds=client.usage.seconds
        )
        assert client.usage.total_tokens == 15

    def test_usage_accumulates_across_calls_and_threads(self) -> None:
        model = PurposeFake(replies={"p": "ok"}, usage={"in": 3, "out": 2}, seen_tags=[])
        client = make_client(model)
        threads = [
            threading.Thread(target=lambda: [client.complete("p", "", "hi") for _ in range(5)])
            for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert client.usage.calls == 20
        assert client.usage.prompt_tokens == 60
        assert client.usage.completion_tokens == 40

    def test_list_content_blocks_are_joined(self) -> None:
        blocks = [
            {"type": "thinking", "thinking": "hidden"},
            {"type": "text", "text": "Hello "},
            {"type": "text", "text": "world"},
        ]
        model = GenericFakeChatModel(messages=iter([AIMessage(content=blocks)]))  # type: ignore[arg-type]
        assert make_client(model).complete("answer", "s", "u") == "Hello world"

    def test_provider_error_becomes_model_error_with_cause(self) -> None:
        boom = ConnectionError("server went away\nwith a second line")
        model = PurposeFake(replies={"synthesis": boom}, seen_tags=[])
        client = make_client(model)
        with pytest.raises(ModelError) as info:
            client.complete("synthesis", "s", "u")
        message = str(info.value)
        assert "PurposeFake" in message
        assert "ConnectionError" in message
        assert "server went away with a second line" in message
        assert "\n" not in message
        assert info.value.__cause__ is boom
        assert client.usage.calls == 0

    def test_prompt_budget(self) -> None:
        assert prompt_budget_chars(4096, 400) == (4096 - 400 - 64) * 3
        assert prompt_budget_chars(512, 500) == 0
        client = make_client(GenericFakeChatModel(messages=iter([])))
        assert client.prompt_budget_chars == (4096 - 400 - 64) * 3
        text = "word " * 10_000
        cut = client.fit_prompt_budget(text, reserved_chars=1000)
        assert len(cut) <= client.prompt_budget_chars - 1000
        assert cut.endswith("word")
        assert client.fit_prompt_budget("short") == "short"


# ----------------------------------------------------------------------- local model


class FakeLlama:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        return {
            "choices": [
                {"message": {"role": "assistant", "content": "Paris"}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 21, "completion_tokens": 2, "total_tokens": 23},
        }


def test_llama_chat_model_maps_roles_and_sets_usage(monkeypatch: pytest.MonkeyPatch) -> None:
    path = Path("/nowhere/fake.gguf")
    fake = FakeLlama()
    key = (str(path.resolve()), 2048, 2)
    monkeypatch.setitem(local_module._CACHE, key, local_module._Loaded(fake))
    model = LlamaCppChatModel(model_path=path, n_ctx=2048, n_threads=2, max_tokens=32)
    client = make_client(model)
    assert client.complete("answer", "Be brief.", "Capital of France?") == "Paris"
    assert fake.calls[0]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
    assert fake.calls[0]["max_tokens"] == 32
    assert (client.usage.prompt_tokens, client.usage.completion_tokens) == (21, 2)


def test_local_missing_gguf_path_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    settings = llm_settings(provider="local", gguf_path=missing)
    with pytest.raises(ModelError, match="GGUF model file not found") as info:
        get_chat_model(settings)
    assert str(missing) in str(info.value)
    assert "llm.gguf_path" in str(info.value)
    status = get_provider("local").check(settings)
    assert not status.usable
    assert str(missing) in status.detail


def test_local_bad_gguf_file_is_model_error(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"this is not a gguf file")
    with pytest.raises(ModelError, match="Cannot load GGUF model"):
        get_chat_model(llm_settings(provider="local", gguf_path=bad))


# -------------------------------------------------------------------------- registry


def fake_sdk(monkeypatch: pytest.MonkeyPatch, module: str, cls: str) -> list[dict[str, Any]]:
    """Install a stand-in SDK module whose chat class records its constructor kwargs."""
    created: list[dict[str, Any]] = []

    class Factory:  # a class, as the SDK's is: providers may subclass it
        def __new__(cls, **kwargs: Any) -> GenericFakeChatModel:  # type: ignore[misc]
            created.append(kwargs)
            return GenericFakeChatModel(messages=iter(["ok"]))

    monkeypatch.setitem(sys.modules, module, types.SimpleNamespace(**{cls: Factory}))
    return created


def test_registry_is_a_mapping_of_specs() -> None:
    assert set(PROVIDERS) == {"local", "ollama", "openai", "anthropic"}
    for name, spec in PROVIDERS.items():
        assert spec.name == name


def test_unknown_provider_lists_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        get_provider("bogus")
    for name in ("auto", "local", "ollama", "openai", "anthropic"):
        assert name in str(info.value)


def test_configured_provider_is_used_as_is() -> None:
    assert resolve_provider(llm_settings(provider="anthropic")) == "anthropic"


def test_openai_without_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_sdk(monkeypatch, "langchain_openai", "ChatOpenAI")
    settings = llm_settings(provider="openai", model="gpt-4o-mini")
    status = get_provider("openai").check(settings)
    assert not status.usable
    assert "OPENAI_API_KEY" in status.detail
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        get_chat_model(settings)


def test_openai_key_from_env_and_local_server_placeholder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    created = fake_sdk(monkeypatch, "langchain_openai", "ChatOpenAI")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    get_chat_model(llm_settings(provider="openai", model="gpt-4o-mini"))
    assert created[-1]["api_key"].get_secret_value() == "sk-env"
    monkeypatch.delenv("OPENAI_API_KEY")
    get_chat_model(
        llm_settings(provider="openai", model="local", base_url="http://127.0.0.1:8000/v1")
    )
    assert created[-1]["api_key"].get_secret_value() == "not-needed"
    assert created[-1]["base_url"] == "http://127.0.0.1:8000/v1"


def test_openai_needs_model(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_sdk(monkeypatch, "langchain_openai", "ChatOpenAI")
    with pytest.raises(ModelError, match=r"llm\.model"):
        get_chat_model(llm_settings(provider="openai", api_key="sk-x"))


def test_anthropic_extra_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_anthropic", None)
    settings = llm_settings(provider="anthropic", api_key="sk-ant")
    with pytest.raises(ModelError) as info:
        get_chat_model(settings)
    assert "pip install deepcite[anthropic]" in str(info.value)
    assert "langchain-anthropic" in str(info.value)
    status = get_provider("anthropic").check(settings)
    assert not status.usable
    assert "deepcite[anthropic]" in status.detail


def test_anthropic_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    created = fake_sdk(monkeypatch, "langchain_anthropic", "ChatAnthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    get_chat_model(llm_settings(provider="anthropic"))
    assert created[-1]["model"] == "claude-sonnet-4-5"


@respx.mock
def test_auto_picks_local_when_ollama_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    route = respx.get(OLLAMA_TAGS).mock(side_effect=httpx.ConnectError("refused"))
    settings = llm_settings()
    assert resolve_provider(settings) == "local"
    assert route.called
    status = get_provider("ollama").check(settings)
    assert not status.usable
    assert "Ollama not reachable at http://localhost:11434" in status.detail
    assert "ollama serve" in status.detail


@pytest.mark.filterwarnings("ignore:A test tried to use socket:UserWarning")
def test_auto_picks_local_when_sockets_are_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    # No respx here: pytest-socket raises SocketBlockedError (a RuntimeError).
    fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    assert resolve_provider(llm_settings()) == "local"


@pytest.mark.enable_socket
def test_a_closed_ollama_port_is_told_without_an_http_client(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where nothing listens on Ollama's port, ``auto`` knows from the refused connect
    and builds no HTTP client (its TLS contexts cost a tenth of a second per run)."""
    import socket

    from deepcite.security import transport

    with socket.socket() as probe:  # a port that was free a moment ago: refused now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    built: list[object] = []
    monkeypatch.setattr(transport, "egress_client",
                        lambda *a, **k: built.append(a) or pytest.fail("client built"))
    fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    settings = llm_settings(ollama_url=f"http://127.0.0.1:{port}")
    assert resolve_provider(settings) == "local"
    status = get_provider("ollama").check(settings)
    assert f"Ollama not reachable at http://127.0.0.1:{port}" in status.detail
    assert built == []


def test_auto_picks_local_when_ollama_extra_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_ollama", None)
    assert resolve_provider(llm_settings()) == "local"
    status = get_provider("ollama").check(llm_settings())
    assert "pip install deepcite[ollama]" in status.detail


@respx.mock
def test_auto_picks_ollama_with_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    created = fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    respx.get(OLLAMA_TAGS).mock(
        return_value=httpx.Response(200, json={"models": [{"name": "llama3.2:latest"}]})
    )
    # building asks the model's window; a server that says nothing leaves the default
    respx.post("http://localhost:11434/api/show").mock(return_value=httpx.Response(200, json={}))
    settings = llm_settings()
    status = get_provider("ollama").check(settings)
    assert status.usable, status.detail
    assert resolve_provider(settings) == "ollama"
    get_chat_model(settings)
    assert created[-1]["model"] == "llama3.2:latest"
    assert created[-1]["base_url"] == "http://localhost:11434"


@respx.mock
def test_ollama_without_models_is_not_usable(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    respx.get(OLLAMA_TAGS).mock(return_value=httpx.Response(200, json={"models": []}))
    status = get_provider("ollama").check(llm_settings())
    assert not status.usable
    assert "ollama pull" in status.detail
    assert resolve_provider(llm_settings()) == "local"


@respx.mock
def test_ollama_configured_model_must_be_pulled(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_sdk(monkeypatch, "langchain_ollama", "ChatOllama")
    respx.get(OLLAMA_TAGS).mock(
        return_value=httpx.Response(200, json={"models": [{"name": "llama3.2:latest"}]})
    )
    assert get_provider("ollama").check(llm_settings(model="llama3.2")).usable
    status = get_provider("ollama").check(llm_settings(model="qwen3"))
    assert not status.usable
    assert "ollama pull qwen3" in status.detail


def test_describe_providers_one_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setitem(sys.modules, "langchain_ollama", None)
    statuses = describe_providers(llm_settings())
    assert [s.name for s in statuses] == list(PROVIDERS)
    assert all(s.detail for s in statuses)


def test_auto_without_any_usable_model_explains_both(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "langchain_ollama", None)
    settings = llm_settings(gguf_path=tmp_path / "missing.gguf")
    with pytest.raises(ModelError) as info:
        get_chat_model(settings)
    message = str(info.value)
    assert "missing.gguf" in message
    assert "deepcite[ollama]" in message


class StreamingLlama:
    """Streams one token-sized chunk per step, as llama.cpp's create_completion does."""

    metadata: ClassVar[dict[str, str]] = {
        "tokenizer.chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\n"
                                   "{{ m.content }}<|im_end|>\n{% endfor %}"
                                   "<|im_start|>assistant\n"}

    def __init__(self) -> None:
        self.yielded = 0
        self.stops: list[str] = []
        self.n_tokens = 0
        self.input_ids = np.zeros(100_000, dtype=np.intc)
        self.evaluated: list[int] = []

    def eval(self, tokens: list[int]) -> None:
        self.input_ids[self.n_tokens:self.n_tokens + len(tokens)] = tokens
        self.n_tokens += len(tokens)
        self.evaluated.append(len(tokens))

    def token_eos(self) -> int:
        return 2

    def token_bos(self) -> int:
        return 1

    def detokenize(self, tokens: list[int], special: bool = False) -> bytes:
        return b"<|im_end|>" if tokens == [2] else b"<|im_start|>"

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(range(len(text.split())))

    def create_completion(self, prompt: str, **options: Any) -> Any:
        self.stops = options["stop"]
        for i in range(1000):
            self.yielded += 1
            yield {"choices": [{"text": f"w{i} "}]}


def test_local_model_stops_mid_reply_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    path = Path("/nowhere/stream.gguf")
    fake = StreamingLlama()
    monkeypatch.setitem(local_module._CACHE, (str(path.resolve()), 2048, 2),
                        local_module._Loaded(fake))
    model = LlamaCppChatModel(model_path=path, n_ctx=2048, n_threads=2, max_tokens=1000)
    client = make_client(model)
    client.should_stop = lambda: fake.yielded > 5
    reply = client.complete("synthesis", "Be brief.", "Tell a long story.")
    assert reply == "w0 w1 w2 w3 w4"
    assert fake.yielded == 6 and fake.stops == ["<|im_end|>"]
    assert client.usage.completion_tokens == 5


def test_a_cancel_while_the_prompt_is_read_stops_before_the_whole_prompt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A long prompt is read in chunks with a look at ``should_stop`` between them, so a
    cancel that lands while the model reads it (seconds on a small CPU) stops the call
    there: nothing is generated and the rest of the prompt is never evaluated."""
    path = Path("/nowhere/stream.gguf")
    fake = StreamingLlama()
    monkeypatch.setitem(local_module._CACHE, (str(path.resolve()), 2048, 2),
                        local_module._Loaded(fake))
    model = LlamaCppChatModel(model_path=path, n_ctx=2048, n_threads=2)
    client = make_client(model)
    client.should_stop = lambda: len(fake.evaluated) >= 2
    reply = client.complete("synthesis", "Be brief.", "word " * 2000)
    assert reply == ""
    assert fake.yielded == 0  # no token was generated
    assert sum(fake.evaluated) < 2000  # the prompt was not read to its end


def test_a_prompt_read_before_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunks read ahead are what the completion continues from: a second call with
    the same prompt finds it in the model's cache and reads nothing again."""
    path = Path("/nowhere/stream.gguf")
    fake = StreamingLlama()
    monkeypatch.setitem(local_module._CACHE, (str(path.resolve()), 2048, 2),
                        local_module._Loaded(fake))
    model = LlamaCppChatModel(model_path=path, n_ctx=2048, n_threads=2, max_tokens=1000)
    client = make_client(model)
    client.should_stop = lambda: fake.yielded > 2
    client.complete("synthesis", "Be brief.", "word " * 300)
    first = sum(fake.evaluated)
    assert first > local_module.PREFILL_CHUNK_TOKENS  # read in several chunks
    client.complete("synthesis", "Be brief.", "word " * 300)
    assert sum(fake.evaluated) == first


class LinesLlama(StreamingLlama):
    """Writes a first line, then more lines, a token at a time."""

    def create_completion(self, prompt: Any, **options: Any) -> Any:
        self.stops = options["stop"]
        for i in range(200):
            self.yielded += 1
            yield {"choices": [{"text": "\n" if i % 4 == 3 else f"w{i} "}]}


def test_a_reply_whose_first_line_is_all_that_is_read_ends_with_that_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A grounded answer reads only the first line of the model's reply; the bundled
    model stops when that line is written instead of writing on to its token limit,
    and the line read is the one a whole reply would have given."""
    from deepcite.citations.model_lead import first_line, first_line_written

    path = Path("/nowhere/stream.gguf")
    fake = LinesLlama()
    monkeypatch.setitem(local_module._CACHE, (str(path.resolve()), 2048, 2),
                        local_module._Loaded(fake))
    client = make_client(LlamaCppChatModel(model_path=path, n_ctx=2048, n_threads=2,
                                           max_tokens=1000))
    client.should_stop = lambda: False
    whole = client.complete("grounded", "Be brief.", "Question?")
    written = fake.yielded
    short = client.complete("grounded", "Be brief.", "Question?", enough=first_line_written)
    assert fake.yielded - written == 4  # three words and the line break
    assert first_line(short) == first_line(whole) == "w0 w1 w2"
    assert written == 200


def test_the_first_line_is_written_only_when_it_has_prose() -> None:
    from deepcite.citations.model_lead import first_line_written

    assert not first_line_written("Use the csv module")  # the line may go on
    assert not first_line_written("\n\n```python\n")  # blank lines and a fence
    assert first_line_written("\nUse the csv module.\nimport")


def test_generation_uses_every_core_of_a_small_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """llama-cpp-python's default (half the CPUs) left one of a 2-vCPU machine's cores
    idle while the model wrote; small machines use all, big ones half."""
    for usable, threads in ((1, 1), (2, 2), (4, 4), (8, 4), (16, 8)):
        monkeypatch.setattr(local_module.os, "sched_getaffinity",
                            lambda _pid, n=usable: set(range(n)))
        assert local_module.default_threads() == threads


def test_an_openai_compatible_server_is_sent_the_cap_as_max_tokens_too() -> None:
    """llama.cpp's server honours only ``max_tokens``; langchain-openai sends the cap as
    ``max_completion_tokens``. Both go to an ``llm.base_url`` server, so it stops where
    the user said; api.openai.com gets the one name it asks for."""
    local = get_chat_model(llm_settings(provider="openai", model="local", max_tokens=300,
                                        base_url="http://127.0.0.1:8000/v1",
                                        context_size=4096))
    question = [HumanMessage(content="q?")]
    sent = [local._get_request_payload(question),  # type: ignore[attr-defined]
            local._get_request_payload(question, max_tokens=40)]  # type: ignore[attr-defined]
    assert [(body["max_tokens"], body["max_completion_tokens"]) for body in sent] == [
        (300, 300), (40, 40)]
    hosted = get_chat_model(llm_settings(provider="openai", model="gpt-4o-mini",
                                         api_key="sk-x", max_tokens=300))
    body = hosted._get_request_payload(question)  # type: ignore[attr-defined]
    assert "max_tokens" not in body and body["max_completion_tokens"] == 300
