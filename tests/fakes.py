"""Test doubles at the model and network boundary.

``ScriptedChatModel`` is a real langchain-core chat model whose replies are scripted
by *purpose* (the ``deepcite:<purpose>`` tag every ChatClient call carries), so the
pipeline's logic is tested without the real model. ``MemoryEngine`` is a search engine
over a fixed list of passages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, PrivateAttr

from deepcite.errors import SearchError
from deepcite.text.words import content_words
from deepcite.types import SearchResult

Reply = str | Callable[[str], str]


class ScriptedChatModel(BaseChatModel):
    """Replies by purpose; a list of replies is consumed in order, the last one repeats."""

    script: dict[str, list[Reply]] = Field(default_factory=dict)
    default: str = ""
    _calls: list[tuple[str, str]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    @property
    def calls(self) -> list[tuple[str, str]]:
        """(purpose, user prompt) of every call, in order."""
        return self._calls

    def purposes(self) -> list[str]:
        return [purpose for purpose, _ in self._calls]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tags = run_manager.tags if run_manager else []
        purpose = next((t.split(":", 1)[1] for t in tags if t.startswith("deepcite:")), "?")
        user = str(messages[-1].content)
        self._calls.append((purpose, user))
        replies = self.script.get(purpose)
        if not replies:
            text = self.default
        else:
            used = sum(1 for p, _ in self._calls if p == purpose) - 1
            reply = replies[min(used, len(replies) - 1)]
            text = reply(user) if callable(reply) else reply
        usage = {"input_tokens": len(user) // 4, "output_tokens": len(text) // 4,
                 "total_tokens": (len(user) + len(text)) // 4}
        message = AIMessage(content=text, usage_metadata=usage)  # type: ignore[arg-type]
        return ChatResult(generations=[ChatGeneration(message=message)])


def passage(title: str, text: str, url: str | None = None) -> SearchResult:
    return SearchResult(title=title, url=url or f"https://docs.example/{title.replace(' ', '-')}",
                        snippet=text, engine="memory")


class MemoryEngine:
    """Finds passages sharing content words with the query; records every query."""

    def __init__(self, passages: Sequence[SearchResult], name: str = "memory",
                 fail_with: str | None = None) -> None:
        self._passages = list(passages)
        self._name = name
        self._fail_with = fail_with
        self.queries: list[str] = []

    @property
    def name(self) -> str:
        return self._name

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        self.queries.append(query)
        if self._fail_with:
            raise SearchError(self._fail_with)
        words = content_words(query)
        scored = [(len(words & content_words(p.title + " " + p.snippet)), i, p)
                  for i, p in enumerate(self._passages)]
        hits = [p for score, _, p in sorted(scored, key=lambda t: (-t[0], t[1])) if score]
        return hits[:max_results]


def write_notes(folder: Path) -> Path:
    """The team's two notes (a cache decision, when the team meets) as Markdown files in
    ``folder``, made here: the small collection many tests research."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cache.md").write_text(
        "# Cache decision\n\nWe decided to keep the cache in Redis with a one hour expiry, "
        "because the database was overloaded.\n", encoding="utf-8")
    (folder / "team.md").write_text(
        "# Team\n\nThe team meets on Tuesdays to plan the sprint and review the cache.\n",
        encoding="utf-8")
    return folder


def cite_all(prompt: str) -> str:
    """A synthesis reply citing every source of ``prompt`` once: "The notes say so [n]."
    each (or "Nothing." without sources) - a model whose every citation resolves."""
    numbers = re.findall(r'<source id="(\d+)"', prompt)
    return " ".join(f"The notes say so [{n}]." for n in numbers) or "Nothing."
