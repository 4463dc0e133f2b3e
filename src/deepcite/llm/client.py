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
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from deepcite.errors import ModelError, cause_of, foreign_error
from deepcite.llm.context_window import (
    model_identity,
    ollama_missing_message,
    remember_window,
    served_window,
    server_name,
)
from deepcite.llm.local import ChatMessage, LlamaCppChatModel
from deepcite.llm.overflow import ContextOverflow, parse_overflow, shrink_prompt
from deepcite.llm.parsing import content_text, strip_thinking
from deepcite.types import ModelCall

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

ChatModel: TypeAlias = "BaseChatModel | LlamaCppChatModel"
"""What :class:`ChatClient` calls: a LangChain chat model (every served provider, and
plugins'), or the bundled in-process model, which is not one so that an offline ask
never imports LangChain."""

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
    #: Prompt tokens the provider said it read from its prompt cache (0 when it says
    #: nothing): counted in ``prompt_tokens`` too.
    cached_tokens: int = 0

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
            cached_tokens=self.cached_tokens - baseline.cached_tokens,
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


def model_context_size(model: ChatModel, configured: int | None) -> int:
    """Context window of an already built model.

    The setting wins; then the window the model was built with (``n_ctx``, Ollama's
    ``num_ctx``); then what its server said when it was built, or the known window of
    a hosted model (:mod:`deepcite.llm.context_window`); else
    :data:`REMOTE_CONTEXT_TOKENS`.
    """
    if configured is not None:
        return configured
    for attribute in ("n_ctx", "num_ctx"):
        value = getattr(model, attribute, None)
        if isinstance(value, int) and value > 0:
            return value
    return served_window(model) or REMOTE_CONTEXT_TOKENS


def prompt_budget_chars(context_size: int, max_tokens: int) -> int:
    """How many characters of prompt fit in the context next to the reply.

    ``(context_size - max_tokens - 64) * 3``, never below zero. The research layer cuts
    source text to this so the prompt does not overflow a small local model's context.
    """
    return max(0, (context_size - max_tokens - PROMPT_OVERHEAD_TOKENS) * PROMPT_CHARS_PER_TOKEN)


def _estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN_ESTIMATE) if text else 0


#: Where a model class runs, in a reader's words (model_label); others show their class.
_MODEL_KINDS = {"LlamaCppChatModel": "in-process llama.cpp", "ChatOllama": "Ollama",
                "ChatOpenAI": "OpenAI-compatible server", "ChatAnthropic": "Anthropic"}


