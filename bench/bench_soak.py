"""A soak: every kind of run at once through the REST API, for a bounded time.

For each combination of executor (``inprocess``: ``deepcite serve`` runs the runs
itself; ``queue``: ``serve`` with ``queue.url`` on a loopback ``redis-server`` and two
``deepcite worker`` processes) and store (SQLite in the data dir, or ``postgres``: a
throwaway cluster on a unix socket, ``tests.unit.postgres_fixture``), in a fresh data
dir, with the bundled model offline (``security.offline``, provider ``local``):

- ``--concurrency`` clients (default 4) each keep one run in flight for ``--seconds``
  (default 300), taking the kinds in turn: a quick answer and a detailed report on the
  demo collection (built by the first runs themselves), a run with two materials given
  inline, a follow-up of a finished run, and a run on the collection ``notes`` that a
  thread keeps editing and re-indexing (``deepcite collection add``) meanwhile. A
  detailed report is kept small (``report.max_sections`` 2, no subsections, one
  iteration) so that it ends in well under a minute;
- each client follows its run on ``/events`` (SSE), asks for an export while it runs
  (409 expected) and, once it has ended, for its status and an export in the next
  format of a rotation (Markdown, HTML, DOCX, PDF, JSON, BibTeX, ...);
- every ``--sample`` seconds (0.5) the VmRSS/VmHWM of the server and each worker (and
  any process they forked) is read from ``/proc``.

After ``--seconds`` no run is submitted; the runs in flight get ``--drain`` seconds
(default 300) to end (those that do not are cancelled and count as unfinished), then
everything is stopped and removed - also on Ctrl-C or SIGTERM.

Printed per combination: runs completed / failed / unfinished by kind; queue wait
(submit to the run's first event) and wall (submit to ``event: end``) p50/p95 per kind;
re-index rounds; peak RSS per process and whether the peak of the last third of the
soak exceeds the first third's by more than 20 % ("not flat"); the load average; and
the text of every error: a failed run's error, an HTTP 5xx (or other unexpected
reply), a failed re-index, an ERROR/CRITICAL line or traceback in a server/worker log.
Exit status 1 when any run failed or did not end, or any such error was seen.

    .venv/bin/python bench/bench_soak.py [--seconds 300] [--concurrency 4]
        [--executor inprocess|queue] [--store sqlite|postgres] [--all]
        [--drain 300] [--sample 0.5] [--json PATH] [--keep]

Needs Linux (``/proc``); ``--executor queue`` needs ``redis-server`` and
deepcite[queue], ``--store postgres`` needs ``initdb``/``pg_ctl`` and deepcite[postgres].
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import answers, free_port, wait_until  # noqa: E402

KINDS = ("quick", "detailed", "materials", "follow-up", "re-indexed")
EXPORT_FORMATS = ("markdown", "html", "docx", "pdf", "json", "bibtex", "odt", "latex",
                  "ris", "csl-json", "quarto")
ENDED = {"completed", "cancelled", "failed", "interrupted"}
#: A small detailed report: two parts, no subsections, one iteration.
SMALL_REPORT = {"report.max_sections": 2, "report.max_subsections": 0,
                "report.section_iterations": 1, "research.iterations": 1}
QUESTIONS = ("How do I parse command line arguments?", "How do I read a JSON file?",
             "How do I run code in parallel threads?", "How do I match text with a "
             "regular expression?", "How do I work with dates and times?",
             "How do I write a unit test?")
FOLLOW_UPS = ("What are the common pitfalls?", "Can you give an example?",
              "What are the alternatives?")
NOTES_QUESTIONS = ("What did we decide about the cache?", "When does the team meet?",
                   "What changed in the latest release?")
NOTES = {
    "cache.md": "# Cache decision\n\nWe decided to keep the cache in Redis with a one hour "
                "expiry, because the database was overloaded.\n",
    "team.md": "# Team\n\nThe team meets on Tuesdays to plan the sprint and review the "
               "cache.\n",
    "release.md": "# Releases\n\nThe latest release moved the search index to SQLite FTS5 "
                  "and made exports faster.\n",
}
MATERIALS = [
    {"url": "/soak/materials/incident.md", "title": "Incident review",
     "content": "# Incident review\n\nOn Monday the report service stalled for forty "
                "minutes. The cause was a lock held by the nightly re-index while reports "
                "were written. We now re-index in small batches and the writer retries "
                "once.\n\nFollow-up: measure the re-index time every week.\n" * 3},
    {"url": "https://example.org/soak/plan", "title": "Capacity plan",
     "content": "# Capacity plan\n\nTwo workers serve the queue; a third is added when "
                "the queue wait exceeds thirty seconds at the 95th percentile. Memory per "
                "worker stays under one gigabyte.\n"},
]
MATERIAL_QUESTION = "What stalled the report service and what was changed?"
LOG_ERROR = re.compile(r"\b(ERROR|CRITICAL)\b|Traceback \(most recent call last\)")


# ---------------------------------------------------------------------- records


@dataclass
class RunRecord:
    kind: str
    submitted: float  # time.time()
    run_id: str | None = None
    first_event: float | None = None
    ended: float | None = None
    state: str = "unsubmitted"
    error: str | None = None


@dataclass
class Soak:
    """What one combination saw; every list is appended to from several threads."""

    runs: list[RunRecord] = field(default_factory=list)
    exports: list[tuple[str, float, bool]] = field(default_factory=list)  # fmt, s, ok
    reindex: list[tuple[float, bool]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    rss: dict[str, list[tuple[float, int, int]]] = field(
        default_factory=lambda: defaultdict(list))  # label -> (t, VmRSS, VmHWM) kB
    completed: list[str] = field(default_factory=list)  # ids with an answer
    lock: threading.Lock = field(default_factory=threading.Lock)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


# ---------------------------------------------------------------------- services




@contextmanager
def postgres_url() -> Iterator[str]:
    """A database on a throwaway cluster (unix socket), dropped with the cluster."""
    from sqlalchemy import create_engine, make_url
    from tests.unit.postgres_fixture import Cluster, Unavailable

    try:
        cluster = Cluster()
    except Unavailable as error:
        raise SystemExit(f"PostgreSQL is not available: {error}") from None
    try:
        cluster.start()
        server = make_url(cluster.url)
        name = f"soak_{uuid.uuid4().hex[:8]}"
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        admin.dispose()
        yield server.set(database=name).render_as_string(hide_password=False)
    except Unavailable as error:
        raise SystemExit(f"PostgreSQL did not start: {error}") from None
    finally:
        with suppress(Unavailable):  # a Ctrl-C in the terminal may have stopped it
            cluster.stop()


@contextmanager
def redis_url() -> Iterator[str]:
    from tests.redis_fixture import RedisServer, Unavailable

    try:
        server = RedisServer()
        server.start()
    except Unavailable as error:
        raise SystemExit(f"Redis is not available: {error}") from None
    try:
        yield server.url
    finally:
        server.close()


@dataclass
class Process:
    label: str
    popen: subprocess.Popen[bytes]
    log: Path
    signalled: bool = False

    def terminate(self) -> None:
        """SIGTERM, once: a second one would make a worker drop the run it holds."""
        if not self.signalled and self.popen.poll() is None:
            self.signalled = True
            with suppress(ProcessLookupError):
                self.popen.send_signal(signal.SIGTERM)


def terminate_all(processes: list[Process]) -> None:
    """Every process is told to stop at once, so that their shutdowns overlap."""
    for process in processes:
        process.terminate()


@contextmanager
def started(label: str, args: list[str], env: dict[str, str], cwd: Path,
            processes: list[Process]) -> Iterator[Process]:
    """``python -m deepcite ARGS`` in a session of its own (a Ctrl-C in the terminal
    reaches this script only, which stops it: SIGTERM, then SIGKILL to the group)."""
    log = cwd / f"{label}.log"
    with log.open("ab") as out:
        popen = subprocess.Popen([sys.executable, "-m", "deepcite", *args], env=env,
                                 cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT, start_new_session=True)
    process = Process(label, popen, log)
    processes.append(process)
    try:
        yield process
    finally:
        stop(process)


def stop(process: Process, grace: float = 60.0) -> None:
    popen = process.popen
    process.terminate()
    with suppress(subprocess.TimeoutExpired):
        popen.wait(timeout=grace)
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(popen.pid, signal.SIGKILL)  # and anything it forked
    with suppress(subprocess.TimeoutExpired):
        popen.wait(timeout=10)


def wait_until_up(base: str, process: Process) -> None:
    """Until ``deepcite serve`` at ``base`` answers its health check (tests.servers:
    waited for, never timed)."""
    wait_until(answers(f"{base}/api/v1/health"), "deepcite serve",
               alive=lambda: process.popen.poll() is None,
               details=lambda: tail(process.log), pause=0.2)


def wait_workers(queue: str, count: int, processes: list[Process]) -> None:
    """Until ``count`` workers have registered with the queue."""
    from rq import Worker

    from deepcite.runs.queue.connection import redis_connection

    client = redis_connection(queue)
    try:
        wait_until(lambda: Worker.count(connection=client) >= count,
                   f"{count} workers registering",
                   alive=lambda: all(p.popen.poll() is None for p in processes),
                   details=lambda: "\n".join(f"{p.label}: {tail(p.log)}"
                                              for p in processes), pause=0.1)
    finally:
        client.close()


def tail(log: Path, chars: int = 600) -> str:
    with suppress(OSError):
        return " ".join(log.read_text(errors="replace")[-chars:].split())
    return ""


def environment(folder: Path, store: str | None, queue: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(folder / "data"), DEEPCITE_SECURITY_OFFLINE="true",
               DEEPCITE_LLM_PROVIDER="local", DEEPCITE_RESEARCH_ITERATIONS="1",
               XDG_CONFIG_HOME=str(folder / "config"), NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH", "")) if p)
    if store:
        env["DEEPCITE_STORE_URL"] = store
    if queue:
        env["DEEPCITE_QUEUE_URL"] = queue
    return env


# ---------------------------------------------------------------------- load


class Clients:
    """``concurrency`` threads, each with one run in flight until ``deadline``."""

    def __init__(self, base: str, soak: Soak, concurrency: int, deadline: float,
                 stopping: threading.Event) -> None:
        self.base, self.soak, self.deadline, self.stopping = base, soak, deadline, stopping
        self.turn = itertools.count()
        self.formats = itertools.cycle(EXPORT_FORMATS)
        self.next_lock = threading.Lock()
        self.owed = 0  # follow-ups put off until a run had ended with an answer
        self.threads = [threading.Thread(target=self.client, name=f"soak-client-{n}",
                                         daemon=True) for n in range(concurrency)]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def join(self, seconds: float) -> bool:
        """Wait for the runs in flight; ``False`` if some are still going."""
        until = time.monotonic() + seconds
        for thread in self.threads:
            thread.join(max(0.0, until - time.monotonic()))
        return not any(thread.is_alive() for thread in self.threads)

    def client(self) -> None:
        with httpx.Client(base_url=self.base, timeout=httpx.Timeout(120, read=120)) as http:
            while time.time() < self.deadline and not self.stopping.is_set():
                with self.next_lock:
                    n = next(self.turn)
                    kind = KINDS[n % len(KINDS)]
                    if self.owed and self.soak.completed:
                        self.owed, kind = self.owed - 1, "follow-up"
                try:
                    self.one(http, kind, n)
                except Exception as error:  # noqa: BLE001 - the bench's own trouble: say it, go on
                    self.soak.error(f"client: {type(error).__name__}: {error}")
                    time.sleep(1)

    def request(self, kind: str, n: int) -> tuple[str, dict[str, Any]]:
        question = QUESTIONS[n % len(QUESTIONS)]
        detailed = (n // len(KINDS)) % 2 == 1  # every other turn of a kind
        body: dict[str, Any] = {"question": question, "collections": ["demo"]}
        if kind == "detailed":
            body.update(mode="detailed", settings=SMALL_REPORT)
        elif kind == "materials":
            body.update(question=MATERIAL_QUESTION, materials=MATERIALS)
            if detailed:
                body.update(mode="detailed", settings=SMALL_REPORT)
        elif kind == "follow-up":
            with self.soak.lock:
                parents = list(self.soak.completed)
            if not parents:  # nothing has ended yet: a quick answer now, a follow-up later
                with self.next_lock:
                    self.owed += 1
                return "quick", body
            body.update(question=FOLLOW_UPS[n % len(FOLLOW_UPS)],
                        parent_id=parents[n % len(parents)])
        elif kind == "re-indexed":
            body.update(question=NOTES_QUESTIONS[n % len(NOTES_QUESTIONS)],
                        collections=["notes"])
            if detailed:
                body.update(mode="detailed", settings=SMALL_REPORT)
        return kind, body

    def call(self, http: httpx.Client, method: str, path: str, expect: set[int],
             **kwargs: Any) -> httpx.Response | None:
        try:
            reply = http.request(method, path, **kwargs)
        except httpx.HTTPError as error:
            self.soak.error(f"{method} {path}: {type(error).__name__}: {error}")
            return None
        if reply.status_code not in expect:
            self.soak.error(f"{method} {path}: HTTP {reply.status_code}: "
                            f"{' '.join(reply.text.split())[:400]}")
            return None
        return reply

    def one(self, http: httpx.Client, kind: str, n: int) -> None:
        kind, body = self.request(kind, n)
        record = RunRecord(kind=kind, submitted=time.time())
        with self.soak.lock:
            self.soak.runs.append(record)
        reply = self.call(http, "POST", "/api/v1/research", {202}, json=body)
        if reply is None:
            record.state = "refused"
            return
        run_id = record.run_id = reply.json()["id"]
        record.state = "submitted"
        self.follow(http, record)
        status = self.call(http, "GET", f"/api/v1/research/{run_id}", {200})
        if status is None:
            return
        info = status.json()
        record.state, record.error = info["state"], info.get("error")
        answer = ((info.get("result") or {}).get("answer") or "").strip()
        if record.state == "completed" and answer:
            with self.soak.lock:
                self.soak.completed.append(run_id)
        if record.state in ENDED:
            with self.next_lock:
                fmt = next(self.formats)
            began = time.perf_counter()
            done = self.call(http, "GET", f"/api/v1/research/{run_id}/export/{fmt}", {200})
            with self.soak.lock:
                self.soak.exports.append((fmt, time.perf_counter() - began,
                                          done is not None))

    def follow(self, http: httpx.Client, record: RunRecord) -> None:
        """Read the run's event stream to its end (resuming after a cut, as a browser
        does); an export asked for after the first event must be refused with 409."""
        from deepcite.web.rest import sse_lines

        after, asked = 0, False
        path = f"/api/v1/research/{record.run_id}"
        while not self.stopping.is_set():
            asked_at, replied, messages = time.monotonic(), False, 0
            try:
                with http.stream("GET", f"{path}/events", params={"after": after}) as reply:
                    replied = True
                    if reply.status_code != 200:
                        reply.read()
                        self.soak.error(f"GET {path}/events: HTTP {reply.status_code}: "
                                        f"{' '.join(reply.text.split())[:400]}")
                        return
                    buffer = ""
                    for chunk in reply.iter_text():
                        buffer += chunk
                        *blocks, buffer = buffer.split("\n\n")
                        for message in sse_lines("\n\n".join(blocks)):
                            messages += 1
                            if message.get("event") == "end":
                                record.ended = time.time()
                                return
                            if "id" in message:
                                after = int(message["id"])
                                if record.first_event is None:
                                    record.first_event = event_time(message)
                        if record.first_event is not None and not asked:
                            asked = True
                            self.call(http, "GET", f"{path}/export/markdown", {409, 200})
            except httpx.HTTPError as error:
                where = (f"after {messages} message(s) of the stream" if replied
                         else "before any reply")
                self.soak.error(f"GET {path}/events: {type(error).__name__}: {error} "
                                f"({where}, {time.monotonic() - asked_at:.1f} s after "
                                "asking; resumed)")
                time.sleep(1)


def event_time(message: dict[str, str]) -> float:
    """When an SSE message's event happened (its ``at``), else now."""
    at = json.loads(message.get("data") or "{}").get("at")
    if isinstance(at, int | float):
        return float(at)
    if isinstance(at, str):
        with suppress(ValueError):
            return datetime.fromisoformat(at).timestamp()
    return time.time()


