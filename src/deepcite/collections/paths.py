"""File names as a collection stores and shows them: always valid UTF-8.

On Linux a file name is bytes, and nothing makes them UTF-8: a file copied from an old
Windows share or a Latin-1 tarball can be called ``caf\\xe9.txt``. Python hands such a
name over with each bad byte as a lone surrogate (PEP 383); SQLite, JSON and consoles
refuse those, and one such name used to abort a whole ``add`` and every re-run.

Such a path component is therefore keyed with its bad bytes written as ``\\xNN`` and its
backslashes doubled. The mapping is one-to-one among bad names (two different bad names
never share a key), it is stable (an unchanged file is skipped on the next ``add``, a
deleted one is removed) and it can be undone (:func:`file_path`), so ``file://`` links
still point at the real file. Valid components, nearly all, are kept as they are, so the
keys of ordinary files stay their plain absolute paths. A *valid* name that happens to
spell out the same escape (a literal ``caf\\xe9.txt``) can still meet a bad one on the
same key; discovery then indexes the first and reports the second (see
:mod:`deepcite.collections.files`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["display_path", "document_key", "file_path", "key_exists", "safe_text"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2})")


def _is_utf8(text: str) -> bool:
    return _SURROGATE.search(text) is None


def _escape_component(part: str) -> str:
    if _is_utf8(part):
        return part
    try:
        raw = os.fsencode(part)  # the bytes the file system holds (surrogateescape)
    except UnicodeEncodeError:  # a surrogate that did not come from a byte (Windows)
        raw = part.encode("utf-8", "surrogatepass")
    return raw.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def document_key(path: Path) -> str:
    """The valid UTF-8 string that identifies ``path`` in an index (see the module doc)."""
    text = str(path)
    if _is_utf8(text):
        return text
    return str(Path(*(_escape_component(part) for part in path.parts)))


def display_path(path: Path) -> str:
    """``path`` as printable text: its key, which any console and log can show."""
    return document_key(path)


def safe_text(text: str) -> str:
    """``text`` without lone surrogates (a title taken from a bad file name, say).

    A surrogate that stands for a byte becomes ``\\xNN`` as in keys; any other becomes
    U+FFFD. SQLite cannot store lone surrogates at all.
    """
    if _is_utf8(text):
        return text

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "\ufffd"

    return _SURROGATE.sub(escape, text)


def _unescape_component(part: str) -> str | None:
    """The name whose key component is ``part``, or ``None`` if ``part`` is not a key."""
    if "\\" not in part:
        return None
    raw = bytearray()
    pos = 0
    for match in _ESCAPE.finditer(part):
        if "\\" in part[pos:match.start()]:
            return None  # a backslash that is not one of our escapes
        raw += part[pos:match.start()].encode("utf-8")
        token = match.group(1)
        raw += b"\\" if token == "\\" else bytes([int(token[1:], 16)])
        pos = match.end()
    if "\\" in part[pos:]:
        return None
    raw += part[pos:].encode("utf-8")
    try:
        bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return os.fsdecode(bytes(raw))
    return None  # valid UTF-8 is never escaped, so this is a literal backslash name


def _decoded(key: str) -> Path | None:
    if "\\" not in key:
        return None
    literal = Path(key)
    parts = [_unescape_component(part) or part for part in literal.parts]
    decoded = Path(*parts)
    return None if decoded == literal else decoded


def file_path(key: str) -> Path:
    """The file a key names: its bad bytes restored, unless the key is a real name."""
    decoded = _decoded(key)
    if decoded is None or os.path.lexists(key):
        return Path(key)
    return decoded


def key_exists(key: str) -> bool:
    """Whether the file behind ``key`` still exists (under either reading of the key)."""
    if os.path.exists(key):
        return True
    decoded = _decoded(key)
    return decoded is not None and decoded.exists()
