"""How long ``deepcite rerun`` and ``deepcite compare`` take on a stored detailed report.

Stores one detailed report (demo collection, bundled model, offline), then times, in
this process (the model already loaded, as in a long-lived server; a CLI call adds the
model load printed under set-up):

* the rerun's own work besides research: reading the stored run, planning the rerun
  (request and settings rebuilt from the snapshot) - and the rerun as a whole, which is
  one more detailed report;
* ``compare`` of the two stored runs (reading both from the store and comparing);
* the offline replay of a stored quick answer (a detailed report is refused).

    .venv/bin/python bench/bench_rerun.py

Target (issue 21): planning and compare add well under a second to a rerun whose cost
is the report itself.
"""

from __future__ import annotations

import tempfile
import time

from deepcite.collections import ensure_demo_collection
from deepcite.config import Settings, load_settings
from deepcite.llm import get_chat_model
from deepcite.runs import Recorder, RunRequest, run_recorded
from deepcite.runs.compare import compare_runs
from deepcite.runs.compare_markdown import comparison_markdown
from deepcite.runs.replay import replay_verification
from deepcite.runs.rerun import rerun_plan
from deepcite.store import HistoryStore

QUESTION = "How do I parse command line arguments?"


def _stored_run(settings: Settings, request: RunRequest, store: HistoryStore) -> str:
    with Recorder.begin(settings, request, store=store) as recorder:
        run_recorded(request, settings, recorder)
    assert recorder.run_id is not None
    return recorder.run_id


def main() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "collections": ["demo"],
                                  "provider": "local", "offline": True},
                                 config_files=[], environ={})
        started = time.perf_counter()
        ensure_demo_collection(settings)
        get_chat_model(settings)
        print(f"set-up (demo index + model load): {time.perf_counter() - started:.1f} s")
        with HistoryStore.open(settings) as store:
            started = time.perf_counter()
            first = _stored_run(settings, RunRequest(question=QUESTION, mode="detailed"), store)
            print(f"original detailed report: {time.perf_counter() - started:.1f} s")

            started = time.perf_counter()
            plan = rerun_plan(store.get(first), settings)
            planned = time.perf_counter() - started
            second = _stored_run(plan.settings, plan.request, store)
            rerun = time.perf_counter() - started
            print(f"rerun: {rerun:.1f} s in all, of which reading + planning "
                  f"{planned * 1000:.1f} ms")

            started = time.perf_counter()
            comparison = compare_runs(store.get(first), store.get(second))
            text = comparison_markdown(comparison)
            compared = time.perf_counter() - started
            print(f"compare (read both + compare + render): {compared * 1000:.1f} ms; "
                  f"{len(comparison.sources_kept)} sources kept, "
                  f"{len(comparison.sources_gained)} gained, "
                  f"{len(comparison.sources_lost)} lost, {len(text):,} characters")

            quick = _stored_run(settings, RunRequest(question=QUESTION), store)
            started = time.perf_counter()
            outcome = replay_verification(store.get(quick), settings)
            print(f"offline replay of a quick answer: "
                  f"{(time.perf_counter() - started) * 1000:.1f} ms, "
                  f"matches={outcome.matches}")


if __name__ == "__main__":
    main()
