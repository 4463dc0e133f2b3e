"""Word documents (``.docx``) as text whose headings the chunker understands.

Body paragraphs and tables are read in document order. Paragraphs styled "Heading N"
become Markdown heading lines (``## Installation``), so passages carry the same
section path as they would in a Markdown file; tables become one line per row with
tab-separated cells, which keeps a row's values together in one passage. DOCX has no
fixed pages (page breaks depend on the renderer), so the document is one page-less
text. python-docx is an optional dependency: without it a ``.docx`` file is reported
with the command that installs it, and every other file still loads.

python-docx reads every part of the package into memory when it opens a file, so the
archive is first unpacked once within :mod:`deepcite.collections.loaders.limits` (entry count,
sizes, compression ratio, and the elements of every XML part): a small DOCX that
expands to gigabytes, or to millions of tiny paragraphs that would take python-docx
minutes and gigabytes to build, is refused as "too large" before python-docx sees it.
The text is counted as it is built, too, because merged table cells repeat their text
once per row they span.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from deepcite.collections.documents import LoadedDocument, LoadError, PageText, collapse
from deepcite.collections.loaders.limits import TextBudget, ZipReader
from deepcite.errors import mapped_errors

if TYPE_CHECKING:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

INSTALL_HINT = "reading .docx files needs python-docx: pip install 'deepcite[docx]'"
_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.IGNORECASE)
_LIST_STYLE = re.compile(r"list\s*(bullet|number|paragraph)", re.IGNORECASE)


def _style_name(paragraph: Paragraph, names: dict[str | None, str]) -> str:
    """The paragraph's style name, looked up once per style id (``names`` caches it):
    python-docx searches the styles part on every lookup, ~0.3 ms a paragraph."""
    style_id = paragraph._p.style
    if style_id not in names:
        style = paragraph.style
        names[style_id] = (style.name or "") if style is not None else ""
    return names[style_id]


def _paragraph_block(paragraph: Paragraph, title: list[str],
                     names: dict[str | None, str]) -> str | None:
    """One block of output text for a paragraph; ``title`` collects Title-style text."""
    style = _style_name(paragraph, names)
    text = paragraph.text.strip()
    if not text:
        return None
    heading = _HEADING_STYLE.fullmatch(style)
    if heading:
        level = min(max(int(heading.group(1)), 1), 6)
        return "#" * level + " " + collapse(text)
    if style.lower() == "title":
        title.append(collapse(text))
    elif _LIST_STYLE.match(style):
        return "- " + text
    return text


def _table_block(table: Table, budget: TextBudget) -> str | None:
    lines = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:
            # Merged cells come back once per grid column they span; keep one of each.
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            cells.append(budget.add(collapse(cell.text)))
        if any(cells):
            lines.append("\t".join(cells))
    return "\n".join(lines) or None


def load_docx(path: Path) -> LoadedDocument:
    """DOCX: paragraphs and tables in order; title from the properties, Title or heading."""
    try:
        import docx
        from docx.table import Table
    except ImportError as exc:
        raise LoadError(path, INSTALL_HINT) from exc
    budget = TextBudget(path)
    # python-docx raises zip, XML, KeyError... on damaged files (the table says how)
    with mapped_errors("document", "not a valid DOCX file", build=partial(LoadError, path)):
        with path.open("rb") as handle:
            with ZipReader.open(path, handle) as package:
                package.check_all()
            handle.seek(0)
            document = docx.Document(handle)
        blocks: list[str] = []
        title_paragraphs: list[str] = []
        style_names: dict[str | None, str] = {}
        for item in document.iter_inner_content():
            if isinstance(item, Table):
                block = _table_block(item, budget)  # charged cell by cell
            else:
                block = _paragraph_block(item, title_paragraphs, style_names)
                budget.add(block or "")
            if block:
                blocks.append(block)
        core_title = document.core_properties.title or ""
    first_heading = next((b.lstrip("# ") for b in blocks if b.startswith("#")), "")
    title = collapse(core_title) or next(iter(title_paragraphs), "") or first_heading
    text = "\n\n".join(blocks)
    return LoadedDocument(path, title or path.stem, "docx", [PageText(None, text)])
