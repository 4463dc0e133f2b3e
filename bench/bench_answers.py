"""Answers people can use: how-to, why and what-is questions, other languages, not found.

`deepcite bench run` scores short factual answers (the gold string in the answer, F1).
Questions whose answer is an instruction, a reason or a definition have no gold string;
this script scores them as a reader would, on any question set and document folder:

- **gold document cited**: a source the answer cites is the document the question's
  answer is in (``doc``/``gold_document``: its file name);
- **half the gold answer's content words**: the answer holds at least half the content
  words of the gold answer (``answer``; its first sentence with ``--first-sentence``),
  content words as deepcite counts them (``text.words.content_words``: three letters
  or more, numbers included, no stop words), CJK text by its terms (``text.cjk_terms``);
- **gold fact in the answer** (``gold``: a short value written as the document writes it);
- **in the question's language**: for a question in Chinese, Japanese or Korean, most
  of the answer's letters (frame text included) are CJK;
- **honest "not found"** (``--unanswerable``): the answer says nothing answers it;
- model calls per question and **fabricated citations** (a ``[n]`` naming no source).

Questions are JSONL rows (``question`` and any of ``answer``, ``gold``, ``doc``). The
documents are indexed into a throwaway collection (``--docs FOLDER``), or an existing
collection is searched (``--collection NAME``). Bundled model, offline.

    .venv/bin/python bench/bench_answers.py QUESTIONS.jsonl --docs FOLDER [--show]
    .venv/bin/python bench/bench_answers.py QUESTIONS.jsonl --collection demo --unanswerable

Targets (issue 45): gold document cited >= 70% and half the content words >= 50% on
non-factoid questions; the gold fact in the question's language >= 80% on Chinese;
honest "not found" >= 95%; 1 model call; 0 fabricated citations.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from deepcite.citations.markers import cited_numbers
from deepcite.config import load_settings
from deepcite.runs import RunRequest, execute
from deepcite.text.cjk import CJK_RUN, has_cjk
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.frames import variants
from deepcite.text.sentences import split_sentences
from deepcite.text.words import content_words

#: What an honest "not found" opens with, in every language the answers are written in.
NOT_FOUND = ("No sentence of the sources answers this directly",
             "No sources were found for this question")


def _units(text: str) -> set[str]:
    """Content words and CJK terms, as deepcite's own matching counts them
    (:func:`deepcite.text.words.content_words`, :func:`deepcite.text.cjk_terms.cjk_terms`),
    so the score cannot drift from what the answer path calls a word."""
    return content_words(text) | set(cjk_terms(text))


def _cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    return cjk / len(letters) if letters else 0.0


def _not_found(answer: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in answer for phrase in phrases)


def _not_found_phrases() -> tuple[str, ...]:
    """The "not found" openings of every language the answers are written in: each
    language's "nothing answers this" and "no sources" frame, to its first full stop."""
    found = [text.split(".")[0].split("。")[0] for key in ("not_answered", "no_sources")
             for text in variants(key)]
    return tuple(dict.fromkeys([*found, *NOT_FOUND]))


def _index(folder: Path, data_dir: str) -> str:
    name = "bench-" + re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")
    subprocess.run([sys.executable, "-m", "deepcite", "collection", "add", "-n", name,
                    str(folder)], check=True, capture_output=True,
                   env={"DEEPCITE_DATA_DIR": data_dir, "PATH": "/usr/bin:/bin"})
    return name


def _score(row: dict[str, Any], answer: str, cited_urls: list[str], first: bool,
           phrases: tuple[str, ...]) -> dict[str, Any]:
    scores: dict[str, Any] = {"not_found": _not_found(answer, phrases)}
    doc = row.get("doc") or row.get("gold_document")
    if doc:
        # A file URL percent-encodes a non-ASCII name ("%E8%AF%B4..."): compare decoded.
        scores["gold_doc_cited"] = any(unquote(url).endswith("/" + doc) for url in cited_urls)
    if row.get("answer"):
        gold_text = " ".join(str(row["answer"]).split())
        if first:
            gold_text = (split_sentences(gold_text) or [gold_text])[0]
        wanted = _units(gold_text)
        scores["half_content"] = bool(wanted) and len(wanted & _units(answer)) * 2 >= len(
            wanted)
    if row.get("gold"):
        scores["gold_in_answer"] = str(row["gold"]) in answer
    if has_cjk(row["question"]):
        scores["in_language"] = _cjk_share(answer) >= 0.5
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--docs", type=Path, help="folder of documents to index and search")
    where.add_argument("--collection", help="an existing collection to search")
    parser.add_argument("--unanswerable", action="store_true",
                        help="the questions have no answer: count honest 'not found'")
    parser.add_argument("--first-sentence", action="store_true",
                        help="score content words against the gold answer's first sentence")
    parser.add_argument("-n", type=int, default=0, help="first N questions only")
    parser.add_argument("--show", action="store_true", help="print each answer")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8")
            .splitlines() if line.strip()]
    rows = rows[:args.n] if args.n else rows
    phrases = _not_found_phrases()
    with tempfile.TemporaryDirectory() as data_dir:
        base = {"provider": "local", "offline": True}
        if args.docs:
            settings = load_settings({**base, "data_dir": data_dir,
                                      "collections": [_index(args.docs, data_dir)]},
                                     config_files=[], environ={})
        else:  # the user's collection, in the user's data folder
            settings = load_settings({**base, "collections": [args.collection]})
        totals: dict[str, list[bool]] = {}
        calls = fabricated = 0
        for row in rows:
            result = execute(RunRequest(question=row["question"]), settings)
            numbers = set(cited_numbers(result.answer))
            by_number = {s.number: s for s in result.sources}
            fabricated += len(numbers - by_number.keys())
            urls = [by_number[n].url or "" for n in numbers if n in by_number]
            scores = _score(row, result.answer, urls, args.first_sentence, phrases)
            calls += result.metrics.model_calls
            for key, value in scores.items():
                totals.setdefault(key, []).append(bool(value))
            if args.show:
                flags = " ".join(k for k, v in scores.items() if v)
                print(f"[{flags}] {row['question']}\n  {result.answer[:400]}\n", flush=True)
    n = len(rows)
    print(f"questions: {n}")
    for key, values in totals.items():
        if key == "not_found" and not args.unanswerable:
            print(f"answered: {values.count(False) / n:.0%}")
            continue
        label = "honest not found" if key == "not_found" else key.replace("_", " ")
        print(f"{label}: {sum(values) / len(values):.0%} ({sum(values)}/{len(values)})")
    print(f"model calls per question: {calls / max(n, 1):.2f}")
    print(f"fabricated citations: {fabricated}")


if __name__ == "__main__":
    main()
