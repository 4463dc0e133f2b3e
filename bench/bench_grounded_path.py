"""The grounded path alone, no model call: is the gold value the bold short answer?

`bench_answers.py` runs the whole answer (search, ranking, the one model call) and
takes minutes a set on a loaded 2-core machine. Tuning the ranking and short-answer
rules needs a quicker loop that shows what those rules alone choose: every document of
the folder is a source (no search), meaning is scored as in a run (e5, when the extra
is installed), and :func:`deepcite.citations.grounded.grounded_answer` answers without
a model. Two counts per set: the gold value in the answer's first line (the bold short
answer, or the leading sentence) and anywhere in the answer.

    PYTHONPATH=src .venv/bin/python bench/bench_grounded_path.py \\
        bench/data/zh_dev8.jsonl bench/data/zh_dev8 [MORE.jsonl FOLDER ...] [--misses]

Rows without ``gold`` are skipped. ``--misses`` prints each question whose gold value
does not lead, with the first line given.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from deepcite.citations.grounded import grounded_answer
from deepcite.citations.sentence_meaning import dense_similarity
from deepcite.types import Source


def _sources(folder: Path) -> list[Source]:
    """Each Markdown page of ``folder`` as a source titled by its first heading."""
    sources = []
    for number, path in enumerate(sorted(folder.glob("*.md")), 1):
        text = path.read_text(encoding="utf-8")
        url = f"file:///{path.name}"
        sources.append(Source(number=number, title=text.splitlines()[0].lstrip("# "),
                              url=url, canonical_url=url, snippet=text[:80],
                              engine="user_material", full_text=text))
    return sources


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="QUESTIONS.jsonl FOLDER, repeated")
    parser.add_argument("--misses", action="store_true", help="print the questions missed")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give a folder after each question file")
    for questions, folder in zip(args.pairs[::2], args.pairs[1::2], strict=True):
        sources = _sources(Path(folder))
        asked = leading = anywhere = 0
        for line in Path(questions).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "gold" not in row:
                continue
            asked += 1
            answer = grounded_answer(row["question"], sources, similarity=dense_similarity)
            text = answer.text if answer else ""
            first = text.split("\n")[0]
            leading += row["gold"] in first
            anywhere += row["gold"] in text
            if args.misses and row["gold"] not in first:
                print(f"  miss: {row['question']} gold {row['gold']} -> {first[:80]}")
        print(f"{questions}: gold leading {leading}/{asked}, in the answer {anywhere}/{asked}")


if __name__ == "__main__":
    main()
