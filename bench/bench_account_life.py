"""Account-life probe (issue 43): which of the issue's hostile cases hold against a real
``deepcite serve``.

Two ``deepcite serve`` subprocesses (then one ``deepcite mcp --transport http``) run
one after the other on a free 127.0.0.1 port,
sharing one throwaway data dir (``DEEPCITE_DATA_DIR``), offline
(``security.offline``), with accounts, ``web.registration`` on,
``web.trusted_user_header = X-Forwarded-User`` and ``web.trusted_proxies = 10.9.9.9``,
and ``research.max_searches`` / ``max_model_calls`` set low. The first runs with the
environment as given; the second with ``FORWARDED_ALLOW_IPS='*'``, which would make
uvicorn's own proxy-header handling believe ``X-Forwarded-For`` from anyone. Users are
set up with the ``deepcite users`` CLI (same data dir); the attacks are HTTP (httpx) on
loopback. On the first server the sign-up throttle case connects from 127.0.0.1, the
one peer whose ``X-Forwarded-For`` uvicorn's defaults believe; on the second each
throttle case connects from its own loopback source address (127.0.0.12, .13, ...),
so each starts with a clean per-address count (login, token and sign-up failures
share one) and the audit log's address can be told from a spoofed one.

Cases (issue item in brackets): trusted-header login from loopback, bare and with the
proxy's address in ``X-Forwarded-For`` / ``Forwarded`` / ``X-Real-IP`` [1]; 12
sign-ups, 12 wrong passwords, 12 wrong API tokens, and 12 wrong tokens to ``deepcite
mcp --transport http``, each with its own ``X-Forwarded-For``, and the audit log's
addresses [5]; a removed user's id not reused, their token, watch and feed gone, and a
transfer that leaves the old feed dead [2]; a disabled user's watch feed [4]; tokens
after a password change [8]; sign-up with a taken and a free name [9]; per-run
budgets over the server's caps [13]; a 1 MB and a 25 MB upload through the page form
[14]; loopback/link-local/private webhooks, paths as email attachments, short run ids
[16]; feed tokens in the server's log [12].

Not probed here (they need a model run, a race, a killed worker, a file system trick
or minutes of waiting, so they are covered by unit tests instead): items 3 and 6
(tests/unit/test_run_admission.py, test_run_doors.py), 7 (test_collection_claims.py),
10 (test_server_folders.py), 11 (test_hardening_titles.py), 15 (the web form's
webhook secret), 17 and 18 (test_run_states.py), 19 (test_egress_connect.py), and of
item 4 the disabled owner's watch not running again on schedule
(test_watches_disabled_owner.py).

Each case prints held / BROKEN (or error, when the probe itself could not do it) and
what it saw; figures are printed, never asserted, and written as JSON with
``--json PATH``. No model and no network are needed; the run takes about a minute or
two (most of it the ~3 s start of each CLI call). The servers are stopped (SIGTERM,
then SIGKILL) whatever happens.

    .venv/bin/python bench/bench_account_life.py [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.servers import free_port, start_process, stop, wait_until

MB = 1024 * 1024
PASSWORD = "correct horse battery"
PROXY = "10.9.9.9"
HEADER = "X-Forwarded-User"
MAX_SEARCHES = 3
MAX_MODEL_CALLS = 5
STOP_WAIT_S = 30.0
CLI_TIMEOUT_S = 120.0
HTTP_TIMEOUT_S = 60.0
ATTEMPTS = 12
BOUNDARY = "benchAccountLifeBoundary7MA4YWxk"


@dataclass
class Outcome:
    item: int
    case: str
    state: str  # "held", "BROKEN" or "error"
    seen: str


@dataclass
class Server:
    folder: Path
    port: int
    log: Path
    env: dict[str, str]
    tokens: dict[str, str] = field(default_factory=dict)
    #: Every feed token a case made, for the log check (item 12).
    feeds: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, source: str = "127.0.0.1", **kwargs: Any) -> httpx.Client:
        """A client connecting from loopback address ``source``."""
        return httpx.Client(base_url=self.url, timeout=HTTP_TIMEOUT_S,
                            transport=httpx.HTTPTransport(local_address=source), **kwargs)

    def bearer(self, user: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[user]}"}


# ---------------------------------------------------------------------- plumbing




def base_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DEEPCITE_") and k != "FORWARDED_ALLOW_IPS"}
    env.update(DEEPCITE_DATA_DIR=str(folder / "data"), XDG_CONFIG_HOME=str(folder / "config"),
               NO_COLOR="1", DEEPCITE_SECURITY_OFFLINE="true",
               DEEPCITE_WEB_REGISTRATION="true", DEEPCITE_WEB_TRUSTED_USER_HEADER=HEADER,
               DEEPCITE_WEB_TRUSTED_PROXIES=PROXY,
               DEEPCITE_RESEARCH_MAX_SEARCHES=str(MAX_SEARCHES),
               DEEPCITE_RESEARCH_MAX_MODEL_CALLS=str(MAX_MODEL_CALLS))
    return env


def cli(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    """``deepcite ARGS`` with the servers' data dir: its output; a RuntimeError with its
    message when it fails (the case then reads "error", not "BROKEN")."""
    done = subprocess.run([sys.executable, "-m", "deepcite", *args], env=env, input=stdin,
                          capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"`deepcite {' '.join(args)}` exited {done.returncode}: "
                           + (done.stderr or done.stdout).strip()[-300:])
    return done.stdout


def add_user(env: dict[str, str], name: str, *, admin: bool = False) -> None:
    cli(env, "users", "add", name, "--password-stdin", *(["--admin"] if admin else []),
        stdin=PASSWORD + "\n")


def make_token(env: dict[str, str], name: str) -> str:
    out = cli(env, "users", "token", name, "--label", "probe")
    found = re.search(r"\b(dc\w*_[A-Za-z0-9_\-]{16,})", out) or re.search(
        r"([A-Za-z0-9_\-]{32,})", out)
    if not found:
        raise RuntimeError(f"no token in `deepcite users token` output: {out.strip()[:200]}")
    return found.group(1)


def user_id(folder: Path, name: str) -> int | None:
    with sqlite3.connect(folder / "data" / "history.db") as db:
        row = db.execute("SELECT id FROM users WHERE name_key = ?", (name.lower(),)).fetchone()
    return int(row[0]) if row else None


def start_server(folder: Path, env: dict[str, str], log: Path,
                 command: tuple[str, ...] = ("serve", "--workers", "1"),
                 ready: str = "/login") -> tuple[subprocess.Popen[bytes], Server]:
    """``deepcite COMMAND`` on a free 127.0.0.1 port, answering HTTP on ``ready`` (any
    status) when returned (tests.servers: waited for, never timed; output in ``log``)."""
    port = free_port()
    proc = start_process(log.stem, [sys.executable, "-m", "deepcite", *command, "--host",
                                    "127.0.0.1", "--port", str(port)],
                         logs=log.parent, env=env, cwd=folder)

    def answering() -> bool:
        try:
            httpx.get(f"http://127.0.0.1:{port}{ready}", timeout=10)
        except httpx.HTTPError:
            return False
        return True

    try:
        wait_until(answering, f"deepcite {command[0]} (see {log})", alive=proc.alive,
                   details=proc.tail, pause=0.2)
    except BaseException:
        stop_server(proc.process)
        raise
    return proc.process, Server(folder, port, log, env)


def stop_server(process: subprocess.Popen[bytes]) -> None:
    stop(process, STOP_WAIT_S)


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    if not found:
        raise RuntimeError("no csrf_token on the page")
    return found.group(1)


# ---------------------------------------------------------------------- item 1


#: Ways a client could try to look like the trusted proxy 10.9.9.9.
SPOOFS: dict[str, dict[str, str]] = {
    "XFF: 10.9.9.9": {"X-Forwarded-For": PROXY},
    "XFF: 10.9.9.9, 127.0.0.1": {"X-Forwarded-For": f"{PROXY}, 127.0.0.1"},
    "Forwarded: for=10.9.9.9": {"Forwarded": f"for={PROXY}"},
    "X-Real-IP: 10.9.9.9": {"X-Real-IP": PROXY},
}


def trusted_header(server: Server, spoof: bool) -> tuple[bool, str]:
    """``X-Forwarded-User: root`` from loopback (not the trusted proxy); with ``spoof``
    also each of :data:`SPOOFS`. Held: 403 on the API and the admin page, every time."""
    variants = SPOOFS if spoof else {"no forwarding header": {}}
    seen = []
    with server.client() as client:
        for label, extra in variants.items():
            headers = {HEADER: "root", **extra}
            api = client.get("/api/v1/history", headers=headers).status_code
            page = client.get("/admin", headers=headers, follow_redirects=False).status_code
            seen.append((label, api, page))
    held = all(api == 403 and page == 403 for _, api, page in seen)
    if len(seen) == 1:
        return held, f"GET /api/v1/history {seen[0][1]}, GET /admin {seen[0][2]}"
    return held, "API/admin: " + ", ".join(f"{label} {api}/{page}"
                                          for label, api, page in seen)


# ---------------------------------------------------------------------- item 5


def spoofed(n: int) -> str:
    return f"203.0.113.{n + 1}"


def throttled(statuses: list[int]) -> tuple[bool, str]:
    """Held when a 429 came before the attempts ran out; the attempt it came at."""
    first = statuses.index(429) + 1 if 429 in statuses else None
    return first is not None, (f"429 from attempt {first}" if first else "never 429") + \
        f" (statuses {' '.join(map(str, statuses))})"


def signups_throttled(server: Server, source: str) -> tuple[bool, str]:
    """12 sign-ups from ``source``, each with its own ``X-Forwarded-For``."""
    statuses = []
    with server.client(source) as client:
        csrf = csrf_of(client.get("/register").text)
        for n in range(ATTEMPTS):
            reply = client.post("/register", headers={"X-Forwarded-For": spoofed(n)}, data={
                "csrf_token": csrf, "name": f"signup{source.rsplit('.', 1)[1]}x{n}",
                "password": PASSWORD, "again": PASSWORD})
            statuses.append(reply.status_code)
    return throttled(statuses)


def passwords_throttled(server: Server, source: str) -> tuple[bool, str]:
    """12 wrong passwords (each for another name, so only the address counts) from
    ``source``, each with its own ``X-Forwarded-For``."""
    statuses = []
    with server.client(source) as client:
        csrf = csrf_of(client.get("/login").text)
        for n in range(ATTEMPTS):
            reply = client.post("/login", headers={"X-Forwarded-For": spoofed(n)}, data={
                "csrf_token": csrf, "name": f"ghost{n}", "password": "wrong guess!",
                "next": "/"}, follow_redirects=False)
            statuses.append(reply.status_code)
    return throttled(statuses)


def tokens_throttled(server: Server, source: str) -> tuple[bool, str]:
    """12 wrong API tokens from ``source``, each with its own ``X-Forwarded-For``."""
    statuses = []
    with server.client(source) as client:
        for n in range(ATTEMPTS):
            reply = client.get("/api/v1/history", headers={
                "X-Forwarded-For": spoofed(n), "Authorization": f"Bearer wrong-token-{n}"})
            statuses.append(reply.status_code)
    return throttled(statuses)


def mcp_tokens_throttled(server: Server, source: str) -> tuple[bool, str]:
    """12 wrong tokens to ``deepcite mcp --transport http`` from ``source``, each with its
    own ``X-Forwarded-For``."""
    statuses = []
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"}}}
    with server.client(source) as client:
        for n in range(ATTEMPTS):
            reply = client.post("/mcp", json=body, headers={
                "X-Forwarded-For": spoofed(n), "Authorization": f"Bearer wrong-token-{n}",
                "Accept": "application/json, text/event-stream"})
            statuses.append(reply.status_code)
    return throttled(statuses)


def audit_addresses(server: Server) -> tuple[bool, str]:
    """Every address in the audit log is a real loopback peer, never a spoofed
    ``X-Forwarded-For`` (203.0.113.x); the sign-ups are there."""
    with sqlite3.connect(server.folder / "data" / "history.db") as db:
        rows = db.execute("SELECT action, address FROM audit_log "
                          "WHERE address IS NOT NULL").fetchall()
    addresses = sorted({str(address) for _, address in rows})
    actions = sorted({str(action) for action, _ in rows})
    signups = sum(str(action).startswith("user.register") for action, _ in rows)
    held = signups > 0 and all(a.startswith("127.") for a in addresses)
    return held, (f"{len(rows)} entries with an address ({signups} sign-ups; "
                  f"{', '.join(actions)}), addresses {', '.join(addresses)}")


# ---------------------------------------------------------------------- items 2, 4, 8


def removed_user(server: Server) -> tuple[bool, str]:
    """bob gets a token and makes a watch; ``users rm bob --delete-data``; carol is added:
    her id is not bob's, she sees no watch, bob's token answers 401 and his watch's feed
    404."""
    env = server.env
    add_user(env, "bob")
    server.tokens["bob"] = make_token(env, "bob")
    feed = watch_feed(server, "bob")
    bob = user_id(server.folder, "bob")
    cli(env, "users", "rm", "bob", "--delete-data")
    add_user(env, "carol")
    server.tokens["carol"] = make_token(env, "carol")
    carol = user_id(server.folder, "carol")
    with server.client() as client:
        token = client.get("/api/v1/history", headers=server.bearer("bob")).status_code
        watches = client.get("/api/v1/watches", headers=server.bearer("carol")).json()
        feed_status = client.get(feed).status_code
    held = (carol is not None and carol != bob and token == 401 and watches == []
            and feed_status == 404)
    return held, (f"bob id {bob}, carol id {carol}, bob's token {token}, carol sees "
                  f"{len(watches)} watches, bob's feed {feed_status}")


def transferred_user(server: Server) -> tuple[bool, str]:
    """frank makes a watch; ``users rm frank --transfer-to alice``: alice holds it,
    paused, and frank's old feed address answers 404."""
    env = server.env
    add_user(env, "frank")
    server.tokens["frank"] = make_token(env, "frank")
    feed = watch_feed(server, "frank")
    cli(env, "users", "rm", "frank", "--transfer-to", "alice")
    with server.client() as client:
        feed_status = client.get(feed).status_code
        held_by_alice = [w for w in client.get("/api/v1/watches",
                                               headers=server.bearer("alice")).json()
                         if w.get("name") == "frank's watch"]
    states = [str(w.get("status")) for w in held_by_alice]
    held = feed_status == 404 and states == ["paused"]
    return held, f"old feed {feed_status}, alice holds {len(states)} ({', '.join(states)})"


