"""Hostile-input figures: what an unauthenticated huge body and decompression bombs cost.

1. Unauthenticated body: ``deepcite serve`` (the default server, a token set through
   ``DEEPCITE_WEB_TOKEN``, a throwaway data dir) runs in a subprocess on a free
   127.0.0.1 port. A ``--body-mb`` MB (default 200) chunked JSON POST to
   ``/api/v1/research`` is streamed to it from a generator, in 1 MiB pieces, without a
   token; the client stops sending as soon as the reply is readable. Reported: the
   server's VmRSS and VmHWM (peak RSS) from ``/proc/PID/status`` before and after, how
   many body bytes the client got to send before the reply (what went into the socket,
   so kernel buffers count too; a server that answers on the headers alone lets only
   the JSON's first few bytes through), and the reply's status line. A small
   unauthenticated POST goes first, so that the "before" figures include the imports a
   first request pays.
2. Decompression bombs, built at run time in a temporary folder (a few MB on disk): a
   DOCX whose XML unpacks to 1.5 GB, the same DOCX with its central directory lying
   that the XML is 1,000 bytes, a DOCX of 40 MB XML packed ~1,000:1 (under the size
   caps, refused by its ratio), and an EPUB whose spine lists one 60 MB section 30
   times. Each is given to ``deepcite.collections.loaders.load_document`` in a fresh
   Python process. Reported: seconds to the refusal, the peak RSS increase over the
   import (``resource.getrusage``), and the one-line error.

MB and MiB are 2**20 bytes throughout. Figures are printed, never asserted, and written
as JSON with ``--json PATH``. The run takes about 15 s; it needs Linux (``/proc``) and
the web extra, and makes only loopback traffic. The server subprocess is stopped
(SIGTERM, then SIGKILL) whatever happens.

    .venv/bin/python bench/bench_hostile.py [--body-mb 200] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import select
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.bombs import MB, docx_bomb, lie_about_size, stream_entry  # noqa: E402
from tests.servers import accepts, free_port, start_process, stop, wait_until  # noqa: E402

TOKEN = "bench-hostile-token"
PIECE = MB
REPLY_WAIT_S = 60.0
SOCKET_TIMEOUT_S = 30.0
LOAD_TIMEOUT_S = 120.0
STOP_WAIT_S = 30.0


# ---------------------------------------------------------------------- bombs

_CONTAINER_XML = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="content.opf"
    media-type="application/oebps-package+xml"/></rootfiles>
</container>"""


def epub_bomb(path: Path, chunk: bytes, times: int, listed: int) -> Path:
    """An EPUB with one section of ``chunk`` x ``times`` that its spine lists ``listed`` times."""
    opf = ('<package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
           '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Bomb</dc:title>'
           '</metadata><manifest><item id="s0" href="s0.xhtml" '
           'media-type="application/xhtml+xml"/></manifest><spine>'
           + '<itemref idref="s0"/>' * listed + "</spine></package>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", _CONTAINER_XML)
        archive.writestr("content.opf", opf)
        stream_entry(archive, "s0.xhtml", chunk, times)
    return path


def paragraphs_docx(path: Path, unpacked: int) -> Path:
    """A DOCX under every byte and ratio limit whose document.xml is ``unpacked`` bytes of
    one-letter paragraphs (random letters, so it does not compress past the ratio cap):
    millions of elements, the parse that bytes alone do not bound."""
    rng = random.Random(0)
    letters = string.ascii_letters.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as entry:
            written = 0
            while written < unpacked:
                block = b"".join(b"<w:p><w:r><w:t>%c</w:t></w:r></w:p>" % rng.choice(letters)
                                 for _ in range(30_000))
                entry.write(block)
                written += len(block)
    return path