def reindexer(folder: Path, env: dict[str, str], soak: Soak, stopping: threading.Event,
              log: Path) -> None:
    """Edit the notes folder and ``deepcite collection add`` it again, until stopped."""
    notes = folder / "notes"
    for n in itertools.count(1):
        if stopping.wait(1.0):
            return
        edited = notes / "release.md"
        edited.write_text(NOTES["release.md"] + f"\nRound {n}: the index was rebuilt "
                          f"and release {n} shipped.\n" * (1 + n % 5), encoding="utf-8")
        extra = notes / f"round-{n}.md"
        extra.write_text(f"# Round {n}\n\nRound {n} changed the cache expiry to {n} "
                         "minutes.\n", encoding="utf-8")
        (notes / f"round-{n - 3}.md").unlink(missing_ok=True)  # some files go away
        began = time.perf_counter()
        with log.open("ab") as out:
            done = subprocess.run([sys.executable, "-m", "deepcite", "collection", "add",
                                   "--name", "notes", str(notes)], env=env, cwd=folder,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, check=False)
            out.write(done.stderr)
        ok = done.returncode == 0
        with soak.lock:
            soak.reindex.append((time.perf_counter() - began, ok))
        if not ok and not stopping.is_set():
            soak.error(f"collection add (round {n}): exit {done.returncode}: "
                       f"{' '.join(done.stderr.decode(errors='replace').split())[-600:]}")


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for path in Path(f"/proc/{parent}/task").glob("*/children"):
            with suppress(OSError):
                for child in path.read_text().split():
                    found.append(int(child))
                    todo.append(int(child))
    return found