def create_watch(server: Server, user: str, **extra: Any) -> httpx.Response:
    body: dict[str, Any] = {"request": {"question": "Where is the cache kept?"},
                            "schedule": "on demand", **extra}
    with server.client() as client:
        return client.post("/api/v1/watches", headers=server.bearer(user), json=body)


def watch_feed(server: Server, user: str) -> str:
    """A watch of ``user`` made over REST; its feed path."""
    made = create_watch(server, user, name=f"{user}'s watch")
    if made.status_code != 201:
        raise RuntimeError(f"POST /api/v1/watches {made.status_code}: {made.text[:200]}")
    server.feeds.append(made.json()["feed_token"])
    return str(made.json()["feed_path"])


def disabled_feed(server: Server) -> tuple[bool, str]:
    """dave makes a watch over REST; ``users disable dave``; the watch's feed: 404."""
    env = server.env
    add_user(env, "dave")
    server.tokens["dave"] = make_token(env, "dave")
    path = watch_feed(server, "dave")
    with server.client() as client:
        before = client.get(path).status_code
        cli(env, "users", "disable", "dave")
        after = client.get(path).status_code
    return after == 404, f"feed {before} before disable, {after} after"


def password_change(server: Server) -> tuple[bool, str]:
    """erin's token works; ``users passwd erin --password-stdin``; the token: 401."""
    env = server.env
    add_user(env, "erin")
    token = {"Authorization": f"Bearer {make_token(env, 'erin')}"}
    with server.client() as client:
        before = client.get("/api/v1/history", headers=token).status_code
        cli(env, "users", "passwd", "erin", "--password-stdin",
            stdin="another horse battery\n")
        after = client.get("/api/v1/history", headers=token).status_code
    return after == 401 and before == 200, f"token {before} before passwd, {after} after"


