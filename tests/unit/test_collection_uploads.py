"""Uploading files into a collection takes what the page promises - files of up to
``MAX_UPLOAD_BYTES`` - and refuses more with a one-line 413, without reading the rest.

Every route that takes a body has a deliberate cap in the front door's table: the
table is checked against the app's own routes, both ways.

Real ``create_app`` (front door included) under real uvicorn on loopback, a real store
and executor; the oversized bodies are sent over a raw socket a piece at a time, so the
test sees where the server stopped reading.
"""

from __future__ import annotations

import re
import select
import socket
import threading
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from deepcite.collections.collection import Collection
from deepcite.config import Settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.front_door import (
    BODY_CAPS,
    COLLECTION_UPLOAD_BODY,
    SMALL_BODY,
    UNSAFE_METHODS,
    body_cap,
)
from deepcite.web.page_forms import MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES, MAX_UPLOAD_TOTAL_BYTES
from tests.servers import PATIENCE, serving

pytestmark = pytest.mark.enable_socket  # a real server on loopback

MB = 1024 * 1024
BOUNDARY = "deepciteUploadBoundary7MA4YWxkTrZu0gW"


@dataclass
class Live:
    port: int
    settings: Settings
    cookie: str
    csrf: str

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"


@pytest.fixture
def live(make_settings: Any) -> Iterator[Live]:
    settings: Settings = make_settings()
    executor = LocalRunExecutor(settings, workers=1)
    try:
        with serving(create_app(WebState(settings=settings, executor=executor,
                                         allowed_hosts=("127.0.0.1",)))) as port:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=PATIENCE) as browser:
                page = browser.get("/collections")
                match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
                assert match and browser.cookies, page.text[:300]
                cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
            yield Live(port, settings, cookie, match.group(1))
    finally:
        executor.shutdown()


def _wait(name: str) -> None:
    for thread in threading.enumerate():
        if thread.name == f"deepcite-index-{name}":
            thread.join(60)


def _head(name: str, csrf: str, filename: str) -> bytes:
    """The multipart body up to a file's first byte."""
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n"
            f"{csrf}\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n"
            f"{name}\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"files\"; "
            f"filename=\"{filename}\"\r\nContent-Type: text/plain\r\n\r\n").encode()


TAIL = f"\r\n--{BOUNDARY}--\r\n".encode()


def test_the_page_promises_the_caps_the_front_door_keeps(live: Live) -> None:
    page = httpx.get(f"http://{live.host}/collections", timeout=PATIENCE).text
    assert (f"at most {MAX_UPLOAD_BYTES // MB} MB each, {MAX_UPLOAD_FILES} files and "
            f"{MAX_UPLOAD_TOTAL_BYTES // MB} MB together") in page
    cap = body_cap("POST", "/collections/upload")
    assert cap.limit == COLLECTION_UPLOAD_BODY >= MAX_UPLOAD_TOTAL_BYTES + len(
        _head("n" * 64, "t" * 200, "f" * 120) * MAX_UPLOAD_FILES)


def test_a_1_mb_file_uploads_through_the_real_app(live: Live) -> None:
    text = ("Oolong tea is partly oxidised before it is rolled.\n" * 21000)[:MB]
    with httpx.Client(base_url=f"http://{live.host}", timeout=PATIENCE,
                      headers={"Cookie": live.cookie}) as client:
        reply = client.post("/collections/upload",
                            data={"csrf_token": live.csrf, "name": "oolong"},
                            files=[("files", ("oolong.txt", text.encode(), "text/plain")),
                                   ("files", ("second.txt", text.encode(), "text/plain"))])
        assert reply.status_code == 303, reply.text[:500]
        assert reply.headers["location"] == "/collections/oolong"
        _wait("oolong")
        kept = Path(live.settings.data_dir) / "uploads" / "oolong"
        assert sorted((p.name, p.stat().st_size) for p in kept.iterdir()) == [
            ("oolong.txt", MB), ("second.txt", MB)]
        indexed = Collection.named("oolong", settings=live.settings).index.documents()
        assert sorted(Path(key).name for key in indexed) == ["oolong.txt", "second.txt"]
        assert "oxidised" in client.get("/collections/oolong?q=oxidised").text


def test_a_csv_table_uploads_into_a_collection_and_is_searchable(live: Live) -> None:
    table = "tea,oxidation,steep minutes\noolong,partly oxidised,4\ngreen,unoxidised,2\n"
    with httpx.Client(base_url=f"http://{live.host}", timeout=PATIENCE,
                      headers={"Cookie": live.cookie}) as client:
        assert ".csv" in client.get("/collections").text  # the file picker offers it
        reply = client.post("/collections/upload",
                            data={"csrf_token": live.csrf, "name": "teas"},
                            files=[("files", ("teas.csv", table.encode(), "text/csv"))])
        assert reply.status_code == 303, reply.text[:500]
        _wait("teas")
        indexed = Collection.named("teas", settings=live.settings).index.documents()
        assert [Path(key).name for key in indexed] == ["teas.csv"]
        refused = client.post("/collections/upload",
                              data={"csrf_token": live.csrf, "name": "teas"},
                              files=[("files", ("run.exe", b"MZ", "application/x-dosexec"))])
        assert refused.status_code == 400 and "CSV" in refused.text


