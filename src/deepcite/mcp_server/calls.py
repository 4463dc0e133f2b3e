"""What every MCP tool call shares: its caller, the settings read afresh, its arguments
checked and its reply built.

Tools answer with a :class:`CallToolResult` they build themselves (:func:`text_result`,
:func:`tool_error`): the Markdown text a model reads, plus structured content for
clients that use it. A :class:`~deepcite.errors.DeepciteError` comes back as a tool
error with its one-line message; the SDK's own wrapping would prefix it and, for
anything else, hide it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent

from deepcite.config import Settings, load_settings
from deepcite.errors import InputError
from deepcite.mcp_server.auth import caller_of
from deepcite.runs.caller import Caller
from deepcite.runs.checks import MAX_NAME_CHARS, text_problem
from deepcite.security.terminal import one_line

MAX_RESULTS = 50
"""The most hits ``search`` and ``search_collection`` return: more would flood the
model's context, not inform it."""

Overrides = dict[str, Any]


def caller(ctx: Context) -> Caller:
    """Who calls this tool (:func:`~deepcite.mcp_server.auth.caller_of`)."""
    return caller_of(ctx.request_context.request)


def fresh_settings(overrides: Overrides | None = None) -> Settings:
    """Settings read afresh per call, so a config edit applies without a restart."""
    return load_settings({k: v for k, v in (overrides or {}).items() if v is not None})


# ------------------------------------------------------------------ arguments


def require_text(value: str, what: str) -> str:
    """``value`` if it is text by the API's own test (:func:`text_problem`)."""
    problem = text_problem(value, what)
    if problem:
        raise InputError(problem)
    return value


def require_name(value: str, what: str) -> str:
    """``value`` if it is no longer than any name of a ``what`` can be."""
    if len(value) > MAX_NAME_CHARS:
        raise InputError(f"The {what} name is longer than {MAX_NAME_CHARS} characters - "
                         f"no {what} has such a name")
    return value


def require_count(value: int, what: str) -> int:
    """``value`` if it is a count of hits between 1 and :data:`MAX_RESULTS`."""
    if value < 1 or value > MAX_RESULTS:
        raise InputError(f"{what} must be between 1 and {MAX_RESULTS}, not {value}")
    return value


# ------------------------------------------------------------------ replies


def text_result(text: str, structured: Mapping[str, Any] | None = None,
                *extra: str) -> CallToolResult:
    """A tool's answer: ``text`` (and ``extra`` lines) for the model, ``structured``
    as plain JSON for clients that read it."""
    content = [TextContent(type="text", text=text)]
    content.extend(TextContent(type="text", text=more) for more in extra)
    return CallToolResult(content=list(content),
                          structured_content=_plain(structured) if structured else None)


def tool_error(message: str) -> CallToolResult:
    """A tool error the model can read and act on: one line, no traceback."""
    return CallToolResult(content=[TextContent(type="text", text=one_line(message))],
                          is_error=True)


def _plain(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` as plain JSON types (source metadata may hold dates or paths)."""
    plain: dict[str, Any] = json.loads(json.dumps(data, default=str))
    return plain
