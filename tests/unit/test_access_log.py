"""No secret from a URL reaches the access log (:mod:`deepcite.security.access_log`).

A watch's feed address holds its token (the store keeps only the hash); uvicorn writes
every request line whole. Through real servers configured as ``deepcite serve`` and
``deepcite mcp --transport http`` configure uvicorn, the line the operator sees keeps
the route and loses the secret; and the rule on its own, for the shapes a secret
takes in a URL.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from deepcite.config import load_settings
from deepcite.mcp_server import build_server, http_app, http_config
from deepcite.security.access_log import REDACTED, TOKEN_PREFIXES, redact_url
from deepcite.store import HistoryStore
from deepcite.store.users_ops import TOKEN_PREFIX
from deepcite.store.watches_ops import FEED_TOKEN_PREFIX
from deepcite.watches.service import feed_path
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.front_door import allowed_hosts_for
from deepcite.web.login_throttle import LoginThrottle
from deepcite.web.serving import uvicorn_config
from tests.servers import PATIENCE, free_port, running
from tests.unit.test_proxy_trust import StoreExecutor

FEED = "dcf_" + "Abc-def_123" * 3
API = "dc_" + "Zyx_wvu-987" * 3


def test_the_prefixes_are_deepcites_tokens() -> None:
    assert set(TOKEN_PREFIXES) == {TOKEN_PREFIX, FEED_TOKEN_PREFIX}


@pytest.mark.parametrize(("target", "secrets", "kept"), [
    (f"/feeds/watches/{FEED}.atom", [FEED, FEED[4:]], "/feeds/watches/"),
    (f"/feeds/watches/%64cf_{FEED[4:]}.atom", [FEED[4:]], "/feeds/watches/"),  # encoded
    (f"/feeds/watches/{FEED}.atom?x=1", [FEED[4:]], "?x=1"),
    (f"/mcp?token={API}", [API[3:]], "/mcp?token="),
    ("/x?access_token=anything-at-all&page=2", ["anything-at-all"], "&page=2"),
    ("/x?api_key=k3y&sig=s1g&code=c0de&password=pa55", ["k3y", "s1g", "c0de", "pa55"],
     "/x?api_key="),
    (f"/x?q={FEED}", [FEED[4:]], "/x?q="),
    (f"/x?{API}", [API[3:]], "/x?"),
    (f"/api/v1/tokens/{API}/revoke", [API[3:]], "/revoke"),
])
def test_a_secret_in_a_url_is_redacted_and_the_rest_kept(target: str, secrets: list[str],
                                                         kept: str) -> None:
    logged = redact_url(target)
    assert not [secret for secret in secrets if secret in logged]
    assert REDACTED in logged and kept in logged


@pytest.mark.parametrize("target", [
    "/api/v1/research/0123456789abcdef0123456789abcdef/events?after=3",
    "/collections/notes_dc/reindex", "/collections/old_dc_archive/reindex",
    "/history?q=why&collection=docs", "/", "GET",
    "127.0.0.1:51234", "/runs/abc/compare/def"])
def test_a_url_without_a_secret_is_logged_as_it_is(target: str) -> None:
    assert redact_url(target) == target


@contextmanager
def _access_log() -> Iterator[list[str]]:
    """The access log's messages, as every handler of it receives them (entered after
    the server's config is made: making it configures logging afresh)."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    keep = Keep()
    access = logging.getLogger("uvicorn.access")
    access.addHandler(keep)
    try:
        yield lines
    finally:
        access.removeHandler(keep)


@pytest.mark.enable_socket
def test_a_feed_address_reaches_the_access_log_without_its_token(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: HistoryStore,
        capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    _, token = store.add_watch(name="w", request={"question": "Why?"},
                               schedule="on demand", targets=[], next_run_at=None)
    state = WebState(settings=load_settings(config_files=[]),
                     executor=StoreExecutor(store),
                     allowed_hosts=allowed_hosts_for("127.0.0.1", []))
    port = free_port()
    config = uvicorn_config(create_app(state), host="127.0.0.1", port=port)
    with _access_log() as access_lines, running(config) as url:
        assert httpx.get(url + feed_path(token), timeout=PATIENCE).status_code == 200
        quoted = feed_path(token).replace("dcf_", "%64cf_")
        assert httpx.get(url + quoted, timeout=PATIENCE).status_code == 200
        assert httpx.get(url + f"/api/v1/health?token={token}", timeout=PATIENCE).status_code == 200
    printed = capfd.readouterr().out
    feed_lines = [line for line in access_lines if "/feeds/watches/" in line]
    assert len(feed_lines) == 2 and any("/api/v1/health?token=" in x for x in access_lines)
    for seen in (printed, "\n".join(access_lines)):
        assert token not in seen and token[4:] not in seen
        assert f"GET /feeds/watches/{REDACTED}" in seen


@pytest.mark.enable_socket
def test_mcp_requests_reach_the_access_log_without_a_token_in_their_url(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    port = free_port()
    gate = http_app(build_server(), host="127.0.0.1", port=port, throttle=LoginThrottle())
    try:
        config = http_config(gate, host="127.0.0.1", port=port, log_level="info")
        with _access_log() as access_lines, running(config) as url:
            httpx.get(f"{url}/mcp?token={API}&session={FEED}", timeout=PATIENCE)
    finally:
        gate.close()
    [line] = [line for line in access_lines if "/mcp" in line]
    assert API not in line and FEED not in line and REDACTED in line
