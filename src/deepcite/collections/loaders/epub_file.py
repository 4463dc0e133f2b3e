"""EPUB books: one page per spine document, so citations can say "section N".

An EPUB is a zip archive. ``META-INF/container.xml`` names the package file (OPF),
whose ``<spine>`` lists the book's XHTML documents in reading order. Each of them
becomes one :class:`PageText` numbered by its spine position (1-based), which is a
stable, viewer-independent way to point into a book - EPUBs have no fixed pages.
Text comes from :func:`~deepcite.collections.loaders.html_text.html_to_text`, which keeps
chapter headings as ``#`` lines for the chunker; the standard library's zipfile and
ElementTree are all this needs. DRM-encrypted content is refused with a clear reason
rather than indexed as noise.

Every entry is read through :class:`~deepcite.collections.loaders.limits.ZipReader` and the
text is counted by a :class:`~deepcite.collections.loaders.limits.TextBudget`, so a small book
that unpacks to gigabytes, or whose XML (container, package, XHTML sections) holds more
than :data:`~deepcite.collections.loaders.limits.MAX_XML_ELEMENTS` elements, is refused as "too
large" before that part is parsed; a spine that lists the same
document more than once gets it once (later mentions are skipped with a warning),
since a repeated section adds no text worth citing twice but can multiply the book.
"""

from __future__ import annotations

import logging
import posixpath
import xml.etree.ElementTree as ET
from functools import partial
from pathlib import Path
from urllib.parse import unquote

from deepcite.collections.documents import LoadedDocument, LoadError, PageText, collapse
from deepcite.collections.loaders.encoding import decode_text
from deepcite.collections.loaders.html_text import html_to_text
from deepcite.collections.loaders.limits import TextBudget, ZipReader, check_pages
from deepcite.errors import mapped_errors

logger = logging.getLogger(__name__)

CONTAINER = "META-INF/container.xml"
ENCRYPTION = "META-INF/encryption.xml"
_FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)


def _xml(archive: ZipReader, name: str, path: Path) -> ET.Element:
    try:
        return ET.fromstring(archive.read(name))
    except KeyError as exc:
        raise LoadError(path, f"not a valid EPUB ({name} is missing)") from exc
    except ET.ParseError as exc:
        raise LoadError(path, f"not a valid EPUB ({name}: {exc})") from exc


def _package_path(archive: ZipReader, path: Path) -> str:
    """The OPF named by container.xml; the first ``.opf`` in the archive if that fails."""
    if CONTAINER in archive.names():
        rootfile = _xml(archive, CONTAINER, path).find(".//{*}rootfile")
        full_path = rootfile.get("full-path") if rootfile is not None else None
        if full_path:
            return full_path
    for name in archive.names():
        if name.lower().endswith(".opf"):
            return name
    raise LoadError(path, "not a valid EPUB (no package document found)")


def _spine(package: ET.Element, package_path: str) -> list[str]:
    """Archive paths of the spine documents, in reading order."""
    base = posixpath.dirname(package_path)
    hrefs = {
        item.get("id"): item.get("href", "")
        for item in package.iterfind("{*}manifest/{*}item")
    }
    paths = []
    for itemref in package.iterfind("{*}spine/{*}itemref"):
        href = hrefs.get(itemref.get("idref"))
        if href:
            href = unquote(href.split("#", 1)[0])
            paths.append(posixpath.normpath(posixpath.join(base, href)))
    return paths


def _encrypted(archive: ZipReader) -> set[str]:
    """Archive paths encrypted with real DRM (font obfuscation is harmless and ignored)."""
    if ENCRYPTION not in archive.names():
        return set()
    try:
        root = ET.fromstring(archive.read(ENCRYPTION))
    except ET.ParseError:
        logger.debug("unreadable %s; assuming no DRM", ENCRYPTION)
        return set()
    found = set()
    for data in root.iterfind(".//{*}EncryptedData"):
        method = data.find("{*}EncryptionMethod")
        reference = data.find(".//{*}CipherReference")
        algorithm = method.get("Algorithm", "") if method is not None else ""
        if reference is not None and algorithm not in _FONT_OBFUSCATION:
            found.add(unquote(reference.get("URI", "")))
    return found


def _section(archive: ZipReader, name: str, number: int, warnings: list[str]) -> str:
    try:
        data = archive.read(name)
    except KeyError:
        warnings.append(f"section {number}: {name} is missing from the archive")
        return ""
    return html_to_text(decode_text(data))


def _read(archive: ZipReader, path: Path) -> LoadedDocument:
    package_path = _package_path(archive, path)
    package = _xml(archive, package_path, path)
    spine = _spine(package, package_path)
    if not spine:
        raise LoadError(path, "not a valid EPUB (the spine lists no documents)")
    if _encrypted(archive) & set(spine):
        raise LoadError(path, "EPUB is DRM-protected (its text is encrypted)")
    title_element = package.find("{*}metadata/{*}title")
    title = collapse(title_element.text or "") if title_element is not None else ""
    check_pages(path, len(spine))
    warnings: list[str] = []
    budget = TextBudget(path)
    pages: list[PageText] = []
    first: dict[str, int] = {}
    repeats = 0
    for number, name in enumerate(spine, start=1):
        if name in first:
            repeats += 1
            continue
        first[name] = number
        pages.append(PageText(number, budget.add(_section(archive, name, number, warnings))))
    if repeats:
        warnings.append(f"the spine lists {repeats} section(s) again; each was read once")
    return LoadedDocument(path, title or path.stem, "epub", pages, warnings)


def load_epub(path: Path) -> LoadedDocument:
    """EPUB: one page per spine document (1-based); title from ``dc:title``."""
    # zipfile raises its own errors, and RuntimeError, NotImplementedError, ValueError
    # for encrypted members, unsupported compression methods, bad headers.
    with mapped_errors("document", "not a valid EPUB", build=partial(LoadError, path)), \
            path.open("rb") as handle, ZipReader.open(path, handle) as archive:
        return _read(archive, path)
