"""Generating search queries with the model, robust to small models.

Replies are parsed leniently and then filtered: queries that repeat the question,
repeat each other (near-duplicates included) or repeat the prompt are dropped. When
nothing usable is left the generator returns an empty list and the caller falls back
to searching the question itself, so a bad reply shortens a run and never breaks it.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations.handlers.base import Completer
from deepcite.citations.text import content_words, normalised_words
from deepcite.llm import parse_list
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.types import SearchResult

INITIAL_SYSTEM = (
    "You write web and document search queries. Reply with one query per line and "
    "nothing else."
)
FOLLOWUP_SYSTEM = (
    "You plan research. From what was found so far, write search queries that would "
    "find what is still missing. Reply with one query per line and nothing else. "
    + UNTRUSTED_NOTICE
)
MAX_QUERY_CHARS = 200
NEAR_DUPLICATE = 0.8
CONTEXT_SNIPPET_CHARS = 300
QUERY_LIST_TOKENS = 160  # a few short lines; more is the model rambling
_PROMPT_ECHOES = ("search quer", "one query per line", "<source", "write ", "reply with")


class QuestionGenerator:
    """Turns a question (and what was found) into new search queries."""

    def __init__(self, client: Completer) -> None:
        self._client = client

    def initial(self, question: str, count: int, asked: Sequence[str] = ()) -> list[str]:
        """``count`` sub-queries that together cover ``question``, none in ``asked``."""
        if count <= 0:
            return []
        user = (
            f"Question: {question}\n\nWrite {count} short search queries that together "
            f"cover this question."
        )
        reply = self._client.complete("questions", INITIAL_SYSTEM, user,
                                      max_tokens=QUERY_LIST_TOKENS)
        return filter_queries(parse_list(reply, limit=count * 3), question, asked, count)

    def followups(
        self, question: str, found: Sequence[SearchResult], asked: Sequence[str], count: int
    ) -> list[str]:
        """``count`` follow-up queries, given recent results and the queries asked."""
        if count <= 0:
            return []
        budget = self._client.prompt_budget_chars - 600
        blocks: list[str] = []
        used = 0
        for result in reversed(found):  # newest first, so they survive the budget
            snippet = " ".join(result.snippet.split())[:CONTEXT_SNIPPET_CHARS]
            block = fence(snippet, title=result.title)
            if used + len(block) > budget:
                break
            blocks.append(block)
            used += len(block)
        asked_text = "\n".join(f"- {q}" for q in asked)
        user = (
            f"Question: {question}\n\nQueries already searched:\n{asked_text}\n\n"
            "Found so far:\n\n" + "\n\n".join(reversed(blocks)) +
            f"\n\nWrite {count} new search queries for what is still missing."
        )
        reply = self._client.complete("followups", FOLLOWUP_SYSTEM, user,
                                      max_tokens=QUERY_LIST_TOKENS)
        return filter_queries(parse_list(reply, limit=count * 3), question, asked, count)


def filter_queries(
    candidates: Sequence[str], question: str, asked: Sequence[str], limit: int
) -> list[str]:
    """Keep usable, new, mutually distinct queries, at most ``limit``."""
    kept: list[str] = []
    seen = [_key(question), *(_key(q) for q in asked)]
    for raw in candidates:
        query = " ".join(raw.split()).strip(" \"'`")
        if not _usable(query):
            continue
        words = _key(query)
        if any(_similar(words, other) for other in seen):
            continue
        kept.append(query)
        seen.append(words)
        if len(kept) >= limit:
            break
    return kept


def _usable(query: str) -> bool:
    lowered = query.lower()
    return (
        3 <= len(query) <= MAX_QUERY_CHARS
        and bool(content_words(query))
        and not any(echo in lowered for echo in _PROMPT_ECHOES)
    )


def _key(text: str) -> frozenset[str]:
    return frozenset(normalised_words(text))


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= NEAR_DUPLICATE
