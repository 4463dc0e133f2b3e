"""The text of a document to check, from the file a person gives.

Markdown, plain text, HTML, Word and PDF files are read with the collection loaders
(:mod:`deepcite.collections.loaders`), so a document is read the way the same file would
be indexed - within the same size limits, with a damaged or hostile file refused the
same way. Markdown and plain text come back exactly as written, so the claims' offsets
point into the file itself; the other formats come back as their extracted text.
"""

from __future__ import annotations

from pathlib import Path

from deepcite.collections.loaders import LoadError, decode_text, load_document
from deepcite.collections.loaders.limits import read_text_file
from deepcite.errors import CollectionError, InputError

__all__ = ["CHECKABLE_SUFFIXES", "read_document"]

#: The file types a check reads (a file without a suffix is read as plain text).
CHECKABLE_SUFFIXES = (".md", ".markdown", ".txt", ".text", ".rst", ".html", ".htm",
                      ".docx", ".pdf")
_PLAIN = (".md", ".markdown", ".txt", ".text", ".rst", "")
_HOW = "save it as Markdown, plain text, HTML, DOCX or PDF"


def read_document(path: Path) -> str:
    """The text of ``path`` whose claims are checked.

    Raises :class:`~deepcite.errors.InputError` with one line saying what to do for a
    missing, unsupported, unreadable or empty file.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"No document at {path} - give the path of a file to check")
    suffix = path.suffix.lower()
    if suffix not in CHECKABLE_SUFFIXES and suffix != "":
        raise InputError(f"{path.name}: cannot check {suffix} files - {_HOW}")
    try:
        if suffix in _PLAIN:
            text = decode_text(read_text_file(path))
        else:
            loaded = load_document(path)
            text = "\n\n".join(page.text.strip() for page in loaded.pages if page.text.strip())
    except LoadError as exc:
        raise InputError(f"{path.name}: {exc.reason} - {_HOW}") from exc
    except CollectionError as exc:
        raise InputError(f"{path.name}: {exc} - {_HOW}") from exc
    if not text.strip():
        raise InputError(f"{path.name} has no text to check (a scanned PDF has only images)"
                         f" - {_HOW}")
    return text.replace("\r\n", "\n")
