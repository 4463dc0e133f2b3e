"""The bundled model takes calls one at a time, in the order they came, and a call
whose run is cancelled stops waiting for its turn at once.

The llama.cpp object is faked at its boundary (a slow ``Llama`` that answers when the
test lets it); the chat model, its queue and the ChatClient are the real ones, called
from real threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deepcite.llm import local as local_module
from deepcite.llm.call_queue import CallQueue
from deepcite.llm.client import ChatClient
from deepcite.llm.local import LlamaCppChatModel

GUARD_S = 30.0
"""A wait that should end at once ends within this, or the test fails (never hangs)."""


class SlowLlama:
    """Answers each call with its prompt; the first call waits until ``go`` is set."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.serving = threading.Event()
        self.order: list[str] = []
        self._busy = threading.Lock()

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        if not self._busy.acquire(blocking=False):
            raise AssertionError("two calls inside the model at once")
        try:
            prompt = kwargs["messages"][-1]["content"]
            self.order.append(prompt)
            self.serving.set()
            if not self.go.wait(GUARD_S):
                raise AssertionError("the test never let the first call finish")
            return {"choices": [{"message": {"content": f"re {prompt}"},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        finally:
            self._busy.release()


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> tuple[SlowLlama, CallQueue, LlamaCppChatModel]:
    path = Path("/nowhere/slow.gguf")
    fake = SlowLlama()
    loaded = local_module._Loaded(fake)
    monkeypatch.setitem(local_module._CACHE, (str(path.resolve()), 2048, 1), loaded)
    return fake, loaded.lock, LlamaCppChatModel(model_path=path, n_ctx=2048, n_threads=1)


def _client(model: LlamaCppChatModel, should_stop: Callable[[], bool] | None = None
            ) -> ChatClient:
    client = ChatClient(model, context_size=2048, max_tokens=50)
    client.should_stop = should_stop
    return client


def _until(condition: Callable[[], bool], what: str) -> None:
    """Wait for a state no event announces (a thread parked in the queue)."""
    deadline = time.monotonic() + GUARD_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def test_calls_are_served_in_the_order_they_came(
        slow: tuple[SlowLlama, CallQueue, LlamaCppChatModel]) -> None:
    fake, queue, model = slow
    replies: dict[str, str] = {}

    def ask(prompt: str) -> None:
        replies[prompt] = _client(model).complete("answer", "", prompt)

    first = threading.Thread(target=ask, args=("call 0",))
    first.start()
    assert fake.serving.wait(GUARD_S)
    waiters = []
    for n in range(1, 6):  # each one queued after the one before it
        thread = threading.Thread(target=ask, args=(f"call {n}",))
        thread.start()
        waiters.append(thread)
        _until(lambda n=n: queue.waiting == n, f"call {n} to queue")
    fake.go.set()
    for thread in [first, *waiters]:
        thread.join(GUARD_S)
        assert not thread.is_alive()
    assert fake.order == [f"call {n}" for n in range(6)]
    assert replies == {f"call {n}": f"re call {n}" for n in range(6)}


def test_a_cancelled_waiter_leaves_the_queue_within_a_second(
        slow: tuple[SlowLlama, CallQueue, LlamaCppChatModel]) -> None:
    fake, queue, model = slow
    cancelled = threading.Event()
    replies: list[str] = []
    first = threading.Thread(target=lambda: _client(model).complete("answer", "", "long"))
    first.start()
    assert fake.serving.wait(GUARD_S)
    waiter = threading.Thread(target=lambda: replies.append(
        _client(model, cancelled.is_set).complete("answer", "", "queued")))
    waiter.start()
    _until(lambda: queue.waiting == 1, "the second call to queue")

    cancelled.set()
    waiter.join(1.0)  # the model is still busy with the first call
    assert not waiter.is_alive(), "a cancelled call kept waiting for the model"
    assert replies == [""]
    assert queue.waiting == 0
    fake.go.set()
    first.join(GUARD_S)
    assert fake.order == ["long"]  # the cancelled call never reached the model
    # and the turn it gave up does not block the next caller
    assert _client(model).complete("answer", "", "after") == "re after"


def test_a_waiter_that_leaves_is_skipped_and_the_rest_keep_their_order() -> None:
    queue = CallQueue()
    order: list[str] = []
    stop_b = threading.Event()
    assert queue.acquire()

    def take(name: str, should_stop: Callable[[], bool] | None = None) -> None:
        with queue.turn(should_stop) as got:
            if got:
                order.append(name)

    threads = []
    for n, (name, stop) in enumerate([("a", None), ("b", stop_b.is_set), ("c", None)], 1):
        thread = threading.Thread(target=take, args=(name, stop))
        thread.start()
        threads.append(thread)
        _until(lambda n=n: queue.waiting == n, f"{name} to queue")
    stop_b.set()
    threads[1].join(GUARD_S)
    assert not threads[1].is_alive()
    queue.release()
    for thread in threads:
        thread.join(GUARD_S)
    assert order == ["a", "c"]
    assert queue.acquire(lambda: True)  # free: the turn is taken at once
    queue.release()