# ---------------------------------------------------------------------- items 9, 13


def signup_names(server: Server, source: str) -> tuple[bool, str]:
    """Sign-up with the taken name alice (also as ALICE) and the free name zelda: same
    status, same page (the name itself and the CSRF token aside)."""
    answers = []
    with server.client(source) as client:
        csrf = csrf_of(client.get("/register").text)
        for name in ("alice", "ALICE", "zelda"):
            reply = client.post("/register", data={"csrf_token": csrf, "name": name,
                                                   "password": PASSWORD, "again": PASSWORD})
            page = re.sub(r'name="csrf_token" value="[^"]+"', "", reply.text)
            answers.append((reply.status_code, page.replace(name, "NAME")))
    (taken_status, taken), (upper_status, upper), (free_status, free) = answers
    if upper != taken or upper_status != taken_status:
        taken_status, taken = upper_status, upper
    if taken_status == free_status and taken == free:
        return True, f"all three {free_status}, pages identical"
    at = next((i for i, (x, y) in enumerate(zip(taken, free, strict=False)) if x != y),
              min(len(taken), len(free)))
    return False, (f"taken {taken_status}, free {free_status}; pages differ at {at}: "
                   f"{taken[at:at + 60]!r} vs {free[at:at + 60]!r}")


def over_budget(server: Server, body: dict[str, Any], label: str) -> tuple[bool, str]:
    """``POST /api/v1/research`` asking more than the server's cap: 422."""
    with server.client() as client:
        reply = client.post("/api/v1/research", headers=server.bearer("alice"),
                            json={"question": "What is oolong?", **body})
        if reply.status_code == 202:  # accepted: cancel the run it started
            run = reply.json().get("run_id", "")
            client.post(f"/api/v1/research/{run}/cancel", headers=server.bearer("alice"))
    message = ""
    if reply.headers.get("content-type", "").startswith("application/json"):
        message = str(reply.json().get("error", {}).get("message", ""))[:90]
    return reply.status_code == 422, f"{label}: {reply.status_code} {message}".rstrip()


