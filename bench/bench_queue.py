"""Queue figures ("Past one machine"): throughput against workers, and the queue's latency.

1. Throughput: ``--runs`` quick research runs (default 8) submitted at once through
   :class:`~deepcite.runs.queue.executor.QueueExecutor` and executed by ``deepcite
   worker --concurrency W`` for W in ``--workers`` (default 1,2,4), the chat model faked
   at exactly 1 s per call (``tests.worker_launcher``; a run makes 2 calls). Reported:
   runs/minute per worker count and the scaling factor against 1 worker. A warm-up run
   per worker process goes first and is not counted.
2. Latency the queue adds to a run, on one idle worker (model at 0.1 s per call, which
   does not enter either figure), over ``--samples`` runs (default 20) submitted one at a
   time: from ``submit()`` returning to the worker claiming the run (the claim's
   ``heartbeat_at``), and from the run's last event (its ``at``) to
   ``QueueExecutor.status`` saying ``completed`` (polled every millisecond). p50/p95 in
   ms; the target is under 50 ms.

The store is a throwaway PostgreSQL cluster (``tests.unit.postgres_fixture``) when
``initdb`` is installed, else SQLite (WAL) in a temporary data dir (``--store sqlite``
forces it); Redis is a ``redis-server`` subprocess on a unix socket. Figures are
printed, and written as JSON with ``--json PATH``. The default run takes about a minute.

    .venv/bin/python bench/bench_queue.py [--runs 8] [--workers 1,2,4] [--samples 20]
                                          [--store postgres|sqlite] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.redis_fixture import RedisServer  # noqa: E402
from tests.servers import start_process, wait_until  # noqa: E402

from deepcite.collections import Collection  # noqa: E402
from deepcite.config import Settings, load_settings  # noqa: E402
from deepcite.runs import RunRequest  # noqa: E402
from deepcite.runs.queue.executor import QueueExecutor  # noqa: E402
from deepcite.store import HistoryStore  # noqa: E402

MODEL_DELAY_S = 1.0
LATENCY_MODEL_DELAY_S = 0.1
QUESTION = "What did we decide about the cache?"
NOTES = {
    "cache.md": "# Cache decision\n\nWe decided to keep the cache in Redis with a one hour "
                "expiry, because the database was overloaded.\n",
    "team.md": "# Team\n\nThe team meets on Tuesdays to plan the sprint and review the "
               "cache.\n",
}
ENDED = {"completed", "cancelled", "failed", "interrupted"}


# ---------------------------------------------------------------------- set-up


@contextmanager
def postgres_store(kind: str) -> Iterator[tuple[str | None, str]]:
    """``(store URL or None for SQLite, description)``."""
    if kind == "sqlite":
        yield None, "SQLite (WAL) in a temporary data dir"
        return
    from sqlalchemy import create_engine, make_url
    from tests.unit.postgres_fixture import Cluster, Unavailable

    try:
        cluster = Cluster()
        cluster.start()
    except Unavailable as error:
        if kind == "postgres":
            raise SystemExit(f"PostgreSQL is not available: {error}") from None
        print(f"(PostgreSQL unavailable, using SQLite: {error})")
        yield None, "SQLite (WAL) in a temporary data dir"
        return
    try:
        server = make_url(cluster.url)
        name = f"bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        admin.dispose()
        yield (server.set(database=name).render_as_string(hide_password=False),
               "PostgreSQL (throwaway cluster, unix socket)")
    finally:
        cluster.stop()


def bench_settings(data_dir: Path, store_url: str | None, queue_url: str) -> Settings:
    values: dict[str, Any] = {
        "data_dir": str(data_dir), "research": {"iterations": 1},
        "queue": {"url": queue_url, "heartbeat_seconds": 30,
                  "heartbeat_timeout_seconds": 300}}
    if store_url:
        values["store"] = {"url": store_url}
    return load_settings(values, config_files=[], environ={})


def worker_env(data_dir: Path, store_url: str | None, queue_url: str,
               delay: float) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_QUEUE_URL=queue_url,
               DEEPCITE_QUEUE_HEARTBEAT_SECONDS="30",
               DEEPCITE_QUEUE_HEARTBEAT_TIMEOUT_SECONDS="300",
               DEEPCITE_RESEARCH_ITERATIONS="1", DEEPCITE_TEST_MODEL_DELAY=str(delay),
               NO_COLOR="1")
    if store_url:
        env["DEEPCITE_STORE_URL"] = store_url
    return env


@contextmanager
def workers(count: int, env: dict[str, str], queue_url: str, log: Path) -> Iterator[None]:
    """``deepcite worker --concurrency count``, registered with RQ before it yields."""
    from rq import Worker

    from deepcite.runs.queue.connection import redis_connection

    proc = start_process(log.stem, [sys.executable, "-m", "tests.worker_launcher", "worker",
                                    "--concurrency", str(count)],
                         logs=log.parent, env=env)
    client = redis_connection(queue_url)
    try:
        wait_until(lambda: Worker.count(connection=client) >= count,
                   f"the workers registering (see {log})", alive=proc.alive,
                   details=proc.tail)
        yield
    finally:
        proc.stop(30)
        deadline = time.monotonic() + 10
        while Worker.count(connection=client) > 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        client.close()


# ---------------------------------------------------------------------- measuring


def wait_ended(store: HistoryStore, run_ids: list[str], timeout: float = 300) -> None:
    pending = set(run_ids)
    deadline = time.monotonic() + timeout
    while pending:
        if time.monotonic() > deadline:
            raise SystemExit(f"{len(pending)} run(s) did not end in {timeout:.0f} s")
        pending = {r for r in pending if store.run_state(r).status not in ENDED}
        time.sleep(0.02)
    failed = [r for r in run_ids if store.run_state(r).status != "completed"]
    if failed:
        state = store.run_state(failed[0])
        raise SystemExit(f"{len(failed)} run(s) did not complete: {state.status} "
                         f"{state.error}")


def throughput(executor: QueueExecutor, count: int, runs: int) -> dict[str, float]:
    store = executor.store
    request = RunRequest(question=QUESTION, collections=["notes"])
    wait_ended(store, [executor.submit(request) for _ in range(count)])  # warm-up
    started = time.time()
    run_ids = [executor.submit(request) for _ in range(runs)]
    wait_ended(store, run_ids)
    last = max(store.run_state(r).finished_at for r in run_ids)  # type: ignore[type-var]
    elapsed = last.timestamp() - started  # type: ignore[union-attr]
    return {"workers": count, "runs": runs, "seconds": round(elapsed, 2),
            "runs_per_minute": round(runs / elapsed * 60, 2)}


def latency(executor: QueueExecutor, samples: int) -> dict[str, list[float]]:
    store = executor.store
    request = RunRequest(question=QUESTION, collections=["notes"])
    submit_ms, claim_ms, visible_ms = [], [], []
    for _ in range(samples + 1):
        before = time.time()
        run_id = executor.submit(request)
        submitted = time.time()
        while (info := executor.status(run_id)).state not in ENDED:
            time.sleep(0.001)
        seen = time.time()
        if info.state != "completed":
            raise SystemExit(f"a latency run ended {info.state}: {info.error}")
        state = store.run_state(run_id)
        events = store.events_after(run_id, 0)
        claimed = state.heartbeat_at  # set by the claim; the next beat is 30 s away
        if claimed is None or not events:
            raise SystemExit("the store kept no claim time or events for a run")
        submit_ms.append((submitted - before) * 1000)
        claim_ms.append((claimed.timestamp() - submitted) * 1000)
        visible_ms.append((seen - events[-1][1].at) * 1000)
    # the first run of a fresh worker process pays its imports: not a queue figure
    return {"submit_ms": submit_ms[1:], "claim_ms": claim_ms[1:],
            "visible_ms": visible_ms[1:]}


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 1), "p95": round(p95, 1),
            "max": round(ordered[-1], 1)}


# ---------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--store", choices=["auto", "postgres", "sqlite"], default="auto")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    counts = [int(part) for part in args.workers.split(",") if part.strip()]

    folder = Path(tempfile.mkdtemp(prefix="bench-queue-"))
    redis = RedisServer()
    redis.start()
    try:
        with postgres_store(args.store) as (store_url, store_name):
            figures = run(folder, redis, store_url, store_name, counts, args)
    finally:
        redis.close()
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(f"\nwritten to {args.json}")


def run(folder: Path, redis: RedisServer, store_url: str | None, store_name: str,
        counts: list[int], args: argparse.Namespace) -> dict[str, Any]:
    data_dir, notes = folder / "data", folder / "notes"
    notes.mkdir(parents=True)
    for name, text in NOTES.items():
        (notes / name).write_text(text, encoding="utf-8")
    settings = bench_settings(data_dir, store_url, redis.url)
    Collection.create("notes", settings=settings).add(notes)
    executor = QueueExecutor(settings, reap=False)
    figures: dict[str, Any] = {"store": store_name, "redis": "redis-server, unix socket",
                               "model_seconds_per_call": MODEL_DELAY_S, "throughput": []}
    try:
        env = worker_env(data_dir, store_url, redis.url, MODEL_DELAY_S)
        for count in counts:
            with workers(count, env, redis.url, folder / f"workers-{count}.log"):
                figures["throughput"].append(throughput(executor, count, args.runs))
            print(f"  {count} worker(s): done", flush=True)
        base = next((t["runs_per_minute"] for t in figures["throughput"]
                     if t["workers"] == 1), None)
        for entry in figures["throughput"]:
            entry["scaling"] = round(entry["runs_per_minute"] / base, 2) if base else None
        env = worker_env(data_dir, store_url, redis.url, LATENCY_MODEL_DELAY_S)
        with workers(1, env, redis.url, folder / "latency.log"):
            samples = latency(executor, args.samples)
        figures["latency"] = {name: percentiles(values) for name, values in samples.items()}
        figures["latency"]["samples"] = args.samples
    finally:
        executor.shutdown()
        with suppress(OSError):
            for log in folder.glob("*.log"):
                log.unlink()
    return figures


def report(figures: dict[str, Any]) -> None:
    print(f"\nQueue bench - store: {figures['store']}; queue: {figures['redis']}; "
          f"fake model {figures['model_seconds_per_call']:.1f} s/call, 2 calls/run")
    print("\nThroughput (runs submitted at once):")
    print(f"  {'workers':>7}  {'runs':>4}  {'seconds':>7}  {'runs/min':>8}  {'scaling':>7}")
    for t in figures["throughput"]:
        print(f"  {t['workers']:>7}  {t['runs']:>4}  {t['seconds']:>7.2f}  "
              f"{t['runs_per_minute']:>8.1f}  {t['scaling']:>6.2f}x")
    lat = figures["latency"]
    print(f"\nQueue latency on an idle worker ({lat['samples']} runs, ms):")
    rows = (("submit() call (store insert + enqueue)", "submit_ms"),
            ("submit -> worker claims the run", "claim_ms"),
            ("last event -> status 'completed' visible", "visible_ms"))
    for label, key in rows:
        p = lat[key]
        print(f"  {label:<42} p50 {p['p50']:>7.1f}   p95 {p['p95']:>7.1f}   "
              f"max {p['max']:>7.1f}")


if __name__ == "__main__":
    main()
