"""The cells of a table row that a question asks for, by the column it names.

A comparison table writes one fact per cell: "更换电池 | 69元 | 89元 | 119元" under
"项目 | S1 | S3 | S5 Pro", "少儿阅览区 | 13:30–19:00 | 9:00–17:30" under "区域 |
周二至周五 | 周六、周日". The row is the right sentence to quote for "S3 换电池要多少钱"
or "周末少儿阅览区几点关门", but its first value is another column's. A question that
names some of the columns (by a word of their header, a model name, "周末" for the
weekend's days) is answered from those: :func:`asked_cells` gives the row with the
other columns' values left out, for the short answer to be picked from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.text.cjk import CJK_RUN
from deepcite.text.cjk_synonyms import synonym_terms

_LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")
_DIGIT = re.compile(r"\d")


def _names(header: str, question: str) -> bool:
    """Whether ``question`` names the column ``header``: a Latin name of it ("S3",
    "Pro") written whole in the question, a pair of its CJK characters or of a word that
    says the same (:mod:`deepcite.text.cjk_synonyms`: "周末" for "周六、周日")."""
    asked = {t.lower() for t in _LATIN.findall(question)}
    words = [t.lower() for t in _LATIN.findall(header)]
    if words and all(w in asked for w in words):
        return True
    for run in CJK_RUN.findall(header):
        if any(run[i:i + 2] in question for i in range(len(run) - 1)):
            return True
    return any(pair in question for pair in synonym_terms(header))


def row_cells(row: str) -> tuple[str, ...]:
    """The cells of a table row as :func:`~deepcite.citations.candidates.table_row`
    writes it ("尘盒容量 | 400毫升"): the header's and a row's are split alike, so a
    row's cells line up with its columns."""
    return tuple(cell.strip() for cell in row.split("|"))


def asked_cells(question: str, row: str, columns: Sequence[str]) -> str | None:
    """``row`` with the values of the columns ``question`` does not name left out
    (its label cells, which hold no number, are kept), or ``None`` when it names none
    of its value columns, or all of them, or the row does not fit its header."""
    cells = row_cells(row)
    if len(cells) != len(columns) or len(cells) < 3:
        return None
    valued = [i for i, cell in enumerate(cells) if _DIGIT.search(cell)]
    named = [i for i in valued if _names(columns[i], question)]
    if not named or len(named) == len(valued):
        return None
    return " | ".join(cell for i, cell in enumerate(cells) if i in named or i not in valued)


__all__ = ["asked_cells", "row_cells"]
