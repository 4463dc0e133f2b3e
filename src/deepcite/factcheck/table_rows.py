"""A Markdown table row's values, each read with its column's header.

A row is one sentence of a passage ("| Harrowmouth - Brennock | 55 minutes | 8 | 5 |"),
but its numbers mean what its header row says of their columns ("| Route | Crossing
time | Summer departures/day | Winter departures/day |"): 8 is eight departures a day
in summer. Read from the row's text alone, 8 would be a bare number after the word of
the cell before it, which no claim's "eight departures a day" agrees with and no "nine
departures a day" contradicts.

So each cell is read on its own (its values' words are its own, not the cell before's)
and a value the cell gives no unit takes its column header's: a currency ("Price
(£)"), a measure ("Distance (km)"), a percentage ("Share (%)") or the noun it counts
("Summer departures/day": departures), named by the header's last word where it counts
no noun ("Capacity"). A header's period ("/day", "per week", "daily") is stated with
the cell's value, as "8 departures a day" states "a day". Offsets stay those of the row
text, so that quotes and notes point at the cell.

A row states several values of one kind (the summer and the winter count, the fare of
each route); :func:`row_values` keeps, of those, the ones of the columns whose header
says most of the claim's words - where the claim names one ("in winter") - so that a
claim about one column is compared with that column alone.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache

from deepcite.factcheck.compound import plain_key
from deepcite.factcheck.ranges import shared_units
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.units import CURRENCIES, DIMENSIONS, SAME_UNITS, unit_of
from deepcite.factcheck.value import Value
from deepcite.factcheck.values import extract_values
from deepcite.text.stem import stem
from deepcite.text.stopwords import STOPWORDS

__all__ = ["header_of", "row_cells", "row_values"]

_CELL = re.compile(r"[^|]+")
_WORD = re.compile(r"[A-Za-z\u00C0-\u024F]+|[$\u20ac\u00a3\u00a5%]")
# a period the column's values are counted per: "departures/day", "per week", "daily"
_PERIOD = re.compile(r"(?:/\s*|\bper\s+|\ba\s+|\ban\s+)(?P<period>hour|day|night|week|month|"
                     r"year)\b|\b(?P<adverb>hourly|daily|nightly|weekly|monthly|yearly|"
                     r"annual)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Column:
    """What a column's header says of its cells' values."""

    terms: frozenset[str]
    text: str
    currency: str = ""
    percent: bool = False
    unit: str = ""  # a measure's unit ("km") or the noun counted ("departur")
    before: str = ""  # the header's last word, naming a number it gives no unit
    period: float = 0.0  # seconds of the period the values are per


def header_of(text: str, start: int) -> str:
    """The header row of the table whose row begins at ``start`` of ``text``: "" for a
    sentence that is no table row, or is the header row itself."""
    if not text.startswith("|", start):
        return ""
    first = start
    while first > 0:
        above = text.rfind("\n", 0, first - 1) + 1
        if not text.startswith("|", above):
            break
        first = above
    if first == start:
        return ""
    end = text.find("\n", first)
    return text[first:end if end >= 0 else len(text)].strip()


def _cells(line: str) -> list[tuple[int, int]]:
    """The spans of a row's cells, stripped of their spaces."""
    spans = []
    for match in _CELL.finditer(line):
        piece = match.group(0)
        if not piece.strip():
            if match.start() and match.end() < len(line):
                spans.append((match.start(), match.start()))  # an empty cell keeps its place
            continue
        lead = len(piece) - len(piece.lstrip())
        spans.append((match.start() + lead, match.start() + len(piece.rstrip())))
    return spans


def _noun(words: list[str]) -> str:
    """The unit of the first noun of ``words`` that counts things: a plural ("Summer
    departures") or a word for people ("Capacity (people)"); "" without one."""
    for word in words:
        lower = word.lower()
        if lower in STOPWORDS or len(lower) < 3:
            continue
        if lower in SAME_UNITS or (lower.endswith("s") and not lower.endswith(
                ("ss", "us", "is"))):
            return unit_of(lower)
    return ""


# the word of each period a header names ("Monthly" is "a month"), which a claim says
_PERIOD_WORDS = {"hourly": "hour", "daily": "day", "nightly": "night", "weekly": "week",
                 "monthly": "month", "yearly": "year", "annual": "year"}


@lru_cache(maxsize=1024)
def _column(header: str) -> _Column:
    """A header cell read as what its column's values are."""
    period = _PERIOD.search(header)
    name = (period.group("period") or period.group("adverb")).lower() if period else ""
    # the words naming what is counted: not the period's ("departures/day")
    named = header[:period.start()] + header[period.end():] if period else header
    words = _WORD.findall(named)
    word = _PERIOD_WORDS.get(name, name)
    # (a night is counted as a day is: "per night" of a stay)
    seconds = float(DIMENSIONS[unit_of("day" if word == "night" else word)][1]) if name else 0.0
    column = _Column(terms_of(header) | terms_of(_PERIOD_WORDS.get(name, "")), header,
                     period=seconds)
    for word in words:
        lower = word.lower()
        if lower in CURRENCIES:
            return dataclasses.replace(column, currency=CURRENCIES[lower])
        if word == "%" or lower == "percent":
            return dataclasses.replace(column, percent=True)
    for word in words:
        # a measure's unit, written short ("Distance (km)") or whole ("Minutes")
        if (unit := unit_of(word)) in DIMENSIONS and (len(word) > 1 or word.islower()):
            return dataclasses.replace(column, unit=unit)
    if noun := _noun(words):
        return dataclasses.replace(column, unit=noun)
    content = [w for w in words if w.lower() not in STOPWORDS and len(w) > 2]
    return dataclasses.replace(column, before=stem(content[-1].lower()) if content else "")


