"""Reading what a chat model wrote.

Small models (the bundled SmolLM2 among them) rarely follow a format exactly: they wrap
JSON in Markdown fences, leave a trailing comma, number a list they were asked to give as
JSON, or prefix each query with ``Query:``. Reasoning models add ``<think>`` blocks. The
research layer must still get usable questions out of such replies, so every function
here is lenient and none of them raises on bad model output: a reply that cannot be read
gives ``None`` or an empty list, and the caller decides what to do then.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from typing import Any

import json_repair

logger = logging.getLogger(__name__)

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)

# A list marker at the start of a line: "- ", "* ", "• ", "1. ", "2) ", "(3) ", "[4] ", "#5 ".
_BULLET = re.compile(r"^\s*(?:[-*•+‣◦]+|\(?\d{1,3}[.):]|\[\d{1,3}\]|#\d{1,3}[.):]?)(?:\s+|$)")
# A label such as "Q:", "Q1:", "Query:", "Query 2:", "Question:", "Search query:".
_LABEL = re.compile(
    r"^\s*(?:q\d{0,3}|query(?:\s*\d{1,3})?|question(?:\s*\d{1,3})?|search(?:\s+query)?)"
    r"\s*[:.)-]\s*",
    re.IGNORECASE,
)
# Where JSON starts: a line opening with a bracket or brace, or an array of strings or
# objects after a colon ('Queries: ["a", "b"]'). Brackets inside prose or list items
# ('- see ["x"] here', '[1] ...' citations) are not a start.
_JSON_START = re.compile(r"^[ \t]*(?P<start>[\[{])|:[ \t]*(?P<inline>\[)\s*[\"{]", re.MULTILINE)
_BOLD = re.compile(r"(\*\*|__)(.*?)\1")
_QUOTES = "\"'`“”‘’«»"
_MAX_ITEM_CHARS = 300


def content_text(content: str | list[str | dict[Any, Any]]) -> str:
    """The text of a message's content: a plain string, or the text blocks of a list.

    Anthropic (and LangChain's standard content blocks) return a list of blocks; only
    ``{"type": "text"}`` blocks and bare strings carry answer text, others (tool use,
    reasoning) are skipped.
    """
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


def strip_thinking(text: str) -> str:
    """Remove reasoning-model ``<think>`` sections, leaving only the answer.

    Complete ``<think>...</think>`` blocks are removed. A stray ``</think>`` (the opening
    tag was part of the prompt template) means everything before it was thinking, so
    only the text after the last one is kept. An unclosed ``<think>`` (the reply was cut
    off while the model was still thinking) drops everything from it to the end.
    """
    if not text:
        return ""
    cleaned = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(cleaned))
    if closes:
        cleaned = cleaned[closes[-1].end() :]
    opened = _THINK_OPEN.search(cleaned)
    if opened:
        cleaned = cleaned[: opened.start()]
    return cleaned.strip()


def _unfence(text: str) -> str:
    """The inside of the first Markdown code fence, or the text itself when there is none."""
    match = _FENCE.search(text)
    if match and match.group(1).strip():
        return match.group(1).strip()
    return text.strip()


def parse_json_lenient(text: str) -> Any | None:
    """Parse JSON a model wrote, repairing what can be repaired.

    Thinking blocks and code fences are removed first; strict :func:`json.loads` is
    tried before ``json_repair`` so well-formed replies are never "repaired". Returns
    ``None`` when nothing JSON-like could be read (including an empty string result,
    which is how ``json_repair`` reports plain prose).
    """
    if not text or not text.strip():
        return None
    body = _unfence(strip_thinking(text))
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        pass  # not strict JSON; fall through to the repairing parser
    try:
        value = json_repair.loads(body)
    except (ValueError, TypeError, RecursionError, IndexError, KeyError) as exc:
        logger.debug("json_repair could not read model output: %s", exc)
        return None
    if value is None or value == "":
        return None
    return value


def _json_items(value: Any) -> list[str] | None:
    """Strings from a parsed JSON reply: a list, or the first list inside an object."""
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        # {"query": "..."} holds one item; {"queries": [...]} holds the list.
        value = lists[0] if lists else [v for v in value.values() if isinstance(v, str)]
    if not isinstance(value, list):
        return None
    items: list[str] = []
    for entry in value:
        if isinstance(entry, str):
            items.append(entry)
        elif isinstance(entry, int | float) and not isinstance(entry, bool):
            items.append(str(entry))
        elif isinstance(entry, dict):
            # [{"query": "..."}]: take the first string value.
            first = next((v for v in entry.values() if isinstance(v, str)), None)
            if first is not None:
                items.append(first)
    return items


_HEADING = re.compile(r"^\s*#{1,6}\s+")


def _clean_item(raw: str) -> str:
    item = _HEADING.sub("", raw.strip(), count=1)  # "# 1. query": a Markdown heading
    item = _BULLET.sub("", item, count=1)
    item = _BOLD.sub(r"\2", item)
    item = _LABEL.sub("", item, count=1)
    item = item.strip().rstrip(",;").strip()
    # Quotes may wrap the item, or be left over from a broken JSON array ("a",). Only a
    # leading quote starts the unwrapping, so "the 'Matrix'" keeps its inner quotes.
    while item and item[0] in _QUOTES:
        item = item.strip(_QUOTES).strip().rstrip(",;").strip()
    return item.strip("*_ ").strip()


def _is_marked(line: str) -> bool:
    line = _HEADING.sub("", line, count=1)
    return bool(_BULLET.match(line) or _LABEL.match(_BOLD.sub(r"\2", line.strip())))


def _line_items(body: str) -> list[str]:
    # Lines that are only JSON brackets or fence markers carry no item.
    lines = [
        line
        for line in body.splitlines()
        if line.strip() and line.strip() not in "[]{}" and not line.strip().startswith("```")
    ]
    marked = [line for line in lines if _is_marked(line)]
    # When some lines are list items, the others are preamble or commentary.
    chosen = marked or lines
    items = []
    for line in chosen:
        item = _clean_item(line)
        if item.endswith(":") or item.startswith("{"):
            continue  # "Here are the queries:", or a fragment of a JSON object
        items.append(item)
    return items


def _dedupe(items: Iterable[str], limit: int) -> list[str]:
    seen: set[str] = set()
    result: list[str] = []
    for item in items:
        cleaned = " ".join(item.split())
        if not cleaned or len(cleaned) > _MAX_ITEM_CHARS:
            continue
        key = cleaned.casefold()
        if key in seen:
            continue
        seen.add(key)
        result.append(cleaned)
        if len(result) >= limit:
            break
    return result


def parse_list(text: str, *, limit: int) -> list[str]:
    """Items from a reply that was asked to be a list, at most ``limit`` of them.

    Accepts a JSON array, a JSON object holding a list, numbered or bulleted lines, and
    lines labelled ``Q:``/``Query:``. Items lose quotes, Markdown bold, list markers and
    trailing commas; empty items, items over 300 characters and preamble lines ending in
    ``:`` are dropped; duplicates (ignoring case) are dropped keeping the first. Never
    raises: unreadable output gives an empty list.
    """
    if limit <= 0 or not text:
        return []
    answer = strip_thinking(text)
    if not answer:
        return []
    body = _unfence(answer)
    json_start = _JSON_START.search(body)
    if json_start:
        begin = (
            json_start.start("start") if json_start.group("start") else json_start.start("inline")
        )
        items = _json_items(parse_json_lenient(body[begin:]))
        # Bare numbers are never queries; they come from misreading "[1] ..." lines as JSON.
        items = [item for item in items or [] if not item.strip().isdigit()]
        if items:
            cleaned = _dedupe((_clean_item(item) for item in items), limit)
            if cleaned:
                return cleaned
    return _dedupe(_line_items(body), limit)
