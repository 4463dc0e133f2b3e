"""Research engine figures (issue 5).

1. With a fake engine answering after 1 s and 3 queries per iteration, how long one
   iteration takes (searches run in parallel: about 1 s, not 3 s) and the engine's
   non-model overhead per iteration (wall time minus model time minus the 1 s wait).
2. Cancellation with the bundled model: seconds from ``cancel()`` during the synthesis
   call to ``run()`` returning (target: under 2 s).

    .venv/bin/python bench/bench_research.py
"""

from __future__ import annotations

import tempfile
import threading
import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from deepcite.collections import ensure_demo_collection
from deepcite.config import load_settings
from deepcite.research import Researcher
from deepcite.runs.build import build_researcher
from deepcite.types import Event, PhaseStarted, SearchResult

LATENCY = 1.0


class _InstantModel(BaseChatModel):
    """Three new queries for query prompts, a one-line cited answer otherwise."""

    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "bench-instant"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        tags = run_manager.tags if run_manager else []
        self.calls += 1
        n = self.calls
        text = (f"alpha topic{n}\nbeta subject{n}\ngamma matter{n}"
                if any("questions" in t or "followups" in t for t in tags) else "Answer [1].")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


class _SlowEngine:
    name = "slow"

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        time.sleep(LATENCY)
        return [SearchResult(title=f"{query} {i}", url=f"https://example.org/{query}/{i}",
                             snippet=f"text about {query}", engine="slow") for i in range(3)]


def bench_iterations() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        for iterations in (1, 2, 3):
            settings = load_settings({"data_dir": data_dir, "iterations": iterations,
                                      "questions_per_iteration": 3, "followups_per_iteration": 3,
                                      "search_original_query": False},
                                     config_files=[], environ={})
            result = Researcher(settings, _InstantModel(), [_SlowEngine()]).run("bench question")
            m = result.metrics
            per_iteration = m.wall_seconds / iterations
            overhead = (m.wall_seconds - m.model_seconds) / iterations - LATENCY
            print(f"{iterations} iteration(s), 3 queries each, engine latency {LATENCY:.0f} s: "
                  f"wall {m.wall_seconds:.2f} s = {per_iteration:.2f} s per iteration; "
                  f"non-model overhead {overhead * 1000:.0f} ms per iteration "
                  f"({m.searches} searches)")


def bench_cancel() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "collections": ["demo"],
                                  "provider": "local", "iterations": 1,
                                  "questions_per_iteration": 0, "llm.max_tokens": 400},
                                 config_files=[], environ={})
        ensure_demo_collection(settings)
        synthesis = threading.Event()

        def on_event(event: Event) -> None:
            if isinstance(event, PhaseStarted) and event.phase == "synthesis":
                synthesis.set()

        researcher = build_researcher(settings, on_event)
        box: dict[str, Any] = {}
        worker = threading.Thread(target=lambda: box.update(r=researcher.run(
            "How do I parse command line arguments?")))
        worker.start()
        synthesis.wait(120)
        time.sleep(0.5)  # let the reply get going
        cancelled_at = time.perf_counter()
        researcher.cancel()
        worker.join(60)
        took = time.perf_counter() - cancelled_at
        print(f"cancel during synthesis with the bundled model: run returned {took:.2f} s "
              f"after cancel() (target < 2 s); cancelled={box['r'].cancelled}, "
              f"{len(box['r'].sources)} sources kept")


if __name__ == "__main__":
    bench_iterations()
    bench_cancel()
