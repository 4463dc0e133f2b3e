"""Search machinery figures (issue 3).

1. ``dedupe_and_format`` over 1,000 results with full text (target: under 50 ms).
2. The ``auto`` engine over three engines whose server answers after 1 s each, served
   on loopback by a real HTTP server (target: about 1 s in all, not 3 s).

    .venv/bin/python bench/bench_search.py
"""

from __future__ import annotations

import json
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from deepcite.config import load_settings
from deepcite.search import dedupe_and_format
from deepcite.search.auto import AutoEngine
from deepcite.search.engines.base import WebEngine
from deepcite.search.results import keep, make_result
from deepcite.types import SearchResult

LATENCY_SECONDS = 1.0


def bench_format() -> None:
    text = " ".join(f"word{i}" for i in range(1500))
    results = [SearchResult(title=f"Result {i}", url=f"https://site{i % 800}.example/p/{i}",
                            snippet=f"snippet {i}", engine="bench", full_text=text)
               for i in range(1000)]
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        dedupe_and_format(results, max_tokens_per_source=500)
        timings.append((time.perf_counter() - started) * 1000)
    print(f"dedupe_and_format, 1,000 results with full text: median "
          f"{statistics.median(timings):.1f} ms, best {min(timings):.1f} ms (target < 50 ms)")


class _SlowHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        time.sleep(LATENCY_SECONDS)
        body = json.dumps({"hits": [{"title": f"Hit from {self.path}",
                                     "url": f"https://example.org{self.path}",
                                     "text": "bench result"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


class _LoopbackEngine(WebEngine):
    description: ClassVar[str] = "bench engine"
    base_url: ClassVar[str] = ""

    def __init__(self, name: str, settings: Any) -> None:
        self.name = name  # type: ignore[misc]
        super().__init__(settings)

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        data = self.http.get_json(f"{self.base_url}/{self.name}", params={"q": query})
        return keep([make_result(self.name, title=h["title"], url=h["url"], snippet=h["text"])
                     for h in data["hits"]])


def bench_auto() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _LoopbackEngine.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir,
                                  "security.allow_private_hosts": ["127.0.0.1"]},
                                 config_files=[], environ={})
        engines = [_LoopbackEngine(f"engine{i}", settings) for i in range(3)]
        auto = AutoEngine(list(engines))
        started = time.perf_counter()
        results = auto.search("bench", max_results=10)
        elapsed = time.perf_counter() - started
    server.shutdown()
    print(f"auto over 3 engines of {LATENCY_SECONDS:.0f} s latency each: {elapsed:.2f} s, "
          f"{len(results)} results (sequential would be {3 * LATENCY_SECONDS:.0f} s)")


if __name__ == "__main__":
    bench_format()
    bench_auto()
