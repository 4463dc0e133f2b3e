"""CSV and TSV files as self-describing lines, one per row.

A passage cut from the middle of a table is useless if it only holds ``42,7,Oslo``:
neither a search nor a reader knows what the numbers are. So each row is written as
``column: value; column: value`` using the header row's names, and every chunk of a
large table still says what its values mean. The dialect (delimiter, quoting) is
sniffed from the start of the file, because "CSV" files use commas, semicolons, tabs
and pipes alike.

Writing the header's names into every row multiplies the text: a header of long names
over rows of one-letter values grows a hundredfold. The lines are therefore counted
as they are made (:class:`~deepcite.collections.loaders.limits.TextBudget`), and a table that
would pass the document limit is refused as "too large" instead of filling memory.
"""

from __future__ import annotations

import csv
import io
import itertools
from pathlib import Path

from deepcite.collections.documents import LoadedDocument, LoadError, PageText, collapse
from deepcite.collections.loaders.encoding import decode_text
from deepcite.collections.loaders.limits import TextBudget, read_text_file

_SNIFF_CHARS = 64 * 1024
_DELIMITERS = ",;\t|"


def _dialect(text: str, tabs: bool) -> type[csv.Dialect] | csv.Dialect:
    sample = text[:_SNIFF_CHARS]
    if len(text) > _SNIFF_CHARS and "\n" in sample:
        sample = sample[: sample.rfind("\n")]  # whole lines only: a cut row misleads it
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS)
    except csv.Error:
        return csv.excel_tab if tabs else csv.excel


def _row_line(names: list[str], row: list[str]) -> str:
    pairs = []
    for number, (name, value) in enumerate(itertools.zip_longest(names, row), start=1):
        value = collapse(value or "")
        if value:
            pairs.append(f"{name or f'column {number}'}: {value}")
    return "; ".join(pairs)


def load_csv(path: Path) -> LoadedDocument:
    """CSV/TSV: the first row names the columns; every later row becomes one line."""
    budget = TextBudget(path)
    text = decode_text(read_text_file(path))
    reader = csv.reader(io.StringIO(text), _dialect(text, path.suffix.lower() == ".tsv"))
    lines: list[str] = []
    try:
        header = next(reader, [])
        names = [collapse(name) for name in header]
        for row in reader:
            line = _row_line(names, row)
            if line:
                lines.append(budget.add(line))
    except csv.Error as exc:
        raise LoadError(path, f"not a valid CSV file (line {reader.line_num}: {exc})") from exc
    if not lines and any(names):
        lines.append("; ".join(name for name in names if name))  # a header-only file
    return LoadedDocument(path, path.stem, "csv", [PageText(None, "\n".join(lines))])
