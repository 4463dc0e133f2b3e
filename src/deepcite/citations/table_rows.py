"""Rows of one table judged together: as relevant as each other, and the extreme one for a
superlative question.

A settings table ("档位 | 风量 | 噪音 | 功率") writes each row in the same words; what
tells the rows apart is their values. Judged one by one, the row a question needs can
fall just under the meaning filter while its neighbours pass (calibrated e5 put the
"高速档" row of such a table at 0.697 for "把风开到最大的时候声音大概多少分贝", the
other rows at 0.73-0.76), and it is then never quoted. So:

- :func:`admit_siblings`: a row the filter rejects is relevant when a row of the same
  table passed and it holds as much of the question (its coverage) as that row.
- :func:`same_table`: two rows of one table are two facts, never near-duplicates
  of each other (:func:`~deepcite.citations.sentence_choice.select`).
- :func:`extreme_rows`: a question that asks for the most or least of something ("开到
  最大", "最低档", "最高的那档") and names no row by its label is asked of the row at
  that end of the table: the largest (or smallest) value of the numeric column the
  question names, or, when it names none, the row at that end of every numeric column
  (a settings table grows in all of them together).
- :func:`coded_rows`: a question that names a code ("屏幕上跳出 E4 是什么意思") is asked
  of the row whose label cell is that code: the row says nothing else of the question
  ("E4 | 进水水温过高"), so neither its words nor its meaning would admit it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from deepcite.citations.candidates import Sentence
from deepcite.citations.table_cells import row_cells
from deepcite.text.cjk import CJK_RUN, has_cjk

#: Superlatives asking for the top of a scale, and for its bottom. Not "最多"/"最少",
#: "最长"/"最晚": those ask a limit ("最多几天内可以退"), not a row.
_MOST = re.compile("最(?:大|高|强|快|猛)")
_LEAST = re.compile("最(?:小|低|弱|慢|轻)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")
#: A code: letters and digits together ("E4", "F12", "P-03"), as a whole cell.
_CODE = re.compile(r"[A-Za-z]{1,4}-?\d{1,4}|\d{1,4}[A-Za-z]{1,2}")


def _table(sentence: Sentence) -> tuple[int, tuple[str, ...]] | None:
    """The table ``sentence`` is a row of (its source's rank and the header), or
    ``None`` for prose."""
    return (sentence.rank, sentence.columns) if sentence.columns else None


def same_table(a: Sentence, b: Sentence) -> bool:
    """Whether ``a`` and ``b`` are two rows of one CJK table: two facts, never a
    sentence and its restatement, however many words the rows share ("副主任医师 |
    25 元" holds every word of "主任医师 | 40 元" but its number)."""
    return (a is not b and _table(a) is not None and _table(a) == _table(b)
            and a.text != b.text and has_cjk(a.text))


def admit_siblings(rows: Iterable[Sentence], passed: dict[int, bool],
                   coverage: Callable[[Sentence], float]) -> None:
    """Mark as passed (in ``passed``, keyed by ``id``) each table row of ``rows`` that
    the filter rejected while a row of its table passed with no more of the question
    (``coverage``) than it holds: the rows of one table say the same words of the
    question, so meaning alone must not part them."""
    rows = list(rows)
    least: dict[tuple[int, tuple[str, ...]], float] = {}
    for row in rows:
        table = _table(row)
        if table is not None and passed.get(id(row)):
            least[table] = min(least.get(table, 1.0), coverage(row))
    for row in rows:
        table = _table(row)
        if (table in least and id(row) in passed and not passed[id(row)]
                and coverage(row) >= least[table]):
            passed[id(row)] = True


def _direction(question: str) -> int:
    """1 when ``question`` asks for the top of a scale, -1 for its bottom, 0 for
    neither (or both: "最高温和最低温")."""
    most, least = bool(_MOST.search(question)), bool(_LEAST.search(question))
    return (1 if most else -1) if most != least else 0


def _value(cell: str) -> float | None:
    match = _NUMBER.search(cell)
    return float(match.group(0)) if match else None


def _named(header: str, question: str) -> bool:
    """Whether ``question`` says a word of the column ``header``: a CJK character of
    it outside the superlative ("风" of "风量" in "把风开到最大") or a Latin word of it."""
    said = _MOST.sub("", _LEAST.sub("", question))
    if any(word.lower() in said.lower() for word in _LATIN.findall(header)):
        return True
    return any(char in said for run in CJK_RUN.findall(header) for char in run)


def _labelled(question: str, label: str) -> bool:
    """Whether ``question`` names a row by its label cell: two characters of it in a
    row, or a Latin word of it."""
    if any(word.lower() in question.lower() for word in _LATIN.findall(label)
           if not word.isdigit()):
        return True
    return any(run[i:i + 2] in question for run in CJK_RUN.findall(label)
               for i in range(len(run) - 1))


def _ends(rows: Sequence[tuple[str, ...]], column: int, direction: int) -> int | None:
    """The index of the row with the largest (``direction`` 1) or smallest value of
    ``column``, ``None`` when a row holds no number there or two share the end."""
    values = [_value(cells[column]) for cells in rows]
    if any(v is None for v in values):
        return None
    keyed = [direction * v for v in values if v is not None]
    top = max(keyed)
    return keyed.index(top) if keyed.count(top) == 1 else None


def extreme_rows(question: str, rows: Sequence[Sentence]) -> set[int]:
    """The ``id`` of each row of ``rows`` that is its table's extreme for a superlative
    ``question`` (see the module docs); none when it has no superlative, names a row by
    its label, or the table's columns do not agree on one end."""
    direction = _direction(question)
    if not direction:
        return set()
    tables: dict[tuple[int, tuple[str, ...]], list[Sentence]] = {}
    for row in rows:
        table = _table(row)
        if table is not None:
            tables.setdefault(table, []).append(row)
    found: set[int] = set()
    for (_, columns), members in tables.items():
        cells = [row_cells(row.text) for row in members]
        if len(members) < 2 or any(len(c) != len(columns) for c in cells):
            continue
        if any(_labelled(question, c[0]) for c in cells):
            continue  # "二档的噪音": the row is named, not asked by its rank
        numeric = [i for i in range(1, len(columns))
                   if all(_value(c[i]) is not None for c in cells)]
        named = [i for i in numeric if _named(columns[i], question)]
        for group in (named, numeric):
            ends = {_ends(cells, i, direction) for i in group}
            if len(ends) == 1 and None not in ends:
                found.add(id(members[ends.pop()]))  # type: ignore[index]
                break
    return found


def coded_rows(question: str, rows: Iterable[Sentence]) -> set[int]:
    """The ``id`` of each table row of ``rows`` whose label (first) cell is a code
    (:data:`_CODE`: "E4") that ``question`` names as a whole word, not inside a longer
    one ("E45", "QE4")."""
    found: set[int] = set()
    for row in rows:
        if _table(row) is None:
            continue
        cells = row_cells(row.text)
        label = cells[0].strip() if cells else ""
        if _CODE.fullmatch(label) and re.search(
                rf"(?<![A-Za-z0-9-]){re.escape(label)}(?![A-Za-z0-9])", question, re.IGNORECASE):
            found.add(id(row))
    return found


__all__ = ["admit_siblings", "coded_rows", "extreme_rows", "same_table"]