def build_bombs(folder: Path) -> list[tuple[str, Path]]:
    """``(label, path)`` for each bomb, written under ``folder``."""
    bomb = docx_bomb(folder / "bomb.docx", unpacked=3 * 1024 * MB // 2)  # 1.5 GB of XML
    liar = folder / "liar.docx"
    shutil.copyfile(bomb, liar)
    lie_about_size(liar, b"word/document.xml", 1000)
    ratio = docx_bomb(folder / "ratio.docx", unpacked=40 * MB)
    section = b"<p>" + b"all work and no play " * 50_000 + b"</p>"  # ~1 MB
    book = epub_bomb(folder / "bomb.epub", section, times=60, listed=30)
    many = paragraphs_docx(folder / "paragraphs.docx", unpacked=62 * MB)
    return [("docx bomb, 1.5 GB of XML", bomb),
            ("docx of 62 MB one-letter paragraphs, under the byte limits", many),
            ("docx lying its XML is 1,000 bytes", liar),
            ("docx of 40 MB XML packed ~1000:1", ratio),
            ("epub listing a 60 MB section 30 times", book)]


def load_one(path: Path) -> None:
    """Child process: load ``path`` once and print the figures as one JSON line."""
    from deepcite.collections.loaders import LoadError, load_document

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    try:
        document = load_document(path)
        outcome, refused = f"LOADED ({len(document.pages)} pages)", False
    except LoadError as exc:
        outcome, refused = exc.reason, True
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(json.dumps({"refused": refused, "seconds": round(seconds, 3),
                      "peak_mb": round(after / 1024, 1),
                      "peak_increase_mb": round((after - before) / 1024, 1),
                      "outcome": outcome}))


def measure_bomb(label: str, path: Path) -> dict[str, Any]:
    figures: dict[str, Any] = {"label": label, "file": path.name,
                               "file_mb": round(path.stat().st_size / MB, 2)}
    with zipfile.ZipFile(path) as archive:
        figures["declared_unpacked_mb"] = round(
            sum(info.file_size for info in archive.infolist()) / MB, 1)
    try:
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--load-one",
                               str(path)], cwd=ROOT, capture_output=True, text=True,
                              timeout=LOAD_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        figures.update(refused=False, outcome=f"still loading after {LOAD_TIMEOUT_S:.0f} s "
                                              "(killed)")
        return figures
    lines = done.stdout.strip().splitlines()
    try:
        figures.update(json.loads(lines[-1]))
    except (IndexError, ValueError):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        figures.update(refused=False, outcome=f"child exited {done.returncode}: {tail}")
    return figures


# ---------------------------------------------------------------------- server




def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of process ``pid``, in MB."""
    values: dict[str, float] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = round(int(rest.split()[0]) / 1024, 1)
    return values


def server_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(folder / "data"), DEEPCITE_WEB_TOKEN=TOKEN,
               XDG_CONFIG_HOME=str(folder / "config"), NO_COLOR="1")
    return env


def start_server(folder: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``deepcite serve`` on 127.0.0.1:``port``, accepting connections when returned
    (tests.servers: it is waited for, never timed; its output goes to ``log``)."""
    proc = start_process(log.stem, [sys.executable, "-m", "deepcite", "serve", "--host",
                                    "127.0.0.1", "--port", str(port)],
                         logs=log.parent, env=server_env(folder), cwd=folder)
    try:
        wait_until(accepts("127.0.0.1", port), f"deepcite serve (see {log})",
                   alive=proc.alive, details=proc.tail, pause=0.1)
    except BaseException:
        stop_server(proc.process)
        raise
    return proc.process


def stop_server(process: subprocess.Popen[bytes]) -> None:
    stop(process, STOP_WAIT_S)


def body(total: int) -> Iterator[bytes]:
    """A JSON research request of about ``total`` bytes, one material's content."""
    yield b'{"question": "q", "materials": [{"url": "https://x.example", "content": "'
    sent = 0
    while sent < total:
        yield b"x" * PIECE
        sent += PIECE
    yield b'"}]}'