# ---------------------------------------------------------------------- item 14


def logged_in(server: Server, source: str) -> tuple[httpx.Client, str]:
    client = server.client(source)
    csrf = csrf_of(client.get("/login").text)
    reply = client.post("/login", data={"csrf_token": csrf, "name": "alice",
                                        "password": PASSWORD, "next": "/collections"},
                        follow_redirects=False)
    if reply.status_code != 303:
        client.close()
        raise RuntimeError(f"POST /login as alice: {reply.status_code}")
    return client, csrf_of(client.get("/collections").text)


def upload_small(server: Server, source: str) -> tuple[bool, str]:
    """A 1 MB text file through the page form: accepted."""
    client, csrf = logged_in(server, source)
    text = ("Oolong tea is partly oxidised before it is rolled.\n" * 21000)[:MB].encode()
    try:
        reply = client.post("/collections/upload", data={"csrf_token": csrf,
                                                         "name": "probe-upload"},
                            files=[("files", ("oolong.txt", text, "text/plain"))],
                            follow_redirects=False)
    finally:
        client.close()
    return reply.status_code in (200, 202, 303), \
        f"1 MB: {reply.status_code} {reply.headers.get('location', '')}".rstrip()


def upload_big(server: Server, source: str) -> tuple[bool, str]:
    """A 25 MB file through the page form, streamed: 413 (the client stops sending as
    soon as the server answers)."""
    client, csrf = logged_in(server, source)
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    client.close()
    head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n"
            f"{csrf}\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n"
            f"probe-big\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"files\"; "
            f"filename=\"big.txt\"\r\nContent-Type: text/plain\r\n\r\n").encode()
    tail = f"\r\n--{BOUNDARY}--\r\n".encode()
    size = 25 * MB
    request = (f"POST /collections/upload HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
               f"Cookie: {cookie}\r\nConnection: close\r\n"
               f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
               f"Content-Length: {len(head) + size + len(tail)}\r\n\r\n").encode() + head
    sent, piece = 0, b"y" * (256 * 1024)
    with socket.create_connection(("127.0.0.1", server.port), timeout=30,
                                  source_address=(source, 0)) as sock:
        try:
            sock.sendall(request)
            while sent < size and not select.select([sock], [], [], 0)[0]:
                sock.sendall(piece)
                sent += len(piece)
            if sent >= size:
                sock.sendall(tail)
        except OSError:
            pass  # it closed on the rest of the body
        select.select([sock], [], [], 30)
        try:
            first = sock.recv(4096).split(b"\r\n")[0].decode("latin-1")
        except OSError as exc:
            first = f"no reply ({exc.__class__.__name__})"
    status = first.split(" ")[1] if first.startswith("HTTP/") else first
    return status == "413", f"25 MB: {status} after {sent / MB:.1f} MiB of the file sent"


