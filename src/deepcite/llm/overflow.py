"""Reading a "your prompt is too long" error, and cutting the prompt to what fits.

Servers say it in their own words, and most say the numbers: OpenAI, vLLM and
llama-cpp-python's server ("maximum context length is 2048 tokens ... 2100 in the
messages"), llama.cpp's ``llama-server`` ("exceeds the available context size", with
``n_prompt_tokens`` and ``n_ctx``), llama.cpp in-process ("Requested tokens (N) exceed
context window of M"), Anthropic ("prompt is too long: N tokens > M maximum") and Ollama
("input length exceeds the context length"). :func:`parse_overflow` turns any of them
into a :class:`ContextOverflow`; :func:`shrink_prompt` cuts a prompt to a size.

The client sees only the messages, not how the research layer built them, so the cut
knows one thing about their shape: source blocks (``<source ...>...</source>``, best
first) come before the question. It keeps the head, drops source blocks from the end,
cuts the last one kept at a word if it must, and keeps everything after the last block -
the question and the answer cue - whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A cut prompt says so, so the model does not take the remaining sources for all.
CUT_NOTE = "(Some sources were left out to fit the model's context window.)"

_SOURCE_END = "</source>"
_MIN_BLOCK_CHARS = 200

_WINDOW = (
    r"maximum context length is (\d+)",
    r"context window of (\d+)",
    r"(?:tokens )?> (\d+) maximum",
    r"""["']?n_ctx["']?\s*[:=]\s*(\d+)""",
    r"exceed context limit: \d+ \+ \d+ > (\d+)",
    r"maximum number of tokens allowed \((\d+)\)",
    r"context length (?:of|is) (\d+)",
)
_PROMPT = (
    r"\((\d+) in the messages",
    r"request has (\d+) input tokens",
    r"messages resulted in (\d+) tokens",
    r"(\d+) in your prompt",
    r"Requested tokens \((\d+)\)",
    r"prompt is too long: (\d+) tokens",
    r"""["']?n_prompt_tokens["']?\s*[:=]\s*(\d+)""",
    r"exceed context limit: (\d+) \+",
    r"input token count \((\d+)\)",
)
_SIGNS = (
    "context_length_exceeded", "maximum context length", "exceed_context_size",
    "exceeds the available context size", "exceed context window", "prompt is too long",
    "exceeds the context length", "exceeds maximum context length",
    "input length exceeds", "exceed context limit", "context window exceeded",
    "too many tokens", "maximum number of tokens allowed",
)


@dataclass(frozen=True)
class ContextOverflow:
    """A server refused a prompt as too long; the numbers are what it said, if it did."""

    window: int | None
    prompt_tokens: int | None


def _first_number(patterns: tuple[str, ...], text: str) -> int | None:
    for pattern in patterns:
        match = re.search(pattern, text, re.I)
        if match and int(match.group(1)) > 0:
            return int(match.group(1))
    return None


def parse_overflow(message: str) -> ContextOverflow | None:
    """The overflow an error message describes, or ``None`` for any other error."""
    lowered = message.lower()
    if not any(sign in lowered for sign in _SIGNS):
        return None
    return ContextOverflow(window=_first_number(_WINDOW, message),
                           prompt_tokens=_first_number(_PROMPT, message))


def _cut_at_word(text: str, room: int) -> str:
    cut = text[: max(0, room)]
    space = cut.rfind(" ")
    return cut[:space] if space > room // 2 else cut


def _cut_block(block: str, room: int) -> str | None:
    """A ``<source>`` block cut to ``room`` with its closing tag kept, or ``None``."""
    opening_end = block.find(">") + 1
    body_room = room - opening_end - len(_SOURCE_END) - 2
    if opening_end <= 0 or body_room < _MIN_BLOCK_CHARS:
        return None
    body = block[opening_end:].removesuffix(_SOURCE_END).strip()
    return f"{block[:opening_end]}\n{_cut_at_word(body, body_room)}\n{_SOURCE_END}"


def shrink_prompt(text: str, target_chars: int) -> str:
    """``text`` cut to about ``target_chars``, keeping its head and its ending whole.

    With source blocks: the ending is everything after the last block (the question),
    blocks are dropped from the end and the last one kept is cut at a word. Without
    them: the last paragraph is kept and the text before it cut at a word. The ending
    is itself cut (from its start) only if it alone would not fit.
    """
    if len(text) <= target_chars:
        return text
    last = text.rfind(_SOURCE_END)
    if last >= 0:
        head, ending = text[: last + len(_SOURCE_END)], text[last + len(_SOURCE_END):]
    else:
        split = text.rstrip().rfind("\n\n")
        head, ending = (text[:split], text[split:]) if split > 0 else ("", text)
    ending = ending.strip()
    if len(ending) > target_chars // 2:
        ending = ending[len(ending) - target_chars // 2:]
    room = target_chars - len(ending) - len(CUT_NOTE) - 4
    kept = _keep_head(head, room) if last >= 0 else _cut_at_word(head, room)
    return "\n\n".join(part for part in (kept.rstrip(), CUT_NOTE, ending) if part)


def _keep_head(head: str, room: int) -> str:
    """Whole source blocks from the start while they fit, then a cut one if it is useful."""
    pieces = re.split(r"(?<=</source>)", head)
    kept: list[str] = []
    used = 0
    for piece in pieces:
        if used + len(piece) <= room:
            kept.append(piece)
            used += len(piece)
            continue
        start = piece.find("<source")
        if start >= 0:
            lead = piece[:start]
            block = _cut_block(piece[start:], room - used - len(lead))
            if block is not None:
                kept.append(lead + block)
        elif not kept:
            kept.append(_cut_at_word(piece, room))
        break
    return "".join(kept)
