"""``deepcite mcp``: serve deepcite's tools to an assistant over the Model Context Protocol.

The SDK is an extra (``deepcite[mcp]``), imported when the command runs, so that
``deepcite --help`` and every other command work without it. Over stdio, stdout is the
protocol channel: nothing here prints to it, and errors go to stderr.

Over HTTP, once user accounts exist (``deepcite users add``), every request needs a
personal token, ``Authorization: Bearer dc_...`` (``deepcite users token NAME``), and
each caller sees only their own runs and the collections they may read; without
accounts the server has no authentication, hence loopback unless ``--allow-remote``.
"""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from deepcite.cli.common import fail, user_errors
from deepcite.security.hosts import is_loopback

DEFAULT_PORT = 8766


class McpTransport(enum.StrEnum):
    """How a client reaches the server."""

    stdio = "stdio"
    http = "http"


def mcp_command(
    transport: Annotated[McpTransport, typer.Option(
        help="stdio: the client starts this command and talks over its stdin/stdout "
             "(Claude Desktop, editors); http: streamable HTTP at http://HOST:PORT/mcp.")
    ] = McpTransport.stdio,
    host: Annotated[str, typer.Option(
        help="Address to bind for --transport http (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(
        min=1, max=65535, help="Port for --transport http.")] = DEFAULT_PORT,
    allow_remote: Annotated[bool, typer.Option(
        "--allow-remote", help="Allow a --host other than loopback. Without user "
        "accounts the server has no authentication: anyone who can reach the port can "
        "run research on your model and keys, read your collections and your history "
        "of runs. With accounts (deepcite users add) every request needs a personal "
        "token.")] = False,
) -> None:
    """Serve research, search, collections and stored reports as MCP tools."""
    if transport is McpTransport.http and not is_loopback(host) and not allow_remote:
        fail(f"Refusing to serve on {host}: without user accounts the MCP server has no "
             "authentication, so anyone who can reach it could use your model, "
             "collections and history - bind to 127.0.0.1, or pass --allow-remote if "
             "that is intended (with accounts every request needs a personal token)", 2)
    try:
        from deepcite.mcp_server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] != "mcp":
            raise
        fail("The MCP server needs the MCP SDK: pip install 'deepcite[mcp]'", 2)
    if transport is McpTransport.stdio:
        serve("stdio")
    else:
        from deepcite.web.login_throttle import LoginThrottle

        with user_errors():  # bad settings (web.trusted_proxies, read at start): one line
            serve("streamable-http", host=host, port=port, throttle=LoginThrottle())
