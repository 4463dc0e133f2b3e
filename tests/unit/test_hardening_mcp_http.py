"""``deepcite mcp --transport http`` checks Host and Origin on every loopback address, not
only on the three the SDK knows by name (DNS rebinding)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from deepcite.mcp_server import transport_security_for
from tests.servers import PATIENCE, accepts, free_port, stop, wait_until

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.enable_socket
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "probe", "version": "1"}}}


@pytest.fixture
def mcp_http(tmp_path: Path) -> Iterator[tuple[str, int]]:
    host = "127.0.0.2"  # loopback, but not a name the SDK protects by itself
    port = free_port(host)
    env = {**os.environ, "DEEPCITE_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "deepcite", "mcp", "--transport", "http", "--host", host,
         "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(accepts(host, port), "deepcite mcp --transport http",
                   alive=lambda: process.poll() is None)
        yield host, port
    finally:
        stop(process)


def _post(host: str, port: int, **headers: str) -> int:
    reply = httpx.post(f"http://{host}:{port}/mcp", content=json.dumps(INITIALIZE),
                       headers={"Content-Type": "application/json",
                                "Accept": "application/json, text/event-stream", **headers},
                       timeout=PATIENCE)
    return reply.status_code


def test_a_rebound_host_or_a_foreign_origin_is_refused_on_any_loopback_address(
        mcp_http: tuple[str, int]) -> None:
    host, port = mcp_http
    assert _post(host, port, Host="evil.example") == 421
    assert _post(host, port, Host=f"evil.example:{port}") == 421
    assert _post(host, port, Origin="http://evil.example") == 403
    assert _post(host, port, Origin=f"http://{host}:{port + 1}") == 403  # another port
    assert _post(host, port) == 200  # its own name and port


def test_the_allowed_names_follow_the_bind_address() -> None:
    loopback = transport_security_for("127.0.0.5", 9000)
    assert set(loopback.allowed_hosts) == {"127.0.0.5:9000", "127.0.0.1:9000",
                                           "localhost:9000", "[::1]:9000"}
    assert "http://localhost:9000" in loopback.allowed_origins
    assert transport_security_for("::1", 9000).enable_dns_rebinding_protection
    remote = transport_security_for("10.1.2.3", 9000)
    assert remote.allowed_hosts == ["10.1.2.3:9000"]