def memory(pid: int) -> tuple[int, int] | None:
    """``(VmRSS, VmHWM)`` of ``pid`` in kB."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    values = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", text, re.MULTILINE))
    if "VmRSS" not in values:
        return None
    return int(values["VmRSS"]), int(values.get("VmHWM", values["VmRSS"]))


def command(pid: int) -> str:
    with suppress(OSError):
        return Path(f"/proc/{pid}/comm").read_text().strip() or str(pid)
    return str(pid)


def sampler(processes: list[Process], soak: Soak, every: float,
            stopping: threading.Event) -> None:
    while not stopping.wait(every):
        now = time.time()
        for process in list(processes):
            # forked helpers (a converter, a find_library probe) by their name
            pids = [(process.label, process.popen.pid)] + [
                (f"{process.label}/{command(child)}", child)
                for child in descendants(process.popen.pid)]
            for label, pid in pids:
                seen = memory(pid)
                if seen is not None:
                    soak.rss[label].append((now, *seen))


# ---------------------------------------------------------------------- a combination


def combination(executor: str, store: str, args: argparse.Namespace) -> dict[str, Any]:
    title = f"{executor} / {store}"
    print(f"\n== {title}: {args.seconds:.0f} s, concurrency {args.concurrency} ==",
          flush=True)
    folder = Path(tempfile.mkdtemp(prefix="deepcite-bench-soak-"))
    soak = Soak()
    processes: list[Process] = []
    stopping = threading.Event()
    load_before = os.getloadavg()
    figures: dict[str, Any] = {"combination": title}
    try:
        with ExitStack() as stack:
            store_url = stack.enter_context(postgres_url()) if store == "postgres" else None
            queue = stack.enter_context(redis_url()) if executor == "queue" else None
            env = environment(folder, store_url, queue)
            notes = folder / "notes"
            notes.mkdir(parents=True)
            (folder / "config").mkdir()
            for name, text in NOTES.items():
                (notes / name).write_text(text, encoding="utf-8")
            first = subprocess.run([sys.executable, "-m", "deepcite", "collection", "add",
                                    "--name", "notes", str(notes)], env=env, cwd=folder,
                                   capture_output=True, text=True, check=False)
            if first.returncode != 0:
                raise SystemExit(f"collection add failed: {first.stderr[-600:]}")
            port = free_port()
            server = stack.enter_context(started(
                "server", ["-v", "serve", "--port", str(port), "--workers",
                           str(args.concurrency)], env, folder, processes))
            if queue:
                for n in (1, 2):
                    stack.enter_context(started(f"worker-{n}", ["-v", "worker"], env,
                                                folder, processes))
                wait_workers(queue, 2, processes)
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base, server)
            print(f"  up: {', '.join(f'{p.label} (pid {p.popen.pid})' for p in processes)}"
                  f"; data in {folder}", flush=True)

            stack.callback(terminate_all, processes)
            stack.callback(stopping.set)  # first thing of the teardown, also on Ctrl-C
            began = time.time()
            deadline = began + args.seconds
            threads = [threading.Thread(target=sampler, daemon=True,
                                        args=(processes, soak, args.sample, stopping)),
                       threading.Thread(target=reindexer, daemon=True,
                                        args=(folder, env, soak, stopping,
                                              folder / "reindex.log"))]
            for thread in threads:
                thread.start()
            clients = Clients(base, soak, args.concurrency, deadline, stopping)
            clients.start()
            exited: set[str] = set()
            while time.time() < deadline:
                time.sleep(0.5)
                for process in processes:
                    if process.popen.poll() is not None and process.label not in exited:
                        exited.add(process.label)
                        soak.error(f"{process.label} exited with "
                                   f"{process.popen.returncode} during the soak")
            print(f"  {args.seconds:.0f} s are up: {len(soak.runs)} runs submitted; "
                  "waiting for the runs in flight", flush=True)
            if not clients.join(args.drain):
                cancel_unfinished(base, soak)
                clients.join(30)
            ended = time.time()
            stopping.set()
            for thread in threads:
                thread.join(120)
            figures.update(summarise(soak, began, deadline, ended))
        # the processes have stopped (the ExitStack): their logs are complete
        for process in processes:
            figures["errors"] += log_errors(process.label, process.log)
        figures["errors"] += log_errors("collection add", folder / "reindex.log")
    finally:
        stopping.set()
        if args.keep:
            print(f"  kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    figures["load_before"], figures["load_after"] = load_before, os.getloadavg()
    return figures


def cancel_unfinished(base: str, soak: Soak) -> None:
    with httpx.Client(base_url=base, timeout=30) as http:
        for record in soak.runs:
            if record.run_id and record.ended is None:
                record.state = "unfinished"
                with suppress(httpx.HTTPError):
                    http.post(f"/api/v1/research/{record.run_id}/cancel")


def log_errors(label: str, log: Path) -> list[str]:
    """ERROR/CRITICAL lines and tracebacks (as their last line) of a log."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return []
    found: Counter[str] = Counter()
    n = 0
    while n < len(lines):
        line = lines[n]
        if "Traceback (most recent call last)" in line:
            where = ""
            n += 1
            while n < len(lines) and (lines[n].startswith(" ") or not lines[n].strip()):
                if lines[n].strip().startswith("File "):
                    where = lines[n].strip()
                n += 1
            last = lines[n] if n < len(lines) else "(end of log)"
            found[f"traceback: {last.strip()} ({where})"] += 1
        elif LOG_ERROR.search(line):
            found[line.strip()[:500]] += 1
        n += 1
    return [f"{label} log: {text}" + (f" (x{count})" if count > 1 else "")
            for text, count in found.items()]


