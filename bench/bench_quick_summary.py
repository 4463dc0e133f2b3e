"""Cost of a quick summary on the demo collection with the bundled model.

Prints, per run: wall seconds, model seconds, non-model overhead seconds (and its share
of wall time), model calls, prompt/completion tokens and sources found. The demo
collection is built (and the model loaded) before timing, so the figures describe a
research run, not first-use set-up, which is reported on its own line.

    .venv/bin/python bench/bench_quick_summary.py [--runs 3] [--iterations 2]

Targets (issue 2): overhead under 5 % of wall time; at most 4 model calls for a quick
summary with 2 iterations.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from deepcite.collections import ensure_demo_collection
from deepcite.config import load_settings
from deepcite.llm import get_chat_model
from deepcite.runs.build import build_researcher

QUESTION = "How do I parse command line arguments?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--question", default=QUESTION)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "collections": ["demo"],
                                  "provider": "local", "iterations": args.iterations},
                                 config_files=[], environ={})
        started = time.perf_counter()
        ensure_demo_collection(settings)
        built = time.perf_counter() - started
        started = time.perf_counter()
        get_chat_model(settings)
        loaded = time.perf_counter() - started
        print(f"set-up: demo collection built in {built:.2f} s, model loaded in {loaded:.2f} s")
        print("run  wall_s  model_s  overhead_s  overhead_%  calls  prompt_tok  compl_tok  sources")
        shares = []
        for run in range(1, args.runs + 1):
            started = time.perf_counter()  # wiring (collections, model cache) counts too
            result = build_researcher(settings).run(args.question)
            wall = time.perf_counter() - started
            m = result.metrics
            overhead = wall - m.model_seconds
            share = 100 * overhead / wall
            shares.append(share)
            print(f"{run:>3}  {wall:6.2f}  {m.model_seconds:7.2f}  {overhead:10.3f}  "
                  f"{share:9.2f}%  {m.model_calls:5d}  {m.prompt_tokens:10d}  "
                  f"{m.completion_tokens:9d}  {len(result.sources):7d}")
        print(f"median overhead share: {statistics.median(shares):.2f}% (target < 5%)")


if __name__ == "__main__":
    main()
