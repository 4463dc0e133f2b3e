"""Cost of a detailed report on the demo collection with the bundled model.

Prints, per report: wall seconds, model seconds, search seconds, the non-model
overhead (wall minus model time: searching, outline parsing, verification, assembly)
and its share of wall time, model calls, parts written and sources. The demo
collection is built and the model loaded before timing.

    .venv/bin/python bench/bench_report.py [--runs 2]

Target (issue 10): non-model overhead under 2 % of the report's wall time.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time

from deepcite.collections import ensure_demo_collection
from deepcite.config import load_settings
from deepcite.llm import get_chat_model
from deepcite.research.report.builder import DetailedReport
from deepcite.runs.build import build_researcher

QUESTION = "How do I parse command line arguments?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--question", default=QUESTION)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "collections": ["demo"],
                                  "provider": "local"}, config_files=[], environ={})
        started = time.perf_counter()
        ensure_demo_collection(settings)
        get_chat_model(settings)
        print(f"set-up (demo index + model load): {time.perf_counter() - started:.1f} s")
        shares = []
        for run in range(1, args.runs + 1):
            with build_researcher(settings) as researcher:
                result = DetailedReport(researcher).run(args.question)
            m = result.metrics
            overhead = m.wall_seconds - m.model_seconds
            share = 100 * overhead / m.wall_seconds
            shares.append(share)
            parts = len(re.findall(r"^#{2,3} \d", result.answer, re.MULTILINE))
            print(f"run {run}: wall {m.wall_seconds:.2f} s, model {m.model_seconds:.2f} s, "
                  f"search {m.search_seconds:.2f} s, overhead {overhead:.2f} s "
                  f"({share:.1f} %), {m.model_calls} model calls, {parts} parts, "
                  f"{len(result.sources)} sources")
        print(f"median overhead share: {statistics.median(shares):.1f} % (target < 2 %)")


if __name__ == "__main__":
    main()
