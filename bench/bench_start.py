"""How long a command takes from the first keystroke, cold and warm, and its peak memory.

Each command runs as a fresh process (``python -m deepcite ...``, what the ``deepcite``
script does) N times; the table gives the median wall time, the spread (min-max), the
median as a multiple of ``python -c pass`` (the yardstick: on a loaded machine every
figure grows, the ratio much less), the median CPU time (user + system: what the
command itself costs, which other work on the machine changes far less than the wall
time) and the peak resident memory of the process.

* warm: bytecode cached, as after any earlier call;
* cold: deepcite's sources copied to a fresh folder without ``__pycache__`` and run with
  ``PYTHONDONTWRITEBYTECODE=1``, so every deepcite module is compiled on every call
  (read-only installs, some containers); third-party packages keep their cache.

``history``, ``show`` and ``config show`` run on a data dir holding one stored run (written
by a helper process before timing); ``ask`` on a data dir whose demo index was built by
one untimed ask first (the first answer of a fresh data dir is a separate figure).

    .venv/bin/python bench/bench_start.py [--runs 5] [--ask-runs 3] [--quick]

Beside these, with bytecode cached: the ask with ``DEEPCITE_CITATIONS_SENTENCE_MEANING=off``;
the *first* ask of a fresh data dir (each timed run gets a new one, so its figure
includes checking the demo collection's index, built during set-up, and the first
history database); and the first answer in the web app of a fresh data dir - from
starting ``deepcite serve`` until ``POST /api/v1/research`` has its answer (the server's
own start, its warm-up of the demo index and model, and the run).

``--quick`` skips every ask (seconds instead of a few minutes). Targets (issue 46):
``--version`` and ``--help`` <= 0.3 s; the ask <= 3 s and <= 450 MiB; with the meaning
scores off <= 2 s; the first answer of a fresh data dir and in the web app <= 8 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

QUESTION = "How do I read a CSV file?"
STORED_LABELS = ("deepcite history", "deepcite show RUN", "deepcite config show")
"""The commands run against the data dir holding one stored run."""

SEED = """
from deepcite.config import load_settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, Source

settings = load_settings()
source = Source(number=1, title="csv - CSV File Reading and Writing",
                url="https://docs.python.org/3/library/csv.html",
                canonical_url="https://docs.python.org/3/library/csv.html",
                snippet="The csv module implements classes to read tabular data.",
                engine="collection:demo")
with HistoryStore.open(settings) as store:
    run_id = store.begin("How do I read a CSV file?", mode="quick", settings=settings)
    store.finish(run_id, ResearchResult(
        question="How do I read a CSV file?", strategy="source-based", handler="standard",
        answer="Use **csv.reader** on an open file [1].", sources=[source]))
print(run_id)
"""


@dataclass(frozen=True)
class Measured:
    """One command's runs: wall seconds, CPU seconds and peak resident memory (MiB)."""

    label: str
    mode: str
    seconds: list[float]
    peak_mib: list[float]
    cpu: list[float]


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall time, peak RSS and CPU time of one child process (its own rusage, from
    wait4)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stderr is not None
    errors = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv[1:])} failed ({child.returncode}): {errors[-500:]}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # KiB on Linux


def measure(label: str, mode: str, argv: list[str], env: dict[str, str],
            runs: int) -> Measured:
    """``runs`` timed runs after one untimed run (fills caches, builds the demo index)."""
    run_once(argv, env)
    seconds, peaks, cpu = [], [], []
    for _ in range(runs):
        elapsed, peak, used = run_once(argv, env)
        seconds.append(elapsed)
        peaks.append(peak)
        cpu.append(used)
    return Measured(label, mode, seconds, peaks, cpu)


def fresh_runs(label: str, argv: list[str], env: dict[str, str], runs: int,
               root: Path) -> Measured:
    """``runs`` timed runs, each with a data dir of its own that nothing used before."""
    seconds, peaks, cpu = [], [], []
    for number in range(runs):
        data = root / f"fresh-{number}"
        data.mkdir()
        elapsed, peak, used = run_once(argv, {**env, "DEEPCITE_DATA_DIR": str(data)})
        seconds.append(elapsed)
        peaks.append(peak)
        cpu.append(used)
    return Measured(label, "fresh", seconds, peaks, cpu)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _call(method: str, url: str, body: dict[str, object] | None = None) -> dict[str, object]:
    """One JSON request with the standard library (httpx would add its own import time
    to nothing measured, but keeps the bench independent of the app's client)."""
    import urllib.request

    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        loaded: dict[str, object] = json.loads(reply.read())
        return loaded


