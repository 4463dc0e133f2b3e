"""Load evaluation datasets into :class:`Dataset`, sample them, and write their documents.

Benchmarks come in a few shapes: SimpleQA and its translations are tables (CSV, maybe
gzipped) with a ``problem`` and an ``answer`` column; home-made sets are often JSONL or
a JSON list; SQuAD brings its own paragraphs to search. Rather than one loader per
benchmark, tables are read by column *names* (a few common spellings each), so a new
benchmark usually loads as it is. Item ids must survive reloads because resuming a run
matches on them: an ``id`` column wins, otherwise the id is a hash of the question.

SQuAD v2 questions marked ``is_impossible`` (or with no answers) are skipped and counted
in :attr:`Dataset.skipped`, since an :class:`EvalItem` needs at least one gold answer.
A SQuAD paragraph becomes the document ``<title slug>-p<index>.txt``; a second article
with the same slug gets ``-2`` on its slug, so gold passages stay unambiguous.
"""

from __future__ import annotations

import ast
import csv
import gzip
import hashlib
import io
import json
import random
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepcite.errors import InputError
from deepcite.evaluation.bench_schema import Dataset, Document, EvalItem

FORMATS = ("squad", "simpleqa", "table")
QUESTION_COLUMNS = ("question", "problem", "query", "prompt")
ANSWER_COLUMNS = ("answer", "answers", "gold", "target", "gold_answer")
PASSAGE_COLUMNS = ("gold_passage", "gold_url", "passage", "passage_id", "url", "gold_document")
_DATA_SUFFIXES = (".csv", ".tsv", ".jsonl", ".json")
_FLAGS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
_NON_ALNUM = re.compile(r"[^a-z0-9]+")

Row = dict[str, Any]


def load_dataset(path: Path, *, format: str | None = None) -> Dataset:
    """Load a SQuAD JSON file or a question table (CSV/TSV/JSONL/JSON list, maybe ``.gz``).

    ``format`` forces ``"squad"``, ``"simpleqa"`` or ``"table"``; ``None`` detects it.
    Rows without a question or an answer are skipped and counted in ``skipped``.
    """
    if format is not None and format not in FORMATS:
        raise InputError(f"Unknown dataset format {format!r}; use one of {', '.join(FORMATS)}")
    path = Path(path)
    if not path.is_file():
        raise InputError(f"No dataset file at {path}; check the path or download the dataset")
    suffix = _data_suffix(path)
    if suffix not in _DATA_SUFFIXES:
        raise InputError(f"Cannot tell the dataset type of {path}; use a .csv, .tsv, .jsonl "
                         "or .json file (optionally .gz)")
    if format == "squad" and suffix != ".json":
        raise InputError(f"{path} is not a SQuAD JSON file; drop format 'squad' to load it "
                         "as a table")
    name, text = _dataset_name(path), _read_text(path)
    if suffix in (".csv", ".tsv"):
        header, rows = _csv_rows(text, path, "\t" if suffix == ".tsv" else ",")
        return _load_table(header, rows, path, name, format)
    if suffix == ".jsonl":
        rows = _jsonl_rows(text, path)
        return _load_table(_keys(rows), rows, path, name, format)
    data = _parse_json(text, path)
    squad = _is_squad(data)
    if squad != (format == "squad") and format is not None:
        raise InputError(f"{path} is {'a' if squad else 'not a'} SQuAD file, but format "
                         f"{format!r} was asked; load it without a format")
    if squad:
        return _load_squad(data, name)
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise InputError(f"{path} is neither SQuAD JSON (an object with a 'data' list of "
                         "articles with 'paragraphs') nor a JSON list of objects; convert it")
    return _load_table(_keys(data), data, path, name, format)


def sample(items: Sequence[EvalItem], n: int | None = None,
           seed: int | None = 0) -> list[EvalItem]:
    """Pick ``n`` items, kept in file order: all when ``n`` is ``None`` or too large.

    With ``seed`` ``None`` the first ``n``; otherwise a reproducible random choice.
    """
    if n is not None and n < 1:
        raise InputError(f"Sample size must be at least 1, got {n}; pass a positive number")
    if n is None or n >= len(items):
        return list(items)
    if seed is None:
        return list(items[:n])
    picked = sorted(random.Random(seed).sample(range(len(items)), n))
    return [items[index] for index in picked]


