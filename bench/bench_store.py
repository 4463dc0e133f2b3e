"""History store figures: saving and re-reading one large detailed report.

The report is what a long ``deepcite report`` produces: a body of 10,000 words in
sections, 100 sources each with about 1,500 words of fetched full text and metadata,
300 citation checks and 600 events. Printed per backend: the time to save it (``begin``,
the events, ``finish``), to re-read it (``get`` by an 8-character prefix, i.e. the
result re-assembled), and to list the history (``list``) and search it
(``list(search=...)``) with the other runs in it. Medians and minimums over several
rounds; each round saves a new run, so later rounds run against a fuller store. No
target is asserted - the figures are for comparing changes.

SQLite always (a file in a temporary folder); PostgreSQL when
``DEEPCITE_TEST_POSTGRES_URL`` (or ``--postgres-url``) names a server - the store's
tables are created in that database if missing, and the runs saved here are deleted
again at the end.

    .venv/bin/python bench/bench_store.py
    DEEPCITE_TEST_POSTGRES_URL='postgresql+psycopg://postgres@/bench?host=/tmp/pg' \\
        .venv/bin/python bench/bench_store.py --rounds 10
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from deepcite.config import Settings, load_settings
from deepcite.store import HistoryStore
from deepcite.types import (
    CitationCheck,
    Event,
    ModelCall,
    OutlineEntry,
    ResearchResult,
    RunMetrics,
    SearchDone,
    SectionStarted,
    Source,
    SourcesAdded,
    VerificationCounts,
)

WORDS = (  # noqa: SIM905 - a word block reads better
    "river engine protein market climate signal harbor theory crystal vaccine orbit "
         "glacier network enzyme archive turbine forest voltage library mineral canal "
         "spectrum reactor pigment fossil satellite compiler harvest lattice monsoon").split()
BODY_WORDS = 10_000
SOURCES = 100
SOURCE_WORDS = 1_500
CHECKS = 300
EVENTS = 600


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def report(rng: random.Random) -> ResearchResult:
    """A detailed result of the size the module docstring gives."""
    sections, written = [], 0
    while written < BODY_WORDS:
        paragraphs = [f"{words(rng, 60)} [{rng.randint(1, SOURCES)}]." for _ in range(5)]
        sections.append(f"## Part {len(sections) + 1}\n\n" + "\n\n".join(paragraphs))
        written += 300
    sources = [Source(number=n, title=f"Source {n}: {words(rng, 6)}",
                      url=f"https://site{n}.example/article/{n}?ref=bench",
                      canonical_url=f"https://site{n}.example/article/{n}",
                      snippet=words(rng, 40), engine="bench",
                      full_text=words(rng, SOURCE_WORDS), published="2025-06-01",
                      metadata={"doi": f"10.5555/{n}", "authors": ["A. Author", "B. Author"],
                                "score": rng.random(), "page": n % 30})
               for n in range(1, SOURCES + 1)]
    checks = [CitationCheck(number=rng.randint(1, SOURCES), sentence=words(rng, 20),
                            outcome="supported", method="fuzzy", source_number=1, start=0,
                            end=40, quote=words(rng, 6)) for _ in range(CHECKS)]
    return ResearchResult(
        question="How do " + words(rng, 8) + "?", answer="\n\n".join(sections),
        strategy="detailed", handler="standard", sources=sources, mode="detailed",
        title="A long report", citation_checks=checks,
        outline=[OutlineEntry(title=f"Part {i}", purpose=words(rng, 10))
                 for i in range(1, len(sections) + 1)],
        questions_by_iteration={1: [words(rng, 5) for _ in range(5)]},
        metrics=RunMetrics(model_calls=80, prompt_tokens=400_000, completion_tokens=30_000),
        verification=VerificationCounts(markers_checked=CHECKS, supported=CHECKS))


def events(rng: random.Random) -> list[Event]:
    made: list[Event] = []
    for n in range(EVENTS):
        kind = n % 4
        if kind == 0:
            made.append(SearchDone(iteration=1, query=words(rng, 5), engine="bench",
                                   results=5, seconds=0.3))
        elif kind == 1:
            made.append(ModelCall(purpose="section", prompt_tokens=900, completion_tokens=300,
                                  seconds=2.0))
        elif kind == 2:
            made.append(SourcesAdded(numbers=[n % SOURCES + 1], total=SOURCES))
        else:
            made.append(SectionStarted(index=n % 30 + 1, total=34, title=words(rng, 3)))
    return made


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def bench(name: str, store: HistoryStore, settings: Settings, rounds: int) -> None:
    rng = random.Random(7)
    result, recorded = report(rng), events(rng)
    saves, reads, lists, searches, saved = [], [], [], [], []
    for _ in range(rounds):
        def save() -> None:
            run_id = store.begin(result.question, mode="detailed", settings=settings)
            for event in recorded:
                store.record_event(run_id, event)
            store.finish(run_id, result)
            saved.append(run_id)

        saves.append(timed(save))
        reads.append(timed(lambda: store.get(saved[-1][:8])))
        lists.append(timed(lambda: store.list(limit=50)))
        searches.append(timed(lambda: store.list(search="a long report")))
    again = store.get(saved[-1]).result
    assert again == result  # a sanity check of the round trip, not a timing assertion
    for run_id in saved:
        store.delete(run_id)
    print(f"{name}: detailed report, {len(result.answer.split()):,} words of body, "
          f"{SOURCES} sources with {SOURCE_WORDS:,} words of full text each, {CHECKS} "
          f"checks, {EVENTS} events; {rounds} rounds")
    for label, figures in (("save (begin + events + finish)", saves),
                           ("re-read (get by prefix)", reads),
                           ("list, newest 50", lists), ("list with --search", searches)):
        print(f"  {label:32} median {statistics.median(figures) * 1000:8.1f} ms   "
              f"min {min(figures) * 1000:8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--postgres-url", default=os.environ.get("DEEPCITE_TEST_POSTGRES_URL"))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings({"data_dir": folder}, config_files=[], environ={})
        with HistoryStore.open(settings) as store:
            bench("SQLite", store, settings, options.rounds)
        size = sum(p.stat().st_size for p in Path(folder).glob("history.db*"))
        print(f"  SQLite files after deleting the runs: {size / 1e6:.1f} MB (not vacuumed)")
    if options.postgres_url:
        with HistoryStore.from_url(options.postgres_url) as store:
            bench("PostgreSQL", store, settings, options.rounds)
    else:
        print("PostgreSQL: skipped (set DEEPCITE_TEST_POSTGRES_URL to include it)")


if __name__ == "__main__":
    main()
