"""Wall time of a detailed report when every model call takes a fixed time.

A scripted chat model (no model is loaded) answers every call after ``--latency``
seconds, as a remote API or a busy local GPU would: queries for "questions" and
"followups", a five-part outline, and parts that cite every source they are shown.
The demo collection is the search backend; it is built, and the sentence encoder
loaded, before timing. Prints, per configuration, the wall time,
model calls, tokens, parts and the sources' numbers (a digest), so a parallel report
can be checked to number its sources exactly as one written part after part.

    .venv/bin/python bench/bench_report_parallel.py [--latency 1.0] [--runs 1]
        [--set report.parallel_parts=1 --set research.query_planning=model ...]

Run it against an older tree (``PYTHONPATH=old/src``) with ``--set`` for what that
tree knows to get the "before" figure. Target (issue 27): at most 50 % of the
before wall time, with identical numbering for the same query planning.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import statistics
import tempfile
import time
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from deepcite.citations.question_match import dense_similarity, meaning_available
from deepcite.collections import ensure_demo_collection
from deepcite.config import load_settings
from deepcite.research import Researcher
from deepcite.research.report.builder import DetailedReport
from deepcite.runs.build import build_engines

QUESTION = "How do I parse command line arguments?"
OUTLINE = """1. The argparse module - declaring arguments and options
   1.1 Positional arguments - required values
   1.2 Optional arguments - flags and defaults
2. The getopt module - C-style option parsing
3. Reading sys.argv directly - the raw list
4. Help and usage messages - what users see
"""
REPLIES = {
    "questions": "argparse add_argument\ngetopt long options\nsys.argv list",
    "followups": "argparse subcommands\nargparse help formatting",
    "outline": OUTLINE,
}
_SOURCE = re.compile(r'<source id="(\d+)"')


class SlowScriptedModel(BaseChatModel):
    """Replies by purpose after ``latency`` seconds; parts cite every source shown."""

    latency: float = 1.0

    @property
    def _llm_type(self) -> str:
        return "slow-scripted"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        time.sleep(self.latency)
        tags = run_manager.tags if run_manager else []
        purpose = next((t.split(":", 1)[1] for t in tags if t.startswith("deepcite:")), "")
        user = str(messages[-1].content)
        text = REPLIES.get(purpose)
        if text is None:
            numbers = _SOURCE.findall(user)
            text = " ".join(f"Source {n} covers part of the question [{n}]."
                            for n in dict.fromkeys(numbers)) or "Nothing found."
        usage = {"input_tokens": len(user) // 4, "output_tokens": len(text) // 4,
                 "total_tokens": (len(user) + len(text)) // 4}
        message = AIMessage(content=text, usage_metadata=usage)  # type: ignore[arg-type]
        return ChatResult(generations=[ChatGeneration(message=message)])


def _value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for every run (research.query_planning=model)")
    args = parser.parse_args()
    overrides = {key: _value(value) for key, value in
                 (item.split("=", 1) for item in args.set)}

    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "collections": ["demo"],
                                  "citations.answer_mode": "abstractive",
                                  "citations.verify_with_model": False, **overrides},
                                 config_files=[], environ={})
        ensure_demo_collection(settings)
        if meaning_available() and settings.citations.sentence_meaning != "off":
            dense_similarity(args.question, ["load the sentence encoder before timing"])
        walls = []
        for run in range(1, args.runs + 1):
            engines, notices = build_engines(settings)
            model = SlowScriptedModel(latency=args.latency)
            with Researcher(settings, model, engines, notices=notices) as researcher:
                started = time.perf_counter()
                result = DetailedReport(researcher).run(args.question)
                wall = time.perf_counter() - started
            walls.append(wall)
            numbers = [(s.number, s.url.replace(data_dir, "")) for s in result.sources]
            digest = hashlib.sha256(repr(numbers).encode()).hexdigest()[:12]
            parts = len(re.findall(r"^#{2,3} \d", result.answer, re.MULTILINE))
            m = result.metrics
            print(f"run {run}: wall {wall:.2f} s, {m.model_calls} model calls, "
                  f"{m.prompt_tokens + m.completion_tokens} tokens, {m.searches} searches, "
                  f"{parts} parts, {len(numbers)} sources (numbering {digest}), "
                  f"answer {hashlib.sha256(result.answer.encode()).hexdigest()[:12]}")
        print(f"median wall: {statistics.median(walls):.2f} s "
              f"(latency {args.latency:g} s per call; settings {overrides or 'default'})")


if __name__ == "__main__":
    main()
