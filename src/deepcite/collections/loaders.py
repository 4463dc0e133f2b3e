"""Turn files on disk into plain-text pages that the chunker and the index understand.

Each supported suffix maps to one loader function in :data:`LOADERS`, so a new file type
is one function and one registry entry. Loaders keep page numbers where the format has
pages (PDF), because citations point at them, and they report pages that yielded no
text instead of silently indexing nothing: a scanned PDF should be visible to the user,
not mysteriously unsearchable. A file that cannot be loaded raises :class:`LoadError`
(a :class:`~deepcite.errors.CollectionError`) whose message is one line,
``"<path>: <reason>"``, so one bad file can be reported while the rest is indexed.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import trafilatura
from pypdf import PdfReader
from pypdf.errors import PdfReadError

from deepcite.collections.headings import leading_title, markdown_title, rst_title
from deepcite.errors import CollectionError

logger = logging.getLogger(__name__)


class LoadError(CollectionError):
    """One file could not be loaded; ``reason`` is the message without the path."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = " ".join(reason.split()) or "unknown error"
        super().__init__(f"{path}: {self.reason}")


@dataclass(frozen=True)
class PageText:
    """Text of one page; ``page`` is 1-based for paged formats and ``None`` otherwise."""

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


# ------------------------------------------------------------------------- helpers


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise LoadError(path, f"cannot read file ({exc.strerror or exc})") from exc


def decode_text(data: bytes) -> str:
    """UTF-8 (BOM dropped), else Latin-1, which never fails; newlines become ``\\n``.

    Latin-1 is a crude fallback, but it keeps every byte and most Western text legible
    until real charset detection arrives.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _text_document(
    path: Path, kind: str, find_title: Callable[[str], str | None]
) -> LoadedDocument:
    text = decode_text(_read_bytes(path))
    title = find_title(text) or path.stem
    return LoadedDocument(path, title, kind, [PageText(None, text)])


# ------------------------------------------------------------------------- loaders


def load_markdown(path: Path) -> LoadedDocument:
    """Markdown: title is the first ``# `` heading."""
    return _text_document(path, "markdown", markdown_title)


def load_rst(path: Path) -> LoadedDocument:
    """reStructuredText: title is the first underlined heading."""
    return _text_document(path, "rst", rst_title)


def load_text(path: Path) -> LoadedDocument:
    """Plain text: title is a heading on the first non-blank line, else the file stem."""
    return _text_document(path, "text", leading_title)


_TITLE_TAG = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


class _TextCollector(HTMLParser):
    """Visible text of an HTML page, paragraph breaks at block elements."""

    _SKIP = frozenset({"script", "style", "title", "noscript", "template", "head"})
    _BLOCK = frozenset(
        {"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article",
         "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "header", "footer"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)

    def text(self) -> str:
        joined = "".join(self.parts)
        paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", joined))
        return "\n\n".join(p for p in paragraphs if p)


def _html_title(raw: str) -> str | None:
    match = _TITLE_TAG.search(raw)
    if not match:
        return None
    title = " ".join(html.unescape(match.group(1)).split())
    return title or None


def load_html(path: Path) -> LoadedDocument:
    """HTML: main text by trafilatura; when it finds none, the page's visible text.

    trafilatura drops navigation and boilerplate, which is what a search index wants,
    but it gives up on very short or unusual pages, hence the plain fallback.
    """
    raw = decode_text(_read_bytes(path))
    title = _html_title(raw)
    text = trafilatura.extract(raw, include_comments=False)
    if not text or not text.strip():
        collector = _TextCollector()
        collector.feed(raw)
        collector.close()
        body = collector.text()
        text = f"{title}\n\n{body}" if title and body else (title or body)
    return LoadedDocument(path, title or path.stem, "html", [PageText(None, text)])


def load_pdf(path: Path) -> LoadedDocument:
    """PDF: one :class:`PageText` per page, 1-based; title from the PDF metadata."""
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoadError(path, "PDF is password-protected")
        pages = list(reader.pages)
        meta = reader.metadata
        meta_title = meta.title if meta is not None else None
    except LoadError:
        raise
    except PdfReadError as exc:
        raise LoadError(path, f"not a valid PDF ({exc})") from exc
    except Exception as exc:  # pypdf raises many kinds of errors on damaged files
        raise LoadError(path, f"not a valid PDF ({type(exc).__name__}: {exc})") from exc
    warnings: list[str] = []
    texts: list[PageText] = []
    for number, page in enumerate(pages, start=1):
        try:
            text = page.extract_text() or ""
        except Exception as exc:  # one broken page must not lose the others
            logger.debug("text extraction failed on %s page %d", path, number, exc_info=True)
            warnings.append(f"page {number}: text extraction failed ({exc})")
            text = ""
        else:
            if not text.strip():
                warnings.append(f"page {number}: no extractable text (scanned image?)")
        texts.append(PageText(number, text.replace("\r\n", "\n")))
    title = " ".join(str(meta_title).split()) if isinstance(meta_title, str) else ""
    return LoadedDocument(path, title or path.stem, "pdf", texts, warnings)


# ------------------------------------------------------------------------ registry

LOADERS: dict[str, Loader] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".txt": load_text,
    ".rst": load_rst,
    ".html": load_html,
    ".htm": load_html,
    ".pdf": load_pdf,
}
"""Suffix (lower case, with dot) to loader; add entries here to support more types."""


def supported_suffixes() -> list[str]:
    """The suffixes :func:`load_document` accepts, sorted."""
    return sorted(LOADERS)


def is_supported(path: Path) -> bool:
    """Whether ``path`` has a suffix a loader is registered for."""
    return path.suffix.lower() in LOADERS


def load_document(path: Path) -> LoadedDocument:
    """Load ``path`` with the loader for its suffix; raise :class:`LoadError` if it fails."""
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        suffix = path.suffix or "(none)"
        raise LoadError(
            path, f"unsupported file type {suffix}; supported: {', '.join(supported_suffixes())}"
        )
    return loader(path)
