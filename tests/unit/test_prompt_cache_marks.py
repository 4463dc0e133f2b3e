"""Prompt caching where the provider caches only what a request marks (Anthropic).

A real ``ChatAnthropic`` (the ``anthropic`` extra) talks to a loopback server shaped
like Anthropic's Messages API: the request must carry the ``cache_control`` mark on the
shared system prompt, and the cache reads the reply reports must reach the run's usage.
Providers that cache any repeated prefix on their own get the system prompt unchanged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from pydantic import Field, SecretStr

from deepcite.llm.client import ChatClient, caches_marked_prompts_only
from tests.fakes import ScriptedChatModel

pytestmark = pytest.mark.enable_socket  # a real HTTP client against a loopback server

SYSTEM = "You answer from the numbered sources only."


class _MessagesApi:
    """Answers ``POST /v1/messages`` as Anthropic does, keeping each request body."""

    def __init__(self, cache_read: int) -> None:
        self.bodies: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                outer.bodies.append(json.loads(self.rfile.read(length)))
                data = json.dumps({
                    "id": "msg_1", "type": "message", "role": "assistant",
                    "model": "claude-test", "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "content": [{"type": "text", "text": "Argparse parses arguments [1]."}],
                    "usage": {"input_tokens": 40, "output_tokens": 8,
                              "cache_creation_input_tokens": 0,
                              "cache_read_input_tokens": cache_read},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def messages_api() -> Iterator[_MessagesApi]:
    server = _MessagesApi(cache_read=1200)
    yield server
    server.close()


def _claude(url: str) -> ChatAnthropic:
    return ChatAnthropic(model="claude-test", api_key=SecretStr("sk-test"),  # type: ignore[call-arg]
                         base_url=url, max_tokens=64, max_retries=0)


def test_the_shared_system_prompt_is_marked_for_anthropics_cache(
        messages_api: _MessagesApi) -> None:
    client = ChatClient(_claude(messages_api.url), context_size=8192, max_tokens=64)
    for question in ("How do I parse arguments?", "Which module parses options?"):
        text = client.complete("synthesis", SYSTEM, f"[1] argparse docs\n\nQuestion: {question}")
        assert text == "Argparse parses arguments [1]."
    assert [body["system"] for body in messages_api.bodies] == [
        [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]] * 2
    # The variable part is not marked: marking it would pay for cache writes never read.
    assert all("cache_control" not in json.dumps(body["messages"])
               for body in messages_api.bodies)
    assert client.usage.cached_tokens == 2 * 1200


class _KeepsSystem(ScriptedChatModel):
    """Keeps the content of each call's system message as the provider would get it."""

    systems: list[Any] = Field(default_factory=list)

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> Any:
        self.systems.append(messages[0].content)
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_providers_that_cache_prefixes_themselves_get_the_plain_prompt() -> None:
    model = _KeepsSystem(script={"synthesis": ["Argparse [1]."]}, systems=[])
    assert not caches_marked_prompts_only(model)
    ChatClient(model, context_size=8192, max_tokens=64).complete("synthesis", SYSTEM, "q")
    assert model.systems == [SYSTEM]