def by_second(samples: list[tuple[float, int, int]], began: float) -> dict[int, float]:
    """VmRSS in MiB, the last sample of each whole second since ``began`` (for --json)."""
    return {int(t - began): round(rss / 1024, 1) for t, rss, _ in samples}


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summarise(soak: Soak, began: float, deadline: float, ended: float) -> dict[str, Any]:
    kinds: dict[str, dict[str, Any]] = {}
    errors = list(soak.errors)
    for kind in KINDS:
        records = [r for r in soak.runs if r.kind == kind]
        waits = [r.first_event - r.submitted for r in records if r.first_event]
        walls = [r.ended - r.submitted for r in records if r.ended]
        states = Counter(r.state for r in records)
        kinds[kind] = {
            "completed": states["completed"],
            "failed": sum(states[s] for s in ("failed", "cancelled", "interrupted",
                                              "refused")),
            "unfinished": sum(states[s] for s in ("unfinished", "submitted")),
            "wait_p50": percentile(waits, 0.5), "wait_p95": percentile(waits, 0.95),
            "wall_p50": percentile(walls, 0.5), "wall_p95": percentile(walls, 0.95)}
        for r in records:
            if r.state not in ("completed", "refused"):  # a refusal is in the errors
                errors.append(f"{kind} run {r.run_id}: {r.state}: {r.error or '-'}")
    exports = [seconds for _, seconds, _ in soak.exports]
    kinds["export"] = {"completed": sum(ok for *_, ok in soak.exports),
                       "failed": sum(not ok for *_, ok in soak.exports), "unfinished": 0,
                       "wait_p50": None, "wait_p95": None,
                       "wall_p50": percentile(exports, 0.5),
                       "wall_p95": percentile(exports, 0.95)}
    third = (deadline - began) / 3
    memory_figures = {}
    for label, samples in soak.rss.items():
        first = [rss for t, rss, _ in samples if t < began + third]
        last = [rss for t, rss, _ in samples if deadline - third <= t <= deadline]
        peak = max(max(hwm for *_, hwm in samples), max(rss for _, rss, _ in samples))
        child = "/" in label  # short-lived helpers: a peak, but no trend
        grew = (max(last) / max(first) - 1) if first and last and not child else None
        memory_figures[label] = {"peak_mib": round(peak / 1024, 1),
                                 "first_third_mib": round(max(first) / 1024, 1) if first
                                 else None,
                                 "last_third_mib": round(max(last) / 1024, 1) if last
                                 else None,
                                 "flat": None if grew is None else grew <= 0.20,
                                 "rss_mib_by_second": by_second(samples, began)}
    adds = [seconds for seconds, _ in soak.reindex]
    return {"seconds": round(deadline - began), "drain_seconds": round(ended - deadline),
            "kinds": kinds, "memory": memory_figures, "errors": errors,
            "reindex": {"rounds": len(soak.reindex),
                        "failed": sum(not ok for _, ok in soak.reindex),
                        "p50": percentile(adds, 0.5)},
            "submitted": len(soak.runs)}


