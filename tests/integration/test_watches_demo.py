"""Watches for real: the bundled model, real indexes, the CLI, SMTP and a webhook on loopback.

* A watch over the bundled demo collection, run twice: nothing changed, and the second
  run says so in one line.
* A watch over a small collection of text files that change between its runs - one
  document added, one edited so that the claim the first answer cited no longer holds:
  the second run names exactly that (the new source, the claim that lost its support)
  and nothing that did not change. A ``deepcite serve`` running meanwhile delivers each
  run's notice to a local SMTP server (aiosmtpd) and a webhook receiver, both on loopback.

Runs are quick, one iteration without sub-questions, so each takes well under a minute
of the bundled model on two CPUs.
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.servers import PATIENCE, Proc, free_port, start_process, wait_healthy

httpx = pytest.importorskip("httpx")
aiosmtpd = pytest.importorskip("aiosmtpd.controller")

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DEEPCITE = str(Path(sys.executable).parent / "deepcite")
NOTHING_NEW = re.compile(r"^Run [0-9a-f]{8}: Nothing new since \d{4}-\d\d-\d\d \d\d:\d\d UTC$")

CACHE_QUESTION = "What did we decide about the cache?"
REDIS_CLAIM = "We decided to keep the cache in Redis with a one hour expiry"
MEMCACHED_CLAIM = "In March we decided to move the cache to Memcached with a ten minute expiry"
NOTES = {
    "cache.md": f"# Cache decision\n\n{REDIS_CLAIM}. The database was overloaded by "
                "repeated report queries.\n",
    "team.md": "# Team\n\nThe team meets on Tuesdays to plan the sprint.\n",
    "deploy.md": "# Deploys\n\nWe deploy on Thursdays after the tests pass.\n",
}
#: cache.md edited: the Redis decision is gone from it.
CACHE_EDITED = ("# Cache decision\n\nThe database was overloaded by repeated report queries. "
                "The cache question is still open.\n")
#: The document added between the runs.
REVIEW = f"# Cache review\n\n{MEMCACHED_CLAIM}.\n"


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_LLM_PROVIDER="local",
               OLLAMA_HOST="127.0.0.1:1", NO_COLOR="1", COLUMNS="200",
               DEEPCITE_RESEARCH_ITERATIONS="1",
               DEEPCITE_RESEARCH_QUESTIONS_PER_ITERATION="0", **extra)
    return env


def _run(args: list[str], env: dict[str, str],
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DEEPCITE, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, check=False)


def _ok(args: list[str], env: dict[str, str]) -> str:
    done = _run(args, env)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


# ---------------------------------------------------------------------- the demo


def test_a_watch_over_the_demo_collection_says_nothing_new_in_one_line(
        tmp_path: Path) -> None:
    env = _env(tmp_path / "data")
    added = json.loads(_ok(["watch", "add", "How do I parse command line arguments?",
                            "-c", "demo", "--manual", "--json"], env))
    watch = added["id"]

    first = _ok(["watch", "run", watch[:8]], env)
    assert re.match(r"Run [0-9a-f]{8}: First run: \d+ sources?, \d+ cited claims?\n",
                    first), first
    second = _ok(["watch", "run", watch[:8]], env)
    assert NOTHING_NEW.match(second.strip()), second  # one line, not the report again

    shown = json.loads(_ok(["watch", "show", watch[:8], "--json"], env))
    latest, earlier = shown["runs"][0], shown["runs"][1]
    assert latest["nothing_new"] and latest["previous_run_id"] == earlier["run_id"]
    change = latest["change"]
    for kind in ("new_sources", "vanished_sources", "new_claims", "weakened_claims",
                 "lost_support", "dropped_claims"):
        assert change[kind] == [], (kind, change)
    assert change["kept_sources"], change  # the same sources, found again


# ---------------------------------------------------------------------- receivers


class _Mailbox:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        return "250 Message accepted"


class _Hooks(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _HookHandler)
        self.received: list[tuple[dict[str, str], bytes]] = []


class _HookHandler(BaseHTTPRequestHandler):
    server: _Hooks

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.received.append((dict(self.headers.items()), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def mailbox() -> Iterator[tuple[_Mailbox, int]]:
    box, port = _Mailbox(), free_port()
    controller = aiosmtpd.Controller(box, hostname="127.0.0.1", port=port,
                                     ready_timeout=PATIENCE)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


@pytest.fixture
def hooks() -> Iterator[_Hooks]:
    server = _Hooks()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _serve(env: dict[str, str], logs: Path) -> Proc:
    """``deepcite serve`` on a loopback port, once healthy: its scheduler sends the
    deliveries. Its output goes to ``logs/serve.log``."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_process("serve", [DEEPCITE, "serve", "--host", "127.0.0.1", "--port",
                                   str(port)], env=env, logs=logs)
    try:
        wait_healthy(base, proc)
    except BaseException:
        proc.stop()
        raise
    return proc