def web_first_answer(env: dict[str, str], root: Path, number: int) -> tuple[float, float]:
    """Seconds from starting ``deepcite serve`` on a fresh data dir until the answer of
    the first question posted to its REST API, and the server's peak memory (MiB)."""
    data = root / f"web-{number}"
    data.mkdir()
    port = _free_port()
    start = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "deepcite", "serve", "--port", str(port)],
        env={**env, "DEEPCITE_DATA_DIR": str(data), "DEEPCITE_SECURITY_OFFLINE": "true"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        while True:
            try:
                accepted = _call("POST", f"{base}/research", {
                    "question": QUESTION, "collections": ["demo"], "mode": "quick"})
                break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit("deepcite serve exited before answering") from None
                time.sleep(0.05)
        while True:
            state = _call("GET", f"{base}/research/{accepted['id']}")
            if state.get("result") is not None:
                break
            if state.get("state") in ("failed", "cancelled"):
                raise SystemExit(f"the web run ended {state.get('state')}")
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        with open(f"/proc/{server.pid}/status", encoding="ascii") as status:
            peak = next((int(line.split()[1]) / 1024 for line in status
                         if line.startswith("VmHWM:")), 0.0)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return elapsed, peak


def seed_run(env: dict[str, str]) -> str:
    """Store one finished run in the data dir of ``env``; its id (for ``show``)."""
    done = subprocess.run([sys.executable, "-c", SEED], env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"storing a run for `show` failed: {done.stderr[-500:]}")
    return done.stdout.strip()


def package_dir() -> Path:
    """deepcite's package folder, found without importing it: a child forked from a
    process that had imported it would report that process's memory as its own peak."""
    spec = importlib.util.find_spec("deepcite")
    assert spec is not None and spec.origin is not None, "deepcite is not importable"
    return Path(spec.origin).resolve().parent


def cold_copy(into: Path) -> Path:
    """deepcite's package copied without any compiled bytecode."""
    source = package_dir()
    shutil.copytree(source, into / "deepcite",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command")
    parser.add_argument("--ask-runs", type=int, default=3, help="timed runs of the ask")
    parser.add_argument("--quick", action="store_true", help="skip the ask")
    options = parser.parse_args()

    python = sys.executable
    commands: list[tuple[str, list[str], int]] = [
        ("python -c pass", [python, "-c", "pass"], options.runs),
        ("deepcite --version", [python, "-m", "deepcite", "--version"], options.runs),
        ("deepcite --help", [python, "-m", "deepcite", "--help"], options.runs),
        ("deepcite history", [python, "-m", "deepcite", "history"], options.runs),
        ("deepcite show RUN", [python, "-m", "deepcite", "show"], options.runs),
        ("deepcite config show", [python, "-m", "deepcite", "config", "show"], options.runs),
    ]
    if not options.quick:
        commands.append((f'deepcite ask "{QUESTION}" -c demo -q --offline',
                         [python, "-m", "deepcite", "ask", QUESTION, "-c", "demo", "-q",
                          "--offline"], options.ask_runs))

    load_before = os.getloadavg()[0]
    results: list[Measured] = []
    with tempfile.TemporaryDirectory(prefix="deepcite-start-") as scratch:
        root = Path(scratch)
        warm_src = str(package_dir().parent)
        cold_src = str(cold_copy(root / "cold"))
        for mode, src, extra in (("warm", warm_src, {}),
                                 ("cold", cold_src, {"PYTHONDONTWRITEBYTECODE": "1"})):
            data = root / f"data-{mode}"
            data.mkdir()
            env = {**os.environ, **extra, "PYTHONPATH": src, "DEEPCITE_DATA_DIR": str(data)}
            if mode == "warm":
                env.pop("PYTHONDONTWRITEBYTECODE", None)
            stored = root / f"stored-{mode}"
            stored.mkdir()
            stored_env = {**env, "DEEPCITE_DATA_DIR": str(stored)}
            run_id = seed_run(stored_env)
            for label, argv, runs in commands:
                if label == "deepcite show RUN":
                    argv = [*argv, run_id[:8]]
                if label in STORED_LABELS:
                    results.append(measure(label, mode, argv, stored_env, runs))
                else:
                    results.append(measure(label, mode, argv, env, runs))
        if not options.quick:
            env = {**os.environ, "PYTHONPATH": warm_src}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            ask = [python, "-m", "deepcite", "ask", QUESTION, "-c", "demo", "-q", "--offline"]
            data = root / "data-meaning-off"
            data.mkdir()
            results.append(measure(
                "ask, DEEPCITE_CITATIONS_SENTENCE_MEANING=off", "warm", ask,
                {**env, "DEEPCITE_DATA_DIR": str(data),
                 "DEEPCITE_CITATIONS_SENTENCE_MEANING": "off"}, options.ask_runs))
            results.append(fresh_runs("first ask of a fresh data dir", ask, env,
                                      options.ask_runs, root))
            web = [web_first_answer(env, root, number) for number in range(options.ask_runs)]
            results.append(Measured("web app: serve, then its first answer", "fresh",
                                    [w[0] for w in web], [w[1] for w in web],
                                    [float("nan")] * len(web)))
    load_after = os.getloadavg()[0]

    yardstick = {m.mode: statistics.median(m.seconds) for m in results
                 if m.label == "python -c pass"}
    yardstick["fresh"] = yardstick["warm"]
    print(f"deepcite start-up, {os.cpu_count()} cores, load average "
          f"{load_before:.1f} before / {load_after:.1f} after")
    print("| what | mode | median s | spread s | x `python -c pass` | CPU s | peak MiB |")
    print("|---|---|---|---|---|---|---|")
    for m in results:
        median = statistics.median(m.seconds)
        print(f"| `{m.label}` | {m.mode} | {median:.3f} | {min(m.seconds):.3f}-"
              f"{max(m.seconds):.3f} | {median / yardstick[m.mode]:.0f}x | "
              f"{statistics.median(m.cpu):.3f} | {max(m.peak_mib):.0f} |")


if __name__ == "__main__":
    main()