def write_documents(documents: Sequence[Document], folder: Path) -> list[Path]:
    """Write each document to ``folder/name`` as plain text with an underlined title.

    Files whose content is already the same are left untouched (their mtime too), so
    re-indexing the folder skips them. Returns every document's path, in order.
    """
    seen: set[str] = set()
    for document in documents:
        name = document.name
        if "/" in name or "\\" in name or name.startswith("."):
            raise InputError(f"Document name {name!r} is not a plain file name; remove path "
                             "separators and leading dots")
        if name in seen:
            raise InputError(f"Two documents are named {name!r}; give each a distinct name")
        seen.add(name)
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"Cannot create folder {folder} ({error}); choose another "
                         "folder") from error
    paths: list[Path] = []
    for document in documents:
        target = folder / document.name
        content = _document_text(document).encode("utf-8")
        if not (target.is_file() and target.read_bytes() == content):
            target.write_bytes(content)
        paths.append(target)
    return paths


def _document_text(document: Document) -> str:
    title = " ".join(document.title.split())
    text = document.text if document.text.endswith("\n") else document.text + "\n"
    return f"{title}\n{'=' * len(title)}\n\n{text}"


def _data_suffix(path: Path) -> str:
    name = path.name.lower().removesuffix(".gz")
    return next((suffix for suffix in _DATA_SUFFIXES if name.endswith(suffix)), "")


def _dataset_name(path: Path) -> str:
    name = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
    return name[: len(name) - len(_data_suffix(path))]


def _read_text(path: Path) -> str:
    try:
        raw = gzip.decompress(path.read_bytes()) if path.name.lower().endswith(".gz") \
            else path.read_bytes()
        return raw.decode("utf-8-sig")
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise InputError(f"Cannot read {path} ({error}); give a UTF-8 text file, gzipped "
                         "only when it ends in .gz") from error


def _parse_json(text: str, path: Path) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path} is not valid JSON (line {error.lineno}: {error.msg}); "
                         "fix the file") from error


def _csv_rows(text: str, path: Path, delimiter: str) -> tuple[list[str], list[Row]]:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        rows = [{key: value for key, value in row.items() if key is not None}
                for row in reader]
    except csv.Error as error:
        raise InputError(f"{path} is not a readable table (line {reader.line_num}: {error}); "
                         "fix the file") from error
    return list(reader.fieldnames or []), rows


def _jsonl_rows(text: str, path: Path) -> list[Row]:
    rows: list[Row] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{path} line {number} is not valid JSON ({error.msg}); fix or "
                             "remove that line") from error
        if not isinstance(row, dict):
            raise InputError(f"{path} line {number} is not a JSON object; write one object "
                             "per line")
        rows.append(row)
    return rows


def _keys(rows: list[Row]) -> list[str]:
    return list(dict.fromkeys(key for row in rows for key in row))


def _column(header: list[str], names: Sequence[str]) -> str | None:
    """The first of ``names`` among the header's names, compared lower-cased."""
    lowered = {key.strip().lower() for key in header}
    return next((name for name in names if name in lowered), None)


def _load_table(header: list[str], rows: list[Row], path: Path, name: str,
                format: str | None) -> Dataset:
    question_column = _column(header, QUESTION_COLUMNS)
    if not rows:
        raise InputError(f"{path} has no rows; check that it is the right file")
    if question_column is None:
        raise InputError(f"{path} has no question column (looked for "
                         f"{', '.join(QUESTION_COLUMNS)}); rename its question column")
    answer_column = _column(header, ANSWER_COLUMNS)
    if answer_column is None:
        raise InputError(f"{path} has no answer column (looked for "
                         f"{', '.join(ANSWER_COLUMNS)}); rename its answer column")
    columns = {
        "question": question_column,
        "answer": answer_column,
        "id": _column(header, ("id",)),
        "passage": _column(header, PASSAGE_COLUMNS),
        "answerable": _column(header, ("answerable",)),
        "metadata": _column(header, ("metadata",)),
    }
    used = {column for column in columns.values() if column is not None}  # lower-cased
    seen: set[str] = set()
    found = [_table_item(row, columns, used, seen) for row in rows]
    items = [item for item in found if item is not None]
    if not items:
        raise InputError(f"{path} has no usable rows (each needs a question and an answer); "
                         "check the file's content")
    lowered = {key.strip().lower() for key in header}
    simpleqa = format == "simpleqa" or (format is None and {"problem", "answer"} <= lowered)
    return Dataset(name=name, format="simpleqa" if simpleqa else "table", items=items,
                   skipped=len(found) - len(items))


