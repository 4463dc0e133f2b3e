"""How far one document may expand while it is loaded, in one place, and the guards.

A file's size on disk says little about what it costs to read: a 1.4 MB DOCX can
unpack to gigabytes of XML, and an EPUB can list one big section many times. So the
loaders measure what a file *expands to* - bytes unpacked from an archive, entries in
it, the compression ratio, and the characters of text it yields - and refuse the file
with a one-line :class:`~deepcite.collections.documents.LoadError` ("too large: ...")
the moment a limit is passed, before the memory is spent. XML parts are measured in
elements too (:data:`MAX_XML_ELEMENTS`), because parsing costs per element, not per
byte: one-letter paragraphs make a parse that bytes alone do not bound. One refused file costs that
file only: the indexer reports it and goes on with the rest of the folder.

:class:`ZipReader` guards every archive-based format (DOCX, EPUB, and any plugin that
opens a zip through it); :class:`TextBudget` guards the text a loader builds, whatever
the format (CSV rows that repeat their header, PDF pages sharing one content stream).
Declared sizes in a zip are checked first, because that is cheap, but the bytes really
unpacked are counted too, because declared sizes can lie.
"""

from __future__ import annotations

import os
import struct
import zipfile
from functools import partial
from pathlib import Path
from typing import IO

from deepcite.collections.documents import LoadError
from deepcite.errors import mapped_errors

MAX_DOCUMENT_CHARS = 20_000_000
"""Characters of text one document may yield (about four times the whole Bible).

Beyond this a "document" is a corpus or an attack; the index, the chunker and a
material's summary would all choke on it. Split such a file into smaller ones.
"""

MAX_TEXT_FILE_BYTES = 4 * MAX_DOCUMENT_CHARS
"""Plain-text formats (text, Markdown, HTML, CSV) larger than this are not read at all.

A UTF-8 character takes at most four bytes, so a bigger file is sure to pass
:data:`MAX_DOCUMENT_CHARS`; refusing it before reading saves the memory.
"""

MAX_PAGES = 20_000
"""Pages (PDF pages, EPUB spine entries) one document may have: each costs a parse
even when it holds no text, so the character limit alone does not bound the time."""

MAX_ARCHIVE_ENTRIES = 10_000
"""Entries one zip-based document may hold; a DOCX has dozens, a large EPUB hundreds.
Checked from the zip's end record before the central directory is parsed."""

MAX_ENTRY_BYTES = 64 * 1024 * 1024
"""Uncompressed bytes of one archive entry (one XML part, one EPUB section)."""

MAX_ARCHIVE_BYTES = 256 * 1024 * 1024
"""Uncompressed bytes read from one archive, all entries together."""

MAX_COMPRESSION_RATIO = 200
"""Largest uncompressed/compressed ratio of one entry. Real XML and XHTML pack 5-30
times; deflate cannot go past about 1,000, which is what zip bombs use."""

RATIO_CHECK_BYTES = 1024 * 1024
"""The ratio is only checked once an entry has unpacked this much: tiny entries (an
empty style sheet) may pack very well and harm nobody."""

MAX_XML_ELEMENTS = 2_000_000
"""XML elements (start and empty tags) one zip-based document may hold, all its XML
parts together; counted while the bytes are unpacked, before any XML parser runs.

Bytes alone do not bound the *parse*: 62 MiB of one-letter paragraphs
(``<w:p><w:r><w:t>a</w:t></w:r></w:p>``, 3 elements each) is under every byte limit
above, yet python-docx spent ~85 s and ~1.2 GB building its 5.4 million elements
(about 220 bytes and 15 us each). A real document stays far below this cap: a
paragraph with its properties and a few formatted runs is 10-20 elements, a busy page
40 paragraphs, so a 1,000-page book is under 1,000,000 - and a document at the cap
loads in about 14 s and 0.5 GB (measured, one-letter paragraphs).
"""

_READ_CHUNK = 256 * 1024
_XML_SUFFIXES = (".xml", ".rels", ".xhtml", ".html", ".htm", ".opf", ".ncx", ".svg")
_NOT_ELEMENTS = (b"</", b"<!", b"<?", b"<\x00/", b"<\x00!", b"<\x00?")  # UTF-16 too
_TAIL = max(len(pattern) for pattern in _NOT_ELEMENTS) - 1
_LEADING = b" \t\r\n\x00\xef\xbb\xbf\xfe\xff"  # whitespace, UTF-16 zeros, BOM bytes
_END_RECORD = struct.Struct("<4s4H2LH")
_END_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"
_ZIP64_RECORD = struct.Struct("<4sQ2H2L4Q")
_ZIP64_SIGNATURE = b"PK\x06\x06"