def _delivered(count: int, box: _Mailbox, hooks: _Hooks, log: Path) -> None:
    deadline = time.monotonic() + PATIENCE  # a guard against a hang, not a clock
    while time.monotonic() < deadline:
        if len(box.messages) >= count and len(hooks.received) >= count:
            return
        time.sleep(0.2)
    pytest.fail(f"{count} emails and webhooks expected, got {len(box.messages)} and "
                f"{len(hooks.received)}:\n{log.read_text(errors='replace')[-3000:]}")


def _name(url: str) -> str:
    return url.rsplit("/", 1)[-1]


# ---------------------------------------------------------------------- files that change


def test_a_watch_over_changing_files_names_exactly_what_changed_and_delivers_it(
        tmp_path: Path, mailbox: tuple[_Mailbox, int], hooks: _Hooks) -> None:
    from deepcite.watches.delivery.webhook import verify_signature

    box, smtp_port = mailbox
    hook_url = f"http://127.0.0.1:{hooks.server_address[1]}/deepcite"
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text, encoding="utf-8")
    env = _env(tmp_path / "data", DEEPCITE_DELIVERY_SMTP_HOST="127.0.0.1",
               DEEPCITE_DELIVERY_SMTP_PORT=str(smtp_port),
               DEEPCITE_DELIVERY_SMTP_SECURITY="none",
               DEEPCITE_DELIVERY_SMTP_FROM="deepcite@example.org",
               DEEPCITE_DELIVERY_WEBHOOK_ALLOW_PRIVATE_HOSTS="127.0.0.1",
               DEEPCITE_WATCHES_TICK_SECONDS="1")
    _ok(["collection", "add", str(notes), "--name", "notes"], env)
    added = json.loads(_ok(["watch", "add", CACHE_QUESTION, "-c", "notes", "--manual",
                            "--email", "team@example.org", "--webhook", hook_url,
                            "--json"], env))
    watch, secret = added["id"], added["webhook_secret"]
    server = _serve(env, tmp_path)
    log = server.log
    try:
        first = _ok(["watch", "run", watch[:8]], env)
        assert "First run: 1 source, 1 cited claim" in first, first
        _delivered(1, box, hooks, log)

        (notes / "cache.md").write_text(CACHE_EDITED, encoding="utf-8")
        (notes / "cache-review.md").write_text(REVIEW, encoding="utf-8")
        reindexed = _ok(["collection", "add", str(notes), "--name", "notes"], env)
        assert "1 added, 1 updated, 0 removed" in reindexed, reindexed
        second = _ok(["watch", "run", watch[:8]], env)
        summary = second.splitlines()[0].split(": ", 1)[1]
        assert re.fullmatch(r"1 new source, \d new claims?, 1 claim lost its support "
                            r"since .+ UTC", summary), second
        assert "## Claims that lost their support" in second and REDIS_CLAIM in second

        shown = json.loads(_ok(["watch", "show", watch[:8], "--json"], env))
        change = shown["runs"][0]["change"]
        assert [_name(s["url"]) for s in change["new_sources"]] == ["cache-review.md"]
        assert change["vanished_sources"] == []
        lost = change["lost_support"] + change["weakened_claims"]
        assert [c["sentence"] for c in lost] == [REDIS_CLAIM], change
        assert lost[0]["a_support"] == "supported"
        edited_or_new = {s["b_number"] for s in change["kept_sources"]
                         if _name(s["url"]) == "cache.md"} | {
            s["number"] for s in change["new_sources"]}
        assert set(lost[0]["b_numbers"]) <= edited_or_new
        # Every new claim comes from the added or the edited document, none from the rest.
        assert MEMCACHED_CLAIM in [c["sentence"] for c in change["new_claims"]], change
        for claim in change["new_claims"]:
            assert set(claim["numbers"]) <= edited_or_new, claim
        assert change["dropped_claims"] == [], change

        # Both receivers got both notices; the second carries the change summary.
        _delivered(2, box, hooks, log)
    finally:
        server.stop()
    message = box.messages[-1]
    assert message["To"] == "team@example.org"
    assert summary in str(message["Subject"])
    text = message.get_body(preferencelist=("plain",))
    assert text is not None and summary in text.get_content()
    assert REDIS_CLAIM in text.get_content()
    attached = [part.get_filename() for part in message.iter_attachments()]
    assert attached and attached[0].endswith(".md"), attached
    headers, body = hooks.received[-1]
    assert verify_signature(secret, body, headers)
    payload = json.loads(body)
    assert payload["notice"]["summary"] == summary
    assert payload["notice"]["run_id"] == shown["runs"][0]["run_id"]
    assert not payload["notice"]["nothing_new"]
    first_payload = json.loads(hooks.received[0][1])
    assert first_payload["notice"]["summary"].startswith("First run:")
    assert len(box.messages) == 2 and len(hooks.received) == 2  # once each, no repeats