# ---------------------------------------------------------------------- report


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def report(figures: dict[str, Any]) -> None:
    print(f"\n{figures['combination']}: {figures['seconds']} s soak + "
          f"{figures['drain_seconds']} s to drain, {figures['submitted']} runs submitted")
    print(f"  {'kind':<11} {'done':>5} {'failed':>6} {'unfin.':>6}  {'wait p50':>8} "
          f"{'wait p95':>8}  {'wall p50':>8} {'wall p95':>8}")
    for kind, k in figures["kinds"].items():
        print(f"  {kind:<11} {k['completed']:>5} {k['failed']:>6} {k['unfinished']:>6}  "
              f"{seconds(k['wait_p50']):>8} {seconds(k['wait_p95']):>8}  "
              f"{seconds(k['wall_p50']):>8} {seconds(k['wall_p95']):>8}")
    r = figures["reindex"]
    print(f"  re-index: {r['rounds']} rounds of `collection add`, {r['failed']} failed, "
          f"p50 {seconds(r['p50'])} s")
    print("  peak RSS (MiB; peak in the first -> last third of the soak):")
    for label, m in figures["memory"].items():
        if "/" in label:
            print(f"    {label:<22} {m['peak_mib']:>7.1f}  (a child process)")
            continue
        flat = {None: "-", True: "flat", False: "NOT FLAT"}[m["flat"]]
        print(f"    {label:<22} {m['peak_mib']:>7.1f}  ({m['first_third_mib']} -> "
              f"{m['last_third_mib']})  {flat}")
    before, after = figures["load_before"], figures["load_after"]
    print(f"  load average (1/5/15 min): before {before[0]:.2f} {before[1]:.2f} "
          f"{before[2]:.2f}, after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f} "
          f"({os.cpu_count()} CPUs)")
    print(f"  errors: {len(figures['errors'])}")
    for text in figures["errors"]:
        print(f"    - {text}")


