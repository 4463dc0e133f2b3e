"""`deepcite serve` gets ready for its first question before it comes (issue 46).

The demo collection's index and the bundled model cost seconds the first time; the
server does both in a background thread while it waits, so the first answer in the
web app does not pay for them. The model and the demo build are faked at the
``deepcite.runs.build`` boundary (as the tests of runs do); what is checked is what
gets done before any request: the demo ensured, the model loaded only when runs use
the in-process one, a failure logged and the server still up.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

import deepcite.runs.build as build
from deepcite.errors import CollectionError
from deepcite.web import serving


@pytest.fixture
def done(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    monkeypatch.setattr(build, "ensure_demo_collection",
                        lambda settings, **_: calls.append("demo"))
    monkeypatch.setattr(build, "get_chat_model",
                        lambda settings: calls.append(f"model:{settings.llm.provider}"))
    return calls


def test_the_local_model_and_the_demo_are_ready_before_a_question(
        make_settings: Any, done: list[str]) -> None:
    build.warm_up(make_settings(**{"llm.provider": "local"}))
    assert done == ["demo", "model:local"]


def test_a_served_model_is_not_loaded_by_the_server(
        make_settings: Any, done: list[str]) -> None:
    build.warm_up(make_settings(**{"llm.provider": "ollama"}))
    assert done == ["demo"]


def test_a_failed_warm_up_is_logged_and_left_to_the_first_run(
        make_settings: Any, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(settings: Any, **_: Any) -> None:
        raise CollectionError("demo sources missing")

    monkeypatch.setattr(build, "ensure_demo_collection", broken)
    with caplog.at_level(logging.INFO, logger="deepcite.runs.build"):
        build.warm_up(make_settings(**{"llm.provider": "local"}))
    assert "warm-up stopped: demo sources missing" in caplog.text


def test_serve_app_starts_the_warm_up_beside_the_server(
        monkeypatch: pytest.MonkeyPatch) -> None:
    started = threading.Event()
    served: list[bool] = []

    class Server:
        def __init__(self, *args: Any) -> None:
            self.stop_signals: list[int] = []

        def run(self) -> None:
            served.append(started.wait(10))

    class Executor:
        def shutdown(self) -> None:
            pass

    monkeypatch.setattr(serving, "DrainingServer", Server)
    monkeypatch.setattr(serving, "uvicorn_config", lambda app, **kw: None)
    serving.serve_app(Any, Executor(), host="127.0.0.1", port=1,  # type: ignore[arg-type]
                      on_start=started.set)
    assert served == [True]