# ---------------------------------------------------------------------- items 16, 12


#: Webhook addresses a watch must refuse when it is made: loopback, link-local,
#: private and unspecified addresses, by number and by name.
BAD_HOOKS = ["http://127.0.0.1:9/", "http://[::1]:9/", "http://localhost:9/",
             "http://169.254.169.254/latest", "http://10.0.0.1/", "http://0.0.0.0:9/"]
#: Email attachments that are paths, not a format.
BAD_ATTACH = ["../../etc/passwd", "/etc/passwd", "..\\..\\boot.ini"]


def watches_refused(server: Server, targets: list[dict[str, Any]]) -> tuple[bool, str]:
    """Each target alone in a new watch: 422 at creation."""
    seen = []
    for target in targets:
        reply = create_watch(server, "alice", targets=[target])
        seen.append((target.get("url") or target.get("attach"), reply.status_code))
    return all(status == 422 for _, status in seen), \
        ", ".join(f"{what} {status}" for what, status in seen)


def short_run_id(server: Server, source: str) -> tuple[bool, str]:
    """Run ids of 1 and 3 characters on the run routes that take one: 404 each. (There
    is no ``GET /api/v1/runs/{id}``: that path answers 405, shown for the record.)"""
    asks = [("GET", "/api/v1/research/abc"), ("GET", "/api/v1/research/a"),
            ("GET", "/api/v1/research/abc/events"), ("POST", "/api/v1/research/abc/cancel"),
            ("DELETE", "/api/v1/runs/abc")]
    seen = []
    with server.client() as client:
        for method, path in asks:
            reply = client.request(method, path, headers=server.bearer("alice"))
            seen.append((method, path, reply.status_code))
        other = client.get("/api/v1/runs/abc", headers=server.bearer("alice")).status_code
    page, _ = logged_in(server, source)
    try:
        for path in ("/runs/abc", "/reports/a"):  # /runs/ sends an unknown id to /reports/
            reply = page.get(path, follow_redirects=True)
            seen.append(("GET", f"{path} (page, to {reply.url.path})", reply.status_code))
    finally:
        page.close()
    held = all(status == 404 for _, _, status in seen)
    return held, ", ".join(f"{m} {p} {s}" for m, p, s in seen) + \
        f"; GET /api/v1/runs/abc {other}"


