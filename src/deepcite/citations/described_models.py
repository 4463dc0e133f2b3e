"""The model a CJK question names by a description, read from the sources' tables.

A user does not always know a product's model names: "最便宜的那一款" is the row of
the comparison table with the lowest price, "旗舰款" the model the page calls its
flagship ("旗舰款 S5 Pro"), "用底座充电的那个型号" the one row whose cells say "底座".
The sentences that answer such a question name the model ("S1 | ... | 45天"), never
the description, so :func:`with_model_named` writes the model's name in the question's
place of the description, and the ranking and the table-cell rules
(:mod:`deepcite.citations.table_cells`) then read a question that names it.

Only models a table lists by name in its first column (Latin letters with digits:
"S1", "AP-60", "S5 Pro") are candidates, and only one found unambiguously is used; a
question that names a model itself is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.citations.question_names import model_names
from deepcite.text.cjk import has_cjk
from deepcite.text.tables import markdown_cells

#: A model's name in a table's first cell: letters and digits, a word or two.
_MODEL_CELL = re.compile(r"[A-Za-z]{1,4}-?\d{1,4}(?:\s?[A-Za-z]{1,5})?")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")
_MONEY = re.compile(r"(\d+(?:\.\d+)?)\s?(?:元|块)|[¥￥]\s?(\d+(?:\.\d+)?)")

#: "最便宜的那一款", "价格最低的型号": the lowest price asked; "最贵的" the highest. A
#: tier ("入门款", "顶配") a page does not name a model by is its price's end too.
_CHEAPEST = re.compile("最便宜|最实惠|价格最低|最低价|售价最低|最省钱")
_DEAREST = re.compile("最贵|价格最高|最高价|售价最高")
_LOW_TIER = re.compile("入门款|入门级|入门版|基础款|基础版|低配|丐版")
_HIGH_TIER = re.compile("顶配|高配|旗舰款|旗舰版|最高端|最高配")
#: "最大的那款": the model whose numbers are the highest in most columns.
_LARGEST = re.compile("最大|个头最大|最大号")
_SMALLEST = re.compile("最小|个头最小|最小号")
_FIGURE = re.compile(r"\d+(?:\.\d+)?")
#: What a description ends with: the thing it picks out ("的那一款", "的那个型号").
_PICKED = re.compile(r"(?:的)?(?:那|这)?(?:一)?(?:款|个型号|个|种|台|型号|版本?)")
#: A kind a page calls a model by ("旗舰款", "入门版"), and the question's span of it.
_KIND_ASKED = re.compile(r"(?P<kind>[\u4e00-\u9fff]{2})(?:款|版)")
#: A description by what a model does: "用底座充电的那个型号".
_DESCRIBED = re.compile(r"(?P<what>[\u4e00-\u9fff]{2,10}?)的那(?:一)?(?:款|个型号|个|种|台)")
_GENERIC = frozenset(("型号", "那个", "那款", "一款", "产品", "机器", "哪个", "哪款"))


def _model_tables(texts: Sequence[str]) -> list[list[tuple[str, list[str]]]]:
    """The tables of ``texts`` whose rows' first cells name two models or more, each as
    its rows (the model's name, its other cells)."""
    tables: list[list[tuple[str, list[str]]]] = []
    for text in texts:
        rows: list[tuple[str, list[str]]] = []
        for line in [*text.splitlines(), ""]:
            line = line.strip()
            if not line.startswith("|"):
                if len({name for name, _ in rows}) >= 2:
                    tables.append(rows)
                rows = []
                continue
            if _TABLE_RULE.match(line.lstrip("|")):
                continue
            cells = markdown_cells(line)
            if len(cells) >= 2 and _MODEL_CELL.fullmatch(cells[0]):
                rows.append((cells[0], cells[1:]))
    return tables


def _price(cells: Sequence[str]) -> float | None:
    for cell in cells:
        found = _MONEY.search(cell)
        if found:
            return float(found.group(1) or found.group(2))
    return None


def _span(question: str, found: re.Match[str]) -> str:
    """The description found, with what it picks out ("最便宜" + "的那一款")."""
    picked = _PICKED.match(question, found.end())
    end = picked.end() if picked and picked.end() > found.end() else found.end()
    return question[found.start():end]


def _by_size(question: str, rows: list[tuple[str, list[str]]]) -> tuple[str, str] | None:
    """The model whose numbers are the highest (or lowest) in most of the table's
    columns, for "最大的那款" ("最小的"); ``None`` when no one model is."""
    for pattern, pick in ((_LARGEST, max), (_SMALLEST, min)):
        found = pattern.search(question)
        if not found or not _PICKED.match(question, found.end()):
            continue  # "风开到最大": a setting, not a model
        width = min(len(cells) for _, cells in rows)
        votes: dict[str, int] = {}
        for column in range(width):
            values = {}
            for name, cells in rows:
                figure = _FIGURE.search(cells[column])
                if figure:
                    values[name] = float(figure.group(0))
            if len(values) == len(rows) and len(set(values.values())) == len(rows):
                best = pick(values, key=values.__getitem__)
                votes[best] = votes.get(best, 0) + 1
        top = max(votes.values(), default=0)
        winners = [name for name, count in votes.items() if count == top]
        if top * 2 > sum(votes.values()) and len(winners) == 1:
            return winners[0], _span(question, found)
    return None


def _by_price(question: str, rows: list[tuple[str, list[str]]]) -> tuple[str, str] | None:
    """The model of the lowest or highest price asked, and the question's span of it."""
    for pattern, pick in ((_CHEAPEST, min), (_DEAREST, max), (_LOW_TIER, min),
                          (_HIGH_TIER, max)):
        found = pattern.search(question)
        if not found:
            continue
        priced = {name: price for name, cells in rows if (price := _price(cells)) is not None}
        if len(priced) < 2:
            return None
        best = pick(priced.values())
        named = [name for name, price in priced.items() if price == best]
        if len(named) != 1:
            return None
        return named[0], _span(question, found)
    return None


def _by_kind(question: str, texts: Sequence[str], names: set[str]
             ) -> tuple[str, str] | None:
    """The model a page calls by the kind asked ("旗舰款 S5 Pro" for "旗舰款")."""
    for found in _KIND_ASKED.finditer(question):
        kind = found.group(0)
        said = set()
        for text in texts:
            for name in names:
                escaped = re.escape(name)
                if re.search(rf"{kind}\s?[：:（(]?\s?{escaped}(?![A-Za-z0-9])", text) or (
                        re.search(rf"(?<![A-Za-z0-9]){escaped}\s?[（(]{kind}", text)):
                    said.add(name)
        if len(said) == 1:
            return said.pop(), kind
    return None


def _pairs(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1)} - _GENERIC


