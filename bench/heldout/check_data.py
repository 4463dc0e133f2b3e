"""Validate the held-out sets: every file parses, every `doc` names an existing file,
every `gold` occurs in its gold document, and every SQuAD answer is an exact substring
of its paragraph at its answer_start. Run from the repository root:

    python3 bench/heldout/check_data.py
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
problems = []


def jsonl(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


for name, folder in (("howto.jsonl", "howto"), ("zh.jsonl", "zh")):
    rows = jsonl(HERE / name)
    for i, row in enumerate(rows, 1):
        doc = HERE / folder / row["doc"]
        if not doc.is_file():
            problems.append(f"{name}:{i}: doc {row['doc']} missing")
            continue
        if "gold" in row and row["gold"] not in doc.read_text(encoding="utf-8"):
            problems.append(f"{name}:{i}: gold {row['gold']!r} not in {row['doc']}")
        if "gold" not in row and "answer" not in row:
            problems.append(f"{name}:{i}: neither gold nor answer")
    print(f"{name}: {len(rows)} rows, {sum('gold' in r for r in rows)} with gold, "
          f"{sum('answer' in r for r in rows)} with answer; docs in {folder}/: "
          f"{len(list((HERE / folder).glob('*.md')))}")

rows = jsonl(HERE / "unanswerable.jsonl")
print(f"unanswerable.jsonl: {len(rows)} rows")

for name in ("recipes.json", "legal.json"):
    data = json.loads((HERE / "ood" / name).read_text(encoding="utf-8"))["data"]
    paragraphs = questions = 0
    for article in data:
        for paragraph in article["paragraphs"]:
            paragraphs += 1
            context = paragraph["context"]
            for qa in paragraph["qas"]:
                questions += 1
                for answer in qa["answers"]:
                    start, text = answer["answer_start"], answer["text"]
                    if context[start:start + len(text)] != text:
                        problems.append(f"{name} {qa['id']}: {text!r} not at {start}")
    print(f"ood/{name}: {len(data)} articles, {paragraphs} paragraphs, {questions} questions")

print("all SQuAD answers are exact spans at answer_start" if not problems else "")
for problem in problems:
    print("PROBLEM:", problem)
sys.exit(1 if problems else 0)
