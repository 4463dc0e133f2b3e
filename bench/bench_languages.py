"""How often a question in Chinese or Japanese is answered with its gold fact, in its language.

Reads a JSONL of ``{"question", "gold", "doc"}`` (``gold``: the fact, or several
spellings of it joined by ``|``, e.g. ``"300秒|三百秒"``; ``doc``: the file name, in the
documents folder, that holds it) and a folder of documents. Every document goes into one
collection (``--as collection``, the default) or only the question's own document is
handed in as the user's material (``--as material``); each question is asked offline
with the configured model (the bundled one by default), as ``deepcite ask`` would.

Printed per language (by the question's script, :func:`deepcite.text.language.detect`):

- **gold in answer**: the gold fact (any spelling) in the answer's text;
- **gold leads**: in the answer's first paragraph (the short answer, or the first quote);
- **in its language**: the answer's frame is the question's language (no frame text of
  another language: :mod:`deepcite.text.frames`);
- **answered + language**: both of the first and the third - the issue's figure;
- **gold doc cited**: the ``doc`` is among the cited sources;
- **not found**: answers that say nothing answers the question;
- model calls per question.

A row with an empty ``gold`` is a question the documents do not answer: it counts
apart, as **honest not found** (a "not found" answer, in the question's language).

    PYTHONPATH=src .venv/bin/python bench/bench_languages.py \\
        bench/data/languages/questions.jsonl bench/data/languages/docs [--show]

Target (issue 45): >= 80% of Chinese questions answered with the gold fact, in Chinese.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any

from deepcite.citations.markers import cited_numbers
from deepcite.citations.render import answer_body
from deepcite.collections import Collection
from deepcite.config import load_settings
from deepcite.materials import UserMaterial
from deepcite.runs import RunRequest, execute
from deepcite.text.frames import FRAMES
from deepcite.text.language import detect

SUFFIXES = {".md", ".txt", ".html", ".htm", ".rst"}


def _plain(text: str) -> str:
    """``text`` compared as a reader would: width folded (NFKC), no spaces or Markdown."""
    return re.sub(r"[\s*_`]+", "", unicodedata.normalize("NFKC", text)).casefold()


def _holds(text: str, gold: str) -> bool:
    return any(_plain(g) in _plain(text) for g in gold.split("|") if g.strip())


def _frame_language(answer: str, language: str) -> bool:
    """Whether no frame text of another language is in ``answer``."""
    for other, table in FRAMES.items():
        if other == language:
            continue
        own = FRAMES.get(language, {})
        if any(len(text) > 8 and text in answer and text not in own.values()
               for text in table.values()):
            return False
    return True


def _ask(question: str, doc: Path, settings: Any, mode: str) -> Any:
    if mode == "material":
        material = UserMaterial(url=str(doc.resolve()), content=doc.read_text(encoding="utf-8"),
                                title=doc.stem)
        return execute(RunRequest(question=question, materials=[material]), settings)
    return execute(RunRequest(question=question), settings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path, help="JSONL of {question, gold, doc}")
    parser.add_argument("docs", type=Path, help="folder of the documents")
    parser.add_argument("--as", dest="mode", choices=("collection", "material"),
                        default="collection")
    parser.add_argument("--provider", default="local")
    parser.add_argument("--limit", type=int, default=0, help="first N questions only")
    parser.add_argument("--show", action="store_true", help="print each answer's lead")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    if args.limit:
        rows = rows[:args.limit]
    files = sorted(p for p in args.docs.rglob("*") if p.suffix.lower() in SUFFIXES)
    with tempfile.TemporaryDirectory() as data_dir:
        overrides: dict[str, Any] = {"data_dir": data_dir, "provider": args.provider,
                                     "offline": True}
        if args.mode == "collection":
            overrides["collections"] = ["languages"]
        settings = load_settings(overrides, config_files=[], environ={})
        if args.mode == "collection":
            Collection.create("languages", settings=settings).add([args.docs])
        counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        honest: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for row in rows:
            question, gold = row["question"], row["gold"]
            language = detect(question)
            doc = next((p for p in files if p.name == row.get("doc")), files[0])
            result = _ask(question, doc, settings, args.mode)
            body, _ = answer_body(result.answer)
            lead = body.strip().split("\n\n")[0]
            cited = {s.number for s in result.sources} & set(cited_numbers(body))
            paths = {str(s.metadata.get("path") or s.url) for s in result.sources
                     if s.number in cited}
            found = {
                "gold in answer": _holds(body, gold),
                "gold leads": _holds(lead, gold),
                "in its language": _frame_language(body, language),
                "gold doc cited": any(p.endswith(doc.name) for p in paths),
                "not found": any(body.startswith(t[key]) for t in FRAMES.values()
                                 for key in ("not_answered", "no_sources")),
            }
            found["answered + language"] = found["gold in answer"] and found["in its language"]
            if not gold.strip():  # the documents do not answer it
                said = found["not found"] and found["in its language"]
                honest[language][0] += said
                honest[language][1] += 1
                if args.show:
                    print(f"{'OK ' if said else 'BAD'} [{language}] {question} | unanswerable "
                          f"| {lead[:80]!r}")
                continue
            tally = counts[language]
            tally["questions"] += 1
            tally["model calls"] += result.metrics.model_calls
            for key, value in found.items():
                tally[key] += value
            if args.show:
                mark = "OK " if found["answered + language"] else "BAD"
                print(f"{mark} [{language}] {question} | gold {gold} | {lead[:80]!r}")
    for language, tally in sorted(counts.items()):
        n = tally["questions"]
        print(f"\n{language}: {n} questions ({args.mode})")
        for key in ("answered + language", "gold in answer", "gold leads", "in its language",
                    "gold doc cited", "not found"):
            print(f"  {key:20} {tally[key]:3d}/{n} ({100 * tally[key] / n:.0f}%)")
        print(f"  model calls          {tally['model calls'] / n:.2f} per question")
    for language, (said, asked) in sorted(honest.items()):
        print(f"\n{language}: {asked} unanswerable questions: honest not found {said}/{asked} "
              f"({100 * said / asked:.0f}%)")


if __name__ == "__main__":
    main()