def _table_item(row: Row, columns: dict[str, str | None], used: set[str],
                seen: set[str]) -> EvalItem | None:
    keys = {key.strip().lower(): key for key in reversed(row)}  # rows may differ in case

    def cell(role: str) -> Any:
        column = columns[role]
        return row[keys[column]] if column in keys else None

    question = _text(cell("question"))
    answers = _answers(cell("answer"))
    if not question or not answers:
        return None
    metadata = _metadata(cell("metadata"))
    for key, value in row.items():
        if key.strip().lower() not in used:
            metadata.setdefault(key, value)
    return EvalItem(id=_unique(_text(cell("id")) or _hash_id(question), seen),
                    question=question, answers=answers,
                    gold_passage=_text(cell("passage")) or None,
                    answerable=_flag(cell("answerable")), metadata=metadata)


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _answers(value: Any) -> list[str]:
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(entry, str) for entry in parsed):
            value = parsed
    values = value if isinstance(value, list) else [value]
    return list(dict.fromkeys(text for text in map(_text, values) if text))


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else _FLAGS.get(_text(value).lower())


def _metadata(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return dict(value)
    text = _text(value)
    if not text:
        return {}
    for parse in (json.loads, ast.literal_eval):
        try:
            parsed = parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(parsed, dict):
            return {str(key): entry for key, entry in parsed.items()}
    return {"raw": text}


def _hash_id(question: str) -> str:
    return hashlib.sha1(question.encode("utf-8")).hexdigest()[:12]


def _unique(item_id: str, seen: set[str]) -> str:
    candidate, count = item_id, 1
    while candidate in seen:
        count += 1
        candidate = f"{item_id}-{count}"
    seen.add(candidate)
    return candidate


def _is_squad(data: Any) -> bool:
    articles = data.get("data") if isinstance(data, dict) else None
    return isinstance(articles, list) and bool(articles) and all(
        isinstance(article, dict) and isinstance(article.get("paragraphs"), list)
        for article in articles)


def _slug(title: str) -> str:
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    return _NON_ALNUM.sub("-", folded.lower()).strip("-")[:60].strip("-") or "article"


def _load_squad(data: dict[str, Any], name: str) -> Dataset:
    documents: list[Document] = []
    items: list[EvalItem] = []
    seen_ids: set[str] = set()
    seen_slugs: set[str] = set()
    skipped = 0
    for article in data["data"]:
        title = _text(article.get("title"))
        slug = _unique(_slug(title), seen_slugs)  # same-titled articles get "-2"...
        for index, paragraph in enumerate(article["paragraphs"]):
            paragraph = paragraph if isinstance(paragraph, dict) else {}
            context = str(paragraph.get("context") or "")
            qas = [qa for qa in paragraph.get("qas") or [] if isinstance(qa, dict)]
            if not context.strip():
                skipped += len(qas)
                continue
            document = Document(name=f"{slug}-p{index:03d}.txt", text=context,
                                title=f"{title.replace('_', ' ') or 'Article'}, "
                                      f"paragraph {index + 1}")
            documents.append(document)
            for qa in qas:
                question = _text(qa.get("question"))
                answers = _answers([entry.get("text") for entry in qa.get("answers") or []
                                    if isinstance(entry, dict)])
                if not question or not answers or qa.get("is_impossible") is True:
                    skipped += 1
                    continue
                items.append(EvalItem(
                    id=_unique(_text(qa.get("id")) or _hash_id(question), seen_ids),
                    question=question, answers=answers, gold_passage=document.name,
                    answerable=True, metadata={"article": title}))
    if not items:
        raise InputError(f"SQuAD dataset {name!r} has no answerable questions; check the "
                         "file's content")
    return Dataset(name=name, format="squad", items=items, documents=documents,
                   skipped=skipped)
