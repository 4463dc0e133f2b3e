"""Stopping ``deepcite serve`` with a run in flight: time from the signal to exit, and
what the stored run kept.

A real ``deepcite serve`` on a free loopback port, on the embedded default (bundled
model, demo collection) in a temporary data dir. For each of ``--repeat`` rounds a
detailed report is submitted (it runs long enough to be caught mid-run); once the
history store holds ``--after`` events of it (read from this process: they reach the
store as they happen), the server gets SIGTERM (or ``--signal INT``). Reported per
round: seconds from the signal to the process's exit, its exit status, and the stored
run's status, events and sources.

    .venv/bin/python bench/bench_shutdown.py [--repeat 3] [--after 3] [--signal TERM]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from deepcite.store import HistoryStore

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.servers import PATIENCE, answers, free_port, wait_until

QUESTION = "How do I parse command line arguments?"


def _round(data_dir: Path, after: int, stop: signal.Signals) -> dict[str, object]:
    port = free_port()
    env = {**os.environ, "DEEPCITE_DATA_DIR": str(data_dir)}
    process = subprocess.Popen([sys.executable, "-m", "deepcite", "serve", "--port",
                                str(port)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(answers(f"{base}/api/v1/health"), "deepcite serve",
                   alive=lambda: process.poll() is None)
        deadline = time.monotonic() + PATIENCE
        reply = httpx.post(f"{base}/api/v1/research", timeout=30, json={
            "question": QUESTION, "mode": "detailed", "collections": ["demo"]})
        reply.raise_for_status()
        run_id = reply.json()["id"]
        store = HistoryStore.from_url(f"sqlite:///{data_dir / 'history.db'}")
        try:
            while len(store.get(run_id).events) < after:
                if time.monotonic() > deadline:
                    raise SystemExit("the run produced too few events")
                time.sleep(0.05)
            started = time.monotonic()
            process.send_signal(stop)
            code = process.wait(timeout=300)
            seconds = time.monotonic() - started
            stored = store.get(run_id)
        finally:
            store.close()
        return {"seconds": seconds, "exit": code, "status": stored.status,
                "events": len(stored.events), "sources": len(stored.result.sources)}
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--after", type=int, default=3, help="events before the signal")
    parser.add_argument("--signal", choices=("TERM", "INT"), default="TERM")
    args = parser.parse_args()
    stop = signal.Signals[f"SIG{args.signal}"]
    seconds = []
    with tempfile.TemporaryDirectory(prefix="deepcite-bench-shutdown-") as folder:
        for n in range(1, args.repeat + 1):
            figures = _round(Path(folder) / "data", args.after, stop)
            seconds.append(float(str(figures["seconds"])))
            print(f"round {n}: SIG{args.signal} to exit {figures['seconds']:.2f} s, "
                  f"exit {figures['exit']}, run {figures['status']} with "
                  f"{figures['events']} events and {figures['sources']} sources")
    print(f"SIG{args.signal} to exit: median {statistics.median(seconds):.2f} s, "
          f"max {max(seconds):.2f} s over {len(seconds)} rounds")


if __name__ == "__main__":
    main()
