"""One indexed document's text, read back from its chunks.

What a document's page shows is what searches and reports cite, so it is rebuilt from
the chunks rather than read from the file (which may have changed or gone since).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from deepcite.collections.index import Index
from deepcite.errors import mapped_errors


@dataclass(frozen=True)
class DocumentPart:
    """A stretch of one indexed document's text, on one page (``None``: no pages)."""

    page: int | None
    text: str


@dataclass(frozen=True)
class DocumentText:
    """What a collection holds of one document: its title, kind and indexed text,
    rebuilt from its chunks so that a reader sees what searches and reports cite."""

    path: str
    title: str
    kind: str
    parts: list[DocumentPart]


def read_document_text(index: Index, key: str) -> DocumentText | None:
    """The indexed text of the document stored in ``index`` as ``key``, or ``None``
    when no such document is indexed.

    Consecutive chunks overlap (see :mod:`deepcite.collections.chunking`); their
    page offsets let the overlap be dropped, so the text reads once.
    """
    with mapped_errors("collection", f"{index.path}: cannot read collection"), \
            index.connect() as conn:
        row = conn.execute("SELECT id, title, kind FROM documents WHERE path = ?",
                           (key,)).fetchone()
        if row is None:
            return None
        chunks = conn.execute(
            'SELECT text, page, start, "end" FROM chunks WHERE doc_id = ? ORDER BY ord',
            (row[0],)).fetchall()
    parts: list[DocumentPart] = []
    reached: dict[int | None, int] = {}
    for text, page, start, end in chunks:
        done = reached.get(page, -1)
        if isinstance(start, int) and isinstance(end, int) and end - start == len(text):
            if start < done:
                text = text[done - start:]
            reached[page] = max(done, end)
        if not text:
            continue
        if parts and parts[-1].page == page:
            parts[-1] = DocumentPart(page, parts[-1].text + text)
        else:
            parts.append(DocumentPart(page, text))
    return DocumentText(key, str(row[1] or Path(key).name), str(row[2] or ""), parts)
