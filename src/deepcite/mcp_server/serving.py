"""How ``deepcite mcp`` serves: over stdio, or streamable HTTP behind the token check.

Over stdio the client starts the command and talks over its stdin/stdout: nothing here
prints, since stdout is the protocol channel, and logs go to stderr. Over HTTP the SDK's
app sits behind :class:`~deepcite.mcp_server.auth.TokenGate` and DNS-rebinding
protection, run by uvicorn with deepcite's settings. Either way SIGTERM stops the
server as Ctrl-C does, after the runs in flight are stored.
"""

from __future__ import annotations

import signal
import socket
import threading
from types import FrameType
from typing import TYPE_CHECKING, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from deepcite.mcp_server.auth import Throttle, TokenGate
from deepcite.mcp_server.calls import fresh_settings
from deepcite.mcp_server.server import build_server
from deepcite.runs.recorder import close_active
from deepcite.security.client_address import TrustedProxies
from deepcite.security.hosts import is_loopback
from deepcite.store import HistoryStore

if TYPE_CHECKING:
    import uvicorn


#: How a client reaches the server: the command's stdin/stdout, or HTTP at ``/mcp``.
Transport = Literal["stdio", "streamable-http"]


def http_app(server: MCPServer, *, host: str, port: int, throttle: Throttle) -> TokenGate:
    """``server``'s streamable HTTP app (at ``/mcp``, DNS-rebinding protection for
    ``host``:``port``) behind the token check of user accounts
    (:class:`~deepcite.mcp_server.auth.TokenGate`), which checks tokens against the
    history store of the settings. Close it (``.close()``) when done."""
    app = server.streamable_http_app(transport_security=transport_security_for(host, port),
                                     host=host)
    return TokenGate(app, store=lambda: HistoryStore.open(fresh_settings()), throttle=throttle,
                     proxies=TrustedProxies(fresh_settings().web.trusted_proxies))


def http_config(gate: TokenGate, *, host: str, port: int,
                log_level: str = "warning") -> uvicorn.Config:
    """How ``deepcite mcp --transport http`` runs ``gate``: deepcite's uvicorn settings
    (no proxy headers believed but the named proxies', no secret in the access log -
    see :mod:`deepcite.security.http_server`)."""
    from deepcite.security.http_server import server_config  # uvicorn: HTTP only

    return server_config(gate, host=host, port=port, log_level=log_level)


def serve(transport: Transport = "stdio", *, host: str = "127.0.0.1", port: int = 8766,
          throttle: Throttle | None = None) -> None:
    """Run the server until the client goes (stdio) or the process is stopped (HTTP).
    Over HTTP, ``throttle`` counts wrong tokens per client address (required there:
    ``deepcite mcp`` passes the web app's ``LoginThrottle``)."""
    server = build_server()
    gate = None
    if transport != "stdio":
        if throttle is None:
            raise TypeError("serve() over HTTP needs a throttle for wrong tokens")
        gate = http_app(server, host=host, port=port, throttle=throttle)
    # SIGTERM as an exception, like Ctrl-C: uvicorn (HTTP) re-raises the signal after
    # its shutdown, and its default action would end the process before runs in flight
    # are stored.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        if gate is None:
            server.run("stdio")
        else:
            import uvicorn  # the SDK's own dependency, needed only over HTTP

            anyio.run(uvicorn.Server(http_config(gate, host=host, port=port)).serve)
    except KeyboardInterrupt:
        pass
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
        close_active()
        if gate is not None:
            gate.close()


def transport_security_for(host: str, port: int) -> TransportSecuritySettings:
    """DNS-rebinding protection for an HTTP server bound to ``host``:``port``, whatever
    the address (the SDK turns it on by itself only for the literal ``127.0.0.1``,
    ``localhost`` and ``::1``, so ``127.0.0.2`` was left open). ``Host`` must name this
    server - its bind address, plus the loopback names on loopback, plus the machine's
    names when bound to all interfaces - with this port; ``Origin``, when sent, the
    same over http or https."""
    bare = host.strip().strip("[]").lower()
    names: set[str] = {"127.0.0.1", "localhost", "[::1]"} if is_loopback(bare) else set()
    if bare in ("0.0.0.0", "::"):
        names |= {"127.0.0.1", "localhost", "[::1]", socket.gethostname().lower(),
                  socket.getfqdn().lower()}
    else:
        names.add(f"[{bare}]" if ":" in bare else bare)
    hosts = sorted(f"{name}:{port}" for name in names)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{name}" for name in hosts for scheme in ("http", "https")])


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
