"""What loaders produce: a file's text split into pages, and the error for a bad file.

These types live apart from the loader registry (:mod:`deepcite.collections.loaders`) so
that format modules (``loaders.docx_file``, ``csv_file``, ``epub_file``), the chunker and
third-party loader plugins can import them without importing every built-in loader.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from deepcite.errors import CollectionError, mapped_errors


class LoadError(CollectionError):
    """One file could not be loaded; ``reason`` is the message without the path.

    The message is always one line, ``"<path>: <reason>"``, so one bad file can be
    listed in a report while the rest of a folder is indexed.
    """

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = " ".join(reason.split()) or "unknown error"
        super().__init__(f"{path}: {self.reason}")


@dataclass(frozen=True)
class PageText:
    """Text of one page; ``page`` is 1-based for paged formats and ``None`` otherwise.

    "Page" is whatever unit a citation can point at: a PDF page, or an EPUB section
    (its position in the reading order).
    """

    page: int | None
    text: str


@dataclass
class LoadedDocument:
    """A file's extracted text, split into pages, plus what went wrong along the way."""

    path: Path
    title: str
    kind: str
    pages: list[PageText]
    warnings: list[str] = field(default_factory=list)

    @property
    def has_text(self) -> bool:
        """Whether any page produced non-blank text."""
        return any(page.text.strip() for page in self.pages)


Loader = Callable[[Path], LoadedDocument]
"""A loader takes a file path and returns its text, or raises :class:`LoadError`."""


def read_bytes(path: Path) -> bytes:
    """The file's bytes; an unreadable file is a :class:`LoadError`, not an ``OSError``."""
    with mapped_errors("document", "cannot read file", build=partial(LoadError, path)):
        return path.read_bytes()


def collapse(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) turned into one space."""
    return " ".join(text.split())
