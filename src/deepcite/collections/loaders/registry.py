"""Turn files on disk into plain-text pages that the chunker and the index understand.

Each supported suffix maps to one loader function: the built-ins in :data:`LOADERS`,
and plugins registered in the ``deepcite.loaders`` entry point group (name: the suffix,
such as ``.odt`` or ``odt``; value: a callable ``(Path) -> LoadedDocument``), both held
by :data:`LOADER_REGISTRY`, the shared :class:`deepcite.plugins.Registry` spelled by
suffix. A plugin cannot shadow a built-in suffix, so installing a package never silently
changes how existing files are read. Loaders keep page numbers where the format has
pages (PDF, EPUB sections), because citations point at them, and they report pages
that yielded no text instead of silently indexing nothing: a scanned PDF should be
visible to the user, not mysteriously unsearchable. A file that cannot be loaded raises
:class:`LoadError` whose message is one line, ``"<path>: <reason>"``, so one bad file
can be reported while the rest is indexed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path

from deepcite.collections.documents import (
    LoadedDocument,
    Loader,
    LoadError,
    PageText,
)
from deepcite.collections.headings import leading_title, markdown_title, rst_title
from deepcite.collections.loaders.csv_file import load_csv
from deepcite.collections.loaders.docx_file import load_docx
from deepcite.collections.loaders.encoding import decode_text
from deepcite.collections.loaders.epub_file import load_epub
from deepcite.collections.loaders.html_text import html_title, html_to_text
from deepcite.collections.loaders.limits import TextBudget, check_pages, read_text_file
from deepcite.errors import ConfigError, mapped_errors
from deepcite.plugins import LOADERS_GROUP, Registry, file_suffix

__all__ = [
    "ENTRY_POINT_GROUP",
    "LOADERS",
    "LOADER_REGISTRY",
    "LoadError",
    "LoadedDocument",
    "Loader",
    "PageText",
    "decode_text",
    "is_supported",
    "load_document",
    "supported_suffixes",
]

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = LOADERS_GROUP


def _text_document(
    path: Path, kind: str, find_title: Callable[[str], str | None]
) -> LoadedDocument:
    text = TextBudget(path).add(decode_text(read_text_file(path)))
    title = find_title(text) or path.stem
    return LoadedDocument(path, title, kind, [PageText(None, text)])


def load_markdown(path: Path) -> LoadedDocument:
    """Markdown: title is the first ``# `` heading."""
    return _text_document(path, "markdown", markdown_title)


def load_rst(path: Path) -> LoadedDocument:
    """reStructuredText: title is the first underlined heading."""
    return _text_document(path, "rst", rst_title)


def load_text(path: Path) -> LoadedDocument:
    """Plain text: title is a heading on the first non-blank line, else the file stem."""
    return _text_document(path, "text", leading_title)


def load_html(path: Path) -> LoadedDocument:
    """HTML: main text by trafilatura; when it finds none, the page's visible text.

    trafilatura drops navigation and boilerplate, which is what a search index wants,
    but it gives up on very short or unusual pages, hence the plain fallback.
    """
    import trafilatura  # on first use: a quarter second that a search of a built index skips

    raw = TextBudget(path).add(decode_text(read_text_file(path)))
    title = html_title(raw)
    text = trafilatura.extract(raw, include_comments=False)
    if not text or not text.strip():
        body = html_to_text(raw)
        text = f"{title}\n\n{body}" if title and body else (title or body)
    return LoadedDocument(path, title or path.stem, "html", [PageText(None, text)])


def load_pdf(path: Path) -> LoadedDocument:
    """PDF: one :class:`PageText` per page, 1-based; title from the PDF metadata, or
    its first line of text when that is missing or a placeholder (:func:`placeholder_title`).

    pypdf caps each decompressed stream itself; the page count and the text are
    capped here, because many pages can share one content stream and repeat its text.
    """
    from pypdf import PdfReader  # on first use, as trafilatura above

    budget = TextBudget(path)
    with mapped_errors("document", "not a valid PDF", build=partial(LoadError, path)):
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoadError(path, "PDF is password-protected")
        check_pages(path, len(reader.pages))
        pages = list(reader.pages)
        meta = reader.metadata
        meta_title = meta.title if meta is not None else None
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
        texts.append(PageText(number, budget.add(text.replace("\r\n", "\n"))))
    title = " ".join(str(meta_title).split()) if isinstance(meta_title, str) else ""
    if placeholder_title(title):
        title = first_line_title(texts) or ""
    return LoadedDocument(path, title or path.stem, "pdf", texts, warnings)


