"""The model interface the research layer types against.

Strategies need more of the model than handlers do: the running usage (for budgets and
metrics), a way to stop a reply when the run is cancelled, the underlying LangChain
model (the agent binds tools to it) and a way to count calls made past
:meth:`complete` (LangGraph calls the model itself). :class:`ChatClient` provides all of
it; stating it as a protocol lets research code say what it relies on instead of
probing clients with ``getattr`` and ``isinstance``, and lets tests pass any object
that keeps the same promises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from deepcite.llm.client import ChatModel, Usage
from deepcite.types import ModelCall


class ModelInterface(Protocol):
    """A chat model as one research run uses it (implemented by :class:`ChatClient`)."""

    #: Asked during a reply by models able to stop early; set per run to its cancel token.
    should_stop: Callable[[], bool] | None

    @property
    def model(self) -> ChatModel:
        """The chat model behind the client (the agent binds tools to a LangChain one)."""
        ...

    @property
    def provider_name(self) -> str:
        """The model's name as error messages and logs show it."""
        ...

    @property
    def context_size(self) -> int:
        """The context window prompts are planned for, in tokens."""
        ...

    @property
    def prompt_budget_chars(self) -> int:
        """How many characters of prompt fit the context with room to reply."""
        ...

    @property
    def one_call_at_a_time(self) -> bool:
        """Whether calls from several threads are answered one after another anyway."""
        ...

    @property
    def usage(self) -> Usage:
        """Running totals over every call so far; a run subtracts its starting totals."""
        ...

    def complete(
        self, purpose: str, system: str, user: str, *, max_tokens: int | None = None,
        enough: Callable[[str], bool] | None = None,
    ) -> str:
        """One chat call tagged ``deepcite:<purpose>``; returns the cleaned reply text."""
        ...

    def record_call(self, call: ModelCall) -> None:
        """Count a call made outside :meth:`complete`, so usage and events include it."""
        ...