def _by_cells(question: str, rows: list[tuple[str, list[str]]]) -> tuple[str, str] | None:
    """The one model whose row's cells say what the description says of it, in a pair
    of characters no other row holds ("底座" of "用底座充电的那个型号")."""
    for found in _DESCRIBED.finditer(question):
        wanted = _pairs(found.group("what"))
        held: dict[str, set[str]] = {}
        for name, cells in rows:
            held.setdefault(name, set()).update(
                wanted & set().union(*(_pairs(cell) for cell in cells)))
        everywhere = set.intersection(*held.values()) if held else set()
        own = {name: pairs - everywhere for name, pairs in held.items()}
        best = max((len(pairs) for pairs in own.values()), default=0)
        named = [name for name, pairs in own.items() if len(pairs) == best]
        if best and len(named) == 1:
            return named[0], found.group(0)
    return None


def with_model_named(question: str, texts: Sequence[str]) -> str:
    """``question`` with the description of a model replaced by its name (see the
    module docs); ``question`` itself when it names a model or none is found."""
    if not has_cjk(question) or model_names(question):
        return question
    tables = _model_tables(texts)
    if not tables:
        return question
    rows = [row for table in tables for row in table]
    # the widest table first: the models' comparison, not a table of their parts
    tables.sort(key=lambda table: -min(len(cells) for _, cells in table))
    found = (_by_kind(question, texts, {n for n, _ in rows})
             or next(filter(None, (_by_price(question, t) for t in tables)), None)
             or next(filter(None, (_by_size(question, t) for t in tables)), None)
             or _by_cells(question, rows))
    if found is None:
        return question
    name, span = found
    return question.replace(span, name, 1)


__all__ = ["with_model_named"]
