"""One narrow door to the chat model for the rest of deepcite.

The research layer only ever needs "send this system prompt and this user prompt, give me
the text back". :class:`ChatClient` does that for any LangChain chat model and adds what
every call needs and no provider does the same way: a purpose tag (tests' fake models
answer by it, and tracing shows it), token and time accounting for
:class:`~deepcite.types.RunMetrics`, a :class:`~deepcite.types.ModelCall` event, removal
of ``<think>`` blocks, and one error type (:class:`~deepcite.errors.ModelError`).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from deepcite.errors import ModelError
from deepcite.llm.parsing import content_text, strip_thinking
from deepcite.types import ModelCall

logger = logging.getLogger(__name__)

CHARS_PER_TOKEN_ESTIMATE = 4
"""Used to estimate token counts when a provider reports none (the usual English ratio)."""

PROMPT_CHARS_PER_TOKEN = 3
"""Used to size prompts: lower than the estimate above so that a prompt cut to the budget
still fits when the text tokenizes worse than English prose (code, numbers, other
languages)."""

PROMPT_OVERHEAD_TOKENS = 64
"""Tokens kept free for the chat template's role markers and special tokens."""


@dataclass(frozen=True)
class Usage:
    """Totals over all calls of one client; a snapshot, safe to hand around."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def since(self, baseline: Usage) -> Usage:
        """What was spent after ``baseline`` was taken from the same client.

        A client lives as long as its Researcher and keeps running totals; one run's
        cost (its metrics, its budgets) is the difference to the totals at its start.
        """
        return Usage(
            calls=self.calls - baseline.calls,
            prompt_tokens=self.prompt_tokens - baseline.prompt_tokens,
            completion_tokens=self.completion_tokens - baseline.completion_tokens,
            seconds=self.seconds - baseline.seconds,
        )


LOCAL_CONTEXT_TOKENS = 2048
REMOTE_CONTEXT_TOKENS = 8192


def context_size_for(provider: str, configured: int | None) -> int:
    """The context window to plan prompts for: the setting, else the provider default.

    The bundled 135M model writes noticeably better answers from a short prompt than
    from a long one (measured: a 10k-character prompt made it loop; 5k did not), so
    the local default is small. Served models get a window most of them support.
    """
    if configured is not None:
        return configured
    return LOCAL_CONTEXT_TOKENS if provider == "local" else REMOTE_CONTEXT_TOKENS


def model_context_size(model: BaseChatModel, configured: int | None) -> int:
    """Context window of an already built model: the setting, else what the model says."""
    if configured is not None:
        return configured
    for attribute in ("n_ctx", "num_ctx"):
        value = getattr(model, attribute, None)
        if isinstance(value, int) and value > 0:
            return value
    return REMOTE_CONTEXT_TOKENS


def prompt_budget_chars(context_size: int, max_tokens: int) -> int:
    """How many characters of prompt fit in the context next to the reply.

    ``(context_size - max_tokens - 64) * 3``, never below zero. The research layer cuts
    source text to this so the prompt does not overflow a small local model's context.
    """
    return max(0, (context_size - max_tokens - PROMPT_OVERHEAD_TOKENS) * PROMPT_CHARS_PER_TOKEN)


def _estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN_ESTIMATE) if text else 0


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


class ChatClient:
    """Calls a chat model for one purpose at a time and keeps count of what it cost.

    Thread safe: calls may come from several threads; the totals are updated under a
    lock. (Whether the model itself tolerates parallel calls is the model's business;
    the local llama.cpp model serializes its own calls.)
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        context_size: int,
        max_tokens: int,
        on_call: Callable[[ModelCall], None] | None = None,
    ) -> None:
        self.model = model
        self.context_size = context_size
        self.max_tokens = max_tokens
        self.on_call = on_call
        #: Set by a run so that models able to stop mid-reply do so when it is cancelled.
        self.should_stop: Callable[[], bool] | None = None
        self._lock = threading.Lock()
        self._usage = Usage()
        if self.prompt_budget_chars < 2000:
            logger.warning(
                "Only %d prompt characters fit a %d-token context with max_tokens=%d; "
                "raise llm.context_size or lower llm.max_tokens",
                self.prompt_budget_chars,
                context_size,
                max_tokens,
            )

    @property
    def prompt_budget_chars(self) -> int:
        """Characters of system plus user prompt that fit; see :func:`prompt_budget_chars`."""
        return prompt_budget_chars(self.context_size, self.max_tokens)

    def fit_prompt_budget(self, text: str, *, reserved_chars: int = 0) -> str:
        """Cut ``text`` so it fits the prompt budget after ``reserved_chars`` of other prompt.

        Cuts at the last whitespace before the limit so no word is split.
        """
        room = max(0, self.prompt_budget_chars - reserved_chars)
        if len(text) <= room:
            return text
        cut = text[:room]
        space = cut.rfind(" ")
        return cut[:space] if space > room // 2 else cut

    @property
    def usage(self) -> Usage:
        """Totals of all calls so far (a frozen snapshot)."""
        with self._lock:
            return self._usage

    def record_call(self, call: ModelCall) -> None:
        """Count a model call made outside :meth:`complete` (e.g. by a LangGraph agent)."""
        with self._lock:
            self._usage = Usage(
                calls=self._usage.calls + 1,
                prompt_tokens=self._usage.prompt_tokens + call.prompt_tokens,
                completion_tokens=self._usage.completion_tokens + call.completion_tokens,
                seconds=self._usage.seconds + call.seconds,
            )
        if self.on_call is not None:
            self.on_call(call)

    @property
    def provider_name(self) -> str:
        """The model's class name, used in error messages and logs."""
        return type(self.model).__name__

    def complete(
        self, purpose: str, system: str, user: str, *, max_tokens: int | None = None
    ) -> str:
        """Send one system + user prompt and return the reply text.

        ``purpose`` names the call (``questions``, ``synthesis`` ...): it becomes the
        ``deepcite:<purpose>`` tag and run name of the LangChain call and the purpose of
        the :class:`ModelCall` event. The reply comes back without ``<think>`` blocks and
        surrounding whitespace. Any provider failure is raised as :class:`ModelError`.
        ``max_tokens`` caps a short reply (a query list) below the configured limit, for
        models that take a ``max_tokens`` call option; small models otherwise ramble on
        to the limit and waste seconds.
        """
        messages: list[BaseMessage] = []
        if system:
            messages.append(SystemMessage(content=system))
        messages.append(HumanMessage(content=user))
        options: dict[str, Any] = {}
        if max_tokens is not None and "max_tokens" in type(self.model).model_fields:
            options["max_tokens"] = min(max_tokens, self.max_tokens)
        if self.should_stop is not None and getattr(self.model, "supports_should_stop", False):
            options["should_stop"] = self.should_stop
        started = time.perf_counter()
        try:
            reply = self.model.invoke(
                messages, config={"tags": [f"deepcite:{purpose}"], "run_name": purpose},
                **options,
            )
        except ModelError:
            raise
        except Exception as exc:  # any provider SDK error becomes the one error type callers know
            raise ModelError(
                f"{self.provider_name} call for {purpose!r} failed: "
                f"{type(exc).__name__}: {_one_line(str(exc)) or 'no details'}"
            ) from exc
        seconds = time.perf_counter() - started
        raw = content_text(reply.content)
        prompt_tokens, completion_tokens = self._count_tokens(reply, system + user, raw)
        with self._lock:
            self._usage = Usage(
                calls=self._usage.calls + 1,
                prompt_tokens=self._usage.prompt_tokens + prompt_tokens,
                completion_tokens=self._usage.completion_tokens + completion_tokens,
                seconds=self._usage.seconds + seconds,
            )
        logger.debug(
            "model call %s: %d+%d tokens in %.2fs",
            purpose,
            prompt_tokens,
            completion_tokens,
            seconds,
        )
        if self.on_call is not None:
            self.on_call(
                ModelCall(
                    purpose=purpose,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                    seconds=seconds,
                )
            )
        return strip_thinking(raw).strip()

    @staticmethod
    def _count_tokens(reply: BaseMessage, prompt: str, completion: str) -> tuple[int, int]:
        """Token counts as the provider reports them, else estimated from characters."""
        usage = reply.usage_metadata if isinstance(reply, AIMessage) else None
        if usage and (usage.get("input_tokens") or usage.get("output_tokens")):
            return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
        return _estimate_tokens(prompt), _estimate_tokens(completion)