def token_in_log(server: Server) -> tuple[bool, str]:
    """After the feeds were fetched (and the server stopped), its log holds none of the
    feed tokens, whole or in part."""
    if not server.feeds:
        raise RuntimeError("no feed token (no case made a watch)")
    text = server.log.read_text(errors="replace")
    lines = [line for line in text.splitlines() if "/feeds/" in line]
    found = [token for token in server.feeds if token in text or token[4:20] in text]
    example = lines[0].strip()[-90:] if lines else "no /feeds/ line"
    return not found, (f"{len(server.feeds)} feed tokens, {len(lines)} /feeds/ log lines, "
                       f"{len(found)} tokens found; e.g. {example}")


# ---------------------------------------------------------------------- main


def probe(outcomes: list[Outcome], item: int, case: str,
          check: Callable[[], tuple[bool, str]]) -> None:
    try:
        held, seen = check()
        state = "held" if held else "BROKEN"
    except Exception as exc:  # noqa: BLE001 - a probe that could not run is reported, not raised
        state, seen = "error", f"{exc.__class__.__name__}: {exc}"[:200]
    outcomes.append(Outcome(item, case, state, seen))
    print(f"  [{item:>2}] {case}: {state} - {seen}", flush=True)


def throttle_cases(outcomes: list[Outcome], server: Server, label: str, base: int) -> None:
    sources = [f"127.0.0.{base + n}" for n in range(3)]
    probe(outcomes, 5, f"12 sign-ups, rotating XFF ({label})",
          lambda: signups_throttled(server, sources[0]))
    probe(outcomes, 5, f"12 wrong passwords, rotating XFF ({label})",
          lambda: passwords_throttled(server, sources[1]))
    probe(outcomes, 5, f"12 wrong API tokens, rotating XFF ({label})",
          lambda: tokens_throttled(server, sources[2]))


