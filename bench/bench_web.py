"""The REST API under concurrent readers: status latency and identical event streams.

Serves the app with uvicorn on 127.0.0.1 (a free port) in its own process, with a scripted
model whose calls sleep so that one run lasts a few seconds, then - while that run
goes on - fires 200 concurrent ``GET /api/v1/research/{id}`` and holds 50 concurrent
SSE streams until ``event: end``. Prints the GETs' p50/p95 latency and whether every
stream saw the identical ordered event list (OK, or the first mismatch).

    .venv/bin/python bench/bench_web.py [--gets 200] [--streams 50] [--delay 0.5]

No targets are asserted: the figures are wall-clock times on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import httpx
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fakes import ScriptedChatModel
from tests.servers import answers, free_port, wait_until

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.rest import sse_lines


def slow(text: str, delay: float) -> object:
    def reply(prompt: str) -> str:
        time.sleep(delay)
        return text
    return reply


def serve(settings: Settings, port: int, delay: float) -> None:
    """The server process: the app with a scripted model whose calls take ``delay``."""
    fake = ScriptedChatModel(script={
        "questions": [slow("Where is the cache kept?", delay)],
        "synthesis": [slow("The cache is in Redis [1].", delay)]}, default="")
    mock.patch.object(deepcite.runs.build, "get_chat_model", lambda settings: fake).start()
    executor = LocalRunExecutor(settings, workers=2)
    try:
        uvicorn.run(create_app(WebState(settings=settings, executor=executor)),
                    host="127.0.0.1", port=port, log_level="warning")
    finally:
        executor.shutdown()


async def load(base: str, run_id: str, gets: int, streams: int
               ) -> tuple[list[float], list[list[dict[str, str]]]]:
    limits = httpx.Limits(max_connections=gets + streams + 10)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        async def get() -> float:
            started = time.perf_counter()
            reply = await client.get(f"/api/v1/research/{run_id}")
            reply.raise_for_status()
            return time.perf_counter() - started

        async def stream() -> list[dict[str, str]]:
            async with client.stream("GET", f"/api/v1/research/{run_id}/events") as reply:
                body = "".join([chunk async for chunk in reply.aiter_text()])
            return sse_lines(body)

        readers = [asyncio.create_task(stream()) for _ in range(streams)]
        await asyncio.sleep(0.2)  # the streams are open while the GETs come
        latencies = await asyncio.gather(*(get() for _ in range(gets)))
        return list(latencies), list(await asyncio.gather(*readers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gets", type=int, default=200)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds per model call")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as data_dir:
        folder = Path(data_dir) / "notes"
        folder.mkdir()
        (folder / "cache.md").write_text("# Cache\n\nWe keep the cache in Redis with a one "
                                         "hour expiry because the database was overloaded.\n")
        settings = load_settings({"data_dir": data_dir, "collections": ["notes"],
                                  "iterations": 1}, config_files=[], environ={})
        Collection.create("notes", settings=settings).add(folder)
        port = free_port()
        # The server gets its own process (and GIL): measured in one process, the load
        # generator's own Python work would be counted as the server's latency.
        child = multiprocessing.get_context("fork").Process(
            target=serve, args=(settings, port, args.delay), daemon=True)
        child.start()
        base = f"http://127.0.0.1:{port}"
        wait_until(answers(f"{base}/api/v1/health"), f"the server at {base}",
                   alive=child.is_alive)
        try:
            run_id = httpx.post(f"{base}/api/v1/research",
                                json={"question": "Where is the cache kept?"}).json()["id"]
            single = []
            with httpx.Client(base_url=base) as one:
                for _ in range(20):
                    began = time.perf_counter()
                    one.get(f"/api/v1/research/{run_id}").raise_for_status()
                    single.append(1000 * (time.perf_counter() - began))
            started = time.perf_counter()
            latencies, seen = asyncio.run(load(base, run_id, args.gets, args.streams))
            wall = time.perf_counter() - started
            reply = httpx.get(f"{base}/api/v1/research/{run_id}").json()
            state = reply["state"]
            calls = (reply.get("result") or {}).get("metrics", {}).get("model_calls")
        finally:
            child.terminate()
            child.join(10)

    ms = sorted(1000 * s for s in latencies)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    print(f"one GET at a time (keep-alive): p50 {statistics.median(single):.1f} ms")
    print(f"run: {state}, {wall:.1f} s while loaded; model calls: {calls}")
    print(f"{len(ms)} concurrent GET /research/{{id}}: p50 {statistics.median(ms):.1f} ms, "
          f"p95 {p95:.1f} ms, max {ms[-1]:.1f} ms")
    reference = seen[0]
    kinds = [e.get("event") for e in reference]
    print(f"{len(seen)} SSE streams, {len(reference)} messages each: {kinds}")
    for n, other in enumerate(seen[1:], 2):
        if other != reference:
            print(f"MISMATCH: stream {n} saw {[e.get('event') for e in other]}")
            break
    else:
        print("OK: every stream saw the identical ordered event list, ending with end"
              if kinds and kinds[-1] == "end" else "MISMATCH: streams did not end with end")


if __name__ == "__main__":
    main()