def summary(all_figures: list[dict[str, Any]]) -> None:
    print(f"\n{'combination':<20} {'done':>5} {'failed':>6} {'unfin.':>6} {'errors':>6} "
          f"{'max peak MiB':>12}  memory")
    for f in all_figures:
        kinds = f["kinds"].values()
        peaks = [m["peak_mib"] for m in f["memory"].values()]
        flat = "NOT FLAT" if any(m["flat"] is False for m in f["memory"].values()) \
            else "flat"
        print(f"{f['combination']:<20} {sum(k['completed'] for k in kinds):>5} "
              f"{sum(k['failed'] for k in kinds):>6} "
              f"{sum(k['unfinished'] for k in kinds):>6} {len(f['errors']):>6} "
              f"{max(peaks, default=0):>12.1f}  {flat}")


def bad(figures: dict[str, Any]) -> bool:
    return bool(figures["errors"]) or any(
        k["failed"] or k["unfinished"] for k in figures["kinds"].values())


# ---------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--concurrency", type=int, default=4, help="runs in flight")
    parser.add_argument("--executor", choices=["inprocess", "queue"], default="inprocess")
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--all", action="store_true",
                        help="the four executor x store combinations in turn")
    parser.add_argument("--drain", type=float, default=300,
                        help="seconds the runs in flight get to end after --seconds")
    parser.add_argument("--sample", type=float, default=0.5, help="RSS sampling period")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    args = parser.parse_args()
    if not Path("/proc/self/status").exists():
        raise SystemExit("needs Linux (/proc)")

    def terminated(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # so that every finally below tears down

    signal.signal(signal.SIGTERM, terminated)
    combos = ([(e, s) for s in ("sqlite", "postgres") for e in ("inprocess", "queue")]
              if args.all else [(args.executor, args.store)])
    results = []
    try:
        for executor, store in combos:
            figures = combination(executor, store, args)
            report(figures)
            results.append(figures)
    except KeyboardInterrupt:
        print("\ninterrupted: stopped and removed everything", file=sys.stderr)
        return 130
    if len(results) > 1:
        summary(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"\nwritten to {args.json}")
    return 1 if any(bad(f) for f in results) else 0


if __name__ == "__main__":
    sys.exit(main())
