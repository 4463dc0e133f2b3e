"""Runs the deepcite CLI with the chat model faked, for the queue tests and the bench.

``python -m tests.worker_launcher worker --concurrency 1`` (or ``serve ...``, or any
other deepcite command) first replaces ``deepcite.runs.build.get_chat_model`` with a
:class:`SlowScriptedModel` - the scripted replies of ``tests.mcp_launcher`` (the answer
cites every source it is shown, so a run over a collection completes with a cited
answer) after sleeping ``DEEPCITE_TEST_MODEL_DELAY`` seconds (default 1.0) on every
call, like a real model's latency - and then runs the CLI's main with the arguments.
Worker processes forked by ``--concurrency N`` inherit the fake.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

import deepcite.runs.build
from tests.fakes import ScriptedChatModel
from tests.mcp_launcher import OUTLINE, cite_all

DELAY_ENV = "DEEPCITE_TEST_MODEL_DELAY"


class SlowScriptedModel(ScriptedChatModel):
    """:class:`ScriptedChatModel` whose every call takes ``delay`` seconds."""

    delay: float = 1.0

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        if self.delay > 0:
            time.sleep(self.delay)
        result = super()._generate(messages, stop, run_manager, **kwargs)
        self._calls.clear()  # a worker lives for many runs: keep no history of calls
        return result


def model_delay() -> float:
    raw = os.environ.pop(DELAY_ENV, "").strip()  # not a setting: keep it out of config
    return float(raw) if raw else 1.0


def slow_model(delay: float) -> SlowScriptedModel:
    return SlowScriptedModel(delay=delay, script={
        "questions": [""], "synthesis": [cite_all], "section": [cite_all],
        "outline": [OUTLINE]})


def main() -> None:
    model = slow_model(model_delay())
    deepcite.runs.build.get_chat_model = lambda settings: model  # type: ignore[attr-defined]
    from deepcite.cli import app

    app(sys.argv[1:], prog_name="deepcite")


if __name__ == "__main__":
    main()