def _with_column(value: Value, column: _Column, subject: str) -> list[Value]:
    """``value`` of a cell with what its column's header says of it: the header's unit
    where the cell gives none, and the period it is per. A number the header names by
    a word only (no noun, unit or currency) is named by the row's ``subject`` too,
    the last word of its first cell: "| `port` | 8080 |" under "| Key | Default |" is
    the default and the port."""
    # (a year-like number counts the column's noun, "1500" of "Seats"; not a measure's:
    # "2019" of "Years" is a year)
    bare = not value.unit and not value.dimension and value.amount is not None and (
        value.kind == "number" or (value.kind == "year" and (
            column.currency or column.percent or column.unit not in ("", *DIMENSIONS))))
    amount = value.amount or 0.0
    if bare and column.currency:
        value = Value("money", value.key if value.kind == "number" else plain_key(amount),
                      value.text, value.start, value.end, amount, column.currency, "money",
                      value.before or column.before, bound=value.bound)
    elif bare and column.percent:
        value = Value("percent", plain_key(amount), value.text, value.start, value.end,
                      amount, "%", bound=value.bound)
    elif bare and column.unit:
        dimension, size = DIMENSIONS.get(column.unit, ("", 1.0))
        value = Value("number", plain_key(amount), value.text, value.start, value.end,
                      amount * size, column.unit, dimension, value.before or column.before,
                      bound=value.bound)
    read = [value]
    if not value.before and (column.before or subject):
        read = [dataclasses.replace(value, before=word)
                for word in dict.fromkeys((column.before, subject)) if word]
        if not (value.kind == "number" and not value.unit and not value.dimension):
            read = read[:1]  # a unit or a kind of its own names it
    if not column.period or value.dimension == "period" \
            or value.kind not in ("number", "money"):
        return read
    return [*read, Value("number", plain_key(column.period), column.text, value.start,
                         value.end, column.period, "every", "period")]


@lru_cache(maxsize=1024)
def _heads(header: str) -> tuple[_Column, ...]:
    """What each of ``header``'s cells says of its column (a header row is met again by
    every row under it, and every claim)."""
    return tuple(_column(header[a:b]) for a, b in _cells(header))


@lru_cache(maxsize=2048)
def row_cells(row: str, header: str) -> tuple[tuple[Value, int], ...]:
    """The values of table row ``row`` under ``header``, each with its column's index;
    offsets are the row's."""
    heads = _heads(header)
    spans = _cells(row)
    label = [w for w in _WORD.findall(row[spans[0][0]:spans[0][1]] if spans else "")
             if w.lower() not in STOPWORDS and len(w) > 1]
    # a row the first cell of which names what it counts ("| Passengers | 320 | 190 |"
    # under the vessels' names): its values count that, where the header counts nothing
    counted = _noun(label)
    found: list[tuple[Value, int]] = []
    for index, (start, end) in enumerate(spans):
        cell = row[start:end]
        if not cell or set(cell) <= set("-: "):
            continue
        column = heads[index] if index < len(heads) else _Column(frozenset(), "")
        if counted and index and not (column.unit or column.currency or column.percent):
            column = dataclasses.replace(column, unit=counted, before="")
        for value in shared_units(cell, extract_values(cell), extract_values):
            moved = dataclasses.replace(value, start=value.start + start,
                                        end=value.end + start)
            subject = stem(label[-1].lower()) if label and index else ""
            found += [(v, index) for v in _with_column(moved, column, subject)]
    return tuple(found)


def _kind(value: Value) -> tuple[str, str]:
    return value.kind, value.dimension or value.unit


def row_values(row: str, header: str, claim_terms: frozenset[str]) -> tuple[Value, ...]:
    """The values of table row ``row`` under ``header`` as a claim of ``claim_terms``
    reads them: of the values of one kind in several columns, those of the columns
    whose header says most of the claim's words, where it says some ("in winter" of
    "Summer departures/day" and "Winter departures/day")."""
    read = row_cells(row, header)
    heads = [column.terms for column in _heads(header)]
    columns: dict[tuple[str, str], set[int]] = {}
    for value, index in read:
        columns.setdefault(_kind(value), set()).add(index)
    kept: dict[tuple[str, str], set[int]] = {}
    for kind, indices in columns.items():
        said = {i: len(heads[i] & claim_terms) if i < len(heads) else 0 for i in indices}
        most = max(said.values())
        kept[kind] = {i for i in indices if said[i] == most} if most else indices
    return tuple(value for value, index in read if index in kept[_kind(value)])