def run_probe(folder: Path) -> list[Outcome]:
    outcomes: list[Outcome] = []
    env = base_env(folder)
    print("setting up users root (admin) and alice with the CLI ...", flush=True)
    add_user(env, "root", admin=True)
    add_user(env, "alice")
    alice_token = make_token(env, "alice")

    print("server 1: uvicorn's defaults (FORWARDED_ALLOW_IPS unset) ...", flush=True)
    process, server = start_server(folder, env, folder / "server1.log")
    server.tokens["alice"] = alice_token
    try:
        probe(outcomes, 1, "trusted header from loopback",
              lambda: trusted_header(server, spoof=False))
        probe(outcomes, 1, "trusted header + proxy's address in headers",
              lambda: trusted_header(server, spoof=True))
        # from 127.0.0.1, the one peer whose X-Forwarded-For uvicorn's defaults believe;
        # one case only, as the login, token and sign-up throttles share one count
        probe(outcomes, 5, "12 sign-ups from 127.0.0.1, rotating XFF (defaults)",
              lambda: signups_throttled(server, "127.0.0.1"))
    finally:
        stop_server(process)

    print("server 2: FORWARDED_ALLOW_IPS='*' ...", flush=True)
    process, server = start_server(folder, {**env, "FORWARDED_ALLOW_IPS": "*"},
                                   folder / "server2.log")
    server.tokens["alice"] = alice_token
    try:
        probe(outcomes, 1, "trusted header from loopback, FORWARDED_ALLOW_IPS=*",
              lambda: trusted_header(server, spoof=False))
        probe(outcomes, 1, "trusted header + proxy's address, FORWARDED_ALLOW_IPS=*",
              lambda: trusted_header(server, spoof=True))
        probe(outcomes, 9, "sign-up: taken name vs free name",
              lambda: signup_names(server, "127.0.0.20"))
        probe(outcomes, 13, f"budget max_searches 50 > cap {MAX_SEARCHES}",
              lambda: over_budget(server, {"budget": {"max_searches": 50}}, "budget"))
        probe(outcomes, 13, f"budget max_model_calls 50 > cap {MAX_MODEL_CALLS}",
              lambda: over_budget(server, {"budget": {"max_model_calls": 50}}, "budget"))
        probe(outcomes, 13, "settings research.max_searches 50",
              lambda: over_budget(server, {"settings": {"research.max_searches": 50}},
                                  "settings"))
        probe(outcomes, 14, "1 MB upload through the form",
              lambda: upload_small(server, "127.0.0.21"))
        probe(outcomes, 14, "25 MB upload through the form",
              lambda: upload_big(server, "127.0.0.22"))
        probe(outcomes, 16, "webhooks to loopback/link-local/private",
              lambda: watches_refused(server, [{"kind": "webhook", "url": url}
                                               for url in BAD_HOOKS]))
        probe(outcomes, 16, "email attach as a path",
              lambda: watches_refused(server, [{"kind": "email", "to": ["ann@example.org"],
                                                "attach": path} for path in BAD_ATTACH]))
        probe(outcomes, 16, "run ids under 4 characters",
              lambda: short_run_id(server, "127.0.0.23"))
        probe(outcomes, 2, "rm --delete-data, then a new user",
              lambda: removed_user(server))
        probe(outcomes, 2, "rm --transfer-to alice", lambda: transferred_user(server))
        probe(outcomes, 4, "disabled user's watch feed", lambda: disabled_feed(server))
        probe(outcomes, 8, "password change ends API tokens",
              lambda: password_change(server))
        throttle_cases(outcomes, server, "FORWARDED_ALLOW_IPS=*", 12)
    finally:
        stop_server(process)

    print("deepcite mcp --transport http, FORWARDED_ALLOW_IPS='*' ...", flush=True)
    mcp, mcp_server = start_server(folder, {**env, "FORWARDED_ALLOW_IPS": "*"},
                                   folder / "mcp.log", ("mcp", "--transport", "http"),
                                   ready="/mcp")
    try:
        probe(outcomes, 5, "12 wrong MCP tokens, rotating XFF (FORWARDED_ALLOW_IPS=*)",
              lambda: mcp_tokens_throttled(mcp_server, "127.0.0.30"))
    finally:
        stop_server(mcp)
    probe(outcomes, 5, "audit log names the real peer", lambda: audit_addresses(server))
    probe(outcomes, 12, "feed token in the server log", lambda: token_in_log(server))
    return outcomes


def report(outcomes: list[Outcome], seconds: float) -> None:
    width = max(len(o.case) for o in outcomes)
    print(f"\n{'case':<{width}}  item  held?   seen")
    for o in outcomes:
        print(f"{o.case:<{width}}  {o.item:>4}  {o.state:<6}  {o.seen}")
    held = sum(o.state == "held" for o in outcomes)
    broken = sum(o.state == "BROKEN" for o in outcomes)
    errors = len(outcomes) - held - broken
    print(f"\n{held} of {len(outcomes)} held, {broken} broken, {errors} could not be probed "
          f"({seconds:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None,
                        help="also write the outcomes as JSON to this file")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-account-life-") as temp:
        outcomes = run_probe(Path(temp))
    seconds = time.perf_counter() - started
    report(outcomes, seconds)
    if args.json:
        args.json.write_text(json.dumps({"seconds": round(seconds, 1), "outcomes": [
            o.__dict__ for o in outcomes]}, indent=2) + "\n", encoding="utf-8")
        print(f"\nwritten to {args.json}")


if __name__ == "__main__":
    main()