def post(port: int, total: int) -> dict[str, Any]:
    """Stream the chunked POST without a token; what was sent and the reply."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S)
    head = (f"POST /api/v1/research HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Connection: close\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n")
    sent, stopped = 0, "sent it all"
    start = time.perf_counter()
    try:
        sock.sendall(head.encode())
        for piece in body(total):
            if select.select([sock], [], [], 0)[0]:
                stopped = "reply arrived"
                break
            sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            sent += len(piece)
        else:
            sock.sendall(b"0\r\n\r\n")
    except TimeoutError:
        stopped = f"server stopped reading ({SOCKET_TIMEOUT_S:.0f} s send timeout)"
    except OSError as exc:
        stopped = f"send failed: {exc.__class__.__name__}"
    try:
        select.select([sock], [], [], REPLY_WAIT_S)
        reply = sock.recv(4096).split(b"\r\n")[0].decode("latin-1") or "connection closed"
    except OSError as exc:
        reply = f"no reply: {exc.__class__.__name__}"
    finally:
        sock.close()
    return {"client_sent_bytes": sent, "stopped": stopped, "reply": reply,
            "reply_after_s": round(time.perf_counter() - start, 3)}


def warm_up(port: int) -> None:
    """One small unauthenticated POST, so the first request's imports are paid."""
    payload = b'{"question": "q"}'
    with suppress(OSError), \
            socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S) as sock:
        sock.sendall(f"POST /api/v1/research HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     "Connection: close\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
        for _ in range(100):  # until the server closes, at most 100 reads
            if not sock.recv(65536):
                break


def measure_body(folder: Path, body_mb: int) -> dict[str, Any]:
    port = free_port()
    process = start_server(folder, port, folder / "server.log")
    try:
        warm_up(port)
        time.sleep(1)
        before = memory_mb(process.pid)
        figures = post(port, body_mb * MB)
        time.sleep(1)
        after = memory_mb(process.pid)
    finally:
        stop_server(process)
    return {"body_mb": body_mb, "rss_before_mb": before["VmRSS"],
            "peak_before_mb": before["VmHWM"], "rss_after_mb": after["VmRSS"],
            "peak_after_mb": after["VmHWM"], **figures}


# ---------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--body-mb", type=int, default=200,
                        help="size of the unauthenticated body, in MB (default 200)")
    parser.add_argument("--json", type=Path, default=None,
                        help="also write the figures as JSON to this file")
    parser.add_argument("--load-one", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_one:
        load_one(args.load_one)
        return
    if args.body_mb < 1:
        parser.error("--body-mb must be at least 1")

    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as temp:
        folder = Path(temp)
        print("unauthenticated body against `deepcite serve` (token set) ...", flush=True)
        server = measure_body(folder, args.body_mb)
        print("building the bombs ...", flush=True)
        bombs = [measure_bomb(label, path) for label, path in build_bombs(folder)]
    figures = {"unauthenticated_body": server, "bombs": bombs}
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(f"\nwritten to {args.json}")


def report(figures: dict[str, Any]) -> None:
    s = figures["unauthenticated_body"]
    status = s["reply"].split(" ", 2)[1] if s["reply"].startswith("HTTP/") else s["reply"]
    sent = s["client_sent_bytes"]
    sent_text = f"{sent / MB:.1f} MiB" if sent >= MB else f"{sent:,} bytes"
    print(f"\nunauthenticated {s['body_mb']} MB body: server peak {s['peak_after_mb']:.0f} MB "
          f"(was {s['peak_before_mb']:.0f} MB before), RSS {s['rss_before_mb']:.0f} -> "
          f"{s['rss_after_mb']:.0f} MB, client sent {sent_text} "
          f"({s['stopped']}), reply {status} after {s['reply_after_s']:.2f} s")
    for b in figures["bombs"]:
        head = f"{b['label']} ({b['file_mb']:.1f} MB file)"
        if "seconds" not in b:
            print(f"{head}: {b['outcome']}")
            continue
        verb = "refused" if b["refused"] else "NOT refused"
        print(f"{head}: {verb} in {b['seconds']:.2f} s, peak +{b['peak_increase_mb']:.0f} MB "
              f"(of {b['peak_mb']:.0f} MB): {b['outcome']}")


if __name__ == "__main__":
    main()
