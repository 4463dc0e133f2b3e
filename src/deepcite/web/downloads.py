"""The ``Content-Disposition`` header of every download the web app serves.

HTTP headers are Latin-1 on the wire (Starlette encodes them so), and export file
names are made from report titles in any script: ``量子计算.md`` or a title with an em
dash or curly quotes put into ``filename="..."`` as it is made the route fail with a
500. RFC 6266 (with the RFC 5987/8187 encoding) gives both: an ASCII ``filename``
for old clients, and ``filename*=UTF-8''...`` with the real name percent-encoded,
which every current browser prefers. Nothing from the name can end the quoted string
or the header: quotes, backslashes, control characters and line breaks never reach
the fallback, and the encoded form is ASCII attribute characters only.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal
from urllib.parse import quote

#: The name used when a file name leaves nothing ASCII to show.
FALLBACK_STEM = "report"
# RFC 5987 attr-char beyond letters and digits (``quote`` keeps ``_.-~`` itself).
_ATTR_CHARS = "!#$&+^`|"
_NOT_FALLBACK = re.compile(r"[^A-Za-z0-9._\-]+")
_EXTENSION = re.compile(r"(?:\.[A-Za-z0-9]{1,10}){1,2}\Z")


def ascii_filename(filename: str) -> str:
    """An ASCII stand-in for ``filename``: accents folded (``é`` -> ``e``), everything
    else but letters, digits, ``.``, ``_`` and ``-`` replaced by ``_``, the extension
    (``.md``, ``.csl.json``) kept; ``report`` plus the extension when no letter or digit
    of the title is left (a Chinese title)."""
    extension = _EXTENSION.search(filename)
    suffix = extension.group(0) if extension else ""
    stem = filename[:len(filename) - len(suffix)]
    folded = "".join(char if char.isascii() else "" if unicodedata.combining(char) else "_"
                     for char in unicodedata.normalize("NFKD", stem))
    safe = re.sub(r"_{2,}", "_", _NOT_FALLBACK.sub("_", folded)).strip("._-")
    if not re.search(r"[A-Za-z0-9]", safe):
        safe = FALLBACK_STEM
    return f"{safe}{suffix}"


def content_disposition(filename: str,
                        disposition: Literal["attachment", "inline"] = "attachment") -> str:
    """``attachment; filename="ascii"; filename*=UTF-8''percent-encoded`` for
    ``filename``; always pure ASCII, so it can be sent whatever the title was."""
    encoded = quote(filename, safe=_ATTR_CHARS, encoding="utf-8", errors="replace")
    return f"{disposition}; filename=\"{ascii_filename(filename)}\"; filename*=UTF-8''{encoded}"