def _mb(size: int) -> str:
    return f"{size // (1024 * 1024)} MB"


def too_large(path: Path, what: str) -> LoadError:
    """The one-line error for a document over a limit, saying what to do about it."""
    return LoadError(path, f"too large: {what}; split it into smaller files or convert "
                           "it to plain text")


def _looks_like_xml(name: str, head: bytes) -> bool:
    """Whether an entry may be parsed as XML: its name says so, or its bytes start like
    XML (an XML parser goes by the content type, not the name, so a renamed part counts)."""
    if name.lower().endswith(_XML_SUFFIXES):
        return True
    stripped = head.lstrip(_LEADING)
    return not stripped or stripped.startswith(b"<")


class _ElementCounter:
    """Counts the tags that open an element (``<`` not followed by ``/``, ``!`` or
    ``?``) in bytes fed a chunk at a time; a pattern split across two chunks counts
    once. Comments and CDATA holding ``<`` only make the count higher (safe side)."""

    def __init__(self) -> None:
        self.count = 0
        self._tail = b""

    def feed(self, chunk: bytes) -> int:
        joined = self._tail + chunk
        self.count += chunk.count(b"<")
        for pattern in _NOT_ELEMENTS:
            # Patterns wholly inside the tail were already subtracted with the last chunk.
            self.count -= joined.count(pattern) - self._tail.count(pattern)
        self._tail = joined[-_TAIL:]
        return self.count


def _declared_entries(handle: IO[bytes]) -> int | None:
    """The entry count in the zip's end record (ZIP64 aware); ``None`` if none is found.

    Read before :class:`zipfile.ZipFile` parses the central directory, which builds
    one object per entry: a 20 MB file can declare hundreds of thousands of them.
    """
    handle.seek(0, 2)
    size = handle.tell()
    tail_start = max(0, size - (_END_RECORD.size + 65_535))
    handle.seek(tail_start)
    tail = handle.read()
    at = tail.rfind(_END_SIGNATURE)
    if at < 0 or len(tail) - at < _END_RECORD.size:
        return None
    entries = int(_END_RECORD.unpack_from(tail, at)[5])
    locator_at = at - _ZIP64_LOCATOR.size
    if entries == 0xFFFF and locator_at >= 0 and \
            tail[locator_at:locator_at + 4] == _ZIP64_LOCATOR_SIGNATURE:
        record_offset = int(_ZIP64_LOCATOR.unpack_from(tail, locator_at)[2])
        handle.seek(record_offset)
        record = handle.read(_ZIP64_RECORD.size)
        if len(record) == _ZIP64_RECORD.size and record[:4] == _ZIP64_SIGNATURE:
            entries = int(_ZIP64_RECORD.unpack(record)[7])
    return entries