def _send_upload(live: Live, file_size: int) -> tuple[int, str, int, int]:
    """POST one file of ``file_size`` bytes (a ``Content-Length`` the front door accepts),
    a piece at a time, stopping once the server answers: its status, its message, the
    bytes sent and the whole body's length."""
    head = _head("big", live.csrf, "big.txt")
    total = len(head) + file_size + len(TAIL)
    request = (f"POST /collections/upload HTTP/1.1\r\nHost: {live.host}\r\n"
               f"Cookie: {live.cookie}\r\nConnection: close\r\n"
               f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
               f"Content-Length: {total}\r\n\r\n").encode() + head
    sent, piece = 0, b"y" * (256 * 1024)
    with socket.create_connection(("127.0.0.1", live.port), timeout=PATIENCE) as sock:
        sock.sendall(request)
        try:
            while sent < file_size:
                if select.select([sock], [], [], 0)[0]:
                    break  # the server answered: stop sending
                block = piece[:min(len(piece), file_size - sent)]
                sock.sendall(block)
                sent += len(block)
            else:
                sock.sendall(TAIL)
        except (BrokenPipeError, ConnectionResetError):
            pass  # it closed on the rest of the body
        select.select([sock], [], [], PATIENCE)
        data = b""
        while chunk := _recv(sock):
            data += chunk
    head_part, _, body = data.partition(b"\r\n\r\n")
    status = int(head_part.split(b" ", 2)[1])
    return status, body.decode("utf-8", "replace"), sent + len(head), total


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except (ConnectionResetError, TimeoutError):
        return b""


def test_a_file_over_the_cap_gets_413_without_being_read(live: Live) -> None:
    over = MAX_UPLOAD_BYTES + 16 * MB  # the request is within its cap, the file is not
    tracemalloc.start()
    try:
        status, page, sent, total = _send_upload(live, over)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status == 413, page[:500]
    assert (f"A file is larger than the {MAX_UPLOAD_BYTES // MB} MB limit per file - upload "
            f"files of at most {MAX_UPLOAD_BYTES // MB} MB each") in page
    assert sent < total  # it stopped reading: the rest of the file was never sent
    assert peak < MAX_UPLOAD_BYTES // 2  # nor did it hold the file in memory
    uploads = Path(live.settings.data_dir) / "uploads"
    assert not uploads.exists() or not any(uploads.iterdir())


def test_a_body_declared_over_the_cap_gets_413_before_it_is_sent(live: Live) -> None:
    request = (f"POST /collections/upload HTTP/1.1\r\nHost: {live.host}\r\n"
               f"Cookie: {live.cookie}\r\nConnection: close\r\n"
               f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
               f"Content-Length: {COLLECTION_UPLOAD_BODY + 1}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", live.port), timeout=PATIENCE) as sock:
        sock.sendall(request)  # and no body at all: the answer needs none
        data = b""
        while chunk := _recv(sock):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), data[:300]
    message = body.decode()
    assert "\n" not in message.strip()
    assert f"{MAX_UPLOAD_BYTES // MB} MiB each" in message


# ------------------------------------------------------------------ every route's cap


def _routes(routes: Any) -> Iterator[tuple[str, str]]:
    """(method, path template) of every route taking a body, included routers too."""
    for route in routes:
        nested = getattr(route, "effective_candidates", None)  # an included router
        if nested is not None:
            yield from _routes(nested())
            continue
        inner = getattr(route, "routes", None)  # a mount
        if inner and not getattr(route, "methods", None):
            yield from ((m, getattr(route, "path", "") + p) for m, p in _routes(inner))
            continue
        for method in getattr(route, "methods", None) or ():
            if method in UNSAFE_METHODS:
                yield method, route.path


def _sample(template: str) -> str:
    return re.sub(r"\{[^/{}]+\}", "x1", template)


def test_every_route_taking_a_body_has_a_deliberate_cap(make_settings: Any) -> None:
    settings = make_settings()
    executor = LocalRunExecutor(settings, workers=1)
    try:
        app = create_app(WebState(settings=settings, executor=executor))
        routes = sorted(set(_routes(app.routes)))
    finally:
        executor.shutdown()
    assert ("POST", "/collections/upload") in routes and len(routes) > 20
    missing = [f"{m} {p}" for m, p in routes
               if not any(cap.matches(m, _sample(p)) for cap in BODY_CAPS)]
    assert missing == [], "add these routes to body_caps.BODY_CAPS with a deliberate cap"
    stale = [f"{cap.method} {cap.path}" for cap in BODY_CAPS
             if not any(cap.matches(m, _sample(p)) for m, p in routes)]
    assert stale == [], "these BODY_CAPS entries name no route of the app"
    assert {cap.limit for cap in BODY_CAPS} >= {SMALL_BODY, COLLECTION_UPLOAD_BODY}
