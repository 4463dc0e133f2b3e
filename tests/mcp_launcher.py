"""Starts ``deepcite mcp`` with the chat model faked at its boundary, for the stdio tests.

A real server process, spoken to through real pipes by the SDK's own client: only the
model is scripted (it cites every source it is shown), so a test knows what the answer
will cite without a model on the machine.
"""

from __future__ import annotations

import re
import sys

import deepcite.runs.build
from tests.fakes import ScriptedChatModel

OUTLINE = "1. Cache storage - where the cache lives\n2. Team rhythm - when the team meets\n"


def cite_all(prompt: str) -> str:
    """A reply citing every source in the prompt, one sentence each."""
    numbers = re.findall(r'<source id="(\d+)"', prompt)
    return " ".join(f"The notes say so [{n}]." for n in numbers) or "Nothing."


def scripted_model() -> ScriptedChatModel:
    return ScriptedChatModel(script={"questions": [""], "synthesis": [cite_all],
                                     "section": [cite_all], "outline": [OUTLINE]})


def main() -> None:
    model = scripted_model()
    deepcite.runs.build.get_chat_model = lambda settings: model  # type: ignore[attr-defined]
    from deepcite.cli import app

    app(["mcp", *sys.argv[1:]])


if __name__ == "__main__":
    main()