class ZipReader:
    """A zip archive opened for one document, read within the limits above.

    Open it with :meth:`open` (a context manager); :meth:`read` returns one entry's
    bytes and :meth:`check_all` unpacks every entry once, discarding the bytes, for
    formats whose library reads the whole package itself (python-docx). Every byte
    unpacked, by either, counts towards :data:`MAX_ARCHIVE_BYTES`, and every element of
    an XML entry (one whose name or first bytes say XML) towards
    :data:`MAX_XML_ELEMENTS`, so the parse a document costs is bounded before it starts.
    """

    def __init__(self, archive: zipfile.ZipFile, path: Path) -> None:
        self.archive = archive
        self.path = path
        self.unpacked = 0
        self.elements = 0

    @classmethod
    def open(cls, path: Path, handle: IO[bytes]) -> ZipReader:
        """The archive in ``handle`` (the file at ``path``), after its entry count is checked.

        Raises :class:`LoadError` when there are too many entries, and lets
        :class:`zipfile.BadZipFile` through for the caller's "not a valid ..." message.
        """
        declared = _declared_entries(handle)
        handle.seek(0)
        if declared is not None and declared > MAX_ARCHIVE_ENTRIES:
            raise too_large(path, f"its archive lists {declared:,} entries (the limit is "
                                  f"{MAX_ARCHIVE_ENTRIES:,})")
        archive = zipfile.ZipFile(handle)
        if len(archive.infolist()) > MAX_ARCHIVE_ENTRIES:
            raise too_large(path, f"its archive lists {len(archive.infolist()):,} entries "
                                  f"(the limit is {MAX_ARCHIVE_ENTRIES:,})")
        return cls(archive, path)

    def __enter__(self) -> ZipReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.archive.close()

    def names(self) -> list[str]:
        """The entry names, in archive order."""
        return self.archive.namelist()

    def _check_declared(self, info: zipfile.ZipInfo) -> None:
        if info.file_size > MAX_ENTRY_BYTES:
            raise too_large(self.path, f"{info.filename} unpacks to {info.file_size:,} bytes "
                                       f"(the limit is {_mb(MAX_ENTRY_BYTES)} per part)")

    def _stream(self, info: zipfile.ZipInfo, keep: bool) -> bytes:
        """Unpack ``info``, counting the real bytes; the bytes when ``keep``."""
        self._check_declared(info)
        parts: list[bytes] = []
        size = 0
        counter: _ElementCounter | None = None
        counted = self.elements
        with self.archive.open(info) as member:
            while chunk := member.read(_READ_CHUNK):
                if size == 0 and _looks_like_xml(info.filename, chunk):
                    counter = _ElementCounter()
                if counter is not None:
                    self.elements = counted + counter.feed(chunk)
                    if self.elements > MAX_XML_ELEMENTS:
                        raise too_large(self.path, f"{info.filename} takes it past "
                                                   f"{MAX_XML_ELEMENTS:,} XML elements "
                                                   "(the limit per document)")
                size += len(chunk)
                self.unpacked += len(chunk)
                if size > MAX_ENTRY_BYTES:
                    raise too_large(self.path, f"{info.filename} unpacks to more than "
                                               f"{_mb(MAX_ENTRY_BYTES)} (the limit per part)")
                if size > RATIO_CHECK_BYTES and \
                        size > MAX_COMPRESSION_RATIO * max(info.compress_size, 1):
                    raise too_large(self.path, f"{info.filename} unpacks more than "
                                               f"{MAX_COMPRESSION_RATIO} times its packed size "
                                               "(a zip bomb?)")
                if self.unpacked > MAX_ARCHIVE_BYTES:
                    raise too_large(self.path, f"its archive unpacks to more than "
                                               f"{_mb(MAX_ARCHIVE_BYTES)}")
                if keep:
                    parts.append(chunk)
        return b"".join(parts)

    def read(self, name: str | zipfile.ZipInfo) -> bytes:
        """The bytes of entry ``name``; :class:`KeyError` when it is missing."""
        info = name if isinstance(name, zipfile.ZipInfo) else self.archive.getinfo(name)
        return self._stream(info, keep=True)

    def check_all(self) -> None:
        """Unpack every entry once within the limits (the bytes are thrown away).

        Declared sizes are summed first, so an honest bomb is refused without
        unpacking anything; the real bytes are then counted, for the dishonest one.
        """
        infos = self.archive.infolist()
        declared = sum(info.file_size for info in infos)
        if declared > MAX_ARCHIVE_BYTES:
            raise too_large(self.path, f"its archive unpacks to {declared:,} bytes (the "
                                       f"limit is {_mb(MAX_ARCHIVE_BYTES)})")
        for info in infos:
            self._check_declared(info)
        for info in infos:
            if not info.is_dir():
                self._stream(info, keep=False)


class TextBudget:
    """Counts the characters a loader produces and stops it at :data:`MAX_DOCUMENT_CHARS`.

    Loaders call :meth:`add` with each piece as they build it, so a document that
    would yield billions of characters is refused after the first twenty million,
    not after the memory for all of them is spent.
    """

    def __init__(self, path: Path, limit: int | None = None) -> None:
        self.path = path
        self.limit = MAX_DOCUMENT_CHARS if limit is None else limit
        self.used = 0

    def add(self, text: str) -> str:
        """Charge ``text`` against the budget and return it; :class:`LoadError` when over."""
        self.used += len(text)
        if self.used > self.limit:
            raise too_large(self.path, f"it yields more than {self.limit:,} characters of "
                                       "text")
        return text


def check_pages(path: Path, count: int) -> None:
    """Refuse a document with more than :data:`MAX_PAGES` pages (or spine entries)."""
    if count > MAX_PAGES:
        raise too_large(path, f"it has {count:,} pages or sections (the limit is "
                              f"{MAX_PAGES:,})")


def read_text_file(path: Path) -> bytes:
    """The bytes of a plain-text format file, refused unread above :data:`MAX_TEXT_FILE_BYTES`.

    Reads at most one byte past the limit, so a file that grows while it is read (or
    a device that never ends) cannot take more memory than that either.
    """
    with mapped_errors("document", "cannot read file", build=partial(LoadError, path)), \
            path.open("rb") as handle:
        if os.fstat(handle.fileno()).st_size > MAX_TEXT_FILE_BYTES:
            raise too_large(path, f"it is larger than {_mb(MAX_TEXT_FILE_BYTES)}")
        data = handle.read(MAX_TEXT_FILE_BYTES + 1)
    if len(data) > MAX_TEXT_FILE_BYTES:
        raise too_large(path, f"it is larger than {_mb(MAX_TEXT_FILE_BYTES)}")
    return data