#: Metadata titles that word processors and PDF tools fill in for you: they name no
#: document, so the first line of its text is the better title.
_PLACEHOLDER_TITLES = re.compile(
    r"(?:untitled(?:[\s_-]*(?:document|\d+))?|no[\s_-]*title|title|document\d*"
    r"|(?:microsoft\s+)?(?:powerpoint\s+presentation|word\s+document)|slide\s*\d*"
    r"|microsoft\s+(?:word|powerpoint|excel)\s+-\s+.*"
    r"|[^\s/\\]+\.(?:docx?|odt|rtf|pptx?|xlsx?|pdf|tex|dvi|ps|txt|indd|pages))",
    re.IGNORECASE)
#: The longest first line taken as a title; a longer one is cut at a word.
MAX_TITLE_CHARS = 120


def placeholder_title(title: str) -> bool:
    """Whether a PDF's metadata title says nothing of the document: empty, without a
    letter, "Untitled", "Microsoft Word - draft.docx", a bare file name..."""
    title = title.strip()
    return not any(ch.isalpha() for ch in title) \
        or _PLACEHOLDER_TITLES.fullmatch(title) is not None


def first_line_title(pages: list[PageText]) -> str | None:
    """The first line of text with a letter in it, as a title (``None``: no text)."""
    for page in pages:
        for line in page.text.splitlines():
            words = line.split()
            if not any(ch.isalpha() for ch in line):
                continue
            title = " ".join(words)
            if len(title) > MAX_TITLE_CHARS:
                cut = title.rfind(" ", 0, MAX_TITLE_CHARS)
                title = title[:cut if cut > 0 else MAX_TITLE_CHARS] + "\u2026"
            return title
    return None


# ------------------------------------------------------------------------ registry

LOADERS: dict[str, Loader] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".txt": load_text,
    ".rst": load_rst,
    ".html": load_html,
    ".htm": load_html,
    ".pdf": load_pdf,
    ".docx": load_docx,
    ".csv": load_csv,
    ".tsv": load_csv,
    ".epub": load_epub,
}
"""Built-in loaders by suffix (lower case, with dot); plugins cannot replace these."""


def _loader(suffix: str, obj: object) -> Loader:
    if not callable(obj):
        raise ConfigError(f"The loader for {suffix} ({LOADER_REGISTRY.origin(suffix)}) is "
                          f"not callable but a {type(obj).__name__}")
    return obj  # checked callable; the signature is the plugin contract


LOADER_REGISTRY: Registry[Loader] = Registry(
    "file type", group=LOADERS_GROUP, builtins=LOADERS, check=_loader, spell=file_suffix,
    hint="Install the plugin that reads it, or convert the file",
)
"""Loaders by suffix: :data:`LOADERS` and the ``deepcite.loaders`` plugins."""


def supported_suffixes() -> list[str]:
    """The suffixes :func:`load_document` accepts (built-ins and plugins), sorted."""
    return sorted(LOADER_REGISTRY.names())


def is_supported(path: Path) -> bool:
    """Whether ``path`` has a suffix a loader is registered for."""
    return bool(path.suffix) and path.suffix in LOADER_REGISTRY


def _loader_for(path: Path) -> Loader:
    if not is_supported(path):
        raise LoadError(path, f"unsupported file type {path.suffix or '(none)'}; "
                              f"supported: {', '.join(supported_suffixes())}")
    try:
        return LOADER_REGISTRY.load(path.suffix)
    except ConfigError as exc:  # a broken plugin must not stop the other files
        value = LOADER_REGISTRY.origin(path.suffix)
        cause = exc.__cause__ or exc
        raise LoadError(path, f"loader plugin {value} cannot be loaded "
                              f"({type(cause).__name__}: {cause})") from exc


def load_document(path: Path) -> LoadedDocument:
    """Load ``path`` with the loader for its suffix; raise :class:`LoadError` if it fails.

    Any other exception a loader raises is turned into a :class:`LoadError` too, so a
    bug in one loader (or plugin) costs one file, never the whole ``add``.
    ``KeyboardInterrupt`` still stops everything.
    """
    loader = _loader_for(path)
    try:
        with mapped_errors("document", "cannot load", build=partial(LoadError, path)):
            document = loader(path)
    except LoadError as exc:
        if exc.__cause__ is not None:  # the loader's exception, mapped: keep its traceback
            logger.debug("loader for %s failed", path, exc_info=True)
        raise
    if not isinstance(document, LoadedDocument):
        raise LoadError(path, f"loader returned {type(document).__name__}, not a document")
    # The built-ins stop early; this catches plugins (an .odt, .xlsx ... loader) too.
    budget = TextBudget(path)
    for page in document.pages:
        budget.add(page.text)
    return document
