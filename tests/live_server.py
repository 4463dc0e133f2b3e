"""An ASGI app served by real uvicorn on 127.0.0.1 in a thread, for tests about what
crosses the wire (raw sockets, concurrent clients) rather than what TestClient sees;
:func:`running` serves a ``uvicorn.Config`` made as deepcite's commands make theirs."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from starlette.types import ASGIApp


@contextmanager
def serving(app: ASGIApp) -> Iterator[int]:
    """Serve ``app`` on a free loopback port until the block ends; yields the port once
    ``/api/v1/health`` answers (or after about 10 s of trying)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as probe:
            for _ in range(200):
                try:
                    probe.get("/api/v1/health")
                    break
                except httpx.TransportError:
                    threading.Event().wait(0.05)
        yield port
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def free_port() -> int:
    """A loopback port free at the time of asking."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running(config: uvicorn.Config) -> Iterator[str]:
    """``config`` served in a thread until the block ends; yields its base URL once
    uvicorn says it has started (or fails after about 30 s of not starting)."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://{config.host}:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
