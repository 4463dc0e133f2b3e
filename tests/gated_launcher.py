"""Starts ``deepcite serve`` or ``deepcite mcp`` with a model whose answer waits on a gate.

For the shutdown tests: a run started in the server process searches for real, then
its synthesis call touches ``DEEPCITE_TEST_STARTED`` and blocks until the file
``DEEPCITE_TEST_GATE`` exists - a model call in flight when a signal or a disconnect
arrives, which the test releases when it wants the call to return.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import deepcite.runs.build
from tests.fakes import ScriptedChatModel
from tests.mcp_launcher import cite_all

GATE_WAIT_S = 120.0


def gated(prompt: str) -> str:
    """Say the call started, wait for the gate (at most GATE_WAIT_S), cite everything."""
    Path(os.environ["DEEPCITE_TEST_STARTED"]).touch()
    gate = Path(os.environ["DEEPCITE_TEST_GATE"])
    deadline = time.monotonic() + GATE_WAIT_S
    while not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return cite_all(prompt)


def main() -> None:
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [gated]})
    deepcite.runs.build.get_chat_model = lambda settings: model  # type: ignore[attr-defined]
    from deepcite.cli import app

    app(sys.argv[1:])


if __name__ == "__main__":
    main()