class ChatClient:
    """Calls a chat model for one purpose at a time and keeps count of what it cost.

    Thread safe: calls may come from several threads; the totals are updated under a
    lock. (Whether the model itself tolerates parallel calls is the model's business;
    the local llama.cpp model serializes its own calls.)
    """

    def __init__(
        self,
        model: ChatModel,
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
        self._cut = 0
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
                cached_tokens=self._usage.cached_tokens + call.cached_tokens,
            )
        if self.on_call is not None:
            self.on_call(call)

    @property
    def provider_name(self) -> str:
        """The model's class name, used in error messages and logs."""
        return type(self.model).__name__

    @property
    def model_label(self) -> str:
        """Which model this is, as a reader of the report should be told: its name as its
        server knows it (the GGUF file's for the in-process model) and where it runs -
        ``"SmolLM2-135M-Instruct.Q4_1.gguf (in-process llama.cpp)"``, ``"llama3.2
        (Ollama)"``. A run records it, so a report names the model that answered rather
        than the configured ``auto``."""
        kind = type(self.model).__name__
        path = getattr(self.model, "model_path", None)
        name = (Path(path).name if isinstance(path, (str, Path)) else None) or next(
            (value for value in (getattr(self.model, attribute, None)
                                 for attribute in ("model", "model_name"))
             if isinstance(value, str) and value), None)
        where = _MODEL_KINDS.get(kind, kind)
        return f"{name} ({where})" if name else where


    @property
    def one_call_at_a_time(self) -> bool:
        """Whether the model answers one call at a time however many threads ask (an
        in-process model such as the bundled one): a report then overlaps only the work
        that needs no call, so its replies come in the order they would one by one."""
        return bool(getattr(self.model, "answers_one_call_at_a_time", False))

    @property
    def server(self) -> str:
        """Where the model answers (``host:port``), or the model class for in-process ones."""
        url, _ = model_identity(self.model)
        return server_name(url) if url else self.provider_name

    @property
    def cut_replies(self) -> int:
        """Replies that ended at the token limit and were kept as they came."""
        with self._lock:
            return self._cut

    def complete(
        self, purpose: str, system: str, user: str, *, max_tokens: int | None = None,
        enough: Callable[[str], bool] | None = None,
    ) -> str:
        """Send one system + user prompt and return the reply text.

        ``purpose`` names the call (``questions``, ``synthesis`` ...): it becomes the
        ``deepcite:<purpose>`` tag and run name of the LangChain call and the purpose of
        the :class:`ModelCall` event. The reply comes back without ``<think>`` blocks and
        surrounding whitespace. Any provider failure is raised as :class:`ModelError`,
        one line naming the server.
        ``max_tokens`` caps a short reply (a query list) below the configured limit, for
        models that take a ``max_tokens`` call option; small models otherwise ramble on
        to the limit and waste seconds.

        Two failures are not the end of the question. A prompt the server refuses as
        too long is cut to the window the server states (which the client then plans
        for) and sent once more. A reply that stopped at the token limit while still
        thinking is asked once more with a larger limit when the window has room and
        the reply is not a loop; otherwise it is kept as it came and counted in
        :attr:`cut_replies`.

        ``enough`` says whether the reply so far already holds all
        the caller will read - a grounded answer reads only the first line: models that
        stream in-process stop there instead of writing to the limit (the bundled model
        spent two thirds of an answer's model time on lines nobody read).
        """
        cap = min(max_tokens, self.max_tokens) if max_tokens is not None else None
        try:
            reply = self._call(purpose, system, user, cap, enough)
        except _Overflow as overflow:
            user, cap = self._refit(purpose, overflow, system, user, cap)
            try:
                reply = self._call(purpose, system, user, cap, enough)
            except _Overflow as again:
                raise ModelError(
                    f"{self.server} refused the prompt for {purpose!r} as too long even "
                    f"cut to its {self.context_size:,}-token window - lower llm.max_tokens "
                    "or set llm.context_size to the server's real window"
                ) from again.cause
        if reply.cut:
            reply = self._longer(purpose, system, user, cap, reply, capped=max_tokens is not None)
        return strip_thinking(reply.text).strip()

    # ------------------------------------------------------------------ one call

    def _call(self, purpose: str, system: str, user: str, cap: int | None,
              enough: Callable[[str], bool] | None = None) -> _Reply:
        """One model call, counted; a context-length refusal raises :class:`_Overflow`."""
        messages = _messages(self.model, system, user)
        options: dict[str, Any] = {}
        if cap is not None and self._takes_max_tokens:
            options["max_tokens"] = cap
        if self.should_stop is not None and getattr(self.model, "supports_should_stop", False):
            options["should_stop"] = self.should_stop
        if enough is not None and getattr(self.model, "supports_enough", False):
            wanted = enough
            # A reply that thinks aloud is read after its thinking: never cut short.
            options["enough"] = lambda so_far: "think>" not in so_far and wanted(so_far)
        started = time.perf_counter()
        try:
            reply = self.model.invoke(
                messages, config={"tags": [f"deepcite:{purpose}"], "run_name": purpose},
                **options,
            )
        except ModelError:
            raise
        except Exception as exc:  # any provider SDK error becomes the one error type callers know
            raise self._failure(purpose, exc) from exc
        seconds = time.perf_counter() - started
        raw = content_text(reply.content)
        prompt_tokens, completion_tokens = self._count_tokens(reply, system + user, raw)
        cached = cached_prompt_tokens(reply)
        with self._lock:
            self._usage = Usage(
                calls=self._usage.calls + 1,
                prompt_tokens=self._usage.prompt_tokens + prompt_tokens,
                completion_tokens=self._usage.completion_tokens + completion_tokens,
                seconds=self._usage.seconds + seconds,
                cached_tokens=self._usage.cached_tokens + cached,
            )
        logger.debug("model call %s: %d+%d tokens (%d cached) in %.2fs",
                     purpose, prompt_tokens, completion_tokens, cached, seconds)
        if self.on_call is not None:
            self.on_call(ModelCall(purpose=purpose, prompt_tokens=prompt_tokens,
                                   completion_tokens=completion_tokens, seconds=seconds,
                                   cached_tokens=cached))
        return _Reply(raw, prompt_tokens, completion_tokens, _stopped_at_limit(reply))

    @property
    def _takes_max_tokens(self) -> bool:
        model_class = type(self.model)
        return bool(getattr(model_class, "takes_max_tokens", False)) or (
            "max_tokens" in getattr(model_class, "model_fields", {}))

    def _failure(self, purpose: str, exc: Exception) -> Exception:
        """The exception a provider error becomes: an overflow to retry, or one line."""
        text = str(exc)
        overflow = parse_overflow(text)
        if overflow is not None:
            return _Overflow(overflow, exc)
        _, name = model_identity(self.model)
        if "ollama" in self.provider_name.lower() and name and _MISSING.search(text):
            return ModelError(ollama_missing_message(name, model_identity(self.model)[0]))
        failed = foreign_error("model", exc, lambda cause: (
            f"{self.provider_name} call for {purpose!r} failed at {self.server}: {cause}"))
        return failed if failed is not None else ModelError(cause_of(exc))

    # ------------------------------------------------------------ the two retries

    def _refit(self, purpose: str, overflow: _Overflow, system: str, user: str,
               cap: int | None) -> tuple[str, int | None]:
        """The user prompt cut to what the server said fits, and the reply cap to send."""
        said = overflow.overflow
        reply_tokens = cap or self.max_tokens
        if said.window:
            self._learn(said.window)
            reply_tokens = min(reply_tokens, said.window // 2)
        window = said.window or self.context_size
        room_tokens = window - reply_tokens - PROMPT_OVERHEAD_TOKENS
        total = len(system) + len(user)
        if said.prompt_tokens:  # the server counted: use its own characters per token
            target = int(room_tokens * total / said.prompt_tokens * SHRINK_MARGIN)
        else:
            target = room_tokens * PROMPT_CHARS_PER_TOKEN
        # Always smaller than what was refused; by half when the server gave no window,
        # since the window planned for was evidently wrong and there is one retry.
        ceiling = total * (SHRINK_MARGIN if said.window else UNSTATED_SHRINK)
        target = min(target, int(ceiling)) - len(system)
        if target < MIN_USER_CHARS:
            raise ModelError(
                f"{self.server} has room for only {window:,} tokens, too few for the "
                f"{purpose!r} prompt and a {reply_tokens}-token reply - use a model with a "
                "larger context or lower llm.max_tokens"
            ) from overflow.cause
        logger.info("%s refused a %d-character prompt for %s as too long; retrying with "
                    "%d characters", self.server, total, purpose, target + len(system))
        new_cap = reply_tokens if (cap is not None or reply_tokens < self.max_tokens) else None
        return shrink_prompt(user, target), new_cap

    def _learn(self, window: int) -> None:
        """Plan later prompts for the window the server stated, and remember it."""
        url, name = model_identity(self.model)
        remember_window(url, name, window)
        with self._lock:
            if window >= self.context_size:
                return
            old, self.context_size = self.context_size, window
        logger.warning("%s serves a %d-token context window, not %d; later prompts are "
                       "cut to it (set llm.context_size = %d to skip the refused first "
                       "prompt)", self.server, window, old, window)

    def _longer(self, purpose: str, system: str, user: str, cap: int | None,
                reply: _Reply, *, capped: bool) -> _Reply:
        """A reply cut at the token limit: asked once more with more room, or kept.

        Asked again only when thinking took the room (less than half of the reply is
        answer once ``<think>`` is removed): a reasoning model cut mid-thought has said
        nothing yet, and more room is what it needs. A reply that is mostly answer is
        kept as it came: a second call resends the whole prompt for the rest of an
        answer that already says what it found, and a model that ran to the limit of a
        quick answer is usually rambling on (the bundled model: hundreds of tokens per
        question, for nothing the citation checks keep).
        """
        used = cap or self.max_tokens
        room = self.context_size - reply.prompt_tokens - PROMPT_OVERHEAD_TOKENS
        larger = min(used * 2, room)
        if (not capped and self._takes_max_tokens and larger >= used + used // 4
                and _mostly_thinking(reply.text) and not _looping(reply.text)):
            logger.info("reply for %s stopped at %d tokens; asking once more with %d",
                        purpose, used, larger)
            try:
                again = self._call(purpose, system, user, larger)
            except _Overflow:
                again = reply
            if not again.cut:
                return again
            reply = again
        with self._lock:
            self._cut += 1
        logger.warning("the reply for %s from %s stopped at the token limit and is kept as "
                       "it came - raise llm.max_tokens for complete replies",
                       purpose, self.server)
        return reply

    @staticmethod
    def _count_tokens(reply: object, prompt: str, completion: str) -> tuple[int, int]:
        """Token counts as the provider reports them, else estimated from characters."""
        usage = getattr(reply, "usage_metadata", None)
        if usage and (usage.get("input_tokens") or usage.get("output_tokens")):
            return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
        return _estimate_tokens(prompt), _estimate_tokens(completion)


SHRINK_MARGIN = 0.9
"""A cut prompt aims a tenth under what the numbers say fits, for the chat template."""

UNSTATED_SHRINK = 0.5
"""How much of a refused prompt is sent again when the server stated no window."""

MIN_USER_CHARS = 200
"""Below this a cut prompt has lost the question's sources; failing says so instead."""

_MISSING = re.compile(r"model ['\"]?[^'\"\s]+['\"]? not found|try pulling it", re.I)


@dataclass(frozen=True)
class _Reply:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cut: bool


def _messages(model: ChatModel, system: str, user: str) -> list[Any]:
    """The prompt as ``model`` takes it: plain :class:`ChatMessage` values for the
    bundled model, LangChain messages (imported here, on first use) for the others."""
    if isinstance(model, LlamaCppChatModel):
        plain = [ChatMessage("system", system)] if system else []
        return [*plain, ChatMessage("human", user)]
    from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

    messages: list[BaseMessage] = []
    if system:
        messages.append(SystemMessage(content=system_content(model, system)))
    messages.append(HumanMessage(content=user))
    return messages


class _Overflow(Exception):
    """A provider refused the prompt as too long; carries what it said."""

    def __init__(self, overflow: ContextOverflow, cause: Exception) -> None:
        super().__init__(str(cause))
        self.overflow = overflow
        self.cause = cause


def _stopped_at_limit(reply: object) -> bool:
    """Whether the provider says the reply ended at the token limit."""
    meta = getattr(reply, "response_metadata", None) or {}
    return (meta.get("finish_reason") == "length" or meta.get("done_reason") == "length"
            or meta.get("stop_reason") == "max_tokens")


def _mostly_thinking(text: str) -> bool:
    """Less than half of ``text`` is left once its ``<think>`` sections are removed."""
    return len(strip_thinking(text).strip()) * 2 < len(text.strip())


def _looping(text: str) -> bool:
    """Whether a reply's last words already came before: a small model repeating itself."""
    tail = " ".join(text.split()[-8:])
    return len(tail) >= 20 and " ".join(text.split()).count(tail) > 1


CACHE_MARK: dict[str, str] = {"type": "ephemeral"}
"""Anthropic's marker for "cache the prompt up to here" (kept five minutes)."""


def caches_marked_prompts_only(model: ChatModel) -> bool:
    """Whether ``model``'s provider caches only the prompt blocks a request marks.

    OpenAI and vLLM cache any repeated prefix on their own; Anthropic caches nothing
    unless a block carries ``cache_control``. Told by class (``ChatAnthropic``, only
    when its package is already imported: it is, whenever such a model exists), or by
    an ``caches_marked_prompts_only`` attribute a plugin's model sets.
    """
    if getattr(model, "caches_marked_prompts_only", False):
        return True
    module = sys.modules.get("langchain_anthropic")
    chat_anthropic = getattr(module, "ChatAnthropic", None) if module is not None else None
    return isinstance(chat_anthropic, type) and isinstance(model, chat_anthropic)


def system_content(model: ChatModel, system: str) -> str | list[str | dict[str, Any]]:
    """The system message's content: the text, marked for the provider's prompt cache
    where the provider caches only what is marked.

    The system prompt is the part every call of a run shares (reports' parts have one
    :data:`~deepcite.research.report.builder.SECTION_SYSTEM`), so it is the one breakpoint:
    a provider that caches prompts above a minimum length (Anthropic: about 1,024
    tokens) reads it back at a tenth of the price from the second call on, and ignores
    the mark below that length, at no cost.
    """
    if not caches_marked_prompts_only(model):
        return system
    return [{"type": "text", "text": system, "cache_control": dict(CACHE_MARK)}]


def cached_prompt_tokens(reply: object) -> int:
    """Prompt tokens a reply says came from the provider's prompt cache.

    LangChain puts what OpenAI (``prompt_tokens_details.cached_tokens``), vLLM and
    Anthropic (``cache_read_input_tokens``) report under ``usage_metadata``'s
    ``input_token_details.cache_read``; 0 when the provider says nothing.
    """
    usage = getattr(reply, "usage_metadata", None) or {}
    details = usage.get("input_token_details") or {}
    try:
        return max(0, int(details.get("cache_read") or 0))
    except (TypeError, ValueError):
        return 0

